// SPDX-License-Identifier: GPL-2.0
/* The config file of 'cubicctl load --config': see loadconf.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "loadconf.h"
#include "tunables.h"
#include "vocab.h"

/* Longest line taken, without its newline. */
#define LINE_MAX_CHARS 511

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r'; /* '\r': a file written on Windows */
}

/* s[0..*len) without blanks on either side. */
static const char *trim(const char *s, size_t *len)
{
	while (*len && is_blank(*s)) {
		s++;
		(*len)--;
	}
	while (*len && is_blank(s[*len - 1]))
		(*len)--;
	return s;
}

/* Checks one "key=value" line (already trimmed); why in why on error. */
static int parse_line(const char *key, const char *val, unsigned lineno, unsigned *preset_line,
		      char *preset, size_t preset_len, unsigned *dp_line, int *dp,
		      unsigned seen_line[CUBIC_TUN_COUNT], __u32 vals[CUBIC_TUN_COUNT], char *why,
		      size_t whylen)
{
	struct cubic_tunables tmp;
	char list[128];
	int id;

	if (!strcmp(key, "preset")) {
		if (*preset_line) {
			snprintf(why, whylen, "preset given twice (first on line %u)",
				 *preset_line);
			return -1;
		}
		if (strlen(val) >= preset_len || tun_preset(val, &tmp)) {
			preset_names(", ", list, sizeof(list));
			snprintf(why, whylen, "unknown preset '%s' (known: %s)", val, list);
			return -1;
		}
		memcpy(preset, val, strlen(val) + 1); /* fits: checked above */
		*preset_line = lineno;
		return 0;
	}
	if (!strcmp(key, "datapath")) {
		if (*dp_line) {
			snprintf(why, whylen, "datapath given twice (first on line %u)", *dp_line);
			return -1;
		}
		*dp = datapath_parse(val);
		if (*dp < 0) {
			snprintf(why, whylen, "datapath: '%s' is not one of: %s", val,
				 datapath_names(", ", list, sizeof(list)));
			return -1;
		}
		*dp_line = lineno;
		return 0;
	}
	id = tun_lookup(key);
	if (id < 0) {
		snprintf(why, whylen,
			 "unknown key '%s' (a line is preset=PRESET, datapath=DATAPATH or a "
			 "tunable KEY=VALUE; 'cubicctl help' lists the keys)",
			 key);
		return -1;
	}
	if (seen_line[id]) {
		snprintf(why, whylen, "key '%s' given twice (first on line %u)", key,
			 seen_line[id]);
		return -1;
	}
	if (tun_parse_value(id, val, &vals[id], why, whylen)) {
		/* "beta=700 # why": the value reads "700 # why" */
		if (strchr(val, '#')) {
			size_t n = strlen(why);

			snprintf(why + n, whylen - n,
				 "; a comment is a line of its own, starting with '#'");
		}
		return -1;
	}
	seen_line[id] = lineno;
	return 0;
}

/*
 * attach=CGROUP [dst=PREFIX]... [port=PORT]...: the words after "attach=";
 * one sentence in why on error.
 */
static int parse_attach(const char *val, unsigned lineno, struct loadconf_attach *att, int *natt,
			char *why, size_t whylen)
{
	struct loadconf_attach *a;
	char buf[LINE_MAX_CHARS + 1], *w, *save = NULL;

	if (*natt >= LOADCONF_MAX_ATTACH) {
		snprintf(why, whylen, "at most %d attach= lines", LOADCONF_MAX_ATTACH);
		return -1;
	}
	a = &att[*natt];
	memset(a, 0, sizeof(*a));
	snprintf(buf, sizeof(buf), "%s", val);
	w = strtok_r(buf, " \t", &save);
	if (!w || strchr(w, '=')) {
		snprintf(why, whylen, "attach= needs a cgroup first: attach=CGROUP [dst=PREFIX]... "
				      "[port=PORT]...");
		return -1;
	}
	if (strlen(w) >= sizeof(a->cgroup)) {
		snprintf(why, whylen, "attach=: the cgroup is longer than %d bytes",
			 ATTACH_CGROUP_MAX - 1);
		return -1;
	}
	memcpy(a->cgroup, w, strlen(w) + 1);
	while ((w = strtok_r(NULL, " \t", &save))) {
		char reason[200];
		int rc;

		if (!strncmp(w, "dst=", 4))
			rc = attach_add_prefix(&a->rules, w + 4, reason, sizeof(reason));
		else if (!strncmp(w, "port=", 5))
			rc = attach_add_port(&a->rules, w + 5, reason, sizeof(reason));
		else {
			snprintf(why, whylen, "attach=: '%s' is not dst=PREFIX or port=PORT", w);
			return -1;
		}
		if (rc) {
			/* attach_rules.c says --dst/--port: here the words are dst=/port= */
			snprintf(why, whylen, "attach=: %s", reason + 2);
			return -1;
		}
	}
	a->line = lineno;
	(*natt)++;
	return 0;
}

