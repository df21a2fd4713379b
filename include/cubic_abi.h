/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything the BPF program and cubicctl must agree on: names, pin paths,
 * counter indices, flag bits, the tunables map value. Fixed-width types only.
 */
#ifndef CUBIC_ABI_H
#define CUBIC_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Bumped when a map layout below changes; cubicctl refuses a mismatch. */
#define CUBIC_ABI_VERSION 10

/* The congestion-control name registered by a plain `cubicctl load`. */
#define CUBIC_DEFAULT_NAME "bpf_cubic"
/* TCP_CA_NAME_MAX in the kernel, including the NUL. */
#define CUBIC_NAME_MAX 16

/* Each instance keeps its maps pinned under CUBIC_PIN_ROOT/NAME/. */
#define CUBIC_PIN_ROOT	   "/sys/fs/bpf/cubicctl"
#define CUBIC_PIN_OPS	   "ops"      /* the struct_ops map: registration lives here */
#define CUBIC_PIN_TUNABLES "tunables" /* array[1] of struct cubic_tunables */
#define CUBIC_PIN_COUNTERS "counters" /* percpu array[1] of struct cubic_counters */
#define CUBIC_PIN_INFO	   "info"     /* array[1] of struct cubic_info */
#define CUBIC_PIN_EVENTS   "events"   /* ring buffer of struct cubic_event */
/*
 * The struct_ops link (Linux 6.4+): the registration lives here, and ends when
 * the link's last holder lets go of it; the link's map is the ops pin's.
 * Without it (Linux 6.1, or an instance loaded in map mode) the ops map's own
 * element is the registration.
 */
#define CUBIC_PIN_LINK "link"

/* Default size of the events ring, bytes (a power of 2, at least a page). */
#define CUBIC_RING_DEFAULT (256 * 1024)

/* HyStart detector bits: the "hystart_detect" tunable and the exit flags. */
#define CUBIC_HYSTART_ACK_TRAIN 0x1
#define CUBIC_HYSTART_DELAY	0x2

/* Values of the "hystart" tunable: the rules table. */
#include "cubic_rules.h"

/*
 * The exit reasons: why a record was written, and what the exit counters
 * count. One line per reason; everything else derives from this table: the
 * CUBIC_EV_* bits, the counters (and their place in the map), the BPF program's
 * count_exit(), trace's reason words and JSON booleans, status's text lines and
 * JSON keys, and `cubicctl help --reasons-json` for tools/.
 *
 * X(ID, name, bit, sum, key, line, ends, abbrev, help)
 *   ID      CUBIC_EV_<ID> (its bit) and CUBIC_CNT_EXIT_<ID> (its counter)
 *   name    trace's reason word and JSON boolean, status's word
 *   bit     its bit in cubic_event.flags (within CUBIC_EV_REASONS: ABI)
 *   sum     CWND: also a counter CUBIC_CNT_EXIT_<ID>_CWND, the sum of cwnd at
 *           those exits (status: mean cwnd, JSON "<key>_cwnd_sum"); NO_CWND: none
 *   key     status's JSON key for the count
 *   line    the status line it is counted on: EXITS or HSPP ("hystart++")
 *   ends    1 if slow start is over after it (0: a HyStart++ phase change)
 *   abbrev  one letter, for reports
 *
 * ACK_TRAIN and DELAY share the "hystart_detect" bits. The ACK train and delay
 * counters are Linux's TcpExtTCPHystart{Train,Delay}{Detect,Cwnd}.
 */
#define CUBIC_EXIT_REASONS(X)                                                                      \
	X(ACK_TRAIN, ack_train, CUBIC_HYSTART_ACK_TRAIN, CWND, "exit_ack_train", EXITS, 1, "T",   \
	  "HyStart's ACK train fired")                                                             \
	X(DELAY, delay, CUBIC_HYSTART_DELAY, CWND, "exit_delay", EXITS, 1, "D",                    \
	  "HyStart's delay test fired")                                                            \
	X(LOSS, loss, 0x0004, CWND, "exit_loss", EXITS, 1, "L",                                    \
	  "slow start ended by loss, RTO or ECN before HyStart")                                   \
	X(CSS_ENTER, css_enter, 0x0008, NO_CWND, "css_enter", HSPP, 0, "E",                        \
	  "HyStart++: slow start -> Conservative Slow Start")                                      \
	X(CSS_RESUME, css_resume, 0x0010, NO_CWND, "css_resume", HSPP, 0, "R",                     \
	  "HyStart++: RTT fell below the baseline: back to slow start")                            \
	X(CSS_EXIT, css_exit, 0x0020, CWND, "css_exit", HSPP, 1, "C",                              \
	  "HyStart++: CSS_ROUNDS done: congestion avoidance")                                      \
	X(SEARCH, search, 0x0040, CWND, "exit_search", EXITS, 1, "S",                              \
	  "SEARCH: delivery fell behind what was sent one RTT earlier")                           \
	X(PREDICT, predict, 0x0080, CWND, "exit_predict", EXITS, 1, "P",                           \
	  "PREDICT: cwnd reached the BDP the first rounds' ACK dispersion predicted")

