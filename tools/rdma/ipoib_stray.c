// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ipoib_stray - send IPoIB peers what they did not ask for, for the
 * ipoib_cm_* scenarios.
 *
 *   ipoib_stray uc DEVICE DLID DQPN COUNT
 *	a user space UC QP on port 1 of DEVICE sends COUNT 64-byte SEND
 *	messages to QP DQPN at DLID (no GRH): what a peer whose old QP
 *	number was reused sends to a connection that outlived it.  Exits 0
 *	when every send completed successfully.
 *   ipoib_stray ud DEVICE DLID DQPN QKEY COUNT
 *	a user space UD QP on port 1 of DEVICE sends COUNT IPoIB datagrams
 *	of protocol 0x88b6 (the UC keepalive's) to UD QP DQPN at DLID, each
 *	a probe of no connection: what any host of the partition may send.
 *   ipoib_stray send IFACE HWADDR ETHERTYPE COUNT
 *	COUNT AF_PACKET datagrams of EtherType ETHERTYPE (hex) to HWADDR
 *	(the 20-byte IPoIB address, colon separated) on IFACE; the payload
 *	looks like an IPoIB-CM UC keepalive probe of no connection.
 *   ipoib_stray recv IFACE ETHERTYPE TIMEOUT_S
 *	count the datagrams of EtherType ETHERTYPE that reach the stack on
 *	IFACE for TIMEOUT_S seconds; prints "received N".
 *   ipoib_stray ka-peer GID UDQPN QKEY
 *	a UC peer that follows RFC 4755 alone, in user space: a UC QP
 *	connected through the CM to the IPoIB interface whose port has GID
 *	and whose UD QP is UDQPN (service ID 0x1000000000000000 | UDQPN),
 *	with private data naming a UD QP of its own (Q_Key QKEY, IPoIB's).
 *	From that UD QP it sends the interface's UD QP datagrams of
 *	protocol 0x88b6: the UC keepalive probe of its connection exactly
 *	as IPoIB sends it, and variations of it (length, reserved octets,
 *	type, QP numbers, another UD QP), then the probe again after a
 *	disconnect; after each it listens 0.5 s for a reply.  Prints
 *	"connected uc-qpn X remote-qpn Y" first, "case NAME: reply|none"
 *	per datagram, and last "stack N" (how many of them are no keepalive
 *	and must reach the stack).  Exits 0 when exactly the exact probes
 *	of the live connection were answered (with the reply IPoIB sends),
 *	1 when not, 3 when the connection was refused (prints "refused
 *	reason R"), 2 on other errors.
 *   ipoib_stray imm GID UDQPN ETHERTYPE COUNT
 *	an RC peer that follows RFC 4755 alone and sends its data with
 *	immediate data, in user space: an RC QP connected through the CM
 *	to the IPoIB interface as for ka-peer, which sends COUNT IPoIB
 *	frames of EtherType ETHERTYPE (hex; 64 octets, the 4-octet IPoIB
 *	header included) as SEND_WITH_IMM messages, then a zero-length
 *	SEND_WITH_IMM whose immediate data is not the keepalive probe's,
 *	then disconnects.  Exits 0 when every send completed successfully.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <infiniband/ib.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define IPOIB_ALEN	20
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MSG_LEN		64

static void die(const char *what)
{
	fprintf(stderr, "ipoib_stray: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static int uc_send(const char *name, uint16_t dlid, uint32_t dqpn, int count)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_port_attr port;
	static char buf[MSG_LEN];
	int i, n, done = 0;

	list = ibv_get_device_list(NULL);
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		errno = ENODEV;
		die(name);
	}
	if (ibv_query_port(ctx, 1, &port))
		die("ibv_query_port");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, count + 1, NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq");
	memset(buf, 0x5a, sizeof(buf));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");

	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UC,
		.cap = { .max_send_wr = count, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("ibv_create_qp");

	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = 0,
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = port.active_mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify RTS");

	for (i = 0; i < count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf, .length = sizeof(buf),
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
		}, *bad;

		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send");
		/* one at a time: each its own message, 1 ms apart */
		usleep(1000);
	}
	for (i = 0; i < 1000 && done < count; i++) {
		struct ibv_wc wc[16];
		int k;

		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "ipoib_stray: send %s\n",
					ibv_wc_status_str(wc[k].status));
				return 1;
			}
			done++;
		}
		if (done < count)
			usleep(1000);
	}
	printf("sent %d UC messages from lid %u qpn 0x%x to lid %u qpn 0x%x\n",
	       done, port.lid, qp->qp_num, dlid, dqpn);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return done == count ? 0 : 1;
}

