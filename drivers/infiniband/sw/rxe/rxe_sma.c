// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Soft InfiniBand: the subnet management agent (SMA) of a soft IB port.
 *
 * The MAD layer hands every SMP for the port to the device's process_mad
 * op: directed-route SMPs that end at the port (local ones before they
 * reach a QP, see handle_outgoing_dr_smp()), and SMPs that arrive on QP0
 * from the wire, LID-routed or directed-route (after core/smi.c moved the
 * hop pointer).  The SMA answers SubnGet and SubnSet from what the port
 * really has, as the SMAs of qib and hfi1 do, and the MAD layer sends the
 * answer back along the return path.  Only what a channel adapter with
 * one GUID per port, a P_Key table of one block (rxe_pkey.c) and one data
 * VL needs is supported; the rest gets the MAD status of an SMA that
 * lacks it.
 * See Documentation/infiniband/soft_ib.rst.
 */

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <kunit/visibility.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_sa.h"

#define RXE_SMA_WIDTH_SUPPORTED		(IB_WIDTH_1X | IB_WIDTH_4X)
#define RXE_SMA_SPEED_SUPPORTED		IB_SPEED_SDR
#define RXE_SMA_LINKDOWN_POLL		2
/* VL0 only: VLCap and OperationalVLs 1 */
#define RXE_SMA_VLS			1
/* 4.096 us * 2^14 = 67 ms to answer, for a guest under emulation */
#define RXE_SMA_RESP_TIME		14
/* a trap the SM does not repress is sent this many times more, then dropped */
#define RXE_SMA_TRAP_RETRIES		8

/* MAD status of an SMP's answer (IBA 13.4.7) */
#define RXE_SMA_BAD_VERSION	cpu_to_be16(IB_MGMT_MAD_STATUS_BAD_VERSION)
#define RXE_SMA_UNSUP_METHOD	cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD)
#define RXE_SMA_UNSUP_METH_ATTR	\
	cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB)
#define RXE_SMA_INVALID_FIELD	\
	cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE)

static int rxe_sma_reply(struct ib_smp *smp)
{
	smp->method = IB_MGMT_METHOD_GET_RESP;
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

static int rxe_sma_reply_status(struct ib_smp *smp, __be16 status)
{
	smp->status |= status;
	return rxe_sma_reply(smp);
}

/*
 * The M_Key check of IBA 14.2.4: a Set, a TrapRepress or (protection level
 * 2 and 3) a Get that carries the wrong M_Key is counted and dropped
 * without an answer.  No lease: a wrong M_Key never expires the
 * protection.
 */
static bool rxe_sma_mkey_ok(struct rxe_dev *rxe, u32 port_num,
			    struct ib_smp *smp, int mad_flags)
{
	struct rxe_port *port = rxe_port(rxe, port_num);
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&port->port_lock, flags);
	ok = (mad_flags & IB_MAD_IGNORE_MKEY) || !port->sma.mkey ||
	     port->sma.mkey == smp->mkey ||
	     (smp->method == IB_MGMT_METHOD_GET && port->sma.mkey_prot < 2);
	if (!ok && port->sma.mkey_violations != 0xffff)
		port->sma.mkey_violations++;
	spin_unlock_irqrestore(&port->port_lock, flags);

	return ok;
}

static int rxe_sma_get_node_desc(struct rxe_dev *rxe, u32 port_num,
				 struct ib_smp *smp)
{
	if (smp->attr_mod)
		return rxe_sma_reply_status(smp, RXE_SMA_INVALID_FIELD);

	memcpy(smp->data, rxe->ib_dev.node_desc, IB_DEVICE_NODE_DESC_MAX);
	return rxe_sma_reply(smp);
}

static int rxe_sma_get_node_info(struct rxe_dev *rxe, u32 port_num,
				 struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;
	struct rxe_port *port = rxe_port(rxe, port_num);
	u32 vendor = rxe->attr.vendor_id;

	if (smp->attr_mod)
		return rxe_sma_reply_status(smp, RXE_SMA_INVALID_FIELD);

	memset(smp->data, 0, sizeof(smp->data));
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = rxe->ib_dev.phys_port_cnt;
	ni->sys_guid = rxe->attr.sys_image_guid;
	ni->node_guid = rxe->ib_dev.node_guid;
	ni->port_guid = port->port_guid;
	ni->partition_cap = cpu_to_be16(port->attr.pkey_tbl_len);
	ni->device_id = cpu_to_be16(rxe->attr.vendor_part_id);
	ni->revision = cpu_to_be32(rxe->attr.hw_ver);
	ni->local_port_num = port_num;
	ni->vendor_id[0] = vendor >> 16;
	ni->vendor_id[1] = vendor >> 8;
	ni->vendor_id[2] = vendor;
	return rxe_sma_reply(smp);
}

static int rxe_sma_get_guid_info(struct rxe_dev *rxe, u32 port_num,
				 struct ib_smp *smp)
{
	__be64 *guid = (__be64 *)smp->data;

	memset(smp->data, 0, sizeof(smp->data));
	/* one block of eight GUIDs, of which the port has one */
	if (smp->attr_mod)
		return rxe_sma_reply_status(smp, RXE_SMA_INVALID_FIELD);

	guid[0] = rxe_port(rxe, port_num)->port_guid;
	return rxe_sma_reply(smp);
}

static int rxe_sma_get_pkey_table(struct rxe_dev *rxe, u32 port_num,
				  struct ib_smp *smp)
{
	__be16 *pkey = (__be16 *)smp->data;
	unsigned int i;

	memset(smp->data, 0, sizeof(smp->data));
	/* block 0 of 32 entries, the whole table; a channel adapter ignores
	 * the port number in the upper half of the modifier
	 */
	if (be32_to_cpu(smp->attr_mod) & 0xffff)
		return rxe_sma_reply_status(smp, RXE_SMA_INVALID_FIELD);

	for (i = 0; i < RXE_IB_PKEY_TBL_LEN; i++)
		pkey[i] = cpu_to_be16(rxe_pkey_get(rxe, port_num, i));
	return rxe_sma_reply(smp);
}

static int rxe_sma_get_sl_to_vl(struct rxe_dev *rxe, u32 port_num,
				struct ib_smp *smp)
{
	memset(smp->data, 0, sizeof(smp->data));
	/* every SL on VL0, the only data VL */
	return rxe_sma_reply(smp);
}

