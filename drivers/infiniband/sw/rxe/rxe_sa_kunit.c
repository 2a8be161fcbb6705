// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the SA responder of the soft InfiniBand mode of rxe:
 * MAD parsing and building, multicast group life cycle, malformed input.
 */

#include <kunit/test.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>

#include "rxe.h"
#include "rxe_sa.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* the random-input case's seed: 0 picks one; the case prints it */
static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the random MAD case (0: a random one)");

/* port: MAC 52:54:00:00:01:01 -> GUID 5054:00ff:fe00:0101, LID 0x0101 */
static const union ib_gid own_gid = { .raw = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x01, 0x01 } };
/* peer: MAC 52:54:00:00:02:07 -> LID 0x0207 */
static const union ib_gid peer_gid = { .raw = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x02, 0x07 } };
/* IPoIB IPv4 broadcast group of the default partition */
static const union ib_gid bcast_mgid = { .raw = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
	0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff } };

/* the peers the port knows: only the one of peer_gid */
static bool sa_lid_to_gid(struct rxe_sa *sa, u16 lid, union ib_gid *gid)
{
	if (lid != 0x0207)
		return false;

	*gid = peer_gid;
	return true;
}

static void sa_setup(struct rxe_sa *sa)
{
	struct rxe_sa_port port = {
		.gid = own_gid,
		.lid = 0x0101,
		.mtu = IB_MTU_2048,
		.rate = IB_RATE_10_GBPS,
	};

	rxe_sa_init(sa, &port);
	sa->lid_to_gid = sa_lid_to_gid;
}

static void mad_init(struct ib_sa_mad *mad, u8 method, u16 attr_id,
		     ib_sa_comp_mask comp_mask)
{
	memset(mad, 0, sizeof(*mad));
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	mad->mad_hdr.class_version = IB_SA_CLASS_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.tid = cpu_to_be64(0x1234);
	mad->mad_hdr.attr_id = cpu_to_be16(attr_id);
	mad->sa_hdr.comp_mask = comp_mask;
}

/* rxe_sa_process() with a response buffer of one MAD */
static int sa_process(struct rxe_sa *sa, const struct ib_sa_mad *req,
		      size_t req_len, struct ib_sa_mad *resp,
		      struct rxe_sa_reply *reply)
{
	return rxe_sa_process(sa, req, req_len, resp, sizeof(*resp), reply);
}

static u16 resp_status(const struct ib_sa_mad *resp)
{
	return be16_to_cpu(resp->mad_hdr.status);
}

static void rxe_sa_test_class_port_info(struct kunit *test)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	struct ib_class_port_info *cpi = (void *)resp->data;
	struct rxe_sa_reply reply;
	struct rxe_sa sa;

	sa_setup(&sa);
	mad_init(req, IB_MGMT_METHOD_GET, RXE_SA_ATTR_CLASS_PORTINFO, 0);
	KUNIT_ASSERT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_EXPECT_EQ(test, resp->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, resp_status(resp), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(resp->mad_hdr.tid), 0x1234ULL);
	KUNIT_EXPECT_EQ(test, cpi->base_version, IB_MGMT_BASE_VERSION);
	KUNIT_EXPECT_EQ(test, cpi->class_version, IB_SA_CLASS_VERSION);
	KUNIT_EXPECT_TRUE(test, ib_get_cpi_capmask2(cpi) &
			  IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT);
	KUNIT_EXPECT_EQ(test, ib_get_cpi_resp_time(cpi), RXE_SA_RESP_TIME);
	KUNIT_EXPECT_FALSE(test, reply.rmpp);
	rxe_sa_cleanup(&sa);
}

/* PathRecord queries: a parameter table */

struct path_case {
	const char *name;
	u8 method;
	ib_sa_comp_mask mask;
	const union ib_gid *dgid;
	const union ib_gid *sgid;
	u8 sl;
	u8 mtu;		/* selector << 6 | mtu */
	u16 status;
	unsigned int data_len;
	u16 dlid;
	u16 qdlid;			/* DLID of the request */
	const union ib_gid *rdgid;	/* DGID of the answer, if not dgid */
};

#define PR_BASE	(IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID | \
		 IB_SA_PATH_REC_NUMB_PATH | IB_SA_PATH_REC_PKEY)
/* saquery --src-to-dst SLID:DLID */
#define PR_LIDS	(IB_SA_PATH_REC_SLID | IB_SA_PATH_REC_DLID | \
		 IB_SA_PATH_REC_NUMB_PATH)

static const union ib_gid other_subnet_gid = { .raw = {
	0xfe, 0xc0, 0, 0, 0, 0, 0, 1,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x02, 0x07 } };

