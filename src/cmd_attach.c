// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl attach --cgroup PATH [--name NAME] [--dst PREFIX]... [--port PORT]...
 * cubicctl detach --id ID | [--name NAME] [--cgroup PATH]
 *
 * Per-service selection without touching the application: a cgroup's TCP
 * connections on an instance (src/attach.c, bpf/attach.bpf.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cubicctl.h"
#include "attach.h"

struct attach_opts {
	const char *name;
	const char *cgroup;
	struct attach_rules rules;
};

static int parse_dst(const char *val, void *field, char *err, size_t errlen)
{
	char why[160];

	if (attach_add_prefix(field, val, why, sizeof(why))) {
		/* attach.c's sentence names the option: keep only the reason */
		snprintf(err, errlen, "%s", strchr(why, ' ') ? strchr(why, ' ') + 1 : why);
		return -1;
	}
	return 0;
}

static int parse_port(const char *val, void *field, char *err, size_t errlen)
{
	char why[160];

	if (attach_add_port(field, val, why, sizeof(why))) {
		snprintf(err, errlen, "%s", strchr(why, ' ') ? strchr(why, ' ') + 1 : why);
		return -1;
	}
	return 0;
}

static const struct opt attach_opts[] = {
	OPT_NAME(struct attach_opts, name),
	OPT_STR("cgroup", "PATH", struct attach_opts, cgroup,
		"the cgroup v2 folder (absolute, or relative to the cgroup2 mount)"),
	OPT_REPEAT("dst", "PREFIX", struct attach_opts, rules, parse_dst,
		   "only connections whose peer is in PREFIX (10.0.0.0/8, 2001:db8::/32)"),
	OPT_REPEAT("port", "PORT", struct attach_opts, rules, parse_port,
		   "only connections whose local or remote port is PORT"),
	OPT_END
};

static void attach_describe(FILE *f)
{
	fprintf(f,
		"Puts every TCP connection made or accepted by a process of the cgroup on\n"
		"instance NAME, without touching the application: a cgroup sock_ops program\n"
		"switches each connection when it is established, before the kernel\n"
		"initialises its congestion control. With --dst or --port, only the\n"
		"connections toward those prefixes or on those ports (both: both must match).\n"
		"It is pinned (/sys/fs/bpf/cubicctl-attach/ID) and outlives cubicctl; status\n"
		"lists it with its counts, detach removes it. A connection the kernel refuses\n"
		"to switch keeps its congestion control and is counted as failed. Rules that\n"
		"overlap another attachment on the same cgroup are refused (exit %d): both\n"
		"programs would run and the last would win. A cgroup's attachments also\n"
		"apply to the cgroups below it. Exit %d if NAME is not loaded.\n",
		EXIT_USAGE, EXIT_NOT_LOADED);
}

const struct command cmd_attach_def = {
	.name = "attach",
	.run = cmd_attach,
	.opts = attach_opts,
	.max_args = 0,
	.summary = "a cgroup's connections on an instance",
	.describe = attach_describe,
};

struct detach_opts {
	const char *name;
	const char *cgroup;
	const char *id;
};

static const struct opt detach_opts[] = {
	{ .name = "id", .meta = "ID", .offset = offsetof(struct detach_opts, id),
	  .group = "which", .help = "the attachment 'attach' printed (status lists them)" },
	{ .name = "name", .meta = "NAME", .offset = offsetof(struct detach_opts, name),
	  .group = "which", .help = "every attachment of instance NAME (with --cgroup: on it)" },
	OPT_STR("cgroup", "PATH", struct detach_opts, cgroup,
		"only the attachments on this cgroup"),
	OPT_END
};

static void detach_describe(FILE *f)
{
	fprintf(f,
		"Removes attachments and everything attach made for them (the cgroup link,\n"
		"the program, its maps and pins). Connections already switched keep their\n"
		"congestion control. Exit %d if none matches.\n",
		EXIT_NOT_LOADED);
}

const struct command cmd_detach_def = {
	.name = "detach",
	.run = cmd_detach,
	.opts = detach_opts,
	.max_args = 0,
	.summary = "remove attachments",
	.describe = detach_describe,
};

#define MAX_ATTACH 256

int cmd_attach(int argc, char **argv)
{
	static struct attach_opts o;
	char cg[PATH_MAX], why[PATH_MAX + 64], rules[512];
	struct instance in;
	int rc, lock, nargs, id = 0;

	memset(&o, 0, sizeof(o));
	o.name = CUBIC_DEFAULT_NAME;
	rc = opts_parse(&cmd_attach_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	if (!o.cgroup) {
		errmsg("--cgroup: needed (the cgroup whose connections go on %s)", o.name);
		return EXIT_USAGE;
	}
	rc = require_env_locked(o.name, &lock);
	if (rc)
		return rc;
	if (attach_resolve_cgroup(o.cgroup, cg, sizeof(cg), why, sizeof(why))) {
		errmsg("--cgroup: %s", why);
		rc = EXIT_USAGE;
		goto out;
	}
	rc = instance_open_loaded(&in, o.name);
	if (rc)
		goto out;
	instance_close(&in);
	rc = attach_create(o.name, cg, &o.rules, &id);
	if (rc)
		goto out;
	attach_rules_str(&o.rules, rules, sizeof(rules));
	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_u64(j, "id", (unsigned)id);
		json_str(j, "name", o.name);
		json_str(j, "cgroup", cg);
		json_str(j, "rules", rules);
		json_obj_close(j);
		json_end(j);
	} else {
		printf("attached %d: %s for %s (%s)\n", id, o.name, cg, rules);
	}
out:
	unlock_pin_root(lock);
	return rc;
}

/* Detaches every attachment of instance name (unload --force): how many, or -errno. */
int attach_detach_instance(const char *name, bool quiet)
{
	static struct attach_info list[MAX_ATTACH];
	int n = attach_list(list, MAX_ATTACH), done = 0;

	for (int i = 0; i < n; i++) {
		if (strcmp(list[i].name, name))
			continue;
		if (attach_destroy(list[i].id))
			return -EIO;
		if (!quiet)
			note("detached attachment %d (%s)", list[i].id, list[i].cgroup);
		done++;
	}
	return done;
}

int cmd_detach(int argc, char **argv)
{
	static struct attach_info list[MAX_ATTACH];
	struct detach_opts o = { 0 };
	char cg[PATH_MAX] = "", why[PATH_MAX + 64];
	long want = -1;
	int rc, lock, nargs, n, done = 0;
	struct json *j = NULL;

	rc = opts_parse(&cmd_detach_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	if (o.id) {
		char *end;

		want = strtol(o.id, &end, 10);
		if (!*o.id || *end || want < 1 || want > 1000000) {
			errmsg("--id: '%s' is not an attachment id (status lists them)", o.id);
			return EXIT_USAGE;
		}
		if (o.cgroup) {
			errmsg("--cgroup: not together with --id (the id names one attachment)");
			return EXIT_USAGE;
		}
	} else if (!o.name) {
		errmsg("--id or --name: needed (which attachments to remove)");
		return EXIT_USAGE;
	}
	rc = require_env_locked(o.name, &lock);
	if (rc)
		return rc;
	if (o.cgroup && attach_resolve_cgroup(o.cgroup, cg, sizeof(cg), why, sizeof(why))) {
		errmsg("--cgroup: %s", why);
		rc = EXIT_USAGE;
		goto out;
	}
	n = attach_list(list, MAX_ATTACH);
	if (g_opts.json) {
		j = json_stdout();
		json_obj_open(j, NULL);
		json_arr_open(j, "detached");
	}
	for (int i = 0; i < n; i++) {
		if (want > 0 ? list[i].id != want
			     : strcmp(list[i].name, o.name) || (cg[0] && strcmp(list[i].cgroup, cg)))
			continue;
		if (attach_destroy(list[i].id)) {
			errmsg("can't remove attachment %d under %s: %s", list[i].id, ATTACH_ROOT,
			       strerror(errno));
			rc = EXIT_FAIL;
			break;
		}
		if (j) {
			json_obj_open(j, NULL);
			json_u64(j, "id", (unsigned)list[i].id);
			json_str(j, "name", list[i].name);
			json_str(j, "cgroup", list[i].cgroup);
			json_obj_close(j);
		} else {
			printf("detached %d: %s for %s\n", list[i].id, list[i].name, list[i].cgroup);
		}
		done++;
	}
	if (j) {
		json_arr_close(j);
		json_obj_close(j);
		json_end(j);
	}
	if (!rc && !done) {
		if (want > 0)
			errmsg("no attachment %ld", want);
		else
			errmsg("no attachment of %s%s%s", o.name, cg[0] ? " on " : "", cg);
		rc = EXIT_NOT_LOADED;
	}
out:
	unlock_pin_root(lock);
	return rc;
}
