/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cubicctl status --prometheus: instances' counters and tunables in the
 * Prometheus text exposition format (version 0.0.4), for node_exporter's
 * textfile collector. Pure: the caller reads the maps.
 */
#ifndef CUBICCTL_PROM_H
#define CUBICCTL_PROM_H

#include <stdbool.h>
#include <stdio.h>
#include "cubic_abi.h"
#include "cubic_tunables.h"

struct prom_instance {
	const char *name;
	bool up;	      /* registered, and of this cubicctl's ABI: the rest is valid */
	const char *datapath; /* "exact" or "fast" */
	__u32 abi_version;
	struct cubic_counters counters;
	struct cubic_tunables tunables;
};

/* Writes every metric family once, with one sample per instance (up or not). */
void prom_write(FILE *f, const struct prom_instance *in, int n, const char *version,
		const char *git);

#endif
