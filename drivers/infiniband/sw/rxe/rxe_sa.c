// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Soft InfiniBand: the built-in subnet administration responder.
 *
 * Every sib port is its own SM and SA: its SM LID is its own LID, so the
 * queries of ib_sa come back to the node, where this agent answers them
 * from deterministic rules (Documentation/infiniband/soft_ib.rst).
 *
 * rxe_sa_process() and its helpers parse a request and build the response;
 * they touch nothing but their arguments and are tested by rxe_sa_kunit.c.
 * The agent at the end of the file connects them to the MAD layer.
 */

#include <linux/jhash.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_cache.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_sa.h"

static bool rxe_sa_selected(const struct ib_sa_mad *mad, ib_sa_comp_mask bit)
{
	return !!(mad->sa_hdr.comp_mask & bit);
}

/*
 * Does @have satisfy the (selector, value) pair of a request?  Without a
 * selected selector the value must match exactly.
 */
static bool rxe_sa_sel_ok(bool sel_given, u8 sel, int value, int have)
{
	if (!sel_given)
		return have == value;

	switch (sel) {
	case IB_SA_GT:
		return have > value;
	case IB_SA_LT:
		return have < value;
	case IB_SA_EQ:
		return have == value;
	default:	/* IB_SA_BEST */
		return true;
	}
}

static int rxe_sa_rate_mbps(u8 rate)
{
	return ib_rate_to_mbps(rate);
}

/**
 * rxe_sa_mlid() - the MLID of a multicast group
 * @mgid: the group's MGID
 *
 * The same on every node: a hash of the MGID into 0xC000-0xFFFE.
 *
 * Return: the MLID
 */
u16 rxe_sa_mlid(const union ib_gid *mgid)
{
	u32 w[4];

	memcpy(w, mgid->raw, sizeof(w));
	return RXE_IB_LID_MCAST_MIN +
	       jhash2(w, ARRAY_SIZE(w), 0) % (RXE_IB_LID_PERMISSIVE -
					      RXE_IB_LID_MCAST_MIN);
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sa_mlid);

static void rxe_sa_class_port_info(struct rxe_sa *sa, struct ib_sa_mad *resp)
{
	struct ib_class_port_info *cpi = (struct ib_class_port_info *)resp->data;

	memset(cpi, 0, sizeof(*cpi));
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = IB_SA_CLASS_VERSION;
	ib_set_cpi_resp_time(cpi, RXE_SA_RESP_TIME);
	ib_set_cpi_capmask2(cpi, IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT);
}

/* PathRecord */

static bool rxe_sa_gid_is_local(const struct rxe_sa *sa, const u8 *gid)
{
	return !memcmp(gid, sa->port.gid.raw, 8);	/* subnet prefix */
}

/* The port GID behind a unicast LID: the port's own or a known peer's. */
static int rxe_sa_lid_gid(struct rxe_sa *sa, u16 lid, union ib_gid *gid)
{
	if (lid == sa->port.lid) {
		*gid = sa->port.gid;
		return 0;
	}
	if (!lid || rxe_ib_lid_is_mcast(lid) || !sa->lid_to_gid ||
	    !sa->lid_to_gid(sa, lid, gid))
		return -ENOENT;

	return 0;
}

/*
 * The entry of the port's P_Key table for the partition of @pkey, 0 when
 * the port is no member of it.
 */
static u16 rxe_sa_pkey_held(struct rxe_sa *sa, u16 pkey)
{
	if (sa->pkey_held)
		return sa->pkey_held(sa, pkey);

	return (pkey & 0x7fff) == 0x7fff ? IB_DEFAULT_PKEY_FULL : 0;
}

/*
 * A P_Key of the port for a path whose request selects none: that of the
 * default partition, else the first entry of the port's table, as a
 * subnet manager answers with a P_Key both ends share (OpenSM: the first
 * it finds); 0 when the port has no partition left.
 */
static u16 rxe_sa_pkey_any(struct rxe_sa *sa)
{
	u16 pkey = rxe_sa_pkey_held(sa, IB_DEFAULT_PKEY_FULL);

	if (!pkey && sa->pkey_first)
		pkey = sa->pkey_first(sa);
	return pkey;
}

/*
 * The P_Key in an IPoIB MGID (RFC 4391: ffX2:401b:PKEY::/ffX2:601b:PKEY::),
 * 0 for another MGID.
 */
static u16 rxe_sa_ipoib_mgid_pkey(const u8 *mgid)
{
	if ((mgid[2] != 0x40 && mgid[2] != 0x60) || mgid[3] != 0x1b)
		return 0;

	return mgid[4] << 8 | mgid[5];
}

/* The LID of a unicast port GID of the subnet: the port's own or a peer's. */
static u16 rxe_sa_gid_lid(struct rxe_sa *sa, const union ib_gid *gid)
{
	u16 lid;

	if (!memcmp(gid->raw, sa->port.gid.raw, sizeof(gid->raw)))
		return sa->port.lid;
	if (sa->gid_to_lid && sa->gid_to_lid(sa, gid, &lid))
		return lid;

	return rxe_ib_lid_from_guid(gid->global.interface_id);
}

