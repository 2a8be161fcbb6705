// SPDX-License-Identifier: GPL-2.0-only
/*
 * ucma_ha_setopt - bad input for RDMA_OPTION_ID_HA_MODE through librdmacm
 *
 *   ucma_ha_setopt [--addr IPV4] [--iterations N] [--seed S] [--require]
 *                  [--fail-nth]
 *
 * Every call goes through librdmacm's unmodified rdma_set_option(), which
 * hands level, optname, optval and optlen (truncated to __u32) to ucma.
 *
 * Part 1, a table: the HA mode values, unknown values, wrong optlen,
 * unreadable optval, unknown optnames and levels, on RC and UD IDs in the
 * states idle, bound, listening, address resolved and route resolved, and
 * on both ends of a connection (made without QPs) before and after it is
 * disconnected (EBUSY).  Each result is compared with
 * Documentation/infiniband/rdma_cm_ha.rst and the stock ucma.c checks.
 *
 * Part 2, a randomized loop (default 100000 calls, fixed seed, printed):
 * random level, optname, optlen and optval on a pool of IDs in those
 * states (and the disconnected ends), IDs destroyed and recreated now and
 * then.  Each result must be
 * what a model of ucma_set_option() allows.  The kernel must not splat;
 * the runner checks the console.
 *
 * Part 3 (--fail-nth), a fault-injection sweep: three sequences (an RC
 * fail-fast listener; an RC ID resolved in align and switched to
 * migrate; a UD ID in ignore) run again and again with the Nth slab
 * allocation of the thread failed (/proc/thread-self/fail-nth), N = 1,
 * 2, ... until the sequence makes fewer than N allocations.  Every
 * result must be success or an errno an allocation failure explains,
 * and each sequence must work again afterwards.  --fail-nth on a kernel
 * without fault injection fails.
 *
 * --addr is an IPv4 address of an rxe device (default 198.18.0.1).
 * --require: fail instead of skip when the kernel lacks the option or
 * no RDMA device is bound to the address.
 *
 * TAP output; exit 0 pass, 1 fail, 4 skip.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "fail_nth.h"

/* Debian's rdma-core 44 headers predate the option. */
#ifndef RDMA_OPTION_ID_HA_MODE
#define RDMA_OPTION_ID_HA_MODE	4
#endif
#define HA_MODE_NOTIFY		0
#define HA_MODE_IGNORE		1
#define HA_MODE_ALIGN		2
#define HA_MODE_FAIL_FAST	3
#define HA_MODE_MIGRATE		4
#define HA_MODE_REPORT		5
#define HA_MODE_MAX		HA_MODE_REPORT

/* align, fail-fast and migrate tear down: connected QP types only */
static inline int ha_mode_tears_down(unsigned int m)
{
	return m >= HA_MODE_ALIGN && m <= HA_MODE_MIGRATE;
}

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define KSFT_PASS		0
#define KSFT_FAIL		1
#define KSFT_SKIP		4

/* ucma rejects optlen > KMALLOC_MAX_SIZE (4 MiB on x86_64) before copying. */
#define KMALLOC_MAX		(4u << 20)
/* Copies larger than this may fail with ENOMEM. */
#define ENOMEM_LEN		(64u << 10)
#define PATH_DATA_LEN		72u	/* struct ib_path_rec_data */
#define PATH_FLAGS_PRIMARY	0x2bu	/* GMP | PRIMARY | BIDIRECTIONAL */
#define PATH_FLAGS_ALTERNATE	0x2du	/* GMP | ALTERNATE | BIDIRECTIONAL */

#define BUF_LEN			(8u << 20)
#define KERNEL_PTR		((void *)0xffff888000000000ull)

/* make_id() makes IDs in the states before NR_STATES. */
enum id_state {
	ST_IDLE, ST_BOUND, ST_LISTEN, ST_ADDR, ST_ROUTE, NR_STATES,
	ST_CONNECTED = NR_STATES, ST_DISCONNECTED,
};

static const char *const state_name[] = {
	"idle", "bound", "listening", "addr-resolved", "route-resolved",
	"connected", "disconnected",
};

struct tid {
	struct rdma_cm_id *id;
	enum rdma_port_space ps;
	enum id_state st;
};

static struct sockaddr_in addr;
/* A connection without QPs, disconnected: both ends stay for the loop. */
static struct rdma_event_channel *conn_ch;
static struct rdma_cm_id *conn_listen;
static struct tid conn[2];
static int nconn;
static unsigned char *buf;	/* BUF_LEN readable bytes, then a guard page */
static int tests, failures;
static bool verbose;

static void ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass)
		failures++;
}

