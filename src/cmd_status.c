// SPDX-License-Identifier: GPL-2.0
/* cubicctl status [--name NAME] [--prometheus] */
#include <stdlib.h>
#include <string.h>
#include "cubicctl.h"
#include "attach.h"
#include "routes.h"
#include "prom.h"
#include "tunables.h"
#include "version.h"

#define MAX_INSTANCES 64

struct status_opts {
	const char *name;
	bool prometheus;
};

static const struct opt status_opts[] = {
	OPT_STR("name", "NAME", struct status_opts, name, "only this instance"),
	OPT_FLAG("prometheus", struct status_opts, prometheus,
		 "the Prometheus text format, for node_exporter's textfile collector"),
	OPT_END
};

static void describe(FILE *f)
{
	fprintf(f,
		"Lists loaded instances: whether the kernel has them registered, the slow-start\n"
		"rule in force, an estimate of the sockets using each, counters and the\n"
		"tunables that differ from the rule's preset. Exits %d if none (or not NAME)\n"
		"is loaded. --prometheus writes families bpf_cubic_*, labelled name=\"NAME\";\n"
		"bpf_cubic_up is 0 for an instance that is not registered (or NAME, not\n"
		"loaded: printed too, with exit %d).\n",
		EXIT_NOT_LOADED, EXIT_NOT_LOADED);
}

const struct command cmd_status_def = {
	.name = "status",
	.run = cmd_status,
	.opts = status_opts,
	.max_args = 0,
	.summary = "instances, rules, sockets, counters, tunables",
	.describe = describe,
};

static double mean(__u64 sum, __u64 n)
{
	return n ? (double)sum / (double)n : 0.0;
}

/*
 * One line per status line of the exit reasons: "exits     ack_train 1 (mean
 * cwnd 244.0), delay 0 (mean cwnd 0.0), ...". A line is shown if any of its
 * counts is not zero, or its mode says so.
 */
static void print_exit_lines(const struct cubic_counters *c, __u32 hystart)
{
	for (int l = 0; l < EXIT_LINE_COUNT; l++) {
		char buf[512];
		size_t off = 0;
		bool any = false;

		buf[0] = '\0';
		for (int i = 0; i < EXIT_REASON_COUNT && off < sizeof(buf); i++) {
			const struct exit_reason *r = &exit_reasons[i];
			__u64 n = c->c[r->counter];

			if (r->line != (enum exit_line)l)
				continue;
			any = any || n;
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %llu",
						off ? ", " : "", r->name, (unsigned long long)n);
			if (r->cwnd_counter >= 0 && off < sizeof(buf))
				off += (size_t)snprintf(buf + off, sizeof(buf) - off,
							" (mean cwnd %.1f)",
							mean(c->c[r->cwnd_counter], n));
		}
		if (off && (any || exit_lines[l].mode < 0 || exit_lines[l].mode == (int)hystart))
			printf("  %-9s %s\n", exit_lines[l].label, buf);
	}
}

/* The exits with a measured ratio, of reason r (a row of CUBIC_EXIT_REASONS). */
static __u64 ratio_count(const struct cubic_counters *c, int r)
{
	__u64 n = 0;

	for (int k = 0; k < CUBIC_RATIO_SLOTS; k++)
		n += c->ratio[r][k];
	return n;
}

/*
 * The exit verdicts (trace shows each): their words, and per exit reason the
 * histogram of exit cwnd / the path's BDP. Shown once there is a verdict.
 */
static void print_verdict_lines(const struct cubic_counters *c)
{
	__u64 any = 0;

	for (int w = 0; w < CUBIC_VERDICT_WORD_COUNT; w++)
		any += c->c[CUBIC_CNT_VERDICT_UNKNOWN + w];
	if (!any)
		return;
	printf("  verdicts  premature %llu, ok %llu, overshoot %llu, unknown %llu\n",
	       (unsigned long long)c->c[CUBIC_CNT_VERDICT_PREMATURE],
	       (unsigned long long)c->c[CUBIC_CNT_VERDICT_OK],
	       (unsigned long long)c->c[CUBIC_CNT_VERDICT_OVERSHOOT],
	       (unsigned long long)c->c[CUBIC_CNT_VERDICT_UNKNOWN]);
	for (int r = 0; r < EXIT_REASON_COUNT; r++) {
		__u64 n = ratio_count(c, r);

		if (!exit_reasons[r].ends || !n)
			continue;
		printf("  exit/BDP  %s %llu:", exit_reasons[r].name, (unsigned long long)n);
		for (int k = 0; k < CUBIC_RATIO_SLOTS; k++)
			printf("%s %s%s %llu", k ? "," : "", k < CUBIC_RATIO_SLOTS - 1 ? "<=" : ">",
			       ratio_le_label[k < CUBIC_RATIO_SLOTS - 1 ? k : k - 1],
			       (unsigned long long)c->ratio[r][k]);
		printf(" (mean %.2f)\n", c->ratio[r][CUBIC_RATIO_SUM] / 1000.0 / (double)n);
	}
}