static const struct path_case path_cases[] = {
	{ "peer", IB_MGMT_METHOD_GET, PR_BASE, &peer_gid, &own_gid, 0, 0,
	  0, sizeof(struct rxe_sa_path_rec), 0x0207 },
	{ "self", IB_MGMT_METHOD_GET, PR_BASE, &own_gid, &own_gid, 0, 0,
	  0, sizeof(struct rxe_sa_path_rec), 0x0101 },
	{ "other subnet", IB_MGMT_METHOD_GET, PR_BASE, &other_subnet_gid,
	  &own_gid, 0, 0, RXE_SA_STATUS_NO_RECORDS, 0, 0 },
	{ "foreign sgid", IB_MGMT_METHOD_GET, PR_BASE, &own_gid, &peer_gid,
	  0, 0, RXE_SA_STATUS_NO_RECORDS, 0, 0 },
	{ "no dgid", IB_MGMT_METHOD_GET, IB_SA_PATH_REC_SGID, &peer_gid,
	  &own_gid, 0, 0, RXE_SA_STATUS_NO_RECORDS, 0, 0 },
	{ "sl 1", IB_MGMT_METHOD_GET, PR_BASE | IB_SA_PATH_REC_SL, &peer_gid,
	  &own_gid, 1, 0, RXE_SA_STATUS_NO_RECORDS, 0, 0 },
	{ "mtu > 2048", IB_MGMT_METHOD_GET,
	  PR_BASE | IB_SA_PATH_REC_MTU | IB_SA_PATH_REC_MTU_SELECTOR,
	  &peer_gid, &own_gid, 0, IB_SA_GT << 6 | IB_MTU_2048,
	  RXE_SA_STATUS_NO_RECORDS, 0, 0 },
	{ "mtu >= 1024", IB_MGMT_METHOD_GET,
	  PR_BASE | IB_SA_PATH_REC_MTU | IB_SA_PATH_REC_MTU_SELECTOR,
	  &peer_gid, &own_gid, 0, IB_SA_GT << 6 | IB_MTU_1024,
	  0, sizeof(struct rxe_sa_path_rec), 0x0207 },
	{ "table", IB_SA_METHOD_GET_TABLE, PR_BASE, &peer_gid, &own_gid, 0, 0,
	  0, sizeof(struct rxe_sa_path_rec), 0x0207 },
	{ "empty table", IB_SA_METHOD_GET_TABLE, PR_BASE, &other_subnet_gid,
	  &own_gid, 0, 0, 0, 0, 0 },
	{ "peer dlid", IB_MGMT_METHOD_GET, PR_LIDS, NULL, &own_gid, 0, 0,
	  0, sizeof(struct rxe_sa_path_rec), 0x0207, 0x0207, &peer_gid },
	{ "own dlid", IB_MGMT_METHOD_GET, PR_LIDS, NULL, &own_gid, 0, 0,
	  0, sizeof(struct rxe_sa_path_rec), 0x0101, 0x0101, &own_gid },
	{ "unknown dlid", IB_MGMT_METHOD_GET, PR_LIDS, NULL, &own_gid, 0, 0,
	  RXE_SA_STATUS_NO_RECORDS, 0, 0, 0x0333 },
	{ "multicast dlid", IB_MGMT_METHOD_GET, PR_LIDS, NULL, &own_gid, 0, 0,
	  RXE_SA_STATUS_NO_RECORDS, 0, 0, 0xc001 },
	{ "dgid and other dlid", IB_MGMT_METHOD_GET,
	  PR_BASE | IB_SA_PATH_REC_DLID, &peer_gid, &own_gid, 0, 0,
	  RXE_SA_STATUS_NO_RECORDS, 0, 0, 0x0101 },
	{ "table by dlid", IB_SA_METHOD_GET_TABLE, PR_LIDS, NULL, &own_gid,
	  0, 0, 0, sizeof(struct rxe_sa_path_rec), 0x0207, 0x0207, &peer_gid },
};

static void path_case_desc(const struct path_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rxe_sa_path, path_cases, path_case_desc);

static void rxe_sa_test_path_record(struct kunit *test)
{
	const struct path_case *c = test->param_value;
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	struct rxe_sa_path_rec *q = (void *)req->data;
	struct rxe_sa_path_rec *r = (void *)resp->data;
	struct rxe_sa_reply reply;
	struct rxe_sa sa;

	sa_setup(&sa);
	mad_init(req, c->method, RXE_SA_ATTR_PATH_REC, c->mask);
	if (c->dgid)
		memcpy(q->dgid, c->dgid->raw, 16);
	memcpy(q->sgid, c->sgid->raw, 16);
	q->slid = cpu_to_be16(0x0101);
	q->dlid = cpu_to_be16(c->qdlid);
	q->rev_numb_path = 1;
	q->pkey = cpu_to_be16(0xffff);
	q->qos_sl = cpu_to_be16(c->sl);
	q->mtu = c->mtu;

	KUNIT_ASSERT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_EXPECT_EQ(test, resp_status(resp), c->status);
	KUNIT_EXPECT_EQ(test, reply.data_len, c->data_len);
	KUNIT_EXPECT_EQ(test, reply.rmpp, c->method == IB_SA_METHOD_GET_TABLE);
	KUNIT_EXPECT_EQ(test, resp->mad_hdr.method, c->method | 0x80);
	if (c->method == IB_SA_METHOD_GET_TABLE)
		KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->sa_hdr.attr_offset),
				RXE_SA_PATH_REC_WORDS);
	if (c->data_len) {
		KUNIT_EXPECT_EQ(test, be16_to_cpu(r->dlid), c->dlid);
		KUNIT_EXPECT_EQ(test, be16_to_cpu(r->slid), 0x0101);
		KUNIT_EXPECT_EQ(test, be16_to_cpu(r->pkey), 0xffff);
		KUNIT_EXPECT_EQ(test, r->mtu, IB_SA_EQ << 6 | IB_MTU_2048);
		KUNIT_EXPECT_EQ(test, r->rate, IB_SA_EQ << 6 | IB_RATE_10_GBPS);
		KUNIT_EXPECT_EQ(test, r->rev_numb_path, 0x81);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(r->raw_flow_hop) & 0xff, 0);
		KUNIT_EXPECT_MEMEQ(test, r->dgid,
				   (c->rdgid ?: c->dgid)->raw, 16);
		KUNIT_EXPECT_MEMEQ(test, r->sgid, own_gid.raw, 16);
	}
	rxe_sa_cleanup(&sa);
}

