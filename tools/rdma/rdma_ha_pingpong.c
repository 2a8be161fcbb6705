// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_ha_pingpong - keep one RC connection busy and log every RDMA CM event
 * and every data stall with CLOCK_MONOTONIC timestamps, so that a test
 * harness can reconstruct a bonding failover timeline.
 *
 * The client sends a 64-byte SEND (sequence number + deterministic pattern),
 * the server echoes it back, the client verifies the echo. One ping is
 * outstanding at a time. Everything runs in one thread: the CM event channel
 * and the completion channels are non-blocking and multiplexed with ppoll().
 *
 * The device's asynchronous events (path migration, QP errors) are logged
 * as "async event=...".  When the CM loads a new alternate path into an ID
 * in migrate mode (RDMA_CM_EVENT_ALT_PATH_LOADED), the program arms its QP
 * with it at once ("alt_path_armed rc=...").
 *
 * stdout carries one record per line: "<mono> <role> <what> key=value ...".
 * Diagnostics for people go to stderr.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/signalfd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* Added to the uapi option enum by the rdma-ha series; not in rdma-core 44 */
#ifndef RDMA_OPTION_ID_HA_MODE
#define RDMA_OPTION_ID_HA_MODE		4
#endif

#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
/* userspace has no <linux/compiler.h> */
#define __printf(a, b)			__attribute__((format(printf, a, b)))

#define NSEC_PER_USEC			1000ULL
#define NSEC_PER_MSEC			1000000ULL
#define NSEC_PER_SEC			1000000000ULL

#define PP_MSG_SIZE			64
#define PP_RECV_DEPTH			4
#define PP_MAX_CONNS			8
#define PP_RTT_RING			8192
#define PP_WC_BATCH			8
#define PP_POLL_MAX_NS			(10 * NSEC_PER_MSEC)
#define PP_RESOLVE_TIMEOUT_MS		2000
#define PP_CONNECT_TIMEOUT_MS		5000
#define PP_RECONNECT_BACKOFF_MS		100
#define PP_WR_SEND			0x100	/* wr_id flag; low byte = slot */

enum pp_exit {
	PP_EXIT_OK	= 0,
	PP_EXIT_SETUP	= 1,
	PP_EXIT_LOST	= 2,
	PP_EXIT_HA_MODE	= 3,
	PP_EXIT_VERIFY	= 4,
};

struct pp_msg {
	uint64_t seq;		/* big endian */
	uint8_t pattern[PP_MSG_SIZE - sizeof(uint64_t)];
};

static_assert(sizeof(struct pp_msg) == PP_MSG_SIZE, "message size");

struct pp_opts {
	bool server;
	const char *server_addr;
	const char *bind_addr;
	const char *port;
	unsigned int duration_s;	/* 0: no limit */
	unsigned int interval_us;
	unsigned int stall_ms;
	unsigned int count;		/* server: 0 = no limit */
	unsigned int retry_count;	/* client: RC transport retries */
	unsigned int reply_timeout_ms;	/* client: 0 = wait for ever */
	unsigned int wc_grace_ms;	/* 0 = a WC error ends at once */
	unsigned int connect_delay_ms;	/* client: pause before rdma_connect */
	bool reconnect;
	int ha_mode;			/* -1: leave the kernel default */
	/* client: the alternate path given to each connection */
	bool have_alt;
	union ibv_gid alt_sgid, alt_dgid;
	uint16_t alt_slid, alt_dlid;
	int alt_hop_limit;		/* -1: the primary path's */
};

enum pp_conn_state { PP_RESOLVING, PP_CONNECTING, PP_ESTABLISHED };

/* One rdma_cm_id with its verbs resources; freed only by pp_reap(). */
struct pp_conn {
	struct rdma_cm_id *id;
	unsigned int num;		/* "id=" in the log */
	enum pp_conn_state state;
	uint64_t start_ns;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	bool has_qp;
	const char *dead;		/* reason; set = tear down this turn */
	bool local_close;		/* we end it: send a DREQ first */
	/* client: the one outstanding ping */
	bool ping_busy, ping_sent, ping_echoed, ping_ok;
	uint64_t ping_seq, ping_post_ns;
	uint64_t wc_error_ns;		/* first WC error, 0 = none */
	/* client: slot 0 sends, 1..DEPTH receive; server: 0..DEPTH-1 echo */
	uint8_t buf[(PP_RECV_DEPTH + 1) * PP_MSG_SIZE];
};

/* A completion is "owed" from the time a ping is posted or a link is lost. */
struct pp_stall {
	bool have_ok;			/* armed once a connection came up */
	bool owed;
	bool stalled;
	uint64_t owed_seq, owed_ns, last_ok_ns;
};

struct pp_stats {
	unsigned long pings, errors, wc_errors, connects, disconnects;
	unsigned long stalls, events;
	double max_gap_ms;
	uint32_t rtt_us[PP_RTT_RING];	/* ring of the latest samples */
	unsigned long rtt_n;
};

struct pp_app {
	struct pp_opts o;
	const char *role;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct pp_conn *conns[PP_MAX_CONNS];	/* the client uses [0] */
	unsigned int id_counter;
	unsigned int handled;			/* server: connections ended */
	unsigned int attempts;			/* client: connect attempts */
	bool attempt_pending;
	uint64_t end_ns, next_ping_ns, next_attempt_ns, last_rx_ns;
	uint64_t next_seq;
	struct sockaddr_storage dst, src;
	bool have_src;
	struct pp_stall st;
	struct pp_stats s;
	int exit_code;				/* -1 while running */
	int sig_fd;				/* SIGINT/SIGTERM */
	struct ibv_context *async_ctx;		/* whose async events we log */
};

static const char *const pp_ha_names[] = {
	"notify", "ignore", "align", "fail-fast", "migrate", "report",
};

/*
 * The status of RDMA_CM_EVENT_ADDR_CHANGE in an HA mode other than notify
 * (enum rdma_cm_ha_path_status of the kernel's uapi): the state of the ID's
 * path as the CM judged it.  Notify's ADDR_CHANGE has status 0.
 */