int loadconf_parse(const char *text, size_t len, const char *file, struct loadconf *out, char *err,
		   size_t errlen)
{
	unsigned seen_line[CUBIC_TUN_COUNT] = { 0 }, preset_line = 0, dp_line = 0, lineno = 0;
	__u32 vals[CUBIC_TUN_COUNT] = { 0 };
	char preset[32] = "", why[1024];
	const char *p = text, *end = text + len;
	struct loadconf_attach att[LOADCONF_MAX_ATTACH];
	int dp = -1, natt = 0;

	if (len > LOADCONF_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %d bytes: not a config file", file,
			 LOADCONF_MAX_BYTES);
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p), klen, vlen;
		const char *line, *eq, *k, *v;
		char key[LINE_MAX_CHARS + 1], val[LINE_MAX_CHARS + 1];

		lineno++;
		line = trim(p, &n);
		p = nl ? nl + 1 : end;
		if (!n || line[0] == '#')
			continue;
		if (memchr(line, '\0', n)) {
			snprintf(err, errlen, "%s:%u: holds a NUL byte: not a text file", file,
				 lineno);
			return -1;
		}
		if (n > LINE_MAX_CHARS) {
			snprintf(err, errlen, "%s:%u: line longer than %d characters", file, lineno,
				 LINE_MAX_CHARS);
			return -1;
		}
		eq = memchr(line, '=', n);
		if (!eq) {
			snprintf(err, errlen,
				 "%s:%u: '%.*s' is not preset=PRESET, datapath=DATAPATH or "
				 "KEY=VALUE",
				 file, lineno, (int)n, line);
			return -1;
		}
		klen = (size_t)(eq - line);
		vlen = n - klen - 1;
		k = trim(line, &klen);
		v = trim(eq + 1, &vlen);
		if (!klen) {
			snprintf(err, errlen, "%s:%u: '%.*s' has no key before '='", file, lineno,
				 (int)n, line);
			return -1;
		}
		if (klen == 6 && !memcmp(k, "attach", 6)) {
			memcpy(val, v, vlen);
			val[vlen] = '\0';
			if (parse_attach(val, lineno, att, &natt, why, sizeof(why))) {
				snprintf(err, errlen, "%s:%u: %s", file, lineno, why);
				return -1;
			}
			continue;
		}
		if (memchr(v, '=', vlen)) {
			snprintf(err, errlen, "%s:%u: '%.*s' has more than one '='", file, lineno,
				 (int)n, line);
			return -1;
		}
		memcpy(key, k, klen);
		key[klen] = '\0';
		memcpy(val, v, vlen);
		val[vlen] = '\0';
		if (parse_line(key, val, lineno, &preset_line, preset, sizeof(preset), &dp_line,
			       &dp, seen_line, vals, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%u: %s", file, lineno, why);
			return -1;
		}
	}

	/* the file's preset, then its keys: the order of 'load --preset P KEY=VALUE' */
	if (preset_line)
		tun_preset(preset, &out->t);
	else
		cubic_tunables_defaults(&out->t);
	for (int id = 0; id < CUBIC_TUN_COUNT; id++)
		if (seen_line[id])
			tun_set(&out->t, id, vals[id]);
	out->datapath = dp;
	out->nattach = natt;
	memcpy(out->attach, att, sizeof(att[0]) * (size_t)natt);
	return 0;
}
