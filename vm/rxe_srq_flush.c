// SPDX-License-Identifier: GPL-2.0-only
/*
 * rxe_srq_flush - the receive an SRQ QP works on is flushed when the QP
 * goes to the error state in the middle of a message
 *
 *   rxe_srq_flush --recv-dev DEV --send-dev DEV [--timeout S]
 *
 * Connects an RC QP on an SRQ (port 1 of --recv-dev) to an RC QP on port 1
 * of --send-dev, with a 256-byte path MTU, LID-addressed (soft InfiniBand
 * ports; the caller slows the sending port's link down so that the packets
 * of a message arrive seconds apart).  Two receives are posted to the SRQ
 * and its limit is armed at 2, then a 3-packet SEND is posted:
 *   1. the first packet takes a receive from the SRQ (SRQ limit event);
 *   2. the receiving QP is moved to the error state before the rest of the
 *      message arrives;
 *   3. IB_EVENT_QP_LAST_WQE_REACHED is raised;
 *   4. by then the receive the QP was working on has completed with
 *      IB_WC_WR_FLUSH_ERR (stock rxe never completes it: its consumer
 *      loses that receive buffer, and is told the last WQE was reached);
 *   5. the other receive stays on the SRQ (no completion).
 *
 * TAP output; exit 0 pass, 1 fail, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define MTU		256
#define MSG_LEN		(3 * MTU)
#define RECV_LEN	(4 * MTU)

static int tests, failures;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		failures++;
}

static void die(const char *what)
{
	fprintf(stderr, "rxe_srq_flush: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	uint16_t lid;
	char buf[2 * RECV_LEN];
};

static void side_open(struct side *s, struct ibv_device **list, int n,
		      const char *name, bool with_srq)
{
	struct ibv_port_attr port;
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			s->ctx = ibv_open_device(list[i]);
	if (!s->ctx)
		die(name);
	if (ibv_query_port(s->ctx, 1, &port))
		die("ibv_query_port");
	s->lid = port.lid;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 16, NULL, NULL, 0) : NULL;
	s->mr = s->cq ? ibv_reg_mr(s->pd, s->buf, sizeof(s->buf),
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!s->mr)
		die("pd/cq/mr");
	if (with_srq) {
		s->srq = ibv_create_srq(s->pd, &(struct ibv_srq_init_attr){
			.attr = { .max_wr = 8, .max_sge = 1 } });
		if (!s->srq)
			die("ibv_create_srq");
	}
	s->qp = ibv_create_qp(s->pd, &(struct ibv_qp_init_attr){
		.send_cq = s->cq, .recv_cq = s->cq, .srq = s->srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = with_srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	});
	if (!s->qp)
		die("ibv_create_qp");
}

static void side_connect(struct side *s, const struct side *peer)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};

	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify to INIT");
	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_256,
		.dest_qp_num = peer->qp->qp_num, .rq_psn = 0,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .dlid = peer->lid, .port_num = 1 },
	};
	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify to RTR");
	/* retransmissions are rare: 4 s ACK timeout */
	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .timeout = 20, .retry_cnt = 7,
		.rnr_retry = 7, .sq_psn = 0, .max_rd_atomic = 1,
	};
	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify to RTS");
}

/* Wait up to @ms for the async event @type on @ctx; false on timeout. */
static bool wait_event(struct ibv_context *ctx, enum ibv_event_type type,
		       int ms)
{
	uint64_t end = now_ms() + ms;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int64_t left;

	while ((left = (int64_t)(end - now_ms())) > 0) {
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			die("poll");
		if (ibv_get_async_event(ctx, &ev))
			continue;
		printf("# %llu ms: async event %s\n",
		       (unsigned long long)now_ms(),
		       ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		if (ev.event_type == type)
			return true;
	}
	return false;
}

static void post_recv(struct side *s, uint64_t wr_id, char *buf)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = RECV_LEN, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_srq_recv(s->srq, &wr, &bad))
		die("ibv_post_srq_recv");
}

