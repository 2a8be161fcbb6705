// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Soft InfiniBand: the P_Key table of a soft IB port (IBA 10.9).
 *
 * Each port has RXE_IB_PKEY_TBL_LEN entries, one SMP block; index 0 holds
 * the default P_Key 0xFFFF when the port is created.  A subnet manager
 * sets the table with SubnSet(PKeyTable) (rxe_sma.c), tests without one
 * through debugfs ports/N/pkey (rxe_ib.c); a change raises
 * IB_EVENT_PKEY_CHANGE.
 *
 * The packets a QP sends carry the entry of its P_Key index (QP1: the
 * index of the work request; QP0: the default P_Key).  A packet is
 * received when its P_Key matches an entry of the port's table, and then,
 * except for QP0 and QP1, the entry of the receiving QP's P_Key index;
 * otherwise it is dropped and counted in the port's P_KeyViolations.  A
 * packet from the wire is checked against the port's table once its ICRC
 * checked out; QP1 takes the entry that check found.
 *
 * rxe_pkey_match() and rxe_pkey_find() are the pure rules; they and the
 * table are tested by rxe_sma_kunit.c.
 */

#include <kunit/visibility.h>

#include "rxe.h"
#include "rxe_loc.h"

/**
 * rxe_pkey_valid() - whether a P_Key names a partition
 * @pkey: the P_Key
 *
 * 0x0000 and 0x8000 (partition 0) are invalid P_Keys (IBA 10.9.1.2); an
 * empty table entry holds 0x0000.
 *
 * Return: true for a valid P_Key
 */
bool rxe_pkey_valid(u16 pkey)
{
	return pkey & 0x7fff;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_valid);

/**
 * rxe_pkey_match() - the P_Key match of IBA 10.9.3
 * @a: a P_Key
 * @b: another
 *
 * Two P_Keys match when both are valid, their low 15 bits (the partition)
 * are equal and at least one of them is a full member's (bit 15 set): two
 * limited members of a partition cannot talk to each other.
 *
 * Return: true when they match
 */
bool rxe_pkey_match(u16 a, u16 b)
{
	return rxe_pkey_valid(a) && !((a ^ b) & 0x7fff) && ((a | b) & 0x8000);
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_match);

/**
 * rxe_pkey_find() - the entry of a P_Key table that a P_Key matches
 * @tbl: the table
 * @len: its number of entries
 * @pkey: the P_Key of a packet
 *
 * Return: the index of the first entry @pkey matches, or -ENOENT
 */
int rxe_pkey_find(const u16 *tbl, unsigned int len, u16 pkey)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (rxe_pkey_match(READ_ONCE(tbl[i]), pkey))
			return i;

	return -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_find);

/**
 * rxe_pkey_get() - an entry of the P_Key table of a port
 * @rxe: the device, soft IB
 * @port_num: a valid port of @rxe
 * @index: the entry
 *
 * Return: the P_Key, 0 for an empty entry or an index beyond the table
 */
u16 rxe_pkey_get(struct rxe_dev *rxe, u32 port_num, u16 index)
{
	if (index >= RXE_IB_PKEY_TBL_LEN)
		return 0;

	return READ_ONCE(rxe_ib_port(rxe, port_num)->pkeys[index]);
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_get);

/**
 * rxe_pkey_held() - the entry of a port's table for a partition
 * @rxe: the device, soft IB
 * @port_num: a valid port of @rxe
 * @pkey: a P_Key
 *
 * Return: the port's entry whose partition (low 15 bits) is that of
 * @pkey, a full member's preferred, as ib_find_pkey() chooses; 0 when the
 * port is no member of the partition or @pkey is invalid
 */
u16 rxe_pkey_held(struct rxe_dev *rxe, u32 port_num, u16 pkey)
{
	u16 have, found = 0;
	unsigned int i;

	if (!rxe_pkey_valid(pkey))
		return 0;

	for (i = 0; i < RXE_IB_PKEY_TBL_LEN; i++) {
		have = rxe_pkey_get(rxe, port_num, i);
		if ((have ^ pkey) & 0x7fff)
			continue;
		if (have & 0x8000)
			return have;
		found = have;
	}

	return found;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_held);

/**
 * rxe_pkey_first() - the first valid entry of a port's P_Key table
 * @rxe: the device, soft IB
 * @port_num: a valid port of @rxe
 *
 * Return: the P_Key, 0 when the table holds none
 */
u16 rxe_pkey_first(struct rxe_dev *rxe, u32 port_num)
{
	unsigned int i;
	u16 pkey;

	for (i = 0; i < RXE_IB_PKEY_TBL_LEN; i++) {
		pkey = rxe_pkey_get(rxe, port_num, i);
		if (rxe_pkey_valid(pkey))
			return pkey;
	}

	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_first);