static const char *const pp_ha_path_names[] = {
	[1] = "aligned", [2] = "misaligned", [3] = "dead",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static double ns_to_ms(uint64_t ns)
{
	return (double)ns / NSEC_PER_MSEC;
}

__printf(2, 3)
static void pp_log(struct pp_app *app, const char *fmt, ...)
{
	uint64_t t = now_ns();
	va_list ap;

	printf("%llu.%06llu %s ", (unsigned long long)(t / NSEC_PER_SEC),
	       (unsigned long long)(t % NSEC_PER_SEC / NSEC_PER_USEC),
	       app->role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Log a failed call (errno) as a record and for people; returns -1. */
static int pp_fail(struct pp_app *app, const char *op)
{
	int err = errno;

	pp_log(app, "error op=%s errno=%d", op, err);
	fprintf(stderr, "rdma_ha_pingpong: %s: %s\n", op, strerror(err));
	if (err == ENODEV || err == ENOENT)
		fprintf(stderr,
			"rdma_ha_pingpong: no usable RDMA device (load rdma_rxe and run 'rdma link add rxe0 type rxe netdev <ifname>')\n");
	errno = err;
	return -1;
}

static void pp_finish(struct pp_app *app, int code)
{
	if (app->exit_code < 0)
		app->exit_code = code;
}

static void pp_kill(struct pp_conn *c, const char *reason, bool local)
{
	if (c->dead)
		return;
	c->dead = reason;
	c->local_close = local;
}

static int pp_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static const char *pp_addr_str(const struct sockaddr *sa, char *buf,
			       socklen_t len)
{
	const void *a;

	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	else
		return "?";
	return inet_ntop(sa->sa_family, a, buf, len) ? buf : "?";
}

/* ---- RTT samples and percentiles ---- */

static void pp_rtt_add(struct pp_stats *s, uint64_t ns)
{
	uint64_t us = ns / NSEC_PER_USEC;

	s->rtt_us[s->rtt_n++ % PP_RTT_RING] = us > UINT32_MAX ? UINT32_MAX : us;
}

static int pp_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile over the latest PP_RTT_RING samples. */
static uint32_t pp_rtt_pct(const struct pp_stats *s, unsigned int pct)
{
	static uint32_t sorted[PP_RTT_RING];
	size_t n = s->rtt_n < PP_RTT_RING ? s->rtt_n : PP_RTT_RING;
	size_t rank;

	if (!n)
		return 0;
	memcpy(sorted, s->rtt_us, n * sizeof(sorted[0]));
	qsort(sorted, n, sizeof(sorted[0]), pp_u32_cmp);
	rank = (n * pct + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

/* ---- stall tracker (client) ---- */

static void pp_stall_owe(struct pp_app *app, uint64_t seq, uint64_t now)
{
	struct pp_stall *st = &app->st;

	if (!st->have_ok || st->owed)
		return;		/* keep the oldest debt */
	st->owed = true;
	st->owed_seq = seq;
	st->owed_ns = now;
}

static void pp_stall_check(struct pp_app *app, uint64_t now)
{
	struct pp_stall *st = &app->st;
	uint64_t since;

	if (!st->owed || st->stalled ||
	    now - st->owed_ns < app->o.stall_ms * NSEC_PER_MSEC)
		return;
	st->stalled = true;
	app->s.stalls++;
	since = st->owed_ns;
	pp_log(app, "stall begin seq=%llu since=%llu.%06llu",
	       (unsigned long long)st->owed_seq,
	       (unsigned long long)(since / NSEC_PER_SEC),
	       (unsigned long long)(since % NSEC_PER_SEC / NSEC_PER_USEC));
}

static void pp_stall_ok(struct pp_app *app, uint64_t seq, uint64_t now)
{
	struct pp_stall *st = &app->st;
	double gap = ns_to_ms(now - st->last_ok_ns);

	if (gap > app->s.max_gap_ms)
		app->s.max_gap_ms = gap;
	if (st->stalled)
		pp_log(app, "stall end seq=%llu gap_ms=%.3f",
		       (unsigned long long)seq, gap);
	st->owed = false;
	st->stalled = false;
	st->last_ok_ns = now;
}

/* ---- messages ---- */

static uint8_t pp_pattern_byte(uint64_t seq, unsigned int i)
{
	return (uint8_t)(seq * 131 + i * 7 + 0x5a);
}

static void pp_msg_fill(struct pp_msg *m, uint64_t seq)
{
	unsigned int i;

	m->seq = htobe64(seq);
	for (i = 0; i < sizeof(m->pattern); i++)
		m->pattern[i] = pp_pattern_byte(seq, i);
}

/* Returns NULL if @m is the echo of @seq, else what is wrong with it. */
static const char *pp_msg_check(const struct pp_msg *m, uint32_t len,
				uint64_t seq)
{
	unsigned int i;

	if (len != PP_MSG_SIZE)
		return "length";
	if (be64toh(m->seq) != seq)
		return "seq";
	for (i = 0; i < sizeof(m->pattern); i++)
		if (m->pattern[i] != pp_pattern_byte(seq, i))
			return "pattern";
	return NULL;
}

/* ---- per-connection resources ---- */

static void *pp_slot(struct pp_conn *c, unsigned int slot)
{
	return c->buf + slot * PP_MSG_SIZE;
}

static int pp_post_recv(struct pp_conn *c, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pp_slot(c, slot),
		.length = PP_MSG_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int pp_post_send(struct pp_conn *c, unsigned int slot, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pp_slot(c, slot),
		.length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_WR_SEND | slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(c->id->qp, &wr, &bad);
}

static struct pp_conn *pp_conn_add(struct pp_app *app, unsigned int num)
{
	struct pp_conn *c;
	unsigned int i;

	for (i = 0; i < PP_MAX_CONNS && app->conns[i]; i++)
		;
	if (i == PP_MAX_CONNS)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->num = num;
	c->start_ns = now_ns();
	app->conns[i] = c;
	return c;
}

/* PD, completion channel, CQ, MR and QP for @c->id; receives posted. */
static int pp_conn_setup_verbs(struct pp_app *app, struct pp_conn *c)
{
	struct ibv_context *ctx = c->id->verbs;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = PP_RECV_DEPTH,
			.max_recv_wr = PP_RECV_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	unsigned int first = app->o.server ? 0 : 1, i;

	if (!app->async_ctx) {
		if (pp_set_nonblock(ctx->async_fd))
			return pp_fail(app, "fcntl");
		app->async_ctx = ctx;
	}
	c->pd = ibv_alloc_pd(ctx);
	if (!c->pd)
		return pp_fail(app, "ibv_alloc_pd");
	c->cc = ibv_create_comp_channel(ctx);
	if (!c->cc)
		return pp_fail(app, "ibv_create_comp_channel");
	if (pp_set_nonblock(c->cc->fd))
		return pp_fail(app, "fcntl");
	c->cq = ibv_create_cq(ctx, 2 * PP_RECV_DEPTH + 2, c, c->cc, 0);
	if (!c->cq)
		return pp_fail(app, "ibv_create_cq");
	if (ibv_req_notify_cq(c->cq, 0))
		return pp_fail(app, "ibv_req_notify_cq");
	c->mr = ibv_reg_mr(c->pd, c->buf, sizeof(c->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return pp_fail(app, "ibv_reg_mr");
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return pp_fail(app, "rdma_create_qp");
	c->has_qp = true;
	for (i = first; i < first + PP_RECV_DEPTH; i++) {
		errno = pp_post_recv(c, i);
		if (errno)
			return pp_fail(app, "ibv_post_recv");
	}
	return 0;
}

static void pp_conn_destroy(struct pp_conn *c)
{
	if (c->local_close && c->state == PP_ESTABLISHED)
		rdma_disconnect(c->id);	/* best effort DREQ */
	if (c->has_qp)
		rdma_destroy_qp(c->id);
	if (c->mr && ibv_dereg_mr(c->mr))
		perror("rdma_ha_pingpong: ibv_dereg_mr");
	if (c->cq && ibv_destroy_cq(c->cq))
		perror("rdma_ha_pingpong: ibv_destroy_cq");
	if (c->cc && ibv_destroy_comp_channel(c->cc))
		perror("rdma_ha_pingpong: ibv_destroy_comp_channel");
	if (c->pd && ibv_dealloc_pd(c->pd))
		perror("rdma_ha_pingpong: ibv_dealloc_pd");
	if (c->id && rdma_destroy_id(c->id))
		perror("rdma_ha_pingpong: rdma_destroy_id");
	free(c);
}

static void pp_conn_established(struct pp_app *app, struct pp_conn *c)
{
	char l[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN];

	c->state = PP_ESTABLISHED;
	app->s.connects++;
	pp_log(app, "connected id=%u local=%s remote=%s dev=%s port=%u sport=%u dport=%u",
	       c->num, pp_addr_str(rdma_get_local_addr(c->id), l, sizeof(l)),
	       pp_addr_str(rdma_get_peer_addr(c->id), r, sizeof(r)),
	       ibv_get_device_name(c->id->verbs->device), c->id->port_num,
	       be16toh(rdma_get_src_port(c->id)),
	       be16toh(rdma_get_dst_port(c->id)));
	if (!app->st.have_ok) {
		app->st.have_ok = true;
		app->st.last_ok_ns = now_ns();
	}
}

/* Set the HA mode on @id if asked; a refusal ends the run with status 3. */
static int pp_set_ha_mode(struct pp_app *app, struct rdma_cm_id *id,
			  unsigned int num)
{
	uint8_t val = app->o.ha_mode;
	char name[8];
	int rc, err;

	if (app->o.ha_mode < 0)
		return 0;
	rc = rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
			     &val, sizeof(val));
	err = rc ? errno : 0;
	snprintf(name, sizeof(name), "%u", val);
	pp_log(app, "ha_mode set=%s rc=%d errno=%d value=%u id=%u",
	       val < ARRAY_SIZE(pp_ha_names) ? pp_ha_names[val] : name,
	       rc ? -1 : 0, err, val, num);
	if (!rc)
		return 0;
	fprintf(stderr,
		"rdma_ha_pingpong: rdma_set_option(HA_MODE=%u): %s (kernel without rdma-ha support?)\n",
		val, strerror(err));
	pp_finish(app, PP_EXIT_HA_MODE);
	return -1;
}

/* ---- client ---- */

static int pp_client_verdict(struct pp_app *app)
{
	struct pp_conn *c = app->conns[0];

	if (app->s.errors)
		return PP_EXIT_VERIFY;
	if (c && !c->dead && c->state == PP_ESTABLISHED && !app->st.stalled)
		return PP_EXIT_OK;
	return PP_EXIT_LOST;
}

/* A local failure while connecting: fatal on the first attempt. */
static void pp_client_setup_failed(struct pp_app *app, struct pp_conn *c,
				   const char *op)
{
	if (op)
		pp_fail(app, op);
	pp_kill(c, "setup_failed", false);
	if (app->attempts == 1)
		pp_finish(app, PP_EXIT_SETUP);
}

/*
 * rdma_resolve_route() or rdma_connect() failed with errno EINVAL: an HA
 * mode failed the route after the address was resolved (the ID left
 * ADDR_RESOLVED / ROUTE_RESOLVED for DISCONNECT, its UNREACHABLE is
 * queued).  With --reconnect that is one failed attempt, even the first
 * (a client restarted in the middle of a failover); otherwise, and for
 * any other errno, a setup failure.
 */
static void pp_client_route_failed(struct pp_app *app, struct pp_conn *c,
				   const char *op)
{
	if (errno == EINVAL && app->o.reconnect) {
		pp_fail(app, op);
		pp_kill(c, "setup_failed", false);
		return;
	}
	pp_client_setup_failed(app, c, op);
}

static void pp_client_attempt(struct pp_app *app)
{
	struct pp_conn *c;

	app->attempt_pending = false;
	if (app->attempts++)
		pp_log(app, "reconnect attempt=%u", app->attempts - 1);
	c = pp_conn_add(app, ++app->id_counter);
	if (!c) {
		errno = ENOMEM;
		pp_fail(app, "calloc");
		pp_finish(app, PP_EXIT_SETUP);
		return;
	}
	if (rdma_create_id(app->ch, &c->id, c, RDMA_PS_TCP)) {
		pp_client_setup_failed(app, c, "rdma_create_id");
		return;
	}
	if (pp_set_ha_mode(app, c->id, c->num)) {
		pp_kill(c, "ha_mode", false);
		return;
	}
	if (rdma_resolve_addr(c->id,
			      app->have_src ? (struct sockaddr *)&app->src : NULL,
			      (struct sockaddr *)&app->dst,
			      PP_RESOLVE_TIMEOUT_MS))
		pp_client_setup_failed(app, c, "rdma_resolve_addr");
}

static void pp_client_ping(struct pp_app *app, struct pp_conn *c,
			   uint64_t now)
{
	uint64_t seq = app->next_seq++;

	pp_msg_fill(pp_slot(c, 0), seq);
	c->ping_busy = true;
	c->ping_sent = false;
	c->ping_echoed = false;
	c->ping_ok = false;
	c->ping_seq = seq;
	c->ping_post_ns = now;
	pp_stall_owe(app, seq, now);
	if (pp_post_send(c, 0, PP_MSG_SIZE))
		pp_kill(c, "post_send_failed", true);
}

/* A ping completes when its SEND completed and its echo arrived. */
static void pp_client_ping_done(struct pp_app *app, struct pp_conn *c,
				uint64_t now)
{
	if (!c->ping_busy || !c->ping_sent || !c->ping_echoed)
		return;
	c->ping_busy = false;
	app->next_ping_ns = now + app->o.interval_us * NSEC_PER_USEC;
	if (c->ping_ok)
		pp_stall_ok(app, c->ping_seq, now);
}

static void pp_client_echo(struct pp_app *app, struct pp_conn *c,
			   const struct pp_msg *m, uint32_t len, uint64_t now)
{
	const char *bad = "unexpected";

	if (c->ping_busy && !c->ping_echoed)
		bad = pp_msg_check(m, len, c->ping_seq);
	c->ping_echoed = true;
	if (bad) {
		app->s.errors++;
		pp_log(app, "verify_error seq=%llu got=%llu len=%u reason=%s id=%u",
		       (unsigned long long)c->ping_seq,
		       (unsigned long long)be64toh(m->seq), len, bad, c->num);
		return;
	}
	pp_rtt_add(&app->s, now - c->ping_post_ns);
	app->s.pings++;
	c->ping_ok = true;
}

static void pp_client_wc(struct pp_app *app, struct pp_conn *c,
			 const struct ibv_wc *wc, uint64_t now)
{
	unsigned int slot = wc->wr_id & 0xff;

	if (wc->wr_id & PP_WR_SEND) {
		c->ping_sent = true;
	} else {
		pp_client_echo(app, c, pp_slot(c, slot), wc->byte_len, now);
		if (pp_post_recv(c, slot))
			pp_kill(c, "post_recv_failed", true);
	}
	pp_client_ping_done(app, c, now);
}

/*
 * CM events that end a connection or a connection attempt.  ADDR_CHANGE,
 * TIMEWAIT_EXIT and the rest are only logged: the connection goes on until
 * the CM or a completion says it is gone.
 */
/*
 * The kernel's RDMA_CM_EVENT_ALT_PATH_LOADED ("RDMA/cma: Tell a consumer in
 * migrate mode to arm its own QP again"), which librdmacm does not name yet.
 */
#define PP_EVENT_ALT_PATH_LOADED	16

static const char *pp_event_str(enum rdma_cm_event_type type)
{
	if ((int)type == PP_EVENT_ALT_PATH_LOADED)
		return "RDMA_CM_EVENT_ALT_PATH_LOADED";
	return rdma_event_str(type);
}

/*
 * A new alternate path was loaded (a LAP, after a migration the path the
 * connection left): arm the QP with it.  rdma_init_qp_attr() for RTS gives
 * the path and IBV_MIG_REARM; the CM does not modify a QP of ours.
 */
static void pp_arm_alt_path(struct pp_app *app, struct pp_conn *c)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTS };
	int mask = 0, rc;

	rc = rdma_init_qp_attr(c->id, &attr, &mask) ? errno :
	     ibv_modify_qp(c->id->qp, &attr, mask);
	pp_log(app, "alt_path_armed rc=%d mask=0x%x mig_state=%d alt_port=%u id=%u",
	       rc, mask, attr.path_mig_state, attr.alt_port_num, c->num);
}

static bool pp_event_ends_conn(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return true;
	default:
		return false;
	}
}

/* pp_pack_path: a path record as the SA sends it (IBA 15.2.5.16) */
static void pp_pack_path(const struct ibv_sa_path_rec *p,
			 struct ibv_path_record *w)
{
	memset(w, 0, sizeof(*w));
	w->dgid = p->dgid;
	w->sgid = p->sgid;
	w->dlid = p->dlid;
	w->slid = p->slid;
	w->flowlabel_hoplimit =
		htobe32((p->raw_traffic ? 1U << 31 : 0) |
			(be32toh(p->flow_label) & 0xfffff) << 8 |
			p->hop_limit);
	w->tclass = p->traffic_class;
	w->reversible_numpath = (p->reversible ? 0x80 : 0) |
				(p->numb_path & 0x7f);
	w->pkey = p->pkey;
	w->qosclass_sl = htobe16(p->sl & 0xf);
	w->mtu = (p->mtu_selector & 3) << 6 | (p->mtu & 0x3f);
	w->rate = (p->rate_selector & 3) << 6 | (p->rate & 0x3f);
	w->packetlifetime = (p->packet_life_time_selector & 3) << 6 |
			    (p->packet_life_time & 0x3f);
	w->preference = p->preference;
}

/*
 * Give the resolved route of @c its alternate path (--alt-path): the
 * primary path with the alternate ends, as one IB_PATH_ALTERNATE record
 * of RDMA_OPTION_IB_PATH.
 */
static int pp_set_alt_path(struct pp_app *app, struct pp_conn *c)
{
	struct ibv_path_data pd = {
		.flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_ALTERNATE |
			 IBV_PATH_FLAG_BIDIRECTIONAL,
	};
	struct ibv_sa_path_rec p;
	int rc;

	if (!c->id->route.num_paths) {
		pp_log(app, "alt_path rc=-1 errno=%d id=%u", ENOENT, c->num);
		return -1;
	}
	p = c->id->route.path_rec[0];
	p.sgid = app->o.alt_sgid;
	p.dgid = app->o.alt_dgid;
	p.slid = htobe16(app->o.alt_slid);
	p.dlid = htobe16(app->o.alt_dlid);
	if (app->o.alt_hop_limit >= 0)
		p.hop_limit = app->o.alt_hop_limit;
	pp_pack_path(&p, &pd.path);
	rc = rdma_set_option(c->id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
			     &pd, sizeof(pd));
	pp_log(app, "alt_path rc=%d errno=%d slid=%u dlid=%u hop_limit=%u id=%u",
	       rc, rc ? errno : 0, app->o.alt_slid, app->o.alt_dlid,
	       p.hop_limit, c->num);
	return rc;
}

static void pp_client_cm(struct pp_app *app, enum rdma_cm_event_type type,
			 struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.retry_count = app->o.retry_count, .rnr_retry_count = 7,
	};
	struct pp_conn *c = id->context;

	if (!c || c->dead)
		return;
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, PP_RESOLVE_TIMEOUT_MS))
			pp_client_route_failed(app, c, "rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (pp_conn_setup_verbs(app, c)) {
			pp_client_setup_failed(app, c, NULL);
			break;
		}
		if (app->o.have_alt && pp_set_alt_path(app, c)) {
			pp_client_route_failed(app, c, "alt_path");
			break;
		}
		c->state = PP_CONNECTING;
		if (app->o.connect_delay_ms) {
			/* a consumer busy elsewhere: CM events wait meanwhile */
			pp_log(app, "connect_delay ms=%u id=%u",
			       app->o.connect_delay_ms, c->num);
			usleep(app->o.connect_delay_ms * 1000);
			pp_log(app, "connect_after_delay id=%u", c->num);
		}
		if (rdma_connect(id, &param))
			pp_client_route_failed(app, c, "rdma_connect");
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		pp_conn_established(app, c);
		app->next_ping_ns = now_ns();
		break;
	default:
		if (pp_event_ends_conn(type))
			pp_kill(c, pp_event_str(type), false);
		break;
	}
}

