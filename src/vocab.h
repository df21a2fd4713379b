/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared vocabulary of include/cubic_abi.h for user space: the exit
 * reasons, the counters' keys and the datapaths, as tables made from the
 * X-macros there. Pure: no libbpf, no I/O but a JSON writer, so the unit tests
 * link it directly.
 */
#ifndef CUBICCTL_VOCAB_H
#define CUBICCTL_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include "cubic_abi.h"
#include "json.h"

/* The status lines the exit reasons are counted on (their "line" column). */
enum exit_line {
	EXIT_LINE_EXITS,
	EXIT_LINE_HSPP,
	EXIT_LINE_COUNT,
};

struct exit_line_desc {
	const char *label;	 /* status's line label */
	const char *help_prefix; /* before its reasons in trace's help */
	int mode;		 /* the "hystart" mode that shows it at zero counts; -1: all */
};

extern const struct exit_line_desc exit_lines[EXIT_LINE_COUNT];

enum exit_reason_id {
#define CUBIC_X_ID(ID, ...) EXIT_REASON_##ID,
	CUBIC_EXIT_REASONS(CUBIC_X_ID)
#undef CUBIC_X_ID
	EXIT_REASON_COUNT
};

struct exit_reason {
	const char *name; /* trace's word and JSON boolean, status's word */
	__u32 bit;	  /* CUBIC_EV_* */
	int counter;	  /* CUBIC_CNT_EXIT_* */
	int cwnd_counter; /* the sum of cwnd at those exits, or -1 */
	const char *key;  /* status's JSON key of the count */
	enum exit_line line;
	bool ends; /* slow start is over */
	const char *abbrev;
	const char *help;
};

extern const struct exit_reason exit_reasons[EXIT_REASON_COUNT];

/* Status's JSON key of each counter, in map order. */
extern const char *const counter_keys[CUBIC_CNT_MAX];
/* What each counter counts, one phrase. */
extern const char *const counter_help[CUBIC_CNT_MAX];

/* Sockets using an instance: flows initialised minus flows released. */
static inline __u64 counters_sockets(const struct cubic_counters *c)
{
	__u64 init = c->c[CUBIC_CNT_FLOW_INIT], rel = c->c[CUBIC_CNT_FLOW_RELEASE];

	return init > rel ? init - rel : 0;
}

/*
 * The exit-ratio histogram (CUBIC_RATIO_BUCKETS): each slot's upper bound,
 * per mille (0 for the last, +Inf) and as Prometheus's le label.
 */
extern const __u32 ratio_le_pm[CUBIC_RATIO_SLOTS];
extern const char *const ratio_le_label[CUBIC_RATIO_SLOTS];
/* The verdict's words and ends (CUBIC_VERDICT_WORDS, _ENDS); "?" out of range. */
const char *verdict_word_str(__u8 word);
const char *verdict_end_str(__u8 end);

/* The policer record's kind (CUBIC_POL_KINDS; "?" out of range) and actions: "stored+lowered" ("" if none). */
const char *pol_kind_str(__u8 kind);
const char *pol_acts_str(__u8 acts, char *buf, size_t len);

/* The reasons in flags as trace shows them: "ack_train+delay" ("" if none). */
const char *reason_str(__u32 flags, char *buf, size_t len);
/* The reasons for a help text: "ack_train, delay, loss; HyStart++: css_enter, ...". */
const char *reasons_help(char *buf, size_t len);
/* The reasons, counters and datapaths as one JSON object, for tools/. */
void vocab_json(struct json *j);

/* How the kernel calls an instance on each ACK (CUBIC_DATAPATHS). */
enum datapath {
#define CUBIC_X_DP(ID, ...) DATAPATH_##ID,
	CUBIC_DATAPATHS(CUBIC_X_DP)
#undef CUBIC_X_DP
	DATAPATH_COUNT,
};

struct datapath_desc {
	const char *name; /* --datapath NAME */
};

extern const struct datapath_desc datapaths[DATAPATH_COUNT];

/* The struct_ops maps of the datapaths (CUBIC_OPS_MAPS), in table order. */
enum ops_map {
#define CUBIC_X_OM(dp, ops, ...) OPS_MAP_##ops,
	CUBIC_OPS_MAPS(CUBIC_X_OM)
#undef CUBIC_X_OM
	OPS_MAP_COUNT,
};

