/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Soft InfiniBand: the InfiniBand link layer mode of rxe (a test device).
 * See Documentation/infiniband/soft_ib.rst.
 */

#ifndef RXE_IB_H
#define RXE_IB_H

#include <linux/if_ether.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct ib_mad_agent;
struct rxe_dev;
struct rxe_av;
struct rxe_qp;
struct rxe_pkt_info;

/* EtherType of the frames carrying the IB packets: IEEE 802 Local
 * Experimental EtherType 1, meant for prototypes.
 */
#define RXE_IB_ETH_P		ETH_P_802_EX1

#define RXE_IB_LID_UCAST_MAX	0xbfff
#define RXE_IB_LID_MCAST_MIN	0xc000
#define RXE_IB_LID_PERMISSIVE	0xffff
#define RXE_IB_DEFAULT_SL	0
/* one LID per port: no source path bits */
#define RXE_IB_LMC		0
#define RXE_IB_PORT_RATE	IB_RATE_10_GBPS
/*
 * QPs one multicast group may hold: every IPoIB interface of a port, the
 * child interfaces included, attaches its UD QP to the broadcast group
 * and has no carrier until it did.  rxe's 56 would cap a port at 55
 * child interfaces, where HCAs take thousands.
 */
#define RXE_IB_MAX_MCAST_QP_ATTACH	1024

/* rxe_av.network_type of an IB address vector (RoCE uses 1 and 2) */
#define RXE_IB_NETWORK_TYPE	0x80

/**
 * struct rxe_ib_lrh - InfiniBand local route header (IBA 7.7)
 * @vl_lver: VL (4 bits), LVer (4 bits)
 * @sl_lnh: SL (4 bits), reserved (2 bits), LNH (2 bits)
 * @dlid: destination LID
 * @pktlen: reserved (5 bits), packet length in 4-byte words from the LRH
 *	through the ICRC (11 bits)
 * @slid: source LID
 */
struct rxe_ib_lrh {
	u8	vl_lver;
	u8	sl_lnh;
	__be16	dlid;
	__be16	pktlen;
	__be16	slid;
};

#define RXE_IB_LRH_BYTES	sizeof(struct rxe_ib_lrh)
#define RXE_IB_PKTLEN_MASK	0x7ff

static inline u8 rxe_ib_lrh_lnh(const struct rxe_ib_lrh *lrh)
{
	return lrh->sl_lnh & 0x3;
}

static inline u8 rxe_ib_lrh_sl(const struct rxe_ib_lrh *lrh)
{
	return lrh->sl_lnh >> 4;
}

static inline u8 rxe_ib_lrh_lver(const struct rxe_ib_lrh *lrh)
{
	return lrh->vl_lver & 0xf;
}

static inline unsigned int rxe_ib_lrh_len(const struct rxe_ib_lrh *lrh)
{
	return (be16_to_cpu(lrh->pktlen) & RXE_IB_PKTLEN_MASK) * 4;
}

static inline bool rxe_ib_lid_is_mcast(u16 lid)
{
	return lid >= RXE_IB_LID_MCAST_MIN;
}

/**
 * struct rxe_ib_av - IB addressing of an address vector
 * @dlid: destination LID
 * @sl: service level
 * @src_path_bits: source path bits (always 0, LMC is 0)
 * @global: the packets carry a GRH
 *
 * Stored in the sgid_addr member of struct rxe_av, which only the IP
 * encapsulation of RoCE uses.
 */
struct rxe_ib_av {
	u16	dlid;
	u8	sl;
	u8	src_path_bits;
	u8	global;
};

