// SPDX-License-Identifier: GPL-2.0-only
/*
 * mono_watch - CLOCK_MONOTONIC time stamps for the rdma-ha VM scenarios.
 *
 * busybox has no sub-second clock, so the guest scripts use this:
 *
 *   mono_watch now
 *	print CLOCK_MONOTONIC as "secs.usec" (the clock rdma_ha_pingpong
 *	stamps its log lines with)
 *   mono_watch watch [-i INTERVAL_US] [-t TIMEOUT_S] FILE...
 *	print "<secs.usec> <file> <first line of file>" for every FILE at
 *	start and again whenever its first line changes; poll every
 *	INTERVAL_US (default 1000) until TIMEOUT_S (default: forever) or a
 *	signal.  Meant for sysfs attributes such as carrier or
 *	bonding/active_slave.
 *   mono_watch starve [-i INTERVAL_US] [-m MIN_MS]
 *	sleep INTERVAL_US (default 10000) at a time until a signal, and
 *	print "<from> <to>" (secs.usec) for every sleep that took MIN_MS
 *	(default 100) more than asked: a time the guest did not run (its
 *	vCPUs starved by a loaded host under TCG), which no guest-side
 *	measurement of a gap can tell from a gap of its own.
 *   mono_watch flap [-d MS] [-u FILE=VALUE] [-t MAX_MS] IFACE
 *	take IFACE down and up again from one process, as quickly as the
 *	kernel lets it (a shell's ip commands take tens of ms each under
 *	TCG): with -d, no sooner than MS after the down; with -u, only
 *	once FILE's first line is VALUE (polled every ms, at most MAX_MS,
 *	default 1000).  Prints
 *	"flap_ms=<ms from before the down to after the up> waited=<yes|no>";
 *	exits 0, 1 on an error, 2 when VALUE never came (IFACE is up again
 *	all the same).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define VALUE_MAX 128

static sig_atomic_t stop;	/* set by the signal handler */

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%ld.%06ld", (long)ts.tv_sec, ts.tv_nsec / 1000);
}

static void read_first_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(buf, len, "<%s>", strerror(errno));
		return;
	}
	n = read(fd, buf, len - 1);
	if (n < 0)
		snprintf(buf, len, "<%s>", strerror(errno));
	else
		buf[n] = '\0';
	close(fd);
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "<empty>");
}

static int watch_files(int argc, char **argv)
{
	long interval_us = 1000;
	double timeout = 0, deadline;
	char (*vals)[VALUE_MAX];
	char buf[VALUE_MAX];
	int opt, i, nfiles;

	while ((opt = getopt(argc, argv, "i:t:")) != -1) {
		switch (opt) {
		case 'i':
			interval_us = strtol(optarg, NULL, 0);
			break;
		case 't':
			timeout = strtod(optarg, NULL);
			break;
		default:
			return 1;
		}
	}
	nfiles = argc - optind;
	if (nfiles <= 0) {
		fprintf(stderr, "mono_watch: no files to watch\n");
		return 1;
	}
	vals = calloc(nfiles, sizeof(*vals));
	if (!vals)
		return 1;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	deadline = timeout > 0 ? now() + timeout : 0;

	for (i = 0; i < nfiles; i++)
		vals[i][0] = '\1';	/* never a file's content: prints once */
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && (!deadline || now() < deadline)) {
		for (i = 0; i < nfiles; i++) {
			read_first_line(argv[optind + i], buf, sizeof(buf));
			if (strcmp(buf, vals[i])) {
				memcpy(vals[i], buf, sizeof(buf));
				print_now();
				printf(" %s %s\n", argv[optind + i], buf);
			}
		}
		usleep(interval_us);
	}
	free(vals);
	return 0;
}

static int starve(int argc, char **argv)
{
	long interval_us = 10000, min_ms = 100;
	struct timespec ts;
	double t0, t1;
	int opt;

	while ((opt = getopt(argc, argv, "i:m:")) != -1) {
		switch (opt) {
		case 'i':
			interval_us = strtol(optarg, NULL, 0);
			break;
		case 'm':
			min_ms = strtol(optarg, NULL, 0);
			break;
		default:
			return 1;
		}
	}
	if (interval_us <= 0 || interval_us >= 1000000 || min_ms <= 0)
		return 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ts.tv_sec = 0;
	ts.tv_nsec = interval_us * 1000;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		t0 = now();
		nanosleep(&ts, NULL);
		t1 = now();
		if ((t1 - t0) * 1000 - interval_us / 1000.0 >= min_ms)
			printf("%.6f %.6f\n", t0, t1);
	}
	return 0;
}

static int set_up(int sk, const char *ifname, int up)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(sk, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return ioctl(sk, SIOCSIFFLAGS, &ifr);
}

static int flap(int argc, char **argv)
{
	const struct timespec ms = { 0, 1000000 };
	char *file = NULL, *value = NULL, buf[VALUE_MAX];
	long max_ms = 1000, down_ms = 0;
	int opt, sk, waited = 0, ret = 0;
	double t0, t1;

	while ((opt = getopt(argc, argv, "d:u:t:")) != -1) {
		switch (opt) {
		case 'd':
			down_ms = strtol(optarg, NULL, 0);
			break;
		case 'u':
			file = optarg;
			value = strchr(optarg, '=');
			if (!value)
				return 1;
			*value++ = '\0';
			break;
		case 't':
			max_ms = strtol(optarg, NULL, 0);
			break;
		default:
			return 1;
		}
	}
	if (optind != argc - 1 || max_ms <= 0 || down_ms < 0 ||
	    strlen(argv[optind]) >= IFNAMSIZ)
		return 1;
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0) {
		perror("socket");
		return 1;
	}
	t0 = now();
	if (set_up(sk, argv[optind], 0)) {
		perror(argv[optind]);
		close(sk);
		return 1;
	}
	while (file) {
		read_first_line(file, buf, sizeof(buf));
		if (!strcmp(buf, value)) {
			waited = 1;
			break;
		}
		if ((now() - t0) * 1000 >= max_ms) {
			ret = 2;
			break;
		}
		nanosleep(&ms, NULL);
	}
	while ((now() - t0) * 1000 < down_ms)
		nanosleep(&ms, NULL);
	if (set_up(sk, argv[optind], 1)) {
		perror(argv[optind]);
		close(sk);
		return 1;
	}
	t1 = now();
	close(sk);
	printf("flap_ms=%.0f waited=%s\n", (t1 - t0) * 1000,
	       waited ? "yes" : "no");
	return ret;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "now")) {
		print_now();
		putchar('\n');
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "watch"))
		return watch_files(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "starve"))
		return starve(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "flap"))
		return flap(argc - 1, argv + 1);
	fprintf(stderr, "usage: %s now | watch [-i US] [-t SEC] FILE... | starve [-i US] [-m MS] | flap [-d MS] [-u FILE=VALUE] [-t MS] IFACE\n",
		argv[0]);
	return 1;
}
