/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one table of bpf_cubic tunables. Every other place derives from it: the
 * struct in the tunables map, the clamps the BPF program applies on each read,
 * cubicctl's parser, validator, get/status output, JSON and help.
 *
 * X(name, default, min, max, unit, help)
 *
 * Defaults are those of Linux net/ipv4/tcp_cubic.c (6.18): module parameters
 * beta, bic_scale, fast_convergence, tcp_friendliness, initial_ssthresh,
 * hystart, hystart_detect, hystart_low_window, hystart_ack_delta_us, and the
 * compile-time HyStart constants HYSTART_MIN_SAMPLES, HYSTART_DELAY_MIN/MAX and
 * the ">> 3" of HYSTART_DELAY_THRESH(delay_min >> 3). HyStart++ (hystart=2) uses
 * the RFC 9406 section 4.3 constants, as defaults: MIN_RTT_THRESH and
 * MAX_RTT_THRESH are delay_thresh_min_us/max_us (4 and 16 ms), MIN_RTT_DIVISOR
 * is 1 << delay_thresh_shift (8), N_RTT_SAMPLE is hystart_min_samples (8),
 * CSS_GROWTH_DIVISOR 4, CSS_ROUNDS 5, L 8. SEARCH (hystart=3) has the constants
 * of draft-chung-ccwg-search-09 section 3.2 as defaults (WINDOW_SIZE 3.5 initial
 * RTTs, W 10, EXTRA_BINS 15, THRESH 0.26, the drain) and its authors' missed-bin
 * limit (2); include/search_core.h clamps them again on every use. PREDICT
 * (hystart=4) is this project's rule (include/predict_core.h), with defaults
 * measured on our emulated paths (docs/EVALUATION.md).
 */
#ifndef CUBIC_TUNABLES_H
#define CUBIC_TUNABLES_H

#define CUBIC_TUNABLES(X)                                                                          \
	X(beta, 717, 1, 1023, "/1024", "multiplicative decrease: cwnd x beta/1024 after a loss")  \
	X(bic_scale, 41, 1, 1024, "/1024",                                                         \
	  "cubic constant C = bic_scale x 10/1024 (41 gives about 0.4)")                          \
	X(fast_convergence, 1, 0, 1, "bool", "release bandwidth faster when Wmax shrinks")         \
	X(tcp_friendliness, 1, 0, 1, "bool", "Reno-friendly region (RFC 9438 section 4.3)")        \
	X(initial_ssthresh, 0, 0, 0x7fffffff, "pkts",                                              \
	  "initial slow-start threshold when hystart=off (0: unlimited)")                         \
	X(hystart, 1, 0, 4, "mode",                                                                \
	  "slow-start exit: 0 off (loss only), 1 Linux HyStart, 2 HyStart++ (RFC 9406), 3 SEARCH, " \
	  "4 PREDICT")                                                                             \
	X(hystart_detect, 3, 0, 3, "bits", "HyStart detectors: 1 ACK train, 2 delay, 3 both")      \
	X(hystart_low_window, 16, 1, 1000000, "pkts", "detectors stay idle below this cwnd")       \
	X(hystart_ack_delta_us, 2000, 1, 100000, "us", "largest ACK gap that still counts as a train") \
	X(ack_train_shift, 4, 0, 10, "shift",                                                      \
	  "train fires past (delay_min x 8) >> shift: 4 = delay_min/2, 2 = 2 x delay_min")       \
	X(delay_thresh_shift, 3, 0, 16, "shift",                                                   \
	  "delay test: rtt > delay_min + clamp(delay_min >> shift, min, max)")                    \
	X(delay_thresh_min_us, 4000, 0, 1000000000, "us", "lower clamp of the delay threshold")   \
	X(delay_thresh_max_us, 16000, 0, 1000000000, "us", "upper clamp of the delay threshold")  \
	X(hystart_min_samples, 8, 1, 255, "samples",                                               \
	  "RTT samples per round before the delay test (HyStart++: N_RTT_SAMPLE)")               \
	X(css_growth_divisor, 4, 2, 64, "divisor",                                                 \
	  "HyStart++: slow-start growth is divided by this in Conservative Slow Start")          \
	X(css_rounds, 5, 1, 100, "rounds", "HyStart++: CSS rounds before congestion avoidance")     \
	X(hspp_ack_limit, 8, 1, 65535, "pkts",                                                     \
	  "HyStart++: L, most packets cwnd grows per ACK in slow start (unlimited if paced)")    \
	X(hspp_after_idle, 0, 0, 1, "bool",                                                        \
	  "HyStart++: also for the slow start that restarts after an idle period")                \
	X(search_window, 350, 10, 10000, "/100 RTT",                                               \
	  "SEARCH: WINDOW_SIZE in 1/100 of the initial RTT (350: 3.5 x)")                         \
	X(search_bins, 10, 1, 15, "bins", "SEARCH: W, the bins of one window")                     \
	X(search_extra_bins, 15, 1, 48, "bins",                                                    \
	  "SEARCH: EXTRA_BINS, the farthest lookback (in bins) to the window one RTT back")       \
	X(search_thresh, 260, 0, 1000, "/1000",                                                    \
	  "SEARCH: exit when (sent - delivered) / sent reaches this (260: THRESH 0.26)")          \
	X(search_rollback, 1, 0, 2, "mode",                                                        \
	  "SEARCH at exit: 0 keep cwnd, 1 drain to the delivered BDP (the draft), 2 jump to it") \
	X(search_missed, 2, 0, 100, "RTTs",                                                        \
	  "SEARCH: start over after this many initial RTTs of bins without an ACK (0: never)")    \
	X(predict_skip, 1, 0, 64, "pkts",                                                          \
	  "PREDICT: a train starts once this many packets of its round are ACKed")                \
	X(predict_min_train_us, 1000, 50, 1000000, "us",                                           \
	  "PREDICT: shortest ACK train judged; a round with a shorter one is measured again")      \
	X(predict_tolerance, 100, 0, 1000, "/1000",                                                \
	  "PREDICT: the fit's standard error is within half of this; the fit and the train's "   \
	  "mean rate agree within it (within twice it: the lower is believed)")                   \
	X(predict_margin, 30, 0, 1000, "/1000",                                                    \
	  "PREDICT: target = rate x delay_min x (1 + margin/1000)")                               \
	X(predict_rounds, 3, 1, 16, "rounds",                                                      \
	  "PREDICT: measured rounds without an estimate before HyStart decides (1 if paced)")     \
	X(predict_pace, 1, 0, 1, "bool",                                                           \
	  "PREDICT: turn on the kernel's pacing for the fill if nothing paces the flow")          \
	X(predict_cap, 1000, 0, 4000, "/1000",                                                     \
	  "PREDICT: the fill's pacing rate is at most this x the estimate (0: no cap)")          \
	X(predict_jump, 0, 0, 500, "/1000",                                                        \
	  "PREDICT: at the estimate, cwnd jumps to this x the target, paced (0: off; RFC 9959)") \
	X(predict_policer, 1, 0, 1, "bool",                                                        \
	  "PREDICT: settle at a policer's BDP at its first loss; remember it per destination")    \
	X(premature_ratio, 800, 1, 10000, "/1000",                                                 \
	  "verdict: an exit below this x the path's BDP is premature (800: 0.8)")                \
	X(verdict, 1, 0, 1, "bool",                                                                \
	  "verdict: measure the path after each slow-start exit and judge it (0: no measurement)") \
	X(predict_busy, 1, 0, 1, "bool",                                                           \
	  "PREDICT: remember a path found busy per destination; HyStart decides there")          \
	X(predict_jump_queue, 1, 0, 1, "bool",                                                     \
	  "PREDICT: a queue before the jumped window is acknowledged ends slow start at the "     \
	  "PipeSize (0: at cwnd)")                                                                \
	X(predict_rise_us, 100, 0, 100000, "us",                                                   \
	  "PREDICT: set the estimate aside (HyStart decides) when delay_min is this and a "       \
	  "packet's time above the handshake's RTT: others' queue grew (0: off)")                \
	X(predict_share_margin, 333, 0, 1000, "/1000",                                             \
	  "PREDICT: after the jump's share check, target = the rate it got x delay_min x "        \
	  "(1 + this/1000): a newcomer gets less than its share while others hold the queue")

