// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Automatic path migration (IBA 17.2.8) of RC and UC QPs on soft InfiniBand
 * ports.  See "Automatic path migration" in
 * Documentation/infiniband/soft_ib.rst.
 *
 * The state of a QP is qp->attr.path_mig_state:
 *
 * MIGRATED: no usable alternate path; the QP sends MigReq = 1.
 * REARM:    an alternate path is loaded; the QP sends MigReq = 0 and
 *           becomes ARMED when a packet with MigReq = 0 (the peer rearmed
 *           too) arrives on the primary path.
 * ARMED:    the QP migrates to the alternate path when its retries on the
 *           primary path are exhausted (requester), or when a packet with
 *           MigReq = 1 arrives on the alternate path (responder: the peer
 *           migrated); either raises IB_EVENT_PATH_MIG.
 *
 * A path is a port of the device and an address vector from it: the
 * alternate path may leave from the other port of a two-port device, so
 * that a QP survives the loss of its port's link as on a dual-port HCA.
 * Migration makes the alternate path (address vector, port, P_Key index,
 * local ACK timeout) the primary one and leaves the QP MIGRATED; the
 * consumer loads a new alternate path and rearms.  The consumer can force
 * a migration by moving an ARMED QP to MIGRATED with modify QP.
 *
 * rxe_apm_chk_mig_state(), rxe_apm_rcv_verdict() and
 * rxe_apm_port_down_migrates() are the pure decisions, tested by
 * rxe_apm_kunit.c.
 */

#include <kunit/visibility.h>

#include "rxe.h"

/**
 * rxe_apm_chk_mig_state() - may modify QP move the migration state?
 * @cur: the QP's migration state
 * @next: the state asked for
 * @have_alt: the QP has (or is given in the same call) an alternate path
 *
 * The consumer may rearm a migrated QP, arm a rearmed one (the peer must
 * be armed too, as for every HCA that accepts ARMED), and force the
 * migration of an armed one.  An armed QP cannot go back to REARM and a
 * rearmed one cannot be migrated: it has not agreed on the alternate path
 * with its peer yet.
 *
 * Return: 0 or -EINVAL
 */
