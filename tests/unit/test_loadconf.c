// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the config file parser of 'cubicctl load --config'
 * (src/loadconf.c): what a file sets, in which order, and that every bad line
 * is refused with one sentence naming FILE:LINE, leaving the result untouched.
 */
#include <string.h>
#include "loadconf.h"
#include "tunables.h"
#include "vocab.h"
#include "unit.h"

static int parse(const char *text, struct loadconf *c, char *err, size_t len)
{
	err[0] = '\0';
	return loadconf_parse(text, strlen(text), "/etc/cubicctl/t.conf", c, err, len);
}

static struct cubic_tunables defaults(void)
{
	struct cubic_tunables t;

	cubic_tunables_defaults(&t);
	return t;
}

TEST(empty_and_comments_are_defaults)
{
	const char *texts[] = { "", "\n\n", "# only a comment\n", "   # indented comment\n\t\n",
				"# no newline at the end" };
	struct cubic_tunables def = defaults();
	char err[512];

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct loadconf c;

		CHECK(parse(texts[i], &c, err, sizeof(err)) == 0, "'%s': %s", texts[i], err);
		CHECK(!memcmp(&c.t, &def, sizeof(def)), "'%s' changed a value", texts[i]);
		CHECK_EQ(c.datapath, -1);
	}
}