/*
 * The sum column: CUBIC_IF_CWND(sum, tokens) is tokens for CWND, nothing for
 * NO_CWND; CUBIC_CWND_OR(sum, a, b) is a for CWND, b for NO_CWND.
 */
#define CUBIC_IF_CWND(sum, ...)		    CUBIC_IF_CWND_##sum(__VA_ARGS__)
#define CUBIC_IF_CWND_CWND(...)		    __VA_ARGS__
#define CUBIC_IF_CWND_NO_CWND(...)
#define CUBIC_CWND_OR(sum, a, b)	    CUBIC_CWND_OR_##sum(a, b)
#define CUBIC_CWND_OR_CWND(a, b)	    a
#define CUBIC_CWND_OR_NO_CWND(a, b)	    b

/* cubic_event.flags: why the record was written (one or more) ... */
enum {
#define CUBIC_X_EV_BIT(ID, name, bit, ...) CUBIC_EV_##ID = (bit),
	CUBIC_EXIT_REASONS(CUBIC_X_EV_BIT)
#undef CUBIC_X_EV_BIT
};
#define CUBIC_EV_REASONS 0x00ff
/* ... and the flow's context */
#define CUBIC_EV_CWND_LIMITED 0x0100 /* tcp_sock.is_cwnd_limited */
#define CUBIC_EV_RWND_LIMITED 0x0200 /* the peer's window (snd_wnd) is below cwnd x mss */
#define CUBIC_EV_PACED	      0x0400 /* sk_pacing_status != SK_PACING_NONE */
#define CUBIC_EV_INITIAL      0x0800 /* the flow's first slow start (ssthresh was unset) */
/* hystart=search, but the flow has no socket storage for SEARCH: Linux HyStart decided */
#define CUBIC_EV_SEARCH_NO_STORAGE 0x1000
/* hystart=predict: the flow ran PREDICT (the record's predict_* fields are its) */
#define CUBIC_EV_PREDICT_RAN 0x2000
/* PREDICT turned the kernel's pacing on for this flow (sk_pacing_status was NONE) */
#define CUBIC_EV_PREDICT_PACED 0x8000
/* PREDICT capped the fill's pacing rate at its estimate (SO_MAX_PACING_RATE) */
#define CUBIC_EV_PREDICT_CAPPED 0x10000
/* hystart=predict, but the flow has no socket storage for it: Linux HyStart decided */
#define CUBIC_EV_PREDICT_NO_STORAGE 0x4000
/* a policer met here after a jump, its rate unmeasured: PREDICT did not jump (predict_polmem_no_jump()) */
#define CUBIC_EV_PREDICT_NO_JUMP 0x20000
/* an earlier flow found this destination busy: PREDICT set no target, HyStart decided (predict_busy_applies()) */
#define CUBIC_EV_PREDICT_BUSY 0x40000
/* the train's fit and mean rate differed by 1-2 x predict_tolerance: predict_rate is the lower */
#define CUBIC_EV_PREDICT_DISAGREED 0x80000
/* delay_min rose above the handshake's RTT (predict_rose()): PREDICT set no target, HyStart decided */
#define CUBIC_EV_PREDICT_ROSE 0x100000

/* The reasons after which slow start is over. */
enum {
#define CUBIC_X_EV_ENDS(ID, name, bit, sum, key, line, ends, ...) | ((ends) ? (bit) : 0)
	CUBIC_EV_ENDS_SLOW_START = 0 CUBIC_EXIT_REASONS(CUBIC_X_EV_ENDS),
#undef CUBIC_X_EV_ENDS
};

/*
 * Per-CPU counters of one instance; cubicctl sums them over CPUs.
 * X(ID, key, help): CUBIC_CNT_<ID>, status's JSON key. REASONS is where the
 * exit reasons' counters sit, in their table's order. The order is the map's
 * layout: a new counter (or exit reason) bumps CUBIC_ABI_VERSION.
 */
