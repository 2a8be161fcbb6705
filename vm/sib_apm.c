// SPDX-License-Identifier: GPL-2.0-only
/*
 * sib_apm - automatic path migration of an RC or UC QP on a soft IB port
 *
 *   sib_apm --dev DEV --peer-lid LID --peer-gid GID [--uc]
 *           [--alt-port PORT --alt-lid LID --alt-gid GID]
 *
 * Creates an RC QP (--uc: a UC QP) on port 1 of DEV and prints "qpn N".
 * The alternate path is on port 1 to the same peer port unless --alt-port
 * names another port of DEV and the peer's LID and GID on that path.  Then
 * it runs one loop that keeps receives posted (checking that the peer's
 * messages come in order, none lost or repeated; on UC, where nothing is
 * retransmitted, a lost message is counted, one repeated or out of order
 * is an error), sends what it is told to, watches the QP's and the
 * device's async events (printed "event NAME") and reads commands from
 * stdin, one a line:
 *
 *   peer QPN       connect to the peer's QPN: primary path LID, SL 0, no
 *                  GRH; alternate path LID, SL 1, GRH to GID; REARM
 *   send N         send N messages; prints "sent N" when all completed
 *   stream N       send until the QP has migrated (IB_EVENT_PATH_MIG),
 *                  then N more; when all completed prints "streamed
 *                  TOTAL gap_ms MS" (TOTAL: every send completed so far;
 *                  MS: the longest time between two send completions)
 *   state          prints "state MIG sl SL grh G" (ibv_query_qp: the
 *                  migration state and the primary path)
 *   events         prints "events mig M migerr E"
 *   migseq         prints "migseq S": the first message posted after the
 *                  QP's first IB_EVENT_PATH_MIG (-1: none yet)
 *   recvd          prints "recvd N" (N: one past the last message
 *                  received); on UC "recvd N lost L last_lost S" (L
 *                  messages never received, S the last of them, -1: none)
 *   rearm SL GRH   load the alternate path LID, SL, GRH (0/1) and REARM
 *   rearm-port P SL GRH  the same, on port P (1: the primary path's
 *                  peer, else the --alt-* one)
 *   port           prints "port P" (the primary path's port)
 *   force          migrate by modify QP (MIGRATED)
 *   quit           exit
 *
 * A completion in error prints "wc error ..." and exits 1 at once, as does
 * a failed verb or a message out of sequence.  Exit 0 on quit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define MSG_LEN		256
/*
 * Receives kept posted.  UC drops what finds no receive posted, and a
 * sender sends faster than a receiver whose vCPU waits for a loaded host
 * reposts: room for a stall of a few hundred milliseconds of a stream.
 */
#define NRECV		1024
#define WINDOW		16
#define TIMEOUT		14	/* 4.096 us << 14: 67 ms */
#define RETRY_CNT	3

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static char *buf;
static uint16_t peer_lid;
static union ibv_gid peer_gid;
static uint8_t alt_port = 1;
static uint16_t alt_lid;
static union ibv_gid alt_gid;

static uint32_t next_send, sent_done, outstanding, send_goal;
static uint32_t next_recv, nlost;
static int64_t last_lost = -1, mig_seq = -1;
static bool uc;
static int nmig, nmigerr;
static bool streaming, draining;
static uint32_t stream_more;
static double last_comp, max_gap;

static void die(const char *what, int err)
{
	printf("error %s: %s\n", what, strerror(err));
	fflush(stdout);
	exit(1);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void post_recv(int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + slot * MSG_LEN,
		.length = MSG_LEN,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;
	int err = ibv_post_recv(qp, &wr, &bad);

	if (err)
		die("ibv_post_recv", err);
}

static void post_send(void)
{
	char *p = buf + (NRECV + (next_send % WINDOW)) * MSG_LEN;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p,
		.length = MSG_LEN,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = next_send, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint32_t seq = htonl(next_send);
	int err;

	memset(p, 0x5a, MSG_LEN);
	memcpy(p, &seq, sizeof(seq));
	err = ibv_post_send(qp, &wr, &bad);
	if (err)
		die("ibv_post_send", err);
	next_send++;
	outstanding++;
}

/* a path on @port: port 1 to --peer-*, another to --alt-* */
static void fill_path(struct ibv_ah_attr *ah, int port, int sl, int grh)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = port == 1 ? peer_lid : alt_lid;
	ah->sl = sl;
	ah->port_num = port;
	if (grh) {
		ah->is_global = 1;
		ah->grh.dgid = port == 1 ? peer_gid : alt_gid;
		ah->grh.sgid_index = 0;
		ah->grh.hop_limit = 1;
	}
}