static const char *ename(int e)
{
	static char s[16];

	switch (e) {
	case 0:		 return "0";
	case EINVAL:	 return "EINVAL";
	case ENOSYS:	 return "ENOSYS";
	case EFAULT:	 return "EFAULT";
	case ENOMEM:	 return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY:	 return "EBUSY";
	case ENODEV:	 return "ENODEV";
	case ENOENT:	 return "ENOENT";
	case ENODATA:	 return "ENODATA";
	case ENOBUFS:	 return "ENOBUFS";
	case EPERM:	 return "EPERM";
	}
	snprintf(s, sizeof(s), "errno %d", e);
	return s;
}

/* setopt: 0 or the errno of one rdma_set_option() call. */
static int setopt(struct rdma_cm_id *id, int level, int optname,
		  const void *optval, size_t optlen)
{
	errno = 0;
	if (!rdma_set_option(id, level, optname, (void *)optval, optlen))
		return 0;
	return errno ? errno : -1;
}

/* make_id: an ID of port space @ps brought to state @st; 0 or an errno. */
static int make_id(struct tid *t, enum rdma_port_space ps, enum id_state st)
{
	struct rdma_cm_id *id;
	struct sockaddr_in a = addr;

	t->id = NULL;
	t->ps = ps;
	t->st = st;
	if (rdma_create_id(NULL, &id, NULL, ps))
		return errno;
	switch (st) {
	case ST_IDLE:
		break;
	case ST_BOUND:
	case ST_LISTEN:
		a.sin_port = 0;
		if (rdma_bind_addr(id, (struct sockaddr *)&a))
			goto err;
		if (st == ST_LISTEN && rdma_listen(id, 4))
			goto err;
		break;
	case ST_ADDR:
	case ST_ROUTE:
		a.sin_port = htons(7471);
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&a, 2000))
			goto err;
		if (st == ST_ROUTE && rdma_resolve_route(id, 2000))
			goto err;
		break;
	default:
		break;
	}
	t->id = id;
	return 0;
err:
	{
		int e = errno;

		rdma_destroy_id(id);
		return e ? e : EIO;
	}
}

static void drop_id(struct tid *t)
{
	if (t->id)
		rdma_destroy_id(t->id);
	t->id = NULL;
}

/* ---- part 1: the table ---- */

static int check(struct tid *t, int level, int optname, const void *optval,
		 size_t optlen, int want, const char *what)
{
	int got = setopt(t->id, level, optname, optval, optlen);

	if (got == want)
		ok(true, "%s %s: %s -> %s", t->ps == RDMA_PS_TCP ? "RC" : "UD",
		   state_name[t->st], what, ename(want));
	else
		ok(false, "%s %s: %s (got %s want %s)",
		   t->ps == RDMA_PS_TCP ? "RC" : "UD", state_name[t->st], what,
		   ename(got), ename(want));
	return got;
}

/* check_names: optnames [first, last] at @level all give @want. */
static void check_names(struct tid *t, int level, long first, long last,
			int want, const char *what)
{
	unsigned char v = HA_MODE_IGNORE;
	long n, bad = 0, badn = 0;
	int got, badgot = 0;

	for (n = first; n <= last; n++) {
		got = setopt(t->id, level, (int)n, &v, 1);
		if (got != want && !bad++) {
			badn = n;
			badgot = got;
		}
	}
	if (!bad)
		ok(true, "%s: %ld calls -> %s", what, last - first + 1,
		   ename(want));
	else
		ok(false, "%s (%ld of %ld wrong, first optname %ld: got %s want %s)",
		   what, bad, last - first + 1, badn, ename(badgot),
		   ename(want));
}

static void check_levels(struct tid *t, const long *levels, int n, int want,
			 const char *what)
{
	unsigned char v = HA_MODE_IGNORE;
	int i, got, bad = 0, badgot = 0;
	long badl = 0;

	for (i = 0; i < n; i++) {
		got = setopt(t->id, (int)levels[i], RDMA_OPTION_ID_HA_MODE,
			     &v, 1);
		if (got != want && !bad++) {
			badl = levels[i];
			badgot = got;
		}
	}
	if (!bad)
		ok(true, "%s: %d levels -> %s", what, n, ename(want));
	else
		ok(false, "%s (%d of %d wrong, first level %ld: got %s want %s)",
		   what, bad, n, badl, ename(badgot), ename(want));
}

