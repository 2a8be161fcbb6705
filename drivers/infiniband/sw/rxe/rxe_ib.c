// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Soft InfiniBand: the InfiniBand link layer mode of rxe, a test device.
 *
 * Each port presents an InfiniBand link layer (LID, SM LID, P_Key table,
 * GID 0 = fe80::/64 + port GUID) and the packets are native IB packets
 * (LRH, optional GRH, BTH, ...) carried in Ethernet frames of EtherType
 * 0x88B5 on the port's own netdevice.  A device has one port, or two
 * (sib_ports=2), the second given its netdevice by a second "rdma link
 * add" of the same device name.  See Documentation/infiniband/soft_ib.rst.
 */

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_hdrs.h>
#include <rdma/rdma_netlink.h>

#include "rxe.h"
#include "rxe_loc.h"

/**
 * struct rxe_ib_neigh - a learned peer
 * @mac: the peer's MAC address
 * @rcu: for kfree_rcu()
 */
struct rxe_ib_neigh {
	u8		mac[ETH_ALEN];
	struct rcu_head	rcu;
};

/**
 * rxe_ib_lid_from_guid() - the LID of a port, derived from its GUID
 * @guid: port GUID
 *
 * The low 16 bits of the GUID (the last two bytes of the MAC address for
 * an EUI-64 GUID) when they are a unicast LID, else folded into the
 * unicast range.  Every node computes the same LID for a GUID.
 *
 * Return: a unicast LID, 0x0001-0xBFFF
 */
u16 rxe_ib_lid_from_guid(__be64 guid)
{
	u16 v = be64_to_cpu(guid) & 0xffff;

	if (v >= 1 && v <= RXE_IB_LID_UCAST_MAX)
		return v;

	return v % RXE_IB_LID_UCAST_MAX + 1;
}

/* record @mac for @lid, replacing the MAC address the LID had */
static void rxe_ib_neigh_learn(struct rxe_ib_port *ib, u16 lid, const u8 *mac)
{
	struct rxe_ib_neigh *n, *old;
	unsigned long index;
	bool known;

	rcu_read_lock();
	n = xa_load(&ib->neigh, lid);
	known = n && ether_addr_equal(n->mac, mac);
	rcu_read_unlock();
	if (known)
		return;

	n = kmalloc(sizeof(*n), GFP_ATOMIC);
	if (!n)
		return;
	ether_addr_copy(n->mac, mac);

	old = xa_store_bh(&ib->neigh, lid, n, GFP_ATOMIC);
	if (xa_is_err(old)) {
		kfree(n);
		return;
	}
	if (old)
		kfree_rcu(old, rcu);

	/* a port that moved its LID (a collision) is known by its new one */
	xa_lock_bh(&ib->neigh);
	xa_for_each(&ib->neigh, index, old) {
		if (index != lid && ether_addr_equal(old->mac, mac)) {
			__xa_erase(&ib->neigh, index);
			kfree_rcu(old, rcu);
		}
	}
	xa_unlock_bh(&ib->neigh);
}

/**
 * rxe_ib_lid_to_gid() - the port GID of a peer a port has learned
 * @rxe: the device
 * @port_num: the port
 * @lid: the peer's LID
 * @gid: the peer's GID 0: the subnet prefix and the EUI-64 of its MAC
 *	address, which is how a sib port makes its GUID
 *
 * Return: true when @lid is a learned peer
 */
bool rxe_ib_lid_to_gid(struct rxe_dev *rxe, u32 port_num, u16 lid,
		       union ib_gid *gid)
{
	struct rxe_ib_neigh *n;
	u8 mac[ETH_ALEN];

	rcu_read_lock();
	n = xa_load(&rxe_ib_port(rxe, port_num)->neigh, lid);
	if (n)
		ether_addr_copy(mac, n->mac);
	rcu_read_unlock();
	if (!n)
		return false;

	gid->global.subnet_prefix = rxe_port(rxe, port_num)->subnet_prefix;
	addrconf_addr_eui48((u8 *)&gid->global.interface_id, mac);
	return true;
}

/**
 * rxe_ib_gid_to_lid() - the LID of a peer a port has learned, by its GID
 * @rxe: the device
 * @port_num: the port
 * @gid: the peer's GID 0
 * @lid: its LID, when found
 *
 * A peer's LID is the one derived from its GUID unless that LID was taken
 * by another port first (rxe_ib_lid_collision()): then frames from the peer
 * taught its LID.
 *
 * Return: true when a frame from the MAC address behind @gid taught its LID
 */
bool rxe_ib_gid_to_lid(struct rxe_dev *rxe, u32 port_num,
		       const union ib_gid *gid, u16 *lid)
{
	const u8 *eui = (const u8 *)&gid->global.interface_id;
	struct rxe_ib_neigh *n;
	unsigned long index;
	u8 mac[ETH_ALEN];
	bool found = false;

	if (eui[3] != 0xff || eui[4] != 0xfe)
		return false;
	mac[0] = eui[0] ^ 2;
	mac[1] = eui[1];
	mac[2] = eui[2];
	mac[3] = eui[5];
	mac[4] = eui[6];
	mac[5] = eui[7];

	rcu_read_lock();
	xa_for_each(&rxe_ib_port(rxe, port_num)->neigh, index, n) {
		if (ether_addr_equal(n->mac, mac)) {
			*lid = index;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * Step between the LIDs a port tries when another port uses its LID: prime
 * to the number of unicast LIDs, so that every LID is tried in turn.
 */
#define RXE_IB_LID_STEP	0x1f1f

/**
 * rxe_ib_dispatch() - Tell the clients of a port of @rxe of an event
 * @rxe: the device
 * @port_num: its port
 * @type: the event
 *
 * Context: any; ib_dispatch_event() defers the handlers to a work item.
 */
void rxe_ib_dispatch(struct rxe_dev *rxe, u32 port_num,
		     enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &rxe->ib_dev,
		.element.port_num = port_num,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/**
 * rxe_ib_set_lid() - Give a port another unicast LID, with no SM's say
 * @rxe: the device
 * @port_num: its port
 * @lid: the LID, 1-RXE_IB_LID_UCAST_MAX
 *
 * What a subnet manager's SubnSet(PortInfo) does to the port's LID, for
 * the moves no SM asked for: a LID collision (rxe_ib_lid_collision()),
 * a test's knob.  A port that is its own SM (no subnet manager, rxe_sa.c)
 * moves its SM LID with it.  When the LID changed, the port's clients are
 * told (IB_EVENT_LID_CHANGE: ib_sa moves its SM address, IPoIB rejoins and
 * resolves its paths again); peers learn the new LID from the frames that
 * carry it.
 *
 * Context: any.
 * Return: the port's LID before.
 */
u16 rxe_ib_set_lid(struct rxe_dev *rxe, u32 port_num, u16 lid)
{
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);
	struct rxe_port *port = rxe_port(rxe, port_num);
	unsigned long flags;
	u16 old;

	spin_lock_irqsave(&ib->lid_lock, flags);
	old = ib->lid;
	WRITE_ONCE(ib->lid, lid);
	WRITE_ONCE(port->attr.lid, lid);
	/* with no subnet manager the port is its own SM (rxe_sa.c) */
	if (port->attr.sm_lid == old)
		WRITE_ONCE(port->attr.sm_lid, lid);
	spin_unlock_irqrestore(&ib->lid_lock, flags);

	if (old != lid)
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_LID_CHANGE);
	return old;
}

/*
 * Another port, at MAC address @mac, sent a frame that passed the ICRC
 * check with this port's LID as its SLID: two MAC addresses gave the same
 * LID (see rxe_ib_lid_from_guid()).  Each of the two ports sees the
 * other's frames; the one with the higher MAC address moves to a LID that
 * no learned peer uses, as an SM would have assigned it, and tells its
 * clients (IB_EVENT_LID_CHANGE: ib_sa moves its SM address, IPoIB rejoins
 * and resolves its paths again); the other keeps its LID.  Peers learn the
 * new LID from the frames that carry it.
 * Context: softirq.
 */
static void rxe_ib_lid_collision(struct rxe_dev *rxe, u32 port_num,
				 const u8 *mac)
{
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);
	u16 old, lid;

	if (memcmp(ib->ndev->dev_addr, mac, ETH_ALEN) < 0) {
		rxe_err_dev(rxe, "LID 0x%x of %s is also used by %pM, whose port moves\n",
			    READ_ONCE(ib->lid), ib->ndev->name, mac);
		return;
	}

	old = READ_ONCE(ib->lid);
	lid = old;
	do {
		lid = (lid - 1 + RXE_IB_LID_STEP) % RXE_IB_LID_UCAST_MAX + 1;
	} while (lid != old && xa_load(&ib->neigh, lid));
	old = rxe_ib_set_lid(rxe, port_num, lid);
	rxe_err_dev(rxe, "LID 0x%x of %s is also used by %pM: moved to LID 0x%x\n",
		    old, ib->ndev->name, mac, lid);
}

/* whether the packet @pkt of @skb, its headers set, has a valid ICRC */
static bool rxe_ib_icrc_ok(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	pkt->opcode = bth_opcode(pkt);
	if (!rxe_opcode[pkt->opcode].mask || !rxe_opcode[pkt->opcode].length)
		return false;
	pkt->mask |= rxe_opcode[pkt->opcode].mask;
	if (pkt->paylen < header_size(pkt) + bth_pad(pkt) + RXE_ICRC_SIZE)
		return false;

	return !rxe_icrc_check(skb, pkt);
}

/*
 * The destination MAC address of a packet to @dlid, see soft_ib.rst: only
 * what a frame from @dlid showed, never a guess from a GID (the peer's MAC
 * may have changed since its GUID was made, and a GID may come from anyone).
 */
static void rxe_ib_dmac(struct rxe_ib_port *ib, u16 dlid, u8 *dmac)
{
	struct rxe_ib_neigh *n;

	if (!rxe_ib_lid_is_mcast(dlid)) {
		rcu_read_lock();
		n = xa_load(&ib->neigh, dlid);
		if (n)
			ether_addr_copy(dmac, n->mac);
		rcu_read_unlock();
		if (n)
			return;
	}

	eth_broadcast_addr(dmac);
}

/* port attributes and verbs */

static int rxe_ib_query_port(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attr *attr)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	struct net_device *ndev;

	if (!rdma_is_port_valid(ibdev, port_num))
		return -EINVAL;

	memcpy(attr, &rxe_port(rxe, port_num)->attr, sizeof(*attr));

	/* INIT and ARMED: the link is up, the SM has not activated it yet;
	 * a port with no netdevice yet is a port with no cable
	 */
	ndev = READ_ONCE(rxe_ib_port(rxe, port_num)->ndev);
	if (attr->state >= IB_PORT_INIT)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (ndev && (dev_get_flags(ndev) & IFF_UP) &&
		 !READ_ONCE(rxe_ib_port(rxe, port_num)->link_disabled))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;

	return 0;
}