/**
 * rxe_sma_port_sel() - the port a PortInfo attribute is about
 * @attr_mod: the SMP's attribute modifier: 0 for the port the SMP came in
 *	on, else a port number
 * @in_port: the port the SMP came in on
 * @num_ports: the device's ports
 *
 * Return: the port, 0 when @attr_mod names none
 */
VISIBLE_IF_KUNIT u32 rxe_sma_port_sel(u32 attr_mod, u32 in_port,
				      u32 num_ports)
{
	if (!attr_mod)
		return in_port;

	return attr_mod <= num_ports ? attr_mod : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_port_sel);

/* the largest IB MTU the netdevice carries, as rxe_set_mtu() finds it */
static enum ib_mtu rxe_sma_mtu_cap(struct rxe_dev *rxe, u32 port_num)
{
	enum ib_mtu max_mtu = rxe_port(rxe, port_num)->attr.max_mtu;
	struct net_device *ndev = READ_ONCE(rxe_ib_port(rxe, port_num)->ndev);
	enum ib_mtu mtu;

	if (!ndev)
		return max_mtu;

	mtu = eth_mtu_int_to_enum(READ_ONCE(ndev->mtu));
	return mtu ? min_t(enum ib_mtu, mtu, max_mtu) :
		     IB_MTU_256;
}

static u8 rxe_sma_phys_state(struct rxe_dev *rxe, u32 port_num,
			     enum ib_port_state state)
{
	struct net_device *ndev = READ_ONCE(rxe_ib_port(rxe, port_num)->ndev);

	if (state >= IB_PORT_INIT)
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (ndev && (dev_get_flags(ndev) & IFF_UP) &&
	    !READ_ONCE(rxe_ib_port(rxe, port_num)->link_disabled))
		return IB_PORT_PHYS_STATE_POLLING;
	return IB_PORT_PHYS_STATE_DISABLED;
}

static int rxe_sma_get_port_info(struct rxe_dev *rxe, u32 port_num,
				 struct ib_smp *smp)
{
	struct ib_port_info *pi = (struct ib_port_info *)smp->data;
	u32 in_port = port_num;
	struct ib_port_attr *attr;
	struct rxe_port *port;
	u8 lwe, lse, lsd, rereg;
	unsigned long flags;

	port_num = rxe_sma_port_sel(be32_to_cpu(smp->attr_mod), in_port,
				    rxe->ib_dev.phys_port_cnt);
	if (!port_num)
		return rxe_sma_reply_status(smp, RXE_SMA_INVALID_FIELD);
	port = rxe_port(rxe, port_num);
	attr = &port->attr;

	/* a Set's answer keeps the ClientReregister bit it carried */
	rereg = smp->method == IB_MGMT_METHOD_SET ?
		pi->clientrereg_resv_subnetto & 0x80 : 0;
	memset(smp->data, 0, sizeof(smp->data));

	spin_lock_irqsave(&port->port_lock, flags);
	/* protection level 1 hides the M_Key from a Get without it */
	if (!(smp->method == IB_MGMT_METHOD_GET && port->sma.mkey_prot == 1 &&
	      port->sma.mkey != smp->mkey))
		pi->mkey = port->sma.mkey;
	pi->mkey_lease_period = cpu_to_be16(port->sma.mkey_lease_period);
	pi->mkey_violations = cpu_to_be16(port->sma.mkey_violations);
	pi->mkeyprot_resv_lmc = port->sma.mkey_prot << 6 | attr->lmc;
	lwe = port->sma.link_width_enabled ?: RXE_SMA_WIDTH_SUPPORTED;
	lse = port->sma.link_speed_enabled ?: RXE_SMA_SPEED_SUPPORTED;
	lsd = port->sma.link_down_default ?: RXE_SMA_LINKDOWN_POLL;
	pi->pkey_violations = cpu_to_be16(attr->bad_pkey_cntr);
	pi->qkey_violations = cpu_to_be16(attr->qkey_viol_cntr);
	spin_unlock_irqrestore(&port->port_lock, flags);

	pi->gid_prefix = READ_ONCE(port->subnet_prefix);
	pi->lid = cpu_to_be16(READ_ONCE(rxe_ib_port(rxe, port_num)->lid));
	pi->sm_lid = cpu_to_be16(READ_ONCE(attr->sm_lid));
	pi->cap_mask = cpu_to_be32(READ_ONCE(attr->port_cap_flags));
	pi->local_port_num = in_port;
	pi->link_width_enabled = lwe;
	pi->link_width_supported = RXE_SMA_WIDTH_SUPPORTED;
	pi->link_width_active = attr->active_width;
	pi->linkspeed_portstate = RXE_SMA_SPEED_SUPPORTED << 4 |
				  (READ_ONCE(attr->state) & 0xf);
	pi->portphysstate_linkdown =
		rxe_sma_phys_state(rxe, port_num, READ_ONCE(attr->state)) << 4 | lsd;
	pi->linkspeedactive_enabled = attr->active_speed << 4 | lse;
	pi->neighbormtu_mastersmsl = READ_ONCE(attr->active_mtu) << 4 |
				     (READ_ONCE(attr->sm_sl) & 0xf);
	pi->vlcap_inittype = RXE_SMA_VLS << 4;
	pi->inittypereply_mtucap = rxe_sma_mtu_cap(rxe, port_num);
	pi->operationalvl_pei_peo_fpi_fpo = RXE_SMA_VLS << 4;
	pi->guid_cap = attr->gid_tbl_len;
	pi->clientrereg_resv_subnetto = rereg |
					(READ_ONCE(attr->subnet_timeout) & 0x1f);
	pi->resv_resptimevalue = RXE_SMA_RESP_TIME;

	return rxe_sma_reply(smp);
}

/* the unicast LIDs: 0x0001-0xBFFF */
static bool rxe_sma_lid_ok(u16 lid)
{
	return lid && lid <= RXE_IB_LID_UCAST_MAX;
}

