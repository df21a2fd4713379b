// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON writer; see json.h. */
#include <inttypes.h>
#include <math.h>
#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

/* Comma and key before a value. */
static void prefix(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open(struct json *j, const char *key, char c)
{
	prefix(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_obj_open(struct json *j, const char *key)
{
	open(j, key, '{');
}

void json_obj_close(struct json *j)
{
	close_(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	open(j, key, '[');
}

void json_arr_close(struct json *j)
{
	close_(j, ']');
}

void json_str(struct json *j, const char *key, const char *val)
{
	prefix(j, key);
	put_string(j->f, val);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	prefix(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	prefix(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_double(struct json *j, const char *key, double val, int decimals)
{
	prefix(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.*f", decimals, val);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool val)
{
	prefix(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->f);
}

void json_str_or_null(struct json *j, const char *key, const char *val)
{
	if (val)
		json_str(j, key, val);
	else
		json_null(j, key);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	j->depth = 0;
	j->need_comma[0] = false;
}
