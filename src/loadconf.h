/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config file of 'cubicctl load --config FILE' (and of cubicctl@.service,
 * /etc/cubicctl/NAME.conf). Pure: no libbpf, no I/O, so the unit tests link it.
 *
 * One setting a line: preset=PRESET, datapath=exact|fast or KEY=VALUE (a
 * tunable, as on the command line), and any number of
 * attach=CGROUP [dst=PREFIX]... [port=PORT]... (cubicctl attach, once loaded). Blank lines and lines whose first
 * non-blank character is '#' are ignored; blanks around a line and around its
 * '=' are ignored. A '#' after a value is not a comment: the value is refused.
 * Each setting at most once. The file's preset applies first, then its keys,
 * whatever their order in the file.
 */
#ifndef CUBICCTL_LOADCONF_H
#define CUBICCTL_LOADCONF_H

#include <stddef.h>
#include "cubic_abi.h"
#include "attach.h"

/* Larger files are refused: a config is a few dozen lines. */
#define LOADCONF_MAX_BYTES 65536

#define LOADCONF_MAX_ATTACH 8

struct loadconf_attach {
	char cgroup[ATTACH_CGROUP_MAX]; /* as written: resolved when it is attached */
	struct attach_rules rules;
	unsigned line;
};

struct loadconf {
	struct cubic_tunables t; /* the defaults, then the file's preset, then its keys */
	int datapath;		 /* enum datapath, or -1 if the file names none */
	int nattach;
	struct loadconf_attach attach[LOADCONF_MAX_ATTACH];
};

/*
 * Parses len bytes of text read from file (named in messages only). Every line
 * is checked; on the first bad one returns -1 with one sentence in err that
 * starts "FILE:LINE: ". Rules spanning keys (tun_check) are left to the caller,
 * which checks them once the command line has been applied on top.
 */
int loadconf_parse(const char *text, size_t len, const char *file, struct loadconf *out, char *err,
		   size_t errlen);

#endif /* CUBICCTL_LOADCONF_H */
