// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib_probe - what an ordinary verbs user can send to rxe and soft
 * InfiniBand ports (the security scenario sib_security.sh; ported from the
 * review probe rv_probe.c).  Plain UD verbs, no umad.
 *
 *  sib_probe ud-recv --dev D --qkey Q [--timeout S] [--count N]
 *      a UD QP with Q_Key Q: prints "qpn N", then "recv slid 0x.. src_qp N
 *      qkey-ok" per datagram, until N datagrams or S seconds; then
 *      "received N".
 *  sib_probe ud-send --dev D --dlid L --qpn N [--qp-qkey Q] [--wr-qkey K]
 *                    [--path-bits B] [--count N]
 *      N (1) 64-byte UD sends from a QP with Q_Key Q, the WRs carrying K.
 *  sib_probe sa --dev D --dlid L --op join|leave --count N
 *               [--vary mgid|portgid] [--mgid-lo X] [--port-gid G]
 *               [--qp-qkey Q]
 *      SA MCMemberRecord Set/Delete MADs to QPN 1 of LID L (WR Q_Key the
 *      GSI Q_Key 0x80010000) from an ordinary UD QP; MGIDs
 *      ff12:601b:ffff::X.  "--qp-qkey 0x80010000" needs CAP_NET_RAW.
 *  sib_probe sqe-race --dev D --bad-gid-index N --iters K --batch B[,B..]
 *      RoCE: per iteration one send on an AH whose source GID is gone,
 *      then B good sends; on the first error completion the QP is moved
 *      SQE -> RTS at once (what ib_mad_send_error() does).  Exits 1 if an
 *      iteration ends outside RTS with no error after that modify.
 *
 *  sib_probe mcast-attach --dev D [--count N]
 *      N (100) UD QPs attached to one multicast group: prints "attached K
 *      of N", and the error of the attach that failed if K < N.
 *
 *  sib_probe pma-reset --dev D --dlid L [--qp-qkey Q]
 *      Performance Management Sets to QPN 1 of LID L that reset every
 *      counter (PortCounters, CounterSelect 0xffff; PortCountersExtended,
 *      0x00ff), from an ordinary UD QP with Q_Key Q (0x11111111), the WRs
 *      carrying the GSI Q_Key.  "--qp-qkey 0x80010000" needs CAP_NET_RAW.
 *
 *  sib_probe rc-retry --dev D --dlid L [--retry N] [--timeout-exp T]
 *                     [--wait S]
 *      an RC QP connected to QPN 0xabcde of LID L, where nobody answers:
 *      one send with retry count N (7) and local ACK timeout T (10, 4 ms);
 *      prints its completion and when it came, or "no completion".  Exit
 *      0 when it completed with a retry exceeded error within S (15) s.
 *
 *  sib_probe raw-send --ifname I --dst-mac M --dlid L --slid S
 *                     [--dqpn N] [--qkey Q] [--pkey P] [--good-icrc]
 *                     [--count C]
 *      (root) C (1) soft IB frames on I: LRH L <- S, a UD SEND of no
 *      payload to QPN N (1) with Q_Key Q (the GSI Q_Key) and P_Key P
 *      (0xffff), with a wrong ICRC, or the right one with --good-icrc.
 *  sib_probe sniff --ifname I --dlid L [--slid S] [--dqpn N] [--timeout T]
 *      (root) prints "dst MAC" of the first soft IB frame on I to LID L
 *      (from LID S, to destination QPN N), "dst none" if none comes in T
 *      seconds.
 *      I is put in promiscuous mode: frames to other MACs are seen too.
 *      "listening" comes first, once frames are seen.
 *
 *  sib_probe smp --dev D (--dlid L | --dr P) --attr A [--mod M]
 *                [--method M] [--class-version V] [--timeout-ms T]
 *      (root) one SMP through ib_umad from port 1 of D: LID-routed to
 *      LID L, or directed-route along P ("0" = the port itself, "0,1" =
 *      out of port 1 to the node at the other end; up to 70 hops, more
 *      than the 63 IBA allows).  Prints "status 0xSSSS" (the MAD status,
 *      without the direction bit) and "data" with the first 16 bytes of
 *      the attribute, or "no answer".  Exit 0 answered, 1 no answer, 3
 *      the MAD layer refused to send it ("refused: ERRNO").
 *      --port-state S: a SubnSet(PortInfo) that asks for PortState S (1
 *      DOWN, 3 ARMED, 4 ACTIVE), the other fields as a SubnGet(PortInfo)
 *      along the same route found them (PortPhysicalState 0: no change).
 *
 * SIB_PROBE_NOBODY=1 runs the probe as uid/gid 65534 with no groups.
 * Exit status: 0 done, 1 assertion failed, 2 usage or verbs error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/ether.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/ib_user_mad.h>

