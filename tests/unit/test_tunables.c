// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the tunables parser and validator (src/tunables.c): every class
 * of bad input is refused whole, naming the key, and leaves the values as they
 * were; boundaries min, max, min-1, max+1 for every key.
 */
#include <stdbool.h>
#include <string.h>
#include "search_core.h"
#include "tunables.h"
#include "unit.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Applies words to a default set; returns 0/-1 and checks all-or-nothing. */
static int apply(const char **words, int n, struct cubic_tunables *out, char *err, size_t len)
{
	struct cubic_tunables t, before;
	int rc;

	cubic_tunables_defaults(&t);
	before = t;
	err[0] = '\0';
	rc = tun_apply_args(n, (char **)words, &t, err, len);
	if (rc)
		CHECK(!memcmp(&t, &before, sizeof(t)), "a refused set changed values: %s", err);
	else
		CHECK(err[0] == '\0', "success with a message: %s", err);
	if (out)
		*out = t;
	return rc;
}

static void expect_refused(const char *word, const char *must_mention)
{
	const char *words[] = { "bic_scale=30", word };
	char err[256];

	CHECK(apply(words, 2, NULL, err, sizeof(err)) == -1, "'%s' accepted", word);
	CHECK(strstr(err, must_mention) != NULL, "'%s': message '%s' does not name '%s'", word, err,
	      must_mention);
}

TEST(bad_input_classes)
{
	expect_refused("nosuchkey=1", "nosuchkey");	   /* unknown key */
	expect_refused("beta", "beta");			   /* missing = */
	expect_refused("=5", "=5");			   /* missing key */
	expect_refused("beta==5", "more than one '='");	   /* doubled = */
	expect_refused("beta=5=6", "more than one '='");
	expect_refused("beta=", "beta: empty");		   /* empty value */
	expect_refused("beta=abc", "beta: 'abc' is not a whole number");
	expect_refused("beta=-1", "beta: '-1' is not a whole number"); /* negative */
	expect_refused("beta=+5", "beta");
	expect_refused("beta=0.5", "beta: '0.5' is not a whole number"); /* fractional */
	expect_refused("beta=12abc", "beta: '12abc'");			 /* trailing junk */
	expect_refused("beta= 5", "beta");
	expect_refused("beta=99999999999999999999", "too large"); /* overflow */
	expect_refused("beta=4294967296", "too large");
	expect_refused("beta=0", "beta: 0 is out of range (allowed 1..1023");
	expect_refused("beta=1024", "allowed 1..1023");
	expect_refused("hystart_low_window=0", "hystart_low_window: 0 is out of range");
	expect_refused("bic_scale=31", "given twice"); /* same key twice */
	expect_refused("preset=fast", "unknown preset 'fast'");
	expect_refused("hystart=maybe", "hystart");
}

TEST(every_key_boundaries)
{
	char word[64], err[256];

	for (int id = 0; id < CUBIC_TUN_COUNT; id++) {
		const struct tun_desc *d = &tun_table[id];
		struct cubic_tunables t;
		const char *w[1] = { word };

		/* the thresholds' clamp ends must stay ordered, so test them alone */
		snprintf(word, sizeof(word), "%s=%u", d->name, d->min);
		if (id != CUBIC_TUN_delay_thresh_max_us || d->min >= CUBIC_DEF_delay_thresh_min_us) {
			CHECK(apply(w, 1, &t, err, sizeof(err)) == 0, "%s: %s", word, err);
			CHECK(tun_get(&t, id) == d->min, "%s not applied", word);
		}
		snprintf(word, sizeof(word), "%s=%u", d->name, d->max);
		if (id != CUBIC_TUN_delay_thresh_min_us) {
			CHECK(apply(w, 1, &t, err, sizeof(err)) == 0, "%s: %s", word, err);
			CHECK(tun_get(&t, id) == d->max, "%s not applied", word);
		}
		if (d->min > 0) {
			snprintf(word, sizeof(word), "%s=%u", d->name, d->min - 1);
			CHECK(apply(w, 1, NULL, err, sizeof(err)) == -1, "%s accepted", word);
			CHECK(strstr(err, d->name) != NULL, "%s: '%s'", word, err);
		}
		if (d->max < 0xffffffffU) {
			snprintf(word, sizeof(word), "%s=%llu", d->name, (unsigned long long)d->max + 1);
			CHECK(apply(w, 1, NULL, err, sizeof(err)) == -1, "%s accepted", word);
			CHECK(strstr(err, d->name) != NULL, "%s: '%s'", word, err);
		}
		/* the default is valid and is what the table says */
		cubic_tunables_defaults(&t);
		CHECK(tun_get(&t, id) == d->def, "%s default", d->name);
		CHECK(d->def >= d->min && d->def <= d->max, "%s default out of its range", d->name);
	}
}

