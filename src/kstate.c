// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's state of an instance: whether its pinned ops map is a
 * tcp_congestion_ops struct_ops map made from bpf_cubic's object, registered,
 * and under which name. The map's value is read at offsets found in vmlinux
 * BTF, as bpftool does, never at fixed ones.
 *
 * Two ways to be registered. Map mode (Linux 6.1, and any instance loaded so):
 * the ops map's own element is the registration, its state INUSE. Link mode
 * (Linux 6.4+): the ops map is made with BPF_F_LINK, its update only readies
 * it (state READY), and a struct_ops link registers it; the instance pins the
 * link as CUBIC_PIN_LINK, and the link, not the ops pin, says which map the
 * kernel runs (an upgrade cut short between its link update and its re-pin
 * leaves them apart).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"

int instance_datapath(const struct instance *in)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (in->ops_fd < 0 || bpf_obj_get_info_by_fd(in->ops_fd, &info, &len))
		return -1;
	return datapath_of_map(info.name);
}

/*
 * Where the kernel keeps a tcp_congestion_ops struct_ops map's state and name,
 * read from vmlinux BTF as bpftool does: the map's value is
 * struct bpf_struct_ops_tcp_congestion_ops { common (refcnt, state); data }
 * (6.1: refcnt and state in place of common), data being the struct
 * tcp_congestion_ops with name[TCP_CA_NAME_MAX].
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

/*
 * How many arguments the running kernel's tcp_congestion_ops.cong_control
 * takes, from vmlinux BTF: 2 (sk, rs) before Linux 6.10, 4 (sk, ack, flag,
 * rs) since; -1 if BTF does not say.
 */
int kstate_cong_control_args(void)
{
	const struct btf_type *t;
	struct btf *btf = btf__load_vmlinux_btf();
	__u32 off, type;
	__s32 id;
	int n = -1;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT);
	if (id > 0 && !member_off(btf, (__u32)id, "cong_control", &off, &type)) {
		t = btf__type_by_id(btf, type);
		while (t && btf_is_mod(t))
			t = btf__type_by_id(btf, t->type);
		if (t && btf_is_ptr(t))
			t = btf__type_by_id(btf, t->type);
		if (t && btf_is_func_proto(t))
			n = btf_vlen(t);
	}
	btf__free(btf);
	return n;
}

