/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hystart=off: its hooks (the interface and their dispatch: "The rules" in
 * bpf/bpf_cubic.bpf.c).
 *
 * No HyStart runs: no slow-start exit but a loss (or the initial_ssthresh
 * tunable, which cubic_init() sets in this mode only).
 */

RULE_NO_STATE(off)
RULE_HYSTART_ONLY(off, RULE_NO_HYSTART)
