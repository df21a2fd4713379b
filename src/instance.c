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
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"
#include "bpf_cubic.skel.h"

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

/* A map's value size, 0 if it can't be read. */
static __u32 value_size(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.value_size : 0;
}

/*
 * cubic_info.abi_version, the first field of the info map's value whatever
 * the version (so any cubicctl can read it); 0 if unreadable.
 */
static __u32 read_abi_version(int info_fd)
{
	__u32 size = value_size(info_fd), zero = 0, ver = 0;
	char *val;

	if (size < sizeof(ver))
		return 0;
	val = calloc(1, size);
	if (!val)
		return 0;
	if (!bpf_map_lookup_elem(info_fd, &zero, val))
		memcpy(&ver, val, sizeof(ver));
	free(val);
	return ver;
}

bool instance_abi_ok(const struct instance *in)
{
	return in->abi_version == CUBIC_ABI_VERSION;
}

int instance_open_loaded(struct instance *in, const char *name)
{
	if (instance_open(in, name) || instance_state(in) != INST_REGISTERED) {
		errmsg("%s is not loaded", name);
		instance_close(in);
		return EXIT_NOT_LOADED;
	}
	if (!instance_abi_ok(in)) {
		if (in->abi_version)
			errmsg("%s was loaded with ABI version %u and this cubicctl reads version "
			       "%u, so it leaves its maps alone: reload it ('cubicctl unload --name "
			       "%s', then 'cubicctl load --name %s')",
			       name, in->abi_version, CUBIC_ABI_VERSION, name, name);
		else
			errmsg("%s has no readable ABI version (its '%s' map), so cubicctl leaves "
			       "its maps alone: reload it ('cubicctl unload --name %s', then "
			       "'cubicctl load --name %s')",
			       name, CUBIC_PIN_INFO, name, name);
		instance_close(in);
		return EXIT_FAIL;
	}
	return EXIT_OK;
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
	in->abi_version = read_abi_version(in->info_fd);
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

int instance_datapath(const struct instance *in)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (in->ops_fd < 0 || bpf_obj_get_info_by_fd(in->ops_fd, &info, &len))
		return -1;
	return datapath_of_map(info.name);
}

/* tcp_congestion_ops.name as it sits in the map value: 16 bytes, zero-padded. */
static void ops_name(char out[CUBIC_NAME_MAX], const char *name)
{
	memset(out, 0, CUBIC_NAME_MAX);
	memcpy(out, name, strnlen(name, CUBIC_NAME_MAX - 1));
}

/*
 * Where the kernel keeps a tcp_congestion_ops struct_ops map's state and name,
 * read from vmlinux BTF as bpftool does: the map's value is
 * struct bpf_struct_ops_tcp_congestion_ops { common (refcnt, state); data },
 * data being the struct tcp_congestion_ops with name[TCP_CA_NAME_MAX].
 */
struct ops_layout {
	__u32 value_type_id; /* what bpf_map_info.btf_vmlinux_value_type_id must be */
	__u32 value_size;
	__u32 state_off; /* common.state */
	__u32 state_inuse; /* BPF_STRUCT_OPS_STATE_INUSE: registered (map mode) */
	__u32 name_off; /* data.name */
};

/* The byte offset of member mname of struct id, and its type; -1 if absent. */
static int member_off(const struct btf *btf, __u32 id, const char *mname, __u32 *off,
		      __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || !btf_is_struct(t))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		__u32 bits = btf_member_bit_offset(t, (__u32)i);

		if (strcmp(btf__name_by_offset(btf, m->name_off), mname) || bits % 8)
			continue;
		*off = bits / 8;
		*type = m->type;
		return 0;
	}
	return -1;
}

static int enum_value(const struct btf *btf, const char *ename, const char *vname, __u32 *val)
{
	__s32 id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	const struct btf_enum *e;

	if (!t)
		return -1;
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), vname)) {
			*val = (__u32)e->val;
			return 0;
		}
	}
	return -1;
}

/* The layout on this kernel, read once; NULL if its BTF lacks what we need. */
static const struct ops_layout *ops_layout(void)
{
	static struct ops_layout l;
	static int done; /* 1: l is valid, -1: can't be had */
	__u32 common_off, common_t, state_off, state_t, data_off, data_t, name_off, name_t;
	struct btf *btf;
	__s32 id;

	if (done)
		return done > 0 ? &l : NULL;
	done = -1;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return NULL;
	id = btf__find_by_name_kind(btf, "bpf_struct_ops_tcp_congestion_ops", BTF_KIND_STRUCT);
	if (id > 0 && !member_off(btf, (__u32)id, "common", &common_off, &common_t) &&
	    !member_off(btf, common_t, "state", &state_off, &state_t) &&
	    btf__resolve_size(btf, state_t) == sizeof(__u32) &&
	    !member_off(btf, (__u32)id, "data", &data_off, &data_t) &&
	    !member_off(btf, data_t, "name", &name_off, &name_t) &&
	    btf__resolve_size(btf, name_t) == CUBIC_NAME_MAX &&
	    !enum_value(btf, "bpf_struct_ops_state", "BPF_STRUCT_OPS_STATE_INUSE",
			&l.state_inuse)) {
		l.value_type_id = (__u32)id;
		l.value_size = (__u32)btf__resolve_size(btf, (__u32)id);
		l.state_off = common_off + state_off;
		l.name_off = data_off + name_off;
		if (l.state_off + sizeof(__u32) <= l.value_size &&
		    l.name_off + CUBIC_NAME_MAX <= l.value_size)
			done = 1;
	}
	btf__free(btf);
	return done > 0 ? &l : NULL;
}