static int ud_send(const char *name, uint16_t dlid, uint32_t dqpn,
		   uint32_t qkey, int count)
{
	/* IPoIB header (0x88b6), type PROBE, QPNs of no connection */
	static const unsigned char msg[16] = { 0x88, 0xb6, 0, 0, 1, 0, 0, 0,
					       0, 0xff, 0xff, 0xfe,
					       0, 0xff, 0xff, 0xfd };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	static char buf[sizeof(msg)];
	int i, n, done = 0;

	list = ibv_get_device_list(NULL);
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		errno = ENODEV;
		die(name);
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, count + 1, NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq");
	memcpy(buf, msg, sizeof(msg));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = count, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("ibv_create_qp");
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = qkey,
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("modify RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify RTS");
	struct ibv_ah_attr aa = { .dlid = dlid, .port_num = 1 };

	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		die("ibv_create_ah");

	for (i = 0; i < count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf, .length = sizeof(buf),
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.wr.ud = { .ah = ah, .remote_qpn = dqpn,
				   .remote_qkey = qkey },
		}, *bad;

		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send");
		usleep(100000);
	}
	for (i = 0; i < 1000 && done < count; i++) {
		struct ibv_wc wc[16];
		int k;

		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "ipoib_stray: send %s\n",
					ibv_wc_status_str(wc[k].status));
				return 1;
			}
			done++;
		}
		if (done < count)
			usleep(1000);
	}
	printf("sent %d 0x88b6 datagrams from qpn 0x%x to lid %u qpn 0x%x\n",
	       done, qp->qp_num, dlid, dqpn);
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return done == count ? 0 : 1;
}

static int packet_socket(const char *ifname, uint16_t type,
			 struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_DGRAM, htons(type));

	if (fd < 0)
		die("socket");
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(type);
	sll->sll_ifindex = if_nametoindex(ifname);
	if (!sll->sll_ifindex)
		die(ifname);
	return fd;
}

static int packet_send(const char *ifname, const char *hw, uint16_t type,
		       int count)
{
	/* type PROBE, reserved, src and dst QPN of no connection */
	static const unsigned char msg[12] = { 1, 0, 0, 0, 0, 0xff, 0xff, 0xfe,
					       0, 0xff, 0xff, 0xfd };
	/* sll_addr has room for 8 bytes: the address goes on past it */
	union {
		struct sockaddr_ll sll;
		char room[sizeof(struct sockaddr_ll) + IPOIB_ALEN];
	} to;
	unsigned int b[IPOIB_ALEN];
	int fd, i;

	fd = packet_socket(ifname, type, &to.sll);
	if (sscanf(hw, "%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x",
		   &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7],
		   &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &b[14],
		   &b[15], &b[16], &b[17], &b[18], &b[19]) != IPOIB_ALEN) {
		fprintf(stderr, "ipoib_stray: bad address %s\n", hw);
		return 1;
	}
	to.sll.sll_halen = IPOIB_ALEN;
	for (i = 0; i < IPOIB_ALEN; i++)
		((unsigned char *)to.sll.sll_addr)[i] = b[i];
	for (i = 0; i < count; i++) {
		if (sendto(fd, msg, sizeof(msg), 0, (struct sockaddr *)&to,
			   sizeof(to)) != sizeof(msg))
			die("sendto");
		usleep(100000);
	}
	printf("sent %d datagrams of type 0x%04x\n", count, type);
	return 0;
}

/*
 * Count the frames of @type that reach @ifname's stack for @timeout_s s,
 * or, once @count (> 0) arrived, for one more second (to see any extra).
 */
static int packet_recv(const char *ifname, uint16_t type, int timeout_s,
		       int count)
{
	struct sockaddr_ll sll;
	struct timespec t0, t;
	char buf[2048];
	int fd, n = 0;

	fd = packet_socket(ifname, type, &sll);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind");
	/* ready: the caller waits for this line before the peer sends */
	printf("listening\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = (t0.tv_sec + timeout_s - t.tv_sec) * 1000 +
		       (t0.tv_nsec - t.tv_nsec) / 1000000;
		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		if (recv(fd, buf, sizeof(buf), 0) >= 0 && ++n == count) {
			/* the deadline becomes one second from now */
			clock_gettime(CLOCK_MONOTONIC, &t0);
			timeout_s = 1;
		}
	}
	printf("received %d\n", n);
	return 0;
}