/**
 * enum rxe_ib_counter - what the port counts on the wire
 * @RXE_IB_CNT_XMIT_WORDS: 4-octet words sent, LRH through ICRC
 * @RXE_IB_CNT_RCV_WORDS: 4-octet words received, LRH through ICRC
 * @RXE_IB_CNT_XMIT_PKTS: packets sent
 * @RXE_IB_CNT_RCV_PKTS: packets received
 * @RXE_IB_CNT_UCAST_XMIT_PKTS: packets sent to a unicast or permissive LID
 * @RXE_IB_CNT_UCAST_RCV_PKTS: packets received for a unicast or permissive
 *	LID
 * @RXE_IB_CNT_MCAST_XMIT_PKTS: packets sent to a multicast LID
 * @RXE_IB_CNT_MCAST_RCV_PKTS: packets received for a multicast LID
 * @RXE_IB_CNT_RCV_ERRORS: packets received with an error: a bad ICRC, or
 *	malformed (LVer, a packet length too short for its headers or
 *	opcode, an unknown opcode, VL15 other than to QP0)
 * @RXE_IB_CNT_XMIT_DISCARDS: packets the port did not send: the netdevice
 *	did not take them, or the port was not ACTIVE (IBA 7.2)
 * @RXE_IB_CNT_VL15_DROPPED: SMPs received that QP0 had no receive buffer
 *	for
 * @RXE_IB_CNT_LINK_DOWNED: times the port went down
 * @RXE_IB_CNT_STATE_DROPS: packets received that the port's state did not
 *	let it take (IBA 7.2: INIT takes SMPs only, ARMED data too)
 * @RXE_IB_NUM_COUNTERS: the number of counters
 *
 * A packet looped back inside the port never reaches the wire and is not
 * counted.  The performance management agent reports these (rxe_pma.c),
 * except RXE_IB_CNT_STATE_DROPS, for which the IBA names no counter: it is
 * the port's hw counter ib_port_state_drops (rxe_hw_counters.c).
 */
enum rxe_ib_counter {
	RXE_IB_CNT_XMIT_WORDS,
	RXE_IB_CNT_RCV_WORDS,
	RXE_IB_CNT_XMIT_PKTS,
	RXE_IB_CNT_RCV_PKTS,
	RXE_IB_CNT_UCAST_XMIT_PKTS,
	RXE_IB_CNT_UCAST_RCV_PKTS,
	RXE_IB_CNT_MCAST_XMIT_PKTS,
	RXE_IB_CNT_MCAST_RCV_PKTS,
	RXE_IB_CNT_RCV_ERRORS,
	RXE_IB_CNT_XMIT_DISCARDS,
	RXE_IB_CNT_VL15_DROPPED,
	RXE_IB_CNT_LINK_DOWNED,
	RXE_IB_CNT_STATE_DROPS,
	RXE_IB_NUM_COUNTERS
};

/* the entries of the P_Key table of a port: one PKeyTable block */
#define RXE_IB_PKEY_TBL_LEN	32

/* the ports a soft IB device can have: one per underlying netdevice */
#define RXE_IB_MAX_PORTS	2

/**
 * struct rxe_ib_bad_key - a packet a soft IB port dropped for its P_Key or
 *			   its Q_Key, as a Trap(Notice 257 or 258) reports
 *			   it (rxe_sma.c)
 * @slid: the packet's source LID
 * @dlid: its destination LID
 * @key: its P_Key or Q_Key
 * @sl: its SL
 * @sqpn: its source QP, 0 when it carries none (no DETH)
 * @dqpn: its destination QP
 */
struct rxe_ib_bad_key {
	u16			slid;
	u16			dlid;
	u32			key;
	u8			sl;
	u32			sqpn;
	u32			dqpn;
};

/**
 * struct rxe_ib_trap - the traps a soft IB port sends its subnet manager
 *			(rxe_sma.c)
 * @rxe: the device
 * @port_num: the port
 * @agent: the port's QP0 send agent; NULL unless the rxe_sma client added
 *	it (ports a subnet manager manages) and has not removed it.  Under
 *	@lock
 * @changes: what changed since the last trap (RXE_SMA_TRAP_CAP_MASK,
 *	IB_NOTICE_TRAP_NODE_DESC_CHG) and whether @bad_pkey or @bad_qkey
 *	waits to be sent (RXE_SMA_TRAP_BAD_PKEY, RXE_SMA_TRAP_BAD_QKEY);
 *	under @lock
 * @bad_pkey: the first P_Key violation since the last trap of one; under
 *	@lock
 * @bad_pkey_next: when the next P_Key violation may be recorded: one
 *	trap a second at most, however many packets a peer sends; written
 *	under @lock, read without it first
 * @bad_qkey: the first Q_Key violation since the last trap of one; under
 *	@lock
 * @bad_qkey_next: as @bad_pkey_next, for Q_Key violations
 * @lock: serialises @agent, @changes and the violations
 * @work: sends a trap of @changes
 * @tid: the low 32 bits of the last trap's transaction ID; @work only
 */
