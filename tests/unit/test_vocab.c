// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the shared vocabulary (include/cubic_abi.h via src/vocab.c):
 * every exit reason has its own bit, counter and key; every counter has a key;
 * the words trace and status print; the datapaths' names, maps and programs;
 * the name patch of src/objpatch.c on the real BPF object, and the build id.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "vocab.h"
#include "instance.h"
#include "unit.h"

TEST(reasons_distinct)
{
	__u32 seen = 0;

	for (int i = 0; i < EXIT_REASON_COUNT; i++) {
		const struct exit_reason *r = &exit_reasons[i];

		CHECK(r->name && *r->name && r->key && *r->key && r->help && *r->help, "reason %d",
		      i);
		CHECK(r->bit && !(r->bit & (r->bit - 1)), "%s: one bit, not 0x%x", r->name, r->bit);
		CHECK(!(r->bit & ~(__u32)CUBIC_EV_REASONS), "%s: bit outside CUBIC_EV_REASONS",
		      r->name);
		CHECK(!(seen & r->bit), "%s: bit 0x%x taken", r->name, r->bit);
		seen |= r->bit;
		CHECK(r->counter >= 0 && r->counter < CUBIC_CNT_MAX, "%s", r->name);
		CHECK(!strcmp(counter_keys[r->counter], r->key), "%s: key", r->name);
		CHECK(r->line >= 0 && r->line < EXIT_LINE_COUNT, "%s", r->name);
		CHECK(r->abbrev && strlen(r->abbrev) == 1, "%s: abbrev", r->name);
		CHECK(!!(CUBIC_EV_ENDS_SLOW_START & r->bit) == r->ends, "%s: ends", r->name);
		for (int k = 0; k < i; k++) {
			const struct exit_reason *o = &exit_reasons[k];

			CHECK(strcmp(r->name, o->name), "%s twice", r->name);
			CHECK(strcmp(r->abbrev, o->abbrev), "%s: abbrev of %s", r->name, o->name);
			CHECK(r->counter != o->counter, "%s: counter of %s", r->name, o->name);
			CHECK(r->cwnd_counter < 0 || r->cwnd_counter != o->cwnd_counter, "%s",
			      r->name);
		}
	}
	/* the detector bits of the hystart_detect tunable are the reasons' */
	CHECK_EQ(CUBIC_EV_ACK_TRAIN, CUBIC_HYSTART_ACK_TRAIN);
	CHECK_EQ(CUBIC_EV_DELAY, CUBIC_HYSTART_DELAY);
	/* the context flags are not reasons */
	CHECK(!(seen & (CUBIC_EV_CWND_LIMITED | CUBIC_EV_RWND_LIMITED | CUBIC_EV_PACED |
			CUBIC_EV_INITIAL)),
	      "a reason bit is a context flag");
}

TEST(counters_keyed)
{
	int used[CUBIC_CNT_MAX] = { 0 };

	for (int i = 0; i < CUBIC_CNT_MAX; i++) {
		CHECK(counter_keys[i] && *counter_keys[i], "counter %d has no key", i);
		for (int k = 0; k < i; k++)
			CHECK(strcmp(counter_keys[i], counter_keys[k]), "key %s twice",
			      counter_keys[i]);
	}
	for (int i = 0; i < EXIT_REASON_COUNT; i++) {
		used[exit_reasons[i].counter]++;
		if (exit_reasons[i].cwnd_counter >= 0) {
			char want[64];

			snprintf(want, sizeof(want), "%s_cwnd_sum", exit_reasons[i].key);
			CHECK(!strcmp(counter_keys[exit_reasons[i].cwnd_counter], want), "%s",
			      want);
			used[exit_reasons[i].cwnd_counter]++;
		}
	}
	for (int i = 0; i < CUBIC_CNT_MAX; i++)
		CHECK(used[i] <= 1, "counter %s used by two reasons", counter_keys[i]);
#if CUBIC_ABI_VERSION == 2
	/* the counters map of ABI 2: a change to it bumps CUBIC_ABI_VERSION */
	CHECK_EQ(CUBIC_CNT_MAX, 15);
	CHECK_EQ(CUBIC_CNT_FLOW_INIT, 0);
	CHECK_EQ(CUBIC_CNT_EXIT_ACK_TRAIN, 2);
	CHECK_EQ(CUBIC_CNT_EXIT_CSS_EXIT_CWND, 11);
	CHECK_EQ(CUBIC_CNT_REPAIRED, 14);
	CHECK_EQ(sizeof(struct cubic_event), 168);
#endif
	CHECK(!strcmp(counter_keys[CUBIC_CNT_EVENT_DROPS], "records_dropped"), "drops");
}