/**
 * rxe_sma_state_ok() - whether a SubnSet(PortInfo) may ask for a port state
 * @sm_managed: a subnet manager manages the port (struct rxe_sma_port)
 * @cur: the port's state
 * @req: the PortState of the Set
 *
 * A port an SM manages comes up in INIT when its netdevice gets carrier;
 * the SM arms it (INIT -> ARMED) and then activates it (ARMED -> ACTIVE),
 * IBA 7.2; it cannot activate a port that is not armed, arm an active
 * one, or set INIT.  A port with the built-in SA is ACTIVE whenever it
 * has carrier: an SM may only confirm that.  Neither can be taken down
 * or disabled: the state follows the netdevice's carrier.  NOP (0) is
 * always allowed.
 *
 * Return: true when the Set may ask for @req
 */
VISIBLE_IF_KUNIT bool rxe_sma_state_ok(bool sm_managed, enum ib_port_state cur,
				       u8 req)
{
	if (req == IB_PORT_NOP)
		return true;
	if (!sm_managed)
		return req == IB_PORT_ACTIVE && cur == IB_PORT_ACTIVE;

	switch (req) {
	case IB_PORT_ARMED:
		return cur == IB_PORT_INIT || cur == IB_PORT_ARMED;
	case IB_PORT_ACTIVE:
		return cur == IB_PORT_ARMED || cur == IB_PORT_ACTIVE;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_state_ok);

/**
 * rxe_sma_port_carries() - whether a port in a state carries a packet
 * @state: the port's state
 * @smp: the packet is an SMP (QP0, VL15)
 * @xmit: the port is to send the packet, not receive it
 *
 * IBA 7.2: an ACTIVE port sends and receives every packet; an ARMED one
 * receives data packets too but sends SMPs only, so that a subnet
 * manager can activate the ports of a link one after the other; a port in
 * INIT sends and receives SMPs only, and a DOWN port nothing.
 *
 * Return: true when the port carries the packet
 */
bool rxe_sma_port_carries(enum ib_port_state state, bool smp, bool xmit)
{
	switch (state) {
	case IB_PORT_ACTIVE:
		return true;
	case IB_PORT_ARMED:
		return smp || !xmit;
	case IB_PORT_INIT:
		return smp;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_port_carries);

/**
 * rxe_sma_chk_port_info() - check a SubnSet(PortInfo) against what a soft
 *			     IB port can be set to
 * @rxe: the device
 * @port_num: the port the Set is about
 * @pi: the PortInfo of the Set
 *
 * A soft IB port has LMC 0, one data VL, the speeds and widths it
 * reports as supported, and the state transitions rxe_sma_state_ok()
 * allows.
 *
 * Return: true when every field may be applied
 */
static bool rxe_sma_chk_port_info(struct rxe_dev *rxe, u32 port_num,
				  const struct ib_port_info *pi)
{
	struct rxe_port *port = rxe_port(rxe, port_num);
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 lsd = pi->portphysstate_linkdown & 0xf;
	u8 lwe = pi->link_width_enabled;
	u8 lse = pi->linkspeedactive_enabled & 0xf;
	u8 vls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	int mtu = pi->neighbormtu_mastersmsl >> 4;

	if (!rxe_sma_lid_ok(be16_to_cpu(pi->lid)) ||
	    !rxe_sma_lid_ok(be16_to_cpu(pi->sm_lid)))
		return false;
	if ((pi->mkeyprot_resv_lmc & 0x7) != RXE_IB_LMC)
		return false;
	if (lwe && lwe != 0xff && (lwe & ~RXE_SMA_WIDTH_SUPPORTED))
		return false;
	if (lse && lse != 0xf && (lse & ~RXE_SMA_SPEED_SUPPORTED))
		return false;
	if (lsd > RXE_SMA_LINKDOWN_POLL)
		return false;
	if (vls > RXE_SMA_VLS)
		return false;
	if (mtu < IB_MTU_256 || mtu > rxe_sma_mtu_cap(rxe, port_num))
		return false;
	if (phys)
		return false;
	if (!rxe_sma_state_ok(port->sma.sm_managed,
			      READ_ONCE(port->attr.state), state))
		return false;

	return true;
}

/*
 * SubnSet(PortInfo), IBA 14.2.5.6: what the SM assigns (LID, SM LID and
 * SL, M_Key, subnet prefix and timeout, MTU, enables) takes effect and is
 * announced with the events the ULPs follow (LID_CHANGE, SM_CHANGE,
 * GID_CHANGE, CLIENT_REREGISTER).  A Set with a field the port cannot
 * take changes nothing and gets the invalid-field status.  The answer is
 * the PortInfo the port then has.
 */
static int rxe_sma_set_port_info(struct rxe_dev *rxe, u32 port_num,
				 struct ib_smp *smp)
{
	struct ib_port_info *pi = (struct ib_port_info *)smp->data;
	struct rxe_ib_port *ib;
	struct ib_port_attr *attr;
	struct rxe_port *port;
	u32 in_port = port_num;
	u16 lid = be16_to_cpu(pi->lid);
	u16 sm_lid = be16_to_cpu(pi->sm_lid);
	u8 sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 state = pi->linkspeed_portstate & 0xf;
	bool lid_changed, sm_changed, gid_changed;
	bool activated = false;
	unsigned long flags;

	port_num = rxe_sma_port_sel(be32_to_cpu(smp->attr_mod), in_port,
				    rxe->ib_dev.phys_port_cnt);
	if (!port_num)
		return rxe_sma_reply_status(smp, RXE_SMA_INVALID_FIELD);
	ib = rxe_ib_port(rxe, port_num);
	port = rxe_port(rxe, port_num);
	attr = &port->attr;

	if (!rxe_sma_chk_port_info(rxe, port_num, pi)) {
		smp->status |= RXE_SMA_INVALID_FIELD;
		return rxe_sma_get_port_info(rxe, in_port, smp);
	}

	spin_lock_irqsave(&ib->lid_lock, flags);
	lid_changed = ib->lid != lid;
	WRITE_ONCE(ib->lid, lid);
	attr->lid = lid;
	sm_changed = attr->sm_lid != sm_lid || attr->sm_sl != sm_sl;
	WRITE_ONCE(attr->sm_lid, sm_lid);
	WRITE_ONCE(attr->sm_sl, sm_sl);
	spin_unlock_irqrestore(&ib->lid_lock, flags);

	spin_lock_irqsave(&port->port_lock, flags);
	port->sma.mkey = pi->mkey;
	port->sma.mkey_lease_period = be16_to_cpu(pi->mkey_lease_period);
	port->sma.mkey_prot = pi->mkeyprot_resv_lmc >> 6;
	if (pi->link_width_enabled)
		port->sma.link_width_enabled =
			pi->link_width_enabled & RXE_SMA_WIDTH_SUPPORTED;
	if (pi->linkspeedactive_enabled & 0xf)
		port->sma.link_speed_enabled =
			pi->linkspeedactive_enabled & RXE_SMA_SPEED_SUPPORTED;
	if (pi->portphysstate_linkdown & 0xf)
		port->sma.link_down_default = pi->portphysstate_linkdown & 0xf;
	if (!pi->mkey_violations)
		port->sma.mkey_violations = 0;
	if (!pi->pkey_violations)
		attr->bad_pkey_cntr = 0;
	if (!pi->qkey_violations)
		attr->qkey_viol_cntr = 0;
	WRITE_ONCE(attr->subnet_timeout, pi->clientrereg_resv_subnetto & 0x1f);
	gid_changed = port->subnet_prefix != pi->gid_prefix;
	WRITE_ONCE(port->subnet_prefix, pi->gid_prefix);
	/* the MTU of the link, as the SM found it for both ends */
	WRITE_ONCE(attr->active_mtu, mtu);
	port->mtu_cap = ib_mtu_enum_to_int(mtu);
	spin_unlock_irqrestore(&port->port_lock, flags);

	if (lid_changed)
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_LID_CHANGE);
	if (sm_changed)
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_SM_CHANGE);
	if (gid_changed)
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_GID_CHANGE);
	if (pi->clientrereg_resv_subnetto & 0x80)
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_CLIENT_REREGISTER);

	/*
	 * Arm or activate the port; the netdevice may have lost its carrier
	 * since the check (the port is DOWN then), and a port that was
	 * already in the state asked for stays.
	 */
	if (port->sma.sm_managed && state == IB_PORT_ARMED)
		cmpxchg(&attr->state, IB_PORT_INIT, IB_PORT_ARMED);
	if (port->sma.sm_managed && state == IB_PORT_ACTIVE)
		activated = cmpxchg(&attr->state, IB_PORT_ARMED,
				    IB_PORT_ACTIVE) == IB_PORT_ARMED;
	if (activated) {
		dev_info(&rxe->ib_dev.dev, "set active by the SM\n");
		rxe_ib_dispatch(rxe, port_num, IB_EVENT_PORT_ACTIVE);
	}

	return rxe_sma_get_port_info(rxe, in_port, smp);
}

