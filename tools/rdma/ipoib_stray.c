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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
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
#include <infiniband/verbs.h>

#define IPOIB_ALEN	20
#define MSG_LEN		64

static void die(const char *what)
{
	fprintf(stderr, "ipoib_stray: %s: %s\n", what, strerror(errno));
	exit(1);
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

static int packet_recv(const char *ifname, uint16_t type, int timeout_s)
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
		if (recv(fd, buf, sizeof(buf), 0) >= 0)
			n++;
	}
	printf("received %d\n", n);
	return 0;
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
	if (argc == 5 && !strcmp(argv[1], "recv"))
		return packet_recv(argv[2], strtoul(argv[3], NULL, 16),
				   atoi(argv[4]));
	fprintf(stderr, "usage: ipoib_stray uc DEVICE DLID DQPN COUNT\n"
		"       ipoib_stray ud DEVICE DLID DQPN QKEY COUNT\n"
		"       ipoib_stray send IFACE HWADDR ETHERTYPE COUNT\n"
		"       ipoib_stray recv IFACE ETHERTYPE TIMEOUT_S\n");
	return 2;
}
