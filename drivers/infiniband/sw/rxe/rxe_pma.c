// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Soft InfiniBand: the performance management agent (PMA) of a soft IB
 * port.
 *
 * The MAD layer offers every MAD the port receives on QP1 to the device's
 * process_mad op, and ib_core's sysfs reads the port's counters
 * (ports/1/counters/) through the same op.  The PMA answers the
 * Performance Management class (IBA 16.1) with what the port counted on
 * the wire (enum rxe_ib_counter) and rxe's link downed counter:
 * ClassPortInfo, PortCounters (its narrow counters stop at all ones, as
 * IBA 16.1.3.5 says) and PortCountersExtended (64 bits, wrapping).  A Set
 * of either resets the counters its CounterSelect names; both attributes
 * show the same counters, so a reset through one shows in the other, as
 * on qib.  The counters themselves only grow: a reset records their
 * values, which the PMA subtracts from then on, so rxe's hw_counters are
 * unaffected.  Like every GSI class the PMA is protected by the GSI Q_Key,
 * which only a privileged consumer may send with.
 * See Documentation/infiniband/soft_ib.rst.
 */

#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <kunit/visibility.h>

#include "rxe.h"
#include "rxe_loc.h"

/* 4.096 us * 2^18 = 1 s, the response time qib reports */
#define RXE_PMA_RESP_TIME	18

#define RXE_PMA_BAD_VERSION	cpu_to_be16(IB_MGMT_MAD_STATUS_BAD_VERSION)
#define RXE_PMA_UNSUP_METHOD	cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD)
#define RXE_PMA_UNSUP_METH_ATTR	\
	cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB)
#define RXE_PMA_INVALID_FIELD	\
	cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE)

/* the PortSelect of every port (AllPortSelect) */
#define RXE_PMA_ALL_PORTS	0xff

/* the counters each CounterSelect bit names, PortCounters ... */
struct rxe_pma_sel {
	__be16 sel;
	enum rxe_pma_counter cnt;
};

static const struct rxe_pma_sel rxe_pma_sel[] = {
	{ IB_PMA_SEL_LINK_DOWNED, RXE_PMA_LINK_DOWNED },
	{ IB_PMA_SEL_PORT_RCV_ERRORS, RXE_PMA_RCV_ERRORS },
	{ IB_PMA_SEL_PORT_XMIT_DISCARDS, RXE_PMA_XMIT_DISCARDS },
	{ IB_PMA_SEL_PORT_VL15_DROPPED, RXE_PMA_VL15_DROPPED },
	{ IB_PMA_SEL_PORT_XMIT_DATA, RXE_PMA_XMIT_DATA },
	{ IB_PMA_SEL_PORT_RCV_DATA, RXE_PMA_RCV_DATA },
	{ IB_PMA_SEL_PORT_XMIT_PACKETS, RXE_PMA_XMIT_PKTS },
	{ IB_PMA_SEL_PORT_RCV_PACKETS, RXE_PMA_RCV_PKTS },
}, rxe_pma_selx[] = {	/* ... and PortCountersExtended */
	{ IB_PMA_SELX_PORT_XMIT_DATA, RXE_PMA_XMIT_DATA },
	{ IB_PMA_SELX_PORT_RCV_DATA, RXE_PMA_RCV_DATA },
	{ IB_PMA_SELX_PORT_XMIT_PACKETS, RXE_PMA_XMIT_PKTS },
	{ IB_PMA_SELX_PORT_RCV_PACKETS, RXE_PMA_RCV_PKTS },
	{ IB_PMA_SELX_PORT_UNI_XMIT_PACKETS, RXE_PMA_UCAST_XMIT_PKTS },
	{ IB_PMA_SELX_PORT_UNI_RCV_PACKETS, RXE_PMA_UCAST_RCV_PKTS },
	{ IB_PMA_SELX_PORT_MULTI_XMIT_PACKETS, RXE_PMA_MCAST_XMIT_PKTS },
	{ IB_PMA_SELX_PORT_MULTI_RCV_PACKETS, RXE_PMA_MCAST_RCV_PKTS },
};

static u8 rxe_pma_sat8(u64 v)
{
	return min_t(u64, v, U8_MAX);
}

static __be16 rxe_pma_sat16(u64 v)
{
	return cpu_to_be16(min_t(u64, v, U16_MAX));
}

static __be32 rxe_pma_sat32(u64 v)
{
	return cpu_to_be32(min_t(u64, v, U32_MAX));
}