int rxe_apm_chk_mig_state(enum ib_mig_state cur, enum ib_mig_state next,
			  bool have_alt)
{
	switch (next) {
	case IB_MIG_MIGRATED:
		return cur == IB_MIG_REARM ? -EINVAL : 0;
	case IB_MIG_REARM:
		if (cur == IB_MIG_ARMED || !have_alt)
			return -EINVAL;
		return 0;
	case IB_MIG_ARMED:
		if (cur == IB_MIG_MIGRATED || !have_alt)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_chk_mig_state);

/**
 * rxe_apm_rcv_verdict() - what a received RC or UC packet does to its QP
 * @cur: the QP's migration state
 * @mig_req: the MigReq bit of the packet's BTH
 * @on_pri: the packet came on the QP's primary path
 * @on_alt: the packet came on the QP's alternate path
 *
 * Return: what to do with the packet (IBA 17.2.8, as qib and hfi1 do)
 */
enum rxe_apm_verdict rxe_apm_rcv_verdict(enum ib_mig_state cur, bool mig_req,
					 bool on_pri, bool on_alt)
{
	if (cur == IB_MIG_ARMED && mig_req)
		return on_alt ? RXE_APM_MIGRATE : RXE_APM_MIG_ERR;
	if (!on_pri)
		return RXE_APM_DROP;
	if (cur == IB_MIG_REARM && !mig_req)
		return RXE_APM_ARM;
	return RXE_APM_ACCEPT;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_rcv_verdict);

static bool rxe_apm_have_alt(struct rxe_qp *qp)
{
	return rxe_ib_av(&qp->alt_av)->dlid != 0;
}

/**
 * rxe_apm_chk_attr() - check the path migration attributes of modify QP
 * @qp: the QP, on a soft InfiniBand device
 * @attr: the attributes
 * @mask: what @attr sets
 *
 * Return: 0 or -EINVAL
 */
int rxe_apm_chk_attr(struct rxe_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	enum ib_mig_state cur = READ_ONCE(qp->attr.path_mig_state);
	bool new_alt = mask & IB_QP_ALT_PATH;

	if (new_alt) {
		if (qp_type(qp) != IB_QPT_RC && qp_type(qp) != IB_QPT_UC)
			return -EINVAL;
		if (attr->alt_pkey_index >=
		    rxe_port(rxe, RXE_PORT)->attr.pkey_tbl_len)
			return -EINVAL;
		if (rxe_ib_lid_is_mcast(rdma_ah_get_dlid(&attr->alt_ah_attr)))
			return -EINVAL;
		/* the alternate path leaves from the alternate port */
		if (rdma_ah_get_port_num(&attr->alt_ah_attr) !=
		    attr->alt_port_num)
			return -EINVAL;
		/* IBA 17.2.8: no new alternate path under an armed QP
		 * unless the same call migrates it
		 */
		if (cur == IB_MIG_ARMED &&
		    !((mask & IB_QP_PATH_MIG_STATE) &&
		      attr->path_mig_state == IB_MIG_MIGRATED))
			return -EINVAL;
	}

	if (mask & IB_QP_PATH_MIG_STATE) {
		if (qp_type(qp) != IB_QPT_RC && qp_type(qp) != IB_QPT_UC)
			return -EINVAL;
		return rxe_apm_chk_mig_state(cur, attr->path_mig_state,
					     new_alt || rxe_apm_have_alt(qp));
	}

	return 0;
}

static void rxe_apm_event(struct rxe_qp *qp, enum ib_event_type type)
{
	struct ib_event ev;

	if (!qp->ibqp.event_handler)
		return;

	ev.device = qp->ibqp.device;
	ev.element.qp = &qp->ibqp;
	ev.event = type;
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* Make the alternate path the primary one.  Caller holds qp->state_lock. */
static void __rxe_apm_migrate(struct rxe_qp *qp)
{
	unsigned long j;

	qp->pri_av = qp->alt_av;
	qp->attr.port_num = qp->attr.alt_port_num;
	qp->attr.pkey_index = qp->attr.alt_pkey_index;
	/*
	 * Only RC waits for ACKs: a UC QP has no retransmit timer (its
	 * alternate path may still carry a timeout, which modify QP takes).
	 */
	if (qp_type(qp) == IB_QPT_RC) {
		qp->attr.timeout = qp->attr.alt_timeout;
		if (!qp->attr.timeout) {
			qp->qp_timeout_jiffies = 0;
		} else {
			j = nsecs_to_jiffies(4096ULL << qp->attr.timeout);
			qp->qp_timeout_jiffies = j ? j : 1;
		}
	}
	WRITE_ONCE(qp->attr.path_mig_state, IB_MIG_MIGRATED);
	qp->apm_err_sent = 0;
	WRITE_ONCE(qp->apm_migrations, qp->apm_migrations + 1);
}

/**
 * rxe_apm_modify() - apply the path migration attributes of modify QP
 * @qp: the QP, on a soft InfiniBand device
 * @attr: the attributes, checked by rxe_apm_chk_attr()
 * @mask: what @attr sets
 *
 * Called after the other attributes (the alternate path included) are
 * stored.  Moving an ARMED QP to MIGRATED migrates it (a forced
 * migration: the consumer asked for it, so no event; the peer gets
 * IB_EVENT_PATH_MIG when the first packet on the new path reaches it).
 */
void rxe_apm_modify(struct rxe_qp *qp, struct ib_qp_attr *attr, int mask)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET) {
		WRITE_ONCE(qp->attr.path_mig_state, IB_MIG_MIGRATED);
		memset(&qp->alt_av, 0, sizeof(qp->alt_av));
	}
	if (mask & IB_QP_PATH_MIG_STATE) {
		if (attr->path_mig_state == IB_MIG_MIGRATED &&
		    qp->attr.path_mig_state == IB_MIG_ARMED) {
			__rxe_apm_migrate(qp);
			rxe_dbg_qp(qp, "migrated by modify QP\n");
		} else {
			WRITE_ONCE(qp->attr.path_mig_state,
				   attr->path_mig_state);
			qp->apm_err_sent = 0;
		}
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_modify);

/**
 * rxe_apm_retry_exhausted() - the requester ran out of retries
 * @qp: the QP, RC
 *
 * Context: the QP's send task.
 * Return: true when the QP was ARMED and is now on the alternate path (the
 *	caller retries there), false when the send must fail
 */
bool rxe_apm_retry_exhausted(struct rxe_qp *qp)
{
	unsigned long flags;
	bool migrated = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->attr.path_mig_state == IB_MIG_ARMED) {
		__rxe_apm_migrate(qp);
		/* the caller gives the new path its own count */
		qp->comp.apm_migrations = qp->apm_migrations;
		migrated = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (migrated) {
		rxe_dbg_qp(qp, "retries exhausted: migrated\n");
		rxe_apm_event(qp, IB_EVENT_PATH_MIG);
	}
	return migrated;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_retry_exhausted);

/**
 * rxe_apm_port_down_migrates() - does a QP migrate when a port goes down?
 * @type: the QP's type
 * @state: the QP's state
 * @mig: the QP's migration state
 * @port: the port of its primary path
 * @alt_port: the port of its alternate path
 * @down_port: the port that went down
 * @alt_state: the state of @alt_port (IB_PORT_NOP when it is no port of
 *	the device)
 *
 * An ARMED RC or UC QP in RTS whose primary path leaves from @down_port
 * migrates when its alternate path leaves from another port of the
 * device, which is ACTIVE.
 *
 * Return: true when the QP migrates, false when its retries decide
 */
bool rxe_apm_port_down_migrates(enum ib_qp_type type, enum ib_qp_state state,
				enum ib_mig_state mig, u32 port, u32 alt_port,
				u32 down_port, enum ib_port_state alt_state)
{
	if (type != IB_QPT_RC && type != IB_QPT_UC)
		return false;
	if (state != IB_QPS_RTS || mig != IB_MIG_ARMED)
		return false;
	if (port != down_port || alt_port == down_port)
		return false;
	return alt_state == IB_PORT_ACTIVE;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_port_down_migrates);

/**
 * rxe_apm_port_down() - migrate the QPs whose primary port went down
 * @rxe: a soft InfiniBand device
 * @port_num: its port that went down
 *
 * An ARMED RC or UC QP whose primary path leaves from @port_num moves to
 * its alternate path at once when that one leaves from another port, which
 * is ACTIVE: an HCA migrates when its primary path fails (IBA 17.2.8), and
 * a port that is down is a failed path, so the QP does not spend its
 * retries on it first.  An RC QP with requests outstanding resends them on
 * the new path at once (its retransmit timer is made to fire now), with
 * the new path's full retry count (rxe_apm_fresh_retries()).  The
 * consumer gets IB_EVENT_PATH_MIG, as when the retries run out.  A QP
 * whose alternate path leaves from the same port, or from one that is not
 * ACTIVE, stays: its retries decide, as before.
 *
 * Context: process, with the port's state already DOWN; the QPs' event
 * handlers run in atomic context, as they do on the receive path.
 */
void rxe_apm_port_down(struct rxe_dev *rxe, u32 port_num)
{
	struct rxe_pool_elem *elem;
	unsigned long index, flags;
	enum ib_port_state alt_state;
	bool migrated;
	struct rxe_qp *qp;
	u32 alt;

	rcu_read_lock();
	xa_for_each(&rxe->qp_pool.xa, index, elem) {
		if (!kref_get_unless_zero(&elem->ref_cnt))
			continue;
		qp = elem->obj;
		migrated = false;
		spin_lock_irqsave(&qp->state_lock, flags);
		alt = qp->attr.alt_port_num;
		alt_state = rdma_is_port_valid(&rxe->ib_dev, alt) ?
			    rxe_port(rxe, alt)->attr.state : IB_PORT_NOP;
		if (qp->valid &&
		    rxe_apm_port_down_migrates(qp_type(qp), qp_state(qp),
					       qp->attr.path_mig_state,
					       qp->attr.port_num, alt,
					       port_num, alt_state)) {
			__rxe_apm_migrate(qp);
			migrated = true;
			if (qp_type(qp) == IB_QPT_RC &&
			    timer_pending(&qp->retrans_timer))
				mod_timer(&qp->retrans_timer, jiffies);
		}
		spin_unlock_irqrestore(&qp->state_lock, flags);
		if (migrated) {
			rxe_dbg_qp(qp, "port %u down: migrated to port %u\n",
				   port_num, alt);
			rxe_apm_event(qp, IB_EVENT_PATH_MIG);
		}
		rxe_put(qp);
	}
	rcu_read_unlock();
}

/**
 * rxe_apm_fresh_retries() - a new path's retry count for a migrated QP
 * @qp: the QP, RC
 *
 * A QP that migrated since its retry count was last set, because the
 * peer asked for it (MigReq) or the consumer forced it, retries what is
 * outstanding on its new path with the full count: the retries spent on
 * the old path say nothing of the new one.  Without this, a request sent
 * just before the peer moved fails with IB_WC_RETRY_EXC_ERR once the old
 * path's count runs out, although the new path answers.
 *
 * Context: the QP's completer, before it counts a retry.
 */
void rxe_apm_fresh_retries(struct rxe_qp *qp)
{
	u32 n = READ_ONCE(qp->apm_migrations);

	if (n == qp->comp.apm_migrations)
		return;
	qp->comp.apm_migrations = n;
	qp->comp.retry_cnt = qp->attr.retry_cnt;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_fresh_retries);

/**
 * rxe_apm_rcv() - apply the migration rules to a received RC or UC packet
 * @qp: the QP, on a soft InfiniBand device
 * @mig_req: the packet's MigReq bit
 * @on_pri: it came on the primary path
 * @on_alt: it came on the alternate path
 *
 * Context: softirq.
 * Return: 0 to accept the packet, -EINVAL to drop it
 */
int rxe_apm_rcv(struct rxe_qp *qp, bool mig_req, bool on_pri, bool on_alt)
{
	enum rxe_apm_verdict v;
	enum ib_event_type ev;
	unsigned long flags;
	bool tell = false;

	/* the common case, without the lock */
	if (READ_ONCE(qp->attr.path_mig_state) == IB_MIG_MIGRATED)
		return on_pri ? 0 : -EINVAL;

	spin_lock_irqsave(&qp->state_lock, flags);
	v = rxe_apm_rcv_verdict(qp->attr.path_mig_state, mig_req, on_pri,
				on_alt);
	switch (v) {
	case RXE_APM_ARM:
		WRITE_ONCE(qp->attr.path_mig_state, IB_MIG_ARMED);
		break;
	case RXE_APM_MIGRATE:
		__rxe_apm_migrate(qp);
		ev = IB_EVENT_PATH_MIG;
		tell = true;
		break;
	case RXE_APM_MIG_ERR:
		/* the peer migrated to a path that is not our alternate
		 * one: tell the consumer once per arming
		 */
		if (!qp->apm_err_sent) {
			qp->apm_err_sent = 1;
			ev = IB_EVENT_PATH_MIG_ERR;
			tell = true;
		}
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (tell) {
		rxe_dbg_qp(qp, "%s\n", ev == IB_EVENT_PATH_MIG ?
			   "migrated by the peer" : "migration request refused");
		rxe_apm_event(qp, ev);
	}

	return v == RXE_APM_ACCEPT || v == RXE_APM_ARM ||
	       v == RXE_APM_MIGRATE ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_apm_rcv);

/*
 * Did the packet of @lrh, received on port @port_num, come from the far
 * end of the alternate path @av of port @alt_port?
 */
static bool rxe_apm_on_alt(const struct rxe_ib_lrh *lrh, u32 port_num,
			   struct rxe_av *av, u32 alt_port)
{
	const struct ib_grh *grh = (const struct ib_grh *)(lrh + 1);
	struct rxe_ib_av *iav = rxe_ib_av(av);

	if (port_num != alt_port)
		return false;
	if (!iav->dlid || be16_to_cpu(lrh->slid) != iav->dlid)
		return false;

	/* a path with a GRH: the packet's SGID is the path's DGID */
	if (iav->global &&
	    (rxe_ib_lrh_lnh(lrh) != IB_LNH_IBA_GLOBAL ||
	     memcmp(&grh->sgid, av->grh.dgid.raw, sizeof(grh->sgid))))
		return false;

	return true;
}

/**
 * rxe_apm_check_addr() - check the source of an RC or UC packet
 * @pkt: the received packet, network header at the LRH
 * @qp: its QP, on a soft InfiniBand device
 *
 * A packet must come on the QP's primary path (its port, and
 * rxe_ib_check_addr()), or on its alternate path when the peer migrated.
 * The QP may migrate here.
 *
 * Context: softirq.
 * Return: 0 when the packet is accepted, -EINVAL when it is dropped
 */
int rxe_apm_check_addr(struct rxe_pkt_info *pkt, struct rxe_qp *qp)
{
	struct sk_buff *skb = PKT_TO_SKB(pkt);
	const struct rxe_ib_lrh *lrh;
	bool on_pri, on_alt = false;

	lrh = (const struct rxe_ib_lrh *)skb_network_header(skb);
	if (READ_ONCE(qp->attr.path_mig_state) != IB_MIG_MIGRATED)
		on_alt = rxe_apm_on_alt(lrh, pkt->port_num, &qp->alt_av,
					READ_ONCE(qp->attr.alt_port_num));
	on_pri = pkt->port_num == READ_ONCE(qp->attr.port_num) &&
		 !rxe_ib_check_addr(pkt, qp);

	return rxe_apm_rcv(qp, bth_mig(pkt), on_pri, on_alt);
}
