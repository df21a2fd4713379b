// SPDX-License-Identifier: GPL-2.0
/*
 * Loading an instance: open the skeleton under a new name, pin, then register.
 *
 * Map mode (Linux 6.1): libbpf 1.1 registers struct_ops by updating the map;
 * the registration outlives this process and ends with a delete of the map's
 * only element, so the struct_ops map is pinned to be found again.
 * Link mode (Linux 6.4+, kstate_link_mode()): the ops map is made with
 * BPF_F_LINK, so its update only readies it, and a struct_ops link registers
 * it; the link is pinned beside the maps and the registration ends with it.
 * libbpf 1.1 has neither SEC(".struct_ops.link") nor a struct_ops link, but
 * its bpf_link_create() passes a map fd where the uapi union of Linux 6.4
 * takes one (link_create.map_fd is prog_fd's place).
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

