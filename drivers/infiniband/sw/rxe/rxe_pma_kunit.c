// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the performance management agent of soft InfiniBand
 * ports: the MAD status of every kind of request, ClassPortInfo, the
 * encoding of PortCounters (its narrow counters stop at all ones) and
 * PortCountersExtended, and what a Set resets.
 */

#include <kunit/test.h>
#include <linux/unaligned.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "rxe.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define REPLY		(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)
#define PASS_ON		IB_MAD_RESULT_SUCCESS
#define GET		IB_MGMT_METHOD_GET
#define SET		IB_MGMT_METHOD_SET

static void pma_init(struct ib_pma_mad *pmp, u8 cver, u8 method, __be16 attr,
		     u32 mod, u8 port_select, __be16 sel)
{
	memset(pmp, 0, sizeof(*pmp));
	pmp->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	pmp->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	pmp->mad_hdr.class_version = cver;
	pmp->mad_hdr.method = method;
	pmp->mad_hdr.attr_id = attr;
	pmp->mad_hdr.attr_mod = cpu_to_be32(mod);
	pmp->mad_hdr.tid = cpu_to_be64(0x1122334455667788ULL);
	/* PortSelect and CounterSelect: the same place in both attributes */
	pmp->data[1] = port_select;
	memcpy(&pmp->data[2], &sel, sizeof(sel));
}

static int answer(const u64 *val, struct ib_pma_mad *in,
		  struct ib_pma_mad *out, u32 *reset)
{
	memset(out, 0xa5, sizeof(*out));
	*reset = 0xdead;
	return rxe_pma_answer(RXE_PORT, val, (struct ib_mad *)in,
			      (struct ib_mad *)out, reset);
}

struct rxe_pma_status_case {
	const char *name;
	u8 cver, method;
	u16 attr;
	u32 mod;
	u8 port;
	int ret;
	u16 status;
};

static const struct rxe_pma_status_case status_cases[] = {
	{ "get ClassPortInfo", 1, GET, 0x01, 0, 0, REPLY, 0 },
	{ "get ClassPortInfo modifier", 1, GET, 0x01, 1, 0, REPLY, 0x1c },
	{ "set ClassPortInfo", 1, SET, 0x01, 0, 0, REPLY, 0x0c },
	{ "get PortCounters port 1", 1, GET, 0x12, 0, 1, REPLY, 0 },
	{ "get PortCounters all ports", 1, GET, 0x12, 0, 0xff, REPLY, 0 },
	{ "get PortCounters port 0", 1, GET, 0x12, 0, 0, REPLY, 0x1c },
	{ "get PortCounters port 2", 1, GET, 0x12, 0, 2, REPLY, 0x1c },
	{ "get PortCounters modifier", 1, GET, 0x12, 1, 1, REPLY, 0x1c },
	{ "set PortCounters port 1", 1, SET, 0x12, 0, 1, REPLY, 0 },
	{ "set PortCounters port 2", 1, SET, 0x12, 0, 2, REPLY, 0x1c },
	{ "get PortCountersExt port 1", 1, GET, 0x1d, 0, 1, REPLY, 0 },
	{ "get PortCountersExt port 3", 1, GET, 0x1d, 0, 3, REPLY, 0x1c },
	{ "set PortCountersExt port 1", 1, SET, 0x1d, 0, 1, REPLY, 0 },
	{ "get PortSamplesControl", 1, GET, 0x10, 0, 1, REPLY, 0x0c },
	{ "set PortSamplesControl", 1, SET, 0x10, 0, 1, REPLY, 0x0c },
	{ "get attribute 0xffff", 1, GET, 0xffff, 0, 1, REPLY, 0x0c },
	{ "class version 2", 2, GET, 0x12, 0, 1, REPLY, 0x04 },
	{ "class version 0", 0, GET, 0x01, 0, 0, REPLY, 0x04 },
	{ "method Send", 1, 0x03, 0x12, 0, 1, REPLY, 0x08 },
	{ "method GetTable", 1, 0x12, 0x12, 0, 1, REPLY, 0x08 },
	{ "GetResp to the agents", 1, 0x81, 0x12, 0, 1, PASS_ON, 0 },
	{ "Trap to the agents", 1, 0x05, 0x01, 0, 0, PASS_ON, 0 },
};