struct rxe_ib_trap {
	struct rxe_dev		*rxe;
	u32			port_num;
	struct ib_mad_agent	*agent;
	u8			changes;
	struct rxe_ib_bad_key	bad_pkey;
	unsigned long		bad_pkey_next;
	struct rxe_ib_bad_key	bad_qkey;
	unsigned long		bad_qkey_next;
	spinlock_t		lock;		/* see above */
	struct work_struct	work;
	u32			tid;
};

/**
 * struct rxe_ib_port - state of a port of a soft InfiniBand device
 * @lid: the port's LID, derived from the GUID when the port gets its
 *	netdevice; it moves when another port on the segment uses it
 *	(rxe_ib_lid_collision()) or a subnet manager assigns another
 *	(rxe_sma.c).  Read with READ_ONCE() anywhere, written under
 *	@lid_lock
 * @lid_lock: serialises the moves of @lid and of the port attributes'
 *	LID and SM LID (a collision, or the subnet manager through the SMA)
 * @ndev: the underlying netdevice, NULL until the port has one (a port
 *	beyond the first gets it from a later "rdma link add", see
 *	rxe_ib_newlink()); then held for the life of the device so the
 *	packet path (also in softirq context) needs no lookup.  Set once,
 *	with WRITE_ONCE() after the rest of the port, read with READ_ONCE()
 * @ndev_tracker: tracks the reference on @ndev
 * @rxe: the port's device
 * @active_work: tells of the port's IB_EVENT_PORT_ACTIVE late, when a
 *	test asks for it (@active_delay_ms)
 * @active_delay_ms: debugfs ports/N/active_delay_ms, see
 *	rxe_ib_port_event()
 * @link_disabled: debugfs ports/N/link: the port's link is disabled, the
 *	port DOWN whatever its netdevice's carrier; changed under RTNL
 * @delayed: the packets that debugfs delay holds back, in the order they
 *	are due (their skb->tstamp), ready for the wire
 * @delay_work: sends @delayed's packets when they are due
 * @neigh: LID -> struct rxe_ib_neigh, the learned MAC addresses of the
 *	peers on the port's link; entries are freed with kfree_rcu(), read
 *	under RCU.  The xarray's own lock serialises the updates.
 * @counters: the port's packet and data counters, enum rxe_ib_counter;
 *	they only grow
 * @pkeys: the P_Key table (rxe_pkey.c), 0 in an empty entry; written
 *	under @pkey_lock with WRITE_ONCE(), read with READ_ONCE() anywhere
 * @pkey_lock: serialises the writers of @pkeys
 * @trap: the traps the port sends (rxe_sma.c)
 */
struct rxe_ib_port {
	u16			lid;
	spinlock_t		lid_lock;	/* serialises the moves of @lid */
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	struct rxe_dev		*rxe;
	struct delayed_work	active_work;
	u32			active_delay_ms;
	bool			link_disabled;
	struct sk_buff_head	delayed;
	struct delayed_work	delay_work;
	struct xarray		neigh;
	atomic64_t		counters[RXE_IB_NUM_COUNTERS];
	u16			pkeys[RXE_IB_PKEY_TBL_LEN];
	spinlock_t		pkey_lock;	/* serialises writers of @pkeys */
	struct rxe_ib_trap	trap;
};

/**
 * enum rxe_ib_fault_class - the classes of the packets a soft IB port
 *	sends that debugfs drop and corrupt take
 * @RXE_IB_FAULT_REQ: RC and UC requests
 * @RXE_IB_FAULT_NAK: NAKs of requests refused for good (invalid request,
 *	remote access error, remote operational error); also responses
 * @RXE_IB_FAULT_RESP: RC responses: ACKs and NAKs, RDMA READ responses,
 *	atomic ACKs
 * @RXE_IB_FAULT_UD: UD datagrams of QPs other than QP0 and QP1
 * @RXE_IB_FAULT_MAD: datagrams of QP0 and QP1: SMPs and GMPs
 * @RXE_IB_NUM_FAULT_CLASSES: the number of classes
 */
enum rxe_ib_fault_class {
	RXE_IB_FAULT_REQ,
	RXE_IB_FAULT_NAK,
	RXE_IB_FAULT_RESP,
	RXE_IB_FAULT_UD,
	RXE_IB_FAULT_MAD,
	RXE_IB_NUM_FAULT_CLASSES
};

