// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl upgrade [--name NAME]
 *
 * Replaces a loaded instance's programs by this cubicctl's without
 * unregistering its name: the kernel's struct_ops link update (Linux 6.4+,
 * bpf_struct_ops_map_link_update() -> tcp_update_congestion_control()) puts
 * the new tcp_congestion_ops in the old one's place; sockets that run the old
 * keep it (and keep its struct_ops map alive) until they close. The new
 * programs share the instance's maps (src/loader.c instance_upgrade()).
 */
#include <string.h>
#include <bpf/bpf.h>
#include "cubicctl.h"
#include "tunables.h"

struct upgrade_opts {
	const char *name;
};

static const struct opt upgrade_opts[] = {
	OPT_NAME(struct upgrade_opts, name),
	OPT_END
};

static void describe(FILE *f)
{
	fprintf(f,
		"Replaces the programs of a loaded instance by this cubicctl's, in place: the\n"
		"name stays registered and keeps its maps (tunables, counters, the events ring,\n"
		"the flows' socket storage), its pins, attachments and routes. New connections\n"
		"run the new programs; open ones keep theirs until they close. Prints the old\n"
		"and new build ids: a build's id is a hash of its BPF object, with\n"
		"$%s mixed in when set (a canary build of the same binary);\n"
		"'status' shows it, and each exit record of 'trace' carries its writer's.\n"
		"It needs Linux 6.4 or later (struct_ops links) and an instance that 'load'\n"
		"registered through a link, as it does there. It refuses, changing nothing, an\n"
		"instance registered in map mode (by an older cubicctl, or loaded with\n"
		"%s=0) or of another ABI, or whose maps this build can't share: the\n"
		"message gives the command that reloads it instead.\n",
		BUILD_TAG_ENV, LINK_MODE_ENV);
}

const struct command cmd_upgrade_def = {
	.name = "upgrade",
	.run = cmd_upgrade,
	.opts = upgrade_opts,
	.max_args = 0,
	.summary = "replace its programs in place, keeping its maps",
	.describe = describe,
};

/*
 * The commands that reload instance in with its settings: its datapath, ring
 * size and the tunables that differ from the defaults (if this cubicctl can
 * read them; *lost is set if it can't).
 */
static const char *reload_cmd(struct instance *in, char *buf, size_t len, bool *lost)
{
	struct cubic_tunables t, def;
	struct bpf_map_info ev = {};
	__u32 evlen = sizeof(ev);
	int dp = instance_datapath(in);
	size_t off;

	off = (size_t)snprintf(buf, len, "cubicctl unload --name %s && cubicctl load --name %s",
			       in->name, in->name);
	if (dp >= 0 && dp != DATAPATH_EXACT && off < len)
		off += (size_t)snprintf(buf + off, len - off, " --datapath %s",
					datapath_str(dp));
	if (in->events_fd >= 0 && !bpf_obj_get_info_by_fd(in->events_fd, &ev, &evlen) &&
	    ev.max_entries != CUBIC_RING_DEFAULT && off < len)
		off += (size_t)snprintf(buf + off, len - off, " --ring-size %u", ev.max_entries);
	*lost = instance_read_tunables(in, &t) != 0;
	cubic_tunables_defaults(&def);
	for (int i = 0; !*lost && i < CUBIC_TUN_COUNT && off < len; i++)
		if (tun_get(&t, i) != tun_get(&def, i))
			off += (size_t)snprintf(buf + off, len - off, " %s=%u", tun_table[i].name,
						tun_get(&t, i));
	return buf;
}

int cmd_upgrade(int argc, char **argv)
{
	struct upgrade_opts o = { .name = CUBIC_DEFAULT_NAME };
	struct upgrade_result r;
	struct cubic_counters c;
	struct cubic_tunables t;
	struct instance in;
	enum instance_state st;
	char reload[1024], why[256], oldb[16], newb[16];
	const char *name;
	int rc, lock, nargs;
	bool lost;

	rc = opts_parse(&cmd_upgrade_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	name = o.name;
	rc = require_env_locked(name, &lock);
	if (rc)
		return rc;
	if (instance_open(&in, name)) {
		errmsg("%s is not loaded", name);
		rc = EXIT_NOT_LOADED;
		goto out;
	}
	rc = EXIT_FAIL;
	st = instance_state(&in);
	if (st == INST_FOREIGN) {
		instance_foreign_msg(&in);
		goto out_close;
	}
	if (st != INST_REGISTERED) {
		errmsg("%s is not loaded (its pins are the leftovers of an interrupted load; "
		       "'cubicctl unload --name %s' removes them)", name, name);
		rc = EXIT_NOT_LOADED;
		goto out_close;
	}
	if (kstate_struct_ops_attach_type() < 0) {
		errmsg("this kernel has no struct_ops links (Linux 6.4 added them), so an instance "
		       "can't be upgraded in place, only unloaded and loaded again");
		goto out_close;
	}
	reload_cmd(&in, reload, sizeof(reload), &lost);
	if (!instance_abi_ok(&in)) {
		errmsg("%s was loaded with ABI version %u and this cubicctl's is %u, so the new "
		       "programs can't share its maps; reload it (its tunables, which this "
		       "cubicctl can't read, go back to the defaults): %s",
		       name, in.abi_version, CUBIC_ABI_VERSION, reload);
		goto out_close;
	}
	if (!in.link_mode) {
		errmsg("%s is registered in map mode (by an older cubicctl, or loaded with %s=0), "
		       "which the kernel can't update in place; reload it%s: %s",
		       name, LINK_MODE_ENV,
		       lost ? " (its tunables, which this cubicctl can't read, go back to the "
			      "defaults)" : "",
		       reload);
		goto out_close;
	}
	/* the rule in force must run on this build, on this kernel */
	if (!instance_read_tunables(&in, &t) &&
	    rule_refused(instance_datapath(&in), t.hystart, why, sizeof(why))) {
		errmsg("%s", why);
		goto out_close;
	}
	if (instance_upgrade(&in, reload, &r))
		goto out_close;
	instance_read_counters(&in, &c);
	build_id_str(r.old_build_id, oldb, sizeof(oldb));
	build_id_str(r.new_build_id, newb, sizeof(newb));
	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "name", name);
		json_bool(j, "upgraded", true);
		json_str(j, "old_build_id", oldb);
		json_str(j, "new_build_id", newb);
		json_str(j, "datapath", datapath_str(instance_datapath(&in)));
		json_u64(j, "maps_kept", (__u64)r.reused);
		json_u64(j, "old_ops_map_id", r.old_ops_id);
		json_u64(j, "new_ops_map_id", r.new_ops_id);
		json_u64(j, "open_sockets", counters_sockets(&c));
		json_obj_close(j);
		json_end(j);
	} else {
		unsigned long long open = counters_sockets(&c);

		printf("upgraded %s: build %s -> %s (new connections run %s; ", name, oldb, newb,
		       newb);
		if (open)
			printf("%llu open one%s keep%s %s until they close)\n", open,
			       open > 1 ? "s" : "", open > 1 ? "" : "s", oldb);
		else
			printf("none was open)\n");
	}
	rc = EXIT_OK;
out_close:
	instance_close(&in);
out:
	unlock_pin_root(lock);
	return rc;
}
