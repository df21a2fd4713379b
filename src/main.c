// SPDX-License-Identifier: GPL-2.0
/* cubicctl: load, tune and watch bpf_cubic. Dispatch and help. */
#include <string.h>
#include "cubicctl.h"
#include "tunables.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "load", cmd_load,
	  "load [--name NAME] [--preset P] [--datapath exact|fast] [--config FILE] [KEY=VALUE...]  "
	  "register an instance" },
	{ "unload", cmd_unload, "unload [--name NAME] [--force]  unregister it, remove its pins" },
	{ "status", cmd_status,
	  "status [--name NAME] [--prometheus]  instances, sockets, counters, tunables" },
	{ "set", cmd_set, "set [--name NAME] KEY=VALUE... | preset=P  change tunables live" },
	{ "get", cmd_get, "get [--name NAME] [KEY...]  the tunables in force" },
	{ "trace", cmd_trace,
	  "trace [--name NAME] [--count N] [--duration S] [--port P] [--addr A]  live exits" },
	{ "help", cmd_help, "help  this text" },
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

int cmd_help(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--markdown")) {
		help_markdown();
		return EXIT_OK;
	}
	/* The exit reasons, counters and datapaths for tools/ (include/cubic_abi.h). */
	if (argc > 1 && !strcmp(argv[1], "--reasons-json")) {
		vocab_json(json_stdout());
		return EXIT_OK;
	}
	printf("usage: cubicctl [-j|--json] [-v|--verbose] COMMAND [ARGS]\n"
	       "       cubicctl --version\n\n"
	       "bpf_cubic is CUBIC with HyStart as a BPF struct_ops congestion control.\n"
	       "Programs select it with setsockopt(TCP_CONGESTION, NAME) or iperf3 -C NAME.\n\n"
	       "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %s\n", commands[i].summary);
	printf("\n'cubicctl COMMAND --help' describes one command.\n\n"
	       "tunables (KEY=VALUE):\n");
	for (int i = 0; i < CUBIC_TUN_COUNT; i++) {
		const struct tun_desc *d = &tun_table[i];

		printf("  %-22s default %-6u range %u..%u %s\n      %s\n", d->name, d->def, d->min,
		       d->max, d->unit, d->help);
	}
	printf("\npresets (--preset NAME or preset=NAME):\n");
	for (const struct tun_preset *p = tun_presets; p->name; p++)
		printf("  %-14s %s\n", p->name, p->help);
	printf("\nexit codes: %d ok, %d failed, %d usage or bad input, %d not loaded\n", EXIT_OK,
	       EXIT_FAIL, EXIT_USAGE, EXIT_NOT_LOADED);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			g_opts.json = true;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			g_opts.verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			return cmd_help(0, NULL);
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			return print_version();
		} else {
			errmsg("unknown option '%s' (see 'cubicctl help')", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		errmsg("no command given (see 'cubicctl help')");
		return EXIT_USAGE;
	}
	setup_libbpf_logging();
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		if (!strcmp(argv[i], commands[c].name)) {
			int sub_argc = argc - i;
			char **sub_argv = argv + i;

			g_opts.cmd = commands[c].name;
			/* -j/--json are accepted after the command too */
			for (int k = 1; k < sub_argc; k++) {
				if (!strcmp(sub_argv[k], "-j") || !strcmp(sub_argv[k], "--json")) {
					g_opts.json = true;
					memmove(&sub_argv[k], &sub_argv[k + 1],
						sizeof(char *) * (size_t)(sub_argc - k - 1));
					sub_argc--;
					k--;
				}
			}
			return commands[c].fn(sub_argc, sub_argv);
		}
	}
	errmsg("unknown command '%s' (see 'cubicctl help')", argv[i]);
	return EXIT_USAGE;
}
