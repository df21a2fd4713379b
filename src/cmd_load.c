// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl load [--name NAME] [--preset PRESET] [--datapath exact|fast]
 *               [--config FILE | --config-optional FILE] [KEY=VALUE...]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cubicctl.h"
#include "loadconf.h"
#include "tunables.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: cubicctl load [--name NAME] [--preset PRESET] [--datapath exact|fast]\n"
		"                     [--ring-size BYTES]\n"
		"                     [--config FILE | --config-optional FILE] [KEY=VALUE...]\n"
		"Registers a bpf_cubic instance (default name %s) and exits; it stays\n"
		"registered until 'cubicctl unload'. Its maps are pinned under %s/NAME.\n"
		"NAME is 1 to %d letters (a-z, A-Z), digits or '_': what both the kernel and\n"
		"  bpffs accept.\n"
		"--datapath exact (default) hooks pkts_acked + cong_avoid like the kernel's\n"
		"  cubic; fast hooks cong_control: one BPF call per ACK instead of two, with\n"
		"  the kernel's PRR, pacing, idle restart and RFC 2861 done in BPF (README.md).\n"
		"--ring-size sets the events ring (a power of 2, at least 4096; default %u).\n"
		"--config FILE reads settings from FILE, one a line: preset=PRESET,\n"
		"  datapath=exact|fast or KEY=VALUE; '#' starts a comment line. The file's\n"
		"  preset applies first, then its keys, then the command line: a --preset\n"
		"  there replaces the whole set (the file's keys too), --datapath and\n"
		"  KEY=VALUE override the file's. A bad line or a missing FILE exits 2.\n"
		"--config-optional FILE is --config, but a FILE that does not exist means no\n"
		"  settings: the defaults (cubicctl@NAME.service reads its NAME.conf so).\n",
		CUBIC_DEFAULT_NAME, CUBIC_PIN_ROOT, CUBIC_NAME_MAX - 1, CUBIC_RING_DEFAULT);
}

/*
 * Reads and parses a config file into *c. 1: the file is absent and optional
 * (*c untouched); 0: parsed; -1: said why (one sentence), exit 2.
 */