#define CUBIC_COUNTERS(X, REASONS)                                                                 \
	X(FLOW_INIT, "flows_init", "flows that ran our init")                                      \
	X(FLOW_RELEASE, "flows_released", "flows released (closed or switched away)")              \
	REASONS                                                                                    \
	X(EVENTS, "records", "records written to the ring")                                        \
	X(EVENT_DROPS, "records_dropped", "records lost: the ring was full")                       \
	X(SEARCH_NO_STORAGE, "search_no_storage",                                                  \
	  "flows in hystart=search without socket storage (Linux HyStart instead)")              \
	X(PREDICT_NO_STORAGE, "predict_no_storage",                                                \
	  "flows in hystart=predict without socket storage (Linux HyStart instead)")             \
	X(REPAIRED, "repaired",                                                                    \
	  "impossible cwnd/ssthresh found and replaced (docs/IMPOSSIBLE_WINDOWS.md)")             \
	/* the exit verdicts by word, in CUBIC_VERDICT_WORDS' order */                             \
	X(VERDICT_UNKNOWN, "verdicts_unknown", "exit verdicts: unknown (no sample, or only a bound)") \
	X(VERDICT_PREMATURE, "verdicts_premature", "exit verdicts: premature (below premature_ratio)") \
	X(VERDICT_OK, "verdicts_ok", "exit verdicts: ok")                                          \
	X(VERDICT_OVERSHOOT, "verdicts_overshoot", "exit verdicts: overshoot (the buffer was full)")

enum cubic_counter {
#define CUBIC_X_CNT(ID, key, help) CUBIC_CNT_##ID,
#define CUBIC_X_EXIT_CNT(ID, name, bit, sum, ...)                                                  \
	CUBIC_CNT_EXIT_##ID, CUBIC_IF_CWND(sum, CUBIC_CNT_EXIT_##ID##_CWND, )
	CUBIC_COUNTERS(CUBIC_X_CNT, CUBIC_EXIT_REASONS(CUBIC_X_EXIT_CNT))
#undef CUBIC_X_CNT
#undef CUBIC_X_EXIT_CNT
	CUBIC_CNT_MAX
};

/*
 * The exit verdict (issue 21: include/verdict_core.h measures, bpf/verdict.bpf.h
 * glues). Its words and why a measurement ended, X(ID, name), in the core's
 * enum order (VERDICT_<ID>, VERDICT_END_<ID>).
 */
#include "verdict_core.h"

#define CUBIC_VERDICT_WORDS(X)                                                                     \
	X(UNKNOWN, "unknown") X(PREMATURE, "premature") X(OK, "ok") X(OVERSHOOT, "overshoot")
#define CUBIC_VERDICT_ENDS(X)                                                                      \
	X(NONE, "none") X(CONGESTION, "congestion") X(APP_LIMITED, "app_limited")                 \
	X(TIMEOUT, "timeout") X(CLOSED, "closed") X(NEXT_EXIT, "next_exit")
enum {
#define CUBIC_X_N(ID, name) +1
	CUBIC_VERDICT_WORD_COUNT = 0 CUBIC_VERDICT_WORDS(CUBIC_X_N),
	CUBIC_VERDICT_END_COUNT = 0 CUBIC_VERDICT_ENDS(CUBIC_X_N),
#undef CUBIC_X_N
};
_Static_assert(VERDICT_UNKNOWN == 0 && VERDICT_PREMATURE == 1 && VERDICT_OK == 2 &&
		       VERDICT_OVERSHOOT == 3 && CUBIC_VERDICT_WORD_COUNT == 4 &&
		       CUBIC_CNT_VERDICT_PREMATURE == CUBIC_CNT_VERDICT_UNKNOWN + VERDICT_PREMATURE &&
		       CUBIC_CNT_VERDICT_OK == CUBIC_CNT_VERDICT_UNKNOWN + VERDICT_OK &&
		       CUBIC_CNT_VERDICT_OVERSHOOT == CUBIC_CNT_VERDICT_UNKNOWN + VERDICT_OVERSHOOT,
	       "CUBIC_VERDICT_WORDS and the verdict counters follow enum verdict_word");