/**
 * enum rxe_ib_fault_kind - what debugfs drop, corrupt and delay do to a
 *	packet
 * @RXE_IB_FAULT_DROP: lose it on the wire
 * @RXE_IB_FAULT_CORRUPT: send it with a bit of its ICRC flipped
 * @RXE_IB_FAULT_DELAY: hold it back
 * @RXE_IB_NUM_FAULT_KINDS: the number of kinds
 */
enum rxe_ib_fault_kind {
	RXE_IB_FAULT_DROP,
	RXE_IB_FAULT_CORRUPT,
	RXE_IB_FAULT_DELAY,
	RXE_IB_NUM_FAULT_KINDS
};

struct rxe_ib;

/**
 * struct rxe_ib_fault_knob - what a fault knob's file stands for
 * @rib: the device's InfiniBand state
 * @kind: the knob's kind of fault
 */
struct rxe_ib_fault_knob {
	struct rxe_ib		*rib;
	enum rxe_ib_fault_kind	kind;
};

/**
 * struct rxe_ib_mad_fail - a debugfs knob that fails the next MAD answers
 * @rib: the device's IB state, whose fault_lock serialises the writes
 * @count: how many of the next requests get a failed answer
 * @status: the MAD status of those answers
 * @max_status: the highest status the knob accepts
 */
struct rxe_ib_mad_fail {
	struct rxe_ib		*rib;
	atomic_t		count;
	u16			status;
	u16			max_status;
};

/**
 * struct rxe_ib - state of the InfiniBand mode of an rxe device
 * @num_ports: the number of ports, fixed when the device is created
 *	(the sib_ports module parameter)
 * @sm_port_up: the subnet management agent's word on a port whose
 *	netdevice got carrier (rxe_sma.c): true when the port waits in INIT
 *	for a subnet manager; NULL without an SMA.  Set before the device
 *	is registered.
 * @lost_sls: debugfs lost_sls, see rxe_ib_send()
 * @faults_armed: whether the last write to debugfs drop, corrupt or
 *	delay left a fault to come; only then is every packet sent
 *	classified
 * @fault_lock: serialises the writes to those knobs
 * @fault: per kind and class, how many of the next packets sent take the
 *	fault (debugfs drop, corrupt, delay; rxe_ib_fault())
 * @delay_ms: debugfs delay: per class, how late
 * @fault_knob: what the files of those knobs stand for
 * @sa_fail: debugfs sa_fail: the requests the built-in SA fails
 *	(rxe_ib_sa_fail())
 * @smp_fail: debugfs smp_fail: the SMPs the SMA fails (rxe_ib_smp_fail())
 * @port: the ports, port 1 first; use rxe_ib_port()
 */
struct rxe_ib {
	u8			num_ports;
	bool			(*sm_port_up)(struct rxe_dev *rxe, u32 port_num);
	u16			lost_sls;
	bool			faults_armed;
	struct mutex		fault_lock;	/* serialises the knobs' writes */
	atomic_t		fault[RXE_IB_NUM_FAULT_KINDS]
				     [RXE_IB_NUM_FAULT_CLASSES];
	u32			delay_ms[RXE_IB_NUM_FAULT_CLASSES];
	struct rxe_ib_fault_knob fault_knob[RXE_IB_NUM_FAULT_KINDS];
	struct rxe_ib_mad_fail	sa_fail;
	struct rxe_ib_mad_fail	smp_fail;
	struct rxe_ib_port	port[RXE_IB_MAX_PORTS];
};

u16 rxe_ib_lid_from_guid(__be64 guid);

#if IS_ENABLED(CONFIG_RDMA_RXE_IB)

static inline bool rxe_is_ib(const struct rxe_dev *rxe)
{
	return !!rxe->ib;
}

static inline struct rxe_ib_av *rxe_ib_av(struct rxe_av *av)
{
	BUILD_BUG_ON(sizeof(struct rxe_ib_av) > sizeof(av->sgid_addr));
	return (struct rxe_ib_av *)&av->sgid_addr;
}

/**
 * rxe_ib_port() - the IB state of a port of a soft IB device
 * @rxe: the device
 * @port_num: a valid port number of @rxe, from 1
 *
 * Return: the port's state
 */
