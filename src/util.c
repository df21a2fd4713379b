// SPDX-License-Identifier: GPL-2.0
/* cubicctl helpers: messages, privilege and environment checks, locking, sysctls. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define SYSCTL_AVAILABLE "/proc/sys/net/ipv4/tcp_available_congestion_control"
#define SYSCTL_DEFAULT	 "/proc/sys/net/ipv4/tcp_congestion_control"
#define SYSCTL_ALLOWED	 "/proc/sys/net/ipv4/tcp_allowed_congestion_control"

struct global_opts g_opts;

static void vmsg(bool error, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "cubicctl: %s%s%s\n", g_opts.cmd ?: "", g_opts.cmd ? ": " : "", msg);
	/* scripts reading -j get the error as data too (as bpftool's {"error": ...}) */
	if (error && g_opts.json && !g_opts.json_written) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_str(j, "error", msg);
		json_obj_close(j);
		json_end(j);
	}
}

void errmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(true, fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(false, fmt, ap);
	va_end(ap);
}

struct json *json_stdout(void)
{
	static struct json j;

	g_opts.json_written = true;
	json_init(&j, stdout);
	return &j;
}

bool stdout_ok(void)
{
	int err = 0;

	if (fflush(stdout)) {
		err = errno;
	} else if (ferror(stdout)) {
		/* a flush that failed before (json_end's): once more, for its reason */
		clearerr(stdout);
		if (fputc('\n', stdout) == EOF || fflush(stdout))
			err = errno;
		else
			err = EIO;
	}
	if (!err)
		return true;
	g_opts.json_written = true; /* no {"error"} where the output can't go */
	errmsg("can't write the output: %s", err ? strerror(err) : "write error");
	return false;
}

int require_root(void)
{
	if (geteuid() != 0) {
		errmsg("must be run as root (it loads BPF programs and changes kernel state); try sudo");
		return EXIT_FAIL;
	}
	return 0;
}

int require_btf(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		errmsg("kernel BTF missing: /sys/kernel/btf/vmlinux is needed "
		       "(a kernel built with CONFIG_DEBUG_INFO_BTF=y)");
		return EXIT_FAIL;
	}
	return 0;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && (unsigned long)st.f_type == BPF_FS_MAGIC;
}

/* 1 if we share pid 1's namespace of kind ("mnt", "net"), 0 if not or if that can't be read. */
static int in_init_ns(const char *kind)
{
	char self[64], init[64], a_path[64], b_path[64];
	ssize_t a, b;

	snprintf(a_path, sizeof(a_path), "/proc/self/ns/%s", kind);
	snprintf(b_path, sizeof(b_path), "/proc/1/ns/%s", kind);
	a = readlink(a_path, self, sizeof(self) - 1);
	b = readlink(b_path, init, sizeof(init) - 1);
	if (a <= 0 || b <= 0)
		return 0;
	self[a] = init[b] = '\0';
	return !strcmp(self, init);
}

/*
 * bpffs must be mounted at /sys/fs/bpf. Mount it only when this is surely the
 * host's mount namespace: under 'ip netns exec' /sys is private, and pins in a
 * bpffs mounted there would vanish with it.
 */
int require_bpffs(void)
{
	if (is_bpffs("/sys/fs/bpf"))
		return 0;
	if (in_init_ns("mnt") && !mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
		if (g_opts.verbose)
			note("mounted bpffs at /sys/fs/bpf");
		return 0;
	}
	errmsg("bpffs missing: /sys/fs/bpf is not a bpf filesystem; mount it with "
	       "'mount -t bpf bpf /sys/fs/bpf' (under 'ip netns exec', whose /sys is private, "
	       "run cubicctl outside it instead, e.g. with nsenter --net)");
	return EXIT_FAIL;
}

int require_env(const char *name)
{
	int rc = name ? check_instance_name(name) : 0;

	rc = rc ?: require_root();
	rc = rc ?: require_btf(); /* registration state is read through vmlinux BTF */
	return rc ?: require_bpffs();
}