/* SubnSet(PKeyTable): block 0 replaces the whole table; a change raises
 * IB_EVENT_PKEY_CHANGE (rxe_pkey_set()).  Another block is refused.
 */
static int rxe_sma_set_pkey_table(struct rxe_dev *rxe, u32 port_num,
				  struct ib_smp *smp)
{
	__be16 *pkey = (__be16 *)smp->data;
	u16 tbl[RXE_IB_PKEY_TBL_LEN];
	unsigned int i;

	if (!(be32_to_cpu(smp->attr_mod) & 0xffff)) {
		for (i = 0; i < RXE_IB_PKEY_TBL_LEN; i++)
			tbl[i] = be16_to_cpu(pkey[i]);
		rxe_pkey_set(rxe, port_num, 0, tbl, RXE_IB_PKEY_TBL_LEN);
	}

	return rxe_sma_get_pkey_table(rxe, port_num, smp);
}

/* SubnSet(GUIDInfo): the port GUID is read only, the port has no other */
static int rxe_sma_set_guid_info(struct rxe_dev *rxe, u32 port_num,
				 struct ib_smp *smp)
{
	return rxe_sma_get_guid_info(rxe, port_num, smp);
}

/* SubnSet(SLtoVLMappingTable): VL0 is the only data VL */
static int rxe_sma_set_sl_to_vl(struct rxe_dev *rxe, u32 port_num,
				struct ib_smp *smp)
{
	if (memchr_inv(smp->data, 0, 8))
		smp->status |= RXE_SMA_INVALID_FIELD;

	return rxe_sma_get_sl_to_vl(rxe, port_num, smp);
}

/*
 * SMInfo belongs to the port's subnet manager: with the IsSM capability
 * (set by an SM through ib_umad's issm device) the MAD goes on to its
 * agent; without one there is no such attribute here.
 */
static int rxe_sma_sm_info(struct rxe_dev *rxe, u32 port_num,
			   struct ib_smp *smp)
{
	u32 cap = READ_ONCE(rxe_port(rxe, port_num)->attr.port_cap_flags);

	if (cap & IB_PORT_SM_DISABLED)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	if (cap & IB_PORT_SM)
		return IB_MAD_RESULT_SUCCESS;

	return rxe_sma_reply_status(smp, RXE_SMA_UNSUP_METH_ATTR);
}

/*
 * Traps.  A port a subnet manager manages tells it in a Trap(Notice 144)
 * when its CapabilityMask changes (an SM that starts or stops on the port
 * sets or clears IsSM, through ib_umad's issm file) and when the node's
 * description changes (IBA 14.2.5.1, as the SMAs of qib and hfi1 do): the
 * SM sweeps at once (OpenSM's sweep_on_trap), so it learns of a new SM or
 * reads the new NodeDescription without waiting for its next heavy sweep.
 * A packet the port drops for its P_Key is reported in a Trap(Notice 257,
 * Bad P_Key), one it drops for its Q_Key in a Trap(Notice 258, Bad
 * Q_Key), at most one of each a second, so that the SM sees a violation
 * where it happens.  The SM answers a trap with a TrapRepress of the same
 * transaction ID (IBA 13.4.9); until it does, the trap is sent again, the
 * same, every SubnetTimeOut (PortInfo, 4.096 us * 2^SubnetTimeOut), as
 * the SMAs of qib and hfi1 do: a trap lost on the wire or while the SM
 * was busy is not lost for good.  The MAD layer does it: the trap is a
 * request whose answer is the TrapRepress (ib_response_mad()), and it is
 * retried RXE_SMA_TRAP_RETRIES times, then dropped, so an SM that never
 * answers costs a port a bounded number of MADs per trap.  A TrapRepress
 * whose M_Key the port refuses is dropped (rxe_sma_mkey_ok()), and the
 * trap goes on.  Changes that come while a trap is being sent go out in
 * the next one.
 */

