/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keepawake.h - keep every CPU of this process's affinity from halting: one
 * thread per CPU at SCHED_IDLE that spins.  It runs only when nothing else
 * wants the CPU (any other task preempts it at once; softirq runs above it),
 * so the CPU never enters the idle loop's halt while the threads live.
 *
 * Why: a halted vCPU is woken by the host when its timer fires, and on a busy
 * host that wake-up is milliseconds late.  On 2026-12-05 a SCHED_FIFO
 * clock_nanosleep loop (1 ms period) on an idle 2-vCPU VM woke p99 2.8-4.2 ms
 * late; with a spinner on each CPU, p99 0.10-0.11 ms (tools/emu/README.md).
 * /dev/cpu_dma_latency does not help there: the VM has no cpuidle driver.
 *
 * Used by tools/emu/delayq.c (-W) and tools/lib/keepawake.c (a process the
 * differential tester keeps while it plays).  Needs _GNU_SOURCE defined before
 * the first #include; link with -pthread.
 */
#ifndef KEEPAWAKE_H
#define KEEPAWAKE_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

struct keepawake_arg {
	int cpu;
	int err; /* 0: spinning at SCHED_IDLE on cpu */
	sem_t ready;
};

static void *keepawake_spin(void *p)
{
	struct keepawake_arg *a = p;
	struct sched_param sp = { .sched_priority = 0 };
	cpu_set_t one;

	/* set in the thread itself: glibc's pthread_attr_setschedpolicy()
	 * takes only SCHED_OTHER, SCHED_FIFO and SCHED_RR (EINVAL for
	 * SCHED_IDLE: a first version that set it there ran SCHED_OTHER) */
	CPU_ZERO(&one);
	CPU_SET(a->cpu, &one);
	a->err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (!a->err)
		a->err = pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	sem_post(&a->ready);
	if (a->err)
		return NULL;
	for (;;)
		__asm__ __volatile__("pause" ::: "memory");
	return NULL;
}

/* Start the spinners on every CPU this process may run on: call it before
 * pinning the process to fewer.  Returns how many spin (one line on stderr,
 * prefixed by WHO, for each CPU that got none). */
static int keepawake_start(const char *who)
{
	static struct keepawake_arg args[CPU_SETSIZE];
	cpu_set_t allowed;
	int cpu, started = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		fprintf(stderr, "%s: sched_getaffinity: %s (continuing)\n", who, strerror(errno));
		return 0;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		struct keepawake_arg *a = &args[cpu];
		pthread_attr_t attr;
		pthread_t t;
		int err;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		a->cpu = cpu;
		a->err = 0;
		sem_init(&a->ready, 0, 0);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&t, &attr, keepawake_spin, a);
		pthread_attr_destroy(&attr);
		if (!err) {
			while (sem_wait(&a->ready) < 0 && errno == EINTR)
				;
			err = a->err;
		}
		if (err)
			fprintf(stderr, "%s: no spinner on cpu %d: %s (continuing)\n", who, cpu,
				strerror(err));
		else
			started++;
	}
	return started;
}

#endif
