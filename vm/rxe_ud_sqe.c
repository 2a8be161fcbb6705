// SPDX-License-Identifier: GPL-2.0-only
/*
 * rxe_ud_sqe - a UD QP's send error stops its send queue only (IBA SQE)
 *
 *   rxe_ud_sqe --dev DEV --bad-gid-index N [--good-gid-index M]
 *
 * Creates a UD QP on port 1 of DEV and two address handles to this port
 * itself: "bad" from and to GID index N, "good" from and to M (default 0,
 * the link-local GID).  Prints "ready" and reads a line from stdin: meanwhile
 * the caller deletes the address behind GID N, so the bad AH's source GID
 * no longer exists.  Then, with a receive posted:
 *   1. a send on the bad AH completes in error, and the QP is in the Send
 *      Queue Error state (stock rxe: the error state, for good);
 *   2. a send posted in SQE is flushed;
 *   3. the modify SQE -> RTS (what ib_mad_send_error() does for QP1)
 *      succeeds;
 *   4. a send on the good AH completes, and the posted receive gets it
 *      (looped back by rxe): the receive queue worked all along.
 *
 * TAP output; exit 0 pass, 1 fail, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define QKEY		0x11111111
#define MSG_LEN		64
#define GRH_LEN		40
#define POLL_MS		3000

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
	fprintf(stderr, "rxe_ud_sqe: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* Poll @cq for the completion of @wr_id; false on timeout. */
static bool wait_wc(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *out)
{
	uint64_t end = now_ms() + POLL_MS;
	struct ibv_wc wc;
	int n;

	while (now_ms() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 1 && wc.wr_id == wr_id) {
			*out = wc;
			return true;
		}
		if (n == 1)
			printf("# other completion: wr_id %llu status %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
		else
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 },
				  NULL);
	}
	return false;
}

static const char *qp_state_str(enum ibv_qp_state s)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) && names[s] ?
	       names[s] : "?";
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		die("ibv_query_qp");
	return attr.qp_state;
}

static struct ibv_ah *make_ah(struct ibv_pd *pd, int sgid_index,
			      const union ibv_gid *dgid)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = sgid_index,
			 .hop_limit = 64 },
	};
	struct ibv_ah *ah = ibv_create_ah(pd, &attr);

	if (!ah)
		die("ibv_create_ah");
	return ah;
}

static int post_send(struct ibv_qp *qp, struct ibv_ah *ah, struct ibv_mr *mr,
		     char *buf, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG_LEN, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qp->qp_num,
			   .remote_qkey = QKEY },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "bad-gid-index", required_argument, NULL, 'b' },
		{ "good-gid-index", required_argument, NULL, 'g' },
		{ }
	};
	const char *dev_name = NULL;
	int bad_idx = -1, good_idx = 0, opt, i, n;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *bad_ah, *good_ah;
	union ibv_gid good_gid, bad_gid;
	struct ibv_qp_attr attr;
	struct ibv_wc wc;
	static char buf[3 * (GRH_LEN + MSG_LEN)];
	char *rbuf = buf, *sbuf = buf + GRH_LEN + MSG_LEN, line[64];
	bool got;
	int ret;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev_name = optarg;
			break;
		case 'b':
			bad_idx = atoi(optarg);
			break;
		case 'g':
			good_idx = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!dev_name || bad_idx < 0) {
		fprintf(stderr, "usage: rxe_ud_sqe --dev DEV --bad-gid-index N [--good-gid-index M]\n");
		return 2;
	}

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die(dev_name);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
	     NULL;
	if (!mr)
		die("pd/cq/mr");
	qp = ibv_create_qp(pd, &(struct ibv_qp_init_attr){
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	});
	if (!qp)
		die("ibv_create_qp");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
				     .qkey = QKEY };
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("modify to INIT");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		die("modify to RTR");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify to RTS");

	if (ibv_query_gid(ctx, 1, good_idx, &good_gid) ||
	    ibv_query_gid(ctx, 1, bad_idx, &bad_gid))
		die("ibv_query_gid");
	/* each AH addresses this port by its own source GID: loopback */
	bad_ah = make_ah(pd, bad_idx, &bad_gid);
	good_ah = make_ah(pd, good_idx, &good_gid);

	/* a receive for the looped back message; the QP receives in SQE */
	{
		struct ibv_sge sge = {
			.addr = (uintptr_t)rbuf, .length = GRH_LEN + MSG_LEN,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = 100, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_recv(qp, &wr, &bad))
			die("ibv_post_recv");
	}

	printf("TAP version 13\n1..7\n# qpn %u, AHs ready\nready\n", qp->qp_num);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;

	/* 1. the send whose source GID is gone */
	memset(sbuf, 0xa5, MSG_LEN);
	ret = post_send(qp, bad_ah, mr, sbuf, 1);
	ok(!ret, "post a send on the AH whose source GID is gone (%d)", ret);
	got = !ret && wait_wc(cq, 1, &wc);
	ok(got && wc.status != IBV_WC_SUCCESS,
	   "it completes in error (%s)",
	   got ? ibv_wc_status_str(wc.status) : "no completion");
	ok(qp_state(qp) == IBV_QPS_SQE,
	   "the QP is in SQE, not ERR (%s)", qp_state_str(qp_state(qp)));

	/* 2. a send posted in SQE is flushed */
	ret = post_send(qp, good_ah, mr, sbuf, 2);
	got = !ret && wait_wc(cq, 2, &wc);
	ok(got && wc.status == IBV_WC_WR_FLUSH_ERR,
	   "a send posted in SQE is flushed (%s)",
	   ret ? "post failed" : got ? ibv_wc_status_str(wc.status) :
	   "no completion");

	/* 3. resume: SQE -> RTS, as ib_mad_send_error() does */
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS,
				     .cur_qp_state = IBV_QPS_SQE };
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CUR_STATE);
	ok(!ret && qp_state(qp) == IBV_QPS_RTS,
	   "modify SQE -> RTS (%d, %s)", ret, qp_state_str(qp_state(qp)));

	/* 4. the QP sends again, and received all along */
	memset(sbuf, 0x5a, MSG_LEN);
	ret = post_send(qp, good_ah, mr, sbuf, 3);
	got = !ret && wait_wc(cq, 3, &wc);
	ok(got && wc.status == IBV_WC_SUCCESS, "a send on the good AH (%s)",
	   ret ? "post failed" : got ? ibv_wc_status_str(wc.status) :
	   "no completion");
	got = wait_wc(cq, 100, &wc);
	ok(got && wc.status == IBV_WC_SUCCESS &&
	   wc.byte_len == GRH_LEN + MSG_LEN &&
	   rbuf[GRH_LEN] == 0x5a && rbuf[GRH_LEN + MSG_LEN - 1] == 0x5a,
	   "the receive posted before the error gets it (%s, %u bytes)",
	   got ? ibv_wc_status_str(wc.status) : "no completion",
	   got ? wc.byte_len : 0);

	ibv_destroy_ah(bad_ah);
	ibv_destroy_ah(good_ah);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("# %d of %d failed\n", failures, tests);
	return failures ? 1 : 0;
}