_Static_assert(VERDICT_END_NONE == 0 && VERDICT_END_CONGESTION == 1 &&
		       VERDICT_END_APP_LIMITED == 2 && VERDICT_END_TIMEOUT == 3 &&
		       VERDICT_END_CLOSED == 4 && VERDICT_END_NEXT_EXIT == 5 &&
		       CUBIC_VERDICT_END_COUNT == 6,
	       "CUBIC_VERDICT_ENDS follows enum verdict_end");

/*
 * The exit-ratio histogram, per exit reason (one row per CUBIC_EXIT_REASONS
 * row; only the reasons that end slow start are filled): X(le per mille,
 * Prometheus le label), the upper bounds, inclusive; a last slot above them
 * (+Inf), then the sum of the ratios (per mille). Not cumulative in the map.
 */
#define CUBIC_RATIO_BUCKETS(X)                                                                     \
	X(250, "0.25") X(500, "0.5") X(800, "0.8") X(1000, "1") X(1250, "1.25") X(2000, "2")     \
	X(4000, "4")
enum {
#define CUBIC_X_N(le, label) +1
	CUBIC_RATIO_SLOTS = 1 CUBIC_RATIO_BUCKETS(CUBIC_X_N), /* the buckets and +Inf */
#undef CUBIC_X_N
	CUBIC_RATIO_SUM = CUBIC_RATIO_SLOTS,
	CUBIC_RATIO_WIDTH,
};
enum {
#define CUBIC_X_RATIO_ROW(ID, ...) CUBIC_RATIO_##ID,
	CUBIC_EXIT_REASONS(CUBIC_X_RATIO_ROW)
#undef CUBIC_X_RATIO_ROW
	CUBIC_RATIO_ROWS
};

struct cubic_counters {
	__u64 c[CUBIC_CNT_MAX];
	__u64 ratio[CUBIC_RATIO_ROWS][CUBIC_RATIO_WIDTH]; /* the exit-ratio histogram */
};

/*
 * The verdict record, in the events ring beside struct cubic_event (told
 * apart by size): one per measured exit, written when its measurement ends;
 * flow_id is the exit record's.
 */
struct cubic_verdict {
	__u64 ts_ns;	   /* CLOCK_MONOTONIC, when the measurement ended */
	__u64 flow_id;	   /* the exit record's flow_id */
	__u64 exit_ts_ns;  /* the exit record's ts_ns */
	__u64 max_bw;	   /* bytes/s: the best delivery rate (bw_delivered x mss / interval) */
	__u32 exit_flags;  /* the exit record's CUBIC_EV_* */
	__u32 exit_cwnd;   /* packets */
	__u32 bdp_est;	   /* packets: max_bw x min_rtt; 0: unknown */
	__u32 ratio_pm;	   /* exit_cwnd / bdp_est, per mille; 0: unknown */
	__u32 min_rtt_us;
	__u32 bw_delivered; /* the best rate sample: packets ... */
	__u32 bw_interval_us; /* ... over this interval */
	__u32 cong_cwnd;    /* cwnd at the first congestion event after the exit (0: none) */
	__u32 cong_after_us; /* how long after the exit it came */
	__u32 samples;	    /* rate samples that counted */
	__u32 skipped;	    /* and those that did not (app- or rwnd-limited) */
	__u32 mss;
	__u16 rounds;	    /* rounds measured */
	__u16 family;
	__u16 sport;	    /* host order */
	__u16 dport;
	__u8 end;	    /* VERDICT_END_* */
	__u8 word;	    /* VERDICT_* */
	__u8 bound;	    /* bdp_est is a lower bound, the ratio an upper one (verdict_bound()) */
	__u8 pad;
	__u8 saddr[16];
	__u8 daddr[16];
	char instance[CUBIC_NAME_MAX];
};

/*
 * The policer record, in the events ring beside struct cubic_event and
 * struct cubic_verdict (told apart by size): PREDICT's policer answer
 * (hystart=predict, predict_policer=1) at a loss of the flow's first slow
 * start, or the first after PREDICT's exit, and what the recovery after it
 * measured and decided (docs/RULES.md, "The policer remembered"). One per
 * such recovery, written when it ends (or when an RTO ended it: nothing
 * measured); flow_id is the exit record's.
 *
 * kind: what the loss left for the recovery's end (CUBIC_POL_KIND_*).
 * actions: what was done, CUBIC_POL_ACT_* bits.
 */
#define CUBIC_POL_KINDS(X)                                                                         \
	X(ANSWER, "answer", "the answer set ssthresh at the loss")                                 \
	X(PENDING, "pending", "fewer than 4 marked lost: decided at the recovery's end")          \
	X(AFTER_EXIT, "after_exit", "after PREDICT's exit, fewer than 4 marked lost")              \
	X(RAISE, "raise", "a remembered rate, measured again (a raise)")                           \
	X(UNCLAIMED, "unclaimed", "after a jump and the exit, a loss with no queue not claimed")