/* After a connection or an attempt ended: reconnect or give up. */
static void pp_client_after_close(struct pp_app *app, bool was_up,
				  uint64_t now)
{
	if (was_up)
		pp_stall_owe(app, app->next_seq, now);
	if (!app->o.reconnect || (app->end_ns && now >= app->end_ns)) {
		pp_finish(app, pp_client_verdict(app));
		return;
	}
	app->attempt_pending = true;
	app->next_attempt_ns = now + PP_RECONNECT_BACKOFF_MS * NSEC_PER_MSEC;
}

static void pp_client_timers(struct pp_app *app, uint64_t now)
{
	struct pp_conn *c = app->conns[0];

	if (c && !c->dead && c->state != PP_ESTABLISHED &&
	    now - c->start_ns >= PP_CONNECT_TIMEOUT_MS * NSEC_PER_MSEC)
		pp_kill(c, "timeout", false);
	if (!c && app->attempt_pending && now >= app->next_attempt_ns)
		pp_client_attempt(app);
	if (c && !c->dead && c->state == PP_ESTABLISHED && !c->ping_busy &&
	    now >= app->next_ping_ns)
		pp_client_ping(app, c, now);
	pp_stall_check(app, now);
	/* the consumer's own detection: a ping whose echo never comes */
	if (c && !c->dead && c->state == PP_ESTABLISHED && c->ping_busy &&
	    app->o.reply_timeout_ms &&
	    now - c->ping_post_ns >= app->o.reply_timeout_ms * NSEC_PER_MSEC) {
		pp_log(app, "reply_timeout id=%u seq=%llu ms=%u", c->num,
		       (unsigned long long)c->ping_seq, app->o.reply_timeout_ms);
		pp_kill(c, "reply_timeout", true);
	}
}