static int rxe_ib_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			    union ib_gid *gid)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	struct rxe_port *port;

	if (!rdma_is_port_valid(ibdev, port_num) || index != 0)
		return -EINVAL;

	port = rxe_port(rxe, port_num);
	gid->global.subnet_prefix = port->subnet_prefix;
	gid->global.interface_id = port->port_guid;
	return 0;
}

static enum rdma_link_layer rxe_ib_get_link_layer(struct ib_device *ibdev,
						  u32 port_num)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int rxe_ib_port_immutable(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_immutable *immutable)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	struct rxe_port *port;

	if (!rdma_is_port_valid(ibdev, port_num))
		return -EINVAL;

	port = rxe_port(rxe, port_num);
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->pkey_tbl_len = port->attr.pkey_tbl_len;
	immutable->gid_tbl_len = port->attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/* Taken before the RoCE ops of rxe, which fill in only what is left. */
static const struct ib_device_ops rxe_ib_dev_ops = {
	.get_link_layer = rxe_ib_get_link_layer,
	.get_port_immutable = rxe_ib_port_immutable,
	.query_gid = rxe_ib_query_gid,
	.query_pkey = rxe_pkey_query,
	.query_port = rxe_ib_query_port,
};

void rxe_ib_set_device_ops(struct rxe_dev *rxe)
{
	ib_set_device_ops(&rxe->ib_dev, &rxe_ib_dev_ops);
}

/*
 * sib_ports=2: soft IB devices created from then on have two ports.  The
 * first is on the netdevice "rdma link add" names; the second is DOWN,
 * with no netdevice and no GUID, until a second "rdma link add" of the
 * same device name gives it one (rxe_ib_newlink()), as a cable plugged
 * into the second port of an HCA.
 */
static uint sib_ports = 1;
module_param(sib_ports, uint, 0644);
MODULE_PARM_DESC(sib_ports,
		 "ports of the soft InfiniBand devices created from now on, 1 (default) or 2; ports beyond the first get their netdevice from another rdma link add of the device");

/* the largest IB MTU @ndev_mtu carries, as rxe_set_mtu() has it */
static void rxe_ib_set_mtu(struct rxe_dev *rxe, u32 port_num,
			   unsigned int ndev_mtu)
{
	struct rxe_port *port = rxe_port(rxe, port_num);
	enum ib_mtu mtu = eth_mtu_int_to_enum(ndev_mtu);

	mtu = mtu ? min_t(enum ib_mtu, mtu, IB_MTU_4096) : IB_MTU_256;
	port->attr.active_mtu = mtu;
	port->mtu_cap = ib_mtu_enum_to_int(mtu);
}

/*
 * Give port @port_num of @rxe its netdevice @ndev: the port GUID is the
 * EUI-64 of its MAC address, the LID derived from that, and the port is
 * its own SM until a subnet manager says otherwise.  @ndev is published
 * last: the packet path finds a port with a netdevice complete.
 */
static void rxe_ib_port_set_ndev(struct rxe_dev *rxe, u32 port_num,
				 struct net_device *ndev)
{
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);
	struct rxe_port *port = rxe_port(rxe, port_num);
	unsigned long flags;

	addrconf_addr_eui48((u8 *)&port->port_guid, ndev->dev_addr);
	spin_lock_irqsave(&ib->lid_lock, flags);
	WRITE_ONCE(ib->lid, rxe_ib_lid_from_guid(port->port_guid));
	port->attr.lid = ib->lid;
	WRITE_ONCE(port->attr.sm_lid, ib->lid);
	spin_unlock_irqrestore(&ib->lid_lock, flags);
	rxe_ib_set_mtu(rxe, port_num, READ_ONCE(ndev->mtu));
	netdev_hold(ndev, &ib->ndev_tracker, GFP_KERNEL);
	/* pairs with the address dependency of the READ_ONCE() of the packet
	 * path: who finds the netdevice finds the port's GUID and LID
	 */
	smp_store_release(&ib->ndev, ndev);
}

static void rxe_ib_active_work(struct work_struct *work);
static void rxe_ib_delay_work(struct work_struct *work);

/**
 * rxe_ib_init() - switch a new rxe device to the InfiniBand link layer
 * @rxe: the device, initialised by rxe_init() and not registered yet
 * @ndev: the underlying netdevice of its first port
 *
 * The device gets sib_ports ports, at most RXE_MAX_PORTS; the ports after
 * the first have no netdevice yet.
 *
 * Return: 0 or -ENOMEM
 */
int rxe_ib_init(struct rxe_dev *rxe, struct net_device *ndev)
{
	struct rxe_ib *ib;
	u32 n;

	ib = kzalloc(sizeof(*ib), GFP_KERNEL);
	if (!ib)
		return -ENOMEM;

	ib->num_ports = clamp_t(uint, READ_ONCE(sib_ports), 1,
				min(RXE_MAX_PORTS, RXE_IB_MAX_PORTS));
	mutex_init(&ib->fault_lock);
	for (n = 0; n < RXE_IB_NUM_FAULT_KINDS; n++) {
		ib->fault_knob[n].rib = ib;
		ib->fault_knob[n].kind = n;
	}
	ib->sa_fail.rib = ib;
	ib->sa_fail.max_status = 0xffff;
	ib->smp_fail.rib = ib;
	/* bit 15 of an SMP's status is its direction (IB_SMP_DIRECTION) */
	ib->smp_fail.max_status = 0x7fff;
	rxe->ib = ib;

	for (n = 1; n <= ib->num_ports; n++) {
		struct ib_port_attr *attr = &rxe_port(rxe, n)->attr;

		xa_init_flags(&rxe_ib_port(rxe, n)->neigh, XA_FLAGS_LOCK_BH);
		rxe_ib_port(rxe, n)->rxe = rxe;
		INIT_DELAYED_WORK(&rxe_ib_port(rxe, n)->active_work,
				  rxe_ib_active_work);
		skb_queue_head_init(&rxe_ib_port(rxe, n)->delayed);
		INIT_DELAYED_WORK(&rxe_ib_port(rxe, n)->delay_work,
				  rxe_ib_delay_work);
		spin_lock_init(&rxe_ib_port(rxe, n)->lid_lock);
		attr->sm_sl = RXE_IB_DEFAULT_SL;
		attr->lmc = RXE_IB_LMC;
		attr->gid_tbl_len = 1;
		rxe_pkey_init(rxe, n);
		attr->port_cap_flags = IB_PORT_CM_SUP;
		attr->active_width = IB_WIDTH_4X;
		attr->active_speed = IB_SPEED_SDR;
		attr->subnet_timeout = 18;
	}
	rxe_ib_port_set_ndev(rxe, RXE_PORT, ndev);

	/* rxe_param.h announces APM for RoCE, whose QPs do not migrate */
	rxe->attr.device_cap_flags &= ~IB_DEVICE_AUTO_PATH_MIG;
	rxe->attr.max_mcast_qp_attach = RXE_IB_MAX_MCAST_QP_ATTACH;

	strscpy(rxe->ib_dev.node_desc, "sib", sizeof(rxe->ib_dev.node_desc));
	return 0;
}

