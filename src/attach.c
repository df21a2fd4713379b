// SPDX-License-Identifier: GPL-2.0
/*
 * Attachments: cgroup sock_ops programs that select an instance for the
 * cgroup's connections (attach.h). The only user of attach.skel.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cubicctl.h"
#include "attach.h"
#include "attach.skel.h"

/* The cgroup2 mount point, from /proc/self/mountinfo (never assumed). */
static int cgroup2_mount(char *out, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE SUPEROPTS */
		char mnt[PATH_MAX], *sep = strstr(line, " - ");

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1) {
			snprintf(out, len, "%s", mnt);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

int attach_resolve_cgroup(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	char mnt[PATH_MAX], joined[PATH_MAX * 2], real[PATH_MAX];
	struct statfs sfs;

	if (path[0] == '/') {
		snprintf(joined, sizeof(joined), "%s", path);
	} else {
		if (cgroup2_mount(mnt, sizeof(mnt))) {
			snprintf(err, errlen, "no cgroup v2 hierarchy is mounted (mount -t cgroup2)");
			return -ENOENT;
		}
		snprintf(joined, sizeof(joined), "%s/%s", mnt, path);
	}
	if (!realpath(joined, real)) {
		snprintf(err, errlen, "cgroup '%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	if (statfs(real, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, errlen, "'%s' is not a cgroup v2 folder", path);
		return -ENOTDIR;
	}
	snprintf(out, outlen, "%s", real);
	return 0;
}

static void attach_dir(char *buf, size_t len, int id, const char *pin)
{
	if (pin)
		snprintf(buf, len, "%s/%d/%s", ATTACH_ROOT, id, pin);
	else
		snprintf(buf, len, "%s/%d", ATTACH_ROOT, id);
}

/* Removes an attachment folder and everything in it (unpinning the link detaches). */
static int remove_dir(int id)
{
	char dir[PATH_MAX];

	attach_dir(dir, sizeof(dir), id, NULL);
	return pin_dir_remove(dir);
}

static int read_rules(int id, struct attach_rules *r, char *name, size_t namelen, char *cg,
		      size_t cglen)
{
	char path[PATH_MAX];
	struct attach_conf cf;
	__u32 zero = 0;
	int fd, rc = 0;

	memset(r, 0, sizeof(*r));
	attach_dir(path, sizeof(path), id, ATTACH_PIN_CONF);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, &cf))
		rc = -errno;
	close(fd);
	if (rc)
		return rc;
	snprintf(name, namelen, "%.*s", (int)sizeof(cf.cc), cf.cc);
	snprintf(cg, cglen, "%.*s", (int)sizeof(cf.cgroup), cf.cgroup);
	attach_dir(path, sizeof(path), id, ATTACH_PIN_DST4);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		struct attach_lpm4 k, *prev = NULL;

		while (r->ndst4 < ATTACH_MAX_PREFIXES && !bpf_map_get_next_key(fd, prev, &k)) {
			r->dst4[r->ndst4] = k;
			prev = &r->dst4[r->ndst4++];
		}
		close(fd);
	}
	attach_dir(path, sizeof(path), id, ATTACH_PIN_DST6);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		struct attach_lpm6 k, *prev = NULL;

		while (r->ndst6 < ATTACH_MAX_PREFIXES && !bpf_map_get_next_key(fd, prev, &k)) {
			r->dst6[r->ndst6] = k;
			prev = &r->dst6[r->ndst6++];
		}
		close(fd);
	}
	attach_dir(path, sizeof(path), id, ATTACH_PIN_PORTS);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		__u16 k, *prev = NULL;

		while (r->nports < ATTACH_MAX_PORTS && !bpf_map_get_next_key(fd, prev, &k)) {
			r->ports[r->nports] = k;
			prev = &r->ports[r->nports++];
		}
		close(fd);
	}
	return 0;
}

