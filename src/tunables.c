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
/* hystart=: the rules' names and aliases (include/cubic_rules.h), made on first use */
static struct tun_enum hystart_names[RULE_COUNT * 4 + 1];

static const struct tun_enum *rule_names(void)
{
	static char words[RULE_COUNT][64];
	int n = 0;

	if (hystart_names[0].name)
		return hystart_names;
	for (int i = 0; i < RULE_COUNT; i++) {
		char *save = NULL, *w;

		hystart_names[n++] = (struct tun_enum){ rules[i].name, rules[i].value };
		snprintf(words[i], sizeof(words[i]), "%s", rules[i].aliases);
		for (w = strtok_r(words[i], " ", &save); w && n < RULE_COUNT * 4;
		     w = strtok_r(NULL, " ", &save))
			hystart_names[n++] = (struct tun_enum){ w, rules[i].value };
	}
	return hystart_names;
}
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
		return rule_names();
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
	/* KEY=default: the table's default, whatever a preset or set changed */
	if (!strcmp(s, "default")) {
		*out = d->def;
		return 0;
	}
	for (; e && e->name; e++) {
		if (!strcmp(e->name, s)) {
			*out = e->value;
			return 0;
		}
	}
	if (!*s) {
		snprintf(err, errlen, "%s: empty value (expected a whole number in %u..%u%s%s%s)",
			 d->name, d->min, d->max, *names ? " or one of " : "", names,
			 *names ? ", default" : " or default");
		return -1;
	}
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			snprintf(err, errlen,
				 "%s: '%s' is not a whole number in %u..%u%s%s%s", d->name, s,
				 d->min, d->max, *names ? " or one of " : "", names,
				 *names ? ", default" : " or default");
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
	const struct rule_desc *r;
	const struct rule_preset *p = preset_find(name, &r);
	char err[160];

	if (!p)
		return -1;
	return tun_preset_values(r, p, t, err, sizeof(err));
}

int tun_preset_values(const struct rule_desc *r, const struct rule_preset *p,
		      struct cubic_tunables *t, char *err, size_t errlen)
{
	struct cubic_tunables next;
	const char *s = p->values;

	cubic_tunables_defaults(&next);
	next.hystart = r->value;
	while (*s) {
		char word[160], *eq;
		size_t n = strcspn(s, " ");
		__u32 v;
		int id;

		if (n >= sizeof(word)) {
			snprintf(err, errlen, "preset %s: a value is too long", p->name);
			return -1;
		}
		memcpy(word, s, n);
		word[n] = '\0';
		s += n;
		s += strspn(s, " ");
		eq = strchr(word, '=');
		if (!eq) {
			snprintf(err, errlen, "preset %s: '%s' is not KEY=VALUE", p->name, word);
			return -1;
		}
		*eq = '\0';
		id = tun_lookup(word);
		if (id < 0 || id == CUBIC_TUN_hystart) {
			snprintf(err, errlen, "preset %s: '%s' is not a key it may set", p->name,
				 word);
			return -1;
		}
		if (tun_parse_value(id, eq + 1, &v, err, errlen))
			return -1;
		tun_set(&next, id, v);
	}
	if (tun_check(&next, err, errlen))
		return -1;
	*t = next;
	return 0;
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

				preset_names(", ", list, sizeof(list));
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