/**
 * rxe_ib_cleanup() - free the InfiniBand mode state of a device
 * @rxe: the device, no longer registered
 */
void rxe_ib_cleanup(struct rxe_dev *rxe)
{
	struct rxe_ib *ib = rxe->ib;
	struct rxe_ib_neigh *n;
	unsigned long lid;
	u32 i;

	if (!ib)
		return;

	for (i = 1; i <= ib->num_ports; i++) {
		struct rxe_ib_port *p = rxe_ib_port(rxe, i);

		cancel_delayed_work_sync(&p->active_work);
		cancel_delayed_work_sync(&p->delay_work);
		skb_queue_purge(&p->delayed);
		xa_for_each(&p->neigh, lid, n)
			kfree(n);
		xa_destroy(&p->neigh);
		netdev_put(p->ndev, &p->ndev_tracker);
	}
	kfree(ib);
	rxe->ib = NULL;
}

/* address vectors */

/**
 * rxe_ib_chk_attr() - check IB address handle attributes
 * @rxe: the device
 * @attr: the attributes
 *
 * Return: 0 or -EINVAL
 */
int rxe_ib_chk_attr(struct rxe_dev *rxe, struct rdma_ah_attr *attr)
{
	u16 dlid = rdma_ah_get_dlid(attr);

	if (attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;

	if (rdma_ah_get_ah_flags(attr) & IB_AH_GRH) {
		if (rdma_ah_read_grh(attr)->sgid_index >=
		    rxe_port(rxe, RXE_PORT)->attr.gid_tbl_len)
			return -EINVAL;
	} else if (rxe_ib_lid_is_mcast(dlid) && dlid != RXE_IB_LID_PERMISSIVE) {
		/* multicast is delivered by DGID: it needs a GRH */
		return -EINVAL;
	}

	if (!dlid)
		return -EINVAL;

	return 0;
}

void rxe_ib_init_av(struct rdma_ah_attr *attr, struct rxe_av *av)
{
	struct rxe_ib_av *iav;

	rxe_av_from_attr(rdma_ah_get_port_num(attr), av, attr);
	av->network_type = RXE_IB_NETWORK_TYPE;

	iav = rxe_ib_av(av);
	iav->dlid = rdma_ah_get_dlid(attr);
	iav->sl = rdma_ah_get_sl(attr);
	/* as an HCA does: the path bits beyond the LMC are not sent, or
	 * a user could send with another port's LID as SLID
	 */
	iav->src_path_bits = rdma_ah_get_path_bits(attr) &
			     ((1 << RXE_IB_LMC) - 1);
	iav->global = !!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH);
}

void rxe_ib_av_to_attr(struct rxe_av *av, struct rdma_ah_attr *attr)
{
	struct rxe_ib_av *iav = rxe_ib_av(av);

	attr->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(attr, av->port_num);
	rdma_ah_set_dlid(attr, iav->dlid);
	rdma_ah_set_sl(attr, iav->sl);
	rdma_ah_set_path_bits(attr, iav->src_path_bits);
	if (iav->global)
		rdma_ah_set_grh(attr, (union ib_gid *)av->grh.dgid.raw,
				av->grh.flow_label, av->grh.sgid_index,
				av->grh.hop_limit, av->grh.traffic_class);
}

/* transmit */

struct sk_buff *rxe_ib_init_packet(struct rxe_dev *rxe, struct rxe_av *av,
				   int paylen, struct rxe_pkt_info *pkt)
{
	unsigned int hdr_len = ETH_HLEN + RXE_IB_LRH_BYTES + sizeof(struct ib_grh);
	u32 port_num = av->port_num;
	struct net_device *ndev;
	struct sk_buff *skb;

	/* the AV's port: checked by the core for AHs and QPs, not in the
	 * address vector an old user space provider puts in a UD WQE
	 */
	if (!rdma_is_port_valid(&rxe->ib_dev, port_num))
		return NULL;
	/* a port still without its netdevice has no cable */
	ndev = READ_ONCE(rxe_ib_port(rxe, port_num)->ndev);
	if (!ndev)
		return NULL;

	skb = alloc_skb(paylen + hdr_len + LL_RESERVED_SPACE(ndev), GFP_ATOMIC);
	if (unlikely(!skb))
		return NULL;

	skb->tstamp = ktime_get();
	skb_reserve(skb, hdr_len + LL_RESERVED_SPACE(ndev));

	/* the port holds its netdev for as long as packets can be built */
	skb->dev = ndev;
	skb->protocol = htons(RXE_IB_ETH_P);

	pkt->rxe = rxe;
	pkt->port_num = port_num;
	pkt->hdr = skb_put(skb, paylen);
	if (rxe_ib_av(av)->global)
		pkt->mask |= RXE_GRH_MASK;

	return skb;
}

/**
 * rxe_ib_prepare() - push the GRH (when the AV has one) and the LRH
 * @av: the address vector
 * @pkt: the packet, pkt->hdr at the BTH and pkt->paylen set
 * @skb: the packet buffer
 *
 * Return: 0
 */
int rxe_ib_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
		   struct sk_buff *skb)
{
	struct rxe_ib_av *iav = rxe_ib_av(av);
	struct rxe_dev *rxe = pkt->rxe;
	unsigned int len = pkt->paylen;
	struct rxe_ib_lrh *lrh;
	u8 lnh = IB_LNH_IBA_LOCAL;
	u16 lid;

	if (iav->global) {
		struct ib_grh *grh = skb_push(skb, sizeof(*grh));
		struct rxe_port *port = rxe_port(rxe, pkt->port_num);

		grh->version_tclass_flow =
			cpu_to_be32(IB_GRH_VERSION << IB_GRH_VERSION_SHIFT |
				    av->grh.traffic_class << IB_GRH_TCLASS_SHIFT |
				    (av->grh.flow_label & IB_GRH_FLOW_MASK));
		grh->paylen = cpu_to_be16(len);
		grh->next_hdr = IB_GRH_NEXT_HDR;
		grh->hop_limit = av->grh.hop_limit;
		grh->sgid.global.subnet_prefix = port->subnet_prefix;
		grh->sgid.global.interface_id = port->port_guid;
		memcpy(grh->dgid.raw, av->grh.dgid.raw, sizeof(grh->dgid));
		len += sizeof(*grh);
		lnh = IB_LNH_IBA_GLOBAL;
	}

	lrh = skb_push(skb, sizeof(*lrh));
	skb_reset_network_header(skb);
	len += sizeof(*lrh);

	/* SMPs travel on VL15, everything else on VL0 */
	lrh->vl_lver = pkt->qp && qp_type(pkt->qp) == IB_QPT_SMI ? 0xf0 : 0;
	lrh->sl_lnh = (iav->sl & 0xf) << 4 | lnh;
	lrh->dlid = cpu_to_be16(iav->dlid);
	lrh->pktlen = cpu_to_be16(len / 4);
	lid = READ_ONCE(rxe_ib_port(rxe, pkt->port_num)->lid);
	lrh->slid = cpu_to_be16(lid | iav->src_path_bits);

	if (iav->dlid == lid)
		pkt->mask |= RXE_LOOPBACK_MASK;

	/* the partition of the QP's P_Key index (rxe_pkey.c) */
	bth_set_pkey(pkt, rxe_pkey_send(pkt));
	return 0;
}

/* count a packet of @len bytes (LRH to ICRC) to @dlid sent or received */
static void rxe_ib_count(struct rxe_ib_port *ib, u16 dlid, unsigned int len,
			 bool xmit)
{
	bool mcast = rxe_ib_lid_is_mcast(dlid) && dlid != RXE_IB_LID_PERMISSIVE;

	atomic64_add(len / 4,
		     &ib->counters[xmit ? RXE_IB_CNT_XMIT_WORDS :
					  RXE_IB_CNT_RCV_WORDS]);
	atomic64_inc(&ib->counters[xmit ? RXE_IB_CNT_XMIT_PKTS :
					  RXE_IB_CNT_RCV_PKTS]);
	if (mcast)
		atomic64_inc(&ib->counters[xmit ? RXE_IB_CNT_MCAST_XMIT_PKTS :
						  RXE_IB_CNT_MCAST_RCV_PKTS]);
	else
		atomic64_inc(&ib->counters[xmit ? RXE_IB_CNT_UCAST_XMIT_PKTS :
						  RXE_IB_CNT_UCAST_RCV_PKTS]);
}

/* Deliver a copy of an outgoing multicast packet to the local members. */
static void rxe_ib_mcast_loop(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	struct rxe_dev *rxe = pkt->rxe;
	struct sk_buff *cskb;

	cskb = skb_clone(skb, GFP_ATOMIC);
	if (!cskb)
		return;

	if (!ib_device_try_get(&rxe->ib_dev)) {
		kfree_skb(cskb);
		return;
	}

	memcpy(SKB_TO_PKT(cskb), pkt, sizeof(*pkt));
	/*
	 * A local copy, not a frame from the wire: it has no MAC header to
	 * learn the sender's address from (rxe_ib_learn_src()).
	 */
	SKB_TO_PKT(cskb)->mask |= RXE_LOOPBACK_MASK;
	skb_pull(cskb, pkt->hdr - cskb->data);
	rxe_rcv(cskb);
}

