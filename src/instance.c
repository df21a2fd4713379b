// SPDX-License-Identifier: GPL-2.0
/*
 * Instances of bpf_cubic: load (open the skeleton under a new name, pin, then
 * register), find (pinned maps), inspect, unregister and remove.
 *
 * libbpf 1.1 registers struct_ops in map mode: the registration outlives this
 * process and ends with a delete of the map's only element, so the struct_ops
 * map is pinned to be found again. Everything is pinned before registering, so
 * a load killed halfway leaves at worst pins of an unregistered instance,
 * which instance_state() reports as INST_LEFTOVER and load/unload remove.
 */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"
#include "bpf_cubic.skel.h"

/* Offset of the state in struct bpf_struct_ops_common_value {refcount_t; state}. */
#define STRUCT_OPS_STATE_OFF 4
#define STRUCT_OPS_STATE_INUSE 1

void instance_path(char *buf, size_t len, const char *name, const char *pin)
{
	if (pin)
		snprintf(buf, len, "%s/%s/%s", CUBIC_PIN_ROOT, name, pin);
	else
		snprintf(buf, len, "%s/%s", CUBIC_PIN_ROOT, name);
}

static int get_pinned(const char *name, const char *pin)
{
	char path[PATH_MAX];

	instance_path(path, sizeof(path), name, pin);
	return bpf_obj_get(path);
}

int instance_open(struct instance *in, const char *name)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->ops_fd = in->tunables_fd = in->counters_fd = in->info_fd = in->events_fd = -1;
	snprintf(in->name, sizeof(in->name), "%s", name);
	instance_path(in->dir, sizeof(in->dir), name, NULL);
	if (stat(in->dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	in->ops_fd = get_pinned(name, CUBIC_PIN_OPS);
	in->tunables_fd = get_pinned(name, CUBIC_PIN_TUNABLES);
	in->counters_fd = get_pinned(name, CUBIC_PIN_COUNTERS);
	in->info_fd = get_pinned(name, CUBIC_PIN_INFO);
	in->events_fd = get_pinned(name, CUBIC_PIN_EVENTS);
	return 0;
}

void instance_close(struct instance *in)
{
	int *fds[] = { &in->ops_fd, &in->tunables_fd, &in->counters_fd, &in->info_fd,
		       &in->events_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* The struct_ops map of each datapath, by its map name in bpf/bpf_cubic.bpf.c. */
static const char *const datapath_maps[] = {
	[DATAPATH_EXACT] = "cubic_ops",
	[DATAPATH_FAST] = "cubic_ops_fast",
};
static const char *const datapath_names[] = {
	[DATAPATH_EXACT] = "exact",
	[DATAPATH_FAST] = "fast",
};

int instance_datapath_of(const char *map_name)
{
	for (int i = 0; i < DATAPATH_COUNT; i++)
		if (!strcmp(map_name, datapath_maps[i]))
			return i;
	return -1;
}

const char *datapath_str(enum datapath dp)
{
	return dp >= 0 && dp < DATAPATH_COUNT ? datapath_names[dp] : "?";
}

int datapath_parse(const char *s)
{
	for (int i = 0; i < DATAPATH_COUNT; i++)
		if (!strcmp(s, datapath_names[i]))
			return i;
	return -1;
}

int instance_datapath(const struct instance *in)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (in->ops_fd < 0 || bpf_obj_get_info_by_fd(in->ops_fd, &info, &len))
		return -1;
	return instance_datapath_of(info.name);
}

/* tcp_congestion_ops.name as it sits in the map value: 16 bytes, zero-padded. */
static void ops_name(char out[CUBIC_NAME_MAX], const char *name)
{
	memset(out, 0, CUBIC_NAME_MAX);
	memcpy(out, name, strnlen(name, CUBIC_NAME_MAX - 1));
}

/*
 * Whether a struct_ops map of ours is registered (state INUSE), and, if name
 * is given, under that name: the value holds tcp_congestion_ops.name as 16
 * zero-padded bytes.
 */
static bool ops_registered(int fd, const char *name)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, state = 0;
	char pat[CUBIC_NAME_MAX];
	bool match = !name;
	char *val;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != BPF_MAP_TYPE_STRUCT_OPS ||
	    info.value_size < 8 || instance_datapath_of(info.name) < 0)
		return false;
	val = calloc(1, info.value_size);
	if (!val)
		return false;
	if (!bpf_map_lookup_elem(fd, &zero, val)) {
		memcpy(&state, val + STRUCT_OPS_STATE_OFF, sizeof(state));
		if (name) {
			ops_name(pat, name);
			match = memmem(val, info.value_size, pat, sizeof(pat)) != NULL;
		}
	}
	free(val);
	return state == STRUCT_OPS_STATE_INUSE && match;
}