#define GSI_QKEY	0x80010000u
#define MAD_LEN		256
#define GRH_LEN		40
#define MAX_BATCH	60

static void die(const char *what)
{
	fprintf(stderr, "sib_probe: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "sib_probe: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
};

static void open_dev(struct ctx *c, const char *name, int max_wr,
		     size_t buf_len, uint32_t qkey)
{
	struct ibv_device **list;
	struct ibv_qp_attr attr;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	c->ctx = NULL;
	for (i = 0; i < n && !c->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			c->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!c->ctx)
		die(name);
	c->buf = calloc(1, buf_len);
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = c->pd ? ibv_create_cq(c->ctx, 2 * max_wr + 16, NULL, NULL, 0) :
			NULL;
	c->mr = c->cq && c->buf ? ibv_reg_mr(c->pd, c->buf, buf_len,
					     IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!c->mr)
		die("pd/cq/mr");
	c->qp = ibv_create_qp(c->pd, &(struct ibv_qp_init_attr){
		.send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = max_wr, .max_recv_wr = max_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	});
	if (!c->qp)
		die("ibv_create_qp");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
				     .qkey = qkey };
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("modify to INIT");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE))
		die("modify to RTR");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify to RTS");
}

static struct ibv_ah *lid_ah(struct ctx *c, uint16_t dlid, uint8_t path_bits)
{
	struct ibv_ah_attr attr = {
		.dlid = dlid, .port_num = 1, .src_path_bits = path_bits,
	};
	struct ibv_ah *ah = ibv_create_ah(c->pd, &attr);

	if (!ah)
		die("ibv_create_ah");
	return ah;
}

static int post_ud(struct ctx *c, struct ibv_ah *ah, uint32_t qpn,
		   uint32_t qkey, size_t off, size_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + off), .length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = qkey },
	}, *bad;

	return ibv_post_send(c->qp, &wr, &bad);
}

/* drain: poll up to @want completions for @ms; errors are printed */
static int drain(struct ctx *c, int want, int ms)
{
	uint64_t end = now_us() + ms * 1000ull;
	struct ibv_wc wc[16];
	int got = 0, n, i;

	while (got < want && now_us() < end) {
		n = ibv_poll_cq(c->cq, 16, wc);
		if (n < 0)
			die("poll");
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				fprintf(stderr, "wc %llu: %s\n",
					(unsigned long long)wc[i].wr_id,
					ibv_wc_status_str(wc[i].status));
		got += n;
		if (!n)
			usleep(100);
	}
	return got;
}

/* ---- SA MCMemberRecord Set / Delete ----------------------------------- */

static void put_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, 2);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static void build_mcm(uint8_t *mad, bool leave, uint64_t tid,
		      const uint8_t *mgid, const uint8_t *port_gid)
{
	/* component mask: MGID, PortGID, JoinState */
	uint64_t comp = (1ull << 0) | (1ull << 1) | (1ull << 16);
	uint8_t *rec = mad + 56;

	memset(mad, 0, MAD_LEN);
	mad[0] = 1;			/* base version */
	mad[1] = 0x03;			/* SA class */
	mad[2] = 2;			/* class version */
	mad[3] = leave ? 0x15 : 0x02;	/* Delete / Set */
	put_be64(mad + 8, tid);
	put_be16(mad + 16, 0x0038);	/* MCMemberRecord */
	put_be64(mad + 48, comp);
	memcpy(rec, mgid, 16);
	memcpy(rec + 16, port_gid, 16);
	rec[48] = 0x01;			/* JoinState: full member */
}

