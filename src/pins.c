// SPDX-License-Identifier: GPL-2.0
/*
 * The pin store: each instance's maps pinned under CUBIC_PIN_ROOT/NAME, found,
 * listed, read and removed. Reads never trust a map of another ABI: its
 * layout may differ, so only its abi_version (byte 0 of the info map) is read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"

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

int instance_each_loaded(const char *name, char (*names)[CUBIC_NAME_MAX], int max,
			 int (*fn)(struct instance *in, int idx, void *ctx), void *ctx)
{
	int n, rc = 0, loaded = 0;

	if (name) {
		snprintf(names[0], CUBIC_NAME_MAX, "%s", name);
		n = 1;
	} else {
		n = instance_list(names, max);
	}
	for (int i = 0; i < n && !rc; i++) {
		struct instance in;

		if (name) {
			rc = instance_open_loaded(&in, names[i]);
			if (rc)
				break;
		} else if (instance_open(&in, names[i]) || instance_state(&in) != INST_REGISTERED ||
			   !instance_abi_ok(&in)) {
			instance_close(&in);
			continue; /* every instance: those that run now */
		}
		loaded++;
		rc = fn(&in, i, ctx);
		instance_close(&in);
	}
	if (!rc && !loaded) {
		errmsg("no instance is loaded ('cubicctl load' loads %s)", CUBIC_DEFAULT_NAME);
		rc = EXIT_NOT_LOADED;
	}
	return rc;
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
	char path[PATH_MAX];
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->ops_fd = in->tunables_fd = in->counters_fd = in->info_fd = in->events_fd = -1;
	in->link_fd = -1;
	snprintf(in->name, sizeof(in->name), "%s", name);
	instance_path(in->dir, sizeof(in->dir), name, NULL);
	if (stat(in->dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	in->ops_fd = get_pinned(name, CUBIC_PIN_OPS);
	in->tunables_fd = get_pinned(name, CUBIC_PIN_TUNABLES);
	in->counters_fd = get_pinned(name, CUBIC_PIN_COUNTERS);
	in->info_fd = get_pinned(name, CUBIC_PIN_INFO);
	in->events_fd = get_pinned(name, CUBIC_PIN_EVENTS);
	instance_path(path, sizeof(path), name, CUBIC_PIN_LINK);
	in->link_pinned = !lstat(path, &st);
	in->abi_version = read_abi_version(in->info_fd);
	return 0;
}

void instance_close(struct instance *in)
{
	int *fds[] = { &in->ops_fd, &in->tunables_fd, &in->counters_fd, &in->info_fd,
		       &in->events_fd, &in->link_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
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

int instance_read_info(struct instance *in, struct cubic_info *info)
{
	__u32 zero = 0;

	if (in->info_fd < 0)
		return -ENOENT;
	if (!instance_abi_ok(in) || value_size(in->info_fd) != sizeof(*info))
		return -EPROTO;
	return bpf_map_lookup_elem(in->info_fd, &zero, info) ? -errno : 0;
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
			for (int r = 0; r < CUBIC_RATIO_ROWS; r++)
				for (int k = 0; k < CUBIC_RATIO_WIDTH; k++)
					sum->ratio[r][k] += c->ratio[r][k];
		}
	}
	free(vals);
	return err;
}

int instance_remove_pins(const char *name)
{
	char dir[PATH_MAX];

	instance_path(dir, sizeof(dir), name, NULL);
	return pin_dir_remove(dir);
}

int pin_dir_remove(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;
	int err = 0;

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