static void status_case_desc(const struct rxe_pma_status_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(status, status_cases, status_case_desc);

static void rxe_pma_test_status(struct kunit *test)
{
	const struct rxe_pma_status_case *c = test->param_value;
	u64 val[RXE_PMA_NUM_COUNTERS] = { [RXE_PMA_XMIT_DATA] = 7 };
	struct ib_pma_mad in, out;
	u32 reset;
	int ret;

	pma_init(&in, c->cver, c->method, cpu_to_be16(c->attr), c->mod,
		 c->port, cpu_to_be16(0xffff));
	ret = answer(val, &in, &out, &reset);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret != REPLY) {
		/* nothing reset, nothing answered */
		KUNIT_EXPECT_EQ(test, reset, 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.mad_hdr.status), c->status);
	KUNIT_EXPECT_EQ(test, out.mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, out.mad_hdr.mgmt_class, IB_MGMT_CLASS_PERF_MGMT);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.mad_hdr.attr_id),
			be16_to_cpu(in.mad_hdr.attr_id));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out.mad_hdr.tid),
			be64_to_cpu(in.mad_hdr.tid));
	/* only a good Set resets anything */
	if (c->status || c->method != SET)
		KUNIT_EXPECT_EQ(test, reset, 0);
	else
		KUNIT_EXPECT_NE(test, reset, 0);
	/* an invalid request shows no counter values */
	if (c->status)
		KUNIT_EXPECT_TRUE(test, !memchr_inv(&out.data[4], 0,
						    sizeof(out.data) - 4));
}