/*
 * A peer whose MAC address gives this port's LID 0x0101 (52:54:00:01:01:01)
 * moved to LID 0x2020 (rxe_ib_lid_collision()); the port learned it.
 */
static const union ib_gid moved_gid = { .raw = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x01, 0x01, 0x01 } };

static bool sa_gid_to_lid(struct rxe_sa *sa, const union ib_gid *gid,
			  u16 *lid)
{
	if (memcmp(gid->raw, moved_gid.raw, 16))
		return false;

	*lid = 0x2020;
	return true;
}

static u16 path_dlid(struct kunit *test, struct rxe_sa *sa,
		     const union ib_gid *dgid)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	struct rxe_sa_path_rec *q = (void *)req->data;
	struct rxe_sa_path_rec *r = (void *)resp->data;
	struct rxe_sa_reply reply;

	mad_init(req, IB_MGMT_METHOD_GET, RXE_SA_ATTR_PATH_REC, PR_BASE);
	memcpy(q->dgid, dgid->raw, 16);
	memcpy(q->sgid, own_gid.raw, 16);
	q->rev_numb_path = 1;
	q->pkey = cpu_to_be16(0xffff);
	KUNIT_ASSERT_EQ(test, sa_process(sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_ASSERT_EQ(test, resp_status(resp), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->slid), sa->port.lid);
	return be16_to_cpu(r->dlid);
}

/* PathRecords after LID moves: the learned LID, not the derived one */
static void rxe_sa_test_path_moved_lid(struct kunit *test)
{
	struct rxe_sa sa;

	sa_setup(&sa);
	sa.gid_to_lid = sa_gid_to_lid;
	KUNIT_EXPECT_EQ(test, path_dlid(test, &sa, &moved_gid), 0x2020);
	KUNIT_EXPECT_EQ(test, path_dlid(test, &sa, &peer_gid), 0x0207);
	KUNIT_EXPECT_EQ(test, path_dlid(test, &sa, &own_gid), 0x0101);

	/* this port moved: its own GID is at its new LID */
	sa.port.lid = 0x3030;
	KUNIT_EXPECT_EQ(test, path_dlid(test, &sa, &own_gid), 0x3030);
	rxe_sa_cleanup(&sa);
}

/* MCMemberRecord: join, second member, conflicting join, leave */

#define MCM_IPOIB_BCAST	(IB_SA_MCMEMBER_REC_MGID | \
			 IB_SA_MCMEMBER_REC_PORT_GID | \
			 IB_SA_MCMEMBER_REC_PKEY | \
			 IB_SA_MCMEMBER_REC_JOIN_STATE)

static int mcm(struct rxe_sa *sa, struct ib_sa_mad *req,
	       struct ib_sa_mad *resp, u8 method, ib_sa_comp_mask mask,
	       const union ib_gid *port_gid, u8 join, u32 qkey)
{
	struct rxe_sa_mcmember_rec *q = (void *)req->data;
	struct rxe_sa_reply reply;

	mad_init(req, method, RXE_SA_ATTR_MCMEMBER_REC, mask);
	memcpy(q->mgid, bcast_mgid.raw, 16);
	memcpy(q->port_gid, port_gid->raw, 16);
	q->pkey = cpu_to_be16(0xffff);
	q->scope_join = join;
	q->qkey = cpu_to_be32(qkey);
	if (sa_process(sa, req, sizeof(*req), resp, &reply))
		return -1;
	return resp_status(resp);
}

