// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_ha_idbench - hold many RDMA CM IDs bound to one address and log
 * every event they get with CLOCK_MONOTONIC time stamps, for benchmarks of
 * how long the CM takes to handle a bonding failover as the number of IDs
 * grows.
 *
 *	rdma_ha_idbench -b ADDR [-b ADDR ...] [-n IDS] [-p PORT] [--ha-mode MODE]
 *
 * Creates IDS IDs (RDMA_PS_TCP, RC) on one event channel, sets the HA mode
 * if asked, binds each to ADDR with an ephemeral port, prints "ready ids=N"
 * and then one line per event until SIGINT/SIGTERM:
 *
 *	<mono> event name=RDMA_CM_EVENT_ADDR_CHANGE status=0 idx=17
 *
 * With several -b, ID i is bound to address i % NADDRS.  With -p, ID i gets
 * port PORT + i / NADDRS instead of an ephemeral one: hundreds of thousands
 * of IDs fit in the port space when they are spread over addresses.
 *
 * A harness notes the time just before it triggers a failover and counts the
 * events after it. Exit status: 0 after a signal, 1 on a setup error, 3 when
 * the kernel refuses the HA mode.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <rdma/rdma_cma.h>

#ifndef RDMA_OPTION_ID_HA_MODE
#define RDMA_OPTION_ID_HA_MODE		4
#endif

#define IDB_MAX_IDS			1048576
#define IDB_MAX_ADDRS			64

static const char *const idb_modes[] = {
	"notify", "ignore", "align", "fail-fast", "migrate", "report",
};

static double idb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int idb_parse_mode(const char *s)
{
	unsigned int i;
	char *end;
	long v;

	for (i = 0; i < sizeof(idb_modes) / sizeof(idb_modes[0]); i++)
		if (!strcmp(s, idb_modes[i]))
			return i;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < 0 || v > 255)
		return -1;
	return v;
}

static void idb_set_port(struct sockaddr *sa, long port)
{
	if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)sa)->sin_port = htons(port);
}

static void idb_usage(FILE *f)
{
	fputs("usage: rdma_ha_idbench -b ADDR [-b ADDR ...] [-n IDS] [-p PORT] [--ha-mode MODE]\n"
	      "  -b, --bind ADDR    bind the IDs to ADDR (round robin over up to 64)\n"
	      "  -n, --ids N        number of IDs (default 1, at most 1048576)\n"
	      "  -p, --port PORT    ID i gets port PORT + i / (number of -b),\n"
	      "                     not an ephemeral one\n"
	      "      --ha-mode M    notify|ignore|align|fail-fast|migrate or a number\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bind",	required_argument, NULL, 'b' },
		{ "ids",	required_argument, NULL, 'n' },
		{ "port",	required_argument, NULL, 'p' },
		{ "ha-mode",	required_argument, NULL, 'm' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ }
	};
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	}, *ai[IDB_MAX_ADDRS];
	struct rdma_event_channel *ch;
	struct rdma_cm_id **ids;
	struct rdma_cm_event *ev;
	struct pollfd pfd[2];
	unsigned int naddrs = 0, a;
	long n = 1, port = 0, i;
	int mode = -1, c;
	sigset_t sigs;

	while ((c = getopt_long(argc, argv, "b:n:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (naddrs == IDB_MAX_ADDRS) {
				fputs("rdma_ha_idbench: too many addresses\n", stderr);
				return 1;
			}
			if (getaddrinfo(optarg, NULL, &hints, &ai[naddrs])) {
				fprintf(stderr, "rdma_ha_idbench: bad address '%s'\n",
					optarg);
				return 1;
			}
			naddrs++;
			break;
		case 'p':
			port = strtol(optarg, NULL, 0);
			break;
		case 'n':
			n = strtol(optarg, NULL, 0);
			break;
		case 'm':
			mode = idb_parse_mode(optarg);
			if (mode < 0) {
				fprintf(stderr, "rdma_ha_idbench: bad mode '%s'\n", optarg);
				return 1;
			}
			break;
		case 'h':
			idb_usage(stdout);
			return 0;
		default:
			idb_usage(stderr);
			return 1;
		}
	}
	if (!naddrs || n < 1 || n > IDB_MAX_IDS || optind != argc ||
	    port < 0 || port + (n - 1) / naddrs > 65535) {
		idb_usage(stderr);
		return 1;
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[0].fd = signalfd(-1, &sigs, SFD_CLOEXEC);
	ch = rdma_create_event_channel();
	ids = calloc(n, sizeof(*ids));
	if (pfd[0].fd < 0 || !ch || !ids) {
		perror("rdma_ha_idbench: setup");
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint8_t val = mode;

		if (rdma_create_id(ch, &ids[i], (void *)(uintptr_t)i,
				   RDMA_PS_TCP)) {
			perror("rdma_ha_idbench: rdma_create_id");
			return 1;
		}
		if (mode >= 0 &&
		    rdma_set_option(ids[i], RDMA_OPTION_ID,
				    RDMA_OPTION_ID_HA_MODE, &val, sizeof(val))) {
			perror("rdma_ha_idbench: rdma_set_option(HA_MODE)");
			return 3;
		}
		a = i % naddrs;
		if (port)
			idb_set_port(ai[a]->ai_addr, port + i / naddrs);
		if (rdma_bind_addr(ids[i], ai[a]->ai_addr)) {
			fprintf(stderr, "rdma_ha_idbench: rdma_bind_addr (ID %ld): %s\n",
				i, strerror(errno));
			return 1;
		}
	}
	for (a = 0; a < naddrs; a++)
		freeaddrinfo(ai[a]);
	printf("%.6f ready ids=%ld\n", idb_now(), n);
	fflush(stdout);

	pfd[0].events = POLLIN;
	pfd[1].fd = ch->fd;
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("rdma_ha_idbench: poll");
			return 1;
		}
		if (pfd[0].revents)
			break;
		if (!(pfd[1].revents & POLLIN))
			continue;
		if (rdma_get_cm_event(ch, &ev)) {
			perror("rdma_ha_idbench: rdma_get_cm_event");
			return 1;
		}
		printf("%.6f event name=%s status=%d idx=%lu\n", idb_now(),
		       rdma_event_str(ev->event), ev->status,
		       (unsigned long)(uintptr_t)ev->id->context);
		rdma_ack_cm_event(ev);
		fflush(stdout);
	}
	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(ch);
	free(ids);
	return 0;
}
