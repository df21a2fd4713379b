// SPDX-License-Identifier: GPL-2.0
/*
 * replay: a flow's slow-start ACKs, as a tcp_probe trace recorded them, fed
 * to PREDICT's core (include/predict_core.h, the source the BPF program
 * runs) on the host: what it would have judged each round, and what it
 * would have decided. tools/eval/replay.py turns a kept probe
 * (run.sh --keep-probes) into this program's input and prints its table.
 *
 * usage: replay [--mss BYTES] [KEY=VALUE...] < ACKS
 *   KEY: predict_skip predict_min_train_us predict_tolerance predict_margin
 *        predict_rounds predict_pace predict_jump hystart_ack_delta_us
 *        (the tunables of cubicctl set; defaults as cubicctl's)
 *   ACKS: one line per ACK, "t_us snd_una snd_nxt cwnd acked inflight
 *        delay_min_us": its time, snd_una after it, snd_nxt before what it
 *        releases, cwnd (packets), packets it acknowledged, packets in
 *        flight after it, the least RTT so far (0: none)
 *
 * Prints one JSON object per round that ended ({"round", "cwnd", "points",
 * "train_us", "bytes", "line", "rate", "mean", "covered", "gaps", "status":
 * "believed", "refused", or "short": too short to judge, not counted) and a
 * last one, {"decision": "target"|"exit"|"give_up"|
 * "none", "round", "rate", "target"}. The flow recorded was not paced by
 * PREDICT: with predict_pace on (the default) PREDICT judges the first
 * round long enough and no other, so the rounds after it do not matter.
 *
 * Exit codes: 0 ok, 2 bad usage or input.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "predict_core.h"

static int parse_u32(const char *s, __u32 *v)
{
	char *end;
	unsigned long x;

	if (!*s || *s == '-')
		return -1;
	x = strtoul(s, &end, 10);
	if (*end || x > 0xffffffffUL)
		return -1;
	*v = (__u32)x;
	return 0;
}

static int set_key(struct predict_params *p, const char *kv)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "predict_skip", offsetof(struct predict_params, skip) },
		{ "predict_min_train_us", offsetof(struct predict_params, min_train_us) },
		{ "predict_tolerance", offsetof(struct predict_params, tolerance) },
		{ "predict_margin", offsetof(struct predict_params, margin) },
		{ "predict_rounds", offsetof(struct predict_params, rounds) },
		{ "predict_pace", offsetof(struct predict_params, pace) },
		{ "predict_jump", offsetof(struct predict_params, jump) },
		{ "hystart_ack_delta_us", offsetof(struct predict_params, gap_us) },
	};
	const char *eq = strchr(kv, '=');

	for (size_t i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == (size_t)(eq - kv) && !strncmp(kv, keys[i].key, eq - kv))
			return parse_u32(eq + 1, (__u32 *)((char *)p + keys[i].off));
	return -1;
}

int main(int argc, char **argv)
{
	struct predict_params p = {
		.skip = PREDICT_DEF_SKIP, .min_train_us = PREDICT_DEF_MIN_TRAIN,
		.tolerance = PREDICT_DEF_TOLERANCE, .margin = PREDICT_DEF_MARGIN,
		.rounds = PREDICT_DEF_ROUNDS, .gap_us = PREDICT_DEF_GAP, .pace = 1,
		.jump = PREDICT_DEF_JUMP,
	};
	struct predict_state s;
	struct predict_verdict v;
	__u32 mss = 1448, judged = 0, shorts = 0, f[7];
	const char *decision = "none";
	char line[256];
	int i, lineno = 0, believed;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mss") && i + 1 < argc) {
			if (parse_u32(argv[++i], &mss) || !mss) {
				fprintf(stderr, "replay: --mss wants a positive number of bytes, not '%s'\n", argv[i]);
				return 2;
			}
		} else if (set_key(&p, argv[i])) {
			fprintf(stderr, "replay: '%s' is not KEY=VALUE of a PREDICT tunable (usage: replay [--mss BYTES] [KEY=VALUE...] < ACKS)\n",
				argv[i]);
			return 2;
		}
	}
	predict_params_clamp(&p);
	predict_reset(&s);
	while (fgets(line, sizeof(line), stdin)) {
		struct predict_ack a;
		__u32 round = s.rounds; /* the round this ACK may end */
		__u8 act;

		lineno++;
		if (sscanf(line, "%u %u %u %u %u %u %u", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]) != 7) {
			fprintf(stderr, "replay: line %d: want 7 numbers (t_us snd_una snd_nxt cwnd acked inflight delay_min_us)\n",
				lineno);
			return 2;
		}
		a = (struct predict_ack){ .now_us = f[0], .snd_una = f[1], .snd_nxt = f[2], .cwnd = f[3],
					  .acked = f[4], .inflight = f[5], .mss = mss, .delay_min = f[6] };
		act = predict_on_ack(&s, &p, &a, &v);
		/*
		 * A round ended on this ACK: believed (an estimate came), refused
		 * (the failures grew) or too short to judge (it does not count)
		 */
		if (act == PREDICT_ACT_TARGET || act == PREDICT_ACT_EXIT || s.failed > judged ||
		    s.short_rounds > shorts) {
			const char *status = s.failed > judged ? "refused" : s.short_rounds > shorts ? "short" : "believed";

			judged = s.failed;
			shorts = s.short_rounds;
			printf("{\"round\": %u, \"cwnd\": %u, \"points\": %u, \"train_us\": %u, \"bytes\": %u, "
			       "\"line\": %u, \"rate\": %llu, \"mean\": %llu, \"covered\": %u, \"gaps\": %u, "
			       "\"status\": \"%s\"}\n",
			       round, a.cwnd, s.v.train_acks, s.v.train_us, s.v.train_bytes, s.v.line,
			       (unsigned long long)s.v.rate, (unsigned long long)s.v.mean_rate, s.v.covered,
			       s.v.gaps, status);
		}
		if (act == PREDICT_ACT_TARGET || act == PREDICT_ACT_EXIT || act == PREDICT_ACT_GIVE_UP) {
			decision = act == PREDICT_ACT_TARGET ? "target" : act == PREDICT_ACT_EXIT ? "exit" : "give_up";
			break;
		}
	}
	/* an estimate only with a target: otherwise s.v is the last train refused */
	believed = !strcmp(decision, "target") || !strcmp(decision, "exit");
	printf("{\"decision\": \"%s\", \"round\": %u, \"rate\": %llu, \"target\": %u}\n", decision,
	       believed ? s.v.round : 0, (unsigned long long)(believed ? s.v.rate : 0), believed ? s.v.target : 0);
	return 0;
}
