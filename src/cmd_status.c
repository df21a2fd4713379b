// SPDX-License-Identifier: GPL-2.0
/* cubicctl status [--name NAME] [--json] */
#include <string.h>
#include "cubicctl.h"
#include "tunables.h"

#define MAX_INSTANCES 64

static void usage(void)
{
	fprintf(stderr,
		"usage: cubicctl status [--name NAME] [--json]\n"
		"Lists loaded instances: whether the kernel has them registered, an estimate of\n"
		"the sockets using each, counters and the tunables in force. Exits %d if none\n"
		"(or not NAME) is loaded.\n",
		EXIT_NOT_LOADED);
}

/* Sockets using the instance: flows initialised minus flows released. */
static __u64 sockets_estimate(const struct cubic_counters *c)
{
	__u64 init = c->c[CUBIC_CNT_FLOW_INIT], rel = c->c[CUBIC_CNT_FLOW_RELEASE];

	return init > rel ? init - rel : 0;
}

static double mean(__u64 sum, __u64 n)
{
	return n ? (double)sum / (double)n : 0.0;
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
	printf("  datapath  %s\n", datapath_str(instance_datapath(in)));
	printf("  sockets   %llu (estimate: flows initialised minus released)\n",
	       (unsigned long long)sockets_estimate(c));
	printf("  flows     %llu initialised, %llu released\n",
	       (unsigned long long)c->c[CUBIC_CNT_FLOW_INIT],
	       (unsigned long long)c->c[CUBIC_CNT_FLOW_RELEASE]);
	printf("  exits     ack_train %llu (mean cwnd %.1f), delay %llu (mean cwnd %.1f), "
	       "loss %llu (mean cwnd %.1f)\n",
	       (unsigned long long)c->c[CUBIC_CNT_EXIT_TRAIN],
	       mean(c->c[CUBIC_CNT_EXIT_TRAIN_CWND], c->c[CUBIC_CNT_EXIT_TRAIN]),
	       (unsigned long long)c->c[CUBIC_CNT_EXIT_DELAY],
	       mean(c->c[CUBIC_CNT_EXIT_DELAY_CWND], c->c[CUBIC_CNT_EXIT_DELAY]),
	       (unsigned long long)c->c[CUBIC_CNT_EXIT_LOSS],
	       mean(c->c[CUBIC_CNT_EXIT_LOSS_CWND], c->c[CUBIC_CNT_EXIT_LOSS]));
	if (c->c[CUBIC_CNT_CSS_ENTER] || tun_get(t, CUBIC_TUN_hystart) == CUBIC_HYSTART_PP)
		printf("  hystart++ css_enter %llu, css_resume %llu, css_exit %llu (mean cwnd %.1f)\n",
		       (unsigned long long)c->c[CUBIC_CNT_CSS_ENTER],
		       (unsigned long long)c->c[CUBIC_CNT_CSS_RESUME],
		       (unsigned long long)c->c[CUBIC_CNT_CSS_EXIT],
		       mean(c->c[CUBIC_CNT_CSS_EXIT_CWND], c->c[CUBIC_CNT_CSS_EXIT]));
	printf("  records   %llu written, %llu dropped (ring full)\n",
	       (unsigned long long)c->c[CUBIC_CNT_EVENTS],
	       (unsigned long long)c->c[CUBIC_CNT_EVENT_DROPS]);
	printf("  repaired  %llu impossible cwnd/ssthresh values replaced (docs/IMPOSSIBLE_WINDOWS.md)\n",
	       (unsigned long long)c->c[CUBIC_CNT_REPAIRED]);
	printf("  tunables ");
	for (int i = 0; i < CUBIC_TUN_COUNT; i++)
		printf(" %s=%u", tun_table[i].name, tun_get(t, i));
	printf("\n");
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
	if (st == INST_REGISTERED)
		json_str(j, "datapath", datapath_str(instance_datapath(in)));
	if (st == INST_REGISTERED && !instance_abi_ok(in))
		json_str(j, "hint", "reload it: its ABI is not this cubicctl's");
	if (st == INST_REGISTERED && instance_abi_ok(in)) {
		json_u64(j, "sockets", sockets_estimate(c));
		json_obj_open(j, "counters");
		json_u64(j, "flows_init", c->c[CUBIC_CNT_FLOW_INIT]);
		json_u64(j, "flows_released", c->c[CUBIC_CNT_FLOW_RELEASE]);
		json_u64(j, "exit_ack_train", c->c[CUBIC_CNT_EXIT_TRAIN]);
		json_u64(j, "exit_ack_train_cwnd_sum", c->c[CUBIC_CNT_EXIT_TRAIN_CWND]);
		json_u64(j, "exit_delay", c->c[CUBIC_CNT_EXIT_DELAY]);
		json_u64(j, "exit_delay_cwnd_sum", c->c[CUBIC_CNT_EXIT_DELAY_CWND]);
		json_u64(j, "exit_loss", c->c[CUBIC_CNT_EXIT_LOSS]);
		json_u64(j, "exit_loss_cwnd_sum", c->c[CUBIC_CNT_EXIT_LOSS_CWND]);
		json_u64(j, "css_enter", c->c[CUBIC_CNT_CSS_ENTER]);
		json_u64(j, "css_resume", c->c[CUBIC_CNT_CSS_RESUME]);
		json_u64(j, "css_exit", c->c[CUBIC_CNT_CSS_EXIT]);
		json_u64(j, "css_exit_cwnd_sum", c->c[CUBIC_CNT_CSS_EXIT_CWND]);
		json_u64(j, "records", c->c[CUBIC_CNT_EVENTS]);
		json_u64(j, "records_dropped", c->c[CUBIC_CNT_EVENT_DROPS]);
		json_u64(j, "repaired", c->c[CUBIC_CNT_REPAIRED]);
		json_obj_close(j);
		json_obj_open(j, "tunables");
		for (int i = 0; i < CUBIC_TUN_COUNT; i++)
			json_u64(j, tun_table[i].name, tun_get(t, i));
		json_obj_close(j);
	}
	json_obj_close(j);
}

int cmd_status(int argc, char **argv)
{
	char names[MAX_INSTANCES][CUBIC_NAME_MAX];
	const char *name = NULL;
	struct json *j = NULL;
	int n, rc, shown = 0;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			usage();
			return EXIT_OK;
		}
		if (opt_value(argc, argv, &i, "--name", &name)) {
			if (!name)
				return EXIT_USAGE;
			continue;
		}
		errmsg("unknown argument '%s'", argv[i]);
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
		if (j)
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
	if (!shown) {
		if (name)
			errmsg("%s is not loaded", name);
		else
			errmsg("no instance is loaded ('cubicctl load' loads %s)", CUBIC_DEFAULT_NAME);
		return EXIT_NOT_LOADED;
	}
	return EXIT_OK;
}