static inline struct rxe_ib_port *rxe_ib_port(struct rxe_dev *rxe,
					      u32 port_num)
{
	return &rxe->ib->port[port_num - 1];
}

static inline u8 rxe_ib_num_ports(struct rxe_dev *rxe)
{
	return rxe->ib->num_ports;
}

int rxe_ib_init(struct rxe_dev *rxe, struct net_device *ndev);
void rxe_ib_cleanup(struct rxe_dev *rxe);
void rxe_ib_set_device_ops(struct rxe_dev *rxe);
void rxe_ib_module_init(void);
void rxe_ib_module_exit(void);
void rxe_ib_debugfs_add(struct rxe_dev *rxe);
bool rxe_ib_sa_fail(struct rxe_dev *rxe, u16 *status);
bool rxe_ib_smp_fail(struct rxe_dev *rxe, u16 *status);

int rxe_ib_chk_attr(struct rxe_dev *rxe, struct rdma_ah_attr *attr);
void rxe_ib_init_av(struct rdma_ah_attr *attr, struct rxe_av *av);
void rxe_ib_av_to_attr(struct rxe_av *av, struct rdma_ah_attr *attr);

struct sk_buff *rxe_ib_init_packet(struct rxe_dev *rxe, struct rxe_av *av,
				   int paylen, struct rxe_pkt_info *pkt);
int rxe_ib_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
		   struct sk_buff *skb);
int rxe_ib_send(struct sk_buff *skb, struct rxe_pkt_info *pkt);
bool rxe_ib_xmit_ok(struct rxe_qp *qp, struct rxe_pkt_info *pkt);
void rxe_ib_vl15_dropped(struct rxe_pkt_info *pkt);

/* the packets a port's state did not let it take (ib_port_state_drops) */
static inline u64 rxe_ib_port_state_drops(struct rxe_dev *rxe, u32 port_num)
{
	struct rxe_ib_port *ib = rxe_ib_port(rxe, port_num);

	return atomic64_read(&ib->counters[RXE_IB_CNT_STATE_DROPS]);
}

unsigned int rxe_ib_icrc_pshdr(struct sk_buff *skb, u8 *pshdr);
int rxe_ib_check_addr(struct rxe_pkt_info *pkt, struct rxe_qp *qp);
union ib_gid *rxe_ib_pkt_dgid(struct sk_buff *skb);
void rxe_ib_ud_hdr(struct sk_buff *skb, union rdma_network_hdr *hdr);
bool rxe_ib_pkt_src(struct sk_buff *skb, u16 *slid, u8 *sl);
void rxe_ib_learn_src(struct rxe_dev *rxe, struct sk_buff *skb);
bool rxe_ib_lid_to_gid(struct rxe_dev *rxe, u32 port_num, u16 lid,
		       union ib_gid *gid);
bool rxe_ib_gid_to_lid(struct rxe_dev *rxe, u32 port_num,
		       const union ib_gid *gid, u16 *lid);
u32 rxe_ib_port_of(struct rxe_dev *rxe, struct net_device *ndev);
void rxe_ib_set_port_state(struct rxe_dev *rxe, u32 port_num);
void rxe_ib_dispatch(struct rxe_dev *rxe, u32 port_num,
		     enum ib_event_type type);
u16 rxe_ib_set_lid(struct rxe_dev *rxe, u32 port_num, u16 lid);
void rxe_ib_notify(struct rxe_dev *rxe, struct net_device *ndev,
		   unsigned long event);

/* rxe_pkey.c: the P_Key table of a port */
bool rxe_pkey_valid(u16 pkey);
bool rxe_pkey_match(u16 a, u16 b);
int rxe_pkey_find(const u16 *tbl, unsigned int len, u16 pkey);
u16 rxe_pkey_get(struct rxe_dev *rxe, u32 port_num, u16 index);
u16 rxe_pkey_held(struct rxe_dev *rxe, u32 port_num, u16 pkey);
u16 rxe_pkey_first(struct rxe_dev *rxe, u32 port_num);
bool rxe_pkey_set(struct rxe_dev *rxe, u32 port_num, unsigned int first,
		  const u16 *pkeys, unsigned int n);
void rxe_pkey_init(struct rxe_dev *rxe, u32 port_num);
int rxe_pkey_query(struct ib_device *ibdev, u32 port_num, u16 index,
		   u16 *pkey);