static int read_config(const char *path, bool optional, struct loadconf *c)
{
	char *buf, err[2048];
	size_t len = 0;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && optional)
		return 1;
	if (fd < 0 && errno == ENOENT) {
		errmsg("--config: %s does not exist (--config-optional takes a missing file as "
		       "no settings)", path);
		return -1;
	}
	if (fd < 0) {
		errmsg("--config: can't open %s: %s", path, strerror(errno));
		return -1;
	}
	/* one byte more than a config may hold, so a larger file is seen as such */
	buf = malloc(LOADCONF_MAX_BYTES + 1);
	if (!buf) {
		errmsg("--config: out of memory");
		close(fd);
		return -1;
	}
	while (len <= LOADCONF_MAX_BYTES &&
	       (n = read(fd, buf + len, LOADCONF_MAX_BYTES + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errmsg("--config: can't read %s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	rc = loadconf_parse(buf, len, path, c, err, sizeof(err));
	free(buf);
	if (rc) {
		errmsg("%s", err);
		return -1;
	}
	return 0;
}

static int parse_ring_size(const char *s, __u32 *out)
{
	unsigned long long v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9' && v <= (1ULL << 31); p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (!*s || *p || v < 4096 || v > (1ULL << 30) || (v & (v - 1))) {
		errmsg("--ring-size: '%s' is not a power of 2 from 4096 to 1073741824 bytes", s);
		return -1;
	}
	*out = (__u32)v;
	return 0;
}

int cmd_load(int argc, char **argv)
{
	const char *name = CUBIC_DEFAULT_NAME, *preset = NULL, *ring = NULL, *dpath = NULL;
	const char *config = NULL, *file;
	bool config_optional = false, config_read = false;
	enum datapath dp = DATAPATH_EXACT;
	struct loadconf conf;
	__u32 ring_size = CUBIC_RING_DEFAULT;
	char *words[CUBIC_TUN_COUNT + 2], preset_word[80], err[256];
	struct cubic_tunables t;
	struct instance in;
	int nwords = 0, rc, lock;
	bool allowed;

	for (int i = 1; i < argc; i++) {
		bool optional = false;

		if (is_help(argv[i])) {
			usage();
			return EXIT_OK;
		}
		if (opt_value(argc, argv, &i, "--name", &name)) {
			if (!name)
				return EXIT_USAGE;
			continue;
		}
		if (opt_value(argc, argv, &i, "--preset", &preset)) {
			if (!preset)
				return EXIT_USAGE;
			continue;
		}
		if (opt_value(argc, argv, &i, "--datapath", &dpath)) {
			int v;

			if (!dpath)
				return EXIT_USAGE;
			v = datapath_parse(dpath);
			if (v < 0) {
				char names[64];

				errmsg("--datapath: '%s' is not one of: %s", dpath,
				       datapath_names(", ", names, sizeof(names)));
				return EXIT_USAGE;
			}
			dp = (enum datapath)v;
			continue;
		}
		if (opt_value(argc, argv, &i, "--config", &file) ||
		    (optional = opt_value(argc, argv, &i, "--config-optional", &file))) {
			if (!file)
				return EXIT_USAGE;
			if (!*file) {
				errmsg("--config: empty file name");
				return EXIT_USAGE;
			}
			if (config) {
				errmsg("one --config or --config-optional FILE, not two");
				return EXIT_USAGE;
			}
			config = file;
			config_optional = optional;
			continue;
		}
		if (opt_value(argc, argv, &i, "--ring-size", &ring)) {
			if (!ring)
				return EXIT_USAGE;
			if (parse_ring_size(ring, &ring_size))
				return EXIT_USAGE;
			continue;
		}
		if (argv[i][0] == '-') {
			errmsg("unknown option '%s'", argv[i]);
			return EXIT_USAGE;
		}
		if (nwords >= CUBIC_TUN_COUNT + 1) {
			errmsg("too many KEY=VALUE words");
			return EXIT_USAGE;
		}
		words[nwords++] = argv[i];
	}
	rc = check_instance_name(name);
	if (rc)
		return rc;

	cubic_tunables_defaults(&t);
	/* the file first: the command line's words apply on top of it */
	if (config) {
		switch (read_config(config, config_optional, &conf)) {
		case 0:
			t = conf.t;
			if (!dpath && conf.datapath >= 0)
				dp = (enum datapath)conf.datapath;
			config_read = true;
			break;
		case 1:
			note("no %s: the defaults apply", config);
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (preset) {
		snprintf(preset_word, sizeof(preset_word), "preset=%s", preset);
		words[nwords++] = preset_word;
	}
	if (tun_apply_args(nwords, words, &t, err, sizeof(err))) {
		/* with no words of its own, a rule spanning keys was broken by the file */
		if (config_read && !nwords)
			errmsg("%s: %s", config, err);
		else
			errmsg("%s", err);
		return EXIT_USAGE;
	}

	rc = require_root();
	rc = rc ?: require_btf();
	rc = rc ?: require_bpffs();
	if (rc)
		return rc;
	lock = lock_pin_root();
	if (lock < 0)
		return EXIT_FAIL;

	if (!instance_open(&in, name)) {
		enum instance_state st = instance_state(&in);

		instance_close(&in);
		if (st == INST_FOREIGN) {
			instance_foreign_msg(&in);
			rc = EXIT_FAIL;
			goto out;
		}
		if (st == INST_REGISTERED) {
			errmsg("%s is already loaded; 'cubicctl unload --name %s' first, or load "
			       "under another --name", name, name);
			rc = EXIT_FAIL;
			goto out;
		}
		if (instance_remove_pins(name)) {
			errmsg("can't remove the leftovers of an interrupted load in %s", in.dir);
			rc = EXIT_FAIL;
			goto out;
		}
		note("removed the leftovers of an interrupted load of %s", name);
	}
	if (ca_name_registered(name)) {
		int fd = instance_find_unpinned(name);

		if (fd >= 0) {
			close(fd);
			errmsg("%s is registered by cubicctl but its pins are gone; "
			       "'cubicctl unload --name %s' unregisters it", name, name);
		} else {
			errmsg("congestion control '%s' is already registered by something other "
			       "than cubicctl; load under another --name", name);
		}
		rc = EXIT_FAIL;
		goto out;
	}
	if (t.hystart == CUBIC_HYSTART_PREDICT && dp == DATAPATH_FAST &&
	    kstate_cong_control_args() == 2) {
		errmsg(PREDICT_NEEDS_610);
		rc = EXIT_FAIL;
		goto out;
	}
	if (instance_load(name, &t, ring_size, dp)) {
		rc = EXIT_FAIL;
		goto out;
	}
	/* Programs without CAP_NET_ADMIN may only pick allowed algorithms. */
	allowed = allow_ca(name) == 0;
	if (!allowed)
		note("loaded, but could not add %s to net.ipv4.tcp_allowed_congestion_control: "
		     "only privileged programs can select it", name);

	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "name", name);
		json_bool(j, "registered", true);
		json_bool(j, "allowed", allowed);
		json_str(j, "datapath", datapath_str(dp));
		json_str(j, "pins", in.dir);
		if (config_read)
			json_str(j, "config", config);
		else
			json_null(j, "config");
		json_obj_close(j);
		json_end(j);
	} else {
		printf("loaded %s, %s datapath%s%s (pins in %s)\n", name, datapath_str(dp),
		       config_read ? ", settings of " : "", config_read ? config : "", in.dir);
	}
	rc = EXIT_OK;
out:
	unlock_pin_root(lock);
	return rc;
}
