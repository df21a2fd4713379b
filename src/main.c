// SPDX-License-Identifier: GPL-2.0
/* cubicctl: load, tune and watch bpf_cubic. Dispatch and help. */
#include <signal.h>
#include <string.h>
#include "cubicctl.h"
#include "tunables.h"
#include "version.h"

const struct command *const commands[] = {
	&cmd_load_def,	 &cmd_unload_def, &cmd_status_def, &cmd_set_def, &cmd_get_def,
	&cmd_trace_def,	 &cmd_flows_def, &cmd_policers_def, &cmd_attach_def, &cmd_detach_def, &cmd_upgrade_def,
	&cmd_help_def,	 NULL,
};

/* The tunables as a Markdown table: README.md embeds exactly this (a test checks). */
static void help_markdown(void)
{
	printf("| key | default | range | unit | meaning |\n|---|---|---|---|---|\n");
	for (int i = 0; i < CUBIC_TUN_COUNT; i++) {
		const struct tun_desc *d = &tun_table[i];

		printf("| `%s` | %u | %u..%u | %s | %s |\n", d->name, d->def, d->min, d->max, d->unit,
		       d->help);
	}
}

/* cubicctl --version: "cubicctl 0.5.0 (f86712c-dirty), ABI 2" */
static int print_version(void)
{
	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "version", CUBICCTL_VERSION);
		json_str(j, "git", CUBICCTL_GIT);
		json_u64(j, "abi_version", CUBIC_ABI_VERSION);
		json_obj_close(j);
		json_end(j);
	} else {
		printf("cubicctl %s (%s), ABI %d\n", CUBICCTL_VERSION, CUBICCTL_GIT, CUBIC_ABI_VERSION);
	}
	return EXIT_OK;
}

struct help_opts {
	bool markdown, reasons_json, options_json;
};

static const struct opt help_opts[] = {
	{ .name = "markdown", .offset = offsetof(struct help_opts, markdown), .group = "what",
	  .help = "the tunables as a Markdown table (README.md embeds it)" },
	{ .name = "reasons-json", .offset = offsetof(struct help_opts, reasons_json),
	  .group = "what",
	  .help = "the exit reasons, counters, datapaths and rules as JSON, for tools/" },
	{ .name = "options-json", .offset = offsetof(struct help_opts, options_json),
	  .group = "what",
	  .help = "every command and option as JSON (tools/doc/manpage.py, completion)" },
	OPT_END
};

static void help_describe(FILE *f)
{
	fprintf(f, "Describes cubicctl, or COMMAND as 'cubicctl COMMAND --help' does; under -j\n"
		   "it prints --options-json.\n");
}

static void help_general(void)
{
	char syn[512];

	printf("usage: cubicctl [-j|--json] [-v|--verbose] COMMAND [ARGS]\n"
	       "       cubicctl --version\n\n"
	       "bpf_cubic is CUBIC with HyStart as a BPF struct_ops congestion control.\n"
	       "Programs select it with setsockopt(TCP_CONGESTION, NAME) or iperf3 -C NAME.\n\n"
	       "commands:\n");
	for (int i = 0; commands[i]; i++)
		printf("  %s  %s\n", opts_synopsis(commands[i], syn, sizeof(syn)),
		       commands[i]->summary);
	printf("\n'cubicctl COMMAND --help' describes one command; -j and -v go before or\n"
	       "after it.\n\n"
	       "tunables (KEY=VALUE; KEY=default restores the default):\n");
	for (int i = 0; i < CUBIC_TUN_COUNT; i++) {
		const struct tun_desc *d = &tun_table[i];

		printf("  %-22s default %-6u range %u..%u %s\n      %s\n", d->name, d->def, d->min,
		       d->max, d->unit, d->help);
	}
	printf("\nslow-start rules (hystart=NAME):\n");
	for (int i = 0; i < RULE_COUNT; i++)
		printf("  %-14s %s%s%s%s\n", rules[i].name, rules[i].help,
		       *rules[i].aliases ? " (also: " : "", rules[i].aliases,
		       *rules[i].aliases ? ")" : "");
	printf("\npresets (--preset NAME or preset=NAME):\n");
	{
		const struct rule_desc *r = NULL;

		for (const struct rule_preset *p = NULL; (p = preset_next(p, &r));)
			printf("  %-14s %s\n", p->name, p->help);
	}
	printf("\nexit codes: %d ok, %d failed, %d usage or bad input, %d not loaded\n", EXIT_OK,
	       EXIT_FAIL, EXIT_USAGE, EXIT_NOT_LOADED);
}

int cmd_help(int argc, char **argv)
{
	struct help_opts o = { false };
	const struct command *c;
	int nargs, rc;

	rc = opts_parse(&cmd_help_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	if (nargs && (o.markdown || o.reasons_json || o.options_json)) {
		errmsg("'%s': not together with an option", argv[0]);
		return EXIT_USAGE;
	}
	if (o.markdown) {
		help_markdown();
		return EXIT_OK;
	}
	/* The exit reasons, counters, datapaths and rules for tools/ (include/cubic_abi.h). */
	if (o.reasons_json) {
		vocab_json(json_stdout());
		return EXIT_OK;
	}
	if (o.options_json || (g_opts.json && !nargs)) {
		opts_json();
		return EXIT_OK;
	}
	if (nargs) {
		c = command_find(argv[0]);
		if (!c) {
			errmsg("'%s': unknown command (see 'cubicctl help')", argv[0]);
			return EXIT_USAGE;
		}
		opts_help(c, stdout);
		return EXIT_OK;
	}
	help_general();
	return EXIT_OK;
}

const struct command cmd_help_def = {
	.name = "help",
	.run = cmd_help,
	.opts = help_opts,
	.args = "[COMMAND]",
	.max_args = 1,
	.summary = "this text, or COMMAND's",
	.describe = help_describe,
};

int main(int argc, char **argv)
{
	const struct command *c;
	int i = 1, rc;

	rc = opts_parse_global(argc, argv, &i);
	if (rc == EXIT_USAGE)
		return rc;
	/* a write error (a full disk, a closed pipe) fails the command: stdout_ok() */
	signal(SIGPIPE, SIG_IGN);
	if (rc == 1) {
		rc = print_version();
	} else if (rc == OPTS_HELP) {
		rc = cmd_help(1, argv);
	} else if (i >= argc) {
		errmsg("no command given (see 'cubicctl help')");
		return EXIT_USAGE;
	} else {
		c = command_find(argv[i]);
		if (!c) {
			errmsg("'%s': unknown command (see 'cubicctl help')", argv[i]);
			return EXIT_USAGE;
		}
		g_opts.cmd = c->name;
		setup_libbpf_logging();
		rc = c->run(argc - i, argv + i);
	}
	return stdout_ok() ? rc : EXIT_FAIL;
}