/*
 * Fill @rec with the path to the DGID of @req, or to its DLID when it
 * gives no DGID.
 * Return: 0, or -ENOENT when no such path exists
 */
static int rxe_sa_path(struct rxe_sa *sa, const struct ib_sa_mad *req,
		       struct rxe_sa_path_rec *rec)
{
	const struct rxe_sa_path_rec *q = (const void *)req->data;
	union ib_gid dgid;
	u16 dlid, pkey;

	if (rxe_sa_selected(req, IB_SA_PATH_REC_DGID))
		memcpy(dgid.raw, q->dgid, sizeof(dgid.raw));
	else if (!rxe_sa_selected(req, IB_SA_PATH_REC_DLID) ||
		 rxe_sa_lid_gid(sa, be16_to_cpu(q->dlid), &dgid))
		return -ENOENT;

	if (rxe_sa_selected(req, IB_SA_PATH_REC_SGID) &&
	    memcmp(q->sgid, sa->port.gid.raw, sizeof(q->sgid)))
		return -ENOENT;
	if (rxe_sa_selected(req, IB_SA_PATH_REC_SLID) &&
	    be16_to_cpu(q->slid) != sa->port.lid)
		return -ENOENT;

	if (rdma_is_multicast_addr((struct in6_addr *)dgid.raw)) {
		dlid = rxe_sa_mlid(&dgid);
	} else {
		if (!rxe_sa_gid_is_local(sa, dgid.raw))
			return -ENOENT;
		dlid = rxe_sa_gid_lid(sa, &dgid);
	}
	if (rxe_sa_selected(req, IB_SA_PATH_REC_DLID) &&
	    be16_to_cpu(q->dlid) != dlid)
		return -ENOENT;

	/* a path in a partition the port is a member of */
	if (rxe_sa_selected(req, IB_SA_PATH_REC_PKEY))
		pkey = rxe_sa_pkey_held(sa, be16_to_cpu(q->pkey));
	else
		pkey = rxe_sa_pkey_any(sa);
	if (!pkey)
		return -ENOENT;
	if (rxe_sa_selected(req, IB_SA_PATH_REC_SL) &&
	    (be16_to_cpu(q->qos_sl) & 0xf) != RXE_IB_DEFAULT_SL)
		return -ENOENT;
	if (rxe_sa_selected(req, IB_SA_PATH_REC_MTU) &&
	    !rxe_sa_sel_ok(rxe_sa_selected(req, IB_SA_PATH_REC_MTU_SELECTOR),
			   q->mtu >> 6, q->mtu & 0x3f, sa->port.mtu))
		return -ENOENT;
	if (rxe_sa_selected(req, IB_SA_PATH_REC_RATE) &&
	    !rxe_sa_sel_ok(rxe_sa_selected(req, IB_SA_PATH_REC_RATE_SELECTOR),
			   q->rate >> 6, rxe_sa_rate_mbps(q->rate & 0x3f),
			   rxe_sa_rate_mbps(sa->port.rate)))
		return -ENOENT;
	if (rxe_sa_selected(req, IB_SA_PATH_REC_PACKET_LIFE_TIME) &&
	    !rxe_sa_sel_ok(rxe_sa_selected(req,
				IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR),
			   q->pkt_life >> 6, q->pkt_life & 0x3f,
			   RXE_SA_PKT_LIFE))
		return -ENOENT;

	memset(rec, 0, sizeof(*rec));
	if (rxe_sa_selected(req, IB_SA_PATH_REC_SERVICE_ID))
		rec->service_id = q->service_id;
	memcpy(rec->dgid, dgid.raw, sizeof(rec->dgid));
	memcpy(rec->sgid, sa->port.gid.raw, sizeof(rec->sgid));
	rec->dlid = cpu_to_be16(dlid);
	rec->slid = cpu_to_be16(sa->port.lid);
	rec->raw_flow_hop = 0;		/* flow label 0, hop limit 0 */
	rec->tclass = 0;
	rec->rev_numb_path = 0x80 | 1;	/* reversible, one path */
	rec->pkey = cpu_to_be16(pkey);
	rec->qos_sl = cpu_to_be16(RXE_IB_DEFAULT_SL);
	rec->mtu = IB_SA_EQ << 6 | sa->port.mtu;
	rec->rate = IB_SA_EQ << 6 | sa->port.rate;
	rec->pkt_life = IB_SA_EQ << 6 | RXE_SA_PKT_LIFE;
	return 0;
}

/* MCMemberRecord */

static struct rxe_sa_group *rxe_sa_find_group(struct rxe_sa *sa,
					      const u8 *mgid)
{
	struct rxe_sa_group *g;

	list_for_each_entry(g, &sa->groups, list)
		if (!memcmp(g->rec.mgid, mgid, sizeof(g->rec.mgid)))
			return g;

	return NULL;
}

static struct rxe_sa_member *rxe_sa_find_member(struct rxe_sa_group *g,
						const u8 *gid)
{
	struct rxe_sa_member *m;

	list_for_each_entry(m, &g->members, list)
		if (!memcmp(m->gid.raw, gid, sizeof(m->gid.raw)))
			return m;

	return NULL;
}

