// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition format (see prom.h). Every family has one
 * HELP and one TYPE line and then its samples, one per instance, labelled
 * name="NAME" (not "instance": Prometheus sets that label itself, to the
 * scraped target). Metric names: bpf_cubic_<what>, counters end in _total.
 */
#include <string.h>
#include "prom.h"
#include "tunables.h"
#include "vocab.h"

/* A label value: \ " and newline escaped, as the format requires. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *metric, const char *type, const char *help)
{
	fprintf(f, "# HELP bpf_cubic_%s %s\n# TYPE bpf_cubic_%s %s\n", metric, help, metric, type);
}

/* bpf_cubic_METRIC{name="NAME"[,KEY="VAL"] (the caller closes the braces) */
static void sample_start(FILE *f, const char *metric, const char *name, const char *key,
			 const char *val)
{
	fprintf(f, "bpf_cubic_%s{name=\"", metric);
	label_value(f, name);
	if (key) {
		fprintf(f, "\",%s=\"", key);
		label_value(f, val);
	}
	fputc('"', f);
}

static void sample_u64(FILE *f, const char *metric, const char *name, const char *key,
		       const char *val, unsigned long long v)
{
	sample_start(f, metric, name, key, val);
	fprintf(f, "} %llu\n", v);
}

/* Whether counter i is an exit reason's count or cwnd sum (shown by reason). */
static bool is_reason_counter(int i)
{
	for (int r = 0; r < EXIT_REASON_COUNT; r++)
		if (exit_reasons[r].counter == i || exit_reasons[r].cwnd_counter == i)
			return true;
	return false;
}

void prom_write(FILE *f, const struct prom_instance *in, int n, const char *version,
		const char *git)
{
	char metric[64];

	family(f, "cubicctl_info", "gauge", "the cubicctl that wrote these metrics (always 1)");
	fputs("bpf_cubic_cubicctl_info{version=\"", f);
	label_value(f, version);
	fputs("\",git=\"", f);
	label_value(f, git);
	fprintf(f, "\",abi=\"%d\"} 1\n", CUBIC_ABI_VERSION);

	family(f, "up", "gauge",
	       "1 if the instance is registered in the kernel and of this cubicctl's ABI, else 0");
	for (int i = 0; i < n; i++)
		sample_u64(f, "up", in[i].name, NULL, NULL, in[i].up);

	family(f, "info", "gauge", "the instance's datapath and map ABI (always 1)");
	for (int i = 0; i < n; i++) {
		char abi[16];

		if (!in[i].up)
			continue;
		snprintf(abi, sizeof(abi), "%u", in[i].abi_version);
		sample_start(f, "info", in[i].name, "datapath", in[i].datapath);
		fputs(",abi=\"", f);
		label_value(f, abi);
		fputs("\"} 1\n", f);
	}

	family(f, "sockets", "gauge", "sockets using the instance (flows initialised minus released)");
	for (int i = 0; i < n; i++)
		if (in[i].up)
			sample_u64(f, "sockets", in[i].name, NULL, NULL,
				   counters_sockets(&in[i].counters));

	/* the counters that are not per exit reason, each a family of its own */
	for (int c = 0; c < CUBIC_CNT_MAX; c++) {
		if (is_reason_counter(c))
			continue;
		snprintf(metric, sizeof(metric), "%s_total", counter_keys[c]);
		family(f, metric, "counter", counter_help[c]);
		for (int i = 0; i < n; i++)
			if (in[i].up)
				sample_u64(f, metric, in[i].name, NULL, NULL,
					   in[i].counters.c[c]);
	}

	/* the exit reasons: counts, and the sums of cwnd at them */
	family(f, "exits_total", "counter",
	       "slow-start exits and HyStart++ phase changes, by reason (cubicctl trace --help)");
	for (int i = 0; i < n; i++)
		for (int r = 0; in[i].up && r < EXIT_REASON_COUNT; r++)
			sample_u64(f, "exits_total", in[i].name, "reason", exit_reasons[r].name,
				   in[i].counters.c[exit_reasons[r].counter]);
	family(f, "exit_cwnd_packets_total", "counter",
	       "sum of cwnd (packets) at those exits: divided by bpf_cubic_exits_total, the mean");
	for (int i = 0; i < n; i++)
		for (int r = 0; in[i].up && r < EXIT_REASON_COUNT; r++)
			if (exit_reasons[r].cwnd_counter >= 0)
				sample_u64(f, "exit_cwnd_packets_total", in[i].name, "reason",
					   exit_reasons[r].name,
					   in[i].counters.c[exit_reasons[r].cwnd_counter]);

	/* a real histogram (cumulative _bucket, _sum, _count), for histogram_quantile() */
	family(f, "exit_ratio", "histogram",
	       "exit cwnd / the path's BDP measured after the exit (cubicctl trace's verdict), by "
	       "exit reason");
	for (int i = 0; i < n; i++) {
		for (int r = 0; in[i].up && r < EXIT_REASON_COUNT; r++) {
			const __u64 *h = in[i].counters.ratio[r];
			unsigned long long cum = 0;

			if (!exit_reasons[r].ends)
				continue;
			for (int k = 0; k < CUBIC_RATIO_SLOTS; k++) {
				cum += h[k];
				sample_start(f, "exit_ratio_bucket", in[i].name, "reason",
					     exit_reasons[r].name);
				fprintf(f, ",le=\"%s\"} %llu\n", ratio_le_label[k], cum);
			}
			sample_start(f, "exit_ratio_sum", in[i].name, "reason", exit_reasons[r].name);
			fprintf(f, "} %.3f\n", h[CUBIC_RATIO_SUM] / 1000.0);
			sample_u64(f, "exit_ratio_count", in[i].name, "reason", exit_reasons[r].name,
				   cum);
		}
	}

	family(f, "tunable", "gauge", "the tunables in force (cubicctl help), by key");
	for (int i = 0; i < n; i++)
		for (int t = 0; in[i].up && t < CUBIC_TUN_COUNT; t++)
			sample_u64(f, "tunable", in[i].name, "key", tun_table[t].name,
				   tun_get(&in[i].tunables, t));
}
