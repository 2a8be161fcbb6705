/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Soft InfiniBand: the built-in subnet administration responder.
 * See Documentation/infiniband/soft_ib.rst, "Subnet administration".
 */

#ifndef RXE_SA_H
#define RXE_SA_H

#include <linux/list.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>

/* SA attribute IDs (IBA 15.2.5) */
#define RXE_SA_ATTR_CLASS_PORTINFO	0x0001
#define RXE_SA_ATTR_PATH_REC		0x0035
#define RXE_SA_ATTR_MCMEMBER_REC	0x0038

/* SA class specific MAD status codes (IBA 15.2.1.1), in the status field */
#define RXE_SA_STATUS_NO_RESOURCES	0x0100
#define RXE_SA_STATUS_REQ_INVALID	0x0200
#define RXE_SA_STATUS_NO_RECORDS	0x0300
#define RXE_SA_STATUS_TOO_MANY_RECORDS	0x0400

#define RXE_SA_QKEY_DEFAULT		0x00000b1b
#define RXE_SA_PKT_LIFE			14	/* 4.096 us * 2^14 = 67 ms */
#define RXE_SA_RESP_TIME		18
#define RXE_SA_MAX_GROUPS		1024
/* members of one group, memberships of all groups of the port */
#define RXE_SA_MAX_MEMBERS		16
#define RXE_SA_MAX_MEMBERSHIPS		2048
/* records a GetTable response holds at most: every membership */
#define RXE_SA_TABLE_MAX		RXE_SA_MAX_MEMBERSHIPS

/*
 * PathRecord as on the wire (IBA 15.2.5.16); members are named after the
 * IBA's fields.
 */
struct rxe_sa_path_rec {
	__be64	service_id;
	u8	dgid[16];
	u8	sgid[16];
	__be16	dlid;
	__be16	slid;
	__be32	raw_flow_hop;	/* RawTraffic 1, rsvd 3, FlowLabel 20, HopLimit 8 */
	u8	tclass;
	u8	rev_numb_path;	/* Reversible 1, NumbPath 7 */
	__be16	pkey;
	__be16	qos_sl;		/* QoSClass 12, SL 4 */
	u8	mtu;		/* MTUSelector 2, MTU 6 */
	u8	rate;		/* RateSelector 2, Rate 6 */
	u8	pkt_life;	/* PacketLifeTimeSelector 2, PacketLifeTime 6 */
	u8	preference;
	u8	reserved[6];
} __packed;

/*
 * MCMemberRecord as on the wire (IBA 15.2.5.17); members are named after
 * the IBA's fields.
 */
struct rxe_sa_mcmember_rec {
	u8	mgid[16];
	u8	port_gid[16];
	__be32	qkey;
	__be16	mlid;
	u8	mtu;		/* MTUSelector 2, MTU 6 */
	u8	tclass;
	__be16	pkey;
	u8	rate;		/* RateSelector 2, Rate 6 */
	u8	pkt_life;	/* PacketLifeTimeSelector 2, PacketLifeTime 6 */
	__be32	sl_flow_hop;	/* SL 4, FlowLabel 20, HopLimit 8 */
	u8	scope_join;	/* Scope 4, JoinState 4 */
	u8	proxy_join;	/* ProxyJoin 1, rsvd 7 */
	u8	reserved[2];
} __packed;

/* record sizes rounded up to 8 bytes, the unit of AttributeOffset */
#define RXE_SA_PATH_REC_WORDS		(sizeof(struct rxe_sa_path_rec) / 8)
#define RXE_SA_MCMEMBER_REC_WORDS	DIV_ROUND_UP(sizeof(struct rxe_sa_mcmember_rec), 8)

/**
 * struct rxe_sa_port - what the responder knows of its port
 * @gid: GID 0
 * @lid: LID (also the SM LID)
 * @mtu: active MTU, enum ib_mtu
 * @rate: rate, enum ib_rate
 */