static void connect_qp(uint32_t peer_qpn)
{
	struct ibv_qp_attr a;
	int err, i, mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		die("modify INIT", err);
	for (i = 0; i < NRECV; i++)
		post_recv(i);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	fill_path(&a.ah_attr, 1, 0, 0);
	fill_path(&a.alt_ah_attr, alt_port, 1, 1);
	a.alt_port_num = alt_port;
	a.alt_timeout = TIMEOUT;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN | IBV_QP_ALT_PATH;
	/* UC has no responder resources and no RNR NAKs */
	if (!uc)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	err = ibv_modify_qp(qp, &a, mask);
	if (err)
		die("modify RTR (with an alternate path)", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = TIMEOUT;
	a.retry_cnt = RETRY_CNT;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	a.path_mig_state = IBV_MIG_REARM;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_PATH_MIG_STATE;
	/* UC has no ACKs: no timeout, retries or read/atomic requests */
	if (!uc)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	err = ibv_modify_qp(qp, &a, mask);
	if (err)
		die("modify RTS (REARM)", err);
	printf("connected\n");
}

static const char *mig_name(int s)
{
	switch (s) {
	case IBV_MIG_MIGRATED: return "MIGRATED";
	case IBV_MIG_REARM: return "REARM";
	case IBV_MIG_ARMED: return "ARMED";
	}
	return "?";
}

static void print_state(void)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int err;

	err = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			   IBV_QP_PATH_MIG_STATE | IBV_QP_ALT_PATH, &init);
	if (err)
		die("ibv_query_qp", err);
	printf("state %s sl %d grh %d\n", mig_name(a.path_mig_state),
	       a.ah_attr.sl, a.ah_attr.is_global);
}

static void rearm(int port, int sl, int grh)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	fill_path(&a.alt_ah_attr, port, sl, grh);
	a.alt_port_num = port;
	a.alt_timeout = TIMEOUT;
	a.path_mig_state = IBV_MIG_REARM;
	err = ibv_modify_qp(qp, &a, IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE);
	if (err)
		die("modify RTS -> RTS (alternate path, REARM)", err);
	printf("rearmed\n");
}

static void force(void)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.path_mig_state = IBV_MIG_MIGRATED;
	err = ibv_modify_qp(qp, &a, IBV_QP_PATH_MIG_STATE);
	if (err)
		die("modify RTS -> RTS (MIGRATED)", err);
	printf("forced\n");
}

static void print_port(void)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int err;

	err = ibv_query_qp(qp, &a, IBV_QP_PORT, &init);
	if (err)
		die("ibv_query_qp", err);
	printf("port %d\n", a.port_num);
}

static void command(char *line)
{
	unsigned int n, m, p;

	if (sscanf(line, "peer %u", &n) == 1) {
		connect_qp(n);
	} else if (sscanf(line, "send %u", &n) == 1) {
		send_goal = next_send + n;
	} else if (sscanf(line, "stream %u", &n) == 1) {
		streaming = true;
		stream_more = n;
		max_gap = 0;
		last_comp = now_ms();
	} else if (!strcmp(line, "state")) {
		print_state();
	} else if (!strcmp(line, "events")) {
		printf("events mig %d migerr %d\n", nmig, nmigerr);
	} else if (!strcmp(line, "migseq")) {
		printf("migseq %lld\n", (long long)mig_seq);
	} else if (!strcmp(line, "recvd")) {
		if (uc)
			printf("recvd %u lost %u last_lost %lld\n", next_recv,
			       nlost, (long long)last_lost);
		else
			printf("recvd %u\n", next_recv);
	} else if (sscanf(line, "rearm-port %u %u %u", &p, &n, &m) == 3) {
		rearm(p, n, m);
	} else if (sscanf(line, "rearm %u %u", &n, &m) == 2) {
		rearm(1, n, m);
	} else if (!strcmp(line, "port")) {
		print_port();
	} else if (!strcmp(line, "force")) {
		force();
	} else if (!strcmp(line, "quit")) {
		exit(0);
	} else {
		printf("error unknown command '%s'\n", line);
		exit(1);
	}
	fflush(stdout);
}

static void read_commands(void)
{
	static char line[256];
	static size_t len;
	ssize_t r;
	char *nl;

	r = read(0, line + len, sizeof(line) - 1 - len);
	if (r == 0 && !len)
		exit(0);	/* stdin closed */
	if (r <= 0)
		return;
	len += r;
	line[len] = 0;
	while ((nl = strchr(line, '\n'))) {
		*nl = 0;
		command(line);
		len -= nl + 1 - line;
		memmove(line, nl + 1, len + 1);
	}
}