/* The same as JSON: the bounds, and per exit reason its counts (not cumulative). */
static void print_verdict_json(struct json *j, const struct cubic_counters *c)
{
	json_obj_open(j, "exit_ratio");
	json_arr_open(j, "le");
	for (int k = 0; k < CUBIC_RATIO_SLOTS - 1; k++)
		json_double(j, NULL, ratio_le_pm[k] / 1000.0, 3);
	json_arr_close(j);
	json_obj_open(j, "reasons");
	for (int r = 0; r < EXIT_REASON_COUNT; r++) {
		if (!exit_reasons[r].ends)
			continue;
		json_obj_open(j, exit_reasons[r].name);
		json_arr_open(j, "counts");
		for (int k = 0; k < CUBIC_RATIO_SLOTS; k++)
			json_u64(j, NULL, c->ratio[r][k]);
		json_arr_close(j);
		json_u64(j, "count", ratio_count(c, r));
		json_double(j, "sum", c->ratio[r][CUBIC_RATIO_SUM] / 1000.0, 3);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_obj_close(j);
}

/*
 * The preset of rule r nearest to t (the fewest keys differ) into *p; the
 * number of keys that differ.
 */
static int nearest_preset(const struct cubic_tunables *t, const struct rule_desc *r,
			  const struct rule_preset **best, struct cubic_tunables *base)
{
	int least = CUBIC_TUN_COUNT + 1;
	char err[160];

	*best = NULL;
	for (const struct rule_preset *p = r ? r->presets : NULL; p && p->name; p++) {
		struct cubic_tunables pt;
		int n = 0;

		if (tun_preset_values(r, p, &pt, err, sizeof(err)))
			continue;
		for (int i = 0; i < CUBIC_TUN_COUNT; i++)
			n += tun_get(&pt, i) != tun_get(t, i);
		if (n < least) {
			least = n;
			*best = p;
			*base = pt;
		}
	}
	return least;
}

/* "  rule      linux (hystart=1): Linux HyStart: ..." */
static void print_rule(const struct cubic_tunables *t)
{
	__u32 v = tun_get(t, CUBIC_TUN_hystart);
	const struct rule_desc *r = rule_of(v);

	if (r)
		printf("  rule      %s (hystart=%u): %s\n", r->name, v, r->help);
	else
		printf("  rule      hystart=%u, which this cubicctl does not know\n", v);
}

/* The tunables as the rule's nearest preset and what differs from it. */
static void print_tunables(const struct cubic_tunables *t)
{
	const struct rule_desc *r = rule_of(tun_get(t, CUBIC_TUN_hystart));
	const struct rule_preset *p;
	struct cubic_tunables base;
	int n = nearest_preset(t, r, &p, &base);

	if (!p) {
		printf("  tunables ");
		for (int i = 0; i < CUBIC_TUN_COUNT; i++)
			printf(" %s=%u", tun_table[i].name, tun_get(t, i));
		printf("\n");
		return;
	}
	printf("  tunables  preset %s", p->name);
	if (n) {
		printf(", but");
		for (int i = 0; i < CUBIC_TUN_COUNT; i++)
			if (tun_get(t, i) != tun_get(&base, i))
				printf(" %s=%u", tun_table[i].name, tun_get(t, i));
	}
	printf(" ('cubicctl get' lists them all)\n");
}

#define MAX_ATTACH 256
#define MAX_ROUTES 64

/* The attachments and routes that select instance name, in text (status) */
static void print_selection_text(const char *name)
{
	static struct attach_info a[MAX_ATTACH];
	struct route_ref r[MAX_ROUTES];
	int n = attach_list(a, MAX_ATTACH), nr = routes_naming(name, r, MAX_ROUTES);
	char rules[512];

	for (int i = 0; i < n; i++) {
		if (strcmp(a[i].name, name))
			continue;
		attach_rules_str(&a[i].rules, rules, sizeof(rules));
		printf("  attached  %d: %s (%s): %llu switched, %llu left alone by the rules, "
		       "%llu failed%s\n",
		       a[i].id, a[i].cgroup, rules, (unsigned long long)a[i].c[ATTACH_CNT_SWITCHED],
		       (unsigned long long)a[i].c[ATTACH_CNT_SKIPPED],
		       (unsigned long long)a[i].c[ATTACH_CNT_FAILED],
		       a[i].attached ? "" : "; the cgroup is gone ('cubicctl detach')");
	}
	for (int i = 0; i < nr && i < MAX_ROUTES; i++)
		printf("  route     %s congctl %s%s\n", r[i].route, r[i].locked ? "lock " : "",
		       name);
}

static void print_selection_json(struct json *j, const char *name)
{
	static struct attach_info a[MAX_ATTACH];
	struct route_ref r[MAX_ROUTES];
	int n = attach_list(a, MAX_ATTACH), nr = routes_naming(name, r, MAX_ROUTES);
	char rules[512];

	json_arr_open(j, "attachments");
	for (int i = 0; i < n; i++) {
		if (strcmp(a[i].name, name))
			continue;
		attach_rules_str(&a[i].rules, rules, sizeof(rules));
		json_obj_open(j, NULL);
		json_u64(j, "id", (unsigned)a[i].id);
		json_str(j, "cgroup", a[i].cgroup);
		json_str(j, "rules", rules);
		json_bool(j, "attached", a[i].attached);
#define X(ID, key, help) json_u64(j, key, a[i].c[ATTACH_CNT_##ID]);
		ATTACH_COUNTERS(X)
#undef X
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "routes");
	for (int i = 0; i < nr && i < MAX_ROUTES; i++) {
		json_obj_open(j, NULL);
		json_str(j, "route", r[i].route);
		json_bool(j, "locked", r[i].locked);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* "  build     1a2b3c4d, ..." and how it is registered: what 'cubicctl upgrade' can do. */
static void print_build(const struct instance *in)
{
	struct cubic_info info;
	char b[16];

	if (instance_read_info((struct instance *)in, &info))
		return;
	if (in->link_mode)
		printf("  build     %s, registered through a struct_ops link ('cubicctl upgrade' "
		       "replaces it in place)\n", build_id_str(info.build_id, b, sizeof(b)));
	else
		printf("  build     %s, registered in map mode (%s)\n",
		       build_id_str(info.build_id, b, sizeof(b)),
		       kstate_struct_ops_attach_type() < 0
			       ? "this kernel has no struct_ops links: upgrade by reloading"
			       : "reload it for 'cubicctl upgrade' to replace it in place");
}

static void print_text(const struct instance *in, enum instance_state st,
		       const struct cubic_counters *c, const struct cubic_tunables *t)
{
	if (st == INST_FOREIGN) {
		if (in->ops_ca_name[0])
			printf("%s: its ops pin is registered as '%s'; cubicctl leaves it alone\n",
			       in->name, in->ops_ca_name);
		else
			printf("%s: its ops pin is not a bpf_cubic ops map; cubicctl leaves it alone\n",
			       in->name);
		return;
	}
	printf("%s: %s\n", in->name,
	       st == INST_REGISTERED ? "registered"
				     : "not registered (leftover of an interrupted load; "
				       "'cubicctl load' or 'unload' cleans it)");
	if (st != INST_REGISTERED)
		return;
	if (!instance_abi_ok(in)) {
		printf("  abi       %u, this cubicctl reads %u: reload it to see its counters and "
		       "tunables ('cubicctl unload --name %s', then 'cubicctl load --name %s')\n",
		       in->abi_version, CUBIC_ABI_VERSION, in->name, in->name);
		return;
	}
	print_rule(t);
	printf("  datapath  %s\n", datapath_str(instance_datapath(in)));
	printf("  abi       %u\n", in->abi_version);
	print_build(in);
	printf("  sockets   %llu (estimate: flows initialised minus released)\n",
	       (unsigned long long)counters_sockets(c));
	printf("  flows     %llu initialised, %llu released\n",
	       (unsigned long long)c->c[CUBIC_CNT_FLOW_INIT],
	       (unsigned long long)c->c[CUBIC_CNT_FLOW_RELEASE]);
	print_exit_lines(c, tun_get(t, CUBIC_TUN_hystart));
	print_verdict_lines(c);
	printf("  records   %llu written, %llu dropped (ring full)\n",
	       (unsigned long long)c->c[CUBIC_CNT_EVENTS],
	       (unsigned long long)c->c[CUBIC_CNT_EVENT_DROPS]);
	/* each rule that keeps socket storage: the flows that had none (rules' storage) */
	for (int i = 0; i < RULE_COUNT; i++) {
		const struct rule_desc *r = &rules[i];

		if (r->storage_counter >= 0 &&
		    (c->c[r->storage_counter] || tun_get(t, CUBIC_TUN_hystart) == r->value))
			printf("  %-9s %llu flows without socket storage (Linux HyStart decided for "
			       "them)\n",
			       r->name, (unsigned long long)c->c[r->storage_counter]);
	}
	printf("  repaired  %llu impossible cwnd/ssthresh values replaced (docs/IMPOSSIBLE_WINDOWS.md)\n",
	       (unsigned long long)c->c[CUBIC_CNT_REPAIRED]);
	print_tunables(t);
	print_selection_text(in->name);
}

static void print_json(struct json *j, const struct instance *in, enum instance_state st,
		       const struct cubic_counters *c, const struct cubic_tunables *t)
{
	json_obj_open(j, NULL);
	json_str(j, "name", in->name);
	json_str(j, "state", instance_state_str(st));
	json_bool(j, "registered", st == INST_REGISTERED);
	if (st == INST_FOREIGN && in->ops_ca_name[0])
		json_str(j, "ops_registered_as", in->ops_ca_name);
	json_u64(j, "abi_version", in->abi_version);
	json_bool(j, "abi_ok", instance_abi_ok(in));
	if (st == INST_REGISTERED) {
		struct cubic_info info;
		char b[16];

		json_str(j, "datapath", datapath_str(instance_datapath(in)));
		json_str(j, "registration", in->link_mode ? "link" : "map");
		if (!instance_read_info((struct instance *)in, &info))
			json_str(j, "build_id", build_id_str(info.build_id, b, sizeof(b)));
	}
	if (st == INST_REGISTERED && !instance_abi_ok(in))
		json_str(j, "hint", "reload it: its ABI is not this cubicctl's");
	if (st == INST_REGISTERED && instance_abi_ok(in)) {
		json_u64(j, "sockets", counters_sockets(c));
		json_obj_open(j, "counters");
		for (int i = 0; i < CUBIC_CNT_MAX; i++)
			json_u64(j, counter_keys[i], c->c[i]);
		json_obj_close(j);
		print_verdict_json(j, c);
		json_obj_open(j, "tunables");
		for (int i = 0; i < CUBIC_TUN_COUNT; i++)
			json_u64(j, tun_table[i].name, tun_get(t, i));
		json_obj_close(j);
		{
			const struct rule_desc *r = rule_of(tun_get(t, CUBIC_TUN_hystart));
			const struct rule_preset *p;
			struct cubic_tunables base;
			int n = nearest_preset(t, r, &p, &base);

			json_str_or_null(j, "rule", r ? r->name : NULL);
			/* the preset the tunables are exactly, or null */
			json_str_or_null(j, "preset", p && !n ? p->name : NULL);
		}
	}
	if (st == INST_REGISTERED)
		print_selection_json(j, in->name);
	json_obj_close(j);
}

int cmd_status(int argc, char **argv)
{
	char names[MAX_INSTANCES][CUBIC_NAME_MAX];
	static struct prom_instance prom[MAX_INSTANCES];
	const char *name = NULL;
	struct status_opts o = { .name = NULL };
	struct json *j = NULL;
	int n, rc, shown = 0, np = 0, nargs;

	rc = opts_parse(&cmd_status_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	name = o.name;
	if (o.prometheus && g_opts.json) {
		errmsg("--prometheus: not together with --json (two output formats: choose one)");
		return EXIT_USAGE;
	}
	rc = require_env(name);
	if (rc)
		return rc;

	if (name) {
		snprintf(names[0], CUBIC_NAME_MAX, "%s", name);
		n = 1;
	} else {
		n = instance_list(names, MAX_INSTANCES);
	}
	if (g_opts.json) {
		j = json_stdout();
		json_obj_open(j, NULL);
		json_arr_open(j, "instances");
	}
	for (int i = 0; i < n; i++) {
		struct cubic_counters c = {};
		struct cubic_tunables t = {};
		struct instance in;
		enum instance_state st;

		if (instance_open(&in, names[i]))
			continue;
		st = instance_state(&in);
		instance_read_counters(&in, &c);
		instance_read_tunables(&in, &t);
		if (o.prometheus) {
			struct prom_instance *p = &prom[np++];

			p->name = strdup(in.name);
			p->up = st == INST_REGISTERED && instance_abi_ok(&in);
			p->datapath = datapath_str(instance_datapath(&in));
			p->abi_version = in.abi_version;
			p->counters = c;
			p->tunables = t;
		} else if (j)
			print_json(j, &in, st, &c, &t);
		else
			print_text(&in, st, &c, &t);
		instance_close(&in);
		shown++;
	}
	if (j) {
		json_arr_close(j);
		json_obj_close(j);
		json_end(j);
	}
	if (o.prometheus) {
		/* NAME not loaded is a sample too: bpf_cubic_up 0 */
		if (name && !shown)
			prom[np++] = (struct prom_instance){ .name = strdup(name) };
		prom_write(stdout, prom, np, CUBICCTL_VERSION, CUBICCTL_GIT);
		for (int i = 0; i < np; i++)
			free((char *)prom[i].name);
	}
	if (!shown) {
		if (name)
			errmsg("%s is not loaded", name);
		else
			errmsg("no instance is loaded ('cubicctl load' loads %s)", CUBIC_DEFAULT_NAME);
		return EXIT_NOT_LOADED;
	}
	return EXIT_OK;
}