TEST(words)
{
	char buf[256];

	CHECK(!strcmp(reason_str(CUBIC_EV_ACK_TRAIN | CUBIC_EV_DELAY | CUBIC_EV_PACED, buf,
				 sizeof(buf)),
		      "ack_train+delay"),
	      "%s", buf);
	CHECK(!strcmp(reason_str(0, buf, sizeof(buf)), ""), "%s", buf);
	CHECK(!strcmp(reason_str(CUBIC_EV_REASONS, buf, 8), "ack_tra"), "truncated: %s", buf);
	/* trace --help: "ack_train, delay, loss; HyStart++: css_enter, css_resume, css_exit" */
	reasons_help(buf, sizeof(buf));
	CHECK(!strncmp(buf, "ack_train, delay, loss", 22), "%s", buf);
	CHECK(strstr(buf, "; HyStart++: css_enter, css_resume, css_exit"), "%s", buf);
}

/*
 * The kernel keeps 15 characters of a program's name (BPF_OBJ_NAME_LEN), and
 * bpftool shows those: no two programs of the table may share them.
 */
static bool prog_name_distinct(const char *prog)
{
	char other[64];
	const char *p;

	for (int k = 0; k < OPS_MAP_COUNT; k++)
		for (p = ops_maps[k].progs; datapath_next_prog(&p, other, sizeof(other));)
			if (strcmp(other, prog) && !strncmp(other, prog, 15))
				return false;
	return true;
}

TEST(datapath_table)
{
	char buf[64];
	const char *p;
	int n;

	CHECK(!strcmp(datapath_names(", ", buf, sizeof(buf)), "exact, fast"), "%s", buf);
	CHECK_EQ(datapath_parse("exact"), DATAPATH_EXACT);
	CHECK_EQ(datapath_parse("fast"), DATAPATH_FAST);
	CHECK_EQ(datapath_parse("Fast"), -1);
	CHECK_EQ(datapath_parse("fast2"), -1);
	CHECK_EQ(datapath_of_map("cubic_ops_fast"), DATAPATH_FAST);
	CHECK_EQ(datapath_of_map("cubic_ops_fast2"), DATAPATH_FAST);
	CHECK_EQ(datapath_of_map("cubic_ops"), DATAPATH_EXACT);
	CHECK_EQ(datapath_of_map("cubic_op"), -1);
	CHECK(!strcmp(datapath_str((enum datapath)DATAPATH_COUNT), "?"), "out of range");
	for (int i = 0; i < DATAPATH_COUNT; i++)
		CHECK_EQ(datapath_parse(datapath_str((enum datapath)i)), i);
	for (int i = 0; i < OPS_MAP_COUNT; i++) {
		const struct ops_map_desc *m = &ops_maps[i];

		CHECK_EQ(datapath_of_map(m->name), (int)m->dp);
		/* the kernel keeps 15 characters of a map's or program's name */
		CHECK(strlen(m->name) <= 15, "%s", m->name);
		n = 0;
		for (p = m->progs; datapath_next_prog(&p, buf, sizeof(buf)); n++) {
			CHECK(!strncmp(buf, "bc_", 3), "%s", buf);
			CHECK(prog_name_distinct(buf), "%s", buf);
			CHECK(ops_map_uses((enum ops_map)i, buf), "%s", buf);
			/* "not every map uses": no map of another datapath lists it */
			for (int k = 0; k < OPS_MAP_COUNT; k++)
				CHECK(ops_maps[k].dp == m->dp || !ops_map_uses((enum ops_map)k, buf),
				      "%s", buf);
		}
		CHECK(n > 0, "%s lists no programs", m->name);
	}
	/* which map a kernel gets: exact everywhere, fast by cong_control's prototype */
	CHECK_EQ(ops_map_for(DATAPATH_EXACT, 4), OPS_MAP_cubic_ops);
	CHECK_EQ(ops_map_for(DATAPATH_EXACT, 2), OPS_MAP_cubic_ops);
	CHECK_EQ(ops_map_for(DATAPATH_EXACT, -1), OPS_MAP_cubic_ops);
	CHECK_EQ(ops_map_for(DATAPATH_FAST, 4), OPS_MAP_cubic_ops_fast);
	CHECK_EQ(ops_map_for(DATAPATH_FAST, 2), OPS_MAP_cubic_ops_fast2);
	CHECK_EQ(ops_map_for(DATAPATH_FAST, 3), -1);
	CHECK_EQ(ops_map_for(DATAPATH_FAST, -1), -1);
	CHECK(ops_map_uses(OPS_MAP_cubic_ops_fast2, "bc_set_state_fast"), "shared by both fast maps");
	CHECK(!ops_map_uses(OPS_MAP_cubic_ops_fast2, "bc_cong_control"), "the 4-argument program");
	p = ops_maps[OPS_MAP_cubic_ops].progs;
	CHECK(datapath_next_prog(&p, buf, sizeof(buf)) && !strcmp(buf, "bc_init"), "%s", buf);
	CHECK(datapath_next_prog(&p, buf, sizeof(buf)) && !strcmp(buf, "bc_cong_avoid"), "%s",
	      buf);
	CHECK(!ops_map_uses(OPS_MAP_cubic_ops, "bc_init_fast"), "prefix is not a match");
}