static void rxe_sa_test_mcmember(struct kunit *test)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	struct rxe_sa_mcmember_rec *r = (void *)resp->data;
	u16 mlid = rxe_sa_mlid(&bcast_mgid);
	struct rxe_sa sa;

	sa_setup(&sa);

	/* IPoIB joins its broadcast group without parameters */
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_SET,
				  MCM_IPOIB_BCAST, &own_gid, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, resp->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(r->qkey), RXE_SA_QKEY_DEFAULT);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->mlid), mlid);
	KUNIT_EXPECT_EQ(test, r->mtu, IB_SA_EQ << 6 | IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, r->scope_join, 0x21);
	KUNIT_EXPECT_MEMEQ(test, r->port_gid, own_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 1);

	/* a second member with the group's Q_Key, a third with another */
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_SET,
				  MCM_IPOIB_BCAST | IB_SA_MCMEMBER_REC_QKEY,
				  &peer_gid, 1, RXE_SA_QKEY_DEFAULT), 0);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_SET,
				  MCM_IPOIB_BCAST | IB_SA_MCMEMBER_REC_QKEY,
				  &peer_gid, 1, 0x1234),
			RXE_SA_STATUS_REQ_INVALID);

	/* Get names one record: the member's, with its PortGID
	 * and JoinState; none for a port that is not a member; too many for
	 * the MGID alone when the group has two members
	 */
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_GET,
				  IB_SA_MCMEMBER_REC_MGID |
				  IB_SA_MCMEMBER_REC_PORT_GID, &peer_gid, 0, 0),
			0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->mlid), mlid);
	KUNIT_EXPECT_MEMEQ(test, r->port_gid, peer_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, r->scope_join, 0x21);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_GET,
				  IB_SA_MCMEMBER_REC_MGID |
				  IB_SA_MCMEMBER_REC_PORT_GID, &bcast_mgid, 0, 0),
			RXE_SA_STATUS_NO_RECORDS);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_GET,
				  IB_SA_MCMEMBER_REC_MGID, &own_gid, 0, 0),
			RXE_SA_STATUS_TOO_MANY_RECORDS);

	/* leaving: the group goes with its last member */
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_SA_METHOD_DELETE,
				  MCM_IPOIB_BCAST, &own_gid, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, resp->mad_hdr.method, IB_SA_METHOD_DELETE_RESP);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 1);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_SA_METHOD_DELETE,
				  MCM_IPOIB_BCAST, &own_gid, 1, 0),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_SA_METHOD_DELETE,
				  MCM_IPOIB_BCAST, &peer_gid, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 0);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_GET,
				  IB_SA_MCMEMBER_REC_MGID, &own_gid, 0, 0),
			RXE_SA_STATUS_NO_RECORDS);

	/* a join must say who joins and how */
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_SET,
				  IB_SA_MCMEMBER_REC_MGID, &own_gid, 1, 0),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_MGMT_METHOD_SET,
				  MCM_IPOIB_BCAST, &own_gid, 0, 0),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 0);

	/* no group left: an empty table */
	KUNIT_EXPECT_EQ(test, mcm(&sa, req, resp, IB_SA_METHOD_GET_TABLE,
				  MCM_IPOIB_BCAST, &own_gid, 1, 0), 0);
	rxe_sa_cleanup(&sa);
}

/* MCMemberRecord GetTable (saquery -g, -m, MCMR): one record per member */

/* IPoIB IPv6 all-nodes group */
static const union ib_gid allnodes_mgid = { .raw = {
	0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 1 } };

/* a join (Set) or leave (Delete) in @req and @resp; the response status */
static u16 mcm_set(struct kunit *test, struct rxe_sa *sa, u8 method,
		   struct ib_sa_mad *req, struct ib_sa_mad *resp,
		   const union ib_gid *mgid, const union ib_gid *port_gid,
		   u8 join)
{
	struct rxe_sa_mcmember_rec *q = (void *)req->data;
	struct rxe_sa_reply reply;

	mad_init(req, method, RXE_SA_ATTR_MCMEMBER_REC, MCM_IPOIB_BCAST);
	memcpy(q->mgid, mgid->raw, 16);
	memcpy(q->port_gid, port_gid->raw, 16);
	q->pkey = cpu_to_be16(0xffff);
	q->scope_join = join;
	KUNIT_ASSERT_EQ(test, sa_process(sa, req, sizeof(*req), resp,
					 &reply), 0);
	return resp_status(resp);
}

static void mcm_join(struct kunit *test, struct rxe_sa *sa,
		     const union ib_gid *mgid, const union ib_gid *port_gid,
		     u8 join)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, resp);
	KUNIT_ASSERT_EQ(test, mcm_set(test, sa, IB_MGMT_METHOD_SET, req, resp,
				      mgid, port_gid, join), 0);
}

/* a GetTable of MCMemberRecords into a buffer of @resp_len bytes */
static u16 mcm_table(struct kunit *test, struct rxe_sa *sa,
		     ib_sa_comp_mask mask, const union ib_gid *mgid,
		     const union ib_gid *port_gid, u16 mlid, u32 qkey,
		     struct ib_sa_mad *resp, size_t resp_len,
		     struct rxe_sa_reply *reply)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct rxe_sa_mcmember_rec *q = (void *)req->data;

	KUNIT_ASSERT_NOT_NULL(test, req);
	mad_init(req, IB_SA_METHOD_GET_TABLE, RXE_SA_ATTR_MCMEMBER_REC, mask);
	if (mgid)
		memcpy(q->mgid, mgid->raw, 16);
	if (port_gid)
		memcpy(q->port_gid, port_gid->raw, 16);
	q->mlid = cpu_to_be16(mlid);
	q->qkey = cpu_to_be32(qkey);
	KUNIT_ASSERT_EQ(test, rxe_sa_process(sa, req, sizeof(*req), resp,
					     resp_len, reply), 0);
	KUNIT_EXPECT_EQ(test, resp->mad_hdr.method,
			IB_SA_METHOD_GET_TABLE_RESP);
	KUNIT_EXPECT_TRUE(test, reply->rmpp);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->sa_hdr.attr_offset),
			RXE_SA_MCMEMBER_REC_WORDS);
	return resp_status(resp);
}

