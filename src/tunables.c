// SPDX-License-Identifier: GPL-2.0
/* Tunables for user space: see tunables.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tunables.h"
#include "search_core.h" /* SEARCH_ROLLBACK_* */

_Static_assert(sizeof(struct cubic_tunables) == CUBIC_TUN_COUNT * sizeof(__u32),
	       "struct cubic_tunables must be one __u32 per key, in table order");

static const struct tun_enum bool_names[] = { { "off", 0 }, { "on", 1 }, { "false", 0 },
					      { "true", 1 }, { NULL, 0 } };
static const struct tun_enum hystart_names[] = { { "off", CUBIC_HYSTART_OFF },
						 { "none", CUBIC_HYSTART_OFF },
						 { "linux", CUBIC_HYSTART_LINUX },
						 { "hystart", CUBIC_HYSTART_LINUX },
						 { "hystart++", CUBIC_HYSTART_PP },
						 { "hspp", CUBIC_HYSTART_PP },
						 { "search", CUBIC_HYSTART_SEARCH },
						 { "predict", CUBIC_HYSTART_PREDICT },
						 { NULL, 0 } };
static const struct tun_enum rollback_names[] = { { "off", SEARCH_ROLLBACK_OFF },
						  { "drain", SEARCH_ROLLBACK_DRAIN },
						  { "jump", SEARCH_ROLLBACK_JUMP },
						  { NULL, 0 } };
static const struct tun_enum detect_names[] = { { "none", 0 },
						{ "ack_train", CUBIC_HYSTART_ACK_TRAIN },
						{ "delay", CUBIC_HYSTART_DELAY },
						{ "both", CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY },
						{ NULL, 0 } };

static const struct tun_enum *names_of(const char *key)
{
	if (!strcmp(key, "fast_convergence") || !strcmp(key, "tcp_friendliness") ||
	    !strcmp(key, "predict_pace"))
		return bool_names;
	if (!strcmp(key, "hystart"))
		return hystart_names;
	if (!strcmp(key, "hystart_detect"))
		return detect_names;
	if (!strcmp(key, "search_rollback"))
		return rollback_names;
	return NULL;
}

const struct tun_desc tun_table[CUBIC_TUN_COUNT] = {
#define CUBIC_X_DESC(n, d, lo, hi, u, h)                                                           \
	[CUBIC_TUN_##n] = { .name = #n, .def = (d), .min = (lo), .max = (hi), .unit = (u), .help = (h) },
	CUBIC_TUNABLES(CUBIC_X_DESC)
#undef CUBIC_X_DESC
};

const struct tun_preset tun_presets[] = {
	{ "linux", "today's Linux tcp_cubic (the defaults)" },
	{ "nussbaum-2011",
	  "the 2011 patch: ACK train past 2 x delay_min, delay test past 2 x delay_min, no clamp" },
	{ "off", "no HyStart: slow start ends on loss" },
	{ "hystart++", "HyStart++ (RFC 9406) with the RFC's constants" },
	{ "search", "SEARCH (draft-chung-ccwg-search-09) with the draft's constants" },
	{ "predict",
	  "PREDICT: the BDP from the first rounds' ACK dispersion, then a paced slow start to it" },
	{ NULL, NULL },
};

int tun_lookup(const char *name)
{
	for (int i = 0; i < CUBIC_TUN_COUNT; i++)
		if (!strcmp(tun_table[i].name, name))
			return i;
	return -1;
}

__u32 tun_get(const struct cubic_tunables *t, int id)
{
	return ((const __u32 *)t)[id];
}

void tun_set(struct cubic_tunables *t, int id, __u32 v)
{
	((__u32 *)t)[id] = v;
}

const char *tun_value_name(int id, __u32 v)
{
	const struct tun_enum *e = names_of(tun_table[id].name);

	for (; e && e->name; e++)
		if (e->value == v)
			return e->name;
	return NULL;
}

static void names_list(int id, char *buf, size_t len)
{
	const struct tun_enum *e = names_of(tun_table[id].name);
	size_t off = 0;

	buf[0] = '\0';
	for (; e && e->name && off < len; e++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", e->name);
}

int tun_parse_value(int id, const char *s, __u32 *out, char *err, size_t errlen)
{
	const struct tun_desc *d = &tun_table[id];
	const struct tun_enum *e = names_of(d->name);
	char names[128];
	unsigned long long v = 0;
	const char *p;

	names_list(id, names, sizeof(names));
	for (; e && e->name; e++) {
		if (!strcmp(e->name, s)) {
			*out = e->value;
			return 0;
		}
	}
	if (!*s) {
		snprintf(err, errlen, "%s: empty value (expected a whole number in %u..%u%s%s)",
			 d->name, d->min, d->max, *names ? " or one of " : "", names);
		return -1;
	}
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			snprintf(err, errlen,
				 "%s: '%s' is not a whole number in %u..%u%s%s", d->name, s,
				 d->min, d->max, *names ? " or one of " : "", names);
			return -1;
		}
		v = v * 10 + (unsigned)(*p - '0');
		if (v > 0xffffffffULL) {
			snprintf(err, errlen, "%s: '%s' is too large (allowed %u..%u)", d->name, s,
				 d->min, d->max);
			return -1;
		}
	}
	if (v < d->min || v > d->max) {
		snprintf(err, errlen, "%s: %s is out of range (allowed %u..%u%s%s)", d->name, s,
			 d->min, d->max, *names ? ", or " : "", names);
		return -1;
	}
	*out = (__u32)v;
	return 0;
}