/* The placeholder name in build/bpf_cubic.bpf.o, once per ops map. */
/* The rules table (include/cubic_rules.h): names, storage, kernel needs. */
TEST(rules_table)
{
	char buf[256];
	int fast4 = -1, fast2 = -1, exact = -1;

	for (int i = 0; i < RULE_COUNT; i++) {
		const struct rule_desc *r = &rules[i];

		CHECK(rule_of(r->value) == r, "%s: rule_of", r->name);
		CHECK(rule_parse(r->name) == r, "%s: rule_parse", r->name);
		CHECK(r->help && *r->help && r->presets, "%s: help, presets", r->name);
		/* a rule with storage has both its counter and its record flag */
		CHECK((r->storage_counter >= 0) == (r->storage_flag != 0), "%s: storage", r->name);
		for (int k = 0; k < i; k++)
			CHECK(strcmp(r->name, rules[k].name) && r->value != rules[k].value,
			      "%s and %s", r->name, rules[k].name);
	}
	CHECK(rule_parse("hspp") == &rules[RULE_PP], "alias hspp");
	CHECK(rule_parse("none") == &rules[RULE_OFF], "alias none");
	CHECK(rule_parse("hyst") == NULL, "a part of an alias");
	CHECK(rule_of(99) == NULL, "hystart=99");
	CHECK_EQ(rules[RULE_SEARCH].storage_counter, CUBIC_CNT_SEARCH_NO_STORAGE);
	CHECK_EQ(rules[RULE_PREDICT].storage_flag, CUBIC_EV_PREDICT_NO_STORAGE);
	CHECK_EQ(rules[RULE_LINUX].storage_counter, -1);
	CHECK(preset_find("nussbaum-2011", NULL) != NULL, "nussbaum-2011");

	for (int m = 0; m < OPS_MAP_COUNT; m++) {
		if (ops_maps[m].dp == DATAPATH_EXACT)
			exact = m;
		else if (ops_maps[m].cc_args == 4)
			fast4 = m;
		else if (ops_maps[m].cc_args == 2)
			fast2 = m;
	}
	CHECK(exact >= 0 && fast4 >= 0 && fast2 >= 0, "the three ops maps");
	/* before Linux 6.10, PREDICT is refused on the fast datapath, only there */
	for (int i = 0; i < RULE_COUNT; i++) {
		CHECK(rule_runs_on(&rules[i], exact), "%s on exact", rules[i].name);
		CHECK(rule_runs_on(&rules[i], fast4), "%s on fast (6.10)", rules[i].name);
		CHECK(rule_runs_on(&rules[i], fast2) == (i != RULE_PREDICT), "%s on fast (6.1)",
		      rules[i].name);
	}
	/* the sentence tools/kernels/suite.sh and users know */
	CHECK(!strcmp(rule_refusal(&rules[RULE_PREDICT], fast2, buf, sizeof(buf)),
		      "hystart=predict needs Linux 6.10 or later on the fast datapath (this kernel's "
		      ".cong_control is (sk, rs)); use --datapath exact"),
	      "%s", buf);
	CHECK(!strcmp(cc_protos_str(buf, sizeof(buf)),
		      "(sk, rs) (Linux 4.9 up to 6.10) and (sk, ack, flag, rs) (Linux 6.10 on)"),
	      "%s", buf);
	/* BPF may write tp->snd_cwnd_stamp from 6.10 on */
	CHECK(ops_map_own_cwnd_stamp(fast2), "fast2 keeps its own stamp");
	CHECK(!ops_map_own_cwnd_stamp(fast4), "fast (6.10) writes the kernel's");
}

