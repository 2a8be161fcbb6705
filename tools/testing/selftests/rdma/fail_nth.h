/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fail_nth.h - the kernel's per-thread fail-nth, for the test programs
 *
 * After N is written to /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)
 * the kernel fails the Nth fault-injectable allocation of this thread (for
 * slab allocations with GFP_KERNEL: failslab's ignore-gfp-wait off).
 * Reading it back gives 0 once the failure was injected, what is left of
 * N otherwise.  Open it with fail_nth_open() in the thread that sweeps.
 */
#ifndef RDMA_HA_FAIL_NTH_H
#define RDMA_HA_FAIL_NTH_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fail_nth_fd = -1;

/* fail_nth_open: the fd, or -1 with errno (no fault injection: ENOENT). */
static inline int fail_nth_open(void)
{
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	return fail_nth_fd;
}

/* fail_nth_set: fail the @n-th allocation from now on (0: disarm). */
static inline bool fail_nth_set(unsigned long n)
{
	char s[24];
	int l = snprintf(s, sizeof(s), "%lu", n);

	return pwrite(fail_nth_fd, s, l, 0) == l;
}

/* fail_nth_get: 0 once the failure was injected, else what is left; -1. */
static inline long fail_nth_get(void)
{
	char s[24];
	ssize_t l = pread(fail_nth_fd, s, sizeof(s) - 1, 0);

	if (l <= 0)
		return -1;
	s[l] = '\0';
	return strtol(s, NULL, 10);
}

#endif /* RDMA_HA_FAIL_NTH_H */
