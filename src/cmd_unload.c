// SPDX-License-Identifier: GPL-2.0
/* cubicctl unload [--name NAME] [--force] */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "cubicctl.h"

#define FALLBACK_CA "cubic"
/* Outside the initial netns only allowed algorithms may be the default. */
#define FALLBACK_CA_NETNS "reno"

static void usage(void)
{
	fprintf(stderr,
		"usage: cubicctl unload [--name NAME] [--force]\n"
		"Unregisters the instance and removes its pins. Refuses while it is the system\n"
		"default (net.ipv4.tcp_congestion_control) unless --force, which first sets the\n"
		"default back to '%s'. Sockets already using it keep it until they close.\n"
		"It unregisters only a bpf_cubic struct_ops map registered under exactly NAME\n"
		"(read through the kernel's BTF), and leaves anything else alone.\n",
		FALLBACK_CA);
}

/* No pins: a registration of ours whose pins were lost can still be found by id. */
static int unload_unpinned(const char *name)
{
	int fd, err;

	if (!ca_name_registered(name)) {
		errmsg("%s is not loaded", name);
		return EXIT_NOT_LOADED;
	}
	fd = instance_find_unpinned(name);
	if (fd < 0) {
		errmsg("%s is registered, but not by cubicctl; not touching it", name);
		return EXIT_NOT_LOADED;
	}
	err = instance_unregister(fd, name);
	close(fd);
	if (err) {
		errmsg("can't unregister %s: %s", name, strerror(-err));
		return EXIT_FAIL;
	}
	note("%s had no pins (loaded from another mount namespace?); unregistered it", name);
	if (!g_opts.json)
		printf("unloaded %s\n", name);
	return EXIT_OK;
}

int cmd_unload(int argc, char **argv)
{
	const char *name = CUBIC_DEFAULT_NAME;
	char def[64] = "";
	struct instance in;
	enum instance_state st;
	bool force = false;
	int rc, lock, err;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			usage();
			return EXIT_OK;
		}
		if (opt_value(argc, argv, &i, "--name", &name)) {
			if (!name)
				return EXIT_USAGE;
			continue;
		}
		if (!strcmp(argv[i], "--force")) {
			force = true;
			continue;
		}
		errmsg("unknown argument '%s'", argv[i]);
		return EXIT_USAGE;
	}
	rc = require_env(name);
	if (rc)
		return rc;
	lock = lock_pin_root();
	if (lock < 0)
		return EXIT_FAIL;

	if (instance_open(&in, name)) {
		rc = unload_unpinned(name);
		goto out;
	}
	st = instance_state(&in);
	if (st == INST_FOREIGN) {
		instance_foreign_msg(&in);
		rc = EXIT_FAIL;
		goto out_close;
	}
	if (st == INST_REGISTERED && !read_default_ca(def, sizeof(def)) && !strcmp(def, name)) {
		if (!force) {
			errmsg("%s is the system default congestion control "
			       "(net.ipv4.tcp_congestion_control); set another default first, or "
			       "use --force to set it back to %s", name, FALLBACK_CA);
			rc = EXIT_FAIL;
			goto out_close;
		}
		const char *fallback = FALLBACK_CA;

		err = write_default_ca(fallback);
		if (err == -EPERM) {
			fallback = FALLBACK_CA_NETNS;
			err = write_default_ca(fallback);
		}
		if (err) {
			errmsg("can't set net.ipv4.tcp_congestion_control to %s: %s", FALLBACK_CA,
			       strerror(-err));
			rc = EXIT_FAIL;
			goto out_close;
		}
		note("net.ipv4.tcp_congestion_control was %s; set it back to %s", name, fallback);
	}
	if (st == INST_REGISTERED) {
		err = instance_unregister(in.ops_fd, name);
		if (err) {
			errmsg("can't unregister %s: %s", name, strerror(-err));
			rc = EXIT_FAIL;
			goto out_close;
		}
	}
	instance_close(&in);
	err = instance_remove_pins(name);
	if (err) {
		errmsg("unregistered %s, but can't remove %s: %s", name, in.dir, strerror(-err));
		rc = EXIT_FAIL;
		goto out;
	}
	if (st != INST_REGISTERED)
		note("%s was not registered; removed the leftovers of an interrupted load", name);

	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "name", name);
		json_bool(j, "unregistered", st == INST_REGISTERED);
		json_bool(j, "pins_removed", true);
		json_obj_close(j);
		json_end(j);
	} else {
		printf("unloaded %s\n", name);
	}
	rc = EXIT_OK;
	goto out;
out_close:
	instance_close(&in);
out:
	unlock_pin_root(lock);
	return rc;
}
