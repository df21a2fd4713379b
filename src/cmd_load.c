// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl load [--name NAME] [--preset PRESET] [--datapath exact|fast]
 *               [--ring-size BYTES] [--config FILE | --config-optional FILE]
 *               [KEY=VALUE... | preset=PRESET | datapath=DATAPATH]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cubicctl.h"
#include "attach.h"
#include "loadconf.h"
#include "tunables.h"

struct load_opts {
	const char *name;
	const char *preset;
	int datapath; /* enum datapath, or -1: the config file's, or exact */
	__u32 ring_size;
	const char *config;
	const char *config_optional;
};

static int parse_ring_size(const char *s, void *field, char *err, size_t errlen)
{
	unsigned long long v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9' && v <= (1ULL << 31); p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (!*s || *p || v < 4096 || v > (1ULL << 30) || (v & (v - 1))) {
		snprintf(err, errlen, "'%s' is not a power of 2 from 4096 to 1073741824 bytes", s);
		return -1;
	}
	*(__u32 *)field = (__u32)v;
	return 0;
}

static int parse_preset(const char *s, void *field, char *err, size_t errlen)
{
	char list[160];

	if (!preset_find(s, NULL)) {
		snprintf(err, errlen, "unknown preset '%s' (known: %s)", s,
			 preset_names(", ", list, sizeof(list)));
		return -1;
	}
	*(const char **)field = s;
	return 0;
}

static int parse_file(const char *s, void *field, char *err, size_t errlen)
{
	if (!*s) {
		snprintf(err, errlen, "empty file name");
		return -1;
	}
	*(const char **)field = s;
	return 0;
}

static const struct opt load_opts[] = {
	OPT_STR("name", "NAME", struct load_opts, name,
		"the congestion-control name (default " CUBIC_DEFAULT_NAME ")"),
	OPT_PARSED("preset", "PRESET", struct load_opts, preset, parse_preset,
		   "a whole set of tunables (as preset=PRESET)"),
	{ .name = "datapath", .meta = "DATAPATH", .offset = offsetof(struct load_opts, datapath),
	  .parse = parse_datapath, .choices = datapath_choices,
	  .help = "how the kernel calls it on each ACK (as datapath=DATAPATH)" },
	OPT_PARSED("ring-size", "BYTES", struct load_opts, ring_size, parse_ring_size,
		   "the events ring: a power of 2, at least 4096"),
	{ .name = "config", .meta = "FILE", .offset = offsetof(struct load_opts, config),
	  .parse = parse_file, .group = "config", .help = "settings from FILE, one a line" },
	{ .name = "config-optional", .meta = "FILE",
	  .offset = offsetof(struct load_opts, config_optional), .parse = parse_file,
	  .group = "config", .help = "--config, but a FILE that does not exist means none" },
	OPT_END
};

static void describe(FILE *f)
{
	fprintf(f,
		"Registers a bpf_cubic instance (default name %s) and exits; it stays\n"
		"registered until 'cubicctl unload'. Its maps are pinned under %s/NAME.\n"
		"NAME is 1 to %d letters (a-z, A-Z), digits or '_': what both the kernel and\n"
		"  bpffs accept.\n"
		"A word is KEY=VALUE (a tunable; KEY=default), preset=PRESET or\n"
		"  datapath=DATAPATH, as a line of a config file.\n"
		"--datapath exact (default) hooks pkts_acked + cong_avoid like the kernel's\n"
		"  cubic; fast hooks cong_control: one BPF call per ACK instead of two, with\n"
		"  the kernel's PRR, pacing, idle restart and RFC 2861 done in BPF (README.md).\n"
		"--ring-size sets the events ring (default %u bytes).\n"
		"--config FILE reads settings from FILE, one a line: preset=PRESET,\n"
		"  datapath=DATAPATH or KEY=VALUE; '#' starts a comment line. The file's\n"
		"  preset applies first, then its keys, then the command line: a --preset\n"
		"  there replaces the whole set (the file's keys too), --datapath and\n"
		"  KEY=VALUE override the file's. A bad line or a missing FILE exits 2.\n"
		"--config-optional FILE is --config, but a FILE that does not exist means no\n"
		"  settings: the defaults (cubicctl@NAME.service reads its NAME.conf so).\n"
		"On Linux 6.4 and later it registers through a struct_ops link, pinned beside\n"
		"  the maps, which 'cubicctl upgrade' updates in place; on older kernels (or\n"
		"  with %s=0 in the environment) through the struct_ops map itself:\n"
		"  map mode. $%s is mixed into the build id ('cubicctl help\n"
		"  upgrade').\n",
		CUBIC_DEFAULT_NAME, CUBIC_PIN_ROOT, CUBIC_NAME_MAX - 1, CUBIC_RING_DEFAULT,
		LINK_MODE_ENV, BUILD_TAG_ENV);
}

const struct command cmd_load_def = {
	.name = "load",
	.run = cmd_load,
	.opts = load_opts,
	.args = "[KEY=VALUE...]",
	.max_args = -1,
	.summary = "register an instance",
	.describe = describe,
};

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

