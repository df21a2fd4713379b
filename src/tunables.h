/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables table of include/cubic_tunables.h, for user space: lookup,
 * parsing and validation of KEY=VALUE and presets. Pure: no libbpf, no I/O, so
 * the unit tests link it directly.
 */
#ifndef CUBICCTL_TUNABLES_H
#define CUBICCTL_TUNABLES_H

#include <stddef.h>
#include "cubic_abi.h"
#include "vocab.h"

struct tun_enum {
	const char *name;
	__u32 value;
};

struct tun_desc {
	const char *name;
	__u32 def, min, max;
	const char *unit;
	const char *help;
};

extern const struct tun_desc tun_table[CUBIC_TUN_COUNT];

int tun_lookup(const char *name);
__u32 tun_get(const struct cubic_tunables *t, int id);
void tun_set(struct cubic_tunables *t, int id, __u32 v);

/* The canonical name of an enumerated value, or NULL. */
const char *tun_value_name(int id, __u32 v);

/*
 * Parses one value for tunable id: a whole number, one of its names, or
 * "default" (the table's default); on error writes one sentence to err.
 */
int tun_parse_value(int id, const char *s, __u32 *out, char *err, size_t errlen);

/* Sets *t to the named preset; -1 if the name is unknown. */
int tun_preset(const char *name, struct cubic_tunables *t);
/*
 * Sets *t to preset p of rule r: the defaults, hystart=<r>, then p's values.
 * -1 with one sentence in err if its values do not parse (a unit test keeps
 * every preset of include/cubic_rules.h valid).
 */
int tun_preset_values(const struct rule_desc *r, const struct rule_preset *p,
		      struct cubic_tunables *t, char *err, size_t errlen);

/* Rules that span keys (delay_thresh_min_us <= delay_thresh_max_us). */
int tun_check(const struct cubic_tunables *t, char *err, size_t errlen);

/*
 * Applies "KEY=VALUE" and "preset=NAME" words to *t, all or nothing: every
 * word is parsed and checked first, and *t is changed only if all are valid.
 * A preset replaces every value, then the keys apply on top of it. Returns 0,
 * or -1 with one sentence in err naming the offending word.
 */
int tun_apply_args(int argc, char **argv, struct cubic_tunables *t, char *err, size_t errlen);

#endif /* CUBICCTL_TUNABLES_H */