enum {
#define CUBIC_X_ENUM(ID, name, help) CUBIC_POL_KIND_##ID,
	CUBIC_POL_KINDS(CUBIC_X_ENUM)
#undef CUBIC_X_ENUM
	CUBIC_POL_KIND_COUNT
};
#define CUBIC_POL_ACTS(X)                                                                          \
	X(STORED_AT_LOSS, 0x01, "stored_at_loss", "the loss's rate was remembered at the loss")     \
	X(STORED, 0x02, "stored", "a rate was remembered at the recovery's end (stored_rate)")      \
	X(NO_JUMP, 0x04, "no_jump", "the policer was remembered without a rate: no jump")           \
	X(FORGOT, 0x08, "forgot", "what was remembered was forgotten")                              \
	X(LOWERED, 0x10, "lowered", "ssthresh and cwnd went down to the measure's BDP")             \
	X(RTO, 0x20, "rto", "an RTO ended the recovery: nothing measured")
enum {
#define CUBIC_X_ENUM(ID, bit, name, help) CUBIC_POL_ACT_##ID = bit,
	CUBIC_POL_ACTS(CUBIC_X_ENUM)
#undef CUBIC_X_ENUM
};

struct cubic_policer {
	__u64 ts_ns;	     /* CLOCK_MONOTONIC, when the recovery ended */
	__u64 flow_id;	     /* the exit record's flow_id (0: the flow has none) */
	__u64 loss_rate;     /* bytes/s: the rate the answer went by at the loss */
	__u64 measure;	     /* bytes/s: what the recovery delivered over its length (0: none) */
	__u64 stored_rate;   /* bytes/s: the rate remembered at the recovery's end (0: none) */
	__u32 recovery_us;   /* the recovery's length */
	__u32 delivered;     /* packets delivered over it */
	__u32 lost;	     /* packets lost since the loss (those marked then included) */
	__u32 loss_cwnd;     /* cwnd at the loss */
	__u32 loss_rtt_us;   /* RACK's RTT at the loss: the last delivered packet's */
	__u32 delay_min_us;  /* the delay_min the decisions went by (the first loss's) */
	__u32 target;	     /* the ssthresh the answer set (0: none) */
	__u32 ssthresh;	     /* ssthresh after the recovery's decision */
	__u16 family;
	__u16 sport;	     /* host order */
	__u16 dport;
	__u8 kind;	     /* CUBIC_POL_KIND_* */
	__u8 actions;	     /* CUBIC_POL_ACT_* */
	__u8 bound;	     /* the policer bound the flow over the recovery */
	__u8 jumped;	     /* the flow jumped (predict_jump) */
	__u8 unbelieved;     /* no estimate was believed: the measure decided */
	__u8 pad[5];
	__u8 saddr[16];
	__u8 daddr[16];
	char instance[CUBIC_NAME_MAX];
};

/*
 * Written by cubicctl at load (build_id again at each upgrade); lets later
 * commands check the ABI.
 * abi_version stays the first field in every version: any cubicctl reads it
 * from byte 0 to know whether it may read the rest.
 */
struct cubic_info {
	__u32 abi_version;
	__u32 build_id; /* the build new flows run (its programs' build_id); cubicctl upgrade sets it */
	__u64 load_time_ns; /* CLOCK_REALTIME at load */
	char name[CUBIC_NAME_MAX];
};

/*
 * One record per slow-start exit, in the events ring: its fields, in the order
 * of trace's JSON output. One line per field drives the struct, trace's JSON
 * and the BPF program's fill.
 *
 * SECTION(name, show, src): SECTION places the field in the struct, which has
 * the sections in this order: U64, U32, U32_TAIL, U16, ADDR (__u8[16]), NAME
 * (char[CUBIC_NAME_MAX]); within one, in table order (the layout is the ABI).
 * VIEW is no field: a value trace derives, at that place in its output.
 *   show  how trace's JSON shows it (src/cmd_trace.c: JSON_<show>)
 *   src   for U64..U16, what emit_exit() in bpf/record.bpf.h stores (it
 *         fills ADDR and NAME itself), 0 for a rule's field, which the rule's
 *         record hook writes (rule_<glue>_fill() in bpf/rule_<glue>.bpf.h);
 *         for VIEW, what it is derived from
 */
