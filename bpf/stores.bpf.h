/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_cubic's two socket-storage maps, defined once: PREDICT's state
 * (bpf/rule_predict.bpf.h writes it) and the exit verdict's
 * (bpf/verdict.bpf.h writes it). Both bpf/bpf_cubic.bpf.c and the flows
 * iterator (bpf/flows.bpf.c, which only reads them, through the instance's
 * own maps: bpf_map__reuse_fd) include this file, so the two objects cannot
 * disagree on a map's type, flags or value (include/cubic_stores.h).
 */
#ifndef STORES_BPF_H
#define STORES_BPF_H

#include "cubic_stores.h"

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct predict_store);
} predict_store SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct verdict_store);
} verdict_store SEC(".maps");

#endif /* STORES_BPF_H */