/* The layout on this kernel, read once; NULL if its BTF lacks what we need. */
static const struct ops_layout *ops_layout(void)
{
	static struct ops_layout l;
	static int done; /* 1: l is valid, -1: can't be had */
	__u32 common_off = 0, common_t, state_off, state_t, data_off, data_t, name_off, name_t;
	struct btf *btf;
	__s32 id;

	if (done)
		return done > 0 ? &l : NULL;
	done = -1;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return NULL;
	id = btf__find_by_name_kind(btf, "bpf_struct_ops_tcp_congestion_ops", BTF_KIND_STRUCT);
	if (id > 0 && member_off(btf, (__u32)id, "common", &common_off, &common_t)) {
		/* older kernels (6.1: BPF_STRUCT_OPS_COMMON_VALUE): state is the value's own */
		common_off = 0;
		common_t = (__u32)id;
	}
	if (id > 0 && !member_off(btf, common_t, "state", &state_off, &state_t) &&
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

/* Registered under exactly this name, by bpf_cubic's object (map mode). */
static bool ops_is_registered_as(int fd, const char *name)
{
	char ca[CUBIC_NAME_MAX];

	return ops_inspect(fd, ca) == OPS_INUSE && !strcmp(ca, name);
}

int kstate_struct_ops_attach_type(void)
{
	static int type = -2; /* -2: not read yet */
	struct btf *btf;
	__u32 v;

	if (type != -2)
		return type;
	type = -1;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return type;
	/* BPF_STRUCT_OPS came with the links (and BPF_F_LINK, and their update) in 6.4 */
	if (!enum_value(btf, "bpf_attach_type", "BPF_STRUCT_OPS", &v) && v < 1024)
		type = (int)v;
	btf__free(btf);
	return type;
}

bool kstate_link_mode(void)
{
	const char *e = getenv(LINK_MODE_ENV);

	return kstate_struct_ops_attach_type() >= 0 && !(e && !strcmp(e, "0"));
}

/* Whether fd is a BPF link (bpftool tells fds apart the same way). */
static bool fd_is_link(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:bpf-link");
}

/*
 * The map a struct_ops link registers (0: none, the link was detached); -1 if
 * fd is no struct_ops link. Debian 12's uapi header is 6.1's, whose struct
 * bpf_link_info has no struct_ops member yet: Linux 6.4 put its map_id first in
 * the union, where raw_tracepoint's tp_name sits.
 */
static int link_map_id(int fd, __u32 *map_id)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	*map_id = 0;
	if (fd < 0 || !fd_is_link(fd) || bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_LINK_TYPE_STRUCT_OPS)
		return -1;
	memcpy(map_id, &info.raw_tracepoint, sizeof(*map_id));
	return 0;
}

static __u32 map_id_of(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id : 0;
}

int instance_link_get(const struct instance *in)
{
	char path[PATH_MAX];

	if (in->link_fd >= 0)
		return fcntl(in->link_fd, F_DUPFD_CLOEXEC, 0);
	if (!in->link_pinned)
		return -1;
	instance_path(path, sizeof(path), in->name, CUBIC_PIN_LINK);
	return bpf_obj_get(path);
}

/*
 * Link mode: the link pin decides. REGISTERED if it is a struct_ops link whose
 * map is ours under exactly in->name (that map becomes in->ops_fd if the ops
 * pin holds another: an upgrade cut short); LEFTOVER if it was detached;
 * FOREIGN otherwise.
 */
static enum instance_state link_state(struct instance *in, int link_fd)
{
	enum ops_kind kind;
	__u32 map_id;

	if (link_map_id(link_fd, &map_id)) {
		in->link_foreign = true;
		return INST_FOREIGN;
	}
	in->link_mode = true;
	if (!map_id)
		return INST_LEFTOVER;
	if (map_id != map_id_of(in->ops_fd)) {
		int fd = bpf_map_get_fd_by_id(map_id);

		if (fd < 0) {
			in->link_foreign = true;
			return INST_FOREIGN;
		}
		if (in->ops_fd >= 0)
			close(in->ops_fd);
		in->ops_fd = fd;
	}
	kind = ops_inspect(in->ops_fd, in->ops_ca_name);
	if (kind == OPS_OTHER) {
		in->link_foreign = true;
		return INST_FOREIGN;
	}
	return strcmp(in->ops_ca_name, in->name) ? INST_FOREIGN : INST_REGISTERED;
}

/*
 * The kernel's view. REGISTERED only if the pinned ops map (or link) is proven
 * to be this instance; FOREIGN if the pins hold something else (a map not
 * ours, or ours but registered under another name, as after a renamed pin
 * folder).
 */
enum instance_state instance_state(struct instance *in)
{
	enum ops_kind kind;
	int link_fd;

	in->ops_ca_name[0] = '\0';
	in->link_mode = in->link_foreign = false;
	/* (a link pin gone since the open: as if there was none, a leftover or foreign) */
	link_fd = instance_link_get(in);
	if (link_fd >= 0) {
		enum instance_state st = link_state(in, link_fd);

		close(link_fd);
		return st;
	}
	if (in->ops_fd < 0)
		return INST_LEFTOVER;
	kind = ops_inspect(in->ops_fd, in->ops_ca_name);
	if (kind == OPS_OTHER)
		return INST_FOREIGN;
	if (kind == OPS_INUSE && strcmp(in->ops_ca_name, in->name))
		return INST_FOREIGN;
	/* not registered by its element: a load cut short (in link mode, before its link's pin) */
	if (kind == OPS_IDLE)
		return INST_LEFTOVER;
	return INST_REGISTERED;
}

void instance_foreign_msg(const struct instance *in)
{
	if (in->ops_ca_name[0])
		errmsg("the ops map pinned in %s is registered as '%s', not %s; not touching it",
		       in->dir, in->ops_ca_name, in->name);
	else if (in->link_foreign)
		errmsg("the link pinned as %s/%s is not a struct_ops link of a bpf_cubic map; not "
		       "touching it", in->dir, CUBIC_PIN_LINK);
	else
		errmsg("the map pinned as %s/%s is not a bpf_cubic struct_ops map; not touching it",
		       in->dir, CUBIC_PIN_OPS);
}

/* A struct_ops link of ours registering exactly name: its fd and its map's (*ops_fd). */
static int find_link(const char *name, int *ops_fd)
{
	__u32 id = 0, map_id;

	while (!bpf_link_get_next_id(id, &id)) {
		int fd = bpf_link_get_fd_by_id(id), mfd;

		if (fd < 0)
			continue;
		if (link_map_id(fd, &map_id) || !map_id) {
			close(fd);
			continue;
		}
		mfd = bpf_map_get_fd_by_id(map_id);
		if (mfd >= 0) {
			char ca[CUBIC_NAME_MAX];

			if (ops_inspect(mfd, ca) != OPS_OTHER && !strcmp(ca, name)) {
				*ops_fd = mfd;
				return fd;
			}
			close(mfd);
		}
		close(fd);
	}
	return -ENOENT;
}

int instance_find_unpinned(const char *name, struct instance *in)
{
	__u32 id = 0;

	memset(in, 0, sizeof(*in));
	in->ops_fd = in->tunables_fd = in->counters_fd = in->info_fd = in->events_fd = -1;
	snprintf(in->name, sizeof(in->name), "%s", name);
	instance_path(in->dir, sizeof(in->dir), name, NULL);
	if (kstate_struct_ops_attach_type() >= 0) {
		in->link_fd = find_link(name, &in->ops_fd);
		if (in->link_fd >= 0) {
			in->link_mode = true;
			return 0;
		}
	}
	in->link_fd = -1;
	while (!bpf_map_get_next_id(id, &id)) {
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (ops_is_registered_as(fd, name)) {
			in->ops_fd = fd;
			return 0;
		}
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

/*
 * Link mode. A struct_ops link has BPF_LINK_DETACH since Linux 6.11; before,
 * the registration ends when the link's last holder lets go: its pin, and the
 * fd this process holds, closed last (a close drops the link at once, an
 * unpin only schedules it).
 */
static int link_unregister(struct instance *in, int link_fd)
{
	char ca[CUBIC_NAME_MAX], path[PATH_MAX];
	__u32 map_id;
	int fd, err;

	/* The only way to unregister: prove first that it is the named instance. */
	if (link_map_id(link_fd, &map_id) || !map_id)
		return -ESRCH;
	fd = bpf_map_get_fd_by_id(map_id);
	if (fd < 0)
		return -ESRCH;
	err = ops_inspect(fd, ca) == OPS_OTHER || strcmp(ca, in->name) ? -ESRCH : 0;
	close(fd);
	if (err || !bpf_link_detach(link_fd))
		return err;
	if (errno != EOPNOTSUPP)
		return -errno;
	instance_path(path, sizeof(path), in->name, CUBIC_PIN_LINK);
	if (in->link_pinned && unlink(path) && errno != ENOENT)
		return -errno;
	in->link_pinned = false;
	if (in->link_fd >= 0)
		close(in->link_fd);
	in->link_fd = -1;
	return 1; /* the caller's close of link_fd lets go last */
}

int instance_unregister(struct instance *in)
{
	__u32 zero = 0;
	int link_fd = instance_link_get(in), err;

	if (link_fd >= 0) {
		err = link_unregister(in, link_fd);
		close(link_fd);
		if (err == 1)
			err = ca_name_registered(in->name) ? -EBUSY : 0;
		return err;
	}
	if (in->ops_fd < 0)
		return -ENOENT;
	/* The only way to unregister: prove first that it is the named instance. */
	if (!ops_is_registered_as(in->ops_fd, in->name))
		return -ESRCH;
	return bpf_map_delete_elem(in->ops_fd, &zero) ? -errno : 0;
}

const char *rule_refused(int dp, __u32 v, char *buf, size_t len)
{
	const struct rule_desc *r = rule_of(v);
	int map = dp < 0 ? -1 : ops_map_for((enum datapath)dp, kstate_cong_control_args());

	if (!r || map < 0 || rule_runs_on(r, map))
		return NULL;
	return rule_refusal(r, map, buf, len);
}

/*
 * The programs of a registered ops map: the kernel keeps each program's id in
 * the map's value where the function pointer goes (bpf_struct_ops_map_update_elem()
 * "put prog_id to udata"), at the offsets of tcp_congestion_ops' function
 * pointers read from vmlinux BTF. Their maps (bpf_prog_info.map_ids) are the
 * instance's, the unpinned ones included: the map named map_name's fd, or -ENOENT.
 */
int instance_prog_map_fd(const struct instance *in, const char *map_name)
{
	const struct ops_layout *l = ops_layout();
	__u32 data_off, data_t, zero = 0, seen[64], nseen = 0;
	const struct btf_type *t;
	const struct btf_member *m;
	struct btf *btf = NULL;
	char *val = NULL;
	int found = -ENOENT;
	__s32 id;

	if (in->ops_fd < 0 || !l)
		return -ENOENT;
	btf = btf__load_vmlinux_btf();
	val = calloc(1, l->value_size);
	if (!btf || !val || bpf_map_lookup_elem(in->ops_fd, &zero, val) ||
	    member_off(btf, l->value_type_id, "data", &data_off, &data_t))
		goto out;
	id = btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	if (!t)
		goto out;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t) && found < 0; i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, m->type);
		__u32 off = data_off + btf_member_bit_offset(t, (__u32)i) / 8, map_ids[32];
		struct bpf_prog_info pinfo = {};
		__u32 plen = sizeof(pinfo);
		__u64 prog_id;
		int pfd;

		while (mt && btf_is_mod(mt))
			mt = btf__type_by_id(btf, mt->type);
		if (!mt || !btf_is_ptr(mt) || off + sizeof(prog_id) > l->value_size)
			continue;
		mt = btf__type_by_id(btf, mt->type);
		if (!mt || !btf_is_func_proto(mt))
			continue;
		memcpy(&prog_id, val + off, sizeof(prog_id));
		if (!prog_id || prog_id > UINT32_MAX)
			continue;
		pfd = bpf_prog_get_fd_by_id((__u32)prog_id);
		if (pfd < 0)
			continue;
		pinfo.nr_map_ids = sizeof(map_ids) / sizeof(map_ids[0]);
		pinfo.map_ids = (__u64)(unsigned long)map_ids;
		if (bpf_obj_get_info_by_fd(pfd, &pinfo, &plen)) {
			close(pfd);
			continue;
		}
		close(pfd);
		for (__u32 k = 0; k < pinfo.nr_map_ids && k < 32 && found < 0; k++) {
			struct bpf_map_info minfo = {};
			__u32 mlen = sizeof(minfo), s;
			int mfd;

			for (s = 0; s < nseen && seen[s] != map_ids[k]; s++)
				;
			if (s < nseen)
				continue;
			if (nseen < sizeof(seen) / sizeof(seen[0]))
				seen[nseen++] = map_ids[k];
			mfd = bpf_map_get_fd_by_id(map_ids[k]);
			if (mfd < 0)
				continue;
			if (!bpf_obj_get_info_by_fd(mfd, &minfo, &mlen) &&
			    !strcmp(minfo.name, map_name))
				found = mfd;
			else
				close(mfd);
		}
	}
out:
	free(val);
	btf__free(btf);
	return found;
}