/* Whether the BTF object btf_id (a map's, from its BPF object) is bpf_cubic's. */
static bool btf_is_ours(__u32 btf_id)
{
	static __u32 known; /* the last BTF proven ours: trace asks twice a second */
	struct btf *btf;
	bool ours;

	if (!btf_id)
		return false;
	if (btf_id == known)
		return true;
	btf = btf__load_from_kernel_by_id(btf_id);
	if (!btf)
		return false;
	ours = btf__find_by_name_kind(btf, "cubic_tunables", BTF_KIND_STRUCT) > 0 &&
	       btf__find_by_name_kind(btf, "cubic_info", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	if (ours)
		known = btf_id;
	return ours;
}

/*
 * What a map is, as far as cubicctl can prove it: OPS_OTHER unless it is a
 * tcp_congestion_ops struct_ops map (its value type in vmlinux BTF) made from
 * bpf_cubic's object (one of our ops map names, our types in its BTF). For
 * ours, whether it is registered and the name it holds (copied to ca_name).
 */
enum ops_kind { OPS_OTHER, OPS_IDLE, OPS_INUSE };

static enum ops_kind ops_inspect(int fd, char ca_name[CUBIC_NAME_MAX])
{
	const struct ops_layout *l = ops_layout();
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, state;
	enum ops_kind kind = OPS_OTHER;
	char *val;

	memset(ca_name, 0, CUBIC_NAME_MAX);
	if (fd < 0 || !l || bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_STRUCT_OPS ||
	    info.btf_vmlinux_value_type_id != l->value_type_id ||
	    info.value_size != l->value_size || datapath_of_map(info.name) < 0 ||
	    !btf_is_ours(info.btf_id))
		return OPS_OTHER;
	val = calloc(1, info.value_size);
	if (!val)
		return OPS_OTHER;
	if (!bpf_map_lookup_elem(fd, &zero, val) &&
	    memchr(val + l->name_off, '\0', CUBIC_NAME_MAX)) {
		memcpy(&state, val + l->state_off, sizeof(state));
		memcpy(ca_name, val + l->name_off, CUBIC_NAME_MAX);
		kind = state == l->state_inuse ? OPS_INUSE : OPS_IDLE;
	}
	free(val);
	return kind;
}

/* Registered under exactly this name, by bpf_cubic's object. */
static bool ops_is_registered_as(int fd, const char *name)
{
	char ca[CUBIC_NAME_MAX];

	return ops_inspect(fd, ca) == OPS_INUSE && !strcmp(ca, name);
}

/*
 * The kernel's view. REGISTERED only if the pinned ops map is proven to be
 * this instance; FOREIGN if the pins hold something else (a map not ours, or
 * ours but registered under another name, as after a renamed pin folder).
 */
enum instance_state instance_state(struct instance *in)
{
	enum ops_kind kind;

	in->ops_ca_name[0] = '\0';
	if (in->ops_fd < 0)
		return INST_LEFTOVER;
	kind = ops_inspect(in->ops_fd, in->ops_ca_name);
	if (kind == OPS_OTHER)
		return INST_FOREIGN;
	if (kind == OPS_INUSE && strcmp(in->ops_ca_name, in->name))
		return INST_FOREIGN;
	if (kind == OPS_IDLE)
		return INST_LEFTOVER;
	return INST_REGISTERED;
}

void instance_foreign_msg(const struct instance *in)
{
	if (in->ops_ca_name[0])
		errmsg("the ops map pinned in %s is registered as '%s', not %s; not touching it",
		       in->dir, in->ops_ca_name, in->name);
	else
		errmsg("the map pinned as %s/%s is not a bpf_cubic struct_ops map; not touching it",
		       in->dir, CUBIC_PIN_OPS);
}

int instance_find_unpinned(const char *name)
{
	__u32 id = 0;

	while (!bpf_map_get_next_id(id, &id)) {
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (ops_is_registered_as(fd, name))
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
	case INST_FOREIGN:
		return "foreign";
	default:
		return "absent";
	}
}

int instance_read_tunables(struct instance *in, struct cubic_tunables *t)
{
	__u32 zero = 0;

	if (in->tunables_fd < 0)
		return -ENOENT;
	/* Another ABI's map may be larger than *t: never read it. */
	if (!instance_abi_ok(in) || value_size(in->tunables_fd) != sizeof(*t))
		return -EPROTO;
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
	if (!instance_abi_ok(in) || value_size(in->counters_fd) != sizeof(*sum))
		return -EPROTO;
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

int instance_unregister(int ops_fd, const char *name)
{
	__u32 zero = 0;

	if (ops_fd < 0)
		return -ENOENT;
	/* The only way to unregister: prove first that it is the named instance. */
	if (!ops_is_registered_as(ops_fd, name))
		return -ESRCH;
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
 * it uses are loaded (CUBIC_DATAPATHS). Returns that map, or NULL with errno
 * set (ENOENT: the table names a map or program the object lacks).
 */
static struct bpf_map *select_datapath(struct bpf_cubic_bpf *skel, enum datapath dp)
{
	struct bpf_object *obj = skel->obj;
	struct bpf_map *ops = NULL;
	char name[64];
	int err = 0;

	for (int i = 0; i < DATAPATH_COUNT && !err; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, datapaths[i].ops_map);
		const char *p = datapaths[i].progs;

		if (!map) {
			err = -ENOENT;
			break;
		}
		if (i == (int)dp) {
			ops = map;
			continue;
		}
		err = bpf_map__set_autocreate(map, false);
		while (!err && datapath_next_prog(&p, name, sizeof(name))) {
			struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);

			if (!prog)
				err = -ENOENT;
			else if (!datapath_uses(dp, name))
				err = bpf_program__set_autoload(prog, false);
		}
	}
	if (err || !ops) {
		errno = err ? -err : ENOENT;
		return NULL;
	}
	return ops;
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
