// SPDX-License-Identifier: GPL-2.0
/*
 * Loading an instance: open the skeleton under a new name, pin, then register;
 * and upgrading one: the same object loaded onto the instance's own maps, its
 * struct_ops link moved to the new programs.
 *
 * Map mode (Linux 6.1): libbpf 1.1 registers struct_ops by updating the map;
 * the registration outlives this process and ends with a delete of the map's
 * only element, so the struct_ops map is pinned to be found again.
 * Link mode (Linux 6.4+, kstate_link_mode()): the ops map is made with
 * BPF_F_LINK, so its update only readies it, and a struct_ops link registers
 * it; the link is pinned beside the maps and the registration ends with it.
 * libbpf 1.1 has neither SEC(".struct_ops.link") nor a struct_ops link, but
 * its bpf_link_create() and bpf_link_update() pass a map fd where the uapi
 * union of Linux 6.4 takes one (link_create.map_fd is prog_fd's place,
 * link_update.new_map_fd and old_map_fd are new_prog_fd's and old_prog_fd's).
 *
 * Everything is pinned before registering, and the link is pinned as soon as
 * it exists (until then it dies with this process), so a load killed halfway
 * leaves at worst pins of an unregistered instance, which instance_state()
 * reports as INST_LEFTOVER and load/unload remove.
 */
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

/* Linux 6.4's map flag: the struct_ops map is registered by a link, not by its update. */
#ifndef BPF_F_LINK
#define BPF_F_LINK (1U << 13)
#endif

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
 * Only the chosen struct_ops map is created, and only the programs it uses
 * are loaded (CUBIC_OPS_MAPS). Returns that map, or NULL with errno set
 * (ENOENT: the table names a map or program the object lacks).
 */
static struct bpf_map *select_ops_map(struct bpf_cubic_bpf *skel, enum ops_map chosen)
{
	struct bpf_object *obj = skel->obj;
	struct bpf_map *ops = NULL;
	char name[64];
	int err = 0;

	for (int i = 0; i < OPS_MAP_COUNT && !err; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, ops_maps[i].name);
		const char *p = ops_maps[i].progs;

		if (!map) {
			err = -ENOENT;
			break;
		}
		if (i == (int)chosen)
			ops = map;
		else
			err = bpf_map__set_autocreate(map, false);
		while (!err && datapath_next_prog(&p, name, sizeof(name))) {
			struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);

			if (!prog)
				err = -ENOENT;
			else if (!ops_map_uses(chosen, name))
				err = bpf_program__set_autoload(prog, false);
		}
	}
	if (err || !ops) {
		errno = err ? -err : ENOENT;
		return NULL;
	}
	return ops;
}

/* The object of one instance, opened and set up, not loaded yet. */
struct cubic_obj {
	struct bpf_cubic_bpf *skel;
	void *elf;	   /* the image with the instance's name patched in */
	struct bpf_map *ops; /* the struct_ops map this kernel gets */
	int map;	   /* its row of CUBIC_OPS_MAPS */
	__u32 build_id;
};

static void obj_free(struct cubic_obj *o)
{
	bpf_cubic_bpf__destroy(o->skel);
	free(o->elf);
	o->skel = NULL;
	o->elf = NULL;
}

/*
 * Opens the object for instance name on datapath dp, its name and rodata set,
 * only the ops map this kernel gets made (with BPF_F_LINK in link mode). Says
 * why not (one sentence) and returns a negative errno.
 */