/*
 * A Trap(Notice) of a channel adapter port, LID-routed (IBA 14.2.5.1), its
 * DataDetails left to the caller; the rest of @smp is zeroed, M_Key
 * included (o14-1).
 */
static struct ib_mad_notice_attr *rxe_sma_notice(struct ib_smp *smp,
						 __be64 tid, u8 type,
						 __be16 trap_num, u16 lid)
{
	struct ib_mad_notice_attr *n = (struct ib_mad_notice_attr *)smp->data;

	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = tid;
	smp->attr_id = IB_SMP_ATTR_NOTICE;

	n->generic_type = type;
	n->prod_type_lsb = IB_NOTICE_PROD_CA;
	n->trap_num = trap_num;
	n->issuer_lid = cpu_to_be16(lid);
	return n;
}

/**
 * rxe_sma_notice_144() - the Trap(Notice 144) of a port
 * @smp: the SMP to fill in
 * @tid: its transaction ID
 * @lid: the port's LID, the issuer
 * @cap_mask: the port's CapabilityMask
 * @changes: what changed: RXE_SMA_TRAP_CAP_MASK, IB_NOTICE_TRAP_NODE_DESC_CHG
 *
 * A CapabilityMask change alone is reported with LocalChanges 0 (the
 * IBA's meaning of that bit: "a change other than of the CapabilityMask");
 * a change of the node's description sets LocalChanges and its ChangeFlag.
 */