/* the @i-th record of a GetTable response */
static const struct rxe_sa_mcmember_rec *
mcm_rec(const struct ib_sa_mad *resp, unsigned int i)
{
	return (const void *)(resp->data + i * RXE_SA_MCMEMBER_REC_WORDS * 8);
}

static void rxe_sa_test_mcmember_table(struct kunit *test)
{
	const size_t rec_size = RXE_SA_MCMEMBER_REC_WORDS * 8;
	const size_t resp_len = sizeof(struct ib_sa_mad) + 8 * rec_size;
	struct ib_sa_mad *resp = kunit_kzalloc(test, resp_len, GFP_KERNEL);
	const struct rxe_sa_mcmember_rec *r;
	struct rxe_sa_reply reply;
	struct rxe_sa sa;

	KUNIT_ASSERT_NOT_NULL(test, resp);
	sa_setup(&sa);
	mcm_join(test, &sa, &bcast_mgid, &own_gid, 1);
	mcm_join(test, &sa, &bcast_mgid, &peer_gid, 2);
	mcm_join(test, &sa, &allnodes_mgid, &own_gid, 1);

	/* everything: three members of two groups, in join order */
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, 0, NULL, NULL, 0, 0, resp,
					resp_len, &reply), 0);
	KUNIT_ASSERT_EQ(test, reply.data_len, 3 * rec_size);
	r = mcm_rec(resp, 0);
	KUNIT_EXPECT_MEMEQ(test, r->mgid, bcast_mgid.raw, 16);
	KUNIT_EXPECT_MEMEQ(test, r->port_gid, own_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, r->scope_join, 0x21);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(r->qkey), RXE_SA_QKEY_DEFAULT);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->mlid), rxe_sa_mlid(&bcast_mgid));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, r->mtu, IB_SA_EQ << 6 | IB_MTU_2048);
	r = mcm_rec(resp, 1);
	KUNIT_EXPECT_MEMEQ(test, r->mgid, bcast_mgid.raw, 16);
	KUNIT_EXPECT_MEMEQ(test, r->port_gid, peer_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, r->scope_join, 0x22);
	r = mcm_rec(resp, 2);
	KUNIT_EXPECT_MEMEQ(test, r->mgid, allnodes_mgid.raw, 16);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->mlid),
			rxe_sa_mlid(&allnodes_mgid));

	/* by MGID, by MGID and PortGID, by MLID */
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, IB_SA_MCMEMBER_REC_MGID,
					&bcast_mgid, NULL, 0, 0, resp,
					resp_len, &reply), 0);
	KUNIT_EXPECT_EQ(test, reply.data_len, 2 * rec_size);
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, IB_SA_MCMEMBER_REC_MGID |
					IB_SA_MCMEMBER_REC_PORT_GID,
					&bcast_mgid, &peer_gid, 0, 0, resp,
					resp_len, &reply), 0);
	KUNIT_ASSERT_EQ(test, reply.data_len, rec_size);
	KUNIT_EXPECT_MEMEQ(test, mcm_rec(resp, 0)->port_gid, peer_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, IB_SA_MCMEMBER_REC_MLID,
					NULL, NULL,
					rxe_sa_mlid(&allnodes_mgid), 0, resp,
					resp_len, &reply), 0);
	KUNIT_ASSERT_EQ(test, reply.data_len, rec_size);
	KUNIT_EXPECT_MEMEQ(test, mcm_rec(resp, 0)->mgid, allnodes_mgid.raw,
			   16);

	/* nothing matches: an empty table, not an error */
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, IB_SA_MCMEMBER_REC_QKEY,
					NULL, NULL, 0, 0x1234, resp, resp_len,
					&reply), 0);
	KUNIT_EXPECT_EQ(test, reply.data_len, 0);

	/* more records than the buffer holds: no resources, no overflow */
	mcm_join(test, &sa, &allnodes_mgid, &peer_gid, 1);
	memset(resp, 0x5a, resp_len);
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, 0, NULL, NULL, 0, 0, resp,
					sizeof(*resp), &reply),
			RXE_SA_STATUS_NO_RESOURCES);
	KUNIT_EXPECT_EQ(test, reply.data_len, 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)resp)[sizeof(*resp)], 0x5a);
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, 0, NULL, NULL, 0, 0, resp,
					resp_len, &reply), 0);
	KUNIT_EXPECT_EQ(test, reply.data_len, 4 * rec_size);

	rxe_sa_cleanup(&sa);
}