/* End the connections whose WC error got no CM event in time. */
static void pp_wc_grace_timers(struct pp_app *app, uint64_t now)
{
	struct pp_conn *c;
	unsigned int i;

	for (i = 0; i < PP_MAX_CONNS; i++) {
		c = app->conns[i];
		if (!c || c->dead || !c->wc_error_ns ||
		    now - c->wc_error_ns < app->o.wc_grace_ms * NSEC_PER_MSEC)
			continue;
		pp_log(app, "wc_grace_expired id=%u ms=%u", c->num,
		       app->o.wc_grace_ms);
		pp_kill(c, "wc_error", true);
	}
}

static int pp_resolve(struct pp_app *app, const char *host, const char *port,
		      int flags, struct sockaddr_storage *out)
{
	struct addrinfo hints = {
		.ai_flags = flags | AI_NUMERICHOST,	/* addresses, no DNS */
		.ai_family = host ? AF_UNSPEC : AF_INET,
		.ai_socktype = SOCK_STREAM,
	}, *res;
	int rc;

	rc = getaddrinfo(host, port, &hints, &res);
	if (rc) {
		pp_log(app, "error op=getaddrinfo errno=0");
		fprintf(stderr, "rdma_ha_pingpong: %s: %s\n",
			host ? host : "*", gai_strerror(rc));
		return -1;
	}
	memcpy(out, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/* Name lookups, before touching any device; returns -1 on success. */
static int pp_resolve_args(struct pp_app *app)
{
	const struct pp_opts *o = &app->o;

	if (o->server)
		return pp_resolve(app, o->bind_addr, o->port,
				  AI_PASSIVE | AI_NUMERICSERV, &app->src) ?
		       PP_EXIT_SETUP : -1;
	if (pp_resolve(app, o->server_addr, o->port, AI_NUMERICSERV, &app->dst))
		return PP_EXIT_SETUP;
	if (o->bind_addr) {
		if (pp_resolve(app, o->bind_addr, NULL, 0, &app->src))
			return PP_EXIT_SETUP;
		app->have_src = true;
	}
	return -1;
}

static int pp_client_setup(struct pp_app *app)
{
	app->next_seq = 1;
	app->attempt_pending = true;
	app->next_attempt_ns = now_ns();
	return -1;
}

/* ---- server ---- */

static int pp_server_verdict(struct pp_app *app)
{
	return app->s.errors ? PP_EXIT_VERIFY : PP_EXIT_OK;
}

static void pp_server_accept(struct pp_app *app, struct rdma_cm_id *id,
			     unsigned int num)
{
	struct rdma_conn_param param = { .rnr_retry_count = 7 };
	struct pp_conn *c = pp_conn_add(app, num);

	if (!c) {
		pp_log(app, "connect_failed id=%u reason=busy", num);
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	c->id = id;
	id->context = c;
	c->state = PP_CONNECTING;
	if (pp_conn_setup_verbs(app, c)) {
		rdma_reject(id, NULL, 0);
		pp_kill(c, "setup_failed", false);
		return;
	}
	if (rdma_accept(id, &param)) {
		pp_fail(app, "rdma_accept");
		pp_kill(c, "setup_failed", false);
	}
}

/*
 * A newly established connection retires every older one (the reconnecting
 * client's previous connection may never see its DREQ); newer pending ones
 * are left alone and will retire this one in turn.
 */
static void pp_server_retire_older(struct pp_app *app, struct pp_conn *keep)
{
	unsigned int i;

	for (i = 0; i < PP_MAX_CONNS; i++)
		if (app->conns[i] && app->conns[i]->num < keep->num)
			pp_kill(app->conns[i], "superseded", true);
}

static void pp_server_cm(struct pp_app *app, enum rdma_cm_event_type type,
			 struct rdma_cm_id *id, unsigned int num)
{
	struct pp_conn *c;

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		pp_server_accept(app, id, num);
		return;
	}
	if (id == app->listen_id) {
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			fprintf(stderr, "rdma_ha_pingpong: listener lost its device\n");
			pp_finish(app, PP_EXIT_LOST);
		}
		return;
	}
	c = id->context;
	if (!c || c->dead)
		return;
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		pp_conn_established(app, c);
		pp_server_retire_older(app, c);
		break;
	default:
		if (pp_event_ends_conn(type))
			pp_kill(c, pp_event_str(type), false);
		break;
	}
}