static int rxe_pma_reply(struct ib_pma_mad *pmp, __be16 status)
{
	pmp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	pmp->mad_hdr.status |= status;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

static int rxe_pma_class_port_info(struct ib_pma_mad *pmp)
{
	struct ib_class_port_info *cpi = (struct ib_class_port_info *)pmp->data;

	memset(pmp->data, 0, sizeof(pmp->data));
	if (pmp->mad_hdr.attr_mod)
		return rxe_pma_reply(pmp, RXE_PMA_INVALID_FIELD);

	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	/* 64-bit data and packet counters, unicast and multicast too */
	cpi->capability_mask = IB_PMA_CLASS_CAP_ALLPORTSELECT |
			       IB_PMA_CLASS_CAP_EXT_WIDTH;
	cpi->cap_mask2_resp_time = cpu_to_be32(RXE_PMA_RESP_TIME);
	return rxe_pma_reply(pmp, 0);
}

/* the port a PortCounters(Extended) names: the one the MAD is for, or
 * all of them
 */
static bool rxe_pma_port_ok(const struct ib_pma_mad *pmp, u8 port_select,
			    u32 port_num)
{
	return !pmp->mad_hdr.attr_mod &&
	       (port_select == port_num || port_select == RXE_PMA_ALL_PORTS);
}

/*
 * The values a PortCounters(Extended) answer carries: the port's, but 0
 * for the counters a Set's CounterSelect names, which are marked in
 * *reset for the caller to reset.
 */
static void rxe_pma_values(const struct ib_pma_mad *pmp, __be16 sel,
			   const struct rxe_pma_sel *tab, size_t n,
			   const u64 *val, u64 *v, u32 *reset)
{
	size_t i;

	memcpy(v, val, RXE_PMA_NUM_COUNTERS * sizeof(*v));
	if (pmp->mad_hdr.method != IB_MGMT_METHOD_SET)
		return;
	for (i = 0; i < n; i++) {
		if (!(sel & tab[i].sel))
			continue;
		*reset |= BIT(tab[i].cnt);
		v[tab[i].cnt] = 0;
	}
}

static int rxe_pma_port_counters(struct ib_pma_mad *pmp, u32 port_num,
				 const u64 *val, u32 *reset)
{
	struct ib_pma_portcounters *p = (void *)pmp->data;
	u8 port_select = p->port_select;
	__be16 sel = p->counter_select;
	u64 v[RXE_PMA_NUM_COUNTERS];

	memset(pmp->data, 0, sizeof(pmp->data));
	p->port_select = port_select;
	if (!rxe_pma_port_ok(pmp, port_select, port_num))
		return rxe_pma_reply(pmp, RXE_PMA_INVALID_FIELD);

	if (pmp->mad_hdr.method == IB_MGMT_METHOD_SET)
		p->counter_select = sel;
	rxe_pma_values(pmp, sel, rxe_pma_sel, ARRAY_SIZE(rxe_pma_sel), val, v, reset);

	/*
	 * The counters a soft port has.  The others stay 0, as nothing they
	 * count can happen to it: symbol errors, link error recoveries,
	 * local link integrity errors and buffer overruns are events of
	 * physical lanes and link-level flow control, which a soft port does
	 * not have (its netdevice's own errors never reach it); remote
	 * physical and switch relay errors and constraint errors are about
	 * switch ports; and it never waits for link credits (PortXmitWait).
	 */
	p->link_downed_counter = rxe_pma_sat8(v[RXE_PMA_LINK_DOWNED]);
	p->port_rcv_errors = rxe_pma_sat16(v[RXE_PMA_RCV_ERRORS]);
	p->port_xmit_discards = rxe_pma_sat16(v[RXE_PMA_XMIT_DISCARDS]);
	p->vl15_dropped = rxe_pma_sat16(v[RXE_PMA_VL15_DROPPED]);
	p->port_xmit_data = rxe_pma_sat32(v[RXE_PMA_XMIT_DATA]);
	p->port_rcv_data = rxe_pma_sat32(v[RXE_PMA_RCV_DATA]);
	p->port_xmit_packets = rxe_pma_sat32(v[RXE_PMA_XMIT_PKTS]);
	p->port_rcv_packets = rxe_pma_sat32(v[RXE_PMA_RCV_PKTS]);
	return rxe_pma_reply(pmp, 0);
}

static int rxe_pma_port_counters_ext(struct ib_pma_mad *pmp, u32 port_num,
				     const u64 *val, u32 *reset)
{
	struct ib_pma_portcounters_ext *p = (void *)pmp->data;
	u8 port_select = p->port_select;
	__be16 sel = p->counter_select;
	u64 v[RXE_PMA_NUM_COUNTERS];

	memset(pmp->data, 0, sizeof(pmp->data));
	p->port_select = port_select;
	if (!rxe_pma_port_ok(pmp, port_select, port_num))
		return rxe_pma_reply(pmp, RXE_PMA_INVALID_FIELD);

	if (pmp->mad_hdr.method == IB_MGMT_METHOD_SET)
		p->counter_select = sel;
	rxe_pma_values(pmp, sel, rxe_pma_selx, ARRAY_SIZE(rxe_pma_selx), val,
		       v, reset);

	p->port_xmit_data = cpu_to_be64(v[RXE_PMA_XMIT_DATA]);
	p->port_rcv_data = cpu_to_be64(v[RXE_PMA_RCV_DATA]);
	p->port_xmit_packets = cpu_to_be64(v[RXE_PMA_XMIT_PKTS]);
	p->port_rcv_packets = cpu_to_be64(v[RXE_PMA_RCV_PKTS]);
	p->port_unicast_xmit_packets = cpu_to_be64(v[RXE_PMA_UCAST_XMIT_PKTS]);
	p->port_unicast_rcv_packets = cpu_to_be64(v[RXE_PMA_UCAST_RCV_PKTS]);
	p->port_multicast_xmit_packets =
		cpu_to_be64(v[RXE_PMA_MCAST_XMIT_PKTS]);
	p->port_multicast_rcv_packets = cpu_to_be64(v[RXE_PMA_MCAST_RCV_PKTS]);
	return rxe_pma_reply(pmp, 0);
}

/**
 * rxe_pma_answer() - the PMA's answer to a Performance Management MAD
 * @port_num: the port the MAD is for
 * @val: the counters since their last reset, enum rxe_pma_counter: those
 *	of the port, or of every port for a PortSelect of 0xFF
 * @in: the MAD, of the Performance Management class
 * @out: the answer, when there is one
 * @reset: set to the counters (BIT(enum rxe_pma_counter)) a Set resets;
 *	@out already shows them reset
 *
 * Context: any.
 * Return: IB_MAD_RESULT_* flags as the process_mad op returns them:
 * SUCCESS | REPLY with the answer in @out, SUCCESS for a MAD the PMA
 * leaves to the MAD agents (responses and traps).
 */
VISIBLE_IF_KUNIT int rxe_pma_answer(u32 port_num, const u64 *val,
				    const struct ib_mad *in, struct ib_mad *out,
				    u32 *reset)
{
	struct ib_pma_mad *pmp = (struct ib_pma_mad *)out;

	*reset = 0;
	/* the agents take the responses (perfquery's) and the traps */
	if (in->mad_hdr.method & IB_MGMT_METHOD_RESP ||
	    in->mad_hdr.method == IB_MGMT_METHOD_TRAP)
		return IB_MAD_RESULT_SUCCESS;

	*out = *in;
	if (pmp->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    pmp->mad_hdr.class_version != 1)
		return rxe_pma_reply(pmp, RXE_PMA_BAD_VERSION);

	switch (pmp->mad_hdr.method) {
	case IB_MGMT_METHOD_GET:
		switch (pmp->mad_hdr.attr_id) {
		case IB_PMA_CLASS_PORT_INFO:
			return rxe_pma_class_port_info(pmp);
		case IB_PMA_PORT_COUNTERS:
			return rxe_pma_port_counters(pmp, port_num, val, reset);
		case IB_PMA_PORT_COUNTERS_EXT:
			return rxe_pma_port_counters_ext(pmp, port_num, val, reset);
		default:
			return rxe_pma_reply(pmp, RXE_PMA_UNSUP_METH_ATTR);
		}
	case IB_MGMT_METHOD_SET:
		switch (pmp->mad_hdr.attr_id) {
		case IB_PMA_PORT_COUNTERS:
			return rxe_pma_port_counters(pmp, port_num, val, reset);
		case IB_PMA_PORT_COUNTERS_EXT:
			return rxe_pma_port_counters_ext(pmp, port_num, val, reset);
		default:
			return rxe_pma_reply(pmp, RXE_PMA_UNSUP_METH_ATTR);
		}
	default:
		return rxe_pma_reply(pmp, RXE_PMA_UNSUP_METHOD);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pma_answer);

/* the raw values of a port's counters: they only grow */
static void rxe_pma_read_raw(struct rxe_dev *rxe, u32 port_num, u64 *raw)
{
	static const enum rxe_ib_counter ib_cnt[RXE_PMA_LINK_DOWNED] = {
		[RXE_PMA_XMIT_DATA] = RXE_IB_CNT_XMIT_WORDS,
		[RXE_PMA_RCV_DATA] = RXE_IB_CNT_RCV_WORDS,
		[RXE_PMA_XMIT_PKTS] = RXE_IB_CNT_XMIT_PKTS,
		[RXE_PMA_RCV_PKTS] = RXE_IB_CNT_RCV_PKTS,
		[RXE_PMA_UCAST_XMIT_PKTS] = RXE_IB_CNT_UCAST_XMIT_PKTS,
		[RXE_PMA_UCAST_RCV_PKTS] = RXE_IB_CNT_UCAST_RCV_PKTS,
		[RXE_PMA_MCAST_XMIT_PKTS] = RXE_IB_CNT_MCAST_XMIT_PKTS,
		[RXE_PMA_MCAST_RCV_PKTS] = RXE_IB_CNT_MCAST_RCV_PKTS,
		[RXE_PMA_RCV_ERRORS] = RXE_IB_CNT_RCV_ERRORS,
		[RXE_PMA_XMIT_DISCARDS] = RXE_IB_CNT_XMIT_DISCARDS,
		[RXE_PMA_VL15_DROPPED] = RXE_IB_CNT_VL15_DROPPED,
	};
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);
	int i;

	for (i = 0; i < RXE_PMA_LINK_DOWNED; i++)
		raw[i] = atomic64_read(&ib->counters[ib_cnt[i]]);
	raw[RXE_PMA_LINK_DOWNED] =
		atomic64_read(&ib->counters[RXE_IB_CNT_LINK_DOWNED]);
}

/*
 * The process_mad op of a soft IB device: Performance Management MADs
 * for the PMA, the rest for the SMA (rxe_sma.c).  Also what ib_core's
 * sysfs port counters read, with no work completion.  A PortSelect of
 * 0xFF (AllPortSelect) reads, and resets, the sums of every port's
 * counters.
 */
static int rxe_pma_process_mad(struct ib_device *ibdev, int mad_flags,
			       u32 port_num, const struct ib_wc *in_wc,
			       const struct ib_grh *in_grh,
			       const struct ib_mad *in, struct ib_mad *out,
			       size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	u64 raw[RXE_IB_MAX_PORTS][RXE_PMA_NUM_COUNTERS];
	struct rxe_dev *rxe = to_rdev(ibdev);
	u64 val[RXE_PMA_NUM_COUNTERS] = {};
	u32 first, last, n, reset;
	struct rxe_port *port;
	unsigned long flags;
	int i, ret;

	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return rxe_sma_process_mad(ibdev, mad_flags, port_num, in_wc,
					   in_grh, in, out, out_mad_size,
					   out_mad_pkey_index);
	if (!rdma_is_port_valid(ibdev, port_num))
		return IB_MAD_RESULT_FAILURE;

	/* PortSelect, the second byte of PortCounters(Extended) */
	first = port_num;
	last = port_num;
	if (((const struct ib_pma_mad *)in)->data[1] == RXE_PMA_ALL_PORTS) {
		first = 1;
		last = rxe_ib_num_ports(rxe);
	}

	for (n = first; n <= last; n++) {
		port = rxe_port(rxe, n);
		spin_lock_irqsave(&port->port_lock, flags);
		rxe_pma_read_raw(rxe, n, raw[n - 1]);
		for (i = 0; i < RXE_PMA_NUM_COUNTERS; i++)
			val[i] += raw[n - 1][i] - port->pma_zero[i];
		spin_unlock_irqrestore(&port->port_lock, flags);
	}

	ret = rxe_pma_answer(port_num, val, in, out, &reset);

	for (n = first; reset && n <= last; n++) {
		port = rxe_port(rxe, n);
		spin_lock_irqsave(&port->port_lock, flags);
		for (i = 0; i < RXE_PMA_NUM_COUNTERS; i++)
			if (reset & BIT(i))
				port->pma_zero[i] = raw[n - 1][i];
		spin_unlock_irqrestore(&port->port_lock, flags);
	}

	return ret;
}

static const struct ib_device_ops rxe_pma_dev_ops = {
	.process_mad = rxe_pma_process_mad,
};

/**
 * rxe_pma_set_device_ops() - give a soft IB device its PMA
 * @rxe: the device, a soft IB device not registered yet
 *
 * The PMA's process_mad op hands what is not its own on to the SMA's:
 * set it before rxe_sma_set_device_ops(), which then sets nothing.
 */
void rxe_pma_set_device_ops(struct rxe_dev *rxe)
{
	ib_set_device_ops(&rxe->ib_dev, &rxe_pma_dev_ops);
}