/* members are limited per group and per port; a leave makes room */
static void rxe_sa_test_member_limits(struct kunit *test)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	union ib_gid mgid = bcast_mgid, gid = peer_gid;
	unsigned int g, m, ngroups;
	struct rxe_sa_reply reply;
	struct ib_sa_mad *table;
	struct rxe_sa sa;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, resp);
	sa_setup(&sa);

	/* one group: RXE_SA_MAX_MEMBERS port GIDs, then no more */
	for (m = 0; m < RXE_SA_MAX_MEMBERS; m++) {
		gid.raw[14] = m;
		KUNIT_ASSERT_EQ(test, mcm_set(test, &sa, IB_MGMT_METHOD_SET,
					      req, resp, &mgid, &gid, 1), 0);
	}
	gid.raw[14] = m;
	KUNIT_EXPECT_EQ(test, mcm_set(test, &sa, IB_MGMT_METHOD_SET, req, resp,
				      &mgid, &gid, 1),
			RXE_SA_STATUS_NO_RESOURCES);
	/* an existing member may still change its join state */
	gid.raw[14] = 0;
	KUNIT_EXPECT_EQ(test, mcm_set(test, &sa, IB_MGMT_METHOD_SET, req, resp,
				      &mgid, &gid, 2), 0);
	KUNIT_EXPECT_EQ(test, mcm_set(test, &sa, IB_SA_METHOD_DELETE, req,
				      resp, &mgid, &gid, 3), 0);
	gid.raw[14] = m;
	KUNIT_EXPECT_EQ(test, mcm_set(test, &sa, IB_MGMT_METHOD_SET, req, resp,
				      &mgid, &gid, 1), 0);
	KUNIT_EXPECT_EQ(test, sa.nmembers, RXE_SA_MAX_MEMBERS);

	/* the port: RXE_SA_MAX_MEMBERSHIPS in all, a new group refused */
	for (g = 1; sa.nmembers < RXE_SA_MAX_MEMBERSHIPS; g++) {
		mgid.raw[11] = g;
		for (m = 0; m < RXE_SA_MAX_MEMBERS; m++) {
			if (sa.nmembers == RXE_SA_MAX_MEMBERSHIPS)
				break;
			gid.raw[14] = m;
			KUNIT_ASSERT_EQ(test,
					mcm_set(test, &sa, IB_MGMT_METHOD_SET,
						req, resp, &mgid, &gid, 1), 0);
		}
	}
	ngroups = sa.ngroups;
	mgid.raw[11] = g;
	KUNIT_EXPECT_EQ(test, mcm_set(test, &sa, IB_MGMT_METHOD_SET, req, resp,
				      &mgid, &gid, 1),
			RXE_SA_STATUS_NO_RESOURCES);
	KUNIT_EXPECT_EQ(test, sa.ngroups, ngroups);
	KUNIT_EXPECT_EQ(test, sa.nmembers, RXE_SA_MAX_MEMBERSHIPS);

	/* the agent's buffer holds the table of a full port */
	table = kvzalloc(RXE_SA_RESP_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, table);
	KUNIT_EXPECT_EQ(test, mcm_table(test, &sa, 0, NULL, NULL, 0, 0, table,
					RXE_SA_RESP_LEN, &reply), 0);
	KUNIT_EXPECT_EQ(test, reply.data_len,
			RXE_SA_MAX_MEMBERSHIPS * RXE_SA_MCMEMBER_REC_WORDS * 8);
	kvfree(table);

	rxe_sa_cleanup(&sa);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 0);
	KUNIT_EXPECT_EQ(test, sa.nmembers, 0);
}

static void rxe_sa_test_mlid(struct kunit *test)
{
	union ib_gid mgid = bcast_mgid;
	int i;

	KUNIT_EXPECT_EQ(test, rxe_sa_mlid(&bcast_mgid), rxe_sa_mlid(&mgid));
	for (i = 0; i < 256; i++) {
		u16 mlid;

		mgid.raw[15] = i;
		mlid = rxe_sa_mlid(&mgid);
		KUNIT_EXPECT_GE(test, mlid, 0xc000);
		KUNIT_EXPECT_LE(test, mlid, 0xfffe);
	}
}