/* next_event: type of the next event on conn_ch within 5 s, its ID in @id. */
static int next_event(struct rdma_cm_id **id, int *status)
{
	struct pollfd pfd = { .fd = conn_ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type;

	if (poll(&pfd, 1, 5000) != 1 || rdma_get_cm_event(conn_ch, &ev))
		return -1;
	*id = ev->id;
	*status = ev->status;
	type = ev->event;
	rdma_ack_cm_event(ev);
	return type;
}

static struct rdma_cm_id *expect_event(int want)
{
	struct rdma_cm_id *id = NULL;
	int type, status = 0;

	type = next_event(&id, &status);
	if (type == want && !status)
		return id;
	printf("# waiting for %s: got %s status %d\n",
	       rdma_event_str(want),
	       type < 0 ? "nothing" : rdma_event_str(type), status);
	return NULL;
}

/*
 * connected_pair: connect an RC ID to a listener over rxe (no QPs: the CM
 * exchange only), check the modes on both connected ends, disconnect and
 * check EBUSY.  The disconnected ends go into the randomized loop.
 */
static void connected_pair(void)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = 0x1234,
	};
	struct sockaddr_in a = addr;
	struct rdma_cm_id *c, *s, *id;
	int i, type, status, seen;
	unsigned char m;
	char what[64];

	conn_ch = rdma_create_event_channel();
	if (!conn_ch ||
	    rdma_create_id(conn_ch, &conn_listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(conn_listen, (struct sockaddr *)&a) ||
	    rdma_listen(conn_listen, 4)) {
		ok(false, "connection: listener (%s)", strerror(errno));
		return;
	}
	if (rdma_create_id(conn_ch, &c, NULL, RDMA_PS_TCP)) {
		ok(false, "connection: client ID (%s)", strerror(errno));
		return;
	}
	conn[0] = (struct tid){ c, RDMA_PS_TCP, ST_ROUTE };
	nconn = 1;
	a.sin_port = rdma_get_src_port(conn_listen);
	if (rdma_resolve_addr(c, NULL, (struct sockaddr *)&a, 2000) ||
	    !expect_event(RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(c, 2000) ||
	    !expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED) ||
	    rdma_connect(c, &param)) {
		ok(false, "connection: resolving and connecting");
		return;
	}
	s = expect_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!s) {
		ok(false, "connection: no connect request");
		return;
	}
	conn[1] = (struct tid){ s, RDMA_PS_TCP, ST_ROUTE };
	nconn = 2;
	param.qp_num = 0x5678;
	if (rdma_accept(s, &param) ||
	    expect_event(RDMA_CM_EVENT_CONNECT_RESPONSE) != c ||
	    rdma_establish(c) ||
	    expect_event(RDMA_CM_EVENT_ESTABLISHED) != s) {
		ok(false, "connection: accept and establish");
		return;
	}
	for (i = 0; i < 2; i++) {
		conn[i].st = ST_CONNECTED;
		for (m = 0; m <= HA_MODE_MAX + 1; m++) {
			snprintf(what, sizeof(what), "%s end, mode %u optlen 1",
				 i ? "passive" : "active", m);
			check(&conn[i], RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
			      &m, 1, m > HA_MODE_MAX ? EINVAL : 0, what);
		}
	}
	if (rdma_disconnect(c)) {
		ok(false, "connection: rdma_disconnect (%s)", strerror(errno));
		return;
	}
	/* DREQ: the passive end answers with rdma_disconnect() (DREP). */
	for (seen = 0; seen != 3; ) {
		type = next_event(&id, &status);
		if (type == RDMA_CM_EVENT_DISCONNECTED && id == s &&
		    !(seen & 2)) {
			seen |= 2;
			if (rdma_disconnect(s))
				printf("# passive rdma_disconnect: %s\n",
				       strerror(errno));
			continue;
		}
		if (type == RDMA_CM_EVENT_DISCONNECTED && id == c) {
			seen |= 1;
			continue;
		}
		printf("# waiting for DISCONNECTED (seen %d): got %s\n", seen,
		       type < 0 ? "nothing" : rdma_event_str(type));
		ok(false, "connection: disconnect events");
		return;
	}
	ok(true, "connection: both ends got RDMA_CM_EVENT_DISCONNECTED");
	for (i = 0; i < 2; i++) {
		conn[i].st = ST_DISCONNECTED;
		for (m = 0; m <= HA_MODE_MAX + 1; m++) {
			snprintf(what, sizeof(what), "%s end, mode %u optlen 1",
				 i ? "passive" : "active", m);
			check(&conn[i], RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
			      &m, 1, m > HA_MODE_MAX ? EINVAL : EBUSY, what);
		}
		buf[0] = HA_MODE_IGNORE;
		snprintf(what, sizeof(what), "%s end, mode 1 optlen 2",
			 i ? "passive" : "active");
		check(&conn[i], RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, buf, 2,
		      EINVAL, what);
	}
}