static void rxe_sa_free_group(struct rxe_sa *sa, struct rxe_sa_group *g)
{
	struct rxe_sa_member *m, *tmp;

	list_for_each_entry_safe(m, tmp, &g->members, list) {
		list_del(&m->list);
		kfree(m);
	}
	sa->nmembers -= g->nmembers;
	list_del(&g->list);
	sa->ngroups--;
	kfree(g);
}

/* The record of a new group: the request where selected, else defaults. */
static int rxe_sa_new_group_rec(struct rxe_sa *sa, const struct ib_sa_mad *req,
				struct rxe_sa_mcmember_rec *rec)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	u32 sl = RXE_IB_DEFAULT_SL, flow = 0, hop = 0;
	u8 mtu = sa->port.mtu, rate = sa->port.rate;

	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MTU)) {
		bool sel = rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MTU_SELECTOR);

		if (!sel || q->mtu >> 6 == IB_SA_EQ)
			mtu = q->mtu & 0x3f;
		if (mtu > sa->port.mtu || !mtu ||
		    !rxe_sa_sel_ok(sel, q->mtu >> 6, q->mtu & 0x3f, mtu))
			return -EINVAL;
	}
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_RATE)) {
		bool sel = rxe_sa_selected(req, IB_SA_MCMEMBER_REC_RATE_SELECTOR);

		if (!sel || q->rate >> 6 == IB_SA_EQ)
			rate = q->rate & 0x3f;
		if (rxe_sa_rate_mbps(rate) <= 0 ||
		    !rxe_sa_sel_ok(sel, q->rate >> 6,
				   rxe_sa_rate_mbps(q->rate & 0x3f),
				   rxe_sa_rate_mbps(rate)))
			return -EINVAL;
	}
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_SL))
		sl = be32_to_cpu(q->sl_flow_hop) >> 28;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_FLOW_LABEL))
		flow = be32_to_cpu(q->sl_flow_hop) >> 8 & 0xfffff;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_HOP_LIMIT))
		hop = be32_to_cpu(q->sl_flow_hop) & 0xff;

	memset(rec, 0, sizeof(*rec));
	memcpy(rec->mgid, q->mgid, sizeof(rec->mgid));
	rec->qkey = cpu_to_be32(RXE_SA_QKEY_DEFAULT);
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_QKEY) && q->qkey)
		rec->qkey = q->qkey;
	rec->mlid = cpu_to_be16(rxe_sa_mlid((const union ib_gid *)q->mgid));
	rec->mtu = IB_SA_EQ << 6 | mtu;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_TRAFFIC_CLASS))
		rec->tclass = q->tclass;
	/* the group's partition: the one asked for, or an IPoIB MGID's */
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PKEY))
		rec->pkey = q->pkey | cpu_to_be16(0x8000);
	else if (rxe_sa_ipoib_mgid_pkey(q->mgid))
		rec->pkey = cpu_to_be16(rxe_sa_ipoib_mgid_pkey(q->mgid) |
					0x8000);
	else
		rec->pkey = cpu_to_be16(IB_DEFAULT_PKEY_FULL);
	rec->rate = IB_SA_EQ << 6 | rate;
	rec->pkt_life = IB_SA_EQ << 6 | RXE_SA_PKT_LIFE;
	rec->sl_flow_hop = cpu_to_be32(sl << 28 | flow << 8 | hop);
	rec->scope_join = (q->mgid[1] & 0xf) << 4;
	return 0;
}

/* Can a join with @req become a member of the group @g? */
static bool rxe_sa_join_ok(const struct rxe_sa_group *g,
			   const struct ib_sa_mad *req)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	const struct rxe_sa_mcmember_rec *r = &g->rec;

	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_QKEY) && q->qkey &&
	    q->qkey != r->qkey)
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MLID) && q->mlid &&
	    q->mlid != r->mlid)
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MTU) &&
	    !rxe_sa_sel_ok(rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MTU_SELECTOR),
			   q->mtu >> 6, q->mtu & 0x3f, r->mtu & 0x3f))
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_RATE) &&
	    !rxe_sa_sel_ok(rxe_sa_selected(req, IB_SA_MCMEMBER_REC_RATE_SELECTOR),
			   q->rate >> 6, rxe_sa_rate_mbps(q->rate & 0x3f),
			   rxe_sa_rate_mbps(r->rate & 0x3f)))
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_SL) &&
	    (q->sl_flow_hop ^ r->sl_flow_hop) & cpu_to_be32(0xf0000000))
		return false;

	return true;
}