static void pp_server_wc(struct pp_app *app, struct pp_conn *c,
			 const struct ibv_wc *wc, uint64_t now)
{
	unsigned int slot = wc->wr_id & 0xff;
	const struct pp_msg *m = pp_slot(c, slot);

	if (wc->wr_id & PP_WR_SEND) {
		if (pp_post_recv(c, slot))
			pp_kill(c, "post_recv_failed", true);
		return;
	}
	if (wc->byte_len != PP_MSG_SIZE) {
		app->s.errors++;
		pp_log(app, "verify_error seq=%llu got=%llu len=%u reason=length id=%u",
		       (unsigned long long)be64toh(m->seq),
		       (unsigned long long)be64toh(m->seq), wc->byte_len,
		       c->num);
	}
	app->s.pings++;
	if (app->last_rx_ns && ns_to_ms(now - app->last_rx_ns) > app->s.max_gap_ms)
		app->s.max_gap_ms = ns_to_ms(now - app->last_rx_ns);
	app->last_rx_ns = now;
	/* echo from the receive slot; it is reposted when the send completes */
	if (pp_post_send(c, slot, wc->byte_len))
		pp_kill(c, "post_send_failed", true);
}

static int pp_server_setup(struct pp_app *app)
{
	struct sockaddr *sa = (struct sockaddr *)&app->src;
	char a[INET6_ADDRSTRLEN];

	if (rdma_create_id(app->ch, &app->listen_id, NULL, RDMA_PS_TCP)) {
		pp_fail(app, "rdma_create_id");
		return PP_EXIT_SETUP;
	}
	if (pp_set_ha_mode(app, app->listen_id, 0))
		return PP_EXIT_HA_MODE;
	if (rdma_bind_addr(app->listen_id, sa)) {
		pp_fail(app, "rdma_bind_addr");
		return PP_EXIT_SETUP;
	}
	if (rdma_listen(app->listen_id, PP_MAX_CONNS)) {
		pp_fail(app, "rdma_listen");
		return PP_EXIT_SETUP;
	}
	pp_log(app, "listening addr=%s port=%s",
	       pp_addr_str(sa, a, sizeof(a)), app->o.port);
	return -1;
}

/* ---- event loop ---- */

static unsigned int pp_id_num(struct pp_app *app, struct rdma_cm_id *id)
{
	struct pp_conn *c = id->context;

	return id == app->listen_id || !c ? 0 : c->num;
}