static int table(void)
{
	static const unsigned char bad_modes[] = { 6, 7, 127, 128, 254, 255 };
	static const size_t bad_lens[] = { 0, 2, 3, 4, 8, 16, 4096, 1u << 20 };
	static const long bad_levels[] = {
		2, 3, 4, 5, 6, 7, 8, 16, 41, 255, 256, 1000, 65535, INT_MAX,
		-1, INT_MIN,
	};
	unsigned char *guard_edge = buf + BUF_LEN - 1;
	enum rdma_port_space ps;
	enum id_state st;
	struct tid t;
	unsigned int i;
	unsigned char m;
	char what[96];
	int want, err;

	/* Valid modes in every state, RC and UD. */
	for (ps = RDMA_PS_TCP; ; ps = RDMA_PS_UDP) {
		for (st = ST_IDLE; st < NR_STATES; st++) {
			err = make_id(&t, ps, st);
			if (err) {
				ok(false, "%s %s: setting up the ID (%s)",
				   ps == RDMA_PS_TCP ? "RC" : "UD",
				   state_name[st], strerror(err));
				continue;
			}
			for (m = 0; m <= HA_MODE_MAX; m++) {
				want = 0;
				if (ps == RDMA_PS_UDP && ha_mode_tears_down(m))
					want = EOPNOTSUPP;
				snprintf(what, sizeof(what), "mode %u optlen 1", m);
				check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
				      &m, 1, want, what);
			}
			for (i = 0; i < sizeof(bad_modes); i++) {
				snprintf(what, sizeof(what), "mode %u optlen 1",
					 bad_modes[i]);
				check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
				      &bad_modes[i], 1, EINVAL, what);
			}
			drop_id(&t);
		}
		if (ps == RDMA_PS_UDP)
			break;
	}

	/* Everything else on a bound RC ID (it has the rxe device). */
	err = make_id(&t, RDMA_PS_TCP, ST_BOUND);
	if (err) {
		ok(false, "RC bound: setting up the ID (%s)", strerror(err));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(bad_lens); i++) {
		memset(buf, HA_MODE_IGNORE, bad_lens[i] ? bad_lens[i] : 1);
		snprintf(what, sizeof(what), "mode 1 optlen %zu", bad_lens[i]);
		check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, buf,
		      bad_lens[i], EINVAL, what);
	}
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, NULL, 0, EINVAL,
	      "NULL optval optlen 0");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, NULL,
	      KMALLOC_MAX + 1, EINVAL, "NULL optval optlen 4 MiB + 1 (> KMALLOC_MAX_SIZE)");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, buf,
	      KMALLOC_MAX + 1, EINVAL, "optlen 4 MiB + 1 (> KMALLOC_MAX_SIZE)");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, buf, UINT32_MAX,
	      EINVAL, "optlen 2^32 - 1");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, buf, SIZE_MAX,
	      EINVAL, "optlen SIZE_MAX (librdmacm truncates to 2^32 - 1)");
	/* librdmacm's optlen is size_t, ucma's __u32: 2^32 + 1 arrives as 1. */
	buf[0] = HA_MODE_ALIGN;
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, buf,
	      (size_t)UINT32_MAX + 2, 0,
	      "mode 2 optlen 2^32 + 1 (librdmacm truncates to 1)");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, NULL, 1, EFAULT,
	      "NULL optval optlen 1");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, (void *)1, 1, EFAULT,
	      "optval 0x1 optlen 1");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, KERNEL_PTR, 1, EFAULT,
	      "kernel optval optlen 1");
	*guard_edge = HA_MODE_IGNORE;
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, guard_edge, 1, 0,
	      "mode 1 in the last byte before a guard page");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, guard_edge, 2, EFAULT,
	      "optlen 2 running into a guard page (copied before the length check)");
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
	      buf + BUF_LEN - (1u << 20), 2u << 20, EFAULT,
	      "optlen 2 MiB from 1 MiB before a guard page");
	m = HA_MODE_FAIL_FAST;
	check(&t, RDMA_OPTION_IB, RDMA_OPTION_ID_HA_MODE, &m, 1, ENOSYS,
	      "mode 3 at level RDMA_OPTION_IB");
	check(&t, 2, RDMA_OPTION_ID_HA_MODE, NULL, 1, EFAULT,
	      "NULL optval at unknown level 2 (copied before the level check)");
	check_names(&t, RDMA_OPTION_ID, 5, 1000, ENOSYS,
		    "level RDMA_OPTION_ID optnames 5..1000");
	check_names(&t, RDMA_OPTION_ID, INT_MAX - 2, INT_MAX, ENOSYS,
		    "level RDMA_OPTION_ID optnames INT_MAX-2..INT_MAX");
	check_names(&t, RDMA_OPTION_ID, -3, -1, ENOSYS,
		    "level RDMA_OPTION_ID optnames -3..-1");
	check_names(&t, RDMA_OPTION_IB, 2, 1000, ENOSYS,
		    "level RDMA_OPTION_IB optnames 2..1000");
	check_levels(&t, bad_levels, ARRAY_SIZE(bad_levels),
		     ENOSYS, "unknown levels, optname HA_MODE");
	/* The neighbouring options still work as before. */
	m = 0x20;
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &m, 1, 0, "TOS optlen 1");
	m = 14;
	check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &m, 1, 0,
	      "ACK_TIMEOUT optlen 1");
	/* A failed call must not disturb the next good one. */
	for (m = 0; m <= HA_MODE_MAX; m++) {
		snprintf(what, sizeof(what), "mode %u again after the bad input", m);
		check(&t, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, &m, 1, 0, what);
	}
	printf("ok %d # SKIP read back the mode: librdmacm has no rdma_get_option()\n",
	       ++tests);
	drop_id(&t);
	return 0;
}