/* ---- ka-peer: the UC keepalive datagram, as another host may send it -- */

#define IPOIB_CM_IETF_ID	0x1000000000000000ULL
#define KA_LEN		16	/* IPoIB header + struct ipoib_cm_ka_msg */
#define KA_PROBE	1
#define KA_REPLY	2
#define KA_BUF		256	/* GRH + datagram */
#define KA_RECVS	8

/*
 * One datagram: the probe of the connection (type PROBE, reserved octets
 * zero, our UC QP, the interface's receive QP, KA_LEN octets from our UD
 * QP) changed in one way.  IPoIB takes it as a keepalive (answers it
 * and consumes it) only if it is exactly that.
 */
struct ka_case {
	const char *name;
	uint8_t type;
	uint8_t reserved[3];
	int len;
	bool bad_src;		/* another source QPN than our UC QP's */
	bool bad_dst;		/* a QPN that is no connection */
	bool other_qp;		/* sent from a second UD QP */
	bool disconnected;	/* after our DREQ */
	bool answered;
};

static const struct ka_case ka_cases[] = {
	{ .name = "probe", .type = KA_PROBE, .len = KA_LEN, .answered = true },
	{ .name = "long", .type = KA_PROBE, .len = KA_LEN + 1 },
	{ .name = "short", .type = KA_PROBE, .len = KA_LEN - 1 },
	{ .name = "reserved1", .type = KA_PROBE, .len = KA_LEN,
	  .reserved = { 1, 0, 0 } },
	{ .name = "reserved2", .type = KA_PROBE, .len = KA_LEN,
	  .reserved = { 0, 1, 0 } },
	{ .name = "reserved3", .type = KA_PROBE, .len = KA_LEN,
	  .reserved = { 0, 0, 0x80 } },
	{ .name = "type-reply", .type = KA_REPLY, .len = KA_LEN },
	{ .name = "type-unknown", .type = 3, .len = KA_LEN },
	{ .name = "src-qpn", .type = KA_PROBE, .len = KA_LEN,
	  .bad_src = true },
	{ .name = "dst-qpn", .type = KA_PROBE, .len = KA_LEN,
	  .bad_dst = true },
	{ .name = "other-ud-qp", .type = KA_PROBE, .len = KA_LEN,
	  .other_qp = true },
	{ .name = "probe-again", .type = KA_PROBE, .len = KA_LEN,
	  .answered = true },
	{ .name = "disconnected", .type = KA_PROBE, .len = KA_LEN,
	  .disconnected = true },
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static struct ibv_qp *ka_ud_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			       uint32_t qkey)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = KA_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = qkey,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		die("ibv_create_qp UD");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("modify UD INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("modify UD RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify UD RTS");
	return qp;
}

static void ka_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr + slot * KA_BUF,
		.length = KA_BUF, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