static void rxe_pma_test_class_port_info(struct kunit *test)
{
	u64 val[RXE_PMA_NUM_COUNTERS] = {};
	struct ib_class_port_info *cpi;
	struct ib_pma_mad in, out;
	u32 reset;

	pma_init(&in, 1, GET, IB_PMA_CLASS_PORT_INFO, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	cpi = (struct ib_class_port_info *)out.data;
	KUNIT_EXPECT_EQ(test, cpi->base_version, 1);
	KUNIT_EXPECT_EQ(test, cpi->class_version, 1);
	/* what makes ib_core's sysfs show the 64-bit counters */
	KUNIT_EXPECT_TRUE(test, be16_to_cpu(cpi->capability_mask) &
				be16_to_cpu(IB_PMA_CLASS_CAP_EXT_WIDTH));
	KUNIT_EXPECT_FALSE(test, be16_to_cpu(cpi->capability_mask) &
				 be16_to_cpu(IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF));
	KUNIT_EXPECT_EQ(test, ib_get_cpi_resp_time(cpi), 18);
	KUNIT_EXPECT_EQ(test, reset, 0);
}

struct rxe_pma_sat_case {
	const char *name;
	enum rxe_pma_counter cnt;
	u64 val;
	unsigned int off, width;	/* in PortCounters' data */
	u64 want;
};

#define PC(f)	offsetof(struct ib_pma_portcounters, f)

static const struct rxe_pma_sat_case sat_cases[] = {
	{ "XmitData below 2^32", RXE_PMA_XMIT_DATA, 0xfffffffe,
	  PC(port_xmit_data), 32, 0xfffffffe },
	{ "XmitData 2^32 - 1", RXE_PMA_XMIT_DATA, 0xffffffff,
	  PC(port_xmit_data), 32, 0xffffffff },
	{ "XmitData 2^32 stops", RXE_PMA_XMIT_DATA, 0x100000000ULL,
	  PC(port_xmit_data), 32, 0xffffffff },
	{ "RcvData 2^40 stops", RXE_PMA_RCV_DATA, 1ULL << 40,
	  PC(port_rcv_data), 32, 0xffffffff },
	{ "XmitPkts 2^63 stops", RXE_PMA_XMIT_PKTS, 1ULL << 63,
	  PC(port_xmit_packets), 32, 0xffffffff },
	{ "RcvPkts 12345", RXE_PMA_RCV_PKTS, 12345,
	  PC(port_rcv_packets), 32, 12345 },
	{ "RcvErrors 0xffff", RXE_PMA_RCV_ERRORS, 0xffff,
	  PC(port_rcv_errors), 16, 0xffff },
	{ "RcvErrors 0x10000 stops", RXE_PMA_RCV_ERRORS, 0x10000,
	  PC(port_rcv_errors), 16, 0xffff },
	{ "XmitDiscards 0x12345 stops", RXE_PMA_XMIT_DISCARDS, 0x12345,
	  PC(port_xmit_discards), 16, 0xffff },
	{ "XmitDiscards 3", RXE_PMA_XMIT_DISCARDS, 3,
	  PC(port_xmit_discards), 16, 3 },
	{ "VL15Dropped 7", RXE_PMA_VL15_DROPPED, 7,
	  PC(vl15_dropped), 16, 7 },
	{ "VL15Dropped 0x10000 stops", RXE_PMA_VL15_DROPPED, 0x10000,
	  PC(vl15_dropped), 16, 0xffff },
	{ "LinkDowned 255", RXE_PMA_LINK_DOWNED, 255,
	  PC(link_downed_counter), 8, 255 },
	{ "LinkDowned 256 stops", RXE_PMA_LINK_DOWNED, 256,
	  PC(link_downed_counter), 8, 255 },
};

static void sat_case_desc(const struct rxe_pma_sat_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sat, sat_cases, sat_case_desc);

static u64 field(const u8 *p, unsigned int width)
{
	switch (width) {
	case 8:
		return *p;
	case 16:
		return get_unaligned_be16(p);
	case 32:
		return get_unaligned_be32(p);
	default:
		return get_unaligned_be64(p);
	}
}

/* one counter in PortCounters (saturated) and PortCountersExtended */
static void rxe_pma_test_saturation(struct kunit *test)
{
	const struct rxe_pma_sat_case *c = test->param_value;
	u64 val[RXE_PMA_NUM_COUNTERS] = {};
	struct ib_pma_portcounters_ext *x;
	struct ib_pma_mad in, out;
	u32 reset;

	val[c->cnt] = c->val;
	pma_init(&in, 1, GET, IB_PMA_PORT_COUNTERS, 0, 1, 0);
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.mad_hdr.status), 0);
	KUNIT_EXPECT_EQ(test, field(out.data + c->off, c->width), c->want);
	/* every other byte is 0, PortSelect excepted */
	KUNIT_EXPECT_EQ(test, out.data[1], 1);
	out.data[1] = 0;
	memset(out.data + c->off, 0, c->width / 8);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(out.data, 0, sizeof(out.data)));

	/* PortCountersExtended carries the data and packet counters whole */
	pma_init(&in, 1, GET, IB_PMA_PORT_COUNTERS_EXT, 0, 1, 0);
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	x = (struct ib_pma_portcounters_ext *)out.data;
	switch (c->cnt) {
	case RXE_PMA_XMIT_DATA:
		KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_xmit_data), c->val);
		break;
	case RXE_PMA_RCV_DATA:
		KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_rcv_data), c->val);
		break;
	case RXE_PMA_XMIT_PKTS:
		KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_xmit_packets),
				c->val);
		break;
	case RXE_PMA_RCV_PKTS:
		KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_rcv_packets),
				c->val);
		break;
	default:
		/* not in the extended attribute */
		KUNIT_EXPECT_TRUE(test, !memchr_inv(&out.data[8], 0,
						    sizeof(out.data) - 8));
		break;
	}
}