/* ---- part 2: the randomized loop ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() >> 32) % n;
}

/* Result sets: one bit per result ucma_set_option() can give. */
#define RES_OK		0x01u
#define RES_EINVAL	0x02u
#define RES_ENOSYS	0x04u
#define RES_EFAULT	0x08u
#define RES_ENOMEM	0x10u
#define RES_EOPNOTSUPP	0x20u
#define RES_ENODEV	0x40u
#define RES_EBUSY	0x80u

static unsigned int result_bit(int e)
{
	switch (e) {
	case 0:		 return RES_OK;
	case EINVAL:	 return RES_EINVAL;
	case ENOSYS:	 return RES_ENOSYS;
	case EFAULT:	 return RES_EFAULT;
	case ENOMEM:	 return RES_ENOMEM;
	case EOPNOTSUPP: return RES_EOPNOTSUPP;
	case ENODEV:	 return RES_ENODEV;
	case EBUSY:	 return RES_EBUSY;
	}
	return 0;
}

/*
 * expect: the results ucma_set_option() may give, as a mask of BIT(errno)
 * with RES_OK for success.  Mirrors ucma.c (stock checks plus HA_MODE).
 */
static unsigned int expect(const struct tid *t, int level, int optname,
			   const unsigned char *p, size_t len)
{
	uint32_t len32 = (uint32_t)len;	/* cmd.optlen is __u32 */
	unsigned int mask = 0;
	bool readable;
	int v;

	if (len32 > KMALLOC_MAX)
		return RES_EINVAL;
	if (len32 > ENOMEM_LEN)
		mask |= RES_ENOMEM;
	readable = p >= buf && p <= buf + BUF_LEN &&
		   len32 <= (size_t)(buf + BUF_LEN - p);
	if (len32 && !readable)
		return mask | RES_EFAULT;

	switch (level) {
	case RDMA_OPTION_ID:
		switch (optname) {
		case RDMA_OPTION_ID_TOS:
			return mask | (len32 == 1 ? RES_OK : RES_EINVAL);
		case RDMA_OPTION_ID_REUSEADDR:
			if (len32 != sizeof(int))
				return mask | RES_EINVAL;
			memcpy(&v, p, sizeof(v));
			if ((v && t->st != ST_LISTEN) || t->st == ST_IDLE)
				return mask | RES_OK;
			return mask | RES_EINVAL;
		case RDMA_OPTION_ID_AFONLY:
			if (len32 != sizeof(int))
				return mask | RES_EINVAL;
			if (t->st == ST_IDLE || t->st == ST_BOUND)
				return mask | RES_OK;
			return mask | RES_EINVAL;
		case RDMA_OPTION_ID_ACK_TIMEOUT:
			if (len32 != 1 || t->ps != RDMA_PS_TCP)
				return mask | RES_EINVAL;
			return mask | RES_OK;
		case RDMA_OPTION_ID_HA_MODE:
			if (len32 != 1 || p[0] > HA_MODE_MAX)
				return mask | RES_EINVAL;
			if (ha_mode_tears_down(p[0]) && t->ps != RDMA_PS_TCP)
				return mask | RES_EOPNOTSUPP;
			if (t->st == ST_DISCONNECTED)
				return mask | RES_EBUSY;
			return mask | RES_OK;
		}
		return mask | RES_ENOSYS;
	case RDMA_OPTION_IB:
		if (optname != RDMA_OPTION_IB_PATH)
			return mask | RES_ENOSYS;
		if (len32 % PATH_DATA_LEN)
			return mask | RES_EINVAL;
		for (v = 0; len32; len32 -= PATH_DATA_LEN, p += PATH_DATA_LEN) {
			uint32_t flags;

			memcpy(&flags, p, sizeof(flags));
			if (flags == PATH_FLAGS_PRIMARY)
				return mask | RES_OK | RES_EINVAL |
				       RES_ENODEV | RES_ENOMEM;
			v |= flags == PATH_FLAGS_ALTERNATE;
		}
		/* an alternate path alone: rdma_set_ib_alt_path() */
		if (v)
			mask |= RES_OK | RES_EOPNOTSUPP | RES_ENOMEM;
		return mask | RES_EINVAL;
	}
	return mask | RES_ENOSYS;
}