static int do_sa(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "dlid", 1, NULL, 'l' },
		{ "op", 1, NULL, 'o' }, { "count", 1, NULL, 'n' },
		{ "vary", 1, NULL, 'v' }, { "mgid-lo", 1, NULL, 'm' },
		{ "port-gid", 1, NULL, 'g' }, { "qp-qkey", 1, NULL, 'q' }, { }
	};
	const char *dev = NULL, *op = "join", *vary = "mgid", *pgid_str = NULL;
	unsigned int count = 1, mgid_lo = 0xdead, i, posted = 0, done = 0;
	uint32_t qp_qkey = 0x11111111;
	uint16_t dlid = 0;
	struct ctx c;
	struct ibv_ah *ah;
	uint8_t mgid[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff };
	uint8_t pgid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			     0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x00 };
	int opt;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'l': dlid = num(optarg); break;
		case 'o': op = optarg; break;
		case 'n': count = num(optarg); break;
		case 'v': vary = optarg; break;
		case 'm': mgid_lo = num(optarg); break;
		case 'g': pgid_str = optarg; break;
		case 'q': qp_qkey = num(optarg); break;
		default: return 2;
		}
	}
	if (!dev || !dlid)
		return 2;
	if (pgid_str && inet_pton(AF_INET6, pgid_str, pgid) != 1)
		return 2;
	open_dev(&c, dev, 64, 64 * MAD_LEN, qp_qkey);
	ah = lid_ah(&c, dlid, 0);
	for (i = 0; i < count; i++) {
		uint8_t *mad = (uint8_t *)c.buf + (i % 64) * MAD_LEN;

		if (!strcmp(vary, "mgid")) {
			put_be32(mgid + 12, mgid_lo + i);
		} else {
			put_be32(mgid + 12, mgid_lo);
			put_be32(pgid + 12, 0x01000000 | i);
		}
		build_mcm(mad, !strcmp(op, "leave"), 0x7e570000ull + i, mgid,
			  pgid);
		if (post_ud(&c, ah, 1, GSI_QKEY, (i % 64) * MAD_LEN, MAD_LEN, i))
			die("post");
		posted++;
		if (posted - done >= 32)
			done += drain(&c, 16, 2000);
		if (i % 8 == 7)
			usleep(3000);	/* let the remote MAD layer keep up */
	}
	done += drain(&c, posted - done, 5000);
	printf("sa: %s %u MADs (%s varies) to LID 0x%x, %u send completions\n",
	       op, count, vary, dlid, done);
	return done == posted ? 0 : 2;
}

/* ---- PMA: Set(PortCounters) and Set(PortCountersExtended) ------------- */

static int do_pma_reset(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "dlid", 1, NULL, 'l' },
		{ "qp-qkey", 1, NULL, 'q' }, { }
	};
	static const struct { uint16_t attr, sel; } set[] = {
		{ 0x0012, 0xffff },	/* PortCounters */
		{ 0x001d, 0x00ff },	/* PortCountersExtended */
	};
	uint32_t qp_qkey = 0x11111111;
	const char *dev = NULL;
	struct ibv_ah *ah;
	uint16_t dlid = 0;
	struct ctx c;
	int opt, i, got;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'l': dlid = num(optarg); break;
		case 'q': qp_qkey = num(optarg); break;
		default: return 2;
		}
	}
	if (!dev || !dlid)
		return 2;
	open_dev(&c, dev, 16, 2 * MAD_LEN, qp_qkey);
	ah = lid_ah(&c, dlid, 0);
	for (i = 0; i < 2; i++) {
		uint8_t *mad = (uint8_t *)c.buf + i * MAD_LEN;

		memset(mad, 0, MAD_LEN);
		mad[0] = 1;			/* base version */
		mad[1] = 0x04;			/* PerfMgt class */
		mad[2] = 1;			/* class version */
		mad[3] = 0x02;			/* Set */
		put_be64(mad + 8, 0x7e5a0000ull + i);
		put_be16(mad + 16, set[i].attr);
		mad[65] = 1;			/* PortSelect */
		put_be16(mad + 66, set[i].sel);	/* CounterSelect */
		if (post_ud(&c, ah, 1, GSI_QKEY, i * MAD_LEN, MAD_LEN, i))
			die("post");
	}
	got = drain(&c, 2, 5000);
	printf("pma-reset: 2 Sets to LID 0x%x QPN 1 from a QP with Q_Key 0x%x: %d completion(s)\n",
	       dlid, qp_qkey, got);
	return got == 2 ? 0 : 2;
}

/* ---- UD: Q_Keys and path bits ----------------------------------------- */