static void read_counters(int id, __u64 *sum)
{
	char path[PATH_MAX];
	int ncpu = libbpf_num_possible_cpus(), fd;
	struct attach_counters *v;
	__u32 zero = 0;

	memset(sum, 0, sizeof(__u64) * ATTACH_CNT_MAX);
	if (ncpu <= 0)
		return;
	attach_dir(path, sizeof(path), id, ATTACH_PIN_COUNT);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (v && !bpf_map_lookup_elem(fd, &zero, v))
		for (int c = 0; c < ncpu; c++)
			for (int i = 0; i < ATTACH_CNT_MAX; i++)
				sum[i] += v[c].c[i];
	free(v);
	close(fd);
}

/* Whether the cgroup link of attachment id still holds a cgroup. */
static bool link_attached(int id)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	bool ok;
	int fd;

	attach_dir(path, sizeof(path), id, ATTACH_PIN_LINK);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	ok = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.cgroup.cgroup_id != 0;
	close(fd);
	return ok;
}

static int cmp_id(const void *a, const void *b)
{
	return ((const struct attach_info *)a)->id - ((const struct attach_info *)b)->id;
}

int attach_list(struct attach_info *out, int max)
{
	struct dirent *de;
	DIR *d = opendir(ATTACH_ROOT);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		struct attach_info *a = &out[n];
		char *end;
		long id;

		id = strtol(de->d_name, &end, 10);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end || id > 1000000)
			continue;
		memset(a, 0, sizeof(*a));
		a->id = (int)id;
		if (read_rules(a->id, &a->rules, a->name, sizeof(a->name), a->cgroup,
			       sizeof(a->cgroup)))
			snprintf(a->name, sizeof(a->name), "?");
		read_counters(a->id, a->c);
		a->attached = link_attached(a->id);
		n++;
	}
	closedir(d);
	qsort(out, (size_t)n, sizeof(*out), cmp_id);
	return n;
}

/* Whether two prefixes share an address: the shorter one's bits agree. */
static bool prefix_overlap(const __u8 *a, __u32 alen, const __u8 *b, __u32 blen)
{
	__u32 n = alen < blen ? alen : blen, i;

	for (i = 0; i < n / 8; i++)
		if (a[i] != b[i])
			return false;
	if (n % 8) {
		__u8 mask = (__u8)(0xff << (8 - n % 8));

		return (a[i] & mask) == (b[i] & mask);
	}
	return true;
}

/*
 * Two attachments on one cgroup overlap unless their --dst prefixes prove
 * them apart: both run on every connection, and the one that runs last would
 * win silently. Ports do not prove it (a rule matches the local or the remote
 * port, so {A} and {B} both match a connection from A to B).
 */
static bool rules_overlap(const struct attach_rules *x, const struct attach_rules *y)
{
	int i, j;

	if (!(x->ndst4 + x->ndst6) || !(y->ndst4 + y->ndst6))
		return true;
	for (i = 0; i < x->ndst4; i++)
		for (j = 0; j < y->ndst4; j++)
			if (prefix_overlap((const __u8 *)&x->dst4[i].addr, x->dst4[i].prefixlen,
					   (const __u8 *)&y->dst4[j].addr, y->dst4[j].prefixlen))
				return true;
	for (i = 0; i < x->ndst6; i++)
		for (j = 0; j < y->ndst6; j++)
			if (prefix_overlap(x->dst6[i].addr, x->dst6[i].prefixlen, y->dst6[j].addr,
					   y->dst6[j].prefixlen))
				return true;
	return false;
}

#define ATTACH_LIST_MAX 256

static int pin_map(struct bpf_map *m, int id, const char *pin)
{
	char path[PATH_MAX];

	attach_dir(path, sizeof(path), id, pin);
	return bpf_map__pin(m, path);
}