int tun_preset(const char *name, struct cubic_tunables *t)
{
	cubic_tunables_defaults(t);
	if (!strcmp(name, "linux"))
		return 0;
	if (!strcmp(name, "nussbaum-2011")) {
		/* ACK train: 2 x delay_min ((8 x d) >> 2); delay: rtt > 2 x delay_min */
		t->ack_train_shift = 2;
		t->delay_thresh_shift = 0;
		t->delay_thresh_min_us = CUBIC_MIN_delay_thresh_min_us;
		t->delay_thresh_max_us = CUBIC_MAX_delay_thresh_max_us;
		return 0;
	}
	if (!strcmp(name, "off")) {
		t->hystart = CUBIC_HYSTART_OFF;
		return 0;
	}
	if (!strcmp(name, "hystart++")) {
		t->hystart = CUBIC_HYSTART_PP;
		return 0;
	}
	if (!strcmp(name, "search")) {
		t->hystart = CUBIC_HYSTART_SEARCH;
		return 0;
	}
	if (!strcmp(name, "predict")) {
		t->hystart = CUBIC_HYSTART_PREDICT;
		return 0;
	}
	return -1;
}

int tun_check(const struct cubic_tunables *t, char *err, size_t errlen)
{
	for (int i = 0; i < CUBIC_TUN_COUNT; i++) {
		__u32 v = tun_get(t, i);

		if (v < tun_table[i].min || v > tun_table[i].max) {
			snprintf(err, errlen, "%s: %u is out of range (allowed %u..%u)",
				 tun_table[i].name, v, tun_table[i].min, tun_table[i].max);
			return -1;
		}
	}
	if (t->delay_thresh_min_us > t->delay_thresh_max_us) {
		snprintf(err, errlen,
			 "delay_thresh_min_us (%u) must not exceed delay_thresh_max_us (%u)",
			 t->delay_thresh_min_us, t->delay_thresh_max_us);
		return -1;
	}
	return 0;
}

static void preset_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const struct tun_preset *p = tun_presets; p->name && off < len; p++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", p->name);
}

int tun_apply_args(int argc, char **argv, struct cubic_tunables *t, char *err, size_t errlen)
{
	struct cubic_tunables next = *t;
	__u32 vals[CUBIC_TUN_COUNT];
	bool seen[CUBIC_TUN_COUNT] = { false };
	const char *preset = NULL;
	char buf[160];

	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		const char *eq = strchr(arg, '=');
		size_t klen;
		int id;

		if (!eq || eq == arg) {
			snprintf(err, errlen, "'%s' is not KEY=VALUE", arg);
			return -1;
		}
		if (strchr(eq + 1, '=')) {
			snprintf(err, errlen, "'%s' has more than one '='", arg);
			return -1;
		}
		klen = (size_t)(eq - arg);
		if (klen >= sizeof(buf)) {
			snprintf(err, errlen, "unknown key '%.40s...'", arg);
			return -1;
		}
		memcpy(buf, arg, klen);
		buf[klen] = '\0';

		if (!strcmp(buf, "preset")) {
			struct cubic_tunables tmp;

			if (preset) {
				snprintf(err, errlen, "preset given twice");
				return -1;
			}
			if (tun_preset(eq + 1, &tmp)) {
				char list[128];

				preset_names(list, sizeof(list));
				snprintf(err, errlen, "unknown preset '%s' (known: %s)", eq + 1, list);
				return -1;
			}
			preset = eq + 1;
			continue;
		}
		id = tun_lookup(buf);
		if (id < 0) {
			snprintf(err, errlen, "unknown key '%s' (see 'cubicctl help' for the keys)",
				 buf);
			return -1;
		}
		if (seen[id]) {
			snprintf(err, errlen, "key '%s' given twice", buf);
			return -1;
		}
		if (tun_parse_value(id, eq + 1, &vals[id], err, errlen))
			return -1;
		seen[id] = true;
	}

	if (preset)
		tun_preset(preset, &next);
	for (int id = 0; id < CUBIC_TUN_COUNT; id++)
		if (seen[id])
			tun_set(&next, id, vals[id]);
	if (tun_check(&next, err, errlen))
		return -1;
	*t = next;
	return 0;
}
