// SPDX-License-Identifier: GPL-2.0
/* cubicctl unload [--name NAME] [--force] */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "cubicctl.h"
#include "attach.h"
#include "routes.h"

struct unload_opts {
	const char *name;
	bool force;
};

static const struct opt unload_opts[] = {
	OPT_NAME(struct unload_opts, name),
	OPT_FLAG("force", struct unload_opts, force,
		 "unload it even while it is the default (make cubic or reno the default first), "
		 "while attachments select it (detach them first) or routes name it"),
	OPT_END
};

static void describe(FILE *f)
{
	fprintf(f,
		"Unregisters the instance and removes its pins. Refuses while it is the system\n"
		"default (net.ipv4.tcp_congestion_control) unless --force, which first sets the\n"
		"default to 'cubic', or to 'reno' where cubic may not be the default (in a\n"
		"network namespace other than the host's, only an algorithm of\n"
		"net.ipv4.tcp_allowed_congestion_control may be; reno always is). Sockets\n"
		"already using it keep it until they close. It also refuses while 'cubicctl\n"
		"attach' attachments select it (--force detaches them first) or routes of this\n"
		"network namespace name it (ip route ... congctl NAME: with --force they are\n"
		"left naming nothing, and their connections start on the default; Debian 12's\n"
		"'ip route show' then crashes on a 'congctl lock' one). It unregisters only a bpf_cubic\n"
		"struct_ops map registered under exactly NAME (read through the kernel's BTF),\n"
		"and leaves anything else alone.\n");
}

const struct command cmd_unload_def = {
	.name = "unload",
	.run = cmd_unload,
	.opts = unload_opts,
	.max_args = 0,
	.summary = "unregister it, remove its pins",
	.describe = describe,
};

/* No pins: a registration of ours whose pins were lost can still be found by id. */
static int unload_unpinned(const char *name)
{
	struct instance in;
	int err;

	if (!ca_name_registered(name)) {
		errmsg("%s is not loaded", name);
		return EXIT_NOT_LOADED;
	}
	if (instance_find_unpinned(name, &in)) {
		errmsg("%s is registered, but not by cubicctl; not touching it", name);
		return EXIT_NOT_LOADED;
	}
	err = instance_unregister(&in);
	instance_close(&in);
	if (err == -EBUSY) {
		errmsg("can't unregister %s: its struct_ops link is pinned elsewhere (another "
		       "mount namespace's bpffs?) and this kernel cannot detach it (Linux 6.11 "
		       "can); remove that pin", name);
		return EXIT_FAIL;
	}
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
	struct unload_opts o = { .name = CUBIC_DEFAULT_NAME };
	const char *name, *fallback;
	char def[64] = "";
	struct instance in;
	enum instance_state st;
	int rc, lock, err, nargs;

	rc = opts_parse(&cmd_unload_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	name = o.name;
	rc = require_env_locked(name, &lock);
	if (rc)
		return rc;

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
	if (st == INST_REGISTERED) {
		static struct attach_info a[256];
		struct route_ref r[8];
		int na = 0, n = attach_list(a, 256), nr = routes_naming(name, r, 8);

		for (int i = 0; i < n; i++)
			na += !strcmp(a[i].name, name);
		if ((na || nr > 0) && !o.force) {
			if (na)
				errmsg("%d attachment%s %s ('cubicctl status' lists them); detach "
				       "them first ('cubicctl detach --name %s'), or use --force", na,
				       na > 1 ? "s select" : " selects", name, name);
			else
				errmsg("%d route%s %s as congctl (%s%s); delete %s first, or use "
				       "--force", nr, nr > 1 ? "s name" : " names", name, r[0].route,
				       nr > 1 ? ", ..." : "", nr > 1 ? "them" : "it");
			rc = EXIT_FAIL;
			goto out_close;
		}
		if (na && attach_detach_instance(name, false) < 0) {
			errmsg("can't detach the attachments of %s under %s", name, ATTACH_ROOT);
			rc = EXIT_FAIL;
			goto out_close;
		}
		for (int i = 0; i < nr && i < 8; i++)
			note("route %s names %s: it will name nothing", r[i].route, name);
	}
	if (st == INST_REGISTERED && !read_default_ca(def, sizeof(def)) && !strcmp(def, name)) {
		/* one choice, said and done alike */
		fallback = fallback_default_ca();
		if (!o.force) {
			errmsg("%s is the system default congestion control "
			       "(net.ipv4.tcp_congestion_control); set another default first, or "
			       "use --force to set it to %s", name, fallback);
			rc = EXIT_FAIL;
			goto out_close;
		}
		err = write_default_ca(fallback);
		if (err) {
			errmsg("can't set net.ipv4.tcp_congestion_control to %s: %s", fallback,
			       strerror(-err));
			rc = EXIT_FAIL;
			goto out_close;
		}
		note("net.ipv4.tcp_congestion_control was %s; set it to %s", name, fallback);
	}
	if (st == INST_REGISTERED) {
		err = instance_unregister(&in);
		if (err == -EBUSY) {
			errmsg("unpinned the struct_ops link of %s, but another process holds it, "
			       "so it stays registered until that process lets go (Linux 6.11 "
			       "detaches a link at once)", name);
			rc = EXIT_FAIL;
			goto out_close;
		}
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