static void rxe_sa_test_malformed(struct kunit *test)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	struct rxe_sa_reply reply;
	struct rnd_state rnd;
	struct rxe_sa sa;
	u64 s = seed;
	int i;

	sa_setup(&sa);

	/* truncated, other class, responses: no answer at all */
	mad_init(req, IB_MGMT_METHOD_GET, RXE_SA_ATTR_CLASS_PORTINFO, 0);
	KUNIT_EXPECT_EQ(test, sa_process(&sa, req, sizeof(*req) - 1, resp,
					 &reply), -EINVAL);
	req->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	KUNIT_EXPECT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), -EINVAL);
	mad_init(req, IB_MGMT_METHOD_GET_RESP, RXE_SA_ATTR_PATH_REC, 0);
	KUNIT_EXPECT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), -EINVAL);

	/* answered with an error status */
	mad_init(req, IB_MGMT_METHOD_GET, RXE_SA_ATTR_PATH_REC, 0);
	req->mad_hdr.class_version = 1;
	KUNIT_ASSERT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_EXPECT_EQ(test, resp_status(resp),
			IB_MGMT_MAD_STATUS_BAD_VERSION);

	mad_init(req, IB_MGMT_METHOD_GET, 0x0011 /* NodeRecord */, 0);
	KUNIT_ASSERT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_EXPECT_EQ(test, resp_status(resp),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	KUNIT_EXPECT_EQ(test, reply.data_len, 0);

	mad_init(req, IB_MGMT_METHOD_TRAP_REPRESS, RXE_SA_ATTR_PATH_REC, 0);
	KUNIT_ASSERT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_EXPECT_EQ(test, resp_status(resp),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);

	mad_init(req, IB_MGMT_METHOD_SET, RXE_SA_ATTR_PATH_REC, 0);
	KUNIT_ASSERT_EQ(test, sa_process(&sa, req, sizeof(*req), resp,
					 &reply), 0);
	KUNIT_EXPECT_EQ(test, resp_status(resp),
			IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);

	/* random requests of the SA class: answered or dropped, no crash,
	 * never more data than a MAD holds; rxe_sa_kunit.seed= replays them
	 */
	while (!s)
		s = get_random_u64();
	kunit_info(test, "random MADs: seed %llu (rxe_sa_kunit.seed=%llu replays them)\n",
		   s, s);
	prandom_seed_state(&rnd, s);
	for (i = 0; i < 2000; i++) {
		static const u16 attrs[] = { RXE_SA_ATTR_CLASS_PORTINFO,
					     RXE_SA_ATTR_PATH_REC,
					     RXE_SA_ATTR_MCMEMBER_REC };

		prandom_bytes_state(&rnd, req, sizeof(*req));
		req->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
		if (i & 1) {
			req->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
			req->mad_hdr.class_version = IB_SA_CLASS_VERSION;
			req->mad_hdr.attr_id = cpu_to_be16(attrs[i % 3]);
		}
		if (!sa_process(&sa, req, sizeof(*req), resp, &reply))
			KUNIT_EXPECT_LE(test, reply.data_len, IB_MGMT_SA_DATA);
	}
	KUNIT_EXPECT_LE(test, sa.ngroups, RXE_SA_MAX_GROUPS);
	rxe_sa_cleanup(&sa);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 0);
}

/* the port's P_Key table: 0xFFFF, 0x8001, and 0x0002 (limited) */
static u16 sa_pkey_held(struct rxe_sa *sa, u16 pkey)
{
	static const u16 tbl[] = { 0xffff, 0x8001, 0x0002 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tbl); i++)
		if (!((tbl[i] ^ pkey) & 0x7fff) && (pkey & 0x7fff))
			return tbl[i];
	return 0;
}

/* a port's table of 0x8001 and 0x0002 only: it left the default partition */
static u16 sa_pkey_held_nodefault(struct rxe_sa *sa, u16 pkey)
{
	return (pkey & 0x7fff) == 0x7fff ? 0 : sa_pkey_held(sa, pkey);
}

static u16 sa_pkey_first_nodefault(struct rxe_sa *sa)
{
	return 0x8001;
}

/* an empty table */
static u16 sa_pkey_held_none(struct rxe_sa *sa, u16 pkey)
{
	return 0;
}

static u16 sa_pkey_first_none(struct rxe_sa *sa)
{
	return 0;
}

/* the IPoIB IPv4 broadcast group of partition @pkey */
static union ib_gid pkey_bcast_mgid(u16 pkey)
{
	union ib_gid mgid = bcast_mgid;

	mgid.raw[4] = pkey >> 8;
	mgid.raw[5] = pkey;
	return mgid;
}

/* a join of @mgid with P_Key @pkey (0: none selected); the status */
static u16 pkey_join(struct kunit *test, struct rxe_sa *sa, u16 pkey,
		     const union ib_gid *mgid, struct ib_sa_mad *req,
		     struct ib_sa_mad *resp)
{
	struct rxe_sa_mcmember_rec *q = (void *)req->data;
	struct rxe_sa_reply reply;

	mad_init(req, IB_MGMT_METHOD_SET, RXE_SA_ATTR_MCMEMBER_REC,
		 MCM_IPOIB_BCAST & ~(pkey ? 0 : IB_SA_MCMEMBER_REC_PKEY));
	memcpy(q->mgid, mgid->raw, 16);
	memcpy(q->port_gid, own_gid.raw, 16);
	q->pkey = cpu_to_be16(pkey);
	q->scope_join = 1;
	KUNIT_EXPECT_EQ(test, sa_process(sa, req, sizeof(*req), resp, &reply),
			0);
	return resp_status(resp);
}

/*
 * a PathRecord Get for the peer in partition @pkey (0: selecting none):
 * the response status
 */
static u16 path_in_partition(struct kunit *test, struct rxe_sa *sa, u16 pkey,
			     struct ib_sa_mad *req, struct ib_sa_mad *resp)
{
	struct rxe_sa_path_rec *q = (void *)req->data;
	struct rxe_sa_reply reply;

