/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer. Commas and quoting are handled here, so every
 * document cubicctl prints is valid. Keys are NULL inside arrays.
 */
#ifndef CUBICCTL_JSON_H
#define CUBICCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_double(struct json *j, const char *key, double val, int decimals);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* val as a string, or null when val is NULL. */
void json_str_or_null(struct json *j, const char *key, const char *val);
/* Ends a top-level document with a newline and flushes. */
void json_end(struct json *j);

#endif /* CUBICCTL_JSON_H */