static int rxe_sa_mcm_join(struct rxe_sa *sa, const struct ib_sa_mad *req,
			   struct rxe_sa_mcmember_rec *rec)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	u8 join = q->scope_join & 0xf;
	struct rxe_sa_member *m;
	struct rxe_sa_group *g;
	bool new_group = false;

	if (!rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MGID) ||
	    !rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PORT_GID) ||
	    !rxe_sa_selected(req, IB_SA_MCMEMBER_REC_JOIN_STATE) || !join)
		return RXE_SA_STATUS_REQ_INVALID;
	/* no SA-assigned MGIDs: the MGID must be a multicast GID */
	if (q->mgid[0] != 0xff)
		return RXE_SA_STATUS_REQ_INVALID;
	/* only a member of the group's partition joins it */
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PKEY) &&
	    !rxe_sa_pkey_held(sa, be16_to_cpu(q->pkey)))
		return RXE_SA_STATUS_REQ_INVALID;
	if (rxe_sa_ipoib_mgid_pkey(q->mgid) &&
	    !rxe_sa_pkey_held(sa, rxe_sa_ipoib_mgid_pkey(q->mgid)))
		return RXE_SA_STATUS_REQ_INVALID;

	g = rxe_sa_find_group(sa, q->mgid);
	if (!g) {
		if (sa->ngroups >= RXE_SA_MAX_GROUPS)
			return RXE_SA_STATUS_NO_RESOURCES;
		g = kzalloc(sizeof(*g), GFP_KERNEL);
		if (!g)
			return RXE_SA_STATUS_NO_RESOURCES;
		if (rxe_sa_new_group_rec(sa, req, &g->rec)) {
			kfree(g);
			return RXE_SA_STATUS_REQ_INVALID;
		}
		INIT_LIST_HEAD(&g->members);
		list_add_tail(&g->list, &sa->groups);
		sa->ngroups++;
		new_group = true;
	} else if (!rxe_sa_join_ok(g, req)) {
		return RXE_SA_STATUS_REQ_INVALID;
	}

	m = rxe_sa_find_member(g, q->port_gid);
	if (!m) {
		if (g->nmembers < RXE_SA_MAX_MEMBERS &&
		    sa->nmembers < RXE_SA_MAX_MEMBERSHIPS)
			m = kzalloc(sizeof(*m), GFP_KERNEL);
		if (!m) {
			if (new_group)
				rxe_sa_free_group(sa, g);
			return RXE_SA_STATUS_NO_RESOURCES;
		}
		memcpy(m->gid.raw, q->port_gid, sizeof(m->gid.raw));
		list_add_tail(&m->list, &g->members);
		g->nmembers++;
		sa->nmembers++;
	}
	m->join_state |= join;

	*rec = g->rec;
	memcpy(rec->port_gid, q->port_gid, sizeof(rec->port_gid));
	rec->scope_join = (rec->scope_join & 0xf0) | m->join_state;
	return 0;
}

static int rxe_sa_mcm_leave(struct rxe_sa *sa, const struct ib_sa_mad *req,
			    struct rxe_sa_mcmember_rec *rec)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	u8 leave = q->scope_join & 0xf;
	struct rxe_sa_member *m;
	struct rxe_sa_group *g;

	if (!rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MGID) ||
	    !rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PORT_GID) ||
	    !rxe_sa_selected(req, IB_SA_MCMEMBER_REC_JOIN_STATE) || !leave)
		return RXE_SA_STATUS_REQ_INVALID;

	g = rxe_sa_find_group(sa, q->mgid);
	m = g ? rxe_sa_find_member(g, q->port_gid) : NULL;
	if (!m)
		return RXE_SA_STATUS_REQ_INVALID;

	*rec = g->rec;
	memcpy(rec->port_gid, q->port_gid, sizeof(rec->port_gid));
	rec->scope_join = (rec->scope_join & 0xf0) | (m->join_state & leave);

	m->join_state &= ~leave;
	if (!m->join_state) {
		list_del(&m->list);
		kfree(m);
		g->nmembers--;
		sa->nmembers--;
	}
	if (list_empty(&g->members))
		rxe_sa_free_group(sa, g);

	return 0;
}

static int rxe_sa_mcm_get(struct rxe_sa *sa, const struct ib_sa_mad *req,
			  struct rxe_sa_mcmember_rec *rec)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	struct rxe_sa_member *m;
	struct rxe_sa_group *g;

	if (!rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MGID))
		return RXE_SA_STATUS_REQ_INVALID;

	g = rxe_sa_find_group(sa, q->mgid);
	if (!g)
		return RXE_SA_STATUS_NO_RECORDS;

	/* a record is a membership: a Get must name one */
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PORT_GID))
		m = rxe_sa_find_member(g, q->port_gid);
	else if (g->nmembers == 1)
		m = list_first_entry(&g->members, struct rxe_sa_member, list);
	else
		return RXE_SA_STATUS_TOO_MANY_RECORDS;
	if (!m)
		return RXE_SA_STATUS_NO_RECORDS;

	*rec = g->rec;
	memcpy(rec->port_gid, m->gid.raw, sizeof(rec->port_gid));
	rec->scope_join = (g->rec.scope_join & 0xf0) | m->join_state;
	return 0;
}

/* Does the group @g match the group components selected in @req? */
static bool rxe_sa_mcm_match(const struct rxe_sa_group *g,
			     const struct ib_sa_mad *req)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	const struct rxe_sa_mcmember_rec *r = &g->rec;

	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MGID) &&
	    memcmp(q->mgid, r->mgid, sizeof(r->mgid)))
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_MLID) && q->mlid != r->mlid)
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_QKEY) && q->qkey != r->qkey)
		return false;
	if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PKEY) &&
	    (q->pkey ^ r->pkey) & cpu_to_be16(0x7fff))
		return false;

	return true;
}