/* the extended counters each in its place */
static void rxe_pma_test_ext_fields(struct kunit *test)
{
	u64 val[RXE_PMA_NUM_COUNTERS];
	struct ib_pma_portcounters_ext *x;
	struct ib_pma_mad in, out;
	u32 reset;
	int i;

	for (i = 0; i < RXE_PMA_NUM_COUNTERS; i++)
		val[i] = 0x0100000000000000ULL * (i + 1) + i;
	pma_init(&in, 1, GET, IB_PMA_PORT_COUNTERS_EXT, 0, 1, 0);
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	x = (struct ib_pma_portcounters_ext *)out.data;
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_xmit_data),
			val[RXE_PMA_XMIT_DATA]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_rcv_data),
			val[RXE_PMA_RCV_DATA]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_xmit_packets),
			val[RXE_PMA_XMIT_PKTS]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_rcv_packets),
			val[RXE_PMA_RCV_PKTS]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_unicast_xmit_packets),
			val[RXE_PMA_UCAST_XMIT_PKTS]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_unicast_rcv_packets),
			val[RXE_PMA_UCAST_RCV_PKTS]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_multicast_xmit_packets),
			val[RXE_PMA_MCAST_XMIT_PKTS]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_multicast_rcv_packets),
			val[RXE_PMA_MCAST_RCV_PKTS]);
	KUNIT_EXPECT_EQ(test, x->port_select, 1);
}

/* a Set resets what its CounterSelect names, and the answer shows it */
static void rxe_pma_test_reset(struct kunit *test)
{
	u64 val[RXE_PMA_NUM_COUNTERS];
	struct ib_pma_portcounters *p;
	struct ib_pma_portcounters_ext *x;
	struct ib_pma_mad in, out;
	u32 reset;
	int i;

	for (i = 0; i < RXE_PMA_NUM_COUNTERS; i++)
		val[i] = 100 + i;

	/* a Get resets nothing */
	pma_init(&in, 1, GET, IB_PMA_PORT_COUNTERS, 0, 1,
		 cpu_to_be16(0xffff));
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, reset, 0);

	/* PortXmitData and PortRcvPkts */
	pma_init(&in, 1, SET, IB_PMA_PORT_COUNTERS, 0, 1,
		 IB_PMA_SEL_PORT_XMIT_DATA | IB_PMA_SEL_PORT_RCV_PACKETS);
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, reset,
			BIT(RXE_PMA_XMIT_DATA) | BIT(RXE_PMA_RCV_PKTS));
	p = (struct ib_pma_portcounters *)out.data;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.mad_hdr.status), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->counter_select),
			be16_to_cpu(IB_PMA_SEL_PORT_XMIT_DATA |
				    IB_PMA_SEL_PORT_RCV_PACKETS));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_xmit_data), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_rcv_packets), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_rcv_data),
			val[RXE_PMA_RCV_DATA]);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->port_xmit_packets),
			val[RXE_PMA_XMIT_PKTS]);
	KUNIT_EXPECT_EQ(test, p->link_downed_counter,
			val[RXE_PMA_LINK_DOWNED]);

	/* everything perfquery -r resets */
	pma_init(&in, 1, SET, IB_PMA_PORT_COUNTERS, 0, 0xff,
		 cpu_to_be16(0xffff));
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, reset,
			BIT(RXE_PMA_XMIT_DATA) | BIT(RXE_PMA_RCV_DATA) |
			BIT(RXE_PMA_XMIT_PKTS) | BIT(RXE_PMA_RCV_PKTS) |
			BIT(RXE_PMA_RCV_ERRORS) | BIT(RXE_PMA_XMIT_DISCARDS) |
			BIT(RXE_PMA_VL15_DROPPED) | BIT(RXE_PMA_LINK_DOWNED));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&out.data[4], 0,
					    sizeof(out.data) - 4));

	/* PortCountersExtended: its eight counters */
	pma_init(&in, 1, SET, IB_PMA_PORT_COUNTERS_EXT, 0, 1,
		 cpu_to_be16(0x00ff));
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, reset, GENMASK(RXE_PMA_MCAST_RCV_PKTS, 0));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&out.data[4], 0,
					    sizeof(out.data) - 4));

	/* the multicast receive counter only */
	pma_init(&in, 1, SET, IB_PMA_PORT_COUNTERS_EXT, 0, 1,
		 IB_PMA_SELX_PORT_MULTI_RCV_PACKETS);
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, reset, BIT(RXE_PMA_MCAST_RCV_PKTS));
	x = (struct ib_pma_portcounters_ext *)out.data;
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_multicast_rcv_packets), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(x->port_multicast_xmit_packets),
			val[RXE_PMA_MCAST_XMIT_PKTS]);

	/* a Set for another port resets nothing */
	pma_init(&in, 1, SET, IB_PMA_PORT_COUNTERS, 0, 2,
		 cpu_to_be16(0xffff));
	KUNIT_ASSERT_EQ(test, answer(val, &in, &out, &reset), REPLY);
	KUNIT_EXPECT_EQ(test, reset, 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.mad_hdr.status), 0x1c);
}