/* Unregisters and unpins an instance this load just made (an attach= line failed). */
static void unload_new(const char *name)
{
	struct instance in;

	if (instance_open(&in, name))
		return;
	if (instance_state(&in) == INST_REGISTERED)
		instance_unregister(&in);
	instance_close(&in);
	instance_remove_pins(name);
}

int cmd_load(int argc, char **argv)
{
	struct load_opts o = { .name = CUBIC_DEFAULT_NAME, .datapath = -1,
			       .ring_size = CUBIC_RING_DEFAULT };
	const char *name, *config;
	bool config_read = false;
	enum datapath dp = DATAPATH_EXACT;
	static struct loadconf conf;
	static char cgroups[LOADCONF_MAX_ATTACH][PATH_MAX];
	int ids[LOADCONF_MAX_ATTACH] = { 0 };
	char *words[CUBIC_TUN_COUNT + 2], preset_word[80], err[256];
	struct cubic_tunables t;
	struct instance in;
	int nwords = 0, nargs, rc, lock;
	bool allowed;

	rc = opts_parse(&cmd_load_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	name = o.name;
	config = o.config ?: o.config_optional;
	/* datapath=DATAPATH: as in a config file; the others are tunables' words */
	for (int i = 0; i < nargs; i++) {
		if (!strncmp(argv[i], "datapath=", 9)) {
			if (o.datapath >= 0) {
				errmsg("%s: the datapath is given twice (--datapath, datapath=)",
				       argv[i]);
				return EXIT_USAGE;
			}
			if (parse_datapath(argv[i] + 9, &o.datapath, err, sizeof(err))) {
				errmsg("datapath: %s", err);
				return EXIT_USAGE;
			}
			continue;
		}
		if (nwords >= CUBIC_TUN_COUNT + 1) {
			errmsg("'%s': too many KEY=VALUE words (a key may come once)", argv[i]);
			return EXIT_USAGE;
		}
		words[nwords++] = argv[i];
	}
	if (o.datapath >= 0)
		dp = (enum datapath)o.datapath;
	rc = check_instance_name(name);
	if (rc)
		return rc;

	cubic_tunables_defaults(&t);
	/* the file first: the command line's words apply on top of it */
	if (config) {
		switch (read_config(config, !!o.config_optional, &conf)) {
		case 0:
			t = conf.t;
			if (o.datapath < 0 && conf.datapath >= 0)
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
	if (o.preset) {
		snprintf(preset_word, sizeof(preset_word), "preset=%s", o.preset);
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

	rc = require_env_locked(name, &lock);
	if (rc)
		return rc;

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
		struct instance found;

		if (!instance_find_unpinned(name, &found)) {
			instance_close(&found);
			errmsg("%s is registered by cubicctl but its pins are gone; "
			       "'cubicctl unload --name %s' unregisters it", name, name);
		} else {
			errmsg("congestion control '%s' is already registered by something other "
			       "than cubicctl; load under another --name", name);
		}
		rc = EXIT_FAIL;
		goto out;
	}
	/* the file's attach= lines: their cgroups must be there before anything is made */
	for (int i = 0; config_read && i < conf.nattach; i++) {
		char why[PATH_MAX + 64];

		if (attach_resolve_cgroup(conf.attach[i].cgroup, cgroups[i], sizeof(cgroups[i]), why,
					  sizeof(why))) {
			errmsg("%s:%u: %s", config, conf.attach[i].line, why);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (rule_refused(dp, t.hystart, err, sizeof(err))) {
		errmsg("%s", err);
		rc = EXIT_FAIL;
		goto out;
	}
	if (instance_load(name, &t, o.ring_size, dp)) {
		rc = EXIT_FAIL;
		goto out;
	}
	for (int i = 0; config_read && i < conf.nattach; i++) {
		if (attach_create(name, cgroups[i], &conf.attach[i].rules, &ids[i])) {
			/* all or nothing: what this load made goes */
			attach_detach_instance(name, true);
			unload_new(name);
			errmsg("%s:%u: not loaded: the attachment failed", config,
			       conf.attach[i].line);
			rc = EXIT_FAIL;
			goto out;
		}
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
		json_str_or_null(j, "config", config_read ? config : NULL);
		json_arr_open(j, "attached");
		for (int i = 0; config_read && i < conf.nattach; i++) {
			json_obj_open(j, NULL);
			json_u64(j, "id", (unsigned)ids[i]);
			json_str(j, "cgroup", cgroups[i]);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
		json_end(j);
	} else {
		printf("loaded %s, %s datapath%s%s (pins in %s)\n", name, datapath_str(dp),
		       config_read ? ", settings of " : "", config_read ? config : "", in.dir);
		for (int i = 0; config_read && i < conf.nattach; i++) {
			char rules[512];

			attach_rules_str(&conf.attach[i].rules, rules, sizeof(rules));
			printf("attached %d: %s for %s (%s)\n", ids[i], name, cgroups[i], rules);
		}
	}
	rc = EXIT_OK;
out:
	unlock_pin_root(lock);
	return rc;
}