int attach_create(const char *name, const char *cgroup, const struct attach_rules *r, int *idp)
{
	static struct attach_info list[ATTACH_LIST_MAX];
	struct attach_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	char dir[PATH_MAX], path[PATH_MAX];
	struct attach_conf cf = { .abi = CUBIC_ABI_VERSION };
	int n, i, id = 1, cgfd = -1, rc = EXIT_FAIL, err;
	__u8 one = 1;
	__u32 zero = 0;
	bool made = false;

	n = attach_list(list, ATTACH_LIST_MAX);
	for (i = 0; i < n; i++) {
		char rules[256];

		if (list[i].id >= id)
			id = list[i].id + 1;
		if (strcmp(list[i].cgroup, cgroup) || !rules_overlap(&list[i].rules, r))
			continue;
		attach_rules_str(&list[i].rules, rules, sizeof(rules));
		errmsg("attachment %d already selects %s for %s (%s): rules that overlap it would "
		       "race it; detach it first, or give --dst prefixes apart from its own",
		       list[i].id, list[i].name, cgroup, rules);
		return EXIT_USAGE;
	}
	cgfd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgfd < 0) {
		errmsg("can't open cgroup %s: %s", cgroup, strerror(errno));
		return EXIT_FAIL;
	}
	if (mkdir(ATTACH_ROOT, 0700) && errno != EEXIST) {
		errmsg("can't create %s: %s", ATTACH_ROOT, strerror(errno));
		goto out;
	}
	attach_dir(dir, sizeof(dir), id, NULL);
	if (mkdir(dir, 0700)) {
		errmsg("can't create %s: %s", dir, strerror(errno));
		goto out;
	}
	made = true;
	skel = attach_bpf__open_and_load();
	if (!skel) {
		errmsg("can't load the sock_ops program: %s (run with -v for the verifier's log)",
		       strerror(errno));
		goto out;
	}
	snprintf(cf.cc, sizeof(cf.cc), "%s", name);
	if (strlen(cgroup) >= sizeof(cf.cgroup)) {
		errmsg("cgroup path %s is longer than %d bytes", cgroup, ATTACH_CGROUP_MAX - 1);
		goto out;
	}
	snprintf(cf.cgroup, sizeof(cf.cgroup), "%s", cgroup);
	if (r->ndst4 || r->ndst6)
		cf.flags |= ATTACH_F_DST;
	if (r->nports)
		cf.flags |= ATTACH_F_PORT;
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.conf), &zero, &cf, 0);
	for (i = 0; !err && i < r->ndst4; i++)
		err = bpf_map_update_elem(bpf_map__fd(skel->maps.dst4), &r->dst4[i], &one, 0);
	for (i = 0; !err && i < r->ndst6; i++)
		err = bpf_map_update_elem(bpf_map__fd(skel->maps.dst6), &r->dst6[i], &one, 0);
	for (i = 0; !err && i < r->nports; i++)
		err = bpf_map_update_elem(bpf_map__fd(skel->maps.ports), &r->ports[i], &one, 0);
	if (!err)
		err = pin_map(skel->maps.conf, id, ATTACH_PIN_CONF) ||
		      pin_map(skel->maps.dst4, id, ATTACH_PIN_DST4) ||
		      pin_map(skel->maps.dst6, id, ATTACH_PIN_DST6) ||
		      pin_map(skel->maps.ports, id, ATTACH_PIN_PORTS) ||
		      pin_map(skel->maps.counters, id, ATTACH_PIN_COUNT);
	if (err) {
		errmsg("can't fill or pin the attachment's maps under %s: %s", dir, strerror(errno));
		goto out;
	}
	/* last: from here on connections are switched */
	link = bpf_program__attach_cgroup(skel->progs.cubicctl_attach, cgfd);
	if (!link) {
		errmsg("can't attach to cgroup %s: %s", cgroup, strerror(errno));
		goto out;
	}
	attach_dir(path, sizeof(path), id, ATTACH_PIN_LINK);
	if (bpf_link__pin(link, path)) {
		errmsg("can't pin the cgroup link at %s: %s", path, strerror(errno));
		goto out;
	}
	*idp = id;
	rc = EXIT_OK;
out:
	bpf_link__destroy(link); /* the pin keeps it attached */
	attach_bpf__destroy(skel);
	if (rc != EXIT_OK && made)
		remove_dir(id);
	if (cgfd >= 0)
		close(cgfd);
	return rc;
}

int attach_destroy(int id)
{
	char dir[PATH_MAX];
	struct stat st;

	attach_dir(dir, sizeof(dir), id, NULL);
	if (stat(dir, &st))
		return -ENOENT;
	return remove_dir(id);
}