static const char * const rxe_ib_fault_names[RXE_IB_NUM_FAULT_CLASSES] = {
	[RXE_IB_FAULT_REQ]	= "req",
	[RXE_IB_FAULT_NAK]	= "nak",
	[RXE_IB_FAULT_RESP]	= "resp",
	[RXE_IB_FAULT_UD]	= "ud",
	[RXE_IB_FAULT_MAD]	= "mad",
};

static const char * const rxe_ib_fault_kinds[RXE_IB_NUM_FAULT_KINDS] = {
	[RXE_IB_FAULT_DROP]	= "drop",
	[RXE_IB_FAULT_CORRUPT]	= "corrupt",
	[RXE_IB_FAULT_DELAY]	= "delay",
};

/* the enum rxe_ib_fault_class bits of @pkt, a packet about to be sent */
static unsigned long rxe_ib_fault_classes(struct rxe_pkt_info *pkt)
{
	struct rxe_qp *qp = pkt->qp;
	u8 syn;

	if ((pkt->opcode & 0xe0) == IB_OPCODE_UD) {
		if (qp && (qp_type(qp) == IB_QPT_SMI ||
			   qp_type(qp) == IB_QPT_GSI))
			return BIT(RXE_IB_FAULT_MAD);
		return BIT(RXE_IB_FAULT_UD);
	}
	if (rxe_opcode[pkt->opcode].mask & RXE_REQ_MASK)
		return BIT(RXE_IB_FAULT_REQ);
	if (pkt->opcode == IB_OPCODE_RC_ACKNOWLEDGE) {
		/* an RNR NAK or a PSN sequence error NAK is retried: not NAK */
		syn = aeth_syn(pkt);
		if ((syn & AETH_TYPE_MASK) == AETH_NAK &&
		    syn != AETH_NAK_PSN_SEQ_ERROR)
			return BIT(RXE_IB_FAULT_NAK) | BIT(RXE_IB_FAULT_RESP);
	}
	return BIT(RXE_IB_FAULT_RESP);
}

/**
 * rxe_ib_fault() - whether debugfs drop or corrupt asks for a fault of
 * @pkt
 * @faults: the device's drop or corrupt counts, per class
 * @classes: the classes of @pkt (rxe_ib_fault_classes())
 *
 * Writing "CLASS COUNT" to the device's drop (corrupt) makes it lose on
 * the wire (send with a bad ICRC) the next COUNT packets of that class it
 * sends, as a lossy (noisy) link would; "CLASS 0" disarms it.  A packet
 * takes a fault of its most specific class that has one: a refused
 * request's NAK one of nak before one of resp.  Packets looped back
 * within the device never reach the wire and take none.
 *
 * Return: true if @pkt takes one of the faults (and one is used up)
 */
static bool rxe_ib_fault(atomic_t *faults, unsigned long classes)
{
	unsigned int c;

	for_each_set_bit(c, &classes, RXE_IB_NUM_FAULT_CLASSES)
		if (atomic_read(&faults[c]) &&
		    atomic_dec_if_positive(&faults[c]) >= 0)
			return true;
	return false;
}

/*
 * How late debugfs delay asks for @classes' packet to be sent (taking one
 * of the packets asked for), 0 for not
 */
static u32 rxe_ib_fault_delay(struct rxe_ib *rib, unsigned long classes)
{
	atomic_t *delay = rib->fault[RXE_IB_FAULT_DELAY];
	unsigned int c;

	for_each_set_bit(c, &classes, RXE_IB_NUM_FAULT_CLASSES)
		if (atomic_read(&delay[c]) &&
		    atomic_dec_if_positive(&delay[c]) >= 0)
			return READ_ONCE(rib->delay_ms[c]) ?: 1;
	return 0;
}

/*
 * Hold @skb, ready for the wire, back for @ms: in the port's queue of
 * delayed packets, in the order they are due (skb->tstamp).
 */
static void rxe_ib_delay(struct rxe_ib_port *ib, struct sk_buff *skb, u32 ms)
{
	struct sk_buff *next;
	unsigned long flags;

	skb->tstamp = ktime_add_ms(ktime_get(), ms);
	spin_lock_irqsave(&ib->delayed.lock, flags);
	skb_queue_walk(&ib->delayed, next)
		if (ktime_before(skb->tstamp, next->tstamp))
			break;
	/* before @next, or at the tail when the walk found none */
	__skb_queue_before(&ib->delayed, next, skb);
	if (skb_peek(&ib->delayed) == skb)
		mod_delayed_work(system_wq, &ib->delay_work,
				 msecs_to_jiffies(ms));
	spin_unlock_irqrestore(&ib->delayed.lock, flags);
}

/* send the delayed packets that are due, and wait for the next one */
static void rxe_ib_delay_work(struct work_struct *work)
{
	struct rxe_ib_port *ib = container_of(to_delayed_work(work),
					      struct rxe_ib_port, delay_work);
	struct rxe_ib_lrh *lrh;
	struct sk_buff *skb;
	unsigned int len;
	ktime_t now;
	u16 dlid;

	for (;;) {
		spin_lock_irq(&ib->delayed.lock);
		skb = skb_peek(&ib->delayed);
		now = ktime_get();
		if (skb && ktime_after(skb->tstamp, now)) {
			mod_delayed_work(system_wq, &ib->delay_work,
					 nsecs_to_jiffies(ktime_sub(skb->tstamp, now)) + 1);
			skb = NULL;
		} else if (skb) {
			__skb_unlink(skb, &ib->delayed);
		}
		spin_unlock_irq(&ib->delayed.lock);
		if (!skb)
			return;

		skb->tstamp = 0;
		lrh = (struct rxe_ib_lrh *)skb_network_header(skb);
		dlid = be16_to_cpu(lrh->dlid);
		len = rxe_ib_lrh_len(lrh);
		if (dev_queue_xmit(skb) != NET_XMIT_SUCCESS) {
			rxe_counter_inc(ib->rxe, RXE_CNT_SEND_ERR);
			atomic64_inc(&ib->counters[RXE_IB_CNT_XMIT_DISCARDS]);
		} else {
			rxe_ib_count(ib, dlid, len, true);
		}
	}
}

/**
 * rxe_ib_send() - send a packet prepared by rxe_ib_prepare() on the wire
 * @skb: the packet; consumed
 * @pkt: the packet information
 *
 * A packet the netdevice drops is lost on the wire, as on a real link:
 * RC recovers by retransmission, so this does not fail the QP.
 *
 * Return: 0
 */
int rxe_ib_send(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	struct rxe_ib_lrh *lrh = (struct rxe_ib_lrh *)skb_network_header(skb);
	unsigned int len = rxe_ib_lrh_len(lrh);
	u16 dlid = be16_to_cpu(lrh->dlid);
	struct net_device *ndev = skb->dev;
	struct rxe_ib_port *ib = rxe_ib_port(pkt->rxe, pkt->port_num);
	struct rxe_ib *rib = pkt->rxe->ib;
	unsigned long classes;
	bool corrupt = false;
	u32 delay_ms = 0;
	u8 dmac[ETH_ALEN];

	/*
	 * Sent, and lost on the wire: on the service levels of debugfs
	 * lost_sls, as a fabric whose routes or VLs of those SLs died would
	 * (for tests: it cuts one path of a QP and leaves another), and the
	 * packets that drop asks for.
	 */
	if (unlikely(READ_ONCE(rib->lost_sls) & BIT(rxe_ib_lrh_sl(lrh))))
		goto lost;
	if (unlikely(READ_ONCE(rib->faults_armed))) {
		classes = rxe_ib_fault_classes(pkt);
		if (rxe_ib_fault(rib->fault[RXE_IB_FAULT_DROP], classes))
			goto lost;
		corrupt = rxe_ib_fault(rib->fault[RXE_IB_FAULT_CORRUPT],
				       classes);
		delay_ms = rxe_ib_fault_delay(rib, classes);
	}

	/* the permissive LID is no group: it names the port at the other
	 * end of the link (directed-route SMPs)
	 */
	if (rxe_ib_lid_is_mcast(dlid) && dlid != RXE_IB_LID_PERMISSIVE)
		rxe_ib_mcast_loop(skb, pkt);

	/* a bit of the ICRC flipped on the wire, not in the local copy */
	if (unlikely(corrupt) &&
	    !skb_ensure_writable(skb, skb_network_offset(skb) + len))
		skb_network_header(skb)[len - 1] ^= 0x01;

	rxe_ib_dmac(ib, dlid, dmac);

	if (dev_hard_header(skb, ndev, RXE_IB_ETH_P, dmac, ndev->dev_addr,
			    skb->len) < 0) {
		rxe_counter_inc(pkt->rxe, RXE_CNT_SEND_ERR);
		atomic64_inc(&ib->counters[RXE_IB_CNT_XMIT_DISCARDS]);
		kfree_skb(skb);
		return 0;
	}

	if (unlikely(delay_ms)) {
		rxe_ib_delay(ib, skb, delay_ms);
		return 0;
	}

	if (dev_queue_xmit(skb) != NET_XMIT_SUCCESS) {
		rxe_counter_inc(pkt->rxe, RXE_CNT_SEND_ERR);
		atomic64_inc(&ib->counters[RXE_IB_CNT_XMIT_DISCARDS]);
	} else {
		rxe_ib_count(ib, dlid, len, true);
	}

	return 0;

lost:
	rxe_ib_count(ib, dlid, len, true);
	kfree_skb(skb);
	return 0;
}