	mad_init(req, IB_MGMT_METHOD_GET, RXE_SA_ATTR_PATH_REC,
		 pkey ? PR_BASE : PR_BASE & ~IB_SA_PATH_REC_PKEY);
	memcpy(q->dgid, peer_gid.raw, 16);
	memcpy(q->sgid, own_gid.raw, 16);
	q->rev_numb_path = 1;
	q->pkey = cpu_to_be16(pkey);
	KUNIT_EXPECT_EQ(test, sa_process(sa, req, sizeof(*req), resp, &reply),
			0);
	return resp_status(resp);
}

/*
 * Partitions: a port joins the IPoIB broadcast group of a partition and
 * gets paths in it only when its P_Key table has the partition's P_Key.
 */
static void rxe_sa_test_partitions(struct kunit *test)
{
	struct ib_sa_mad *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct ib_sa_mad *resp = kunit_kzalloc(test, sizeof(*resp), GFP_KERNEL);
	struct rxe_sa_mcmember_rec *r = (void *)resp->data;
	struct rxe_sa_path_rec *pr = (void *)resp->data;
	union ib_gid mgid;
	struct rxe_sa sa;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, resp);

	/* without a table the port has the default partition only */
	sa_setup(&sa);
	mgid = pkey_bcast_mgid(0x8001);
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0x8001, &mgid, req, resp),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0, &mgid, req, resp),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0x8001, req, resp),
			RXE_SA_STATUS_NO_RECORDS);
	rxe_sa_cleanup(&sa);

	sa_setup(&sa);
	sa.pkey_held = sa_pkey_held;

	/* IPoIB of child 0x8001: its broadcast group, the record's P_Key */
	mgid = pkey_bcast_mgid(0x8001);
	KUNIT_ASSERT_EQ(test, pkey_join(test, &sa, 0x8001, &mgid, req, resp),
			0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 1);

	/* a limited member joins its partition's group too */
	mgid = pkey_bcast_mgid(0x8002);
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0, &mgid, req, resp), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(r->pkey), 0x8002);

	/* not a member of 0x8003: neither by the MGID nor by the P_Key */
	mgid = pkey_bcast_mgid(0x8003);
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0, &mgid, req, resp),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0x8003, &mgid, req, resp),
			RXE_SA_STATUS_REQ_INVALID);
	/* not an IPoIB MGID: only the P_Key selected counts */
	mgid.raw[2] = 0x12;
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0x8003, &mgid, req, resp),
			RXE_SA_STATUS_REQ_INVALID);
	KUNIT_EXPECT_EQ(test, pkey_join(test, &sa, 0xffff, &mgid, req, resp),
			0);
	KUNIT_EXPECT_EQ(test, sa.ngroups, 3);

	/* paths: in the partitions the port has, with the port's P_Key */
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0x8001, req, resp),
			0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pr->pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0x0002, req, resp),
			0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pr->pkey), 0x0002);
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0x7fff, req, resp),
			0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pr->pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0x8003, req, resp),
			RXE_SA_STATUS_NO_RECORDS);
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0x8000, req, resp),
			RXE_SA_STATUS_NO_RECORDS);
	/* selecting none: the default partition */
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0, req, resp), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pr->pkey), 0xffff);
	rxe_sa_cleanup(&sa);

	/* a port that left the default partition: a P_Key it holds ... */
	sa_setup(&sa);
	sa.pkey_held = sa_pkey_held_nodefault;
	sa.pkey_first = sa_pkey_first_nodefault;
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0, req, resp), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pr->pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0xffff, req, resp),
			RXE_SA_STATUS_NO_RECORDS);
	/* ... and no path at all with an empty table */
	sa.pkey_held = sa_pkey_held_none;
	sa.pkey_first = sa_pkey_first_none;
	KUNIT_EXPECT_EQ(test, path_in_partition(test, &sa, 0, req, resp),
			RXE_SA_STATUS_NO_RECORDS);
	rxe_sa_cleanup(&sa);
}

static struct kunit_case rxe_sa_test_cases[] = {
	KUNIT_CASE(rxe_sa_test_class_port_info),
	KUNIT_CASE_PARAM(rxe_sa_test_path_record, rxe_sa_path_gen_params),
	KUNIT_CASE(rxe_sa_test_path_moved_lid),
	KUNIT_CASE(rxe_sa_test_mcmember),
	KUNIT_CASE(rxe_sa_test_mcmember_table),
	KUNIT_CASE(rxe_sa_test_member_limits),
	KUNIT_CASE(rxe_sa_test_mlid),
	KUNIT_CASE(rxe_sa_test_malformed),
	KUNIT_CASE(rxe_sa_test_partitions),
	{}
};

static struct kunit_suite rxe_sa_test_suite = {
	.name = "rxe_sa",
	.test_cases = rxe_sa_test_cases,
};

kunit_test_suite(rxe_sa_test_suite);

MODULE_DESCRIPTION("KUnit tests for the soft InfiniBand SA responder");
MODULE_LICENSE("Dual BSD/GPL");