static void poll_events(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_PATH_MIG) {
			if (!nmig++)
				mig_seq = next_send;
		} else if (ev.event_type == IBV_EVENT_PATH_MIG_ERR)
			nmigerr++;
		printf("event %s\n", ibv_event_type_str(ev.event_type));
		fflush(stdout);
		ibv_ack_async_event(&ev);
	}
}

/* handle up to 16 completions; return how many there were */
static int poll_cq_once(void)
{
	struct ibv_wc wc[16];
	uint32_t seq;
	int n, i;
	double t;

	n = ibv_poll_cq(cq, 16, wc);
	if (n < 0)
		die("ibv_poll_cq", EIO);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			printf("wc error %s opcode %d wr_id %llu\n",
			       ibv_wc_status_str(wc[i].status), wc[i].opcode,
			       (unsigned long long)wc[i].wr_id);
			fflush(stdout);
			exit(1);
		}
		if (wc[i].opcode == IBV_WC_RECV) {
			memcpy(&seq, buf + wc[i].wr_id * MSG_LEN, sizeof(seq));
			seq = ntohl(seq);
			/* UC: what the wire lost is gone, later ones come */
			if (uc && seq > next_recv) {
				nlost += seq - next_recv;
				last_lost = seq - 1;
				next_recv = seq;
			}
			if (seq != next_recv) {
				printf("error received message %u, expected %u\n",
				       seq, next_recv);
				exit(1);
			}
			next_recv++;
			post_recv(wc[i].wr_id);
			continue;
		}
		outstanding--;
		sent_done++;
		t = now_ms();
		if ((streaming || draining) && t - last_comp > max_gap)
			max_gap = t - last_comp;
		last_comp = t;
		if (streaming || draining) {
			if (streaming && nmig && !stream_more--) {
				streaming = false;
				draining = true;
			}
			if (draining && !outstanding) {
				draining = false;
				printf("streamed %u gap_ms %.0f\n",
				       sent_done, max_gap);
			}
		} else if (send_goal && sent_done == send_goal) {
			printf("sent %u\n", sent_done);
		}
		fflush(stdout);
	}
	return n;
}

/*
 * Empty the CQ: the receives are reposted as fast as the peer sends, not
 * 16 per turn of the main loop, which sleeps between turns.
 */
static void poll_cq(void)
{
	while (poll_cq_once() == 16)
		;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "peer-lid", required_argument, NULL, 'l' },
		{ "peer-gid", required_argument, NULL, 'g' },
		{ "alt-port", required_argument, NULL, 'P' },
		{ "alt-lid", required_argument, NULL, 'L' },
		{ "alt-gid", required_argument, NULL, 'G' },
		{ "uc", no_argument, NULL, 'u' },
		{}
	};
	struct ibv_qp_init_attr qpa = {};
	struct ibv_device **list;
	const char *dev = NULL;
	int c, i, flags;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'l': peer_lid = strtoul(optarg, NULL, 0); break;
		case 'g':
			if (inet_pton(AF_INET6, optarg, &peer_gid) != 1)
				die("--peer-gid", EINVAL);
			break;
		case 'P': alt_port = strtoul(optarg, NULL, 0); break;
		case 'u': uc = true; break;
		case 'L': alt_lid = strtoul(optarg, NULL, 0); break;
		case 'G':
			if (inet_pton(AF_INET6, optarg, &alt_gid) != 1)
				die("--alt-gid", EINVAL);
			break;
		default: return 2;
		}
	}
	if (alt_port == 1) {
		alt_lid = peer_lid;
		alt_gid = peer_gid;
	}
	if (!dev || !peer_lid || !alt_lid) {
		fprintf(stderr, "usage: sib_apm --dev DEV --peer-lid LID --peer-gid GID\n");
		return 2;
	}

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("ibv_open_device", ENODEV);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, NRECV + WINDOW + 16, NULL, NULL, 0);
	buf = calloc(NRECV + WINDOW, MSG_LEN);
	if (!pd || !cq || !buf)
		die("setup", errno);
	mr = ibv_reg_mr(pd, buf, (NRECV + WINDOW) * MSG_LEN,
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr", errno);
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = uc ? IBV_QPT_UC : IBV_QPT_RC;
	qpa.cap.max_send_wr = WINDOW;
	qpa.cap.max_recv_wr = NRECV;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qpa);
	if (!qp)
		die("ibv_create_qp", errno);

	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	printf("qpn %u\n", qp->qp_num);
	fflush(stdout);

	for (;;) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };

		read_commands();
		poll_events();
		poll_cq();
		while (outstanding < WINDOW &&
		       (streaming || (send_goal && next_send < send_goal)))
			post_send();
		if (!outstanding)
			poll(&pfd, 1, 2);	/* idle: wait for a command */
		else
			usleep(500);
	}
}