/* a MAD for the second port of a two-port device names that port */
struct rxe_pma_port_case {
	const char *name;
	u32 port_num;
	u8 port_select;
	u16 status;
};

static const struct rxe_pma_port_case port_cases[] = {
	{ "port 2 on port 2", 2, 2, 0 },
	{ "all ports on port 2", 2, 0xff, 0 },
	{ "port 1 on port 2", 2, 1, 0x1c },
	{ "port 2 on port 1", 1, 2, 0x1c },
	{ "port 3 on port 2", 2, 3, 0x1c },
};

KUNIT_ARRAY_PARAM_DESC(port, port_cases, name);

static void rxe_pma_test_port(struct kunit *test)
{
	const struct rxe_pma_port_case *c = test->param_value;
	u64 val[RXE_PMA_NUM_COUNTERS] = { [RXE_PMA_XMIT_PKTS] = 9 };
	struct ib_pma_portcounters_ext *x;
	struct ib_pma_mad in, out;
	u32 reset;

	pma_init(&in, 1, SET, IB_PMA_PORT_COUNTERS_EXT, 0, c->port_select,
		 cpu_to_be16(0xffff));
	KUNIT_ASSERT_EQ(test, rxe_pma_answer(c->port_num, val,
					     (struct ib_mad *)&in,
					     (struct ib_mad *)&out, &reset),
			REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.mad_hdr.status), c->status);
	x = (struct ib_pma_portcounters_ext *)out.data;
	KUNIT_EXPECT_EQ(test, x->port_select, c->port_select);
	/* a refused Set resets nothing */
	KUNIT_EXPECT_EQ(test, !reset, !!c->status);
}

static struct kunit_case rxe_pma_test_cases[] = {
	KUNIT_CASE_PARAM(rxe_pma_test_status, status_gen_params),
	KUNIT_CASE(rxe_pma_test_class_port_info),
	KUNIT_CASE_PARAM(rxe_pma_test_saturation, sat_gen_params),
	KUNIT_CASE(rxe_pma_test_ext_fields),
	KUNIT_CASE(rxe_pma_test_reset),
	KUNIT_CASE_PARAM(rxe_pma_test_port, port_gen_params),
	{}
};

static struct kunit_suite rxe_pma_test_suite = {
	.name = "rxe_pma",
	.test_cases = rxe_pma_test_cases,
};

kunit_test_suite(rxe_pma_test_suite);

MODULE_DESCRIPTION("KUnit tests for the soft InfiniBand performance management agent");
MODULE_LICENSE("Dual BSD/GPL");