static int do_ud_send(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "dlid", 1, NULL, 'l' },
		{ "qpn", 1, NULL, 'p' }, { "qp-qkey", 1, NULL, 'q' },
		{ "wr-qkey", 1, NULL, 'w' }, { "path-bits", 1, NULL, 'b' },
		{ "count", 1, NULL, 'n' }, { }
	};
	uint32_t qp_qkey = 0x22222222, wr_qkey = 0x22222222;
	unsigned int bits = 0, count = 1, i;
	long qpn = -1;
	const char *dev = NULL;
	struct ibv_ah *ah;
	uint16_t dlid = 0;
	struct ctx c;
	int opt, got;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'l': dlid = num(optarg); break;
		case 'p': qpn = num(optarg); break;
		case 'q': qp_qkey = num(optarg); break;
		case 'w': wr_qkey = num(optarg); break;
		case 'b': bits = num(optarg); break;
		case 'n': count = num(optarg); break;
		default: return 2;
		}
	}
	if (!dev || !dlid || qpn < 0 || qpn > 0xffffff || !count)
		return 2;
	open_dev(&c, dev, 16, 64, qp_qkey);
	ah = lid_ah(&c, dlid, bits);
	memset(c.buf, 0x5a, 64);
	for (i = 0, got = 0; i < count; i++) {
		if (post_ud(&c, ah, qpn, wr_qkey, 0, 64, i))
			die("post");
		got += drain(&c, 1, 3000);
	}
	printf("ud-send: %u to LID 0x%x QPN %u, qp qkey 0x%x wr qkey 0x%x path bits 0x%x: %d completion(s)\n",
	       count, dlid, (unsigned int)qpn, qp_qkey, wr_qkey, bits, got);
	return got == (int)count ? 0 : 2;
}

static int do_ud_recv(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "qkey", 1, NULL, 'q' },
		{ "timeout", 1, NULL, 't' }, { "count", 1, NULL, 'n' }, { }
	};
	unsigned int timeout = 30, count = 1, got = 0;
	const char *dev = NULL;
	uint32_t qkey = 0x22222222;
	struct ibv_wc wc;
	struct ctx c;
	uint64_t end;
	int opt, i;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'q': qkey = num(optarg); break;
		case 't': timeout = num(optarg); break;
		case 'n': count = num(optarg); break;
		default: return 2;
		}
	}
	if (!dev || count > 16)
		return 2;
	open_dev(&c, dev, 16, 16 * (GRH_LEN + 64), qkey);
	for (i = 0; i < 16; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(c.buf + i * (GRH_LEN + 64)),
			.length = GRH_LEN + 64, .lkey = c.mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_recv(c.qp, &wr, &bad))
			die("post_recv");
	}
	printf("qpn %u\n", c.qp->qp_num);
	fflush(stdout);
	end = now_us() + timeout * 1000000ull;
	while (got < count && now_us() < end) {
		int n = ibv_poll_cq(c.cq, 1, &wc);

		if (n < 0)
			die("poll");
		if (!n) {
			usleep(1000);
			continue;
		}
		got++;
		printf("recv: status %s slid 0x%x src_qp %u\n",
		       ibv_wc_status_str(wc.status), wc.slid, wc.src_qp);
		fflush(stdout);
	}
	printf("received %u\n", got);
	return 0;
}

/* ---- multicast attach ------------------------------------------------- */

/*
 * N UD QPs attached to one multicast group (what N IPoIB interfaces of a
 * port do with the broadcast group): prints "attached K of N" and, if K <
 * N, the error of the first attach that failed.  Exit 0 when all were.
 */
static int do_mcast_attach(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "count", 1, NULL, 'n' }, { }
	};
	union ibv_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
					[14] = 0x12, [15] = 0x34 } };
	unsigned int count = 100, k;
	const char *dev = NULL;
	struct ibv_qp **qps;
	struct ctx c;
	int opt, err = 0;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': count = num(optarg); break;
		default: return 2;
		}
	}
	if (!dev || !count || count > 4096)
		return 2;
	open_dev(&c, dev, 1, 64, 0x22222222);
	qps = calloc(count, sizeof(*qps));
	if (!qps)
		die("calloc");
	for (k = 0; k < count; k++) {
		qps[k] = k ? ibv_create_qp(c.pd, &(struct ibv_qp_init_attr){
			.send_cq = c.cq, .recv_cq = c.cq, .qp_type = IBV_QPT_UD,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		}) : c.qp;
		if (!qps[k]) {
			err = errno;
			break;
		}
		err = ibv_attach_mcast(qps[k], &mgid, 0xc001);
		if (err)
			break;
	}
	printf("attached %u of %u\n", k, count);
	if (k < count)
		printf("attach %u: %s\n", k + 1, strerror(err));
	return k == count ? 0 : 1;
}

/* ---- SQE race --------------------------------------------------------- */

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		die("ibv_query_qp");
	return attr.qp_state;
}

static struct ibv_ah *gid_ah(struct ctx *c, int idx)
{
	struct ibv_ah_attr attr = { .is_global = 1, .port_num = 1 };
	union ibv_gid gid;
	struct ibv_ah *ah;

	if (ibv_query_gid(c->ctx, 1, idx, &gid))
		die("query_gid");
	attr.grh.dgid = gid;
	attr.grh.sgid_index = idx;
	attr.grh.hop_limit = 64;
	ah = ibv_create_ah(c->pd, &attr);
	if (!ah)
		die("ibv_create_ah");
	return ah;
}

