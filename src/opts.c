// SPDX-License-Identifier: GPL-2.0
/* Command-line options, one table per command: see opts.h. */
#include <stdarg.h>
#include <string.h>
#include "cubicctl.h"
#include "opts.h"

#define MAX_OPTS 32

static const struct opt global_opts[] = {
	{ .name = "json", .short_name = 'j', .offset = offsetof(struct global_opts, json),
	  .help = "output as JSON on stdout (errors too: {\"error\": ...})", .global = true },
	{ .name = "verbose", .short_name = 'v', .offset = offsetof(struct global_opts, verbose),
	  .help = "show libbpf's messages (the verifier's log)", .global = true },
	{ .name = "help", .short_name = 'h', .help = "this text", .global = true },
	OPT_END
};

/* The global options seen so far (before the command and after it). */
static bool global_seen[sizeof(global_opts) / sizeof(global_opts[0])];

const struct command *command_find(const char *name)
{
	for (int i = 0; commands[i]; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* The first error, kept until every word is read (a -j after it still counts). */
struct parse {
	const struct command *c;
	char err[256];
};

static void fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
}

static const struct opt *lookup(const struct opt *t, const char *name, size_t len, char shrt)
{
	for (int i = 0; t && t[i].name; i++) {
		if (shrt ? t[i].short_name == shrt
			 : strlen(t[i].name) == len && !strncmp(t[i].name, name, len))
			return &t[i];
	}
	return NULL;
}

static void opt_label(const struct opt *o, char *buf, size_t len)
{
	snprintf(buf, len, "--%s", o->name);
}

/* Takes o's value into its field; the value's problems go to p. */
static void take(struct parse *p, const struct opt *o, const char *val, void *opts, bool *seen)
{
	char label[48], why[200];
	void *field = (char *)(o->global ? (void *)&g_opts : opts) + o->offset;

	opt_label(o, label, sizeof(label));
	if (*seen && !o->repeat) {
		fail(p, "%s: given twice", label);
		return;
	}
	*seen = true;
	if (!o->meta) {
		*(bool *)field = true;
		return;
	}
	if (!o->parse) {
		*(const char **)field = val;
		return;
	}
	why[0] = '\0';
	if (o->parse(val, field, why, sizeof(why)))
		fail(p, "%s: %s", label, why);
}

/*
 * One word (and maybe the next) at argv[*i]: 1 if it was an option, 0 if a
 * positional word, -1 for --help.
 */
static int option(struct parse *p, int argc, char **argv, int *i, void *opts, bool *seen)
{
	const char *arg = argv[*i], *eq = NULL, *val = NULL;
	const struct opt *o = NULL, *own = p->c ? p->c->opts : NULL;
	size_t len;

	if (arg[0] != '-' || !arg[1])
		return 0;
	if (arg[1] == '-') {
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		o = lookup(own, arg + 2, len, 0);
		o = o ?: lookup(global_opts, arg + 2, len, 0);
	} else if (!arg[2]) {
		o = lookup(own, NULL, 0, arg[1]);
		o = o ?: lookup(global_opts, NULL, 0, arg[1]);
	}
	if (!o) {
		if (p->c)
			fail(p, "%s: unknown option (see 'cubicctl %s --help')", arg, p->c->name);
		else
			fail(p, "%s: unknown option (see 'cubicctl help')", arg);
		return 1;
	}
	if (o->global && !strcmp(o->name, "help"))
		return -1;
	if (!o->meta && eq) {
		fail(p, "--%s: takes no value", o->name);
		return 1;
	}
	if (o->meta) {
		if (eq) {
			val = eq + 1;
		} else if (*i + 1 < argc) {
			val = argv[++*i];
		} else {
			fail(p, "--%s: needs a value (%s)", o->name, o->meta);
			return 1;
		}
	}
	if (o->global)
		take(p, o, val, opts, &global_seen[o - global_opts]);
	else
		take(p, o, val, opts, &seen[o - own]);
	return 1;
}

static int report(struct parse *p)
{
	if (!p->err[0])
		return OPTS_OK;
	errmsg("%s", p->err);
	return EXIT_USAGE;
}

int opts_parse(const struct command *c, int argc, char **argv, void *opts, int *nargs)
{
	struct parse p = { .c = c };
	bool seen[MAX_OPTS] = { false }, dashdash = false;
	int n = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (!dashdash && !strcmp(argv[i], "--")) {
			dashdash = true;
			continue;
		}
		rc = dashdash ? 0 : option(&p, argc, argv, &i, opts, seen);
		if (rc < 0) {
			opts_help(c, stdout);
			return OPTS_HELP;
		}
		if (rc)
			continue;
		if (c->max_args >= 0 && n >= c->max_args)
			fail(&p, "'%s': unexpected argument (see 'cubicctl %s --help')", argv[i],
			     c->name);
		argv[n++] = argv[i];
	}
	/* the options of a group exclude each other */
	for (int k = 0; c->opts[k].name; k++)
		for (int x = 0; x < k && seen[k] && c->opts[k].group; x++)
			if (seen[x] && c->opts[x].group &&
			    !strcmp(c->opts[x].group, c->opts[k].group))
				fail(&p, "--%s: not together with --%s (one or the other)",
				     c->opts[k].name, c->opts[x].name);
	*nargs = n;
	return report(&p);
}