/*
 * Raise IB_EVENT_PKEY_CHANGE on a registered device: ib_core refreshes
 * its P_Key cache, IPoIB brings its child interfaces up or down.
 */
static void rxe_pkey_event(struct rxe_dev *rxe, u32 port_num)
{
	struct ib_event ev = {
		.device = &rxe->ib_dev,
		.element.port_num = port_num,
		.event = IB_EVENT_PKEY_CHANGE,
	};

	/* a device that is not registered (KUnit's) has no one to tell */
	if (!ib_device_try_get(&rxe->ib_dev))
		return;
	ib_dispatch_event(&ev);
	ib_device_put(&rxe->ib_dev);
}

/**
 * rxe_pkey_set() - set entries of the P_Key table of a port
 * @rxe: the device, soft IB
 * @port_num: a valid port of @rxe
 * @first: the first entry to set
 * @pkeys: the P_Keys, 0 for an empty entry
 * @n: how many; @first + @n must not exceed RXE_IB_PKEY_TBL_LEN
 *
 * Raises IB_EVENT_PKEY_CHANGE when an entry changed.  The packets of a QP
 * whose entry changed carry the new P_Key from then on.
 *
 * Return: true when an entry changed
 */
bool rxe_pkey_set(struct rxe_dev *rxe, u32 port_num, unsigned int first,
		  const u16 *pkeys, unsigned int n)
{
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);
	bool changed = false;
	unsigned long flags;
	unsigned int i;

	if (WARN_ON(first > RXE_IB_PKEY_TBL_LEN ||
		    n > RXE_IB_PKEY_TBL_LEN - first))
		return false;

	spin_lock_irqsave(&ib->pkey_lock, flags);
	for (i = 0; i < n; i++) {
		if (ib->pkeys[first + i] == pkeys[i])
			continue;
		WRITE_ONCE(ib->pkeys[first + i], pkeys[i]);
		changed = true;
	}
	spin_unlock_irqrestore(&ib->pkey_lock, flags);

	if (changed)
		rxe_pkey_event(rxe, port_num);
	return changed;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_set);

/**
 * rxe_pkey_init() - give a port its P_Key table: the default P_Key alone
 * @rxe: the device, soft IB, not registered yet
 * @port_num: a port of @rxe
 */
void rxe_pkey_init(struct rxe_dev *rxe, u32 port_num)
{
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);

	spin_lock_init(&ib->pkey_lock);
	memset(ib->pkeys, 0, sizeof(ib->pkeys));
	ib->pkeys[0] = IB_DEFAULT_PKEY_FULL;
	rxe_port(rxe, port_num)->attr.pkey_tbl_len = RXE_IB_PKEY_TBL_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_init);

/**
 * rxe_pkey_query() - the query_pkey op of a soft IB device
 * @ibdev: the device
 * @port_num: the port
 * @index: the entry
 * @pkey: gets the entry's P_Key, 0 when empty
 *
 * Return: 0, or -EINVAL for an index beyond the table
 */
int rxe_pkey_query(struct ib_device *ibdev, u32 port_num, u16 index,
		   u16 *pkey)
{
	if (!rdma_is_port_valid(ibdev, port_num) ||
	    index >= RXE_IB_PKEY_TBL_LEN)
		return -EINVAL;

	*pkey = rxe_pkey_get(to_rdev(ibdev), port_num, index);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_pkey_query);

/* a P_Key index a QP may use on @port_num: in the table, not empty */
static bool rxe_pkey_index_ok(struct rxe_dev *rxe, u32 port_num, u16 index)
{
	return rxe_pkey_valid(rxe_pkey_get(rxe, port_num, index));
}

/**
 * rxe_pkey_chk_qp_attr() - check the P_Key indices of modify QP
 * @qp: the QP, on a soft IB device
 * @attr: the attributes
 * @mask: what @attr sets
 *
 * A P_Key index (and an alternate one) must name a valid entry of the
 * table of its port.  QP0 and QP1 use the P_Key of each work request.
 *
 * Return: 0 or -EINVAL
 */
int rxe_pkey_chk_qp_attr(struct rxe_qp *qp, struct ib_qp_attr *attr,
			 int mask)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	u32 port_num = mask & IB_QP_PORT ? attr->port_num : qp->attr.port_num;

	if (qp_type(qp) == IB_QPT_SMI || qp_type(qp) == IB_QPT_GSI)
		return 0;

	if (mask & IB_QP_PKEY_INDEX &&
	    !rxe_pkey_index_ok(rxe, port_num, attr->pkey_index))
		return -EINVAL;
	if (mask & IB_QP_ALT_PATH &&
	    !rxe_pkey_index_ok(rxe, attr->alt_port_num, attr->alt_pkey_index))
		return -EINVAL;

	return 0;
}

