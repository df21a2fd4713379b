/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slow-start rules: one row each. The BPF program dispatches every rule
 * hook through this table (bpf/rule_<glue>.bpf.h), and cubicctl describes
 * each rule from it (name, aliases, preset, help, status and trace words).
 *
 * X(ENUM, value, name, glue, ...)
 *   ENUM   CUBIC_HYSTART_<ENUM>, the value of the "hystart" tunable
 *   value  that value (ABI: never renumber a row)
 *   name   (a string) the word users type and read (hystart=NAME, status, trace)
 *   glue   the C prefix of the rule's hooks in bpf/rule_<glue>.bpf.h
 *   ...    user-side columns (src/); a consumer that does not need them
 *          takes them as `...`, so adding a column breaks no consumer.
 *
 * Adding a rule: its core (include/<glue>_core.h), its glue file
 * (bpf/rule_<glue>.bpf.h) and one row here.
 */
#ifndef CUBIC_RULES_H
#define CUBIC_RULES_H

#define CUBIC_RULES(X)                                                                              \
	X(OFF, 0, "off", off)                                                                          \
	X(LINUX, 1, "linux", hystart)                                                                  \
	X(PP, 2, "hystart++", hspp)                                                                    \
	X(SEARCH, 3, "search", search)                                                                 \
	X(PREDICT, 4, "predict", predict)

/* Values of the "hystart" tunable. */
enum cubic_hystart_mode {
#define CUBIC_X_RULE_ENUM(ENUM, value, ...) CUBIC_HYSTART_##ENUM = (value),
	CUBIC_RULES(CUBIC_X_RULE_ENUM)
#undef CUBIC_X_RULE_ENUM
};

#endif /* CUBIC_RULES_H */