static void pp_drain_cm(struct pp_app *app)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id;
	unsigned int num;
	int status;

	while (app->exit_code < 0) {
		if (rdma_get_cm_event(app->ch, &ev)) {
			if (errno != EAGAIN && errno != EINTR) {
				pp_fail(app, "rdma_get_cm_event");
				pp_finish(app, PP_EXIT_SETUP);
			}
			return;
		}
		type = ev->event;
		status = ev->status;
		id = ev->id;
		num = type == RDMA_CM_EVENT_CONNECT_REQUEST ?
		      ++app->id_counter : pp_id_num(app, id);
		app->s.events++;
		pp_log(app, "cm_event name=%s status=%d id=%u",
		       pp_event_str(type), status, num);
		if (type == RDMA_CM_EVENT_ADDR_CHANGE && status > 0 &&
		    status < (int)ARRAY_SIZE(pp_ha_path_names))
			pp_log(app, "ha_path status=%s value=%d id=%u",
			       pp_ha_path_names[status], status, num);
		/* ack first: destroying an id waits for its events' acks */
		rdma_ack_cm_event(ev);
		if ((int)type == PP_EVENT_ALT_PATH_LOADED) {
			struct pp_conn *c = id->context;

			if (c && !c->dead)
				pp_arm_alt_path(app, c);
		} else if (app->o.server)
			pp_server_cm(app, type, id, num);
		else
			pp_client_cm(app, type, id);
	}
}

static void pp_handle_wc(struct pp_app *app, struct pp_conn *c,
			 const struct ibv_wc *wc, uint64_t now)
{
	char status[64], *sp;

	if (wc->status != IBV_WC_SUCCESS) {
		/* one token: "Work Request Flushed Error" -> Work_Request_... */
		snprintf(status, sizeof(status), "%s",
			 ibv_wc_status_str(wc->status));
		for (sp = status; (sp = strchr(sp, ' ')); )
			*sp = '_';
		app->s.wc_errors++;
		pp_log(app, "wc_error status=%s opcode=%d id=%u code=%d wr_id=%llu",
		       status, wc->opcode, c->num, wc->status,
		       (unsigned long long)wc->wr_id);
		/*
		 * An align or fail-fast consumer may leave the teardown to
		 * the CM, whose event is due soon: wait for it a while.
		 */
		if (app->o.wc_grace_ms) {
			if (!c->wc_error_ns)
				c->wc_error_ns = now;
			return;
		}
		pp_kill(c, "wc_error", true);
		return;
	}
	if (c->dead)
		return;
	if (app->o.server)
		pp_server_wc(app, c, wc, now);
	else
		pp_client_wc(app, c, wc, now);
}

static void pp_handle_cq(struct pp_app *app, struct pp_conn *c)
{
	struct ibv_wc wc[PP_WC_BATCH];
	struct ibv_cq *cq;
	void *ctx;
	int n, i;

	if (ibv_get_cq_event(c->cc, &cq, &ctx)) {
		if (errno != EAGAIN && errno != EINTR)
			pp_kill(c, "cq_event_failed", true);
		return;
	}
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0)) {
		pp_kill(c, "req_notify_failed", true);
		return;
	}
	while ((n = ibv_poll_cq(cq, PP_WC_BATCH, wc)) > 0)
		for (i = 0; i < n; i++)
			pp_handle_wc(app, c, &wc[i], now_ns());
	if (n < 0)
		pp_kill(c, "poll_cq_failed", true);
}

/* Log the end of each dead connection, free it, then decide what is next. */
static void pp_reap(struct pp_app *app)
{
	uint64_t now = now_ns();
	struct pp_conn *c;
	unsigned int i;
	bool was_up;

	for (i = 0; i < PP_MAX_CONNS; i++) {
		c = app->conns[i];
		if (!c || !c->dead)
			continue;
		app->conns[i] = NULL;
		was_up = c->state == PP_ESTABLISHED;
		if (was_up) {
			app->s.disconnects++;
			pp_log(app, "disconnected id=%u reason=%s",
			       c->num, c->dead);
		} else {
			pp_log(app, "connect_failed id=%u reason=%s",
			       c->num, c->dead);
		}
		pp_conn_destroy(c);
		if (app->exit_code >= 0)
			continue;
		if (!app->o.server) {
			pp_client_after_close(app, was_up, now);
		} else if (was_up && ++app->handled >= app->o.count &&
			   app->o.count) {
			pp_finish(app, pp_server_verdict(app));
		}
	}
}

static void pp_clamp(uint64_t *wait, uint64_t now, uint64_t deadline)
{
	if (deadline <= now)
		*wait = 0;
	else if (deadline - now < *wait)
		*wait = deadline - now;
}

static void pp_timeout(struct pp_app *app, uint64_t now, struct timespec *ts)
{
	struct pp_conn *c = app->conns[0];
	uint64_t wait = PP_POLL_MAX_NS;
	unsigned int i;

	if (app->end_ns)
		pp_clamp(&wait, now, app->end_ns);
	if (!app->o.server && c && c->state == PP_ESTABLISHED && !c->ping_busy)
		pp_clamp(&wait, now, app->next_ping_ns);
	if (!app->o.server && !c && app->attempt_pending)
		pp_clamp(&wait, now, app->next_attempt_ns);
	for (i = 0; i < PP_MAX_CONNS; i++)
		if (app->conns[i] && app->conns[i]->wc_error_ns)
			pp_clamp(&wait, now, app->conns[i]->wc_error_ns +
				 app->o.wc_grace_ms * NSEC_PER_MSEC);
	ts->tv_sec = wait / NSEC_PER_SEC;
	ts->tv_nsec = wait % NSEC_PER_SEC;
}

/*
 * SIGUSR1: the next HA mode (in the order of pp_ha_names, after the one in
 * use), set with rdma_set_option() on every live ID of the program, the
 * listener included, and on the IDs it creates from then on.  A refusal
 * is logged and ends nothing: the kernel refuses (EBUSY) an ID that is
 * disconnecting or going away.
 */
static void pp_next_ha_mode(struct pp_app *app)
{
	unsigned int i, val;
	int rc, err;

	app->o.ha_mode = (app->o.ha_mode + 1) % (int)ARRAY_SIZE(pp_ha_names);
	val = app->o.ha_mode;
	for (i = 0; i <= PP_MAX_CONNS; i++) {
		struct rdma_cm_id *id;
		unsigned int num = 0;
		uint8_t v = val;

		if (i == PP_MAX_CONNS) {
			id = app->listen_id;
		} else {
			if (!app->conns[i] || app->conns[i]->dead)
				continue;
			id = app->conns[i]->id;
			num = app->conns[i]->num;
		}
		if (!id)
			continue;
		rc = rdma_set_option(id, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_HA_MODE, &v, sizeof(v));
		err = rc ? errno : 0;
		pp_log(app, "ha_mode change=%s rc=%d errno=%d id=%u",
		       pp_ha_names[val], rc ? -1 : 0, err, num);
	}
}

/* A signal: SIGUSR1 changes the HA mode, the others end the run. */
static bool pp_signal(struct pp_app *app)
{
	struct signalfd_siginfo si;

	if (read(app->sig_fd, &si, sizeof(si)) == sizeof(si) &&
	    si.ssi_signo == SIGUSR1) {
		pp_next_ha_mode(app);
		return false;
	}
	pp_finish(app, app->o.server ? pp_server_verdict(app) :
		  pp_client_verdict(app));
	return true;
}