/* build/bpf_cubic.bpf.o, whole, in a malloc'd buffer; NULL (a failed check) if it can't */
static char *read_object(size_t *sz)
{
	FILE *f = fopen("build/bpf_cubic.bpf.o", "rb");
	char *obj;

	if (!f) {
		CHECK(f, "build/bpf_cubic.bpf.o: run 'make' first");
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	*sz = (size_t)ftell(f);
	rewind(f);
	obj = malloc(*sz);
	CHECK(obj && fread(obj, 1, *sz, f) == *sz, "read");
	fclose(f);
	return obj;
}

TEST(objpatch)
{
	char junk[256] = "not an ELF";
	size_t sz;
	char *obj;

	CHECK_EQ(objpatch_ops_name(junk, sizeof(junk), "x", 1), -EINVAL);
	obj = read_object(&sz);
	if (!obj)
		return;
	CHECK_EQ(objpatch_ops_name(obj, sz, "bc_test", OPS_MAP_COUNT), 0);
	/* the placeholder is gone: a second patch finds none */
	CHECK_EQ(objpatch_ops_name(obj, sz, "bc_again", OPS_MAP_COUNT), -ENOENT);
	CHECK_EQ(objpatch_ops_name(obj, 64, "x", OPS_MAP_COUNT), -EINVAL);
	free(obj);
}

TEST(build_id)
{
	const char a[] = "a", ab[] = "ab", bc[] = "bc";
	char buf[16];

	/* 32-bit FNV-1a: its published vectors ("" and "a") */
	CHECK_EQ(objimage_build_id("", 0, NULL), 0x811c9dc5);
	CHECK_EQ(objimage_build_id(a, 1, NULL), 0xe40c292c);
	/* no tag and an empty one are the same build; a tag makes another */
	CHECK_EQ(objimage_build_id(a, 1, ""), objimage_build_id(a, 1, NULL));
	CHECK(objimage_build_id(a, 1, "canary") != objimage_build_id(a, 1, NULL), "tag");
	CHECK(objimage_build_id(a, 1, "canary") != objimage_build_id(a, 1, "canary2"), "tags");
	/* the tag is not glued onto the bytes: "ab" + "c" is not "a" + "bc" */
	CHECK(objimage_build_id(ab, 2, "c") != objimage_build_id(a, 1, bc), "apart");
	CHECK(objimage_build_id(ab, 2, NULL) != objimage_build_id(a, 1, NULL), "a byte more");
	CHECK(!strcmp(build_id_str(0x0012abcd, buf, sizeof(buf)), "0012abcd"), "%s", buf);
	CHECK(!strcmp(build_id_str(0xffffffff, buf, sizeof(buf)), "ffffffff"), "%s", buf);
}

/* The id is the object's as built: the name patched in would change it. */
TEST(build_id_object)
{
	__u32 id;
	size_t sz;
	char *obj;

	obj = read_object(&sz);
	if (!obj)
		return;
	id = objimage_build_id(obj, sz, NULL);
	CHECK(id != 0, "never 0");
	CHECK_EQ(objimage_build_id(obj, sz, NULL), id);
	CHECK_EQ(objpatch_ops_name(obj, sz, "bc_test", OPS_MAP_COUNT), 0);
	CHECK(objimage_build_id(obj, sz, NULL) != id, "patched: another image");
	free(obj);
}

int main(void)
{
	RUN(reasons_distinct);
	RUN(counters_keyed);
	RUN(words);
	RUN(datapath_table);
	RUN(rules_table);
	RUN(objpatch);
	RUN(build_id);
	RUN(build_id_object);
	return unit_done("test_vocab");
}