static int resume(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .cur_qp_state = IBV_QPS_SQE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE);
}

/* one iteration; returns true if the QP ended in SQE with no new error */
static bool race_once(struct ctx *c, struct ibv_ah *bad_ah,
		      struct ibv_ah *good_ah, int batch, int it, int *fails)
{
	struct ibv_sge sge[MAX_BATCH + 1];
	struct ibv_send_wr wr[MAX_BATCH + 1], *bad;
	int got = 0, real_err = 0, err_after = 0, flush = 0, succ = 0, i;
	bool modified = false;
	enum ibv_qp_state st;
	uint64_t end;

	for (i = 0; i <= batch; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)c->buf,
					   .length = 32, .lkey = c->mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.next = i < batch ? &wr[i + 1] : NULL,
			.wr.ud = { .ah = i ? good_ah : bad_ah,
				   .remote_qpn = c->qp->qp_num,
				   .remote_qkey = 0x33333333 },
		};
	}
	if (ibv_post_send(c->qp, wr, &bad))
		die("post_send");
	end = now_us() + 5000000;
	while (got < batch + 1 && now_us() < end) {
		struct ibv_wc wc;

		if (ibv_poll_cq(c->cq, 1, &wc) != 1)
			continue;
		got++;
		if (wc.status == IBV_WC_SUCCESS) {
			succ++;
		} else if (wc.status == IBV_WC_WR_FLUSH_ERR) {
			flush++;
		} else {
			real_err++;
			if (modified) {
				err_after++;
			} else {
				/* as ib_mad_send_error(): at once */
				if (resume(c->qp))
					(*fails)++;
				modified = true;
			}
		}
	}
	if (got != batch + 1)
		printf("iter %d: only %d of %d completions\n", it, got,
		       batch + 1);
	st = qp_state(c->qp);
	if (st != IBV_QPS_RTS)
		resume(c->qp);
	if (modified && !err_after && st != IBV_QPS_RTS) {
		printf("iter %d: state %d after SQE->RTS with no later error (succ %d flush %d err %d)\n",
		       it, st, succ, flush, real_err);
		return true;
	}
	return false;
}

static int do_race(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "bad-gid-index", 1, NULL, 'b' },
		{ "iters", 1, NULL, 'i' }, { "batch", 1, NULL, 'n' }, { }
	};
	int bad_idx = -1, iters = 150, batch, opt, it, rc = 0;
	const char *dev = NULL, *blist = "40";
	struct ibv_ah *bad_ah, *good_ah;
	char *tok, *save, *bl;
	char line[16];
	struct ctx c;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'b': bad_idx = num(optarg); break;
		case 'i': iters = num(optarg); break;
		case 'n': blist = optarg; break;
		default: return 2;
		}
	}
	if (!dev || bad_idx < 0)
		return 2;
	open_dev(&c, dev, 64, 4096, 0x33333333);
	bad_ah = gid_ah(&c, bad_idx);
	good_ah = gid_ah(&c, 0);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;

	bl = strdup(blist);
	for (tok = strtok_r(bl, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int stuck = 0, fails = 0, resumed = 0;

		batch = num(tok);
		if (batch > MAX_BATCH)
			return 2;
		for (it = 0; it < iters; it++) {
			if (race_once(&c, bad_ah, good_ah, batch, it, &fails))
				stuck++;
			resumed++;
		}
		printf("sqe-race: batch %d: %d iterations, %d back in SQE with no new error, %d modify failures\n",
		       batch, resumed, stuck, fails);
		fflush(stdout);
		if (stuck || fails)
			rc = 1;
	}
	free(bl);
	return rc;
}

/* ---- RC retry count ----------------------------------------------------- */