#define CUBIC_EVENT_FIELDS(U64, U32, U32_TAIL, U16, ADDR, NAME, VIEW)                             \
	U64(ts_ns, TIME, ts_ns) /* CLOCK_MONOTONIC; JSON: "time", realtime s */                   \
	NAME(instance, STR, instance_name)                                                         \
	/* the build of the program that wrote it (cubicctl status and upgrade name it) */         \
	U32(build_id, BUILD, build_id)                                                             \
	U64(cookie, NUM, c->skc_cookie.counter) /* socket cookie; 0 if not made yet */            \
	U64(flow_id, NUM, flow_id) /* the instance's id of the flow (its verdict's); 0: none */   \
	U16(family, FAMILY, c->skc_family)	/* AF_INET or AF_INET6 */                          \
	ADDR(saddr, IP, c->skc_rcv_saddr)	/* IPv4 in the first 4 bytes */                    \
	U16(sport, NUM, c->skc_num)		/* host order */                                   \
	ADDR(daddr, IP, c->skc_daddr)                                                              \
	U16(dport, NUM, bpf_ntohs(c->skc_dport)) /* host order */                                  \
	VIEW(reason, REASON, flags)		  /* "ack_train+delay" */                          \
	VIEW(reasons, REASON_BOOLS, flags)	  /* one boolean per exit reason */                \
	U32(flags, NUM, flags)			  /* CUBIC_EV_* */                                 \
	U32(cwnd, NUM, tp->snd_cwnd)		  /* packets, at the exit */                       \
	U32(ssthresh, NUM, x->ssthresh)		  /* packets, as set by the exit */                \
	U32(delay_min_us, NUM, s->delay_min)                                                       \
	U32(round_min_rtt_us, NUM_OR_NULL, s->curr_rtt) /* this round's min RTT (~0: none yet) */ \
	U32(rtt_us, NUM, x->rtt_us) /* this ACK's RTT sample (0 for LOSS) */                       \
	VIEW(threshold_us, THRESHOLD, flags) /* the threshold the exit crossed */                  \
	VIEW(value_us, VALUE, flags)	     /* the value that crossed it */                       \
	U32(train_len_us, NUM, x->v.train_len) /* ACK train length, when the train fired */        \
	U32(train_thresh_us, NUM, x->v.train_thresh) /* the threshold it crossed */                \
	/* delay_min + clamp(...), when the delay test fired; HyStart++:                         \
	 * lastRoundMinRTT + RttThresh at CSS entry */                                             \
	U32(delay_thresh_us, NUM, x->v.rtt_thresh)                                                 \
	/* HyStart++: the previous round's minimum RTT */                                          \
	U32(last_round_min_rtt_us, NUM_OR_NULL, x->v.last_rtt)                                     \
	U32(css_baseline_us, NUM_OR_NULL, x->v.baseline) /* HyStart++: cssBaselineMinRtt */        \
	U32(css_rounds, NUM, x->v.css_rounds)		 /* HyStart++: CSS rounds so far */        \
	/* SEARCH (null in other records): the two windows compared at the detection, bytes */   \
	U32(search_delivered, SEARCH, 0)      /* delivered in the last W bins */                   \
	U32(search_sent, SEARCH, 0)           /* sent in the W bins one RTT earlier */             \
	U32(search_norm_diff, SEARCH, 0)      /* (sent - delivered) / sent, per mille */           \
	U32(search_thresh, SEARCH, 0)         /* the search_thresh it reached */                   \
	U32(search_bins, SEARCH, 0)           /* W */                                              \
	U32(search_bins_back, SEARCH, 0)      /* the lookback: rtt / bin */                        \
	U32(search_bin_us, SEARCH, 0)         /* BIN_DURATION */                                   \
	U32(search_initial_rtt_us, SEARCH, 0)                                                      \
	U32(search_cwnd_detect, SEARCH, 0)    /* cwnd at the detection */                          \
	/* the rollback target (0: none; cwnd is the cwnd after the rollback) */                  \
	U32(search_target, SEARCH, 0)                                                              \
	U32(search_drain_us, SEARCH, 0)       /* detection to exit (the drain) */                  \
	U32(search_resets, SEARCH, 0)         /* missed-bin restarts before it */                  \
	VIEW(search_no_storage, FLAG, CUBIC_EV_SEARCH_NO_STORAGE)                                  \
	/* PREDICT (null unless the flow ran it): the estimate and what it rested on */            \
	U64(predict_rate, PREDICT, 0)          /* bytes/s, the train's least-squares slope */      \
	U64(predict_mean_rate, PREDICT, 0)     /* bytes/s, its mean over its length */             \
	U32(predict_target, PREDICT, 0)        /* packets: rate x delay_min x margin */            \
	U32(predict_train_us, PREDICT, 0)      /* the train's length */                            \
	U32(predict_train_acks, PREDICT, 0)    /* its points (ACKs) */                             \
	U32(predict_train_bytes, PREDICT, 0)   /* bytes acked along it */                          \
	U32(predict_train_line, PREDICT, 0)    /* per mille: r^2 of its points (its error) */      \
	U32(predict_train_gaps, PREDICT, 0)    /* long ACK gaps it went on across (bunches) */     \
	U32(predict_round, PREDICT, 0)         /* the round it came from (1: IW's) */              \
	U32(predict_delay_min_us, PREDICT, 0)  /* the RTT of the BDP */                            \
	U32(predict_cwnd_set, PREDICT, 0)      /* cwnd when the target was set */                  \
	U32(predict_failed_rounds, PREDICT, 0) /* trains not accepted */                           \
	U32(predict_fill_us, PREDICT, 0)       /* target set to this record */                     \
	/* the jump (predict_jump): cwnd it went to (or was allowed to: from 0, not made) */       \
	U32(predict_jump, PREDICT, 0)                                                              \
	U32(predict_jump_from, PREDICT, 0)     /* cwnd before the jump (0: none made) */           \
	U32(predict_retreat, PREDICT, 0)       /* a loss or queue in the jump: ssthresh set */     \
	U32(predict_retreat_pipe, PREDICT, 0)  /* PipeSize then: cwnd at the jump + delivered */   \
	/* the least of 8 RTTs in a row above the delay threshold that ended the jump's fill */   \
	U32(predict_jump_rtt_us, PREDICT, 0)                                                       \
	/* predict_policer: what the first loss of the slow start saw, and the ssthresh it set */ \
	U64(predict_policer_rate, PREDICT, 0)  /* bytes/s, the last rate sample's delivery */      \
	U32(predict_policer_rtt_us, PREDICT, 0) /* the RTT of the last packet delivered */         \
	U32(predict_policer, PREDICT, 0)       /* its BDP: ssthresh (0: not a policer) */          \
	/* a policer this flow's destination met before: the rate that set its target (0: none) */ \
	U64(predict_policer_memory, PREDICT, 0) /* bytes/s */                                      \
	/* the jump's share check: the rate the jumped packets got, and the target it set */     \
	U64(predict_share_pace, PREDICT, 0)    /* bytes/s, the pacing rate they left at */         \
	U64(predict_share_rate, PREDICT, 0)    /* bytes/s (0: not measured) */                     \
	U32(predict_share, PREDICT, 0)         /* its BDP (0: the estimate stood) */               \
	U32(predict_syn_rtt_us, PREDICT, 0)    /* the handshake's RTT (0: unknown) */              \
	VIEW(predict_paced, FLAG, CUBIC_EV_PREDICT_PACED) /* PREDICT turned pacing on */          \
	VIEW(predict_capped, FLAG, CUBIC_EV_PREDICT_CAPPED) /* and capped it during the fill */     \
	VIEW(predict_no_storage, FLAG, CUBIC_EV_PREDICT_NO_STORAGE)                                \
	VIEW(predict_no_jump, FLAG, CUBIC_EV_PREDICT_NO_JUMP) /* a policer remembered held it */  \
	VIEW(predict_busy, FLAG, CUBIC_EV_PREDICT_BUSY) /* a busy path remembered: HyStart's */    \
	/* fit and mean disagreed (1-2 x the tolerance): predict_rate is the lower */              \
	VIEW(predict_disagreed, FLAG, CUBIC_EV_PREDICT_DISAGREED)                                  \
	/* delay_min rose above the handshake's RTT: the estimate set aside, HyStart's */          \
	VIEW(predict_rose, FLAG, CUBIC_EV_PREDICT_ROSE)                                            \
	U32(samples, NUM, s->sample_cnt)		 /* RTT samples in this round */           \
	U32(rounds, NUM, s->rounds)			 /* HyStart rounds since the flow began */ \
	U64(since_start_us, NUM, tp->tcp_mstamp - s->start_us) /* since the flow's init */        \
	U32(srtt_us, NUM, tp->srtt_us >> 3)                                                        \
	U32(mss, NUM, tp->mss_cache)                                                               \
	U64(pacing_rate, NUM, sk->sk_pacing_rate) /* bytes/s */                                    \
	VIEW(paced, FLAG, CUBIC_EV_PACED)                                                          \
	VIEW(cwnd_limited, FLAG, CUBIC_EV_CWND_LIMITED)                                            \
	VIEW(rwnd_limited, FLAG, CUBIC_EV_RWND_LIMITED)                                            \
	/* time the flow has spent receive-window limited */                                      \
	U32_TAIL(rwnd_limited_ms, NUM,                                                             \
		 (__u32)((__u64)tp->chrono_stat[TCP_CHRONO_RWND_LIMITED - 1] * 1000 / CONFIG_HZ))  \
	U32(snd_wnd, NUM, tp->snd_wnd) /* the peer's receive window, bytes */                      \
	U64(bytes_acked, NUM, tp->bytes_acked)                                                     \
	VIEW(initial, FLAG, CUBIC_EV_INITIAL)                                                      \
	U16(pad, HIDDEN, 0)

