// SPDX-License-Identifier: GPL-2.0
/*
 * Loading an instance: open the skeleton under a new name, pin, then register.
 *
 * libbpf 1.1 registers struct_ops in map mode: the registration outlives this
 * process and ends with a delete of the map's only element, so the struct_ops
 * map is pinned to be found again. Everything is pinned before registering, so
 * a load killed halfway leaves at worst pins of an unregistered instance,
 * which instance_state() reports as INST_LEFTOVER and load/unload remove.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"
#include "bpf_cubic.skel.h"

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
	int cc_args = kstate_cong_control_args(), map, err;

	/* the map whose .cong_control fits this kernel's prototype (its BTF) */
	map = ops_map_for(dp, cc_args);
	if (map < 0) {
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
	/* the object as built: one build, one id, whatever the instance's name */
	info.build_id = objimage_build_id(skel->skeleton->data, skel->skeleton->data_sz,
					  getenv(BUILD_TAG_ENV));
	memcpy(elf, skel->skeleton->data, skel->skeleton->data_sz);
	err = objpatch_ops_name(elf, skel->skeleton->data_sz, name, OPS_MAP_COUNT);
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
	skel->rodata->build_id = info.build_id;
	/*
	 * Linux 6.10 gave .cong_control its 4 arguments and let BPF write
	 * tp->snd_cwnd_stamp; before, the fast datapath keeps its own stamp.
	 */
	skel->rodata->own_cwnd_stamp = ops_map_own_cwnd_stamp(map);
	/* PREDICT's paths in (sk, rs)'s .cong_control are too much for 6.1's verifier */
	skel->rodata->predict_ok = rule_runs_on(&rules[RULE_PREDICT], map);
	ops = select_ops_map(skel, (enum ops_map)map);
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