/**
 * rxe_ib_xmit_ok() - whether a soft IB port in its state sends a packet
 * @qp: the QP sending it
 * @pkt: the packet, built for its port
 *
 * A port that is not ACTIVE sends SMPs only (IBA 7.2, rxe_sma.c); it
 * discards the other packets, lost on the wire for their QPs, and counts
 * them in PortXmitDiscards.  This holds for a packet looped back within
 * the port too.
 *
 * Context: any.
 * Return: true when the port sends the packet
 */
bool rxe_ib_xmit_ok(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	struct rxe_port *port = rxe_port(pkt->rxe, pkt->port_num);

	if (likely(rxe_sma_port_carries(READ_ONCE(port->attr.state),
					qp_type(qp) == IB_QPT_SMI, true)))
		return true;

	atomic64_inc(&rxe_ib_port(pkt->rxe, pkt->port_num)->counters[RXE_IB_CNT_XMIT_DISCARDS]);
	return false;
}

/**
 * rxe_ib_vl15_dropped() - count an SMP that QP0 had no receive buffer for
 * @pkt: the SMP, received on its port
 */
void rxe_ib_vl15_dropped(struct rxe_pkt_info *pkt)
{
	atomic64_inc(&rxe_ib_port(pkt->rxe, pkt->port_num)->counters[RXE_IB_CNT_VL15_DROPPED]);
}

/**
 * rxe_ib_icrc_pshdr() - the LRH and GRH of a packet with the variant fields
 *			 masked, as the ICRC covers them (IBA 7.8.1)
 * @skb: the packet, network header at the LRH
 * @pshdr: buffer for the masked headers, at least LRH + GRH bytes
 *
 * Return: the number of bytes written to @pshdr
 */
unsigned int rxe_ib_icrc_pshdr(struct sk_buff *skb, u8 *pshdr)
{
	const struct rxe_ib_lrh *lrh = (void *)skb_network_header(skb);
	unsigned int len = RXE_IB_LRH_BYTES;

	memcpy(pshdr, lrh, len);
	((struct rxe_ib_lrh *)pshdr)->vl_lver |= 0xf0;	/* VL */

	if (rxe_ib_lrh_lnh(lrh) == IB_LNH_IBA_GLOBAL) {
		struct ib_grh *grh = (struct ib_grh *)(pshdr + len);

		memcpy(grh, lrh + 1, sizeof(*grh));
		/* traffic class and flow label */
		grh->version_tclass_flow |= cpu_to_be32(0x0fffffff);
		grh->hop_limit = 0xff;
		len += sizeof(*grh);
	}

	return len;
}

/* receive */

static const struct rxe_ib_lrh *rxe_ib_pkt_lrh(struct sk_buff *skb)
{
	return (const struct rxe_ib_lrh *)skb_network_header(skb);
}

/**
 * rxe_ib_check_addr() - check the source of an RC or UC packet
 * @pkt: the received packet
 * @qp: its QP
 *
 * Return: 0 when the packet comes from the QP's destination LID
 */
int rxe_ib_check_addr(struct rxe_pkt_info *pkt, struct rxe_qp *qp)
{
	const struct rxe_ib_lrh *lrh = rxe_ib_pkt_lrh(PKT_TO_SKB(pkt));

	if (be16_to_cpu(lrh->slid) != rxe_ib_av(&qp->pri_av)->dlid)
		return -EINVAL;

	return 0;
}

/**
 * rxe_ib_pkt_dgid() - the DGID of a received packet
 * @skb: the packet, network header at the LRH
 *
 * Return: the DGID in the GRH, NULL when the packet has no GRH
 */
union ib_gid *rxe_ib_pkt_dgid(struct sk_buff *skb)
{
	const struct rxe_ib_lrh *lrh = rxe_ib_pkt_lrh(skb);

	if (rxe_ib_lrh_lnh(lrh) != IB_LNH_IBA_GLOBAL)
		return NULL;

	return &((struct ib_grh *)(lrh + 1))->dgid;
}

/**
 * rxe_ib_ud_hdr() - the 40 bytes a UD receive places before the payload
 * @skb: the received packet
 * @hdr: the GRH of the packet, zeroes when it has none
 */
void rxe_ib_ud_hdr(struct sk_buff *skb, union rdma_network_hdr *hdr)
{
	const struct rxe_ib_lrh *lrh = rxe_ib_pkt_lrh(skb);

	if (rxe_ib_lrh_lnh(lrh) == IB_LNH_IBA_GLOBAL)
		memcpy(&hdr->ibgrh, lrh + 1, sizeof(hdr->ibgrh));
	else
		memset(hdr, 0, sizeof(*hdr));
}

/**
 * rxe_ib_pkt_src() - the fields of a receive completion that come from
 *		      the LRH
 * @skb: the received packet
 * @slid: source LID
 * @sl: service level
 *
 * Return: whether the packet had a GRH
 */
bool rxe_ib_pkt_src(struct sk_buff *skb, u16 *slid, u8 *sl)
{
	const struct rxe_ib_lrh *lrh = rxe_ib_pkt_lrh(skb);

	*slid = be16_to_cpu(lrh->slid);
	*sl = rxe_ib_lrh_sl(lrh);
	return rxe_ib_lrh_lnh(lrh) == IB_LNH_IBA_GLOBAL;
}

/**
 * rxe_ib_learn_src() - record the MAC address a packet's SLID sent from
 * @rxe: the device
 * @skb: a packet received from the wire that passed the header and ICRC
 *	checks, its MAC header still set
 */
void rxe_ib_learn_src(struct rxe_dev *rxe, struct sk_buff *skb)
{
	const struct rxe_ib_lrh *lrh = rxe_ib_pkt_lrh(skb);

	rxe_ib_neigh_learn(rxe_ib_port(rxe, SKB_TO_PKT(skb)->port_num),
			   be16_to_cpu(lrh->slid), eth_hdr(skb)->h_source);
}

static bool rxe_ib_own_gid(struct rxe_dev *rxe, u32 port_num,
			   const union ib_gid *gid)
{
	struct rxe_port *port = rxe_port(rxe, port_num);

	return gid->global.subnet_prefix == port->subnet_prefix &&
	       gid->global.interface_id == port->port_guid;
}

/*
 * Check an incoming frame and hand the IB packet in it to rxe_rcv().
 * Context: softirq.
 */