struct rxe_sa_port {
	union ib_gid	gid;
	u16		lid;
	u8		mtu;
	u8		rate;
};

/**
 * struct rxe_sa_member - a port that joined a multicast group
 * @list: in rxe_sa_group.members
 * @gid: the member's PortGID
 * @join_state: JoinState bits (full, non, send-only non, send-only full)
 */
struct rxe_sa_member {
	struct list_head	list;
	union ib_gid		gid;
	u8			join_state;
};

/**
 * struct rxe_sa_group - a multicast group
 * @list: in rxe_sa.groups
 * @rec: the group's MCMemberRecord (PortGID and JoinState unused)
 * @members: struct rxe_sa_member list
 * @nmembers: length of @members
 */
struct rxe_sa_group {
	struct list_head		list;
	struct rxe_sa_mcmember_rec	rec;
	struct list_head		members;
	unsigned int			nmembers;
};

/**
 * struct rxe_sa - state of the SA responder of a port
 * @port: the port
 * @groups: struct rxe_sa_group list
 * @ngroups: length of @groups
 * @nmembers: members of all groups
 * @lid_to_gid: optional; finds the port GID of a unicast LID other than
 *	the port's own, for PathRecord queries that give a DLID and no DGID.
 *	Returns false when the LID is unknown.
 * @gid_to_lid: optional; finds the LID of a peer's port GID when it is not
 *	the one derived from the GUID (it moved away from a LID another port
 *	used).  Returns false when the GID is unknown: the derived LID is
 *	used then.
 * @pkey_held: optional; the entry of the port's P_Key table for the
 *	partition of a P_Key, 0 when the port is no member.  Without it the
 *	port is a full member of the default partition only.
 * @pkey_first: optional; the first valid entry of the port's P_Key table,
 *	0 when it has none.  A PathRecord that selects no P_Key gets the
 *	default partition's entry, else this one.
 *
 * The functions taking a struct rxe_sa are called with the lock of the
 * owner held (the agent's mutex); they do not lock themselves.
 */
struct rxe_sa {
	struct rxe_sa_port	port;
	struct list_head	groups;
	unsigned int		ngroups;
	unsigned int		nmembers;
	bool			(*lid_to_gid)(struct rxe_sa *sa, u16 lid,
					      union ib_gid *gid);
	bool			(*gid_to_lid)(struct rxe_sa *sa,
					      const union ib_gid *gid,
					      u16 *lid);
	u16			(*pkey_held)(struct rxe_sa *sa, u16 pkey);
	u16			(*pkey_first)(struct rxe_sa *sa);
};

/**
 * struct rxe_sa_reply - what to send back
 * @data_len: bytes of SA data (records) in the response after the SA header
 * @rmpp: the response is a GetTableResp, sent with RMPP
 */
/* the size of the agent's buffer: the MAD and the records of a table */
#define RXE_SA_RESP_LEN	(offsetof(struct ib_sa_mad, data) + \
			 RXE_SA_TABLE_MAX * RXE_SA_MCMEMBER_REC_WORDS * 8)

struct rxe_sa_reply {
	unsigned int	data_len;
	bool		rmpp;
};

void rxe_sa_init(struct rxe_sa *sa, const struct rxe_sa_port *port);
void rxe_sa_cleanup(struct rxe_sa *sa);
u16 rxe_sa_mlid(const union ib_gid *mgid);
int rxe_sa_process(struct rxe_sa *sa, const struct ib_sa_mad *req,
		   size_t req_len, struct ib_sa_mad *resp, size_t resp_len,
		   struct rxe_sa_reply *reply);

#if IS_ENABLED(CONFIG_RDMA_RXE_IB)
int rxe_sa_module_init(void);
void rxe_sa_module_exit(void);
bool rxe_sa_builtin(void);
#else
static inline int rxe_sa_module_init(void) { return 0; }
static inline void rxe_sa_module_exit(void) {}
#endif

#endif /* RXE_SA_H */