int opts_parse_global(int argc, char **argv, int *i)
{
	struct parse p = { .c = NULL };

	for (; *i < argc && argv[*i][0] == '-'; (*i)++) {
		int rc;

		if (!strcmp(argv[*i], "-V") || !strcmp(argv[*i], "--version"))
			return 1;
		rc = option(&p, argc, argv, i, NULL, NULL);
		if (rc < 0)
			return OPTS_HELP;
		if (p.err[0])
			break;
	}
	return report(&p);
}

/* "--name NAME", "--datapath exact|fast", "--force" */
static const char *opt_synopsis(const struct opt *o, char *buf, size_t len)
{
	char choices[64];

	if (!o->meta)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "--%s %s", o->name,
			 o->choices ? o->choices(choices, sizeof(choices)) : o->meta);
	return buf;
}

const char *opts_synopsis(const struct command *c, char *buf, size_t len)
{
	size_t off = 0;

	off += (size_t)snprintf(buf, len, "%s", c->name);
	for (int k = 0; c->opts[k].name && off < len; k++) {
		const struct opt *o = &c->opts[k], *prev = k ? &c->opts[k - 1] : NULL;
		const struct opt *next = &c->opts[k + 1];
		bool in = prev && o->group && prev->group && !strcmp(o->group, prev->group);
		bool more = o->group && next->name && next->group && !strcmp(o->group, next->group);
		char a[80];

		off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s", in ? " | " : " [",
					opt_synopsis(o, a, sizeof(a)), more ? "" : "]",
					o->repeat ? "..." : "");
	}
	if (c->args && off < len)
		snprintf(buf + off, len - off, " %s", c->args);
	return buf;
}

/* The words of s, wrapped at 80 columns after a first line's prefix. */
static void wrap(FILE *f, const char *prefix, const char *s)
{
	size_t indent = strlen(prefix), col = indent;
	int depth = 0;
	const char *w = s;

	fputs(prefix, f);
	while (*w) {
		const char *e = w;

		/* a word: up to a blank outside brackets */
		for (depth = 0; *e && (depth || *e != ' '); e++)
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
		if (col > indent && col + 1 + (size_t)(e - w) > 80) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, (size_t)(e - w), f);
		col += (size_t)(e - w);
		w = *e ? e + 1 : e;
	}
	fputc('\n', f);
}

static void help_line(FILE *f, const struct opt *o)
{
	char head[64], syn[80];

	if (o->short_name)
		snprintf(head, sizeof(head), "-%c, %s", o->short_name,
			 opt_synopsis(o, syn, sizeof(syn)));
	else
		snprintf(head, sizeof(head), "    %s", opt_synopsis(o, syn, sizeof(syn)));
	if (strlen(head) > 24)
		fprintf(f, "  %s\n  %-24s  %s\n", head, "", o->help);
	else
		fprintf(f, "  %-24s  %s\n", head, o->help);
}

void opts_help(const struct command *c, FILE *f)
{
	char syn[512], prefix[64];

	opts_synopsis(c, syn, sizeof(syn));
	snprintf(prefix, sizeof(prefix), "usage: cubicctl %s ", c->name);
	wrap(f, prefix, syn + strlen(c->name) + (syn[strlen(c->name)] ? 1 : 0));
	if (c->describe)
		c->describe(f);
	fprintf(f, "\noptions:\n");
	for (int k = 0; c->opts[k].name; k++)
		help_line(f, &c->opts[k]);
	for (int k = 0; global_opts[k].name; k++)
		help_line(f, &global_opts[k]);
}

static void opt_json(struct json *j, const struct opt *o)
{
	char buf[64], s[2] = { o->short_name, 0 };

	json_obj_open(j, NULL);
	json_str(j, "name", o->name);
	json_str_or_null(j, "short", o->short_name ? s : NULL);
	json_str_or_null(j, "value",
			 o->meta && o->choices ? o->choices(buf, sizeof(buf)) : o->meta);
	json_str_or_null(j, "group", o->group);
	json_bool(j, "repeat", o->repeat);
	json_str(j, "help", o->help);
	json_obj_close(j);
}

void opts_json(void)
{
	struct json *j = json_stdout();
	char syn[512];

	json_obj_open(j, NULL);
	json_arr_open(j, "global");
	for (int k = 0; global_opts[k].name; k++)
		opt_json(j, &global_opts[k]);
	json_arr_close(j);
	json_arr_open(j, "commands");
	for (int i = 0; commands[i]; i++) {
		const struct command *c = commands[i];

		json_obj_open(j, NULL);
		json_str(j, "name", c->name);
		json_str(j, "summary", c->summary);
		json_str(j, "synopsis", opts_synopsis(c, syn, sizeof(syn)));
		json_str_or_null(j, "args", c->args);
		json_arr_open(j, "options");
		for (int k = 0; c->opts[k].name; k++)
			opt_json(j, &c->opts[k]);
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
	json_end(j);
}