static int rxe_ib_rcv(struct sk_buff *skb, struct net_device *ndev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	unsigned int len, hdr_len = RXE_IB_LRH_BYTES;
	const struct rxe_ib_lrh *lrh;
	struct rxe_pkt_info *pkt;
	struct rxe_ib_port *ib;
	struct rxe_dev *rxe;
	u16 dlid, slid, lid;
	u32 port_num;
	u32 mask = 0;

	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_LOOPBACK)
		goto drop_skb;

	/* takes a reference on rxe->ib_dev, dropped when the skb is freed */
	rxe = rxe_get_dev_from_net(ndev);
	if (!rxe)
		goto drop_skb;
	if (!rxe_is_ib(rxe))
		goto drop;
	/* the port whose netdevice the frame came in on */
	port_num = rxe_ib_port_of(rxe, ndev);
	if (!port_num)
		goto drop;
	ib = rxe_ib_port(rxe, port_num);

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		goto put_dev;

	if (skb_linearize(skb) || skb->len < RXE_IB_LRH_BYTES)
		goto drop;

	skb_reset_network_header(skb);
	lrh = rxe_ib_pkt_lrh(skb);
	len = rxe_ib_lrh_len(lrh);
	if (rxe_ib_lrh_lver(lrh) != 0 || len > skb->len ||
	    len < RXE_IB_LRH_BYTES + RXE_BTH_BYTES + RXE_ICRC_SIZE) {
		atomic64_inc(&ib->counters[RXE_IB_CNT_RCV_ERRORS]);
		goto drop;
	}

	/* strip the Ethernet padding */
	if (pskb_trim(skb, len))
		goto drop;
	rxe_ib_count(ib, be16_to_cpu(lrh->dlid), len, false);

	dlid = be16_to_cpu(lrh->dlid);
	slid = be16_to_cpu(lrh->slid);
	lid = READ_ONCE(ib->lid);
	if (dlid != lid && !rxe_ib_lid_is_mcast(dlid))
		goto drop;
	if (!slid || rxe_ib_lid_is_mcast(slid))
		goto drop;

	switch (rxe_ib_lrh_lnh(lrh)) {
	case IB_LNH_IBA_LOCAL:
		break;
	case IB_LNH_IBA_GLOBAL: {
		const struct ib_grh *grh = (const struct ib_grh *)(lrh + 1);
		u32 ver;

		hdr_len += sizeof(*grh);
		if (len < hdr_len + RXE_BTH_BYTES + RXE_ICRC_SIZE) {
			atomic64_inc(&ib->counters[RXE_IB_CNT_RCV_ERRORS]);
			goto drop;
		}
		ver = be32_to_cpu(grh->version_tclass_flow) >>
		      IB_GRH_VERSION_SHIFT;
		if (ver != IB_GRH_VERSION || grh->next_hdr != IB_GRH_NEXT_HDR)
			goto drop;
		if (!rdma_is_multicast_addr((struct in6_addr *)grh->dgid.raw) &&
		    !rxe_ib_own_gid(rxe, port_num, &grh->dgid))
			goto drop;
		mask = RXE_GRH_MASK;
		break;
	}
	default:
		goto drop;
	}

	/* the SLID's MAC address is learned once the ICRC checked out */
	pkt = SKB_TO_PKT(skb);
	pkt->rxe = rxe;
	pkt->port_num = port_num;
	pkt->hdr = skb->data + hdr_len;
	pkt->mask = mask;
	pkt->paylen = len - hdr_len;
	skb_pull(skb, hdr_len);

	/*
	 * The ICRC first: a corrupted packet is a receive error, whatever its
	 * headers say (PortRcvErrors), and rxe_rcv() does not check it again.
	 * A packet whose opcode or length leaves no ICRC to check is
	 * malformed, a receive error too.
	 */
	if (!rxe_ib_icrc_ok(skb, pkt)) {
		atomic64_inc(&ib->counters[RXE_IB_CNT_RCV_ERRORS]);
		goto drop;
	}

	/* a frame of this port's own LID: from another port, a collision */
	if (slid == lid) {
		if (!ether_addr_equal(eth_hdr(skb)->h_source, ndev->dev_addr))
			rxe_ib_lid_collision(rxe, port_num,
					     eth_hdr(skb)->h_source);
		goto drop;
	}

	/* VL15 carries SMPs to QP0 and nothing else: a malformed packet */
	if (!rxe_sma_rcv_ok(pkt)) {
		atomic64_inc(&ib->counters[RXE_IB_CNT_RCV_ERRORS]);
		goto drop;
	}

	/* a port in INIT takes SMPs only, an ARMED one data too (IBA 7.2) */
	if (!rxe_sma_port_carries(READ_ONCE(rxe_port(rxe, port_num)->attr.state),
				  bth_qpn(pkt) == 0, false)) {
		atomic64_inc(&ib->counters[RXE_IB_CNT_STATE_DROPS]);
		goto drop;
	}

	/* partition enforcement: P_Keys the port does not have stop here */
	if (!rxe_pkey_port_rcv_ok(pkt))
		goto drop;

	/* consumes the skb and the device reference */
	rxe_rcv(skb);
	return NET_RX_SUCCESS;

drop:
	kfree_skb(skb);
put_dev:
	ib_device_put(&rxe->ib_dev);
	return NET_RX_DROP;
drop_skb:
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* port state */

/**
 * rxe_ib_port_of() - the port of a soft IB device on a netdevice
 * @rxe: the device
 * @ndev: one of its netdevices
 *
 * Return: the port's number, 0 when no port of @rxe is on @ndev
 */
u32 rxe_ib_port_of(struct rxe_dev *rxe, struct net_device *ndev)
{
	u32 n;

	for (n = 1; n <= rxe_ib_num_ports(rxe); n++)
		if (READ_ONCE(rxe_ib_port(rxe, n)->ndev) == ndev)
			return n;

	return 0;
}

/* the first port's messages are those of a one-port device, which the
 * tests that read the log know; the others name their port
 */
static void rxe_ib_port_info(struct rxe_dev *rxe, u32 port_num,
			     const char *what)
{
	if (port_num == RXE_PORT)
		dev_info(&rxe->ib_dev.dev, "%s\n", what);
	else
		dev_info(&rxe->ib_dev.dev, "port %u: %s\n", port_num, what);
}

static void rxe_ib_active_work(struct work_struct *work)
{
	struct rxe_ib_port *p = container_of(to_delayed_work(work),
					     struct rxe_ib_port, active_work);
	struct rxe_dev *rxe = p->rxe;
	u32 port_num = p - rxe->ib->port + 1;

	/*
	 * Not once the device is being unregistered: ib_core then tears
	 * down its port cache and event handlers.
	 */
	if (!ib_device_try_get(&rxe->ib_dev))
		return;
	if (READ_ONCE(rxe_port(rxe, port_num)->attr.state) == IB_PORT_ACTIVE)
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_PORT_ACTIVE);
	ib_device_put(&rxe->ib_dev);
}

/*
 * Tests: a port that became ACTIVE keeps its IB_EVENT_PORT_ACTIVE back for
 * debugfs ports/N/active_delay_ms (0: not at all).  Its state is ACTIVE
 * meanwhile, as a port whose event is slow to reach the consumers is:
 * hardware reports its events asynchronously, and ib_core updates its port
 * cache and passes the event on from a work item of its own.
 */
static void rxe_ib_port_event(struct rxe_dev *rxe, u32 port_num,
			      enum ib_event_type type)
{
	struct rxe_ib_port *p = rxe_ib_port(rxe, port_num);
	u32 delay = READ_ONCE(p->active_delay_ms);

	if (type == IB_EVENT_PORT_ACTIVE && delay) {
		mod_delayed_work(system_wq, &p->active_work,
				 msecs_to_jiffies(delay));
		return;
	}
	/* a late ACTIVE does not come after the port's next error */
	if (type == IB_EVENT_PORT_ERR)
		cancel_delayed_work(&p->active_work);
	rxe_ib_dispatch(rxe, port_num, type);
}

/* the port's netdevice is up: as rxe_port_up() for a RoCE port */
static void rxe_ib_port_up(struct rxe_dev *rxe, u32 port_num)
{
	/* a disabled link stays down (debugfs ports/N/link) */
	if (READ_ONCE(rxe_ib_port(rxe, port_num)->link_disabled))
		return;

	/* a port a subnet manager manages waits in INIT for it */
	if (rxe->ib->sm_port_up && rxe->ib->sm_port_up(rxe, port_num))
		return;

	rxe_port(rxe, port_num)->attr.state = IB_PORT_ACTIVE;
	rxe_ib_port_event(rxe, port_num, IB_EVENT_PORT_ACTIVE);
	rxe_ib_port_info(rxe, port_num, "set active");
}

/* the port's netdevice is down: as rxe_port_down() for a RoCE port */
static void rxe_ib_port_down(struct rxe_dev *rxe, u32 port_num)
{
	rxe_port(rxe, port_num)->attr.state = IB_PORT_DOWN;
	/* armed QPs move to their alternate path before anyone hears */
	rxe_apm_port_down(rxe, port_num);
	rxe_ib_port_event(rxe, port_num, IB_EVENT_PORT_ERR);
	rxe_counter_inc(rxe, RXE_CNT_LINK_DOWNED);
	atomic64_inc(&rxe_ib_port(rxe, port_num)->counters[RXE_IB_CNT_LINK_DOWNED]);
	rxe_ib_port_info(rxe, port_num, "set down");
}

/**
 * rxe_ib_set_port_state() - set a port's state from its netdevice's
 * @rxe: the device
 * @port_num: the port; one with no netdevice yet stays DOWN
 *
 * Context: process; under RTNL or before the device is registered.
 */
void rxe_ib_set_port_state(struct rxe_dev *rxe, u32 port_num)
{
	struct net_device *ndev = READ_ONCE(rxe_ib_port(rxe, port_num)->ndev);

	if (!ndev)
		return;

	if (netif_running(ndev) && netif_carrier_ok(ndev) &&
	    !READ_ONCE(rxe_ib_port(rxe, port_num)->link_disabled))
		rxe_ib_port_up(rxe, port_num);
	else
		rxe_ib_port_down(rxe, port_num);
}

/**
 * rxe_ib_notify() - a netdevice event for a soft IB device
 * @rxe: the device
 * @ndev: the netdevice, one of its ports'
 * @event: NETDEV_*
 *
 * As rxe_notify() does for a RoCE device, for the port on @ndev.
 *
 * Context: process, under RTNL.
 */
void rxe_ib_notify(struct rxe_dev *rxe, struct net_device *ndev,
		   unsigned long event)
{
	u32 port_num = rxe_ib_port_of(rxe, ndev);

	if (!port_num)
		return;

	switch (event) {
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(&rxe->ib_dev);
		break;
	case NETDEV_UP:
		rxe_ib_port_up(rxe, port_num);
		break;
	case NETDEV_DOWN:
		rxe_ib_port_down(rxe, port_num);
		break;
	case NETDEV_CHANGEMTU:
		rxe_ib_set_mtu(rxe, port_num, ndev->mtu);
		break;
	case NETDEV_CHANGE:
		rxe_ib_set_port_state(rxe, port_num);
		break;
	default:
		break;
	}
}