static int obj_open(struct cubic_obj *o, const char *name, enum datapath dp, bool link)
{
	int cc_args = kstate_cong_control_args(), err;

	memset(o, 0, sizeof(*o));
	/* the map whose .cong_control fits this kernel's prototype (its BTF) */
	o->map = ops_map_for(dp, cc_args);
	if (o->map < 0) {
		char known[160];

		if (cc_args < 0)
			errmsg("the %s datapath needs to know tcp_congestion_ops.cong_control's "
			       "prototype, which this kernel's BTF does not give; use --datapath exact",
			       datapath_str(dp));
		else
			errmsg("the %s datapath knows tcp_congestion_ops.cong_control%s; this "
			       "kernel's takes %d arguments; use --datapath exact", datapath_str(dp),
			       cc_protos_str(known, sizeof(known)), cc_args);
		return -EOPNOTSUPP;
	}
	o->skel = calloc(1, sizeof(*o->skel));
	if (!o->skel || bpf_cubic_bpf__create_skeleton(o->skel)) {
		errmsg("out of memory");
		free(o->skel);
		o->skel = NULL;
		return -ENOMEM;
	}
	o->elf = malloc(o->skel->skeleton->data_sz);
	if (!o->elf) {
		errmsg("out of memory");
		return -ENOMEM;
	}
	/* the object as built: one build, one id, whatever the instance's name */
	o->build_id = objimage_build_id(o->skel->skeleton->data, o->skel->skeleton->data_sz,
					getenv(BUILD_TAG_ENV));
	memcpy(o->elf, o->skel->skeleton->data, o->skel->skeleton->data_sz);
	err = objpatch_ops_name(o->elf, o->skel->skeleton->data_sz, name, OPS_MAP_COUNT);
	if (err) {
		errmsg("can't set the name in the BPF object: its .struct_ops section has no "
		       "'%s' placeholder", CUBIC_DEFAULT_NAME);
		return err;
	}
	o->skel->skeleton->data = o->elf;

	err = bpf_object__open_skeleton(o->skel->skeleton, NULL);
	if (err) {
		errmsg("can't open the BPF object: %s", strerror(-err));
		return err;
	}
	memcpy((char *)o->skel->rodata->instance_name, name, strnlen(name, CUBIC_NAME_MAX - 1));
	o->skel->rodata->build_id = o->build_id;
	/*
	 * Linux 6.10 gave .cong_control its 4 arguments and let BPF write
	 * tp->snd_cwnd_stamp; before, the fast datapath keeps its own stamp.
	 */
	o->skel->rodata->own_cwnd_stamp = ops_map_own_cwnd_stamp(o->map);
	/* PREDICT's paths in (sk, rs)'s .cong_control are too much for 6.1's verifier */
	o->skel->rodata->predict_ok = rule_runs_on(&rules[RULE_PREDICT], o->map);
	o->ops = select_ops_map(o->skel, (enum ops_map)o->map);
	if (!o->ops) {
		err = -errno;
		errmsg("can't select the %s datapath: %s", datapath_str(dp), strerror(errno));
		return err;
	}
	if (link) {
		err = bpf_map__set_map_flags(o->ops, bpf_map__map_flags(o->ops) | BPF_F_LINK);
		if (err) {
			errmsg("can't make the struct_ops map a link's: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

static int obj_load(struct cubic_obj *o, const char *cmd)
{
	int err = bpf_cubic_bpf__load(o->skel);

	if (err)
		errmsg("can't load the BPF programs: %s (run 'cubicctl -v %s' for the verifier log)",
		       strerror(-err), cmd);
	return err;
}

/*
 * Puts the programs' ids in the ops map's value: in map mode that registers
 * it, in link mode it only readies it for a link. libbpf's link stands for the
 * map itself, so it is let go without the detach that would unregister.
 */
static int ops_fill(struct bpf_map *ops)
{
	struct bpf_link *l = bpf_map__attach_struct_ops(ops);

	if (!l)
		return -errno;
	bpf_link__disconnect(l);
	bpf_link__destroy(l);
	return 0;
}

int instance_load(const char *name, const struct cubic_tunables *t, __u32 ring_size,
		  enum datapath dp)
{
	struct cubic_obj o;
	struct cubic_info info = { .abi_version = CUBIC_ABI_VERSION };
	struct timespec now;
	char dir[PATH_MAX], path[PATH_MAX];
	bool pinned = false, link = kstate_link_mode();
	__u32 zero = 0;
	int err, link_fd = -1;

	err = obj_open(&o, name, dp, link);
	if (err)
		goto out;
	err = bpf_map__set_max_entries(o.skel->maps.events, ring_size);
	if (err) {
		errmsg("can't set the ring size to %u bytes: %s", ring_size, strerror(-err));
		goto out;
	}
	err = obj_load(&o, "load");
	if (err)
		goto out;

	clock_gettime(CLOCK_REALTIME, &now);
	info.load_time_ns = (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec;
	info.build_id = o.build_id;
	snprintf(info.name, sizeof(info.name), "%s", name);
	if (bpf_map_update_elem(bpf_map__fd(o.skel->maps.tunables), &zero, t, 0) ||
	    bpf_map_update_elem(bpf_map__fd(o.skel->maps.info), &zero, &info, 0)) {
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
	err = pin_map(o.skel->maps.info, name, CUBIC_PIN_INFO);
	err = err ?: pin_map(o.skel->maps.tunables, name, CUBIC_PIN_TUNABLES);
	err = err ?: pin_map(o.skel->maps.counters, name, CUBIC_PIN_COUNTERS);
	err = err ?: pin_map(o.skel->maps.events, name, CUBIC_PIN_EVENTS);
	err = err ?: pin_map(o.ops, name, CUBIC_PIN_OPS);
	if (err)
		goto out;

	/* Register: from here on the kernel owns the instance. */
	err = ops_fill(o.ops);
	if (!err && link) {
		link_fd = bpf_link_create(bpf_map__fd(o.ops), 0,
					  (enum bpf_attach_type)kstate_struct_ops_attach_type(), NULL);
		err = link_fd < 0 ? -errno : 0;
	}
	if (err == -EEXIST) {
		errmsg("congestion control '%s' is already registered; pick another --name", name);
		goto out;
	} else if (err) {
		errmsg("can't register '%s'%s: %s", name, link ? " through a struct_ops link" : "",
		       strerror(-err));
		goto out;
	}
	if (link) {
		/* pinned, the link (and the registration) outlives this process */
		instance_path(path, sizeof(path), name, CUBIC_PIN_LINK);
		err = bpf_obj_pin(link_fd, path) ? -errno : 0;
		close(link_fd); /* unpinned, this unregisters it */
		if (err) {
			errmsg("can't pin link: path '%s': %s", path, strerror(-err));
			goto out;
		}
	}
	pinned = false;
	err = 0;
out:
	if (pinned)
		instance_remove_pins(name);
	obj_free(&o);
	return err;
}

/*
 * Upgrade. The new object is loaded onto the instance's own maps
 * (bpf_map__reuse_fd()): the pinned ones, and those the running programs use
 * unpinned (the socket storages, .bss with the flow ids' counter), found
 * through them (instance_prog_map_fd()). Only .rodata (this build's
 * constants), .kconfig and the struct_ops map are new. libbpf 1.1's
 * bpf_map__reuse_fd() takes any map, so each is checked first: type, key and
 * value sizes, entries (the ring's are the instance's --ring-size) and flags,
 * and the shape of its value's BTF type.
 */

/*
 * Whether two BTF types have one shape: the same kind and size and, for a
 * struct, union or data section, the same members (variables) by name, offset
 * and size. One level deep: a field added, moved or resized shows; the ABI
 * version stands for the rest.
 */
static bool same_shape(const struct btf *a, __u32 ia, const struct btf *b, __u32 ib)
{
	const struct btf_type *ta, *tb;
	__s32 ra = btf__resolve_type(a, ia), rb = btf__resolve_type(b, ib);

	if (ra < 0 || rb < 0 || btf__resolve_size(a, (__u32)ra) != btf__resolve_size(b, (__u32)rb))
		return false;
	ta = btf__type_by_id(a, (__u32)ra);
	tb = btf__type_by_id(b, (__u32)rb);
	if (!ta || !tb || btf_kind(ta) != btf_kind(tb) || btf_vlen(ta) != btf_vlen(tb))
		return false;
	if (btf_is_composite(ta)) {
		const struct btf_member *ma = btf_members(ta), *mb = btf_members(tb);

		for (int i = 0; i < btf_vlen(ta); i++, ma++, mb++)
			if (strcmp(btf__name_by_offset(a, ma->name_off),
				   btf__name_by_offset(b, mb->name_off)) ||
			    btf_member_bit_offset(ta, (__u32)i) != btf_member_bit_offset(tb, (__u32)i) ||
			    btf__resolve_size(a, ma->type) != btf__resolve_size(b, mb->type))
				return false;
	} else if (btf_is_datasec(ta)) {
		const struct btf_var_secinfo *va = btf_var_secinfos(ta), *vb = btf_var_secinfos(tb);

		for (int i = 0; i < btf_vlen(ta); i++, va++, vb++) {
			const struct btf_type *xa = btf__type_by_id(a, va->type);
			const struct btf_type *xb = btf__type_by_id(b, vb->type);

			if (!xa || !xb || va->offset != vb->offset || va->size != vb->size ||
			    strcmp(btf__name_by_offset(a, xa->name_off),
				   btf__name_by_offset(b, xb->name_off)))
				return false;
		}
	}
	return true;
}

/*
 * Whether the running map fd can stand for this build's map m (of section
 * datasec, for an internal map, else NULL); if not, what differs, in why.
 */
static bool map_fits(struct cubic_obj *o, struct bpf_map *m, const char *datasec, int fd,
		     char *why, size_t len)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info), nid;
	const struct btf *nb = bpf_object__btf(o->skel->obj);
	bool ring = bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF, ok = true;

	if (bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		snprintf(why, len, "can't be read: %s", strerror(errno));
		return false;
	}
	if (info.type != bpf_map__type(m))
		snprintf(why, len, "is of map type %u, this build's of %u", info.type,
			 bpf_map__type(m));
	else if (info.key_size != bpf_map__key_size(m) || info.value_size != bpf_map__value_size(m))
		snprintf(why, len, "has %u-byte keys and %u-byte values, this build's %u and %u",
			 info.key_size, info.value_size, bpf_map__key_size(m),
			 bpf_map__value_size(m));
	else if (!ring && info.max_entries != bpf_map__max_entries(m))
		snprintf(why, len, "has %u entries, this build's %u", info.max_entries,
			 bpf_map__max_entries(m));
	else if (info.map_flags != bpf_map__map_flags(m))
		snprintf(why, len, "has flags 0x%x, this build's 0x%x", info.map_flags,
			 bpf_map__map_flags(m));
	else
		why[0] = '\0';
	if (why[0])
		return false;
	nid = datasec ? (__u32)btf__find_by_name_kind(nb, datasec, BTF_KIND_DATASEC)
		      : bpf_map__btf_value_type_id(m);
	if (info.btf_id && info.btf_value_type_id && nb && nid && nid < (1U << 31)) {
		struct btf *ob = btf__load_from_kernel_by_id(info.btf_id);

		ok = ob && same_shape(ob, info.btf_value_type_id, nb, nid);
		btf__free(ob);
		if (!ok)
			snprintf(why, len, "holds values laid out otherwise than this build's");
	}
	return ok;
}

/*
 * Every map of the new object but .rodata, .kconfig and the struct_ops ones
 * is the instance's: pinned, or found through its programs (one the running
 * programs do not use is made new: nothing of it is lost). Says which does
 * not fit and how to reload; 0 or -EPROTO.
 */
static int reuse_maps(struct cubic_obj *o, struct instance *in, const char *reload, int *reused)
{
	struct bpf_cubic_bpf *s = o->skel;
	const struct {
		struct bpf_map *map;
		int fd;
		const char *pin;
	} pinned[] = {
		{ s->maps.tunables, in->tunables_fd, CUBIC_PIN_TUNABLES },
		{ s->maps.counters, in->counters_fd, CUBIC_PIN_COUNTERS },
		{ s->maps.info, in->info_fd, CUBIC_PIN_INFO },
		{ s->maps.events, in->events_fd, CUBIC_PIN_EVENTS },
	};
	const int npinned = (int)(sizeof(pinned) / sizeof(pinned[0]));
	struct bpf_map *m;
	char why[160];
	int err;

	*reused = 0;
	bpf_object__for_each_map(m, s->obj) {
		const char *datasec = m == s->maps.bss ? ".bss" : NULL, *what = bpf_map__name(m);
		int fd = -1, i;
		bool own = false;

		if (m == s->maps.rodata || m == s->maps.kconfig ||
		    bpf_map__type(m) == BPF_MAP_TYPE_STRUCT_OPS || !bpf_map__autocreate(m))
			continue;
		for (i = 0; i < npinned && pinned[i].map != m; i++)
			;
		if (i < npinned) {
			fd = pinned[i].fd;
			what = pinned[i].pin;
			if (fd < 0) {
				errmsg("%s has no '%s' pin, so its maps can't be kept; reload it: %s",
				       in->name, pinned[i].pin, reload);
				return -EPROTO;
			}
		} else {
			fd = instance_prog_map_fd(in, bpf_map__name(m));
			if (fd < 0) {
				if (g_opts.verbose)
					note("%s: a new map (the running programs have none)",
					     bpf_map__name(m));
				continue;
			}
			own = true;
		}
		if (!map_fits(o, m, datasec, fd, why, sizeof(why))) {
			errmsg("%s's map '%s' %s, so this build can't share it; reload it: %s",
			       in->name, what, why, reload);
			if (own)
				close(fd);
			return -EPROTO;
		}
		err = bpf_map__reuse_fd(m, fd);
		if (own)
			close(fd);
		if (err) {
			errmsg("can't share %s's map '%s': %s", in->name, what, strerror(-err));
			return err;
		}
		(*reused)++;
	}
	return 0;
}

static __u32 map_id_of(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id : 0;
}

/* The link moved from one struct_ops map to another, if it still serves from_fd. */
static int link_move(int link_fd, int to_fd, int from_fd)
{
	/* new_map_fd and old_map_fd sit where libbpf 1.1 puts new_prog_fd and old_prog_fd */
	LIBBPF_OPTS(bpf_link_update_opts, opts, .flags = BPF_F_REPLACE, .old_prog_fd = from_fd);

	return bpf_link_update(link_fd, to_fd, &opts) ? -errno : 0;
}

int instance_upgrade(struct instance *in, const char *reload, struct upgrade_result *r)
{
	struct cubic_obj o;
	struct cubic_info info;
	struct bpf_map_info running = {};
	char ops_path[PATH_MAX], tmp_path[PATH_MAX];
	__u32 zero = 0, len = sizeof(running);
	int dp = instance_datapath(in), link_fd = -1, new_fd, err, rc = EXIT_FAIL;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if (instance_read_info(in, &info) || dp < 0 ||
	    bpf_obj_get_info_by_fd(in->ops_fd, &running, &len)) {
		errmsg("can't read %s's info and struct_ops maps; reload it: %s", in->name, reload);
		return EXIT_FAIL;
	}
	r->old_build_id = info.build_id;
	r->old_ops_id = running.id;
	if (obj_open(&o, in->name, (enum datapath)dp, true))
		goto out;
	r->new_build_id = o.build_id;
	/* the kernel's .cong_control prototype chose the running map: the same here */
	if (strcmp(running.name, bpf_map__name(o.ops))) {
		errmsg("%s runs struct_ops map '%s' and this build would make '%s'; reload it: %s",
		       in->name, running.name, bpf_map__name(o.ops), reload);
		goto out;
	}
	if (reuse_maps(&o, in, reload, &r->reused) || obj_load(&o, "upgrade"))
		goto out;
	err = ops_fill(o.ops);
	if (err) {
		errmsg("can't fill the new struct_ops map: %s", strerror(-err));
		goto out;
	}
	new_fd = bpf_map__fd(o.ops);
	r->new_ops_id = map_id_of(new_fd);
	link_fd = instance_link_get(in);
	if (link_fd < 0) {
		errmsg("can't open %s's struct_ops link: %s", in->name, strerror(errno));
		goto out;
	}

	/* The switch: new connections get the new programs, open ones keep theirs. */
	err = link_move(link_fd, new_fd, in->ops_fd);
	if (err == -EPERM) {
		errmsg("%s's link no longer serves the map pinned as '%s' (upgraded meanwhile?); "
		       "nothing changed, try again", in->name, CUBIC_PIN_OPS);
		goto out;
	} else if (err) {
		errmsg("the kernel refused to move %s's link to the new struct_ops map: %s",
		       in->name, strerror(-err));
		goto out;
	}
	/* the new map where the old was: pinned aside, then renamed over it (one step) */
	instance_path(ops_path, sizeof(ops_path), in->name, CUBIC_PIN_OPS);
	instance_path(tmp_path, sizeof(tmp_path), in->name, CUBIC_PIN_OPS "_upgrade");
	unlink(tmp_path);
	if (bpf_obj_pin(new_fd, tmp_path) || rename(tmp_path, ops_path)) {
		err = -errno;
		unlink(tmp_path);
		if (link_move(link_fd, in->ops_fd, new_fd))
			errmsg("can't pin the new struct_ops map as %s (%s), nor move %s's link "
			       "back to the old one: it runs the new programs, and 'cubicctl "
			       "status' reads them through the link", ops_path, strerror(-err),
			       in->name);
		else
			errmsg("can't pin the new struct_ops map as %s: %s; nothing changed",
			       ops_path, strerror(-err));
		goto out;
	}
	info.build_id = o.build_id;
	if (bpf_map_update_elem(in->info_fd, &zero, &info, 0)) {
		errmsg("upgraded %s, but can't write its build id into its info map: %s", in->name,
		       strerror(errno));
		goto out;
	}
	rc = EXIT_OK;
out:
	if (link_fd >= 0)
		close(link_fd);
	obj_free(&o);
	return rc;
}