/*
 * GetTable: one record per member of each group that matches @req (and
 * per member with the selected PortGID), with the member's PortGID and
 * JoinState, written to @data, at most @room bytes.
 * Return: 0 with the bytes written in *@len, or an SA status
 */
static int rxe_sa_mcm_table(struct rxe_sa *sa, const struct ib_sa_mad *req,
			    u8 *data, size_t room, unsigned int *len)
{
	const struct rxe_sa_mcmember_rec *q = (const void *)req->data;
	const size_t rec_size = RXE_SA_MCMEMBER_REC_WORDS * 8;
	struct rxe_sa_mcmember_rec *rec;
	struct rxe_sa_member *m;
	struct rxe_sa_group *g;
	unsigned int n = 0;

	*len = 0;
	list_for_each_entry(g, &sa->groups, list) {
		if (!rxe_sa_mcm_match(g, req))
			continue;
		list_for_each_entry(m, &g->members, list) {
			if (rxe_sa_selected(req, IB_SA_MCMEMBER_REC_PORT_GID) &&
			    memcmp(m->gid.raw, q->port_gid, sizeof(m->gid.raw)))
				continue;
			if ((n + 1) * rec_size > room)
				return RXE_SA_STATUS_NO_RESOURCES;
			rec = (struct rxe_sa_mcmember_rec *)(data + n * rec_size);
			memset(rec, 0, rec_size);
			*rec = g->rec;
			memcpy(rec->port_gid, m->gid.raw, sizeof(rec->port_gid));
			rec->scope_join = (g->rec.scope_join & 0xf0) |
					  m->join_state;
			n++;
		}
	}

	*len = n * rec_size;
	return 0;
}

static void rxe_sa_resp_init(const struct ib_sa_mad *req,
			     struct ib_sa_mad *resp, u8 method)
{
	memset(resp, 0, sizeof(*resp));
	resp->mad_hdr = req->mad_hdr;
	resp->mad_hdr.method = method;
	resp->mad_hdr.status = 0;
	resp->sa_hdr.comp_mask = req->sa_hdr.comp_mask;
}

/*
 * The answer of an SA that refuses @req with @status (debugfs sa_fail,
 * rxe_ib_sa_fail()): the response method of the request's, no records,
 * nothing done.  Return: 0, or -EINVAL when nothing is to be sent, as for
 * rxe_sa_process().
 */
static int rxe_sa_fail_resp(const struct ib_sa_mad *req, size_t req_len,
			    struct ib_sa_mad *resp, u16 status,
			    struct rxe_sa_reply *reply)
{
	const struct ib_mad_hdr *hdr = &req->mad_hdr;

	reply->data_len = 0;
	reply->rmpp = false;
	if (req_len < sizeof(*req) || hdr->mgmt_class != IB_MGMT_CLASS_SUBN_ADM ||
	    (hdr->method & IB_MGMT_METHOD_RESP))
		return -EINVAL;

	switch (hdr->method) {
	case IB_SA_METHOD_GET_TABLE:
		rxe_sa_resp_init(req, resp, IB_SA_METHOD_GET_TABLE_RESP);
		break;
	case IB_SA_METHOD_DELETE:
		rxe_sa_resp_init(req, resp, IB_SA_METHOD_DELETE_RESP);
		break;
	default:
		rxe_sa_resp_init(req, resp, IB_MGMT_METHOD_GET_RESP);
		break;
	}
	resp->mad_hdr.status = cpu_to_be16(status);
	return 0;
}

/**
 * rxe_sa_process() - answer an SA request
 * @sa: the responder's state; the caller serialises calls
 * @req: the received MAD
 * @req_len: bytes received, at least the size of a MAD for a valid request
 * @resp: the response MAD, built here
 * @resp_len: bytes at @resp, at least the size of a MAD; the records of a
 *	GetTable response may fill all of it
 * @reply: how to send @resp
 *
 * Context: process context (may allocate with GFP_KERNEL).
 * Return: 0 when @resp must be sent, -EINVAL when nothing is to be sent
 *	(a response, a MAD of another class, a truncated MAD) or @resp_len
 *	is too small.
 */
int rxe_sa_process(struct rxe_sa *sa, const struct ib_sa_mad *req,
		   size_t req_len, struct ib_sa_mad *resp, size_t resp_len,
		   struct rxe_sa_reply *reply)
{
	const size_t room = resp_len - offsetof(struct ib_sa_mad, data);
	const struct ib_mad_hdr *hdr = &req->mad_hdr;
	u8 method = hdr->method;
	u16 status = 0;
	int err;

	reply->data_len = 0;
	reply->rmpp = false;

	if (req_len < sizeof(*req) || resp_len < sizeof(*resp) ||
	    hdr->mgmt_class != IB_MGMT_CLASS_SUBN_ADM)
		return -EINVAL;
	if (method & IB_MGMT_METHOD_RESP)
		return -EINVAL;

