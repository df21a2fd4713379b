/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slow-start rules: one row each. The BPF program dispatches every rule
 * hook through this table (bpf/rule_<glue>.bpf.h), and cubicctl describes
 * each rule from it (name, aliases, preset, help, status and trace words).
 *
 * X(ENUM, value, name, glue, aliases, storage, fast_cc_args, help, presets...)
 *   ENUM   CUBIC_HYSTART_<ENUM>, the value of the "hystart" tunable
 *   value  that value (ABI: never renumber a row)
 *   name   (a string) the word users type and read (hystart=NAME, status, trace)
 *   glue   the C prefix of the rule's hooks in bpf/rule_<glue>.bpf.h
 *   ...    user-side columns (src/vocab.c); a consumer that does not need
 *          them takes them as `...`, so adding a column breaks no consumer:
 *   aliases       other words hystart=WORD takes for it, space-separated
 *   storage       what counts the flows that had no socket storage for the
 *                 rule (Linux HyStart decided for them): X names the counter
 *                 CUBIC_CNT_<X> (status's "NAME" line) and the record flag
 *                 CUBIC_EV_<X> (trace's "NAME-no-storage" word); NONE: the
 *                 rule keeps no socket storage
 *   fast_cc_args  the arguments tcp_congestion_ops.cong_control must have
 *                 for the rule to run on the fast datapath (0: any); the
 *                 ops maps' own counts are CUBIC_OPS_MAPS' third column
 *   help          one line: what ends slow start (help, status)
 *   presets       CUBIC_PRESET(name, "KEY=VALUE ...", help) each: a preset
 *                 is the defaults with hystart=<this rule>, then those values
 *
 * Adding a rule: its core (include/<glue>_core.h), its glue file
 * (bpf/rule_<glue>.bpf.h) and one row here.
 */
#ifndef CUBIC_RULES_H
#define CUBIC_RULES_H

#define CUBIC_RULES(X)                                                                              \
	X(OFF, 0, "off", off, "none", NONE, 0, "none: slow start ends on loss",                        \
	  CUBIC_PRESET("off", "", "no HyStart: slow start ends on loss"))                            \
	X(LINUX, 1, "linux", hystart, "hystart", NONE, 0,                                              \
	  "Linux HyStart: the ACK train or the delay test, as tcp_cubic",                             \
	  CUBIC_PRESET("linux", "", "today's Linux tcp_cubic (the defaults)")                        \
	  CUBIC_PRESET("nussbaum-2011",                                                              \
		       "ack_train_shift=2 delay_thresh_shift=0 delay_thresh_min_us=0 "                 \
		       "delay_thresh_max_us=1000000000",                                               \
		       "the 2011 patch: ACK train past 2 x delay_min, delay test past 2 x delay_min, " \
		       "no clamp"))                                                                    \
	X(PP, 2, "hystart++", hspp, "hspp", NONE, 0,                                                  \
	  "HyStart++ (RFC 9406): the delay test, then Conservative Slow Start",                       \
	  CUBIC_PRESET("hystart++", "", "HyStart++ (RFC 9406) with the RFC's constants"))           \
	X(SEARCH, 3, "search", search, "", SEARCH_NO_STORAGE, 0,                                      \
	  "SEARCH: delivery falls behind what was sent one RTT earlier",                              \
	  CUBIC_PRESET("search", "", "SEARCH (draft-chung-ccwg-search-09) with the draft's constants")) \
	X(PREDICT, 4, "predict", predict, "", PREDICT_NO_STORAGE, 4,                                  \
	  "PREDICT: cwnd reaches the BDP the first rounds' ACK dispersion predicts",                  \
	  CUBIC_PRESET("predict", "",                                                                \
		       "PREDICT: the BDP from the first rounds' ACK dispersion, then a paced slow start " \
		       "to it")                                                                        \
	  CUBIC_PRESET("predict-jump", "predict_jump=500",                                           \
		       "PREDICT with Careful Resume's jump: cwnd to half the estimate at once, paced"))

/* Values of the "hystart" tunable. */
enum cubic_hystart_mode {
#define CUBIC_X_RULE_ENUM(ENUM, value, ...) CUBIC_HYSTART_##ENUM = (value),
	CUBIC_RULES(CUBIC_X_RULE_ENUM)
#undef CUBIC_X_RULE_ENUM
};

#endif /* CUBIC_RULES_H */
