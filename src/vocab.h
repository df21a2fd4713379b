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

#endif /* CUBICCTL_VOCAB_H */