	switch (method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
		rxe_sa_resp_init(req, resp, IB_MGMT_METHOD_GET_RESP);
		break;
	case IB_SA_METHOD_GET_TABLE:
		rxe_sa_resp_init(req, resp, IB_SA_METHOD_GET_TABLE_RESP);
		reply->rmpp = true;
		break;
	case IB_SA_METHOD_DELETE:
		rxe_sa_resp_init(req, resp, IB_SA_METHOD_DELETE_RESP);
		break;
	default:
		rxe_sa_resp_init(req, resp, IB_MGMT_METHOD_GET_RESP);
		resp->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
		return 0;
	}

	if (hdr->base_version != IB_MGMT_BASE_VERSION ||
	    hdr->class_version != IB_SA_CLASS_VERSION) {
		resp->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_BAD_VERSION);
		reply->rmpp = false;
		return 0;
	}

	switch (be16_to_cpu(hdr->attr_id)) {
	case RXE_SA_ATTR_CLASS_PORTINFO:
		if (method != IB_MGMT_METHOD_GET)
			goto bad_method_attr;
		rxe_sa_class_port_info(sa, resp);
		reply->data_len = sizeof(struct ib_class_port_info);
		break;

	case RXE_SA_ATTR_PATH_REC: {
		struct rxe_sa_path_rec *rec = (void *)resp->data;

		if (method != IB_MGMT_METHOD_GET &&
		    method != IB_SA_METHOD_GET_TABLE)
			goto bad_method_attr;
		memcpy(resp->data, req->data, sizeof(*rec));
		err = rxe_sa_path(sa, req, rec);
		if (method == IB_SA_METHOD_GET_TABLE) {
			resp->sa_hdr.attr_offset =
				cpu_to_be16(RXE_SA_PATH_REC_WORDS);
			reply->data_len = err ? 0 : sizeof(*rec);
		} else if (err) {
			status = RXE_SA_STATUS_NO_RECORDS;
		} else {
			reply->data_len = sizeof(*rec);
		}
		break;
	}

	case RXE_SA_ATTR_MCMEMBER_REC: {
		struct rxe_sa_mcmember_rec *rec = (void *)resp->data;

		memcpy(resp->data, req->data, sizeof(*rec));
		switch (method) {
		case IB_MGMT_METHOD_SET:
			status = rxe_sa_mcm_join(sa, req, rec);
			break;
		case IB_SA_METHOD_DELETE:
			status = rxe_sa_mcm_leave(sa, req, rec);
			break;
		case IB_MGMT_METHOD_GET:
			status = rxe_sa_mcm_get(sa, req, rec);
			break;
		case IB_SA_METHOD_GET_TABLE:
			resp->sa_hdr.attr_offset =
				cpu_to_be16(RXE_SA_MCMEMBER_REC_WORDS);
			status = rxe_sa_mcm_table(sa, req, resp->data, room,
						  &reply->data_len);
			break;
		default:
			goto bad_method_attr;
		}
		if (!status && method != IB_SA_METHOD_GET_TABLE)
			reply->data_len = sizeof(*rec);
		break;
	}

	default:
		resp->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		reply->rmpp = false;
		return 0;
	}

	resp->mad_hdr.status = cpu_to_be16(status);
	return 0;

bad_method_attr:
	resp->mad_hdr.status =
		cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	reply->rmpp = false;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sa_process);

/**
 * rxe_sa_init() - initialise the responder's state
 * @sa: the state
 * @port: the port it answers for
 */
void rxe_sa_init(struct rxe_sa *sa, const struct rxe_sa_port *port)
{
	sa->port = *port;
	INIT_LIST_HEAD(&sa->groups);
	sa->ngroups = 0;
	sa->nmembers = 0;
	sa->lid_to_gid = NULL;
	sa->gid_to_lid = NULL;
	sa->pkey_held = NULL;
	sa->pkey_first = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sa_init);

/**
 * rxe_sa_cleanup() - forget all groups
 * @sa: the state
 */
void rxe_sa_cleanup(struct rxe_sa *sa)
{
	struct rxe_sa_group *g, *tmp;

	list_for_each_entry_safe(g, tmp, &sa->groups, list)
		rxe_sa_free_group(sa, g);
}
EXPORT_SYMBOL_IF_KUNIT(rxe_sa_cleanup);

/* the agent: one per sib port, an ib_client so it lives as long as the
 * MAD port it is registered on
 */

/**
 * struct rxe_sa_agent - the SA responder of a port of a sib device
 * @agent: MAD agent for the SA class requests (Get, Set, GetTable, Delete)
 * @rxe: the device
 * @port_num: the port; each port is the SM and SA of its own link
 * @lock: serialises the requests; protects @sa
 * @sa: the responder's state
 */
struct rxe_sa_agent {
	struct ib_mad_agent	*agent;
	struct rxe_dev		*rxe;
	u32			port_num;
	struct mutex		lock; /* protects sa */
	struct rxe_sa		sa;
};

static struct ib_client rxe_sa_client;

static void rxe_sa_send_handler(struct ib_mad_agent *mad_agent,
				struct ib_mad_send_wc *send_wc)
{
	struct ib_mad_send_buf *msg = send_wc->send_buf;

	rdma_destroy_ah(msg->ah, 0);
	ib_free_send_mad(msg);
}

