/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hystart=hystart++, HyStart++ (RFC 9406): its hooks (the interface and
 * their dispatch: "The rules" in bpf/bpf_cubic.bpf.c).
 *
 * Its core is include/hspp_core.h and its state struct cubic_state's, so the
 * core keeps it: cubic_init() arms it, cubic_cong_avoid() grows cwnd its way,
 * cubic_recalc_ssthresh() ends it, and hystart_step() in bpf/bpf_cubic.bpf.c
 * runs hspp_update() on every sample of slow start.
 */

RULE_NO_STATE(hspp)
RULE_HYSTART_ONLY(hspp, RULE_HYSTART_ALL)