static void fill(unsigned char *p, size_t n)
{
	uint64_t r;
	size_t i;

	for (i = 0; i < n; i += 8) {
		r = rnd();
		memcpy(p + i, &r, n - i < 8 ? n - i : 8);
	}
}

#define POOL	8

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fuzz(unsigned long iterations)
{
	static const size_t big[] = {
		65536, 65537, 1u << 20, (2u << 20) + 3, KMALLOC_MAX,
		KMALLOC_MAX + 1, 16u << 20, UINT32_MAX, (size_t)1 << 32,
		((size_t)1 << 32) + 1, SIZE_MAX,
	};
	unsigned long i, bad = 0, recreated = 0, counts[4] = { 0 };
	struct tid pool[POOL + 2];
	double t0, dt;
	int k, err;

	for (k = 0; k < POOL; k++) {
		err = make_id(&pool[k], k & 1 ? RDMA_PS_UDP : RDMA_PS_TCP,
			      (k / 2 + k) % NR_STATES);
		if (err) {
			ok(false, "random loop: setting up ID %d (%s)", k,
			   strerror(err));
			while (k--)
				drop_id(&pool[k]);
			return -1;
		}
	}

	for (k = 0; k < nconn; k++)
		pool[POOL + k] = conn[k];
	t0 = now();
	for (i = 0; i < iterations; i++) {
		unsigned int slot = rnd_below(POOL + nconn);
		struct tid *t = &pool[slot];
		unsigned char *p;
		unsigned int allowed;
		int level, name, got;
		uint32_t r;
		size_t len;

		/* Now and then replace an ID by one in a random state. */
		if (slot < POOL && !rnd_below(2000)) {
			drop_id(t);
			err = make_id(t, rnd_below(2) ? RDMA_PS_UDP : RDMA_PS_TCP,
				      rnd_below(NR_STATES));
			if (err) {
				ok(false, "random loop: recreating an ID at call %lu (%s)",
				   i, strerror(err));
				bad++;
				break;
			}
			recreated++;
		}

		r = rnd_below(100);
		if (r < 85)
			level = RDMA_OPTION_ID;
		else if (r < 92)
			level = RDMA_OPTION_IB;
		else if (r < 97)
			level = rnd_below(1001);
		else
			level = (int)(uint32_t)rnd();

		r = rnd_below(100);
		if (r < 50)
			name = RDMA_OPTION_ID_HA_MODE;
		else if (r < 85)
			name = rnd_below(7);
		else if (r < 95)
			name = rnd_below(1001);
		else
			name = (int)(uint32_t)rnd();

		r = rnd_below(1000);
		if (r < 400)
			len = 1;
		else if (r < 940)
			len = rnd_below(17);
		else if (r < 990)
			len = rnd_below(4097);
		else
			len = big[rnd_below(ARRAY_SIZE(big))];

		r = rnd_below(1000);
		if (r < 930) {
			/* In the buffer, ending before the guard if it fits. */
			size_t room = len < BUF_LEN ? BUF_LEN - len : 0;

			p = buf + (room ? rnd_below(room + 1) : 0);
		} else if (r < 960) {
			/* Straddling the guard page. */
			p = buf + BUF_LEN - rnd_below(len < 16 ? len + 1 : 17);
		} else if (r < 980) {
			p = NULL;
		} else if (r < 990) {
			p = (unsigned char *)(uintptr_t)(1 + rnd_below(4096));
		} else {
			p = KERNEL_PTR;
		}

		if (p >= buf && p < buf + BUF_LEN) {
			size_t n = buf + BUF_LEN - p;

			fill(p, n < 80 ? n : 80);
			/* Mostly mode values that exist. */
			if (rnd_below(3))
				p[0] = rnd_below(HA_MODE_MAX + 2);
		}

		allowed = expect(t, level, name, p, len);
		got = setopt(t->id, level, name, p, len);
		if (!(allowed & result_bit(got))) {
			if (bad++ < 10)
				printf("# call %lu: %s %s level %d optname %d optlen %zu\n"
				       "#   optval %p byte0 %d: got %s\n",
				       i, t->ps == RDMA_PS_TCP ? "RC" : "UD",
				       state_name[t->st], level, name, len,
				       (void *)p,
				       p >= buf && p < buf + BUF_LEN ? p[0] : -1,
				       ename(got));
			continue;
		}
		if (!got && level == RDMA_OPTION_IB && t->st == ST_ADDR)
			t->st = ST_ROUTE;	/* a random path record took */
		counts[!got ? 0 : got == EINVAL ? 1 : got == ENOSYS ? 2 : 3]++;
		if (verbose && !(i % 10000))
			printf("# %lu calls\n", i);
	}
	dt = now() - t0;
	for (k = 0; k < POOL; k++)
		drop_id(&pool[k]);

	printf("# random loop: %lu calls in %.3f s (%.0f calls/s), %lu IDs recreated\n",
	       i, dt, dt > 0 ? i / dt : 0.0, recreated);
	printf("# results: %lu ok, %lu EINVAL, %lu ENOSYS, %lu other allowed errnos\n",
	       counts[0], counts[1], counts[2], counts[3]);
	if (bad)
		ok(false, "random loop: %lu of %lu results outside the model (got X want Y above)",
		   bad, i);
	else
		ok(true, "random loop: %lu calls, every result as ucma allows",
		   i);
	return 0;
}