int rxe_pkey_chk_qp_attr(struct rxe_qp *qp, struct ib_qp_attr *attr,
			 int mask);
u16 rxe_pkey_send(struct rxe_pkt_info *pkt);
bool rxe_pkey_port_rcv_ok(struct rxe_pkt_info *pkt);
int rxe_pkey_check(struct rxe_pkt_info *pkt, struct rxe_qp *qp);

#else

static inline bool rxe_is_ib(const struct rxe_dev *rxe)
{
	return false;
}

static inline struct rxe_ib_av *rxe_ib_av(struct rxe_av *av)
{
	return NULL;
}

static inline int rxe_ib_init(struct rxe_dev *rxe, struct net_device *ndev)
{
	return -EOPNOTSUPP;
}

static inline void rxe_ib_cleanup(struct rxe_dev *rxe) {}
static inline void rxe_ib_set_device_ops(struct rxe_dev *rxe) {}
static inline void rxe_ib_module_init(void) {}
static inline void rxe_ib_module_exit(void) {}
static inline void rxe_ib_debugfs_add(struct rxe_dev *rxe) {}

static inline int rxe_ib_chk_attr(struct rxe_dev *rxe,
				  struct rdma_ah_attr *attr)
{
	return -EINVAL;
}

static inline void rxe_ib_init_av(struct rdma_ah_attr *attr,
				  struct rxe_av *av) {}
static inline void rxe_ib_av_to_attr(struct rxe_av *av,
				     struct rdma_ah_attr *attr) {}

static inline struct sk_buff *rxe_ib_init_packet(struct rxe_dev *rxe,
						 struct rxe_av *av, int paylen,
						 struct rxe_pkt_info *pkt)
{
	return NULL;
}

static inline int rxe_ib_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
				 struct sk_buff *skb)
{
	return -EOPNOTSUPP;
}

static inline int rxe_ib_send(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	return -EOPNOTSUPP;
}

static inline bool rxe_ib_xmit_ok(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	return true;
}

static inline void rxe_ib_vl15_dropped(struct rxe_pkt_info *pkt) {}

static inline u64 rxe_ib_port_state_drops(struct rxe_dev *rxe, u32 port_num)
{
	return 0;
}

static inline unsigned int rxe_ib_icrc_pshdr(struct sk_buff *skb, u8 *pshdr)
{
	return 0;
}

static inline int rxe_ib_check_addr(struct rxe_pkt_info *pkt,
				    struct rxe_qp *qp)
{
	return -EINVAL;
}

static inline union ib_gid *rxe_ib_pkt_dgid(struct sk_buff *skb)
{
	return NULL;
}

static inline void rxe_ib_ud_hdr(struct sk_buff *skb,
				 union rdma_network_hdr *hdr) {}

static inline bool rxe_ib_pkt_src(struct sk_buff *skb, u16 *slid, u8 *sl)
{
	return false;
}

static inline void rxe_ib_learn_src(struct rxe_dev *rxe,
				    struct sk_buff *skb) {}

static inline u8 rxe_ib_num_ports(struct rxe_dev *rxe)
{
	return 1;
}

static inline bool rxe_ib_lid_to_gid(struct rxe_dev *rxe, u32 port_num,
				     u16 lid, union ib_gid *gid)
{
	return false;
}

static inline bool rxe_ib_gid_to_lid(struct rxe_dev *rxe, u32 port_num,
				     const union ib_gid *gid, u16 *lid)
{
	return false;
}

static inline u32 rxe_ib_port_of(struct rxe_dev *rxe, struct net_device *ndev)
{
	return 0;
}

static inline void rxe_ib_set_port_state(struct rxe_dev *rxe, u32 port_num) {}

static inline int rxe_pkey_chk_qp_attr(struct rxe_qp *qp,
				       struct ib_qp_attr *attr, int mask)
{
	return 0;
}

static inline int rxe_pkey_check(struct rxe_pkt_info *pkt, struct rxe_qp *qp)
{
	return 0;
}

static inline void rxe_ib_notify(struct rxe_dev *rxe, struct net_device *ndev,
				 unsigned long event) {}

#endif /* CONFIG_RDMA_RXE_IB */

#endif /* RXE_IB_H */