static int ka_peer(const char *gid, uint32_t udqpn, uint32_t qkey)
{
	/* receive buffers of both UD QPs, then the datagram sent */
	static unsigned char buf[(2 * KA_RECVS + 1) * KA_BUF];
	unsigned char *out = buf + 2 * KA_RECVS * KA_BUF;
	unsigned char pdata[8] = { 0 };
	struct sockaddr_ib dst = {
		.sib_family = AF_IB,
		.sib_pkey = htons(0xffff),
		.sib_sid = htobe64(IPOIB_CM_IETF_ID | udqpn),
		.sib_sid_mask = htobe64(~0ULL),
	};
	struct rdma_addrinfo rai = {
		.ai_family = AF_IB, .ai_qp_type = IBV_QPT_UC,
		.ai_port_space = RDMA_PS_IB,
		.ai_dst_addr = (struct sockaddr *)&dst,
		.ai_dst_len = sizeof(dst),
	};
	struct ibv_qp_init_attr uc_init = {
		.qp_type = IBV_QPT_UC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param param = {
		.private_data = pdata, .private_data_len = sizeof(pdata),
	};
	struct ibv_qp *ud[2];
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct rdma_cm_id *id;
	uint32_t uc_qpn, rx_qpn;
	unsigned int i, stack = 0;
	int ret = 0;

	if (inet_pton(AF_INET6, gid, &dst.sib_addr) != 1) {
		fprintf(stderr, "ipoib_stray: bad GID %s\n", gid);
		return 2;
	}
	if (rdma_create_ep(&id, &rai, NULL, NULL))
		die("rdma_create_ep (address and route of the peer)");
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 4 * KA_RECVS, NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	for (i = 0; i < 2; i++) {
		int k;

		ud[i] = ka_ud_qp(pd, cq, qkey);
		for (k = 0; k < KA_RECVS; k++)
			ka_post_recv(ud[i], mr, i * KA_RECVS + k);
	}
	uc_init.send_cq = cq;
	uc_init.recv_cq = cq;
	if (rdma_create_qp(id, pd, &uc_init))
		die("rdma_create_qp UC");

	/* RFC 4755 private data: reserved octet and UD QPN, receive MTU */
	put32(pdata, ud[0]->qp_num);
	put32(pdata + 4, 65536);
	if (rdma_connect(id, &param)) {
		if (errno == ECONNREFUSED && id->event) {
			printf("refused reason %d\n", id->event->status);
			return 3;
		}
		die("rdma_connect");
	}
	if (ibv_query_qp(id->qp, &qa, IBV_QP_DEST_QPN, &qi))
		die("ibv_query_qp");
	uc_qpn = id->qp->qp_num;
	rx_qpn = qa.dest_qp_num;
	printf("connected uc-qpn 0x%x remote-qpn 0x%x ud-qpn 0x%x\n",
	       uc_qpn, rx_qpn, ud[0]->qp_num);
	fflush(stdout);

	struct ibv_ah_attr aa = { .port_num = 1 };
	struct ibv_ah *ah;

	if (ibv_query_qp(id->qp, &qa, IBV_QP_AV, &qi))
		die("ibv_query_qp AV");
	aa.dlid = qa.ah_attr.dlid;
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		die("ibv_create_ah");

	for (i = 0; i < ARRAY_SIZE(ka_cases); i++) {
		const struct ka_case *c = &ka_cases[i];
		struct ibv_sge sge = {
			.addr = (uintptr_t)out, .length = c->len,
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 1000 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.wr.ud = { .ah = ah, .remote_qpn = udqpn,
				   .remote_qkey = qkey },
		}, *bad;
		bool sent = false, reply = false;
		uint64_t end;

		if (c->disconnected) {
			if (rdma_disconnect(id))
				die("rdma_disconnect");
			sleep(1);
		}
		memset(out, 0, KA_BUF);
		out[0] = 0x88;
		out[1] = 0xb6;
		out[4] = c->type;
		memcpy(out + 5, c->reserved, 3);
		put32(out + 8, c->bad_src ? uc_qpn ^ 1 : uc_qpn);
		put32(out + 12, c->bad_dst ? 0xfffffd : rx_qpn);
		if (ibv_post_send(ud[c->other_qp], &wr, &bad))
			die("ibv_post_send");
		end = now_ms() + 500;
		while (now_ms() < end) {
			struct ibv_wc wc;
			const unsigned char *m;

			if (ibv_poll_cq(cq, 1, &wc) <= 0) {
				usleep(1000);
				continue;
			}
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "ipoib_stray: %s: %s\n", c->name,
					ibv_wc_status_str(wc.status));
				return 2;
			}
			if (wc.opcode != IBV_WC_RECV) {
				sent = true;
				continue;
			}
			m = buf + wc.wr_id * KA_BUF + 40;
			if (wc.byte_len == 40 + KA_LEN &&
			    m[0] == 0x88 && m[1] == 0xb6 && m[4] == KA_REPLY &&
			    get32(m + 8) == rx_qpn && get32(m + 12) == uc_qpn &&
			    wc.src_qp == udqpn && wc.qp_num == ud[0]->qp_num)
				reply = true;
			else
				printf("case %s: %u bytes from qpn 0x%x, no reply\n",
				       c->name, wc.byte_len, wc.src_qp);
			ka_post_recv(wc.qp_num == ud[0]->qp_num ? ud[0] : ud[1],
				     mr, wc.wr_id);
		}
		if (!sent) {
			fprintf(stderr, "ipoib_stray: %s: not sent\n", c->name);
			return 2;
		}
		printf("case %s: %s%s\n", c->name, reply ? "reply" : "none",
		       reply == c->answered ? "" : " (WRONG)");
		if (reply != c->answered)
			ret = 1;
		if (!c->answered)
			stack++;
	}
	printf("stack %u\n", stack);
	ibv_destroy_ah(ah);
	rdma_destroy_qp(id);
	for (i = 0; i < 2; i++)
		ibv_destroy_qp(ud[i]);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_ep(id);
	return ret;
}