TEST(defaults_equal_linux)
{
	struct cubic_tunables t;

	cubic_tunables_defaults(&t);
	CHECK_EQ(t.beta, 717);
	CHECK_EQ(t.bic_scale, 41);
	CHECK_EQ(t.fast_convergence, 1);
	CHECK_EQ(t.tcp_friendliness, 1);
	CHECK_EQ(t.initial_ssthresh, 0);
	CHECK_EQ(t.hystart, 1);
	CHECK_EQ(t.hystart_detect, 3);
	CHECK_EQ(t.hystart_low_window, 16);
	CHECK_EQ(t.hystart_ack_delta_us, 2000);
	CHECK_EQ(t.ack_train_shift, 4);
	CHECK_EQ(t.delay_thresh_shift, 3);
	CHECK_EQ(t.delay_thresh_min_us, 4000);
	CHECK_EQ(t.delay_thresh_max_us, 16000);
	CHECK_EQ(t.hystart_min_samples, 8);
}

TEST(cross_key_rule)
{
	const char *w[] = { "delay_thresh_min_us=20000" };
	const char *ok[] = { "delay_thresh_min_us=20000", "delay_thresh_max_us=30000" };
	char err[256];

	CHECK(apply(w, 1, NULL, err, sizeof(err)) == -1, "min above max accepted");
	CHECK(strstr(err, "delay_thresh_min_us") != NULL, "%s", err);
	CHECK(apply(ok, 2, NULL, err, sizeof(err)) == 0, "%s", err);
}