/**
 * rxe_pkey_send() - the P_Key of a packet a soft IB port sends
 * @pkt: the packet, its BTH built
 *
 * Return: the P_Key for its BTH: the default P_Key for QP0, the entry of
 * the work request's P_Key index for QP1, else the entry of the QP's
 * P_Key index on the port the packet leaves from (0 when the entry was
 * emptied since: the peer drops the packet).
 */
u16 rxe_pkey_send(struct rxe_pkt_info *pkt)
{
	struct rxe_qp *qp = pkt->qp;
	u16 index;

	if (!qp)
		return bth_pkey(pkt);

	switch (qp_type(qp)) {
	case IB_QPT_SMI:
		return IB_DEFAULT_PKEY_FULL;
	case IB_QPT_GSI:
		/* QP1 only sends requests, each from its work request */
		index = pkt->wqe ? pkt->wqe->wr.wr.ud.pkey_index : 0;
		break;
	default:
		index = qp->attr.pkey_index;
		break;
	}

	return rxe_pkey_get(pkt->rxe, pkt->port_num, index);
}

/* count a P_Key violation, as rxe_recv.c does for a QP's */
static void rxe_pkey_violation(struct rxe_dev *rxe, u32 port_num)
{
	struct rxe_port *port = rxe_port(rxe, port_num);

	spin_lock_bh(&port->port_lock);
	port->attr.bad_pkey_cntr = min_t(u32, 0xffff,
					 port->attr.bad_pkey_cntr + 1);
	spin_unlock_bh(&port->port_lock);
}

/**
 * rxe_pkey_port_rcv_ok() - whether a port takes a packet from the wire
 * @pkt: the packet, its BTH in reach
 *
 * A packet whose P_Key matches no entry of the port's table is counted in
 * the port's P_KeyViolations and reported to the port's SM in a trap
 * (rxe_sma_trap_bad_pkey()); SMPs to QP0 are exempt (IBA 10.9.3).  The
 * caller checked the packet's ICRC: a corrupted P_Key is a receive error,
 * not a violation.  The index of the entry found becomes the packet's,
 * which QP1 keeps (rxe_pkey_check()).
 *
 * Context: softirq.
 * Return: true when the packet may go on to its QP
 */
bool rxe_pkey_port_rcv_ok(struct rxe_pkt_info *pkt)
{
	struct rxe_ib_port *ib = rxe_ib_port(pkt->rxe, pkt->port_num);
	int index = 0;

	if (bth_qpn(pkt) != 0)
		index = rxe_pkey_find(ib->pkeys, RXE_IB_PKEY_TBL_LEN,
				      bth_pkey(pkt));
	if (index >= 0) {
		pkt->pkey_index = index;
		return true;
	}

	rxe_pkey_violation(pkt->rxe, pkt->port_num);
	rxe_sma_trap_bad_pkey(pkt);
	return false;
}

/**
 * rxe_pkey_check() - the P_Key check of a packet for a QP
 * @pkt: the packet
 * @qp: the QP it is for
 *
 * QP0 takes any P_Key; QP1 a P_Key that matches an entry of the port's
 * table, whose index becomes the packet's; other QPs a P_Key that matches
 * the entry of their P_Key index.  A packet from the wire passed the
 * port's check (rxe_pkey_port_rcv_ok()), which found QP1's entry: only a
 * packet looped back within the port is looked up here.  The caller
 * counts a violation.
 *
 * Return: 0 or -EINVAL
 */
int rxe_pkey_check(struct rxe_pkt_info *pkt, struct rxe_qp *qp)
{
	struct rxe_ib_port *ib = rxe_ib_port(pkt->rxe, pkt->port_num);
	u16 pkey = bth_pkey(pkt);
	int index;

	switch (qp_type(qp)) {
	case IB_QPT_SMI:
		pkt->pkey_index = 0;
		return 0;
	case IB_QPT_GSI:
		if (!(pkt->mask & RXE_LOOPBACK_MASK))
			return 0;
		index = rxe_pkey_find(ib->pkeys, RXE_IB_PKEY_TBL_LEN, pkey);
		if (index < 0)
			return -EINVAL;
		pkt->pkey_index = index;
		return 0;
	default:
		if (!rxe_pkey_match(rxe_pkey_get(pkt->rxe, pkt->port_num,
						 qp->attr.pkey_index), pkey))
			return -EINVAL;
		pkt->pkey_index = qp->attr.pkey_index;
		return 0;
	}
}