static int do_rc_retry(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "dlid", 1, NULL, 'l' },
		{ "retry", 1, NULL, 'r' }, { "timeout-exp", 1, NULL, 't' },
		{ "wait", 1, NULL, 'w' }, { }
	};
	unsigned int retry = 7, timeout = 10, wait_s = 15;
	const char *dev = NULL;
	struct ibv_qp_attr attr;
	uint64_t t0, end;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { }, *bad;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	uint16_t dlid = 0;
	struct ctx c;
	int opt, n;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'l': dlid = num(optarg); break;
		case 'r': retry = num(optarg); break;
		case 't': timeout = num(optarg); break;
		case 'w': wait_s = num(optarg); break;
		default: return 2;
		}
	}
	if (!dev || !dlid || retry > 7 || timeout > 31)
		return 2;
	open_dev(&c, dev, 4, 64, 0x11111111);
	qp = ibv_create_qp(c.pd, &(struct ibv_qp_init_attr){
		.send_cq = c.cq, .recv_cq = c.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	});
	if (!qp)
		die("ibv_create_qp RC");
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1 };
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("RC to INIT");
	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = 0xabcde, .min_rnr_timer = 12,
		.ah_attr = { .dlid = dlid, .port_num = 1 },
	};
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RC to RTR");
	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .timeout = timeout,
		.retry_cnt = retry, .rnr_retry = 0,
	};
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("RC to RTS");
	sge = (struct ibv_sge){ .addr = (uintptr_t)c.buf, .length = 64,
				.lkey = c.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	t0 = now_us();
	if (ibv_post_send(qp, &wr, &bad))
		die("post RC send");
	end = t0 + wait_s * 1000000ull;
	while (now_us() < end) {
		n = ibv_poll_cq(c.cq, 1, &wc);
		if (n < 0)
			die("poll");
		if (!n) {
			usleep(1000);
			continue;
		}
		printf("rc-retry: retry count %u, timeout %u: %s after %llu ms\n",
		       retry, timeout, ibv_wc_status_str(wc.status),
		       (unsigned long long)(now_us() - t0) / 1000);
		return wc.status == IBV_WC_RETRY_EXC_ERR ? 0 : 1;
	}
	printf("rc-retry: retry count %u, timeout %u: no completion in %u s\n",
	       retry, timeout, wait_s);
	return 1;
}

/* ---- raw soft IB frames ------------------------------------------------ */

#define SIB_ETH_P	0x88b5

static int raw_socket(const char *ifname, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(SIB_ETH_P));

	if (fd < 0)
		die("socket");
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(SIB_ETH_P);
	sll->sll_ifindex = if_nametoindex(ifname);
	if (!sll->sll_ifindex)
		die(ifname);
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll)))
		die("bind");
	return fd;
}