VISIBLE_IF_KUNIT void rxe_sma_notice_144(struct ib_smp *smp, __be64 tid,
					 u16 lid, u32 cap_mask, u8 changes)
{
	struct ib_mad_notice_attr *n;

	n = rxe_sma_notice(smp, tid, IB_NOTICE_TYPE_INFO,
			   IB_NOTICE_TRAP_CAP_MASK_CHG, lid);
	n->details.ntc_144.lid = cpu_to_be16(lid);
	n->details.ntc_144.new_cap_mask = cpu_to_be32(cap_mask);
	if (changes & IB_NOTICE_TRAP_NODE_DESC_CHG) {
		n->details.ntc_144.local_changes = 1;
		n->details.ntc_144.change_flags = IB_NOTICE_TRAP_NODE_DESC_CHG;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_notice_144);

/**
 * rxe_sma_notice_bad_key() - the Trap(Notice 257, Bad P_Key, or 258, Bad
 *			      Q_Key) of a port
 * @smp: the SMP to fill in
 * @tid: its transaction ID
 * @trap_num: IB_NOTICE_TRAP_BAD_PKEY or IB_NOTICE_TRAP_BAD_QKEY
 * @lid: the port's LID, the issuer
 * @bad: the packet the port dropped, its P_Key or Q_Key in @bad->key
 *
 * The DataDetails of traps 257 and 258 (IBA 14.2.5.1): LID1 is the
 * packet's source, LID2 its destination, QP1 its source QP (0 when it
 * carried no DETH), QP2 its destination QP.  The GIDs are not reported: 0.
 */
VISIBLE_IF_KUNIT void rxe_sma_notice_bad_key(struct ib_smp *smp, __be64 tid,
					     __be16 trap_num, u16 lid,
					     const struct rxe_ib_bad_key *bad)
{
	struct ib_mad_notice_attr *n;

	n = rxe_sma_notice(smp, tid, IB_NOTICE_TYPE_SECURITY, trap_num, lid);
	n->details.ntc_257_258.lid1 = cpu_to_be16(bad->slid);
	n->details.ntc_257_258.lid2 = cpu_to_be16(bad->dlid);
	n->details.ntc_257_258.key = cpu_to_be32(bad->key);
	n->details.ntc_257_258.sl_qp1 = cpu_to_be32((u32)(bad->sl & 0xf) << 28 |
						    (bad->sqpn & 0xffffff));
	n->details.ntc_257_258.qp2 = cpu_to_be32(bad->dqpn & 0xffffff);
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_notice_bad_key);

/*
 * How long a trap waits for its TrapRepress before it is sent again: the
 * port's SubnetTimeOut, 4.096 us * 2^SubnetTimeOut (IBA 14.2.5.6), in
 * milliseconds, at least 1 (0 would make the MAD layer expect no answer).
 */
VISIBLE_IF_KUNIT int rxe_sma_trap_timeout_ms(u8 subnet_timeout)
{
	u64 ns = 4096ULL << (subnet_timeout & 0x1f);

	return max_t(int, 1, div_u64(ns, NSEC_PER_MSEC));
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_trap_timeout_ms);

/*
 * A MAD to the port's SM, for the caller to fill in and post with
 * rxe_sma_trap_post(); NULL when the port may send no trap now.
 */
static struct ib_mad_send_buf *rxe_sma_trap_buf(struct rxe_ib_trap *t,
						struct ib_mad_agent *agent)
{
	struct rxe_port *port = rxe_port(t->rxe, t->port_num);
	struct rdma_ah_attr ah_attr = {};
	struct ib_mad_send_buf *buf;
	struct ib_ah *ah;
	u16 sm_lid;

	/* o14-3.2.1: only an ACTIVE port sends traps, to the SM it knows */
	sm_lid = READ_ONCE(port->attr.sm_lid);
	if (READ_ONCE(port->attr.state) != IB_PORT_ACTIVE ||
	    !rxe_sma_lid_ok(sm_lid))
		return NULL;

	ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&ah_attr, sm_lid);
	rdma_ah_set_sl(&ah_attr, READ_ONCE(port->attr.sm_sl));
	rdma_ah_set_port_num(&ah_attr, t->port_num);
	ah = rdma_create_ah(agent->qp->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return NULL;

	buf = ib_create_send_mad(agent, 0, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return NULL;
	}
	buf->ah = ah;
	buf->timeout_ms =
		rxe_sma_trap_timeout_ms(READ_ONCE(port->attr.subnet_timeout));
	buf->retries = RXE_SMA_TRAP_RETRIES;
	return buf;
}

static void rxe_sma_trap_post(struct ib_mad_send_buf *buf)
{
	struct ib_ah *ah = buf->ah;

	if (!ib_post_send_mad(buf, NULL))
		return;

	ib_free_send_mad(buf);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/* the transaction ID of the port's next trap */
static __be64 rxe_sma_trap_tid(struct rxe_ib_trap *t,
			       struct ib_mad_agent *agent)
{
	return cpu_to_be64((u64)agent->hi_tid << 32 | ++t->tid);
}

/* send a trap 257 or 258 of @bad to the port's SM */
static void rxe_sma_trap_send_bad_key(struct rxe_ib_trap *t,
				      struct ib_mad_agent *agent,
				      __be16 trap_num, u16 lid,
				      const struct rxe_ib_bad_key *bad)
{
	struct ib_mad_send_buf *buf = rxe_sma_trap_buf(t, agent);

	if (!buf)
		return;
	rxe_sma_notice_bad_key(buf->mad, rxe_sma_trap_tid(t, agent), trap_num,
			       lid, bad);
	rxe_sma_trap_post(buf);
}

/* send the traps of what happened, to the port's SM */
static void rxe_sma_trap_work(struct work_struct *work)
{
	struct rxe_ib_trap *t = container_of(work, struct rxe_ib_trap, work);
	struct rxe_port *port = rxe_port(t->rxe, t->port_num);
	u16 lid = READ_ONCE(rxe_ib_port(t->rxe, t->port_num)->lid);
	struct rxe_ib_bad_key bad_pkey, bad_qkey;
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *agent;
	u8 changes;

	spin_lock_irq(&t->lock);
	agent = t->agent;
	changes = t->changes;
	bad_pkey = t->bad_pkey;
	bad_qkey = t->bad_qkey;
	t->changes = 0;
	spin_unlock_irq(&t->lock);
	if (!agent)
		return;

	if (changes & (RXE_SMA_TRAP_CAP_MASK | IB_NOTICE_TRAP_NODE_DESC_CHG)) {
		buf = rxe_sma_trap_buf(t, agent);
		if (buf) {
			rxe_sma_notice_144(buf->mad, rxe_sma_trap_tid(t, agent),
					   lid,
					   READ_ONCE(port->attr.port_cap_flags),
					   changes);
			rxe_sma_trap_post(buf);
		}
	}
	if (changes & RXE_SMA_TRAP_BAD_PKEY)
		rxe_sma_trap_send_bad_key(t, agent, IB_NOTICE_TRAP_BAD_PKEY,
					  lid, &bad_pkey);
	if (changes & RXE_SMA_TRAP_BAD_QKEY)
		rxe_sma_trap_send_bad_key(t, agent, IB_NOTICE_TRAP_BAD_QKEY,
					  lid, &bad_qkey);
}

/*
 * The SM's TrapRepress of a trap: the MAD layer found the trap by its
 * transaction ID, and completes it (rxe_sma_trap_sent()) once this
 * returns.  Nothing else to do.
 */
static void rxe_sma_trap_repressed(struct ib_mad_agent *agent,
				   struct ib_mad_send_buf *send_buf,
				   struct ib_mad_recv_wc *wc)
{
	ib_free_recv_mad(wc);
}

/* a trap was repressed, timed out, or its agent is going: free it */
static void rxe_sma_trap_sent(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/**
 * rxe_sma_trap() - tell a port's subnet manager of a change
 * @rxe: the device, a soft IB device
 * @port_num: the port
 * @changes: what changed: RXE_SMA_TRAP_CAP_MASK (the port's
 *	CapabilityMask) or IB_NOTICE_TRAP_NODE_DESC_CHG (the node's
 *	description)
 *
 * Context: any; the trap is sent from a work item.  Nothing is sent for
 * a port no subnet manager manages, or one whose device is going.
 */
void rxe_sma_trap(struct rxe_dev *rxe, u32 port_num, u8 changes)
{
	struct rxe_ib_trap *t = &rxe_ib_port(rxe, port_num)->trap;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (t->agent) {
		t->changes |= changes;
		queue_work(system_wq, &t->work);
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/*
 * Record a key violation of @pkt in @bad for a trap of @t, unless one
 * waits to be sent (@change in the trap's changes) or the last was
 * recorded less than a second ago (@next).
 */
static void rxe_sma_trap_bad_key(struct rxe_ib_trap *t,
				 struct rxe_pkt_info *pkt, u8 change,
				 struct rxe_ib_bad_key *bad,
				 unsigned long *next, u32 key, u32 sqpn)
{
	const struct rxe_ib_lrh *lrh;
	unsigned long flags;

	/* a peer that floods the port costs it no lock per packet */
	if (time_before(jiffies, READ_ONCE(*next)))
		return;

	lrh = (const struct rxe_ib_lrh *)skb_network_header(PKT_TO_SKB(pkt));
	spin_lock_irqsave(&t->lock, flags);
	if (t->agent && !(t->changes & change) &&
	    time_after_eq(jiffies, *next)) {
		bad->slid = be16_to_cpu(lrh->slid);
		bad->dlid = be16_to_cpu(lrh->dlid);
		bad->key = key;
		bad->sl = lrh->sl_lnh >> 4;
		bad->sqpn = sqpn;
		bad->dqpn = bth_qpn(pkt);
		WRITE_ONCE(*next, jiffies + HZ);
		t->changes |= change;
		queue_work(system_wq, &t->work);
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * rxe_sma_trap_bad_pkey() - tell a port's subnet manager of a packet the
 *			     port dropped for its P_Key
 * @pkt: the packet, from the wire, its LRH and BTH checked
 *
 * The first violation since the last trap of one is reported, a second
 * after that trap at the earliest; the others are only counted
 * (P_KeyViolations).
 *
 * Context: softirq.
 */
void rxe_sma_trap_bad_pkey(struct rxe_pkt_info *pkt)
{
	struct rxe_ib_trap *t = &rxe_ib_port(pkt->rxe, pkt->port_num)->trap;

	rxe_sma_trap_bad_key(t, pkt, RXE_SMA_TRAP_BAD_PKEY, &t->bad_pkey,
			     &t->bad_pkey_next, bth_pkey(pkt), 0);
}

/**
 * rxe_sma_trap_bad_qkey() - tell a port's subnet manager of a datagram the
 *			     port dropped for its Q_Key
 * @pkt: the datagram, from the wire, its P_Key accepted
 *
 * As rxe_sma_trap_bad_pkey(), with a rate of its own: the others are only
 * counted (Q_KeyViolations).
 *
 * Context: softirq.
 */
void rxe_sma_trap_bad_qkey(struct rxe_pkt_info *pkt)
{
	struct rxe_ib_trap *t = &rxe_ib_port(pkt->rxe, pkt->port_num)->trap;

	rxe_sma_trap_bad_key(t, pkt, RXE_SMA_TRAP_BAD_QKEY, &t->bad_qkey,
			     &t->bad_qkey_next, deth_qkey(pkt), deth_sqp(pkt));
}

static void rxe_sma_trap_stop(struct rxe_ib_trap *t)
{
	struct ib_mad_agent *agent;

	spin_lock_irq(&t->lock);
	agent = t->agent;
	t->agent = NULL;
	t->changes = 0;
	spin_unlock_irq(&t->lock);
	if (!agent)
		return;
	cancel_work_sync(&t->work);
	/* and the traps being sent, through rxe_sma_trap_sent() */
	ib_unregister_mad_agent(agent);
}

static struct ib_client rxe_sma_client;

/* the QP0 send agents of the ports of a soft IB device an SM manages */
static int rxe_sma_add_one(struct ib_device *dev)
{
	struct rxe_dev *rxe;
	u32 n;

	if (dev->ops.driver_id != RDMA_DRIVER_RXE)
		return -EOPNOTSUPP;
	rxe = container_of(dev, struct rxe_dev, ib_dev);
	if (!rxe_is_ib(rxe) || !rxe_port(rxe, RXE_PORT)->sma.sm_managed)
		return -EOPNOTSUPP;

	for (n = 1; n <= rxe_ib_num_ports(rxe); n++) {
		struct rxe_ib_trap *t = &rxe_ib_port(rxe, n)->trap;
		struct ib_mad_agent *agent;

		agent = ib_register_mad_agent(dev, n, IB_QPT_SMI, NULL, 0,
					      rxe_sma_trap_sent,
					      rxe_sma_trap_repressed, t, 0);
		if (IS_ERR(agent)) {
			while (--n)
				rxe_sma_trap_stop(&rxe_ib_port(rxe, n)->trap);
			return PTR_ERR(agent);
		}
		spin_lock_irq(&t->lock);
		t->agent = agent;
		spin_unlock_irq(&t->lock);
	}
	return 0;
}

static void rxe_sma_remove_one(struct ib_device *dev, void *client_data)
{
	struct rxe_dev *rxe = container_of(dev, struct rxe_dev, ib_dev);
	u32 n;

	for (n = 1; n <= rxe_ib_num_ports(rxe); n++)
		rxe_sma_trap_stop(&rxe_ib_port(rxe, n)->trap);
}

static struct ib_client rxe_sma_client = {
	.name	= "rxe_sma",
	.add	= rxe_sma_add_one,
	.remove	= rxe_sma_remove_one,
};

/**
 * rxe_sma_module_init() - let soft IB ports send traps
 *
 * Return: 0 or the error of ib_register_client()
 */
int rxe_sma_module_init(void)
{
	return ib_register_client(&rxe_sma_client);
}

/**
 * rxe_sma_module_exit() - undo rxe_sma_module_init()
 */
void rxe_sma_module_exit(void)
{
	ib_unregister_client(&rxe_sma_client);
}

/**
 * rxe_sma_process_smp() - the SMA's answer to an SMP
 * @rxe: the device, a soft IB device
 * @port_num: the port the SMP is for
 * @mad_flags: IB_MAD_IGNORE_MKEY or 0
 * @in: the SMP
 * @out: the answer, when there is one
 *
 * Context: any; takes the port's spinlocks with interrupts off.
 * Return: IB_MAD_RESULT_* flags as the process_mad op returns them:
 * SUCCESS | REPLY with the answer in @out (with the status debugfs
 * smp_fail gives, rxe_ib_smp_fail(), when it fails the SMP), SUCCESS for
 * an SMP the SMA leaves to the MAD agents (responses, traps,
 * TrapRepresses, SMInfo for the port's SM), SUCCESS | CONSUMED for one it
 * drops (wrong M_Key).
 */
VISIBLE_IF_KUNIT int rxe_sma_process_smp(struct rxe_dev *rxe, u32 port_num,
					 int mad_flags, const struct ib_mad *in,
					 struct ib_mad *out)
{
	struct ib_smp *smp = (struct ib_smp *)out;
	u16 status;

	/* the agents take the responses and the traps */
	if (in->mad_hdr.method & IB_MGMT_METHOD_RESP ||
	    in->mad_hdr.method == IB_MGMT_METHOD_TRAP)
		return IB_MAD_RESULT_SUCCESS;

	*out = *in;
	if (smp->base_version != IB_MGMT_BASE_VERSION ||
	    smp->class_version != 1)
		return rxe_sma_reply_status(smp, RXE_SMA_BAD_VERSION);

	if (!rxe_sma_mkey_ok(rxe, port_num, smp, mad_flags))
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;

	/* debugfs smp_fail; SMInfo may be for the port's SM, not the SMA */
	if ((smp->method == IB_MGMT_METHOD_GET ||
	     smp->method == IB_MGMT_METHOD_SET) &&
	    smp->attr_id != IB_SMP_ATTR_SM_INFO &&
	    unlikely(rxe_ib_smp_fail(rxe, &status)))
		return rxe_sma_reply_status(smp, cpu_to_be16(status));

	switch (smp->method) {
	case IB_MGMT_METHOD_GET:
		switch (smp->attr_id) {
		case IB_SMP_ATTR_NODE_DESC:
			return rxe_sma_get_node_desc(rxe, port_num, smp);
		case IB_SMP_ATTR_NODE_INFO:
			return rxe_sma_get_node_info(rxe, port_num, smp);
		case IB_SMP_ATTR_GUID_INFO:
			return rxe_sma_get_guid_info(rxe, port_num, smp);
		case IB_SMP_ATTR_PORT_INFO:
			return rxe_sma_get_port_info(rxe, port_num, smp);
		case IB_SMP_ATTR_PKEY_TABLE:
			return rxe_sma_get_pkey_table(rxe, port_num, smp);
		case IB_SMP_ATTR_SL_TO_VL_TABLE:
			return rxe_sma_get_sl_to_vl(rxe, port_num, smp);
		case IB_SMP_ATTR_SM_INFO:
			return rxe_sma_sm_info(rxe, port_num, smp);
		default:
			return rxe_sma_reply_status(smp,
						    RXE_SMA_UNSUP_METH_ATTR);
		}
	case IB_MGMT_METHOD_SET:
		switch (smp->attr_id) {
		case IB_SMP_ATTR_PORT_INFO:
			return rxe_sma_set_port_info(rxe, port_num, smp);
		case IB_SMP_ATTR_PKEY_TABLE:
			return rxe_sma_set_pkey_table(rxe, port_num, smp);
		case IB_SMP_ATTR_GUID_INFO:
			return rxe_sma_set_guid_info(rxe, port_num, smp);
		case IB_SMP_ATTR_SL_TO_VL_TABLE:
			return rxe_sma_set_sl_to_vl(rxe, port_num, smp);
		case IB_SMP_ATTR_SM_INFO:
			return rxe_sma_sm_info(rxe, port_num, smp);
		default:
			return rxe_sma_reply_status(smp,
						    RXE_SMA_UNSUP_METH_ATTR);
		}
	case IB_MGMT_METHOD_TRAP_REPRESS:
		/*
		 * the SM's answer to a trap: the MAD layer hands it to the
		 * trap's agent by its transaction ID, which ends the trap's
		 * repetition (rxe_sma_trap_repressed())
		 */
		return IB_MAD_RESULT_SUCCESS;
	default:
		return rxe_sma_reply_status(smp, RXE_SMA_UNSUP_METHOD);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sma_process_smp);

/**
 * rxe_sma_process_mad() - the process_mad op of a soft IB device: the
 *			   SMA's answer to an SMP
 * @ibdev: the device
 * @mad_flags: IB_MAD_IGNORE_MKEY or 0
 * @port_num: the port the MAD is for
 * @in_wc: its work completion, NULL for a local MAD
 * @in_grh: its GRH, or NULL
 * @in: the MAD
 * @out: the answer, when there is one
 * @out_mad_size: the answer's size
 * @out_mad_pkey_index: the P_Key index of the answer
 *
 * Return: IB_MAD_RESULT_* flags; IB_MAD_RESULT_SUCCESS alone for a MAD
 * of another class, which the MAD agents take.
 */
int rxe_sma_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
			const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			const struct ib_mad *in, struct ib_mad *out,
			size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		if (!rdma_is_port_valid(ibdev, port_num))
			return IB_MAD_RESULT_FAILURE;
		return rxe_sma_process_smp(to_rdev(ibdev), port_num, mad_flags,
					   in, out);
	default:
		/* not the SMA's: the MAD agents take it */
		return IB_MAD_RESULT_SUCCESS;
	}
}

/**
 * rxe_sma_port_up() - the netdevice of a soft IB port got carrier
 * @rxe: the device
 * @port_num: the port
 *
 * A port a subnet manager manages enters INIT (from DOWN) and waits for
 * the SM to arm and activate it (rxe_sma_set_port_info()), with no event:
 * IB_EVENT_PORT_ACTIVE comes when it becomes ACTIVE.  Other ports become
 * ACTIVE at once, as RoCE ports do (rxe_port_up()).
 *
 * Return: true when the port is one a subnet manager manages
 */
static bool rxe_sma_port_up(struct rxe_dev *rxe, u32 port_num)
{
	struct rxe_port *port = rxe_port(rxe, port_num);

	if (!port->sma.sm_managed)
		return false;

	if (cmpxchg(&port->attr.state, IB_PORT_DOWN, IB_PORT_INIT) ==
	    IB_PORT_DOWN)
		dev_info(&rxe->ib_dev.dev, "set init, waiting for the SM\n");
	return true;
}

static const struct ib_device_ops rxe_sma_dev_ops = {
	.process_mad = rxe_sma_process_mad,
};

/**
 * rxe_sma_set_device_ops() - give a soft IB device its SMA
 * @rxe: the device, a soft IB device not registered yet
 */
void rxe_sma_set_device_ops(struct rxe_dev *rxe)
{
	bool sm_managed = !rxe_sa_builtin();
	u32 n;

	for (n = 1; n <= rxe_ib_num_ports(rxe); n++) {
		struct rxe_port *port = rxe_port(rxe, n);

		port->sma.sm_managed = sm_managed;
		rxe_ib_port(rxe, n)->trap.rxe = rxe;
		rxe_ib_port(rxe, n)->trap.port_num = n;
		spin_lock_init(&rxe_ib_port(rxe, n)->trap.lock);
		INIT_WORK(&rxe_ib_port(rxe, n)->trap.work, rxe_sma_trap_work);
		rxe_ib_port(rxe, n)->trap.bad_pkey_next = jiffies;
		rxe_ib_port(rxe, n)->trap.bad_qkey_next = jiffies;
		/* a Set with ClientReregister raises
		 * IB_EVENT_CLIENT_REREGISTER: an SM that starts or takes
		 * over has the SA clients join again
		 */
		port->attr.port_cap_flags |= IB_PORT_CLIENT_REG_SUP;
	}
	rxe->ib->sm_port_up = rxe_sma_port_up;
	ib_set_device_ops(&rxe->ib_dev, &rxe_sma_dev_ops);
}

/**
 * rxe_sma_rcv_ok() - whether a packet to or from QP0 may be received
 * @pkt: a packet for a soft IB port, its BTH parsed
 *
 * As on an InfiniBand link, SMPs travel on VL15, the management VL, to
 * QP0, and nothing else does; the permissive DLID is for SMPs only.  A
 * packet looped back from the port itself has no wire to check.
 *
 * Return: true when the packet may go on to its QP
 */
bool rxe_sma_rcv_ok(struct rxe_pkt_info *pkt)
{
	const struct rxe_ib_lrh *lrh;
	bool vl15, to_qp0;

	if (pkt->mask & RXE_LOOPBACK_MASK)
		return true;

	lrh = (const struct rxe_ib_lrh *)skb_network_header(PKT_TO_SKB(pkt));
	vl15 = (lrh->vl_lver >> 4) == 15;
	to_qp0 = bth_qpn(pkt) == 0;
	if (vl15 != to_qp0)
		return false;

	return to_qp0 || be16_to_cpu(lrh->dlid) != RXE_IB_LID_PERMISSIVE;
}
