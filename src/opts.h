/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options, one table per command (in the spirit of xdp-tools'
 * DEFINE_OPTION tables). The table parses, validates and refuses repeats, and
 * it writes the usage line, `COMMAND --help`, the summaries of `cubicctl help`
 * and `cubicctl help --options-json` (from which tools/doc/manpage.py writes
 * the man page's synopsis). Every parse error has the one wording
 * "cubicctl: COMMAND: WHAT: REASON" and exits 2.
 *
 * The global options (-j/--json, -v/--verbose, -h/--help) are taken before
 * the command and after it alike.
 */
#ifndef CUBICCTL_OPTS_H
#define CUBICCTL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Converts and checks val into *field; on error writes "REASON" (the option's
 * name comes before it) into err and returns -1.
 */
typedef int (*opt_parse_fn)(const char *val, void *field, char *err, size_t errlen);

struct opt {
	const char *name;   /* long name without "--" */
	char short_name;    /* -x, or 0 */
	const char *meta;   /* the value's placeholder ("NAME"); NULL: a flag (a bool field) */
	size_t offset;	    /* its field in the command's options struct */
	opt_parse_fn parse; /* NULL: the field is the value itself (const char *) */
	/* the choices shown in place of meta ("exact|fast"), or NULL */
	const char *(*choices)(char *buf, size_t len);
	const char *group;    /* options of one group exclude each other ("[--a | --b]") */
	const char *help;     /* one line for COMMAND --help */
	bool global;	      /* a field of g_opts, not of the command's options */
	bool repeat;	      /* may be given again: each value goes to parse ("[--dst P]...") */
};

/* A string option, a flag, and one with a parser, of struct type T. */
#define OPT_STR(n, m, T, f, h)		     { .name = n, .meta = m, .offset = offsetof(T, f), .help = h }
#define OPT_FLAG(n, T, f, h)		     { .name = n, .offset = offsetof(T, f), .help = h }
#define OPT_PARSED(n, m, T, f, fn, h)	     { .name = n, .meta = m, .offset = offsetof(T, f), .parse = fn, .help = h }
/* an option that may be given again; fn collects each value into the field */
#define OPT_REPEAT(n, m, T, f, fn, h)                                                              \
	{ .name = n, .meta = m, .offset = offsetof(T, f), .parse = fn, .help = h, .repeat = true }
#define OPT_END				     { .name = NULL }
/* --name NAME, the instance a command acts on (CUBIC_DEFAULT_NAME unless given) */
#define OPT_NAME(T, f)                                                                             \
	OPT_STR("name", "NAME", T, f, "the instance (default " CUBIC_DEFAULT_NAME ")")

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct opt *opts; /* ends with OPT_END */
	const char *args;	/* the positional arguments as usage shows them; NULL: none */
	int max_args;		/* -1: any number */
	const char *summary;	/* one phrase, for 'cubicctl help' */
	void (*describe)(FILE *f); /* the text of COMMAND --help after its usage */
};

/* The commands, in 'cubicctl help' order (main.c). */
extern const struct command *const commands[];
const struct command *command_find(const char *name);

enum {
	OPTS_OK = 0,
	OPTS_HELP = -1, /* --help was given: its text is printed, exit 0 */
};

/*
 * Parses argv[1..argc) of command c into opts (its struct, holding the
 * defaults) and g_opts. The positional words are moved to the front of argv
 * (argv[0..*nargs)). Returns OPTS_OK, OPTS_HELP, or EXIT_USAGE after one
 * sentence on stderr (and {"error": ...} under --json).
 */
int opts_parse(const struct command *c, int argc, char **argv, void *opts, int *nargs);

/*
 * The global options before a command: argv[1..*i) consumed; stops at the
 * first word that is not an option. Returns OPTS_OK, OPTS_HELP (-h given),
 * 1 for --version, or EXIT_USAGE.
 */
int opts_parse_global(int argc, char **argv, int *i);

/* "load [--name NAME] ... [KEY=VALUE...]": the synopsis of c, unwrapped. */
const char *opts_synopsis(const struct command *c, char *buf, size_t len);
/* COMMAND --help: usage, description, options. */
void opts_help(const struct command *c, FILE *f);
/* Every command and option as one JSON document (help --options-json). */
void opts_json(void);

#endif /* CUBICCTL_OPTS_H */