/* Log the device's asynchronous events (path migration, QP errors). */
static void pp_drain_async(struct pp_app *app)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(app->async_ctx, &ev)) {
		pp_log(app, "async event=%s qpn=%u",
		       ibv_event_type_str(ev.event_type),
		       (ev.event_type >= IBV_EVENT_QP_FATAL &&
			ev.event_type <= IBV_EVENT_PATH_MIG_ERR) ||
		       ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED ?
		       ev.element.qp->qp_num : 0);
		ibv_ack_async_event(&ev);
	}
}

static void pp_run(struct pp_app *app)
{
	struct pollfd fds[3 + PP_MAX_CONNS];
	struct pp_conn *owner[3 + PP_MAX_CONNS];
	struct timespec ts;
	unsigned int i, n;
	uint64_t now;
	int ret;

	while (app->exit_code < 0) {
		fds[0] = (struct pollfd){ .fd = app->ch->fd, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = app->sig_fd, .events = POLLIN };
		n = 2;
		if (app->async_ctx)
			fds[n++] = (struct pollfd){
				.fd = app->async_ctx->async_fd, .events = POLLIN,
			};
		for (i = 0; i < PP_MAX_CONNS; i++) {
			if (!app->conns[i] || !app->conns[i]->cc)
				continue;
			owner[n] = app->conns[i];
			fds[n++] = (struct pollfd){
				.fd = app->conns[i]->cc->fd, .events = POLLIN,
			};
		}
		pp_timeout(app, now_ns(), &ts);
		ret = ppoll(fds, n, &ts, NULL);
		if (ret < 0 && errno != EINTR) {
			pp_fail(app, "ppoll");
			pp_finish(app, PP_EXIT_SETUP);
			break;
		}
		if (ret > 0 && fds[1].revents && pp_signal(app))
			break;
		if (ret > 0 && fds[0].revents)
			pp_drain_cm(app);
		i = 2;
		if (app->async_ctx && ret > 0 && fds[i++].revents)
			pp_drain_async(app);
		for (; ret > 0 && i < n; i++)
			if (fds[i].revents)
				pp_handle_cq(app, owner[i]);
		now = now_ns();
		if (app->end_ns && now >= app->end_ns)
			pp_finish(app, app->o.server ? pp_server_verdict(app) :
				  pp_client_verdict(app));
		else if (!app->o.server)
			pp_client_timers(app, now);
		pp_wc_grace_timers(app, now);
		pp_reap(app);
	}
}

static void pp_cleanup(struct pp_app *app)
{
	unsigned int i;

	pp_finish(app, PP_EXIT_SETUP);	/* no-op unless still unset */
	for (i = 0; i < PP_MAX_CONNS; i++)
		if (app->conns[i])
			pp_kill(app->conns[i], "shutdown", true);
	pp_reap(app);
	if (app->listen_id && rdma_destroy_id(app->listen_id))
		perror("rdma_ha_pingpong: rdma_destroy_id");
	if (app->ch)
		rdma_destroy_event_channel(app->ch);
	if (app->sig_fd >= 0)
		close(app->sig_fd);
}

static void pp_summary(struct pp_app *app)
{
	pp_log(app,
	       "summary pings=%lu errors=%lu connects=%lu disconnects=%lu stalls=%lu max_gap_ms=%.3f rtt_p50_us=%u rtt_p99_us=%u events=%lu wc_errors=%lu exit=%d",
	       app->s.pings, app->s.errors, app->s.connects,
	       app->s.disconnects, app->s.stalls, app->s.max_gap_ms,
	       pp_rtt_pct(&app->s, 50), pp_rtt_pct(&app->s, 99),
	       app->s.events, app->s.wc_errors, app->exit_code);
}

/* ---- command line ---- */

static const char pp_usage_text[] =
	"Usage: rdma_ha_pingpong -s [-b BIND_ADDR] [-p PORT] [options]\n"
	"       rdma_ha_pingpong -c SERVER_ADDR [-b BIND_ADDR] [-p PORT] [options]\n"
	"\n"
	"Keep an RC connection busy (64-byte SEND ping, echoed by the server) and log\n"
	"every RDMA CM event and data stall with CLOCK_MONOTONIC timestamps.\n"
	"\n"
	"  -s, --server           run the server (echo side)\n"
	"  -c, --client ADDR      run the client, connecting to ADDR\n"
	"  -b, --bind ADDR        server: listen address; client: source address\n"
	"  -p, --port PORT        port (default 7471)\n"
	"  -d, --duration SEC     client: run time (default 10); server: exit after\n"
	"                         SEC seconds if > 0 (default 0 = no limit)\n"
	"  -i, --interval-us US   pause between pings (default 1000)\n"
	"      --stall-ms MS      outstanding ping this old is a stall (default 200)\n"
	"      --reconnect        client: reconnect after the connection is lost\n"
	"      --ha-mode MODE     notify|ignore|align|fail-fast|migrate|report or a\n"
	"                         number;\n"
	"                         set with rdma_set_option() on each id;\n"
	"                         default: set nothing (the kernel's default);\n"
	"                         SIGUSR1 sets the next mode on every live id\n"
	"      --count N          server: exit after N connections were handled\n"
	"      --retry-count N    client: RC retry count, 0-7 (default 7; rxe\n"
	"                         retries forever on 7, like \"infinite\")\n"
	"      --reply-timeout-ms MS  client: a ping not echoed within MS ends\n"
	"                         the connection (default 0: wait for ever)\n"
	"      --wc-error-grace-ms MS  after a work completion error,\n"
	"                         wait up to MS for the CM's own event (an align\n"
	"                         or fail-fast consumer can leave the teardown to\n"
	"                         the CM) before ending the connection (default 0)\n"
	"      --connect-delay-ms MS  client: once the route is resolved, sleep\n"
	"                         MS (handling no CM event) before rdma_connect()\n"
	"      --alt-path SGID,SLID,DGID,DLID[,HOP_LIMIT]  client: give each\n"
	"                         connection this alternate path\n"
	"                         (RDMA_OPTION_IB_PATH, one IB_PATH_ALTERNATE\n"
	"                         record: the primary path with these ends, and\n"
	"                         a GRH with HOP_LIMIT > 0) once its route is\n"
	"                         resolved\n"
	"  -q, --quiet            no per-ping output (there is none anyway)\n"
	"  -h, --help             this text\n"
	"\n"
	"Output: \"<mono> <role> <record> key=value ...\" on stdout, one per line.\n"
	"An ADDR_CHANGE whose status is a path state (HA modes other than notify)\n"
	"is followed by \"ha_path status=aligned|misaligned|dead value=N id=N\".\n"
	"Exit: 0 ok, 1 usage/setup error, 2 connection lost and not recovered,\n"
	"      3 ha-mode option rejected, 4 data verification error.\n";

static void pp_usage(FILE *f)
{
	fputs(pp_usage_text, f);
}

static int pp_parse_uint(const char *s, unsigned long max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max || *s == '-')
		return -1;
	*out = v;
	return 0;
}

static int pp_parse_ha_mode(const char *s)
{
	unsigned int v, i;

	/* "default": set nothing, as a program that knows no HA mode */
	if (!strcmp(s, "default"))
		return -1;
	for (i = 0; i < ARRAY_SIZE(pp_ha_names); i++)
		if (!strcmp(s, pp_ha_names[i]))
			return i;
	return pp_parse_uint(s, UINT8_MAX, &v) ? -1 : (int)v;
}