/* ---- part 3: every kernel allocation failed in turn ---- */

/*
 * The kernel fails the Nth slab allocation of this thread after N is
 * written to /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION; the
 * scenario turns failslab's ignore-gfp-wait off, so that GFP_KERNEL
 * allocations fail too).  Reading it back gives 0 once the failure was
 * injected, what is left of N otherwise.  Each sequence below runs with
 * N = 1, 2, ... until it makes fewer than N allocations: every
 * allocation the kernel makes on its way (ucma, the CM, the HA mode,
 * address and route resolution) is failed once.  Each run must end in
 * success or in a call failing with an errno an allocation failure
 * explains; afterwards the sequence must work again.  The runner checks
 * the console for splats and the scenario kmemleak for leaks.
 */
static const char *const seq_name[] = {
	"RC create, fail-fast, bind, listen",
	"RC create, align, resolve addr, resolve route, migrate",
	"UD create, ignore, bind",
};

struct seq_result {
	int step;	/* the step that failed, -1 if none */
	int err;	/* its errno */
	long left;	/* fail-nth after the sequence: 0 = injected */
};

/*
 * run_seq: sequence @seq (see seq_name) on a fresh ID, with the
 * fail-nth already set; the result in @r.  The ID is destroyed with no
 * failure armed.
 */
static void run_seq(int seq, struct seq_result *r)
{
	struct sockaddr_in a = addr;
	struct rdma_cm_id *id = NULL;
	unsigned char m;
	int step = 0;

	r->step = -1;
	r->err = 0;
	if (rdma_create_id(NULL, &id, NULL,
			   seq == 2 ? RDMA_PS_UDP : RDMA_PS_TCP)) {
		id = NULL;
		goto fail;
	}
	step++;
	m = seq == 0 ? HA_MODE_FAIL_FAST : seq == 1 ? HA_MODE_ALIGN :
	    HA_MODE_IGNORE;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, &m, 1))
		goto fail;
	step++;
	if (seq != 1) {
		a.sin_port = 0;
		if (rdma_bind_addr(id, (struct sockaddr *)&a))
			goto fail;
		step++;
		if (seq == 0 && rdma_listen(id, 4))
			goto fail;
	} else {
		a.sin_port = htons(7471);
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&a, 2000))
			goto fail;
		step++;
		if (rdma_resolve_route(id, 2000))
			goto fail;
		step++;
		m = HA_MODE_MIGRATE;
		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
				    &m, 1))
			goto fail;
	}
	goto out;
fail:
	r->step = step;
	r->err = errno ? errno : EIO;
out:
	r->left = fail_nth_get();
	fail_nth_set(0);
	if (id)
		rdma_destroy_id(id);
}

/*
 * What a failed allocation may surface as in step @step of sequence
 * @seq, and nothing else.  EPERM: when the query librdmacm makes after
 * ADDR_RESOLVED or ROUTE_RESOLVED fails (the kernel's RDMA_USER_CM_CMD_
 * QUERY with its path allocation failed), librdmacm 44 stores that
 * query's return value, -1, as the event's status (ucma_process_route_
 * resolved(): evt->event.status = ucma_query_path(...)), and
 * ucma_complete() turns status -1 into errno 1.  So a resolve that
 * failed on ENOMEM is reported as EPERM; seen at allocation 29 of
 * sequence 1.  Nothing in the kernel returns EPERM there.
 */
static bool fail_errno_ok(int seq, int step, int e)
{
	if (e == EPERM && seq == 1 && (step == 2 || step == 3))
		return true;
	switch (e) {
	case ENOMEM:
	case ENOBUFS:		/* a route (dst) not allocated */
	case ENODEV:		/* no device bound to the address */
	case EADDRNOTAVAIL:	/* no route to the address */
	case ENETUNREACH:
	case EHOSTUNREACH:
	case ETIMEDOUT:		/* a resolution that could not go on */
		return true;
	}
	return false;
}

