/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal host test harness: CHECK() records a failure with its line and
 * goes on; each test file ends with "N passed, N failed" and a non-zero exit
 * if anything failed.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <stdlib.h>

static int unit_pass, unit_fail;
static const char *unit_case = "";

#define TEST(name) static void name(void)
#define RUN(name)                                                                                  \
	do {                                                                                       \
		unit_case = #name;                                                                 \
		name();                                                                            \
	} while (0)

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			unit_pass++;                                                               \
		} else {                                                                           \
			unit_fail++;                                                               \
			fprintf(stderr, "FAIL %s:%d %s: %s: ", __FILE__, __LINE__, unit_case,     \
				#cond);                                                            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	CHECK((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))

static inline int unit_done(const char *file)
{
	printf("%s: %d passed, %d failed\n", file, unit_pass, unit_fail);
	return unit_fail ? 1 : 0;
}

#endif /* UNIT_H */