static struct packet_type rxe_ib_packet_type __read_mostly = {
	.type = cpu_to_be16(RXE_IB_ETH_P),
	.func = rxe_ib_rcv,
};

/* the "sib" link type: rdma link add NAME type sib netdev NETDEV */

/* serialises the link additions: a port gets one netdevice */
static DEFINE_MUTEX(rxe_ib_link_lock);

/**
 * rxe_ib_free_port() - the port a new netdevice of a device would take
 * @ndevs: whether each port, from port 1, has a netdevice
 * @num_ports: the number of ports
 *
 * Return: the first port with no netdevice, 0 when there is none
 */
static u32 rxe_ib_free_port(const bool *ndevs, u32 num_ports)
{
	u32 n;

	for (n = 1; n <= num_ports; n++)
		if (!ndevs[n - 1])
			return n;

	return 0;
}

/*
 * Give the next free port of the soft IB device @rxe the netdevice @ndev
 * (a second "rdma link add" naming the device), then tell the ULPs what
 * the port now is: the GID cache and IPoIB take the port GUID from a
 * client reregistration (ib_cache_update(), ipoib's light flush), the
 * port comes up with its netdevice's carrier.
 */
static int rxe_ib_add_port(struct rxe_dev *rxe, struct net_device *ndev)
{
	bool ndevs[RXE_IB_MAX_PORTS] = {};
	u32 n, port_num;
	int err;

	if (!rxe_is_ib(rxe))
		return -EOPNOTSUPP;

	for (n = 1; n <= rxe_ib_num_ports(rxe); n++)
		ndevs[n - 1] = !!READ_ONCE(rxe_ib_port(rxe, n)->ndev);
	port_num = rxe_ib_free_port(ndevs, rxe_ib_num_ports(rxe));
	if (!port_num) {
		rxe_err_dev(rxe, "no port left for %s\n", ndev->name);
		return -ENOSPC;
	}

	rxe_ib_port_set_ndev(rxe, port_num, ndev);
	err = ib_device_set_netdev(&rxe->ib_dev, ndev, port_num);
	if (err)
		return err;

	rxe_ib_port_event(rxe, port_num, IB_EVENT_CLIENT_REREGISTER);
	rxe_ib_port_info(rxe, port_num, "added");
	rtnl_lock();
	rxe_ib_set_port_state(rxe, port_num);
	rtnl_unlock();
	return 0;
}

/*
 * A new device on @ndev, or, when a soft IB device called @ibdev_name
 * exists, its next port on @ndev (sib_ports).
 */
static int rxe_ib_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *ibdev;
	struct rxe_dev *rxe;
	int err;

	if (is_vlan_dev(ndev) || ndev->type != ARPHRD_ETHER) {
		rxe_err("sib needs an Ethernet device, not %s\n", ndev->name);
		return -EPERM;
	}

	mutex_lock(&rxe_ib_link_lock);
	rxe = rxe_get_dev_from_net(ndev);
	if (rxe) {
		ib_device_put(&rxe->ib_dev);
		rxe_err_dev(rxe, "already configured on %s\n", ndev->name);
		err = -EEXIST;
		goto unlock;
	}

	ibdev = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_RXE);
	if (ibdev) {
		err = rxe_ib_add_port(to_rdev(ibdev), ndev);
		ib_device_put(ibdev);
		goto unlock;
	}

	err = rxe_net_add(ibdev_name, ndev, true);
unlock:
	mutex_unlock(&rxe_ib_link_lock);
	return err;
}

/* Test knobs of soft IB devices (see rxe_debugfs.c) */

/* whether a fault of any kind is still to come for a class */
static bool rxe_ib_faults_pending(struct rxe_ib *rib)
{
	unsigned int k, c;

	for (k = 0; k < RXE_IB_NUM_FAULT_KINDS; k++)
		for (c = 0; c < RXE_IB_NUM_FAULT_CLASSES; c++)
			if (atomic_read(&rib->fault[k][c]))
				return true;
	return false;
}

/*
 * drop, corrupt, delay: writing "CLASS COUNT" (drop, corrupt) or
 * "CLASS COUNT MS" (delay) arms the next COUNT packets of CLASS (req, nak,
 * resp, ud, mad) that the device sends to be lost on the wire, sent with
 * a bad ICRC (rxe_ib_fault()), or held back MS milliseconds (1-10000) on
 * their port and then sent in the order they are due: packets not held
 * back overtake them, as on a fabric whose route for some packets is
 * congested.  COUNT 0 disarms the class.  Reading gives, per class, the
 * packets still to take the fault (and for delay, how late).  For tests:
 * a lossy or noisy link for the packets of one kind, a late ACK, a slow
 * SMA or SA, a datagram that comes after a later one.
 */
static ssize_t rxe_knob_fault_write(struct file *file,
				    const char __user *ubuf, size_t len,
				    loff_t *ppos)
{
	struct rxe_ib_fault_knob *knob = file->private_data;
	bool delay = knob->kind == RXE_IB_FAULT_DELAY;
	struct rxe_ib *rib = knob->rib;
	unsigned int count, ms = 0;
	char buf[40], name[8], end;
	int c, ret;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (delay)
		ret = sscanf(buf, "%7s %u %u %c", name, &count, &ms, &end) != 3;
	else
		ret = sscanf(buf, "%7s %u %c", name, &count, &end) != 2;
	if (ret || count > INT_MAX || ms > 10000 || (delay && count && !ms))
		return -EINVAL;
	c = match_string(rxe_ib_fault_names, RXE_IB_NUM_FAULT_CLASSES, name);
	if (c < 0)
		return -EINVAL;

	mutex_lock(&rib->fault_lock);
	if (delay) {
		/* the time before the count: a packet that takes one finds it */
		atomic_set(&rib->fault[knob->kind][c], 0);
		WRITE_ONCE(rib->delay_ms[c], ms);
	}
	atomic_set(&rib->fault[knob->kind][c], count);
	WRITE_ONCE(rib->faults_armed, rxe_ib_faults_pending(rib));
	mutex_unlock(&rib->fault_lock);
	return len;
}

static ssize_t rxe_knob_fault_read(struct file *file, char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct rxe_ib_fault_knob *knob = file->private_data;
	char buf[RXE_IB_NUM_FAULT_CLASSES * 24];
	struct rxe_ib *rib = knob->rib;
	int c, n = 0;

	for (c = 0; c < RXE_IB_NUM_FAULT_CLASSES; c++) {
		n += scnprintf(buf + n, sizeof(buf) - n, "%s %d",
			       rxe_ib_fault_names[c],
			       atomic_read(&rib->fault[knob->kind][c]));
		if (knob->kind == RXE_IB_FAULT_DELAY)
			n += scnprintf(buf + n, sizeof(buf) - n, " %u",
				       READ_ONCE(rib->delay_ms[c]));
		n += scnprintf(buf + n, sizeof(buf) - n, "\n");
	}
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations rxe_knob_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rxe_knob_fault_read,
	.write = rxe_knob_fault_write,
};

/*
 * ports/N/pkey: writing "INDEX PKEY" sets entry INDEX (0-31) of the port's
 * P_Key table to PKEY (0 empties the entry) and raises
 * IB_EVENT_PKEY_CHANGE if it changed, as a subnet manager's
 * SubnSet(PKeyTable) does (rxe_pkey.c).  A malformed line, an index beyond
 * the table or a P_Key above 0xffff get -EINVAL.  For tests: partitions
 * without a subnet manager.
 */
static ssize_t rxe_knob_pkey_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct rxe_ib_port *p = file->private_data;
	struct rxe_dev *rxe = p->rxe;
	unsigned int index;
	char buf[32], end;
	ssize_t ret;
	int pkey;
	u16 val;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%u %i %c", &index, &pkey, &end) != 2 ||
	    index >= RXE_IB_PKEY_TBL_LEN || pkey < 0 || pkey > 0xffff)
		return -EINVAL;
	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	val = pkey;
	rxe_pkey_set(rxe, p - rxe->ib->port + 1, index, &val, 1);
	ib_device_put(&rxe->ib_dev);
	return len;
}

static const struct file_operations rxe_knob_pkey_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rxe_knob_pkey_write,
};

/*
 * ports/N/link: writing "down" disables the port's link: the port goes
 * DOWN (IB_EVENT_PORT_ERR), its physical state Disabled, and stays so
 * whatever its netdevice's carrier, as a port does whose link the subnet
 * manager disabled or whose cable was pulled at the switch while the
 * host's side of the wire stays up; "up" enables it again, and the port
 * follows its netdevice (ACTIVE, or INIT for a port a subnet manager
 * manages).  Reading gives "up" or "down".  For tests: a port that dies
 * under its consumers while the netdevice below it does not.
 */