static struct side rcv, snd;

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "recv-dev", required_argument, NULL, 'r' },
		{ "send-dev", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ }
	};
	const char *rname = NULL, *sname = NULL;
	int opt, n, flags, timeout_s = 60;
	struct ibv_device **list;
	struct ibv_qp_attr attr;
	struct ibv_wc wc;
	bool got, flushed = false;
	uint64_t t0;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			rname = optarg;
			break;
		case 's':
			sname = optarg;
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!rname || !sname) {
		fprintf(stderr, "usage: rxe_srq_flush --recv-dev DEV --send-dev DEV [--timeout S]\n");
		return 2;
	}

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	side_open(&rcv, list, n, rname, true);
	side_open(&snd, list, n, sname, false);
	flags = fcntl(rcv.ctx->async_fd, F_GETFL);
	if (fcntl(rcv.ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		die("async fd");
	side_connect(&rcv, &snd);
	side_connect(&snd, &rcv);

	post_recv(&rcv, 1, rcv.buf);
	post_recv(&rcv, 2, rcv.buf + RECV_LEN);
	if (ibv_modify_srq(rcv.srq, &(struct ibv_srq_attr){ .srq_limit = 2 },
			   IBV_SRQ_LIMIT))
		die("arm the SRQ limit");

	printf("TAP version 13\n1..5\n# recv QP %u LID 0x%x, send QP %u LID 0x%x\n",
	       rcv.qp->qp_num, rcv.lid, snd.qp->qp_num, snd.lid);
	fflush(stdout);

	{
		struct ibv_sge sge = {
			.addr = (uintptr_t)snd.buf, .length = MSG_LEN,
			.lkey = snd.mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 10, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		memset(snd.buf, 0xa5, MSG_LEN);
		if (ibv_post_send(snd.qp, &wr, &bad))
			die("ibv_post_send");
	}
	t0 = now_ms();
	printf("# %llu ms: posted a %d-byte SEND (%d packets)\n",
	       (unsigned long long)t0, MSG_LEN, MSG_LEN / MTU);

	/* 1. the first packet takes a receive from the SRQ */
	got = wait_event(rcv.ctx, IBV_EVENT_SRQ_LIMIT_REACHED,
			 timeout_s * 1000);
	ok(got, "the first packet took a receive from the SRQ (%s after %llu ms)",
	   got ? "SRQ limit event" : "no SRQ limit event",
	   (unsigned long long)(now_ms() - t0));
	if (!got)
		goto out;

	/* 2. the QP goes to the error state in the middle of the message */
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR };
	ok(!ibv_modify_qp(rcv.qp, &attr, IBV_QP_STATE),
	   "modify the receiving QP to ERR (%llu ms)",
	   (unsigned long long)now_ms());

	/* 3. Last WQE Reached */
	got = wait_event(rcv.ctx, IBV_EVENT_QP_LAST_WQE_REACHED, 10000);
	ok(got, "IB_EVENT_QP_LAST_WQE_REACHED raised");

	/*
	 * 4. the receive in progress was completed before that event (it is
	 * posted to the CQ before the event is raised); a success means the
	 * whole message arrived before the modify: the link was too fast
	 */
	n = ibv_poll_cq(rcv.cq, 1, &wc);
	if (n < 0)
		die("ibv_poll_cq");
	flushed = n == 1 && wc.wr_id == 1 && wc.status == IBV_WC_WR_FLUSH_ERR;
	ok(flushed,
	   "the receive in progress (wr_id 1) completed with a flush error before Last WQE Reached (%s)",
	   n != 1 ? "no completion" :
	   wc.wr_id != 1 ? "another wr_id" : ibv_wc_status_str(wc.status));

	/* 5. nothing else completes: the other receive stays on the SRQ */
	t0 = now_ms();
	n = 0;
	while (!n && now_ms() - t0 < 3000) {
		n = ibv_poll_cq(rcv.cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (!n)
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 },
				  NULL);
	}
	ok(!n, "no other receive completes in 3 s (%s)",
	   n ? ibv_wc_status_str(wc.status) : "none");
	if (n)
		printf("# completion wr_id %llu status %s\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));

out:
	ibv_destroy_qp(snd.qp);
	ibv_destroy_qp(rcv.qp);
	ibv_destroy_srq(rcv.srq);
	ibv_free_device_list(list);
	printf("# %d of %d failed\n", failures, tests);
	return failures ? 1 : 0;
}
