/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hystart=linux, Linux HyStart: its hooks (the interface and their
 * dispatch: "The rules" in bpf/bpf_cubic.bpf.c).
 *
 * The base the other rules build on: its detectors are include/hystart_core.h,
 * and hystart_step() in bpf/bpf_cubic.bpf.c runs a HyStart kind on a sample
 * and writes its record for whichever rule asks. This rule only asks, on
 * every sample of slow start, with every detector of hystart_detect.
 */

RULE_NO_STATE(hystart)
RULE_HYSTART_ONLY(hystart, RULE_HYSTART_ALL)