/* fail_nth_sweep: 0, or 1 when the kernel has no fail-nth. */
static int fail_nth_sweep(void)
{
	static const unsigned long max_n = 3000;
	struct seq_result r;
	unsigned long n;
	int seq;

	if (fail_nth_open() < 0)
		return 1;
	for (seq = 0; seq < (int)ARRAY_SIZE(seq_name); seq++) {
		unsigned long failed = 0, bad = 0, enomem = 0;
		int bad_step = 0, bad_err = 0;
		unsigned long bad_n = 0;
		bool done = false;

		for (n = 1; n <= max_n && !done; n++) {
			if (!fail_nth_set(n)) {
				ok(false, "%s: cannot arm fail-nth %lu: %s",
				   seq_name[seq], n, strerror(errno));
				goto out;
			}
			run_seq(seq, &r);
			if (r.left < 0) {
				ok(false, "%s: cannot read fail-nth back",
				   seq_name[seq]);
				goto out;
			}
			if (r.left > 0) {
				/* fewer than n allocations: nothing failed */
				done = true;
				if (r.step >= 0 && !bad++) {
					bad_n = n;
					bad_step = r.step;
					bad_err = r.err;
				}
				continue;
			}
			if (r.step < 0)
				continue;	/* the failure was absorbed */
			failed++;
			if (r.err == ENOMEM)
				enomem++;
			if (!fail_errno_ok(seq, r.step, r.err) && !bad++) {
				bad_n = n;
				bad_step = r.step;
				bad_err = r.err;
			}
			if (verbose)
				printf("# %s: allocation %lu failed step %d: %s\n",
				       seq_name[seq], n, r.step, ename(r.err));
		}
		printf("# %s: %lu allocations failed in turn, %lu calls failed (%lu ENOMEM)\n",
		       seq_name[seq], n - 2, failed, enomem);
		if (bad)
			ok(false,
			   "fail-nth sweep, %s: allocation %lu, step %d: %s, which no allocation failure explains",
			   seq_name[seq], bad_n, bad_step, ename(bad_err));
		else
			ok(done, "fail-nth sweep, %s: %s", seq_name[seq],
			   done ? "every allocation failed once" :
				  "still allocating at the last N");
		/* and the sequence works again */
		run_seq(seq, &r);
		ok(r.step < 0, "%s again, no failure armed: %s", seq_name[seq],
		   r.step < 0 ? "works" : ename(r.err));
	}
out:
	close(fail_nth_fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "require", no_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "fail-nth", no_argument, NULL, 'f' },
		{ }
	};
	unsigned long iterations = 100000;
	uint64_t seed = 20261129;
	const char *a = "198.18.0.1";
	bool require = false, sweep = false;
	unsigned char m = HA_MODE_NOTIFY;
	struct tid t;
	int c, k, err;

	while ((c = getopt_long(argc, argv, "a:n:s:rvf", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			a = optarg;
			break;
		case 'n':
			iterations = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			require = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'f':
			sweep = true;
			break;
		default:
			fprintf(stderr, "usage: %s [--addr IPV4] [--iterations N]\n"
				"\t[--seed S] [--require] [--verbose] [--fail-nth]\n", argv[0]);
			return KSFT_FAIL;
		}
	}
	addr.sin_family = AF_INET;
	if (inet_pton(AF_INET, a, &addr.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", a);
		return KSFT_FAIL;
	}
	rng = seed ? seed : 1;

	printf("TAP version 13\n");
	printf("# seed %llu, %lu iterations, address %s\n",
	       (unsigned long long)seed, iterations, a);

	buf = mmap(NULL, BUF_LEN + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || mprotect(buf + BUF_LEN, 4096, PROT_NONE)) {
		perror("mmap");
		return KSFT_FAIL;
	}

	/* Prerequisites: an RDMA device at @a, a kernel with the option. */
	err = make_id(&t, RDMA_PS_TCP, ST_BOUND);
	if (err) {
		printf("1..0 # %s no RDMA device at %s: %s\n",
		       require ? "FAIL" : "SKIP", a, strerror(err));
		return require ? KSFT_FAIL : KSFT_SKIP;
	}
	err = setopt(t.id, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE, &m, 1);
	drop_id(&t);
	if (err == ENOSYS && !require) {
		printf("1..0 # SKIP the kernel has no RDMA_OPTION_ID_HA_MODE\n");
		return KSFT_SKIP;
	}

	table();
	connected_pair();
	fuzz(iterations);
	if (sweep && fail_nth_sweep())
		ok(false, "fail-nth sweep: /proc/thread-self/fail-nth: %s",
		   strerror(errno));
	for (k = 0; k < nconn; k++)
		drop_id(&conn[k]);
	if (conn_listen)
		rdma_destroy_id(conn_listen);
	if (conn_ch)
		rdma_destroy_event_channel(conn_ch);

	printf("1..%d\n", tests);
	printf("# %d failed of %d\n", failures, tests);
	return failures ? KSFT_FAIL : KSFT_PASS;
}