/* The send buffer of an RMPP MAD holds the headers, its segments the data. */
static void rxe_sa_copy_segments(struct ib_mad_send_buf *msg, const u8 *data,
				 unsigned int len)
{
	unsigned int n;
	int seg;

	for (seg = 1; len; seg++, data += n, len -= n) {
		n = min_t(unsigned int, len, msg->seg_size);
		memcpy(ib_get_rmpp_segment(msg, seg), data, n);
	}
}

static void rxe_sa_send_reply(struct ib_mad_agent *mad_agent,
			      struct ib_mad_recv_wc *recv_wc,
			      const struct ib_sa_mad *resp,
			      const struct rxe_sa_reply *reply)
{
	struct ib_mad_send_buf *msg;
	struct ib_sa_mad *out;
	struct ib_ah *ah;

	ah = ib_create_ah_from_wc(mad_agent->qp->pd, recv_wc->wc,
				  recv_wc->recv_buf.grh, mad_agent->port_num);
	if (IS_ERR(ah))
		return;

	msg = ib_create_send_mad(mad_agent, recv_wc->wc->src_qp,
				 recv_wc->wc->pkey_index, reply->rmpp,
				 IB_MGMT_SA_HDR,
				 reply->rmpp ? reply->data_len : IB_MGMT_SA_DATA,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(msg)) {
		rdma_destroy_ah(ah, 0);
		return;
	}

	/* keep the RMPP header ib_create_send_mad() set up */
	out = msg->mad;
	out->mad_hdr = resp->mad_hdr;
	out->sa_hdr = resp->sa_hdr;
	if (reply->rmpp)
		rxe_sa_copy_segments(msg, resp->data, reply->data_len);
	else
		memcpy(out->data, resp->data, IB_MGMT_SA_DATA);

	msg->ah = ah;
	if (ib_post_send_mad(msg, NULL)) {
		rdma_destroy_ah(ah, 0);
		ib_free_send_mad(msg);
	}
}

static bool rxe_sa_agent_lid_to_gid(struct rxe_sa *sa, u16 lid,
				    union ib_gid *gid)
{
	struct rxe_sa_agent *a = container_of(sa, struct rxe_sa_agent, sa);

	return rxe_ib_lid_to_gid(a->rxe, a->port_num, lid, gid);
}

static bool rxe_sa_agent_gid_to_lid(struct rxe_sa *sa,
				    const union ib_gid *gid, u16 *lid)
{
	struct rxe_sa_agent *a = container_of(sa, struct rxe_sa_agent, sa);

	return rxe_ib_gid_to_lid(a->rxe, a->port_num, gid, lid);
}

static u16 rxe_sa_agent_pkey_held(struct rxe_sa *sa, u16 pkey)
{
	struct rxe_sa_agent *a = container_of(sa, struct rxe_sa_agent, sa);

	return rxe_pkey_held(a->rxe, a->port_num, pkey);
}

static u16 rxe_sa_agent_pkey_first(struct rxe_sa *sa)
{
	struct rxe_sa_agent *a = container_of(sa, struct rxe_sa_agent, sa);

	return rxe_pkey_first(a->rxe, a->port_num);
}

static void rxe_sa_recv_handler(struct ib_mad_agent *mad_agent,
				struct ib_mad_send_buf *send_buf,
				struct ib_mad_recv_wc *recv_wc)
{
	struct rxe_sa_agent *a = mad_agent->context;
	struct rxe_port *port = rxe_port(a->rxe, a->port_num);
	u16 lid = READ_ONCE(rxe_ib_port(a->rxe, a->port_num)->lid);
	const struct ib_sa_mad *req;
	struct rxe_sa_reply reply;
	struct ib_sa_mad *resp;
	u16 status;
	size_t len;
	int err;

	/* Every node is its own SA: answer only the port's own clients.
	 * ib_sa and ib_umad send from QP1, and rxe_ib_rcv() drops frames
	 * from other nodes that carry this port's LID as their SLID, so a
	 * request from another host or from an ordinary QP gets nothing.
	 */
	if (recv_wc->wc->slid != lid ||
	    recv_wc->wc->src_qp != 1)
		goto out;

	/* only a GetTable may need more than one MAD */
	len = recv_wc->recv_buf.mad->mad_hdr.method == IB_SA_METHOD_GET_TABLE ?
	      RXE_SA_RESP_LEN : sizeof(*resp);
	resp = kvmalloc(len, GFP_KERNEL);
	if (!resp)
		goto out;

	mutex_lock(&a->lock);
	a->sa.port.mtu = port->attr.active_mtu;
	a->sa.port.lid = lid;
	/* a port beyond the first got its GUID after the agent started */
	a->sa.port.gid.global.subnet_prefix = READ_ONCE(port->subnet_prefix);
	a->sa.port.gid.global.interface_id = port->port_guid;
	req = (const struct ib_sa_mad *)recv_wc->recv_buf.mad;
	if (unlikely(rxe_ib_sa_fail(a->rxe, &status)))
		err = rxe_sa_fail_resp(req, recv_wc->mad_len, resp, status,
				       &reply);
	else
		err = rxe_sa_process(&a->sa, req, recv_wc->mad_len, resp,
				     len, &reply);
	mutex_unlock(&a->lock);
	if (err)
		goto free;

