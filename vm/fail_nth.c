// SPDX-License-Identifier: GPL-2.0-only
/*
 * fail_nth - write to a kernel file with each slab allocation failed in turn
 *
 *   fail_nth [--max N] [--pause-ms MS] [--allow ERRNO,...] FILE VALUE...
 *
 * Writes VALUE 1, VALUE 2, ... (cyclically) to FILE, each time with the
 * Nth slab allocation of this thread failed, N = 1, 2, ...: the kernel's
 * /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION; failslab's
 * ignore-gfp-wait must be off for GFP_KERNEL allocations to fail).  The
 * open, the write and everything the write does synchronously in this
 * thread (a sysfs store, the notifier chains it runs) are covered: an
 * attribute such as /sys/class/net/bond0/bonding/active_slave runs
 * bonding's failover and every NETDEV_BONDING_FAILOVER notifier with
 * each of their allocations failed once.
 *
 * The sweep ends when every VALUE was written once with N larger than
 * the number of allocations it made (nothing injected), or at --max
 * (default 2000) with a failure.  A write may fail only with an errno of
 * --allow (default ENOMEM); the fail-nth is disarmed before anything
 * else happens.  Between writes it sleeps --pause-ms (default 100), so
 * that the work a write queued can run.  Deterministic: no randomness.
 *
 * Prints what each N did with --verbose, a summary always; exit 0 when
 * the sweep ended and every result was allowed, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fail_nth.h"

#define MAX_ALLOW	16

static int errno_of(const char *name)
{
	static const struct { const char *n; int e; } tab[] = {
		{ "ENOMEM", ENOMEM }, { "ENOBUFS", ENOBUFS },
		{ "EINVAL", EINVAL }, { "EBUSY", EBUSY },
		{ "ENODEV", ENODEV }, { "EAGAIN", EAGAIN },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].n, name))
			return tab[i].e;
	return atoi(name);
}

/*
 * write_once: open @file and write @val with the @n-th allocation failed;
 * 0 or the errno of the open or the write.  *@injected says whether the
 * failure was injected (fewer than @n allocations: not).
 */
static int write_once(const char *file, const char *val, unsigned long n,
		      bool *injected)
{
	size_t len = strlen(val);
	int fd, err = 0;
	long left;

	if (!fail_nth_set(n))
		return -1;
	fd = open(file, O_WRONLY);
	if (fd < 0)
		err = errno;
	else if (write(fd, val, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	left = fail_nth_get();
	fail_nth_set(0);
	if (fd >= 0)
		close(fd);
	*injected = left == 0;
	return left < 0 ? -1 : err;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max", required_argument, NULL, 'm' },
		{ "pause-ms", required_argument, NULL, 'p' },
		{ "allow", required_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ }
	};
	unsigned long max = 2000, n, injected = 0, failed = 0, bad = 0;
	unsigned long clean_runs = 0;
	int allow[MAX_ALLOW] = { ENOMEM }, nallow = 1;
	struct timespec pause = { 0, 100 * 1000000L };
	bool verbose = false, *clean;
	int c, nval, i, err;
	char *s, *tok;

	while ((c = getopt_long(argc, argv, "m:p:a:v", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			max = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			n = strtoul(optarg, NULL, 0);
			pause.tv_sec = n / 1000;
			pause.tv_nsec = (n % 1000) * 1000000L;
			break;
		case 'a':
			nallow = 0;
			s = strdup(optarg);
			for (tok = strtok(s, ","); tok && nallow < MAX_ALLOW;
			     tok = strtok(NULL, ","))
				allow[nallow++] = errno_of(tok);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2)
		goto usage;
	nval = argc - optind - 1;
	clean = calloc(nval, sizeof(*clean));
	if (fail_nth_open() < 0 || !clean) {
		printf("not ok 1 - fail_nth: /proc/thread-self/fail-nth: %s\n",
		       strerror(errno));
		return 1;
	}

	for (n = 1; n <= max && clean_runs < (unsigned long)nval; n++) {
		const char *val = argv[optind + 1 + (n - 1) % nval];
		int k = (n - 1) % nval;
		bool inj;

		err = write_once(argv[optind], val, n, &inj);
		if (err < 0) {
			printf("not ok 1 - fail_nth: cannot arm or read fail-nth\n");
			return 1;
		}
		if (inj) {
			injected++;
		} else if (!clean[k]) {
			clean[k] = true;
			clean_runs++;
		}
		if (err) {
			failed++;
			for (i = 0; i < nallow && allow[i] != err; i++)
				;
			if (i == nallow || !inj) {
				bad++;
				printf("# N=%lu %s: %s%s\n", n, val,
				       strerror(err),
				       inj ? "" : " with nothing injected");
			}
		}
		if (verbose)
			printf("# N=%lu %s: %s%s\n", n, val,
			       err ? strerror(err) : "ok",
			       inj ? " (injected)" : "");
		nanosleep(&pause, NULL);
	}
	printf("# %s: %lu writes, %lu with an allocation failed, %lu refused, %lu not allowed\n",
	       argv[optind], n - 1, injected, failed, bad);
	if (clean_runs < (unsigned long)nval) {
		printf("not ok 1 - fail_nth: %s still allocating at N=%lu\n",
		       argv[optind], max);
		return 1;
	}
	printf("%sok 1 - fail_nth: every allocation of writing %s failed once\n",
	       bad ? "not " : "", argv[optind]);
	return bad ? 1 : 0;

usage:
	fprintf(stderr, "usage: %s [--max N] [--pause-ms MS] [--allow ERRNO,...] [--verbose] FILE VALUE...\n",
		argv[0]);
	return 2;
}
