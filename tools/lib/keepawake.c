// SPDX-License-Identifier: GPL-2.0
/*
 * keepawake - keep every CPU from halting while its caller runs: a SCHED_IDLE
 * spinner per CPU (keepawake.h says why).  It lives until its standard input
 * reaches end of file or its parent dies, so a caller holds it with a pipe
 * and nothing outlives the caller:
 *
 *   keepawake </pipe-from-caller     prints "keepawake: N" once spinning
 *
 * Exit codes: 0 stdin closed, 1 no spinner could start, 2 bad usage.
 */
#define _GNU_SOURCE /* SCHED_IDLE, pthread_attr_setaffinity_np */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "keepawake.h"

int main(int argc, char **argv)
{
	char buf[256];
	int n;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: keepawake (runs until stdin closes or its parent dies)\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 0; /* the parent is gone already */
	n = keepawake_start("keepawake");
	if (!n)
		return 1;
	printf("keepawake: %d\n", n);
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