static ssize_t rxe_knob_link_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct rxe_ib_port *p = file->private_data;
	u32 port_num = p - p->rxe->ib->port + 1;
	struct rxe_dev *rxe = p->rxe;
	struct net_device *ndev;
	bool down;
	char buf[8];
	int ret;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sysfs_streq(buf, "down"))
		down = true;
	else if (sysfs_streq(buf, "up"))
		down = false;
	else
		return -EINVAL;

	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	rtnl_lock();
	ndev = READ_ONCE(p->ndev);
	if (READ_ONCE(p->link_disabled) != down) {
		WRITE_ONCE(p->link_disabled, down);
		/* without carrier the port is DOWN and stays so */
		if (ndev && netif_running(ndev) && netif_carrier_ok(ndev)) {
			if (down)
				rxe_ib_port_down(rxe, port_num);
			else
				rxe_ib_port_up(rxe, port_num);
		}
	}
	rtnl_unlock();
	ib_device_put(&rxe->ib_dev);
	return len;
}

static ssize_t rxe_knob_link_read(struct file *file, char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct rxe_ib_port *p = file->private_data;
	const char *s = READ_ONCE(p->link_disabled) ? "down\n" : "up\n";

	return simple_read_from_buffer(ubuf, len, ppos, s, strlen(s));
}

static const struct file_operations rxe_knob_link_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rxe_knob_link_read,
	.write = rxe_knob_link_write,
};

/*
 * ports/N/lid: writing a unicast LID (1-0xbfff) gives the port that LID,
 * as a subnet manager's SubnSet(PortInfo) does, with
 * IB_EVENT_LID_CHANGE when it changed (ib_sa, IPoIB and the RDMA CM
 * follow it); a port that is its own SM (no subnet manager) moves its SM
 * LID with it.  Peers learn the new LID from the frames that carry it.
 * For tests: a LID that changes under live consumers, or one that
 * collides with a peer's (rxe_ib_lid_collision()).
 */
static ssize_t rxe_knob_lid_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct rxe_ib_port *p = file->private_data;
	u32 port_num = p - p->rxe->ib->port + 1;
	struct rxe_dev *rxe = p->rxe;
	char buf[16], end;
	int lid, ret;
	u16 old;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%i %c", &lid, &end) != 1 || lid < 1 ||
	    lid > RXE_IB_LID_UCAST_MAX)
		return -EINVAL;
	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;

	old = rxe_ib_set_lid(rxe, port_num, lid);
	if (old != lid)
		rxe_info_dev(rxe, "port %u moved from LID 0x%x to LID 0x%x (debugfs)\n",
			     port_num, old, lid);
	ib_device_put(&rxe->ib_dev);
	return len;
}

static const struct file_operations rxe_knob_lid_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rxe_knob_lid_write,
};

/* take one of the failures @f has still to give: its status, or 0 */
static u16 rxe_ib_mad_fail_take(struct rxe_ib_mad_fail *f)
{
	if (likely(!atomic_read(&f->count)) ||
	    atomic_dec_if_positive(&f->count) < 0)
		return 0;
	return READ_ONCE(f->status);
}

/**
 * rxe_ib_sa_fail() - whether debugfs sa_fail asks the built-in SA to fail
 * a request
 * @rxe: the device of the SA's port
 * @status: gets the MAD status to answer with
 *
 * Writing "COUNT STATUS" to a soft IB device's sa_fail makes the built-in
 * SA of its ports answer the next COUNT requests of their clients with MAD
 * status STATUS (1-0xffff: 0x0100 ERR_NO_RESOURCES, 0x0300 ERR_NO_RECORDS,
 * 0x0001 busy, ...) and no records, without acting on them, as a subnet
 * administrator does that is out of resources or has no such record;
 * "0 0" disarms it, and reading gives the answers still to fail and the
 * status.  For tests: what ib_sa and its consumers (IPoIB's multicast
 * joins and path queries, the RDMA CM's route resolution) do when the SA
 * says no.
 *
 * Context: the SA's MAD agent.
 * Return: true if the request is to be failed (and one is used up)
 */
bool rxe_ib_sa_fail(struct rxe_dev *rxe, u16 *status)
{
	*status = rxe_ib_mad_fail_take(&rxe->ib->sa_fail);
	return *status;
}

/**
 * rxe_ib_smp_fail() - whether debugfs smp_fail asks the SMA to fail an SMP
 * @rxe: the device the SMP is for
 * @status: gets the MAD status to answer with
 *
 * Writing "COUNT STATUS" to a soft IB device's smp_fail makes its subnet
 * management agent answer the next COUNT Get and Set SMPs that pass the
 * M_Key check, from the wire or local, with MAD status STATUS (1-0x7fff:
 * 0x001c an invalid attribute or modifier, 0x000c an unsupported method
 * and attribute, 0x0001 busy, ...; the direction bit is the SMA's) and
 * the SMP's data unchanged, without acting on a Set; "0 0" disarms it,
 * and reading gives the answers still to fail and the status.  For tests:
 * what a subnet manager and the diagnostic tools do when an SMA says no.
 *
 * Context: the MAD layer's, any.
 * Return: true if the SMP is to be failed (and one is used up)
 */
bool rxe_ib_smp_fail(struct rxe_dev *rxe, u16 *status)
{
	*status = rxe_ib_mad_fail_take(&rxe->ib->smp_fail);
	return *status;
}

static ssize_t rxe_knob_mad_fail_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *ppos)
{
	struct rxe_ib_mad_fail *f = file->private_data;
	unsigned int count;
	char buf[32], end;
	int status, ret;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%u %i %c", &count, &status, &end) != 2 ||
	    count > INT_MAX || status < 0 || status > f->max_status ||
	    (count && !status))
		return -EINVAL;

	mutex_lock(&f->rib->fault_lock);
	/* the status before the count: a request that takes one finds it */
	atomic_set(&f->count, 0);
	WRITE_ONCE(f->status, status);
	atomic_set(&f->count, count);
	mutex_unlock(&f->rib->fault_lock);
	return len;
}

static ssize_t rxe_knob_mad_fail_read(struct file *file, char __user *ubuf,
				      size_t len, loff_t *ppos)
{
	struct rxe_ib_mad_fail *f = file->private_data;
	char buf[24];
	int n;

	n = scnprintf(buf, sizeof(buf), "%d 0x%04x\n",
		      atomic_read(&f->count), READ_ONCE(f->status));
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations rxe_knob_mad_fail_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rxe_knob_mad_fail_read,
	.write = rxe_knob_mad_fail_write,
};

/**
 * rxe_ib_debugfs_add() - give a soft IB device its own test knobs
 * @rxe: the device, being enabled; its knobs' directory made
 *	(rxe_debugfs_add())
 */
void rxe_ib_debugfs_add(struct rxe_dev *rxe)
{
	struct dentry *dir = rxe->debugfs, *ports, *pdir;
	unsigned int k;
	char name[4];
	u32 n;

	for (k = 0; k < RXE_IB_NUM_FAULT_KINDS; k++)
		debugfs_create_file(rxe_ib_fault_kinds[k], 0600, dir,
				    &rxe->ib->fault_knob[k],
				    &rxe_knob_fault_fops);
	debugfs_create_x16("lost_sls", 0600, dir, &rxe->ib->lost_sls);
	debugfs_create_file("sa_fail", 0600, dir, &rxe->ib->sa_fail,
			    &rxe_knob_mad_fail_fops);
	debugfs_create_file("smp_fail", 0600, dir, &rxe->ib->smp_fail,
			    &rxe_knob_mad_fail_fops);
	ports = debugfs_create_dir("ports", dir);
	for (n = 1; n <= rxe_ib_num_ports(rxe); n++) {
		snprintf(name, sizeof(name), "%u", n);
		pdir = debugfs_create_dir(name, ports);
		debugfs_create_file("pkey", 0200, pdir, rxe_ib_port(rxe, n),
				    &rxe_knob_pkey_fops);
		debugfs_create_file("link", 0600, pdir, rxe_ib_port(rxe, n),
				    &rxe_knob_link_fops);
		debugfs_create_file("lid", 0200, pdir, rxe_ib_port(rxe, n),
				    &rxe_knob_lid_fops);
		debugfs_create_u32("active_delay_ms", 0600, pdir,
				   &rxe_ib_port(rxe, n)->active_delay_ms);
	}
}

static struct rdma_link_ops rxe_ib_link_ops = {
	.type = "sib",
	.newlink = rxe_ib_newlink,
};

/**
 * rxe_ib_module_init() - offer the sib link type, receive its frames
 */
void rxe_ib_module_init(void)
{
	dev_add_pack(&rxe_ib_packet_type);
	rdma_link_register(&rxe_ib_link_ops);
	if (rxe_sma_module_init())
		pr_warn("soft InfiniBand ports will send no traps\n");
}

/**
 * rxe_ib_module_exit() - undo rxe_ib_module_init()
 */
void rxe_ib_module_exit(void)
{
	rxe_sma_module_exit();
	rdma_link_unregister(&rxe_ib_link_ops);
	dev_remove_pack(&rxe_ib_packet_type);
}

MODULE_ALIAS_RDMA_LINK("sib");