	rxe_sa_send_reply(mad_agent, recv_wc, resp, &reply);
free:
	kvfree(resp);
out:
	ib_free_recv_mad(recv_wc);
}

/*
 * sib_builtin_sa=N: soft IB devices created from then on get no built-in
 * SA; the SA class is left to a subnet manager such as OpenSM, which
 * configures the ports through their SMA (rxe_sma.c).
 */
static bool sib_builtin_sa = true;
module_param(sib_builtin_sa, bool, 0644);
MODULE_PARM_DESC(sib_builtin_sa,
		 "soft InfiniBand devices created from now on answer SA queries in the kernel (default Y); N leaves the SA class to a subnet manager");

/**
 * rxe_sa_builtin() - whether soft IB devices created now get a built-in SA
 *
 * Return: false when a subnet manager is to manage them (sib_builtin_sa=N)
 */
bool rxe_sa_builtin(void)
{
	return READ_ONCE(sib_builtin_sa);
}

static void rxe_sa_remove_agent(struct rxe_sa_agent *a)
{
	ib_unregister_mad_agent(a->agent);
	rxe_sa_cleanup(&a->sa);
	mutex_destroy(&a->lock);
}

static int rxe_sa_add_agent(struct rxe_dev *rxe, u32 port_num,
			    struct rxe_sa_agent *a)
{
	struct ib_mad_reg_req reg_req = {
		.mgmt_class = IB_MGMT_CLASS_SUBN_ADM,
		.mgmt_class_version = IB_SA_CLASS_VERSION,
	};
	struct rxe_port *rport = rxe_port(rxe, port_num);
	struct rxe_sa_port port = {};

	a->rxe = rxe;
	a->port_num = port_num;
	mutex_init(&a->lock);
	port.gid.global.subnet_prefix = rport->subnet_prefix;
	port.gid.global.interface_id = rport->port_guid;
	port.lid = READ_ONCE(rxe_ib_port(rxe, port_num)->lid);
	port.mtu = rport->attr.active_mtu;
	port.rate = RXE_IB_PORT_RATE;
	rxe_sa_init(&a->sa, &port);
	a->sa.lid_to_gid = rxe_sa_agent_lid_to_gid;
	a->sa.gid_to_lid = rxe_sa_agent_gid_to_lid;
	a->sa.pkey_held = rxe_sa_agent_pkey_held;
	a->sa.pkey_first = rxe_sa_agent_pkey_first;

	set_bit(IB_MGMT_METHOD_GET, reg_req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg_req.method_mask);
	set_bit(IB_SA_METHOD_GET_TABLE, reg_req.method_mask);
	set_bit(IB_SA_METHOD_DELETE, reg_req.method_mask);

	a->agent = ib_register_mad_agent(&rxe->ib_dev, port_num, IB_QPT_GSI,
					 &reg_req, IB_MGMT_RMPP_VERSION,
					 rxe_sa_send_handler,
					 rxe_sa_recv_handler, a, 0);
	if (IS_ERR(a->agent)) {
		mutex_destroy(&a->lock);
		return PTR_ERR(a->agent);
	}

	return 0;
}

/* the agents of a device: one per port, in an array its client data
 * points to, ended by one whose rxe is NULL
 */
static int rxe_sa_add_one(struct ib_device *dev)
{
	struct rxe_sa_agent *agents;
	struct rxe_dev *rxe;
	u32 n;
	int err;

	if (dev->ops.driver_id != RDMA_DRIVER_RXE ||
	    !rdma_cap_ib_sa(dev, RXE_PORT))
		return -EOPNOTSUPP;
	rxe = container_of(dev, struct rxe_dev, ib_dev);
	if (!rxe_is_ib(rxe) || !rxe_sa_builtin())
		return -EOPNOTSUPP;

	agents = kcalloc(dev->phys_port_cnt + 1, sizeof(*agents), GFP_KERNEL);
	if (!agents)
		return -ENOMEM;

	for (n = 1; n <= dev->phys_port_cnt; n++) {
		err = rxe_sa_add_agent(rxe, n, &agents[n - 1]);
		if (err)
			goto remove_agents;
	}

	ib_set_client_data(dev, &rxe_sa_client, agents);
	return 0;

remove_agents:
	while (--n)
		rxe_sa_remove_agent(&agents[n - 1]);
	kfree(agents);
	return err;
}

static void rxe_sa_remove_one(struct ib_device *dev, void *client_data)
{
	struct rxe_sa_agent *a;

	for (a = client_data; a->rxe; a++)
		rxe_sa_remove_agent(a);
	kfree(client_data);
}

static struct ib_client rxe_sa_client = {
	.name	= "rxe_sa",
	.add	= rxe_sa_add_one,
	.remove	= rxe_sa_remove_one,
};

/**
 * rxe_sa_module_init() - start answering SA queries on sib ports
 *
 * Return: 0 or the error of ib_register_client()
 */
int rxe_sa_module_init(void)
{
	return ib_register_client(&rxe_sa_client);
}

/**
 * rxe_sa_module_exit() - undo rxe_sa_module_init()
 */
void rxe_sa_module_exit(void)
{
	ib_unregister_client(&rxe_sa_client);
}