/*
 * The kernel takes a congestion-control name of 1 to 15 bytes of its isalnum(),
 * '_' and '.' (bpf_obj_name_cpy() in bpf_tcp_ca_init_member()). bpffs refuses
 * '.' in the pin folder's name, and the kernel's isalnum() also takes Latin-1
 * letters (bytes 0xc0-0xff), which are not UTF-8 and so could not go into JSON
 * or a terminal intact: cubicctl takes ASCII letters, digits and '_'.
 */
static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

int check_instance_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= CUBIC_NAME_MAX) {
		errmsg("instance name '%s' must be 1 to %d characters long", name,
		       CUBIC_NAME_MAX - 1);
		return EXIT_USAGE;
	}
	for (const char *p = name; *p; p++) {
		if (!name_char_ok(*p)) {
			errmsg("instance name '%s' may hold only letters a-z and A-Z, digits and '_'",
			       name);
			return EXIT_USAGE;
		}
	}
	return 0;
}

int lock_pin_root(void)
{
	int fd;

	if (mkdir(CUBIC_PIN_ROOT, 0700) && errno != EEXIST) {
		errmsg("can't create %s: %s", CUBIC_PIN_ROOT, strerror(errno));
		return -1;
	}
	fd = open(CUBIC_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		errmsg("can't open %s: %s", CUBIC_PIN_ROOT, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX)) {
		errmsg("can't lock %s: %s", CUBIC_PIN_ROOT, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int require_env_locked(const char *name, int *lock)
{
	int rc = require_env(name);

	if (rc)
		return rc;
	*lock = lock_pin_root();
	return *lock < 0 ? EXIT_FAIL : 0;
}

void unlock_pin_root(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static bool in_list_file(const char *path, const char *name);

bool ca_name_registered(const char *name)
{
	return in_list_file(SYSCTL_AVAILABLE, name);
}

static bool in_list_file(const char *path, const char *name)
{
	char buf[4096], *save, *tok;

	if (read_file(path, buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

/*
 * The kernel lets a network namespace other than the host's make only an
 * algorithm of net.ipv4.tcp_allowed_congestion_control its default
 * (tcp_set_default_congestion_control(): -EPERM otherwise); reno is always
 * allowed. So the default 'unload --force' restores is cubic where it may
 * be the default, and reno where it may not.
 */
const char *fallback_default_ca(void)
{
	if (ca_name_registered("cubic") &&
	    (in_init_ns("net") || in_list_file(SYSCTL_ALLOWED, "cubic")))
		return "cubic";
	return "reno";
}

int read_default_ca(char *buf, size_t len)
{
	return read_file(SYSCTL_DEFAULT, buf, len);
}

int write_default_ca(const char *name)
{
	int fd = open(SYSCTL_DEFAULT, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, name, strlen(name));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Lets unprivileged programs select name (net.ipv4.tcp_allowed_congestion_control). */
int allow_ca(const char *name)
{
	char cur[4096], next[4096 + CUBIC_NAME_MAX + 2];
	int fd, err;
	ssize_t n;

	err = read_file(SYSCTL_ALLOWED, cur, sizeof(cur));
	if (err)
		return err;
	snprintf(next, sizeof(next), "%s%s%s", cur, *cur ? " " : "", name);
	fd = open(SYSCTL_ALLOWED, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, next, strlen(next));
	close(fd);
	return n < 0 ? -errno : 0;
}

int parse_datapath(const char *val, void *field, char *err, size_t errlen)
{
	int v = datapath_parse(val);
	char names[64];

	if (v < 0) {
		snprintf(err, errlen, "'%s' is not one of: %s", val,
			 datapath_names(", ", names, sizeof(names)));
		return -1;
	}
	*(int *)field = v;
	return 0;
}

const char *datapath_choices(char *buf, size_t len)
{
	return datapath_names("|", buf, len);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; /* warnings too: our own message says what failed */
	if (!g_opts.verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void setup_libbpf_logging(void)
{
	libbpf_set_print(libbpf_print);
}