TEST(keys_preset_datapath)
{
	struct loadconf c;
	char err[512];
	int rc;

	rc = parse("# boot-time settings\n"
		   "\n"
		   "beta=800\n"
		   "  ack_train_shift = 2  \n"
		   "hystart_detect=delay\r\n"
		   "datapath=fast\n",
		   &c, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	CHECK_EQ(c.t.beta, 800);
	CHECK_EQ(c.t.ack_train_shift, 2);
	CHECK_EQ(c.t.hystart_detect, CUBIC_HYSTART_DELAY);
	CHECK_EQ(c.t.bic_scale, CUBIC_DEF_bic_scale); /* the rest: defaults */
	CHECK_EQ(c.datapath, DATAPATH_FAST);

	rc = parse("datapath=exact", &c, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	CHECK_EQ(c.datapath, DATAPATH_EXACT);
}

/* The preset applies first, then the keys, wherever the preset line is. */
TEST(preset_then_keys_in_any_order)
{
	struct cubic_tunables want;
	struct loadconf a, b;
	char err[512];

	tun_preset("nussbaum-2011", &want);
	want.beta = 600;
	CHECK(parse("preset=nussbaum-2011\nbeta=600\n", &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(parse("beta=600\npreset=nussbaum-2011\n", &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(!memcmp(&a.t, &want, sizeof(want)), "preset then key: not the preset + beta=600");
	CHECK(!memcmp(&b.t, &want, sizeof(want)), "key then preset: not the preset + beta=600");

	CHECK(parse("preset=hystart++\n", &a, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(a.t.hystart, CUBIC_HYSTART_PP);
	CHECK(parse("preset=off\nhystart=linux\n", &a, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(a.t.hystart, CUBIC_HYSTART_LINUX);
}

/* A rule spanning keys is the caller's, after the command line: not refused here. */
TEST(cross_key_rule_left_to_caller)
{
	struct loadconf c;
	char err[512];

	CHECK(parse("delay_thresh_min_us=20000\n", &c, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(c.t.delay_thresh_min_us, 20000);
	CHECK(tun_check(&c.t, err, sizeof(err)) == -1, "tun_check accepted min > max");
}

/* text is refused; the message is one line starting FILE:LINE and naming why. */
static void expect_refused(const char *text, const char *where, const char *why)
{
	struct loadconf c, before;
	char err[1024];

	memset(&c, 0xa5, sizeof(c));
	before = c;
	CHECK(parse(text, &c, err, sizeof(err)) == -1, "accepted: '%s'", text);
	CHECK(!strncmp(err, where, strlen(where)), "'%s': message '%s' does not start '%s'", text,
	      err, where);
	CHECK(strstr(err, why) != NULL, "'%s': message '%s' does not say '%s'", text, err, why);
	CHECK(!strchr(err, '\n'), "'%s': message '%s' is more than one line", text, err);
	CHECK(!memcmp(&c, &before, sizeof(c)), "'%s': a refused file changed the result", text);
}

TEST(bad_lines_name_file_and_line)
{
	const char *f = "/etc/cubicctl/t.conf:";

	expect_refused("beta=800\n\n# c\nnosuch=1\n", "/etc/cubicctl/t.conf:4: ",
		       "unknown key 'nosuch'");
	expect_refused("beta=1024\n", "/etc/cubicctl/t.conf:1: ", "beta: 1024 is out of range");
	expect_refused("beta=\n", f, "beta: empty value");
	expect_refused("beta=-1\n", f, "not a whole number");
	expect_refused("beta=800\nbeta=801\n", "/etc/cubicctl/t.conf:2: ",
		       "key 'beta' given twice (first on line 1)");
	expect_refused("beta\n", f, "'beta' is not preset=PRESET, datapath=DATAPATH or KEY=VALUE");
	expect_refused("=5\n", f, "has no key");
	expect_refused(" = 5\n", f, "has no key");
	expect_refused("beta=5=6\n", f, "more than one '='");
	expect_refused("beta=700 # lower\n", f, "a comment is a line of its own");
	expect_refused("preset=warp\n", f, "unknown preset 'warp' (known: linux, nussbaum-2011");
	expect_refused("preset=\n", f, "unknown preset ''");
	expect_refused("preset=off\npreset=linux\n", "/etc/cubicctl/t.conf:2: ",
		       "preset given twice (first on line 1)");
	expect_refused("datapath=slow\n", f, "datapath: 'slow' is not one of: exact, fast");
	expect_refused("datapath=fast\ndatapath=exact\n", "/etc/cubicctl/t.conf:2: ",
		       "datapath given twice");
	expect_refused("name=x\n", f, "unknown key 'name'");
	expect_refused("beta=800\nack_train_shift=99", "/etc/cubicctl/t.conf:2: ",
		       "ack_train_shift: 99 is out of range");
}

TEST(not_a_text_file)
{
	static char big[LOADCONF_MAX_BYTES + 2];
	char line[600], err[1024];
	struct loadconf c;

	/* a NUL byte in a line */
	CHECK(loadconf_parse("beta=8\0000\n", 9, "f", &c, err, sizeof(err)) == -1, "NUL accepted");
	CHECK(strstr(err, "f:1: holds a NUL byte") != NULL, "%s", err);
	/* a line longer than any setting */
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	CHECK(parse(line, &c, err, sizeof(err)) == -1, "a 599-character line accepted");
	CHECK(strstr(err, ":1: line longer than") != NULL, "%s", err);
	/* a file larger than a config, even of comments */
	memset(big, '#', sizeof(big) - 1);
	CHECK(loadconf_parse(big, sizeof(big) - 1, "f", &c, err, sizeof(err)) == -1,
	      "a file of %zu bytes accepted", sizeof(big) - 1);
	CHECK(strstr(err, "f: larger than 65536 bytes") != NULL, "%s", err);
	CHECK(loadconf_parse(big, LOADCONF_MAX_BYTES, "f", &c, err, sizeof(err)) == 0,
	      "a file of exactly %d bytes refused: %s", LOADCONF_MAX_BYTES, err);
}

/* Every key of the table is accepted at its minimum and its maximum. */
TEST(every_key_accepted)
{
	char text[4096], err[512];
	struct loadconf c;
	size_t off = 0;

	for (int i = 0; i < CUBIC_TUN_COUNT; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s=%u\n",
					tun_table[i].name, tun_table[i].min);
	CHECK(parse(text, &c, err, sizeof(err)) == 0, "minimums: %s", err);
	for (int i = 0; i < CUBIC_TUN_COUNT; i++)
		CHECK(tun_get(&c.t, i) == tun_table[i].min, "%s", tun_table[i].name);
	off = 0;
	for (int i = 0; i < CUBIC_TUN_COUNT; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s=%u\n",
					tun_table[i].name, tun_table[i].max);
	CHECK(parse(text, &c, err, sizeof(err)) == 0, "maximums: %s", err);
	for (int i = 0; i < CUBIC_TUN_COUNT; i++)
		CHECK(tun_get(&c.t, i) == tun_table[i].max, "%s", tun_table[i].name);
}

/* attach=CGROUP [dst=PREFIX]... [port=PORT]...: cubicctl attach's rules, any number of lines */
TEST(attach_lines)
{
	static struct loadconf c;
	char err[512];
	int rc;

	rc = parse("preset=predict\n"
		   "attach=system.slice/nginx.service\n"
		   "  attach = /sys/fs/cgroup/x  dst=10.0.0.0/8 dst=2001:db8::/32\tport=443 \n",
		   &c, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	CHECK_EQ(c.nattach, 2);
	CHECK(!strcmp(c.attach[0].cgroup, "system.slice/nginx.service"), "%s", c.attach[0].cgroup);
	CHECK_EQ(c.attach[0].line, 2);
	CHECK_EQ(c.attach[0].rules.ndst4 + c.attach[0].rules.ndst6 + c.attach[0].rules.nports, 0);
	CHECK(!strcmp(c.attach[1].cgroup, "/sys/fs/cgroup/x"), "%s", c.attach[1].cgroup);
	CHECK_EQ(c.attach[1].rules.ndst4, 1);
	CHECK_EQ(c.attach[1].rules.dst4[0].prefixlen, 8);
	CHECK_EQ(c.attach[1].rules.ndst6, 1);
	CHECK_EQ(c.attach[1].rules.nports, 1);
	CHECK_EQ(c.attach[1].rules.ports[0], 443);
	CHECK_EQ(c.attach[1].line, 3);
	/* the tunables still come from the preset */
	CHECK_EQ(c.t.hystart, CUBIC_HYSTART_PREDICT);

	struct {
		const char *text, *want;
	} bad[] = {
		{ "attach=\n", "t.conf:1: attach= needs a cgroup first" },
		{ "attach=dst=10.0.0.0/8\n", "t.conf:1: attach= needs a cgroup first" },
		{ "\nattach=/x dst=10.0.0.0/33\n", "t.conf:2: attach=: dst '10.0.0.0/33' is not" },
		{ "attach=/x port=0\n", "t.conf:1: attach=: port '0' is not a port number" },
		{ "attach=/x via=10.0.0.1\n", "t.conf:1: attach=: 'via=10.0.0.1' is not dst=PREFIX" },
		{ "attach=/a\nattach=/b\nattach=/c\nattach=/d\nattach=/e\nattach=/f\nattach=/g\n"
		  "attach=/h\nattach=/i\n", "t.conf:9: at most 8 attach= lines" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(parse(bad[i].text, &c, err, sizeof(err)) == -1, "'%s' accepted", bad[i].text);
		CHECK(strstr(err, bad[i].want) != NULL, "'%s': '%s' lacks '%s'", bad[i].text, err,
		      bad[i].want);
	}
}

int main(void)
{
	RUN(empty_and_comments_are_defaults);
	RUN(keys_preset_datapath);
	RUN(preset_then_keys_in_any_order);
	RUN(cross_key_rule_left_to_caller);
	RUN(bad_lines_name_file_and_line);
	RUN(not_a_text_file);
	RUN(every_key_accepted);
	RUN(attach_lines);
	return unit_done("test_loadconf");
}