/* the CRC-32 of IEEE 802.3, which the ICRC is (IBA 7.8.1) */
static uint32_t crc32_ieee(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffff;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

/*
 * The ICRC of a packet of @len bytes from its LRH, without a GRH: over
 * the packet with the variant fields (VL, BTH resv8a) all ones, stored
 * least significant byte first, as rxe computes it.
 */
static void raw_icrc(const uint8_t *pkt, size_t len, uint8_t *icrc)
{
	uint8_t m[64];
	uint32_t crc;

	memcpy(m, pkt, len);
	m[0] |= 0xf0;		/* VL */
	m[8 + 4] = 0xff;	/* BTH resv8a */
	crc = crc32_ieee(m, len);
	icrc[0] = crc;
	icrc[1] = crc >> 8;
	icrc[2] = crc >> 16;
	icrc[3] = crc >> 24;
}

static int do_raw(int argc, char **argv, bool send)
{
	static const struct option lopts[] = {
		{ "ifname", 1, NULL, 'i' }, { "dst-mac", 1, NULL, 'm' },
		{ "dlid", 1, NULL, 'l' }, { "slid", 1, NULL, 's' },
		{ "timeout", 1, NULL, 't' }, { "dqpn", 1, NULL, 'q' },
		{ "qkey", 1, NULL, 'k' }, { "pkey", 1, NULL, 'P' },
		{ "good-icrc", 0, NULL, 'g' }, { "count", 1, NULL, 'n' }, { }
	};
	const char *ifname = NULL, *mac = NULL;
	unsigned int dlid = 0, slid = 0, timeout = 10, count = 1, i;
	uint32_t qkey = GSI_QKEY, pkey = 0xffff;
	bool good_icrc = false;
	long dqpn = -1;
	struct sockaddr_ll sll;
	uint8_t f[1600];
	uint64_t end;
	int opt, fd;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'm': mac = optarg; break;
		case 'l': dlid = num(optarg); break;
		case 's': slid = num(optarg); break;
		case 't': timeout = num(optarg); break;
		case 'q': dqpn = num(optarg); break;
		case 'k': qkey = num(optarg); break;
		case 'P': pkey = num(optarg); break;
		case 'g': good_icrc = true; break;
		case 'n': count = num(optarg); break;
		default: return 2;
		}
	}
	if (!ifname || !dlid || (send && (!mac || !slid)) || pkey > 0xffff)
		return 2;
	fd = raw_socket(ifname, &sll);
	if (send) {
		struct ether_addr *ea = ether_aton(mac);
		uint8_t *p = f + 14;
		struct ifreq ifr = { };

		if (!ea)
			return 2;
		memset(f, 0, 64);
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		if (ioctl(fd, SIOCGIFHWADDR, &ifr))
			die("SIOCGIFHWADDR");
		memcpy(f, ea, 6);
		memcpy(f + 6, ifr.ifr_hwaddr.sa_data, 6);
		f[12] = SIB_ETH_P >> 8;
		f[13] = SIB_ETH_P & 0xff;
		/* LRH: VL 0, LVer 0, SL 0, LNH IBA local */
		p[0] = 0;
		p[1] = 2;
		put_be16(p + 2, dlid);
		put_be16(p + 4, 8);	/* LRH + BTH + DETH + ICRC, in words */
		put_be16(p + 6, slid);
		/* BTH: UD SEND only, P_Key P, QPN N (1) */
		p[8] = 0x64;
		put_be16(p + 10, pkey);
		put_be32(p + 12, dqpn >= 0 ? dqpn & 0xffffff : 1);
		/* DETH: Q_Key Q (the GSI Q_Key), source QP 1 */
		put_be32(p + 20, qkey);
		put_be32(p + 24, 1);
		if (good_icrc)
			raw_icrc(p, 28, p + 28);
		else
			put_be32(p + 28, 0xdeadbeef);	/* not the ICRC */
		memcpy(sll.sll_addr, ea, 6);
		sll.sll_halen = 6;
		for (i = 0; i < count; i++)
			if (sendto(fd, f, 60, 0, (struct sockaddr *)&sll,
				   sizeof(sll)) != 60)
				die("sendto");
		printf("raw-send: %u to LID 0x%x <- 0x%x QPN %ld P_Key 0x%x via %s, %s ICRC\n",
		       count, dlid, slid, dqpn >= 0 ? dqpn : 1, pkey, mac,
		       good_icrc ? "good" : "bad");
		return 0;
	}
	{
		struct packet_mreq mr = {
			.mr_ifindex = sll.sll_ifindex,
			.mr_type = PACKET_MR_PROMISC,
		};

		if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
			       sizeof(mr)))
			die("PACKET_MR_PROMISC");
	}
	/* what comes in from now on is seen: the caller may send */
	printf("listening\n");
	fflush(stdout);
	end = now_us() + timeout * 1000000ull;
	while (now_us() < end) {
		struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
		ssize_t n;

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, f, sizeof(f), 0);
		if (n < 14 + 8)
			continue;
		if ((unsigned int)(f[16] << 8 | f[17]) != dlid)
			continue;
		if (slid && (unsigned int)(f[20] << 8 | f[21]) != slid)
			continue;
		/* the BTH follows the LRH (LNH 2) or the GRH (LNH 3) */
		if (dqpn >= 0) {
			unsigned int bth = 14 + 8 + ((f[15] & 3) == 3 ? 40 : 0);

			if (n < (ssize_t)bth + 12 ||
			    (long)(f[bth + 5] << 16 | f[bth + 6] << 8 |
				   f[bth + 7]) != dqpn)
				continue;
		}
		printf("dst %s\n", ether_ntoa((struct ether_addr *)f));
		return 0;
	}
	printf("dst none\n");
	return 1;
}

/* ---- SMPs through ib_umad ----------------------------------------------- */

/* the umad device of port 1 of @dev */
static int umad_open(const char *dev)
{
	char path[128], name[64];
	FILE *f;
	int i;

	for (i = 0; i < 32; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_mad/umad%d/ibdev", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, dev))
			continue;
		snprintf(path, sizeof(path), "/dev/infiniband/umad%d", i);
		return open(path, O_RDWR);
	}
	errno = ENODEV;
	return -1;
}