struct ops_map_desc {
	enum datapath dp;
	const char *name;  /* the struct_ops map in bpf/bpf_cubic.bpf.c */
	int cc_args;	   /* cong_control's arguments on the kernels it is for; 0: any kernel */
	const char *progs; /* the programs not every map uses: "a, b, c" */
};

extern const struct ops_map_desc ops_maps[OPS_MAP_COUNT];

const char *datapath_str(enum datapath dp);
/* A datapath's name to enum datapath, -1 for anything else. */
int datapath_parse(const char *s);
/* An ops map name to its enum datapath, -1 if not ours. */
int datapath_of_map(const char *map_name);
/* The datapaths' names joined by sep: "exact, fast". */
const char *datapath_names(const char *sep, char *buf, size_t len);
/*
 * The ops map of datapath dp for a kernel whose tcp_congestion_ops.cong_control
 * takes cc_args arguments (-1: unknown); -1 if dp has none for it.
 */
int ops_map_for(enum datapath dp, int cc_args);
/*
 * The next program in a map's list: copies it to buf and moves *p past it;
 * false at the end. Start with *p = ops_maps[map].progs.
 */
bool datapath_next_prog(const char **p, char *buf, size_t len);
/* Whether ops map map lists program prog. */
bool ops_map_uses(enum ops_map map, const char *prog);

/*
 * The slow-start rules of include/cubic_rules.h (CUBIC_RULES), in table
 * order, and their presets.
 */
#define CUBIC_CNT_NONE (-1) /* the storage column's NONE */
#define CUBIC_EV_NONE  0

enum rule_id {
#define CUBIC_X_RULE_ID(ENUM, ...) RULE_##ENUM,
	CUBIC_RULES(CUBIC_X_RULE_ID)
#undef CUBIC_X_RULE_ID
	RULE_COUNT,
};

struct rule_preset {
	const char *name;   /* --preset NAME, preset=NAME */
	const char *values; /* "KEY=VALUE ..." on top of the defaults and hystart=<rule> */
	const char *help;
};

struct rule_desc {
	const char *name;	     /* hystart=NAME, status's rule, trace's words */
	__u32 value;		     /* the "hystart" tunable */
	const char *aliases;	     /* other words for it, space-separated */
	int storage_counter;	     /* CUBIC_CNT_* of flows without socket storage, or -1 */
	__u32 storage_flag;	     /* CUBIC_EV_* of a record of such a flow, or 0 */
	int fast_cc_args;	     /* cong_control's arguments it needs on the fast datapath; 0: any */
	const char *help;
	const struct rule_preset *presets; /* ends with a NULL name */
};

extern const struct rule_desc rules[RULE_COUNT];

/* The rule whose "hystart" value is v, or NULL. */
const struct rule_desc *rule_of(__u32 v);
/* The rule named word (its name or an alias), or NULL. */
const struct rule_desc *rule_parse(const char *word);

/* Walks every preset of every rule: for (p = NULL; (p = preset_next(p, &r));) */
const struct rule_preset *preset_next(const struct rule_preset *p, const struct rule_desc **rule);
/* The preset named name (and its rule), or NULL. */
const struct rule_preset *preset_find(const char *name, const struct rule_desc **rule);
/* The presets' names joined by sep: "off, linux, ...". */
const char *preset_names(const char *sep, char *buf, size_t len);

/*
 * Whether rule r runs on ops map m: its fast_cc_args against the map's
 * cong_control arguments. The one place that knows "before Linux 6.10".
 */
bool rule_runs_on(const struct rule_desc *r, int ops_map);
/*
 * The sentence that refuses rule r on ops map m: "hystart=predict needs Linux
 * 6.10 or later on the fast datapath (...)".
 */
const char *rule_refusal(const struct rule_desc *r, int ops_map, char *buf, size_t len);
/*
 * Whether the BPF program keeps its own tp->snd_cwnd_stamp on ops map m:
 * before Linux 6.10 (.cong_control(sk, rs)) BPF may not write it.
 */
bool ops_map_own_cwnd_stamp(int ops_map);
/* The prototypes of cong_control the datapaths know: "(sk, rs) (Linux 4.9 up to 6.10) and ...". */
const char *cc_protos_str(char *buf, size_t len);

#endif /* CUBICCTL_VOCAB_H */