enum { OPT_STALL = 256, OPT_RECONNECT, OPT_HA_MODE, OPT_COUNT, OPT_RETRY,
       OPT_REPLY_TIMEOUT, OPT_WC_GRACE, OPT_CONNECT_DELAY, OPT_ALT_PATH };

/*
 * --alt-path SGID,SLID,DGID,DLID[,HOP_LIMIT]: GIDs as sysfs prints them; a
 * hop limit above 0 gives the path a GRH
 */
static int pp_parse_alt_path(char *arg, struct pp_opts *o)
{
	char *f[5], *save = NULL;
	unsigned int i, slid, dlid, hop;

	for (i = 0; i < 5; i++) {
		f[i] = strtok_r(i ? NULL : arg, ",", &save);
		if (!f[i] && i < 4)
			return 1;
	}
	o->alt_hop_limit = -1;
	if (f[4]) {
		if (pp_parse_uint(f[4], 255, &hop))
			return 1;
		o->alt_hop_limit = hop;
	}
	if (strtok_r(NULL, ",", &save) ||
	    inet_pton(AF_INET6, f[0], o->alt_sgid.raw) != 1 ||
	    inet_pton(AF_INET6, f[2], o->alt_dgid.raw) != 1 ||
	    pp_parse_uint(f[1], 0xbfff, &slid) || !slid ||
	    pp_parse_uint(f[3], 0xbfff, &dlid) || !dlid)
		return 1;
	o->alt_slid = slid;
	o->alt_dlid = dlid;
	o->have_alt = true;
	return 0;
}

/* Returns -1 to run, else the exit status. */
static int pp_parse_args(struct pp_opts *o, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "server",	 no_argument,	    NULL, 's' },
		{ "client",	 required_argument, NULL, 'c' },
		{ "bind",	 required_argument, NULL, 'b' },
		{ "port",	 required_argument, NULL, 'p' },
		{ "duration",	 required_argument, NULL, 'd' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "stall-ms",	 required_argument, NULL, OPT_STALL },
		{ "reconnect",	 no_argument,	    NULL, OPT_RECONNECT },
		{ "ha-mode",	 required_argument, NULL, OPT_HA_MODE },
		{ "count",	 required_argument, NULL, OPT_COUNT },
		{ "retry-count", required_argument, NULL, OPT_RETRY },
		{ "reply-timeout-ms", required_argument, NULL, OPT_REPLY_TIMEOUT },
		{ "wc-error-grace-ms", required_argument, NULL, OPT_WC_GRACE },
		{ "connect-delay-ms", required_argument, NULL, OPT_CONNECT_DELAY },
		{ "alt-path",	 required_argument, NULL, OPT_ALT_PATH },
		{ "quiet",	 no_argument,	    NULL, 'q' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ }
	};
	bool have_duration = false, have_count = false;
	unsigned int port;
	int opt, bad = 0;

	o->port = "7471";
	o->interval_us = 1000;
	o->stall_ms = 200;
	o->ha_mode = -1;
	o->retry_count = 7;
	while ((opt = getopt_long(argc, argv, "sc:b:p:d:i:qh", lopts,
				  NULL)) != -1) {
		switch (opt) {
		case 's':
			o->server = true;
			break;
		case 'c':
			o->server_addr = optarg;
			break;
		case 'b':
			o->bind_addr = optarg;
			break;
		case 'p':
			o->port = optarg;
			bad |= pp_parse_uint(optarg, 65535, &port) || !port;
			break;
		case 'd':
			bad |= pp_parse_uint(optarg, INT_MAX, &o->duration_s);
			have_duration = true;
			break;
		case 'i':
			bad |= pp_parse_uint(optarg, 60000000, &o->interval_us);
			break;
		case OPT_STALL:
			bad |= pp_parse_uint(optarg, 3600000, &o->stall_ms) ||
			       !o->stall_ms;
			break;
		case OPT_RECONNECT:
			o->reconnect = true;
			break;
		case OPT_HA_MODE:
			o->ha_mode = pp_parse_ha_mode(optarg);
			bad |= o->ha_mode < 0 && strcmp(optarg, "default");
			break;
		case OPT_COUNT:
			bad |= pp_parse_uint(optarg, INT_MAX, &o->count);
			have_count = true;
			break;
		case OPT_RETRY:
			bad |= pp_parse_uint(optarg, 7, &o->retry_count);
			break;
		case OPT_REPLY_TIMEOUT:
			bad |= pp_parse_uint(optarg, 3600000, &o->reply_timeout_ms);
			break;
		case OPT_WC_GRACE:
			bad |= pp_parse_uint(optarg, 3600000, &o->wc_grace_ms);
			break;
		case OPT_CONNECT_DELAY:
			bad |= pp_parse_uint(optarg, 60000, &o->connect_delay_ms);
			break;
		case OPT_ALT_PATH:
			bad |= pp_parse_alt_path(optarg, o);
			break;
		case 'q':
			break;
		case 'h':
			pp_usage(stdout);
			return PP_EXIT_OK;
		default:
			bad = 1;
			break;
		}
	}
	if (bad || optind != argc || o->server == !!o->server_addr ||
	    (o->server && (o->reconnect || o->have_alt)) ||
	    (!o->server && have_count)) {
		fprintf(stderr, "rdma_ha_pingpong: invalid arguments\n");
		pp_usage(stderr);
		return PP_EXIT_SETUP;
	}
	if (!have_duration && !o->server)
		o->duration_s = 10;
	return -1;
}

/* Returns -1 to run, else the exit status. */
static int pp_setup(struct pp_app *app)
{
	int rc = pp_resolve_args(app);

	if (rc >= 0)
		return rc;
	app->ch = rdma_create_event_channel();
	if (!app->ch) {
		pp_fail(app, "rdma_create_event_channel");
		return PP_EXIT_SETUP;
	}
	if (pp_set_nonblock(app->ch->fd)) {
		pp_fail(app, "fcntl");
		return PP_EXIT_SETUP;
	}
	return app->o.server ? pp_server_setup(app) : pp_client_setup(app);
}

int main(int argc, char **argv)
{
	static struct pp_app app;	/* large (RTT ring): not on the stack */
	sigset_t sigs;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	app.exit_code = -1;
	app.sig_fd = -1;
	rc = pp_parse_args(&app.o, argc, argv);
	if (rc >= 0)
		return rc;
	app.role = app.o.server ? "server" : "client";
	/* SIGINT/SIGTERM/SIGUSR1 arrive through a signalfd polled with the rest */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL)) {
		perror("rdma_ha_pingpong: sigprocmask");
		return PP_EXIT_SETUP;
	}
	app.sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (app.sig_fd < 0) {
		perror("rdma_ha_pingpong: signalfd");
		return PP_EXIT_SETUP;
	}
	if (app.o.duration_s)
		app.end_ns = now_ns() + app.o.duration_s * NSEC_PER_SEC;

	pp_finish(&app, pp_setup(&app));
	if (app.exit_code < 0)
		pp_run(&app);
	pp_cleanup(&app);
	pp_summary(&app);
	return app.exit_code;
}