TEST(names_and_presets)
{
	struct cubic_tunables t;
	const char *w1[] = { "hystart=off", "hystart_detect=delay", "fast_convergence=on" };
	const char *w2[] = { "preset=nussbaum-2011" };
	const char *w3[] = { "ack_train_shift=3", "preset=nussbaum-2011" };
	const char *w4[] = { "preset=off", "preset=linux" };
	const char *w5[] = { "preset=linux" };
	char err[256];

	CHECK(apply(w1, 3, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.hystart, CUBIC_HYSTART_OFF);
	CHECK_EQ(t.hystart_detect, CUBIC_HYSTART_DELAY);
	CHECK_EQ(t.fast_convergence, 1);
	CHECK(!strcmp(tun_value_name(CUBIC_TUN_hystart, 1), "linux"), "name of hystart=1");

	CHECK(apply(w2, 1, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.ack_train_shift, 2);
	CHECK_EQ(t.delay_thresh_shift, 0);
	CHECK_EQ(t.delay_thresh_min_us, 0);
	CHECK_EQ(t.beta, 717);
	/* keys apply on top of the preset, whatever their order */
	CHECK(apply(w3, 2, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.ack_train_shift, 3);
	CHECK_EQ(t.delay_thresh_shift, 0);
	CHECK(apply(w4, 2, NULL, err, sizeof(err)) == -1, "two presets accepted");
	/* linux puts back every default */
	{
		struct cubic_tunables d, start;

		cubic_tunables_defaults(&d);
		start = d;
		start.beta = 100;
		start.ack_train_shift = 2;
		CHECK(tun_apply_args(1, (char **)w5, &start, err, sizeof(err)) == 0, "%s", err);
		CHECK(!memcmp(&start, &d, sizeof(d)), "preset=linux did not restore the defaults");
	}
	{
		const struct rule_desc *r = NULL;

		for (const struct rule_preset *p = NULL; (p = preset_next(p, &r));) {
			CHECK(tun_preset_values(r, p, &t, err, sizeof(err)) == 0, "preset %s: %s",
			      p->name, err);
			CHECK(tun_preset(p->name, &t) == 0, "preset %s", p->name);
			CHECK(tun_check(&t, err, sizeof(err)) == 0, "preset %s invalid: %s",
			      p->name, err);
			CHECK_EQ(t.hystart, r->value);
		}
	}
}

/*
 * The presets of include/cubic_rules.h are exactly the sets the if-chain of
 * src/tunables.c made before they moved into the rules table: the defaults,
 * the rule, and nussbaum-2011's four values.
 */
TEST(presets_as_before)
{
	static const struct {
		const char *name;
		__u32 hystart;
	} plain[] = { { "linux", CUBIC_HYSTART_LINUX },	  { "off", CUBIC_HYSTART_OFF },
		      { "hystart++", CUBIC_HYSTART_PP },  { "search", CUBIC_HYSTART_SEARCH },
		      { "predict", CUBIC_HYSTART_PREDICT } };
	struct cubic_tunables t, want;
	char list[160];
	int n = 0;

	for (size_t i = 0; i < N(plain); i++) {
		cubic_tunables_defaults(&want);
		want.hystart = plain[i].hystart;
		CHECK(tun_preset(plain[i].name, &t) == 0, "preset %s", plain[i].name);
		CHECK(!memcmp(&t, &want, sizeof(t)), "preset %s is not the defaults with hystart=%u",
		      plain[i].name, plain[i].hystart);
	}
	cubic_tunables_defaults(&want);
	want.ack_train_shift = 2;
	want.delay_thresh_shift = 0;
	want.delay_thresh_min_us = CUBIC_MIN_delay_thresh_min_us;
	want.delay_thresh_max_us = CUBIC_MAX_delay_thresh_max_us;
	CHECK(tun_preset("nussbaum-2011", &t) == 0, "nussbaum-2011");
	CHECK(!memcmp(&t, &want, sizeof(t)), "nussbaum-2011 is not what it was");
	CHECK(tun_preset("nosuch", &t) == -1, "an unknown preset");
	/* every name kept, none added unnoticed */
	CHECK(!strcmp(preset_names(", ", list, sizeof(list)),
		      "linux, nussbaum-2011, off, hystart++, search, predict, predict-jump"),
	      "%s", list);
	{
		const struct rule_desc *r = NULL;

		for (const struct rule_preset *p = NULL; (p = preset_next(p, &r));)
			n++;
	}
	CHECK_EQ(n, 7);
}

/* KEY=default: the table's default, after a preset or on its own */
TEST(key_default)
{
	const char *w[] = { "preset=nussbaum-2011", "ack_train_shift=default", "beta=default" };
	const char *h[] = { "preset=search", "hystart=default" };
	struct cubic_tunables t, start;
	char err[256];

	CHECK(apply(w, 3, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.ack_train_shift, CUBIC_DEF_ack_train_shift);
	CHECK_EQ(t.delay_thresh_shift, 0); /* the preset's, not touched */
	CHECK_EQ(t.beta, CUBIC_DEF_beta);
	CHECK(apply(h, 2, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.hystart, CUBIC_HYSTART_LINUX);
	/* on a changed set (as set does on the map's values) */
	cubic_tunables_defaults(&start);
	start.beta = 600;
	{
		const char *b[] = { "beta=default" };

		CHECK(tun_apply_args(1, (char **)b, &start, err, sizeof(err)) == 0, "%s", err);
		CHECK_EQ(start.beta, 717);
	}
	expect_refused("beta=defaults", "or default");
	expect_refused("search_rollback=undo", "off, drain, jump, default");
}

/* hystart=WORD: the rules' names and aliases (include/cubic_rules.h) */
TEST(rule_words)
{
	static const struct {
		const char *word;
		__u32 v;
	} words[] = { { "off", 0 },	  { "none", 0 },      { "linux", 1 },	{ "hystart", 1 },
		      { "hystart++", 2 }, { "hspp", 2 },      { "search", 3 },	{ "predict", 4 },
		      { "0", 0 },	  { "4", 4 } };
	char err[256];

	for (size_t i = 0; i < N(words); i++) {
		__u32 v = 99;

		CHECK(tun_parse_value(CUBIC_TUN_hystart, words[i].word, &v, err, sizeof(err)) == 0,
		      "hystart=%s: %s", words[i].word, err);
		CHECK_EQ(v, words[i].v);
	}
	for (int i = 0; i < RULE_COUNT; i++)
		CHECK(!strcmp(tun_value_name(CUBIC_TUN_hystart, rules[i].value), rules[i].name),
		      "the name of hystart=%u", rules[i].value);
	expect_refused("hystart=hybla", "off, none, linux, hystart, hystart++, hspp, search, predict");
}

/* hystart=search and its keys: the draft's constants, names, and the preset. */
TEST(search_keys)
{
	struct cubic_tunables t;
	const char *w1[] = { "preset=search" };
	const char *w2[] = { "hystart=search", "search_rollback=jump", "search_thresh=350" };
	const char *bad[] = { "search_rollback=undo" };
	const char *big[] = { "search_bins=16" };
	char err[256];

	cubic_tunables_defaults(&t);
	CHECK_EQ(t.search_window, 350); /* 3.5 x INITIAL_RTT */
	CHECK_EQ(t.search_bins, 10);	/* W */
	CHECK_EQ(t.search_extra_bins, 15);
	CHECK_EQ(t.search_thresh, 260); /* 0.26 */
	CHECK_EQ(t.search_rollback, SEARCH_ROLLBACK_DRAIN);
	CHECK_EQ(t.search_missed, 2);

	CHECK(apply(w1, 1, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.hystart, CUBIC_HYSTART_SEARCH);
	CHECK_EQ(t.search_thresh, 260);
	CHECK_EQ(t.beta, 717);
	CHECK(!strcmp(tun_value_name(CUBIC_TUN_hystart, 3), "search"), "name of hystart=3");

	CHECK(apply(w2, 3, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.hystart, CUBIC_HYSTART_SEARCH);
	CHECK_EQ(t.search_rollback, SEARCH_ROLLBACK_JUMP);
	CHECK_EQ(t.search_thresh, 350);
	CHECK(!strcmp(tun_value_name(CUBIC_TUN_search_rollback, 0), "off"), "rollback 0");

	CHECK(apply(bad, 1, NULL, err, sizeof(err)) == -1, "search_rollback=undo accepted");
	CHECK(strstr(err, "drain") != NULL, "the error names the values: %s", err);
	/* W + 1 + EXTRA_BINS must fit the core's sent ring, for every value the table allows */
	CHECK(apply(big, 1, NULL, err, sizeof(err)) == -1, "search_bins=16 accepted");
	CHECK(CUBIC_MAX_search_bins + 1 + CUBIC_MAX_search_extra_bins <= SEARCH_SENT_RING,
	      "the table allows more bins than the core keeps");
}

TEST(predict_keys)
{
	struct cubic_tunables t;
	const char *w1[] = { "preset=predict" };
	const char *w2[] = { "hystart=predict", "predict_pace=off", "predict_margin=50" };
	const char *bad[] = { "predict_pace=2" };
	const char *big[] = { "predict_cap=4001" };
	char err[256];

	cubic_tunables_defaults(&t);
	CHECK_EQ(t.predict_skip, 1);
	CHECK_EQ(t.predict_min_train_us, 1000);
	CHECK_EQ(t.predict_tolerance, 100);
	CHECK_EQ(t.predict_margin, 30);
	CHECK_EQ(t.predict_pace, 1);
	CHECK_EQ(t.predict_policer, 1);
	CHECK_EQ(t.predict_cap, 1000);

	CHECK(apply(w1, 1, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.hystart, CUBIC_HYSTART_PREDICT);
	CHECK_EQ(t.beta, 717);
	CHECK(!strcmp(tun_value_name(CUBIC_TUN_hystart, 4), "predict"), "name of hystart=4");

	CHECK(apply(w2, 3, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(t.hystart, CUBIC_HYSTART_PREDICT);
	CHECK_EQ(t.predict_pace, 0);
	CHECK_EQ(t.predict_margin, 50);
	CHECK(!strcmp(tun_value_name(CUBIC_TUN_predict_pace, 1), "on"), "predict_pace 1");

	CHECK(apply(bad, 1, NULL, err, sizeof(err)) == -1, "predict_pace=2 accepted");
	CHECK(strstr(err, "out of range") != NULL, "%s", err);
	CHECK(apply(big, 1, NULL, err, sizeof(err)) == -1, "predict_cap=4001 accepted");
	/* hystart=5 is no mode */
	{
		const char *w[] = { "hystart=5" };

		CHECK(apply(w, 1, NULL, err, sizeof(err)) == -1, "hystart=5 accepted");
	}
}

/* Every key in table order, and the struct really is one __u32 per key. */
TEST(table_is_the_struct)
{
	struct cubic_tunables t;

	memset(&t, 0, sizeof(t));
	t.hystart_min_samples = 77;
	CHECK_EQ(tun_get(&t, CUBIC_TUN_hystart_min_samples), 77);
	CHECK_EQ(tun_lookup("beta"), CUBIC_TUN_beta);
	CHECK_EQ(tun_lookup("nope"), -1);
	CHECK_EQ(N(tun_table), CUBIC_TUN_COUNT);
}

int main(void)
{
	RUN(bad_input_classes);
	RUN(every_key_boundaries);
	RUN(defaults_equal_linux);
	RUN(cross_key_rule);
	RUN(names_and_presets);
	RUN(presets_as_before);
	RUN(key_default);
	RUN(rule_words);
	RUN(search_keys);
	RUN(predict_keys);
	RUN(table_is_the_struct);
	return unit_done("test_tunables");
}