static int do_smp(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", 1, NULL, 'd' }, { "dlid", 1, NULL, 'l' },
		{ "dr", 1, NULL, 'p' }, { "attr", 1, NULL, 'a' },
		{ "mod", 1, NULL, 'm' }, { "method", 1, NULL, 'M' },
		{ "class-version", 1, NULL, 'v' },
		{ "timeout-ms", 1, NULL, 't' }, { "port-state", 1, NULL, 's' },
		{ }
	};
	unsigned int attr = 0, mod = 0, method = 1, cver = 1, tmo = 1000;
	int state = -1, round;
	uint8_t pi[64];
	const char *dev = NULL, *dr = NULL;
	struct ib_user_mad_reg_req reg = { };
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_LEN];
	struct ib_user_mad *um = (struct ib_user_mad *)buf;
	uint8_t *mad = buf + sizeof(struct ib_user_mad);
	uint8_t path[80] = { };
	unsigned int hops = 0, i;
	struct pollfd pfd;
	uint16_t dlid = 0;
	int opt, fd, n;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'l': dlid = num(optarg); break;
		case 'p': dr = optarg; break;
		case 'a': attr = num(optarg); break;
		case 'm': mod = num(optarg); break;
		case 'M': method = num(optarg); break;
		case 'v': cver = num(optarg); break;
		case 't': tmo = num(optarg); break;
		case 's': state = num(optarg) & 0xf; attr = 0x15; break;
		default: return 2;
		}
	}
	if (!dev || !attr || !dlid == !dr)
		return 2;
	if (dr) {
		char *copy = strdup(dr), *tok, *save = NULL;

		/* "0,1,...": the first entry is the port itself */
		for (tok = strtok_r(copy, ",", &save), i = 0; tok;
		     tok = strtok_r(NULL, ",", &save), i++) {
			if (i >= sizeof(path))
				return 2;
			path[i] = num(tok);
		}
		free(copy);
		if (!i)
			return 2;
		hops = i - 1;
	}

	fd = umad_open(dev);
	if (fd < 0)
		die("umad device");
	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY))
		die("IB_USER_MAD_ENABLE_PKEY");
	reg.qpn = 0;
	reg.mgmt_class = dr ? 0x81 : 0x01;
	reg.mgmt_class_version = 1;
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &reg))
		die("IB_USER_MAD_REGISTER_AGENT");

	/* --port-state: round 0 gets the PortInfo, round 1 sets it */
	for (round = state < 0 ? 1 : 0; round < 2; round++) {
		memset(buf, 0, sizeof(buf));
		um->hdr.id = reg.id;
		um->hdr.timeout_ms = tmo;
		um->hdr.lid = htons(dr ? 0xffff : dlid);
		um->hdr.pkey_index = 0;
		mad[0] = 1;				/* base version */
		mad[1] = reg.mgmt_class;
		mad[2] = cver;
		mad[3] = method;
		/* TID, low half */
		put_be32(mad + 12, 0x5eb0 + getpid() + (round << 24));
		put_be16(mad + 16, attr);
		put_be32(mad + 20, mod);
		if (state >= 0 && round == 1) {
			mad[3] = 0x02;			/* Set */
			memcpy(mad + 64, pi, sizeof(pi));
			mad[64 + 32] = (mad[64 + 32] & 0xf0) | state;
			mad[64 + 33] &= 0x0f;		/* PortPhysicalState: no change */
		}
		if (dr) {
			mad[7] = hops;			/* hop count; hop pointer 0 */
			put_be16(mad + 32, 0xffff);	/* DrSLID */
			put_be16(mad + 34, 0xffff);	/* DrDLID */
			if (hops < 64)
				memcpy(mad + 128, path, hops + 1);
		}
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			printf("refused: %s\n", strerror(errno));
			return 3;
		}

		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, tmo + 2000) != 1) {
			printf("no answer\n");
			return 1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < (int)sizeof(struct ib_user_mad) + 64)
			die("read");
		if (um->hdr.status) {
			printf("no answer (%s)\n", strerror(um->hdr.status));
			return 1;
		}
		memcpy(pi, mad + 64, sizeof(pi));
	}
	printf("status 0x%04x\n", (mad[4] << 8 | mad[5]) & 0x7fff);
	printf("data");
	for (i = 0; i < 16; i++)
		printf(" %02x", mad[64 + i]);
	printf("\n");
	if (attr == 0x15)
		printf("portstate %u\n", mad[64 + 32] & 0xf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (getenv("SIB_PROBE_NOBODY")) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			die("drop privileges");
		fprintf(stderr, "sib_probe: running as uid %d euid %d\n",
			getuid(), geteuid());
	}
	if (!strcmp(argv[1], "sa"))
		return do_sa(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ud-recv"))
		return do_ud_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ud-send"))
		return do_ud_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "pma-reset"))
		return do_pma_reset(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rc-retry"))
		return do_rc_retry(argc - 1, argv + 1);
	if (!strcmp(argv[1], "raw-send"))
		return do_raw(argc - 1, argv + 1, true);
	if (!strcmp(argv[1], "sniff"))
		return do_raw(argc - 1, argv + 1, false);
	if (!strcmp(argv[1], "smp"))
		return do_smp(argc - 1, argv + 1);
	if (!strcmp(argv[1], "mcast-attach"))
		return do_mcast_attach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sqe-race"))
		return do_race(argc - 1, argv + 1);
	fprintf(stderr, "sib_probe: unknown command %s\n", argv[1]);
	return 2;
}
