// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl set [--name NAME] KEY=VALUE... | preset=NAME
 * cubicctl get [--name NAME] [KEY...]
 *
 * set validates every word first and writes all or nothing, under the pin-root
 * lock, so two racing set commands never lose an update. Every flow of the
 * instance reads the new values at its next ACK.
 */
#include <string.h>
#include <bpf/bpf.h>
#include "cubicctl.h"
#include "tunables.h"

struct name_opts {
	const char *name;
};

static const struct opt name_opts[] = {
	OPT_NAME(struct name_opts, name),
	OPT_END
};

static void set_describe(FILE *f)
{
	fprintf(f,
		"Changes tunables of a loaded instance, live: every flow uses them from its next\n"
		"ACK. A word is KEY=VALUE, KEY=default (the table's default) or preset=PRESET\n"
		"(a whole set; the keys apply on top of it). All words are checked first; on\n"
		"any error nothing changes (exit %d). 'cubicctl help' lists the keys, their\n"
		"ranges, the rules and the presets. The datapath is chosen at load only. An\n"
		"instance loaded with another ABI version is refused (exit %d): reload it.\n",
		EXIT_USAGE, EXIT_FAIL);
}

static void get_describe(FILE *f)
{
	fprintf(f,
		"Prints the tunables in force (all, or the KEYs given). An instance loaded\n"
		"with another ABI version is refused (exit %d): reload it.\n",
		EXIT_FAIL);
}

const struct command cmd_set_def = {
	.name = "set",
	.run = cmd_set,
	.opts = name_opts,
	.args = "KEY=VALUE...",
	.max_args = -1,
	.summary = "change tunables live (preset=PRESET is a whole set)",
	.describe = set_describe,
};

const struct command cmd_get_def = {
	.name = "get",
	.run = cmd_get,
	.opts = name_opts,
	.args = "[KEY...]",
	.max_args = -1,
	.summary = "the tunables in force",
	.describe = get_describe,
};

static void print_value(int id, __u32 v)
{
	const char *vn = tun_value_name(id, v);

	if (vn)
		printf("%u (%s)", v, vn);
	else
		printf("%u", v);
}

int cmd_set(int argc, char **argv)
{
	struct name_opts o = { .name = CUBIC_DEFAULT_NAME };
	const char *name;
	struct cubic_tunables before, after;
	char err[256];
	struct instance in;
	int nwords, rc, lock;
	__u32 zero = 0;

	rc = opts_parse(&cmd_set_def, argc, argv, &o, &nwords);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	name = o.name;
	if (!nwords) {
		errmsg("nothing to set: give KEY=VALUE or preset=NAME (see 'cubicctl set --help')");
		return EXIT_USAGE;
	}
	for (int i = 0; i < nwords; i++) {
		if (!strncmp(argv[i], "datapath=", 9)) {
			errmsg("%s: the datapath is chosen at load ('cubicctl unload --name %s', then "
			       "'cubicctl load --name %s %s')", argv[i], name, name, argv[i]);
			return EXIT_USAGE;
		}
	}
	/* Bad input is refused before anything is touched, loaded or not. */
	cubic_tunables_defaults(&after);
	if (tun_apply_args(nwords, argv, &after, err, sizeof(err))) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	rc = require_env_locked(name, &lock);
	if (rc)
		return rc;
	rc = instance_open_loaded(&in, name);
	if (rc)
		goto out;
	if (instance_read_tunables(&in, &before)) {
		errmsg("can't read the tunables of %s", name);
		rc = EXIT_FAIL;
		goto out_close;
	}
	after = before;
	if (tun_apply_args(nwords, argv, &after, err, sizeof(err))) {
		errmsg("%s", err);
		rc = EXIT_USAGE;
		goto out_close;
	}
	if (after.hystart != before.hystart) {
		const char *why =
			rule_refused(instance_datapath(&in), after.hystart, err, sizeof(err));

		if (why) {
			errmsg("%s", why);
			rc = EXIT_FAIL;
			goto out_close;
		}
	}
	if (bpf_map_update_elem(in.tunables_fd, &zero, &after, 0)) {
		errmsg("can't write the tunables of %s", name);
		rc = EXIT_FAIL;
		goto out_close;
	}

	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "name", name);
		json_obj_open(j, "changed");
		for (int id = 0; id < CUBIC_TUN_COUNT; id++) {
			if (tun_get(&before, id) == tun_get(&after, id))
				continue;
			json_obj_open(j, tun_table[id].name);
			json_u64(j, "from", tun_get(&before, id));
			json_u64(j, "to", tun_get(&after, id));
			json_obj_close(j);
		}
		json_obj_close(j);
		json_obj_close(j);
		json_end(j);
	} else {
		int changed = 0;

		for (int id = 0; id < CUBIC_TUN_COUNT; id++) {
			if (tun_get(&before, id) == tun_get(&after, id))
				continue;
			printf("%s: %s ", name, tun_table[id].name);
			print_value(id, tun_get(&before, id));
			printf(" -> ");
			print_value(id, tun_get(&after, id));
			printf("\n");
			changed++;
		}
		if (!changed)
			printf("%s: no change\n", name);
	}
	rc = EXIT_OK;
out_close:
	instance_close(&in);
out:
	unlock_pin_root(lock);
	return rc;
}

int cmd_get(int argc, char **argv)
{
	struct name_opts o = { .name = CUBIC_DEFAULT_NAME };
	const char *name;
	bool want[CUBIC_TUN_COUNT] = { false };
	struct cubic_tunables t;
	struct instance in;
	int nkeys, rc;

	rc = opts_parse(&cmd_get_def, argc, argv, &o, &nkeys);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	name = o.name;
	for (int i = 0; i < nkeys; i++) {
		int id = tun_lookup(argv[i]);

		if (id < 0) {
			errmsg("'%s': unknown key (see 'cubicctl help' for the keys)", argv[i]);
			return EXIT_USAGE;
		}
		if (want[id]) {
			errmsg("'%s': given twice", argv[i]);
			return EXIT_USAGE;
		}
		want[id] = true;
	}
	rc = require_env(name);
	if (rc)
		return rc;
	rc = instance_open_loaded(&in, name);
	if (rc)
		return rc;
	if (instance_read_tunables(&in, &t)) {
		errmsg("can't read the tunables of %s", name);
		instance_close(&in);
		return EXIT_FAIL;
	}
	instance_close(&in);

	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "name", name);
		json_obj_open(j, "tunables");
		for (int id = 0; id < CUBIC_TUN_COUNT; id++)
			if (!nkeys || want[id])
				json_u64(j, tun_table[id].name, tun_get(&t, id));
		json_obj_close(j);
		json_obj_close(j);
		json_end(j);
		return EXIT_OK;
	}
	for (int id = 0; id < CUBIC_TUN_COUNT; id++) {
		const struct tun_desc *d = &tun_table[id];
		char val[48];
		const char *vn;

		if (nkeys && !want[id])
			continue;
		vn = tun_value_name(id, tun_get(&t, id));
		if (vn)
			snprintf(val, sizeof(val), "%u (%s)", tun_get(&t, id), vn);
		else
			snprintf(val, sizeof(val), "%u", tun_get(&t, id));
		printf("%-22s %-14s %s\n", d->name, val,
		       tun_get(&t, id) == d->def ? "" : "(changed)");
	}
	return EXIT_OK;
}