static int imm_send(const char *gid, uint32_t udqpn, uint16_t type,
		    int count)
{
	static unsigned char buf[MSG_LEN];
	unsigned char pdata[8] = { 0 };
	struct sockaddr_ib dst = {
		.sib_family = AF_IB,
		.sib_pkey = htons(0xffff),
		.sib_sid = htobe64(IPOIB_CM_IETF_ID | udqpn),
		.sib_sid_mask = htobe64(~0ULL),
	};
	struct rdma_addrinfo rai = {
		.ai_family = AF_IB, .ai_qp_type = IBV_QPT_RC,
		.ai_port_space = RDMA_PS_IB,
		.ai_dst_addr = (struct sockaddr *)&dst,
		.ai_dst_len = sizeof(dst),
	};
	struct ibv_qp_init_attr rc_init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param param = {
		.private_data = pdata, .private_data_len = sizeof(pdata),
	};
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct rdma_cm_id *id;
	int i, ok = 0;

	if (inet_pton(AF_INET6, gid, &dst.sib_addr) != 1) {
		fprintf(stderr, "ipoib_stray: bad GID %s\n", gid);
		return 2;
	}
	if (rdma_create_ep(&id, &rai, NULL, NULL))
		die("rdma_create_ep (address and route of the peer)");
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	rc_init.send_cq = cq;
	rc_init.recv_cq = cq;
	if (rdma_create_qp(id, pd, &rc_init))
		die("rdma_create_qp RC");
	/* RFC 4755 private data: a UD QPN (none here), the receive MTU */
	put32(pdata, 0xffffff);
	put32(pdata + 4, 65536);
	if (rdma_connect(id, &param)) {
		if (errno == ECONNREFUSED && id->event) {
			printf("refused reason %d\n", id->event->status);
			return 3;
		}
		die("rdma_connect");
	}
	printf("connected rc-qpn 0x%x\n", id->qp->qp_num);
	fflush(stdout);

	/* an IPoIB frame: EtherType, 2 reserved octets, then the payload */
	memset(buf, 0x5a, sizeof(buf));
	buf[0] = type >> 8;
	buf[1] = type & 0xff;
	buf[2] = buf[3] = 0;
	for (i = 0; i <= count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf,
			.length = i < count ? MSG_LEN : 0,
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = sge.length != 0,
			.opcode = IBV_WR_SEND_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(i < count ? 0x12345678 + i : 0x4b410002),
		}, *bad;
		struct ibv_wc wc;
		uint64_t end = now_ms() + 5000;
		int n;

		if (ibv_post_send(id->qp, &wr, &bad))
			die("ibv_post_send");
		while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now_ms() < end)
			usleep(1000);
		if (n <= 0 || wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "ipoib_stray: send %d: %s\n", i,
				n > 0 ? ibv_wc_status_str(wc.status) :
					"no completion");
			break;
		}
		ok++;
	}
	printf("sent %d of %d\n", ok, count + 1);
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_ep(id);
	return ok == count + 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "uc"))
		return uc_send(argv[2], strtoul(argv[3], NULL, 0),
			       strtoul(argv[4], NULL, 0), atoi(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "ud"))
		return ud_send(argv[2], strtoul(argv[3], NULL, 0),
			       strtoul(argv[4], NULL, 0),
			       strtoul(argv[5], NULL, 0), atoi(argv[6]));
	if (argc == 6 && !strcmp(argv[1], "send"))
		return packet_send(argv[2], argv[3], strtoul(argv[4], NULL, 16),
				   atoi(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "ka-peer"))
		return ka_peer(argv[2], strtoul(argv[3], NULL, 0),
			       strtoul(argv[4], NULL, 0));
	if (argc == 6 && !strcmp(argv[1], "imm"))
		return imm_send(argv[2], strtoul(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 16), atoi(argv[5]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "recv"))
		return packet_recv(argv[2], strtoul(argv[3], NULL, 16),
				   atoi(argv[4]), argc == 6 ? atoi(argv[5]) : 0);
	fprintf(stderr, "usage: ipoib_stray uc DEVICE DLID DQPN COUNT\n"
		"       ipoib_stray ud DEVICE DLID DQPN QKEY COUNT\n"
		"       ipoib_stray send IFACE HWADDR ETHERTYPE COUNT\n"
		"       ipoib_stray recv IFACE ETHERTYPE TIMEOUT_S [COUNT]\n"
		"       ipoib_stray ka-peer GID UDQPN QKEY\n"
		"       ipoib_stray imm GID UDQPN ETHERTYPE COUNT\n");
	return 2;
}