/* Index of each tunable, in table order. */
enum cubic_tunable_id {
#define CUBIC_X_ID(name, def, min, max, unit, help) CUBIC_TUN_##name,
	CUBIC_TUNABLES(CUBIC_X_ID)
#undef CUBIC_X_ID
	CUBIC_TUN_COUNT
};

/* Default, minimum and maximum of each tunable as constants. */
enum {
#define CUBIC_X_LIMITS(name, def, min, max, unit, help)                                            \
	CUBIC_DEF_##name = (def), CUBIC_MIN_##name = (min), CUBIC_MAX_##name = (max),
	CUBIC_TUNABLES(CUBIC_X_LIMITS)
#undef CUBIC_X_LIMITS
};

/* The value of the tunables map: one __u32 per key, in table order. */
struct cubic_tunables {
#define CUBIC_X_FIELD(name, def, min, max, unit, help) __u32 name;
	CUBIC_TUNABLES(CUBIC_X_FIELD)
#undef CUBIC_X_FIELD
};

/*
 * Clamped readers. The map can be written directly by root (bpftool), so the
 * datapath never trusts a raw value: cubic_tun_beta(t) is always in [1, 1023].
 */
#define CUBIC_X_GETTER(name, def, min, max, unit, help)                                            \
	static inline __u32 cubic_tun_##name(const struct cubic_tunables *t)                      \
	{                                                                                          \
		__s64 v = t->name; /* signed 64-bit: no "unsigned < 0" */                          \
		if (v < (__s64)(min))                                                              \
			v = (min);                                                                 \
		if (v > (__s64)(max))                                                              \
			v = (max);                                                                 \
		return (__u32)v;                                                                   \
	}
CUBIC_TUNABLES(CUBIC_X_GETTER)
#undef CUBIC_X_GETTER

static inline void cubic_tunables_defaults(struct cubic_tunables *t)
{
#define CUBIC_X_DEF(name, def, min, max, unit, help) t->name = (def);
	CUBIC_TUNABLES(CUBIC_X_DEF)
#undef CUBIC_X_DEF
}

#endif /* CUBIC_TUNABLES_H */
