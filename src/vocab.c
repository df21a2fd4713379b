// SPDX-License-Identifier: GPL-2.0
/* The vocabulary of include/cubic_abi.h for user space: see vocab.h. */
#include <stdio.h>
#include <string.h>
#include "vocab.h"

const struct exit_line_desc exit_lines[EXIT_LINE_COUNT] = {
	[EXIT_LINE_EXITS] = { "exits", "", -1 },
	[EXIT_LINE_HSPP] = { "hystart++", "HyStart++: ", CUBIC_HYSTART_PP },
};

const struct exit_reason exit_reasons[EXIT_REASON_COUNT] = {
#define CUBIC_X_REASON(ID, n, b, sum, k, l, e, a, h)                                               \
	[EXIT_REASON_##ID] = {                                                                     \
		.name = #n,                                                                        \
		.bit = CUBIC_EV_##ID,                                                              \
		.counter = CUBIC_CNT_EXIT_##ID,                                                    \
		.cwnd_counter = CUBIC_CWND_OR(sum, CUBIC_CNT_EXIT_##ID##_CWND, -1),                \
		.key = k,                                                                          \
		.line = EXIT_LINE_##l,                                                             \
		.ends = (e),                                                                       \
		.abbrev = a,                                                                       \
		.help = h,                                                                         \
	},
	CUBIC_EXIT_REASONS(CUBIC_X_REASON)
#undef CUBIC_X_REASON
};

const char *const counter_keys[CUBIC_CNT_MAX] = {
#define CUBIC_X_KEY(ID, key, help) [CUBIC_CNT_##ID] = key,
#define CUBIC_X_EXIT_KEY(ID, n, b, sum, key, ...)                                                  \
	[CUBIC_CNT_EXIT_##ID] = key,                                                               \
	CUBIC_IF_CWND(sum, [CUBIC_CNT_EXIT_##ID##_CWND] = key "_cwnd_sum", )
	CUBIC_COUNTERS(CUBIC_X_KEY, CUBIC_EXIT_REASONS(CUBIC_X_EXIT_KEY))
#undef CUBIC_X_KEY
#undef CUBIC_X_EXIT_KEY
};

const __u32 ratio_le_pm[CUBIC_RATIO_SLOTS] = {
#define CUBIC_X_LE(le, label) le,
	CUBIC_RATIO_BUCKETS(CUBIC_X_LE)
#undef CUBIC_X_LE
};

const char *const ratio_le_label[CUBIC_RATIO_SLOTS] = {
#define CUBIC_X_LE(le, label) label,
	CUBIC_RATIO_BUCKETS(CUBIC_X_LE)
#undef CUBIC_X_LE
	"+Inf"
};

static const char *const verdict_words[CUBIC_VERDICT_WORD_COUNT] = {
#define CUBIC_X_NAME(ID, name) [VERDICT_##ID] = name,
	CUBIC_VERDICT_WORDS(CUBIC_X_NAME)
#undef CUBIC_X_NAME
};

static const char *const verdict_ends[CUBIC_VERDICT_END_COUNT] = {
#define CUBIC_X_NAME(ID, name) [VERDICT_END_##ID] = name,
	CUBIC_VERDICT_ENDS(CUBIC_X_NAME)
#undef CUBIC_X_NAME
};

const char *verdict_word_str(__u8 word)
{
	return word < CUBIC_VERDICT_WORD_COUNT ? verdict_words[word] : "?";
}

const char *verdict_end_str(__u8 end)
{
	return end < CUBIC_VERDICT_END_COUNT ? verdict_ends[end] : "?";
}

static const char *const pol_kinds[CUBIC_POL_KIND_COUNT] = {
#define CUBIC_X_NAME(ID, name, help) [CUBIC_POL_KIND_##ID] = name,
	CUBIC_POL_KINDS(CUBIC_X_NAME)
#undef CUBIC_X_NAME
};

const char *pol_kind_str(__u8 kind)
{
	return kind < CUBIC_POL_KIND_COUNT ? pol_kinds[kind] : "?";
}

const char *pol_acts_str(__u8 acts, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
#define CUBIC_X_ACT(ID, bit, name, help)                                                           \
	if ((acts & (bit)) && n < len)                                                             \
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "+" : "", name);
	CUBIC_POL_ACTS(CUBIC_X_ACT)
#undef CUBIC_X_ACT
	return buf;
}

const char *const counter_help[CUBIC_CNT_MAX] = {
#define CUBIC_X_HELP(ID, key, help) [CUBIC_CNT_##ID] = help,
#define CUBIC_X_EXIT_HELP(ID, n, b, sum, k, l, e, a, help)                                         \
	[CUBIC_CNT_EXIT_##ID] = help,                                                              \
	CUBIC_IF_CWND(sum, [CUBIC_CNT_EXIT_##ID##_CWND] = "sum of cwnd at those exits", )
	CUBIC_COUNTERS(CUBIC_X_HELP, CUBIC_EXIT_REASONS(CUBIC_X_EXIT_HELP))
#undef CUBIC_X_HELP
#undef CUBIC_X_EXIT_HELP
};

const char *reason_str(__u32 flags, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < EXIT_REASON_COUNT && off < len; i++)
		if (flags & exit_reasons[i].bit)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "+" : "",
						exit_reasons[i].name);
	return buf;
}

const char *reasons_help(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int l = 0; l < EXIT_LINE_COUNT; l++) {
		bool first = true;

		for (int i = 0; i < EXIT_REASON_COUNT && off < len; i++) {
			if (exit_reasons[i].line != (enum exit_line)l)
				continue;
			off += (size_t)snprintf(buf + off, len - off, "%s%s%s",
						first ? (off ? "; " : "") : ", ",
						first ? exit_lines[l].help_prefix : "",
						exit_reasons[i].name);
			first = false;
		}
	}
	return buf;
}

const struct datapath_desc datapaths[DATAPATH_COUNT] = {
#define CUBIC_X_DP(ID, n) [DATAPATH_##ID] = { n },
	CUBIC_DATAPATHS(CUBIC_X_DP)
#undef CUBIC_X_DP
};

const struct ops_map_desc ops_maps[OPS_MAP_COUNT] = {
#define CUBIC_X_OM(ID, ops, args, ...) [OPS_MAP_##ops] = { DATAPATH_##ID, #ops, args, #__VA_ARGS__ },
	CUBIC_OPS_MAPS(CUBIC_X_OM)
#undef CUBIC_X_OM
};

const char *datapath_str(enum datapath dp)
{
	return (int)dp >= 0 && dp < DATAPATH_COUNT ? datapaths[dp].name : "?";
}

int datapath_parse(const char *s)
{
	for (int i = 0; i < DATAPATH_COUNT; i++)
		if (!strcmp(s, datapaths[i].name))
			return i;
	return -1;
}

int datapath_of_map(const char *map_name)
{
	for (int i = 0; i < OPS_MAP_COUNT; i++)
		if (!strcmp(map_name, ops_maps[i].name))
			return (int)ops_maps[i].dp;
	return -1;
}

const char *datapath_names(const char *sep, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < DATAPATH_COUNT && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? sep : "",
					datapaths[i].name);
	return buf;
}

int ops_map_for(enum datapath dp, int cc_args)
{
	for (int i = 0; i < OPS_MAP_COUNT; i++)
		if (ops_maps[i].dp == dp && (!ops_maps[i].cc_args || ops_maps[i].cc_args == cc_args))
			return i;
	return -1;
}

bool datapath_next_prog(const char **p, char *buf, size_t len)
{
	const char *s = *p;
	size_t n;

	while (*s == ' ' || *s == ',')
		s++;
	n = strcspn(s, ", ");
	if (!n || n >= len)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*p = s + n;
	return true;
}

bool ops_map_uses(enum ops_map map, const char *prog)
{
	const char *p = ops_maps[map].progs;
	char name[64];

	while (datapath_next_prog(&p, name, sizeof(name)))
		if (!strcmp(name, prog))
			return true;
	return false;
}

static void ops_map_json(struct json *j, int m, bool programs_only)
{
	const char *p = ops_maps[m].progs;
	char prog[64];

	if (!programs_only) {
		json_obj_open(j, NULL);
		json_str(j, "ops_map", ops_maps[m].name);
		json_u64(j, "cong_control_args", (__u64)ops_maps[m].cc_args);
	}
	json_arr_open(j, "programs");
	while (datapath_next_prog(&p, prog, sizeof(prog)))
		json_str(j, NULL, prog);
	json_arr_close(j);
	if (!programs_only)
		json_obj_close(j);
}

void vocab_json(struct json *j)
{
	json_obj_open(j, NULL);
	json_u64(j, "abi_version", CUBIC_ABI_VERSION);
	json_arr_open(j, "reasons");
	for (int i = 0; i < EXIT_REASON_COUNT; i++) {
		const struct exit_reason *r = &exit_reasons[i];

		json_obj_open(j, NULL);
		json_str(j, "name", r->name);
		json_u64(j, "bit", r->bit);
		json_str(j, "counter", r->key);
		json_str_or_null(j, "cwnd_sum",
				 r->cwnd_counter >= 0 ? counter_keys[r->cwnd_counter] : NULL);
		json_str(j, "status_line", exit_lines[r->line].label);
		json_bool(j, "ends_slow_start", r->ends);
		json_str(j, "abbrev", r->abbrev);
		json_str(j, "help", r->help);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "counters");
	for (int i = 0; i < CUBIC_CNT_MAX; i++) {
		json_obj_open(j, NULL);
		json_str(j, "key", counter_keys[i]);
		json_u64(j, "index", (__u64)i);
		json_str(j, "help", counter_help[i]);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "rules");
	for (int i = 0; i < RULE_COUNT; i++) {
		const struct rule_desc *r = &rules[i];

		json_obj_open(j, NULL);
		json_str(j, "name", r->name);
		json_u64(j, "value", r->value);
		json_str(j, "aliases", r->aliases);
		json_str(j, "help", r->help);
		json_str_or_null(j, "no_storage_counter",
				 r->storage_counter >= 0 ? counter_keys[r->storage_counter] : NULL);
		json_u64(j, "fast_cong_control_args", (__u64)r->fast_cc_args);
		json_arr_open(j, "presets");
		for (const struct rule_preset *p = r->presets; p->name; p++) {
			json_obj_open(j, NULL);
			json_str(j, "name", p->name);
			json_str(j, "values", p->values);
			json_str(j, "help", p->help);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
	/* ops_map and programs: the datapath's map for the newest kernels; ops_maps: all */
	json_arr_open(j, "datapaths");
	for (int i = 0; i < DATAPATH_COUNT; i++) {
		int first = -1;

		for (int m = OPS_MAP_COUNT - 1; m >= 0; m--)
			if (ops_maps[m].dp == (enum datapath)i)
				first = m;
		json_obj_open(j, NULL);
		json_str(j, "name", datapaths[i].name);
		json_str(j, "ops_map", first >= 0 ? ops_maps[first].name : "");
		if (first >= 0)
			ops_map_json(j, first, true);
		json_arr_open(j, "ops_maps");
		for (int m = 0; m < OPS_MAP_COUNT; m++)
			if (ops_maps[m].dp == (enum datapath)i)
				ops_map_json(j, m, false);
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
	json_end(j);
}

const struct rule_desc rules[RULE_COUNT] = {
#define CUBIC_PRESET(n, v, h) { .name = n, .values = v, .help = h },
#define CUBIC_X_RULE(ENUM, val, n, glue, al, storage, cc, h, ...)                                  \
	[RULE_##ENUM] = {                                                                          \
		.name = n,                                                                         \
		.value = (val),                                                                    \
		.aliases = al,                                                                     \
		.storage_counter = CUBIC_CNT_##storage,                                            \
		.storage_flag = CUBIC_EV_##storage,                                                \
		.fast_cc_args = (cc),                                                              \
		.help = h,                                                                         \
		.presets = (const struct rule_preset[]){ __VA_ARGS__{ NULL, NULL, NULL } },        \
	},
	CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
#undef CUBIC_PRESET
};

const struct rule_desc *rule_of(__u32 v)
{
	for (int i = 0; i < RULE_COUNT; i++)
		if (rules[i].value == v)
			return &rules[i];
	return NULL;
}

/* Whether word is one of the space-separated words of list. */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t k = strcspn(p, " ");

		if (k == n && !strncmp(p, word, n))
			return true;
		p += k;
		p += strspn(p, " ");
	}
	return false;
}

const struct rule_desc *rule_parse(const char *word)
{
	for (int i = 0; i < RULE_COUNT; i++)
		if (!strcmp(rules[i].name, word) || in_list(rules[i].aliases, word))
			return &rules[i];
	return NULL;
}

/*
 * The presets in the order help lists them: the default rule's first (linux,
 * nussbaum-2011), then the other rules' in table order.
 */
static int rule_at(int k)
{
	int def = (int)(rule_of(CUBIC_DEF_hystart) - rules);

	if (k == 0)
		return def;
	return k <= def ? k - 1 : k;
}

static int rule_pos(const struct rule_desc *r)
{
	for (int k = 0; k < RULE_COUNT; k++)
		if (rule_at(k) == (int)(r - rules))
			return k;
	return RULE_COUNT;
}

const struct rule_preset *preset_next(const struct rule_preset *p, const struct rule_desc **rule)
{
	int k = 0;

	if (p) {
		k = rule_pos(*rule);
		p++;
	} else {
		p = rules[rule_at(0)].presets;
	}
	while (!p->name) {
		if (++k >= RULE_COUNT)
			return NULL;
		p = rules[rule_at(k)].presets;
	}
	*rule = &rules[rule_at(k)];
	return p;
}

const struct rule_preset *preset_find(const char *name, const struct rule_desc **rule)
{
	const struct rule_desc *r = NULL;

	for (const struct rule_preset *p = NULL; (p = preset_next(p, &r));) {
		if (!strcmp(p->name, name)) {
			if (rule)
				*rule = r;
			return p;
		}
	}
	return NULL;
}

const char *preset_names(const char *sep, char *buf, size_t len)
{
	const struct rule_desc *r = NULL;
	size_t off = 0;

	buf[0] = '\0';
	for (const struct rule_preset *p = NULL; (p = preset_next(p, &r)) && off < len;)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? sep : "", p->name);
	return buf;
}

/*
 * tcp_congestion_ops.cong_control by its number of arguments: the prototype
 * and the first Linux that has it. Linux 6.10 gave it (sk, ack, flag, rs)
 * and let BPF write tp->snd_cwnd_stamp.
 */
static const struct {
	int args;
	const char *proto;
	const char *since;
	bool bpf_writes_cwnd_stamp;
} cc_protos[] = {
	{ 2, "(sk, rs)", "4.9", false },
	{ 4, "(sk, ack, flag, rs)", "6.10", true },
};

static int cc_proto(int args)
{
	for (size_t i = 0; i < sizeof(cc_protos) / sizeof(cc_protos[0]); i++)
		if (cc_protos[i].args == args)
			return (int)i;
	return -1;
}

bool rule_runs_on(const struct rule_desc *r, int ops_map)
{
	int have = ops_maps[ops_map].cc_args;

	/* a map without .cong_control (0) runs every rule */
	return !have || !r->fast_cc_args || have >= r->fast_cc_args;
}

const char *rule_refusal(const struct rule_desc *r, int ops_map, char *buf, size_t len)
{
	int need = cc_proto(r->fast_cc_args), have = cc_proto(ops_maps[ops_map].cc_args);

	snprintf(buf, len,
		 "hystart=%s needs Linux %s or later on the %s datapath (this kernel's "
		 ".cong_control is %s); use --datapath exact",
		 r->name, need >= 0 ? cc_protos[need].since : "?",
		 datapath_str(ops_maps[ops_map].dp), have >= 0 ? cc_protos[have].proto : "?");
	return buf;
}

const char *cc_protos_str(char *buf, size_t len)
{
	size_t n = sizeof(cc_protos) / sizeof(cc_protos[0]), off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s (Linux %s%s%s)",
					i ? (i + 1 == n ? " and " : ", ") : "", cc_protos[i].proto,
					cc_protos[i].since, i + 1 < n ? " up to " : " on",
					i + 1 < n ? cc_protos[i + 1].since : "");
	return buf;
}

bool ops_map_own_cwnd_stamp(int ops_map)
{
	int p = cc_proto(ops_maps[ops_map].cc_args);

	return p >= 0 && !cc_protos[p].bpf_writes_cwnd_stamp;
}