#define CUBIC_EV_SKIP(...)
#define CUBIC_EV_U64(name, ...)	 __u64 name;
#define CUBIC_EV_U32(name, ...)	 __u32 name;
#define CUBIC_EV_U16(name, ...)	 __u16 name;
#define CUBIC_EV_ADDR(name, ...) __u8 name[16];
#define CUBIC_EV_NAME(name, ...) char name[CUBIC_NAME_MAX];
/* One pass of the table per section, declaring only that section's fields. */
#define CUBIC_EV_PASS(u64, u32, u32_tail, u16, addr, name)                                         \
	CUBIC_EVENT_FIELDS(CUBIC_EV_##u64, CUBIC_EV_##u32, CUBIC_EV_##u32_tail, CUBIC_EV_##u16,    \
			   CUBIC_EV_##addr, CUBIC_EV_##name, CUBIC_EV_SKIP)

struct cubic_event {
	CUBIC_EV_PASS(U64, SKIP, SKIP, SKIP, SKIP, SKIP)
	CUBIC_EV_PASS(SKIP, U32, SKIP, SKIP, SKIP, SKIP)
	CUBIC_EV_PASS(SKIP, SKIP, U32, SKIP, SKIP, SKIP)
	CUBIC_EV_PASS(SKIP, SKIP, SKIP, U16, SKIP, SKIP)
	CUBIC_EV_PASS(SKIP, SKIP, SKIP, SKIP, ADDR, SKIP)
	CUBIC_EV_PASS(SKIP, SKIP, SKIP, SKIP, SKIP, NAME)
};

_Static_assert(sizeof(struct cubic_verdict) != sizeof(struct cubic_event),
	       "trace tells the records apart by their size");

/*
 * The datapaths, as --datapath names them: X(ID, name).
 */
#define CUBIC_DATAPATHS(X) X(EXACT, "exact") X(FAST, "fast")

/*
 * Their struct_ops maps in bpf/bpf_cubic.bpf.c, of which cubicctl creates only
 * one, loading only the programs it uses. A datapath whose .cong_control has
 * another prototype on older kernels has a map for each: cubicctl takes the
 * one whose number of arguments is that of the running kernel's
 * tcp_congestion_ops.cong_control (its BTF); 0: the map has no .cong_control
 * and suits every kernel. X(datapath ID, ops map, cong_control arguments, the
 * programs not every map uses...). The first map of a datapath is the one
 * for the newest kernels. Kernel names are cut at 15 characters
 * (BPF_OBJ_NAME_LEN): each map's and program's name is distinct within them.
 */
#define CUBIC_OPS_MAPS(X)                                                                          \
	X(EXACT, cubic_ops, 0, bc_init, bc_cong_avoid, bc_pkts_acked, bc_set_state, bc_cwnd_event) \
	/* Linux 6.10+: cong_control(sk, ack, flag, rs) */                                         \
	X(FAST, cubic_ops_fast, 4, bc_init_fast, bc_cong_control, bc_set_state_fast,               \
	  bc_cwnd_event_fast)                                                                      \
	/* before 6.10 (Debian 12's 6.1): cong_control(sk, rs) */                                  \
	X(FAST, cubic_ops_fast2, 2, bc_init_fast2, bc_cong_ctl2, bc_set_state_fast,                \
	  bc_cwnd_event_fast)

#include "cubic_tunables.h"

#endif /* CUBIC_ABI_H */