/* The kernel's view: a struct_ops map is registered while its state is INUSE. */
enum instance_state instance_state(struct instance *in)
{
	if (in->ops_fd < 0 || in->tunables_fd < 0)
		return INST_LEFTOVER;
	return ops_registered(in->ops_fd, NULL) ? INST_REGISTERED : INST_LEFTOVER;
}

int instance_find_unpinned(const char *name)
{
	__u32 id = 0;

	while (!bpf_map_get_next_id(id, &id)) {
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (ops_registered(fd, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

const char *instance_state_str(enum instance_state st)
{
	switch (st) {
	case INST_REGISTERED:
		return "registered";
	case INST_LEFTOVER:
		return "leftover";
	default:
		return "absent";
	}
}

int instance_read_tunables(struct instance *in, struct cubic_tunables *t)
{
	__u32 zero = 0;

	if (in->tunables_fd < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(in->tunables_fd, &zero, t) ? -errno : 0;
}

int instance_read_counters(struct instance *in, struct cubic_counters *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t stride = (sizeof(struct cubic_counters) + 7) & ~(size_t)7;
	__u32 zero = 0;
	char *vals;
	int err = 0;

	memset(sum, 0, sizeof(*sum));
	if (in->counters_fd < 0 || ncpu <= 0)
		return -ENOENT;
	vals = calloc((size_t)ncpu, stride);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(in->counters_fd, &zero, vals)) {
		err = -errno;
	} else {
		for (int cpu = 0; cpu < ncpu; cpu++) {
			const struct cubic_counters *c = (void *)(vals + (size_t)cpu * stride);

			for (int i = 0; i < CUBIC_CNT_MAX; i++)
				sum->c[i] += c->c[i];
		}
	}
	free(vals);
	return err;
}

int instance_remove_pins(const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;
	int err = 0;

	instance_path(dir, sizeof(dir), name, NULL);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT)
		err = -errno;
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int instance_list(char (*names)[CUBIC_NAME_MAX], int max)
{
	struct dirent *de;
	DIR *d = opendir(CUBIC_PIN_ROOT);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (strlen(de->d_name) >= CUBIC_NAME_MAX)
			continue;
		snprintf(names[n++], CUBIC_NAME_MAX, "%s", de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, CUBIC_NAME_MAX, cmp_names);
	return n;
}

int instance_unregister(int ops_fd)
{
	__u32 zero = 0;

	if (ops_fd < 0)
		return -ENOENT;
	return bpf_map_delete_elem(ops_fd, &zero) ? -errno : 0;
}

/*
 * libbpf 1.1 cannot rename a struct_ops map before load, so the name is
 * patched in the object image: the placeholder CUBIC_DEFAULT_NAME, zero-padded
 * to the 16 bytes of tcp_congestion_ops.name, once per struct_ops map inside
 * the .struct_ops section.
 */
static int patch_ops_name(void *elf, size_t sz, const char *name)
{
	char pat[CUBIC_NAME_MAX], repl[CUBIC_NAME_MAX];
	const Elf64_Ehdr *eh = elf;
	const Elf64_Shdr *sh;
	const char *shstr;
	int found = 0;

	if (sz < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > sz ||
	    (sz - eh->e_shoff) / sizeof(*sh) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return -EINVAL;
	sh = (const Elf64_Shdr *)((const char *)elf + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset >= sz)
		return -EINVAL;
	shstr = (const char *)elf + sh[eh->e_shstrndx].sh_offset;
	ops_name(pat, CUBIC_DEFAULT_NAME);
	ops_name(repl, name);

	for (int i = 0; i < eh->e_shnum; i++) {
		char *sec = (char *)elf + sh[i].sh_offset;

		if (strcmp(shstr + sh[i].sh_name, ".struct_ops") || sh[i].sh_offset > sz ||
		    sh[i].sh_size > sz - sh[i].sh_offset)
			continue;
		for (size_t off = 0; off + sizeof(pat) <= sh[i].sh_size; off++) {
			if (!memcmp(sec + off, pat, sizeof(pat))) {
				memcpy(sec + off, repl, sizeof(repl));
				found++;
			}
		}
	}
	/* one per struct_ops map */
	return found == DATAPATH_COUNT ? 0 : -ENOENT;
}

static int pin_map(struct bpf_map *map, const char *name, const char *pin)
{
	char path[PATH_MAX];
	int err;

	instance_path(path, sizeof(path), name, pin);
	err = bpf_map__pin(map, path);
	if (err)
		errmsg("can't pin map: path '%s': %s", path, strerror(-err));
	return err;
}

/*
 * Only the chosen datapath's struct_ops map is created, and only the programs
 * it uses are loaded. Returns that map, or NULL with errno set.
 */
static struct bpf_map *select_datapath(struct bpf_cubic_bpf *skel, enum datapath dp)
{
	bool fast = dp == DATAPATH_FAST;
	struct bpf_program *only_exact[] = { skel->progs.bc_init, skel->progs.bc_cong_avoid,
					     skel->progs.bc_pkts_acked, skel->progs.bc_set_state,
					     skel->progs.bc_cwnd_event };
	struct bpf_program *only_fast[] = { skel->progs.bc_init_fast, skel->progs.bc_cong_control,
					    skel->progs.bc_set_state_fast,
					    skel->progs.bc_cwnd_event_fast };
	struct bpf_program **off = fast ? only_exact : only_fast;
	size_t n = fast ? sizeof(only_exact) / sizeof(only_exact[0])
			: sizeof(only_fast) / sizeof(only_fast[0]);
	int err;

	err = bpf_map__set_autocreate(fast ? skel->maps.cubic_ops : skel->maps.cubic_ops_fast,
				      false);
	for (size_t i = 0; i < n && !err; i++)
		err = bpf_program__set_autoload(off[i], false);
	if (err) {
		errno = -err;
		return NULL;
	}
	return fast ? skel->maps.cubic_ops_fast : skel->maps.cubic_ops;
}

int instance_load(const char *name, const struct cubic_tunables *t, __u32 ring_size,
		  enum datapath dp)
{
	struct bpf_cubic_bpf *skel;
	struct bpf_map *ops;
	struct bpf_link *link;
	struct cubic_info info = { .abi_version = CUBIC_ABI_VERSION };
	struct timespec now;
	char dir[PATH_MAX];
	void *elf = NULL;
	bool pinned = false;
	__u32 zero = 0;
	int err;

	skel = calloc(1, sizeof(*skel));
	if (!skel || bpf_cubic_bpf__create_skeleton(skel)) {
		errmsg("out of memory");
		free(skel);
		return -ENOMEM;
	}
	elf = malloc(skel->skeleton->data_sz);
	if (!elf) {
		err = -ENOMEM;
		errmsg("out of memory");
		goto out;
	}
	memcpy(elf, skel->skeleton->data, skel->skeleton->data_sz);
	err = patch_ops_name(elf, skel->skeleton->data_sz, name);
	if (err) {
		errmsg("can't set the name in the BPF object: its .struct_ops section has no "
		       "'%s' placeholder", CUBIC_DEFAULT_NAME);
		goto out;
	}
	skel->skeleton->data = elf;

	err = bpf_object__open_skeleton(skel->skeleton, NULL);
	if (err) {
		errmsg("can't open the BPF object: %s", strerror(-err));
		goto out;
	}
	memcpy((char *)skel->rodata->instance_name, name, strnlen(name, CUBIC_NAME_MAX - 1));
	ops = select_datapath(skel, dp);
	if (!ops) {
		err = -errno;
		errmsg("can't select the %s datapath: %s", datapath_str(dp), strerror(errno));
		goto out;
	}
	err = bpf_map__set_max_entries(skel->maps.events, ring_size);
	if (err) {
		errmsg("can't set the ring size to %u bytes: %s", ring_size, strerror(-err));
		goto out;
	}
	err = bpf_cubic_bpf__load(skel);
	if (err) {
		errmsg("can't load the BPF programs: %s (run 'cubicctl -v load' for the verifier log)",
		       strerror(-err));
		goto out;
	}

	clock_gettime(CLOCK_REALTIME, &now);
	info.load_time_ns = (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec;
	snprintf(info.name, sizeof(info.name), "%s", name);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.tunables), &zero, t, 0) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.info), &zero, &info, 0)) {
		err = -errno;
		errmsg("can't initialise the maps: %s", strerror(errno));
		goto out;
	}

	instance_path(dir, sizeof(dir), name, NULL);
	if (mkdir(dir, 0700)) {
		err = -errno;
		errmsg("can't create '%s': %s", dir, strerror(errno));
		goto out;
	}
	pinned = true;
	err = pin_map(skel->maps.info, name, CUBIC_PIN_INFO);
	err = err ?: pin_map(skel->maps.tunables, name, CUBIC_PIN_TUNABLES);
	err = err ?: pin_map(skel->maps.counters, name, CUBIC_PIN_COUNTERS);
	err = err ?: pin_map(skel->maps.events, name, CUBIC_PIN_EVENTS);
	err = err ?: pin_map(ops, name, CUBIC_PIN_OPS);
	if (err)
		goto out;

	/* Register: from here on the kernel owns the instance. */
	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		err = -errno;
		if (err == -EEXIST)
			errmsg("congestion control '%s' is already registered; pick another --name",
			       name);
		else
			errmsg("can't register '%s': %s", name, strerror(-err));
		goto out;
	}
	/* Keep the registration when this process lets go of the link. */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	pinned = false;
	err = 0;
out:
	if (pinned)
		instance_remove_pins(name);
	bpf_cubic_bpf__destroy(skel);
	free(elf);
	return err;
}
