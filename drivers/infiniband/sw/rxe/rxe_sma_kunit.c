// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the subnet management agent of soft InfiniBand ports:
 * the MAD status of every kind of SMP, the attributes' contents, the
 * SubnSet(PortInfo) fields a soft port refuses, the M_Key rules, random
 * SMPs (seeded: rxe_sma_kunit.seed= replays a run), and the P_Key table:
 * the membership rules of rxe_pkey.c and SubnSet(PKeyTable).
 */

#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/unaligned.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "rxe.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static u64 seed;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "seed of the random SMP case (0: a random one)");

#define TEST_LID	0x5a17
#define TEST_GUID	0x525400fffe105a17ULL
#define TEST_PREFIX	0xfe80000000000000ULL

#define REPLY		(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)
#define PASS_ON		IB_MAD_RESULT_SUCCESS
#define DROP		(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED)

/* the port the SMPs of the tests are about */
static struct rxe_port *test_port(struct rxe_dev *rxe)
{
	return rxe_port(rxe, RXE_PORT);
}

static int rxe_sma_test_init(struct kunit *test)
{
	struct rxe_dev *rxe = kunit_kzalloc(test, sizeof(*rxe), GFP_KERNEL);
	struct ib_port_attr *attr;

	KUNIT_ASSERT_NOT_NULL(test, rxe);
	rxe->ib = kunit_kzalloc(test, sizeof(*rxe->ib), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rxe->ib);
	rxe->ib->num_ports = 1;
	spin_lock_init(&rxe_ib_port(rxe, RXE_PORT)->lid_lock);
	spin_lock_init(&test_port(rxe)->port_lock);
	rxe_ib_port(rxe, RXE_PORT)->lid = TEST_LID;
	rxe_pkey_init(rxe, RXE_PORT);

	attr = &test_port(rxe)->attr;
	attr->state = IB_PORT_ACTIVE;
	attr->lid = TEST_LID;
	attr->sm_lid = TEST_LID;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_SDR;
	attr->subnet_timeout = 18;
	test_port(rxe)->port_guid = cpu_to_be64(TEST_GUID);
	test_port(rxe)->subnet_prefix = cpu_to_be64(TEST_PREFIX);
	rxe->ib_dev.node_guid = cpu_to_be64(TEST_GUID);
	rxe->ib_dev.phys_port_cnt = 1;
	strscpy(rxe->ib_dev.node_desc, "sib test", sizeof(rxe->ib_dev.node_desc));
	rxe->attr.sys_image_guid = cpu_to_be64(TEST_GUID);
	rxe->attr.vendor_id = 0xffffff;

	test->priv = rxe;
	return 0;
}

static void mad_init(struct ib_smp *smp, u8 class, u8 method, __be16 attr,
		     u32 mod)
{
	memset(smp, 0, sizeof(struct ib_mad));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = class;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = attr;
	smp->attr_mod = cpu_to_be32(mod);
	smp->tid = cpu_to_be64(0x1122334455667788ULL);
	smp->hop_ptr = 2;
	smp->hop_cnt = 1;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
}

static int process(struct kunit *test, struct ib_smp *in, struct ib_smp *out)
{
	memset(out, 0xa5, sizeof(struct ib_mad));
	return rxe_sma_process_smp(test->priv, RXE_PORT, 0, (struct ib_mad *)in,
				   (struct ib_mad *)out);
}

struct rxe_sma_status_case {
	const char *name;
	u8 class, base, cver, method;
	u16 attr;
	u32 mod;
	int ret;
	u16 status;
};

#define LR	IB_MGMT_CLASS_SUBN_LID_ROUTED
#define DR	IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE
#define GET	IB_MGMT_METHOD_GET
#define SET	IB_MGMT_METHOD_SET

static const struct rxe_sma_status_case status_cases[] = {
	{ "get NodeInfo LID-routed", LR, 1, 1, GET, 0x11, 0, REPLY, 0 },
	{ "get NodeInfo directed", DR, 1, 1, GET, 0x11, 0, REPLY, 0x8000 },
	{ "get NodeInfo modifier 1", LR, 1, 1, GET, 0x11, 1, REPLY, 0x1c },
	{ "get NodeDescription", DR, 1, 1, GET, 0x10, 0, REPLY, 0x8000 },
	{ "get NodeDescription modifier", LR, 1, 1, GET, 0x10, 5, REPLY, 0x1c },
	{ "get PortInfo port 0", LR, 1, 1, GET, 0x15, 0, REPLY, 0 },
	{ "get PortInfo port 1", LR, 1, 1, GET, 0x15, 1, REPLY, 0 },
	{ "get PortInfo port 2", DR, 1, 1, GET, 0x15, 2, REPLY, 0x801c },
	{ "get GUIDInfo block 0", LR, 1, 1, GET, 0x14, 0, REPLY, 0 },
	{ "get GUIDInfo block 1", LR, 1, 1, GET, 0x14, 1, REPLY, 0x1c },
	{ "get PKeyTable block 0", LR, 1, 1, GET, 0x16, 0, REPLY, 0 },
	{ "get PKeyTable block 1", LR, 1, 1, GET, 0x16, 1, REPLY, 0x1c },
	{ "get SLtoVL", LR, 1, 1, GET, 0x17, 0, REPLY, 0 },
	{ "get SMInfo, no SM", LR, 1, 1, GET, 0x20, 0, REPLY, 0x0c },
	{ "get SwitchInfo", LR, 1, 1, GET, 0x12, 0, REPLY, 0x0c },
	{ "get VLArbitration", LR, 1, 1, GET, 0x18, 0, REPLY, 0x0c },
	{ "get unknown attribute", DR, 1, 1, GET, 0x1234, 0, REPLY, 0x800c },
	{ "set NodeInfo", LR, 1, 1, SET, 0x11, 0, REPLY, 0x0c },
	{ "set unknown attribute", LR, 1, 1, SET, 0xff00, 0, REPLY, 0x0c },
	{ "set PKeyTable block 0, empty", LR, 1, 1, SET, 0x16, 0, REPLY, 0 },
	{ "set PKeyTable block 1", LR, 1, 1, SET, 0x16, 1, REPLY, 0x1c },
	{ "set SLtoVL all VL0", LR, 1, 1, SET, 0x17, 0, REPLY, 0 },
	{ "set PortInfo LID 0", LR, 1, 1, SET, 0x15, 0, REPLY, 0x1c },
	{ "unknown method", LR, 1, 1, 0x10, 0x11, 0, REPLY, 0x08 },
	{ "class version 2", LR, 1, 2, GET, 0x11, 0, REPLY, 0x04 },
	{ "base version 2", DR, 2, 1, GET, 0x11, 0, REPLY, 0x8004 },
	{ "a GetResp", DR, 1, 1, IB_MGMT_METHOD_GET_RESP, 0x11, 0, PASS_ON, 0 },
	{ "a Trap", LR, 1, 1, IB_MGMT_METHOD_TRAP, 0x02, 0, PASS_ON, 0 },
	/* to the trap's agent, which the MAD layer finds by the TID */
	{ "a TrapRepress", LR, 1, 1, IB_MGMT_METHOD_TRAP_REPRESS, 0x02, 0, PASS_ON, 0 },
};

static void status_case_desc(const struct rxe_sma_status_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(status, status_cases, status_case_desc);

static void rxe_sma_test_status(struct kunit *test)
{
	const struct rxe_sma_status_case *c = test->param_value;
	struct ib_smp *in, *out;
	int ret;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	mad_init(in, c->class, c->method, cpu_to_be16(c->attr), c->mod);
	in->base_version = c->base;
	in->class_version = c->cver;

	ret = process(test, in, out);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret != REPLY)
		return;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), c->status);
	KUNIT_EXPECT_EQ(test, out->method, IB_MGMT_METHOD_GET_RESP);
	/* what the MAD layer routes the answer by is kept */
	KUNIT_EXPECT_EQ(test, out->mgmt_class, c->class);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out->tid), be64_to_cpu(in->tid));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->attr_id),
			be16_to_cpu(in->attr_id));
	KUNIT_EXPECT_EQ(test, out->hop_ptr, in->hop_ptr);
	KUNIT_EXPECT_EQ(test, out->hop_cnt, in->hop_cnt);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->dr_slid),
			be16_to_cpu(in->dr_slid));
	/* the LID-routed PortInfo LID 0 Set leaves the port's LID alone */
	KUNIT_EXPECT_EQ(test, READ_ONCE(rxe_ib_port(test->priv, RXE_PORT)->lid),
			TEST_LID);
}

static void rxe_sma_test_contents(struct kunit *test)
{
	struct ib_smp *in, *out;
	struct ib_node_info *ni;
	struct ib_port_info *pi;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);

	mad_init(in, DR, GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	ni = (struct ib_node_info *)out->data;
	KUNIT_EXPECT_EQ(test, ni->node_type, RDMA_NODE_IB_CA);
	KUNIT_EXPECT_EQ(test, ni->num_ports, 1);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ni->node_guid), TEST_GUID);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ni->port_guid), TEST_GUID);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ni->sys_guid), TEST_GUID);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ni->partition_cap),
			RXE_IB_PKEY_TBL_LEN);
	KUNIT_EXPECT_EQ(test, ni->local_port_num, 1);
	KUNIT_EXPECT_EQ(test, ni->vendor_id[0], 0xff);

	mad_init(in, DR, GET, IB_SMP_ATTR_NODE_DESC, 0);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_STREQ(test, (char *)out->data, "sib test");

	mad_init(in, LR, GET, IB_SMP_ATTR_GUID_INFO, 0);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(((__be64 *)out->data)[0]), TEST_GUID);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(((__be64 *)out->data)[1]), 0);

	mad_init(in, LR, GET, IB_SMP_ATTR_PKEY_TABLE, 0);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(((__be16 *)out->data)[0]), 0xffff);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(((__be16 *)out->data)[1]), 0);

	mad_init(in, DR, GET, IB_SMP_ATTR_PORT_INFO, 1);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	pi = (struct ib_port_info *)out->data;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->lid), TEST_LID);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->sm_lid), TEST_LID);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pi->gid_prefix), TEST_PREFIX);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pi->cap_mask), IB_PORT_CM_SUP);
	KUNIT_EXPECT_EQ(test, pi->local_port_num, 1);
	KUNIT_EXPECT_EQ(test, pi->linkspeed_portstate & 0xf, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, pi->portphysstate_linkdown >> 4,
			IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, pi->mkeyprot_resv_lmc & 7, 0);
	KUNIT_EXPECT_EQ(test, pi->neighbormtu_mastersmsl >> 4, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, pi->inittypereply_mtucap & 0xf, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, pi->link_width_active, IB_WIDTH_4X);
	KUNIT_EXPECT_EQ(test, pi->clientrereg_resv_subnetto & 0x1f, 18);
	KUNIT_EXPECT_EQ(test, pi->guid_cap, 1);
}

/* a Set of the PortInfo the port has, with @edit applied */
static int set_port_info(struct kunit *test, struct ib_smp *in,
			 struct ib_smp *out,
			 void (*edit)(struct ib_port_info *pi))
{
	mad_init(in, LR, GET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), REPLY);
	memcpy(in->data, out->data, sizeof(in->data));
	in->method = SET;
	((struct ib_port_info *)in->data)->linkspeed_portstate &= 0xf0;
	((struct ib_port_info *)in->data)->portphysstate_linkdown &= 0x0f;
	if (edit)
		edit((struct ib_port_info *)in->data);
	return process(test, in, out);
}

static void edit_lid_mcast(struct ib_port_info *pi)
{
	pi->lid = cpu_to_be16(0xc000);
}

static void edit_sm_lid_0(struct ib_port_info *pi)
{
	pi->sm_lid = 0;
}

static void edit_lmc(struct ib_port_info *pi)
{
	pi->mkeyprot_resv_lmc |= 1;
}

static void edit_armed(struct ib_port_info *pi)
{
	pi->linkspeed_portstate |= IB_PORT_ARMED;
}

static void edit_down(struct ib_port_info *pi)
{
	pi->linkspeed_portstate |= IB_PORT_DOWN;
}

static void edit_phys(struct ib_port_info *pi)
{
	pi->portphysstate_linkdown |= 3 << 4;
}

static void edit_mtu(struct ib_port_info *pi)
{
	pi->neighbormtu_mastersmsl = 6 << 4;
}

static void edit_vls(struct ib_port_info *pi)
{
	pi->operationalvl_pei_peo_fpi_fpo = 2 << 4;
}

static void edit_width(struct ib_port_info *pi)
{
	pi->link_width_enabled = 4;
}

static void edit_speed(struct ib_port_info *pi)
{
	pi->linkspeedactive_enabled |= 2;
}

static void edit_lsd(struct ib_port_info *pi)
{
	pi->portphysstate_linkdown |= 3;
}

static void rxe_sma_test_set_refused(struct kunit *test)
{
	static void (* const edits[])(struct ib_port_info *pi) = {
		edit_lid_mcast, edit_sm_lid_0, edit_lmc, edit_armed,
		edit_down, edit_phys, edit_mtu, edit_vls, edit_width,
		edit_speed, edit_lsd,
	};
	struct rxe_dev *rxe = test->priv;
	struct ib_smp *in, *out;
	int i;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);

	/* the port's own values, ACTIVE confirmed: taken, no event due */
	KUNIT_EXPECT_EQ(test, set_port_info(test, in, out, edit_armed), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x1c);
	KUNIT_EXPECT_EQ(test, set_port_info(test, in, out, NULL), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0);

	for (i = 0; i < ARRAY_SIZE(edits); i++) {
		test_port(rxe)->sma.mkey_prot = 0;
		KUNIT_EXPECT_EQ_MSG(test, set_port_info(test, in, out, edits[i]),
				    REPLY, "edit %d", i);
		KUNIT_EXPECT_EQ_MSG(test, be16_to_cpu(out->status), 0x1c,
				    "edit %d", i);
		KUNIT_EXPECT_EQ_MSG(test, rxe_ib_port(rxe, RXE_PORT)->lid, TEST_LID, "edit %d", i);
		KUNIT_EXPECT_EQ_MSG(test, test_port(rxe)->attr.active_mtu,
				    IB_MTU_4096, "edit %d", i);
	}
}

static void edit_mkey(struct ib_port_info *pi)
{
	pi->mkey = cpu_to_be64(0x1234);
	pi->mkeyprot_resv_lmc = 1 << 6;
	pi->clientrereg_resv_subnetto = 14;
}

static void rxe_sma_test_mkey(struct kunit *test)
{
	struct rxe_dev *rxe = test->priv;
	struct ib_port_info *pi;
	struct ib_smp *in, *out;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);

	/* an M_Key, protection level 1, subnet timeout 14 */
	KUNIT_ASSERT_EQ(test, set_port_info(test, in, out, edit_mkey), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.subnet_timeout, 14);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(test_port(rxe)->sma.mkey), 0x1234);

	/* a Get without the M_Key is answered, the M_Key hidden */
	mad_init(in, LR, GET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	pi = (struct ib_port_info *)out->data;
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pi->mkey), 0);
	KUNIT_EXPECT_EQ(test, pi->mkeyprot_resv_lmc >> 6, 1);
	/* with it, shown */
	in->mkey = cpu_to_be64(0x1234);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pi->mkey), 0x1234);

	/* a Set without it is dropped and counted */
	mad_init(in, LR, SET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), DROP);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->sma.mkey_violations, 1);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.subnet_timeout, 14);

	/* so is a TrapRepress: the trap it answers goes on */
	mad_init(in, LR, IB_MGMT_METHOD_TRAP_REPRESS, IB_SMP_ATTR_NOTICE, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), DROP);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->sma.mkey_violations, 2);
	in->mkey = cpu_to_be64(0x1234);
	KUNIT_EXPECT_EQ(test, process(test, in, out), PASS_ON);

	/* level 2: a Get without it is dropped too */
	test_port(rxe)->sma.mkey_prot = 2;
	mad_init(in, DR, GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), DROP);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->sma.mkey_violations, 3);
	in->mkey = cpu_to_be64(0x1234);
	KUNIT_EXPECT_EQ(test, process(test, in, out), REPLY);
}

/*
 * debugfs smp_fail (rxe_ib_smp_fail()): the next Gets and Sets that pass
 * the M_Key check are answered with its status and change nothing; an
 * SMP dropped for its M_Key, an SMInfo and a TrapRepress use none up.
 */
static void rxe_sma_test_smp_fail(struct kunit *test)
{
	struct rxe_dev *rxe = test->priv;
	struct rxe_ib_mad_fail *f = &rxe->ib->smp_fail;
	struct ib_smp *in, *set, *out;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	set = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, out);

	/* a Set of the port's PortInfo with another LID, made beforehand */
	mad_init(in, LR, GET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	mad_init(set, LR, SET, IB_SMP_ATTR_PORT_INFO, 0);
	memcpy(set->data, out->data, sizeof(set->data));
	((struct ib_port_info *)set->data)->linkspeed_portstate &= 0xf0;
	((struct ib_port_info *)set->data)->portphysstate_linkdown &= 0x0f;
	((struct ib_port_info *)set->data)->lid = cpu_to_be16(0x42);

	f->status = 0x0001;
	atomic_set(&f->count, 4);

	/* a directed-route Get: the status, the direction bit the SMA's */
	mad_init(in, DR, GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x8001);
	KUNIT_EXPECT_EQ(test, out->method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->count), 3);

	/* the Set: failed, the LID kept */
	KUNIT_EXPECT_EQ(test, process(test, set, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x0001);
	KUNIT_EXPECT_EQ(test, rxe_ib_port(rxe, RXE_PORT)->lid, TEST_LID);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->count), 2);

	/* none used up by an M_Key drop, an SMInfo, a TrapRepress */
	test_port(rxe)->sma.mkey = cpu_to_be64(0x1234);
	test_port(rxe)->sma.mkey_prot = 1;
	KUNIT_EXPECT_EQ(test, process(test, set, out), DROP);
	test_port(rxe)->sma.mkey_prot = 0;
	test_port(rxe)->sma.mkey = 0;
	mad_init(in, DR, GET, IB_SMP_ATTR_SM_INFO, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x800c);
	mad_init(in, LR, IB_MGMT_METHOD_TRAP_REPRESS, IB_SMP_ATTR_NOTICE, 0);
	KUNIT_EXPECT_EQ(test, process(test, in, out), PASS_ON);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->count), 2);

	/* the last two, then the SMA answers again */
	KUNIT_EXPECT_EQ(test, process(test, set, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x0001);
	mad_init(in, LR, GET, IB_SMP_ATTR_PORT_INFO, 1);
	KUNIT_EXPECT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x0001);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->count), 0);
	KUNIT_EXPECT_EQ(test, rxe_ib_port(rxe, RXE_PORT)->lid, TEST_LID);
	KUNIT_EXPECT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(((struct ib_port_info *)out->data)->lid),
			TEST_LID);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->count), 0);
}

/* The SM of the port (IsSM) takes SMInfo; an SM-disabled port drops it. */
static void rxe_sma_test_sm_info(struct kunit *test)
{
	struct rxe_dev *rxe = test->priv;
	struct ib_smp *in, *out;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	mad_init(in, DR, GET, IB_SMP_ATTR_SM_INFO, 0);

	test_port(rxe)->attr.port_cap_flags |= IB_PORT_SM;
	KUNIT_EXPECT_EQ(test, process(test, in, out), PASS_ON);
	test_port(rxe)->attr.port_cap_flags = IB_PORT_SM_DISABLED;
	KUNIT_EXPECT_EQ(test, process(test, in, out), DROP);
}

/*
 * The Trap(Notice 144) of a port, byte for byte where an SM reads it (IBA
 * 14.2.5.1 and the Notice's DataDetails for trap 144): a CapabilityMask
 * change with LocalChanges 0, a node description change with LocalChanges
 * and its ChangeFlag.
 */
static void rxe_sma_test_notice_144(struct kunit *test)
{
	struct ib_smp *smp;
	const u8 *d;

	smp = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smp);
	memset(smp, 0xa5, sizeof(*smp));
	rxe_sma_notice_144(smp, cpu_to_be64(0x1234567800000009ULL), 0x0201,
			   IB_PORT_SM | IB_PORT_CM_SUP, RXE_SMA_TRAP_CAP_MASK);
	KUNIT_EXPECT_EQ(test, smp->base_version, IB_MGMT_BASE_VERSION);
	KUNIT_EXPECT_EQ(test, smp->mgmt_class, IB_MGMT_CLASS_SUBN_LID_ROUTED);
	KUNIT_EXPECT_EQ(test, smp->class_version, 1);
	KUNIT_EXPECT_EQ(test, smp->method, IB_MGMT_METHOD_TRAP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(smp->status), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(smp->tid), 0x1234567800000009ULL);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(smp->attr_id), 0x0002);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(smp->attr_mod), 0);
	/* o14-1 */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(smp->mkey), 0);
	d = smp->data;
	/* IsGeneric, Type 4 (informational); ProducerType 1 (CA) */
	KUNIT_EXPECT_EQ(test, d[0], 0x84);
	KUNIT_EXPECT_EQ(test, d[1], 0);
	KUNIT_EXPECT_EQ(test, d[2], 0);
	KUNIT_EXPECT_EQ(test, d[3], 1);
	/* TrapNumber 144, IssuerLID, Toggle and Count 0 */
	KUNIT_EXPECT_EQ(test, d[4], 0);
	KUNIT_EXPECT_EQ(test, d[5], 144);
	KUNIT_EXPECT_EQ(test, d[6], 0x02);
	KUNIT_EXPECT_EQ(test, d[7], 0x01);
	KUNIT_EXPECT_EQ(test, d[8], 0);
	KUNIT_EXPECT_EQ(test, d[9], 0);
	/* DataDetails: LIDADDR, LocalChanges, CapabilityMask, ChangeFlags */
	KUNIT_EXPECT_EQ(test, d[12], 0x02);
	KUNIT_EXPECT_EQ(test, d[13], 0x01);
	KUNIT_EXPECT_EQ(test, d[15], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[16]),
			IB_PORT_SM | IB_PORT_CM_SUP);
	KUNIT_EXPECT_EQ(test, d[21], 0);
	/* the rest of the MAD is zero: no stale bytes go on the wire */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&d[22], 0,
					    IB_SMP_DATA_SIZE - 22));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(smp->initial_path, 0,
					    sizeof(smp->initial_path)));

	rxe_sma_notice_144(smp, cpu_to_be64(10), 0x0201, IB_PORT_CM_SUP,
			   IB_NOTICE_TRAP_NODE_DESC_CHG);
	KUNIT_EXPECT_EQ(test, d[5], 144);
	KUNIT_EXPECT_EQ(test, d[15], 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[16]), IB_PORT_CM_SUP);
	KUNIT_EXPECT_EQ(test, d[20], 0);
	KUNIT_EXPECT_EQ(test, d[21], IB_NOTICE_TRAP_NODE_DESC_CHG);
}

/*
 * The Trap(Notice 257, Bad P_Key) of a port, byte for byte (the Notice's
 * DataDetails for traps 257 and 258): LID1 the source, LID2 the
 * destination, the P_Key in the low 16 bits of Key, the SL in the high 4
 * bits of SL/QP1, QP2 the destination QP in 24 bits.
 */
static void rxe_sma_test_notice_257(struct kunit *test)
{
	const struct rxe_ib_bad_key bad = {
		.slid = 0x0102, .dlid = 0x0201, .key = 0x8001, .sl = 0x3,
		.dqpn = 0xab123456,
	};
	struct ib_smp *smp;
	const u8 *d;

	smp = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smp);
	memset(smp, 0xa5, sizeof(*smp));
	rxe_sma_notice_bad_key(smp, cpu_to_be64(7), IB_NOTICE_TRAP_BAD_PKEY,
			       0x0201, &bad);
	KUNIT_EXPECT_EQ(test, smp->mgmt_class, IB_MGMT_CLASS_SUBN_LID_ROUTED);
	KUNIT_EXPECT_EQ(test, smp->method, IB_MGMT_METHOD_TRAP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(smp->attr_id), 0x0002);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(smp->tid), 7);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(smp->mkey), 0);
	d = smp->data;
	/* IsGeneric, Type 2 (security); ProducerType 1 (CA); trap 257 */
	KUNIT_EXPECT_EQ(test, d[0], 0x82);
	KUNIT_EXPECT_EQ(test, get_unaligned_be24(&d[1]), 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[4]), 257);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[6]), 0x0201);
	/* DataDetails from d[10]: reserved, LID1, LID2, Key, SL/QP1, QP2 */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[12]), 0x0102);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[14]), 0x0201);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[16]), 0x8001);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[20]), 0x30000000);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[24]), 0x123456);
	/* GID1, GID2 and the rest: zero */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&d[28], 0,
					    IB_SMP_DATA_SIZE - 28));
}

/*
 * Trap 258 (Bad Q_Key): the DataDetails of trap 257, the Q_Key in Key and
 * the datagram's source QP in the low 24 bits of SL/QP1.
 */
static void rxe_sma_test_notice_258(struct kunit *test)
{
	const struct rxe_ib_bad_key bad = {
		.slid = 0x0102, .dlid = 0x0201, .key = 0x12345678, .sl = 0x5,
		.sqpn = 0xff000abc, .dqpn = 1,
	};
	struct ib_smp *smp;
	const u8 *d;

	smp = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smp);
	memset(smp, 0xa5, sizeof(*smp));
	rxe_sma_notice_bad_key(smp, cpu_to_be64(8), IB_NOTICE_TRAP_BAD_QKEY,
			       0x0201, &bad);
	KUNIT_EXPECT_EQ(test, smp->mgmt_class, IB_MGMT_CLASS_SUBN_LID_ROUTED);
	KUNIT_EXPECT_EQ(test, smp->method, IB_MGMT_METHOD_TRAP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(smp->attr_id), 0x0002);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(smp->tid), 8);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(smp->mkey), 0);
	d = smp->data;
	/* IsGeneric, Type 2 (security); ProducerType 1 (CA); trap 258 */
	KUNIT_EXPECT_EQ(test, d[0], 0x82);
	KUNIT_EXPECT_EQ(test, get_unaligned_be24(&d[1]), 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[4]), 258);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[6]), 0x0201);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[10]), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[12]), 0x0102);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&d[14]), 0x0201);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[16]), 0x12345678);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[20]), 0x50000abc);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&d[24]), 1);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&d[28], 0,
					    IB_SMP_DATA_SIZE - 28));
}

/*
 * A trap waits SubnetTimeOut for its TrapRepress, 4.096 us * 2^SubnetTimeOut
 * in milliseconds (OpenSM's default 18: 1073 ms), at least 1 ms: 0 would
 * tell the MAD layer to expect no answer, and never to send it again.
 */
static void rxe_sma_test_trap_timeout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(0), 1);
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(8), 1);
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(9), 2);
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(14), 67);
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(18), 1073);
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(31), 8796093);
	/* the field has 5 bits */
	KUNIT_EXPECT_EQ(test, rxe_sma_trap_timeout_ms(0x20 | 18), 1073);
}

/*
 * Random SMPs: an answer or none, never a fault; an answer is a GetResp
 * of the SMP's class and TID.  Sets of PortInfo are made Gets (a valid one
 * would raise events on this device, which is not registered).
 */
static void rxe_sma_test_random(struct kunit *test)
{
	struct rnd_state rnd;
	struct ib_smp *in, *out;
	int i, ret;

	if (!seed)
		seed = get_random_u64() ?: 1;
	kunit_info(test, "seed %llu (rxe_sma_kunit.seed=%llu replays it)\n",
		   seed, seed);
	prandom_seed_state(&rnd, seed);

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);

	for (i = 0; i < 2000; i++) {
		prandom_bytes_state(&rnd, in, sizeof(struct ib_mad));
		/* mostly well-formed headers, so the handlers run */
		if (i % 4) {
			in->base_version = IB_MGMT_BASE_VERSION;
			in->class_version = 1;
			in->method = (i % 3) ? GET : SET;
			in->attr_id = cpu_to_be16(0x10 + i % 0x12);
			in->mkey = 0;
		}
		in->mgmt_class = (i & 1) ? LR : DR;
		if (in->method == SET && in->attr_id == IB_SMP_ATTR_PORT_INFO)
			in->method = GET;

		ret = process(test, in, out);
		if (ret == REPLY) {
			KUNIT_EXPECT_EQ(test, out->method,
					IB_MGMT_METHOD_GET_RESP);
			KUNIT_EXPECT_EQ(test, be64_to_cpu(out->tid),
					be64_to_cpu(in->tid));
			KUNIT_EXPECT_EQ(test, out->mgmt_class, in->mgmt_class);
		} else {
			KUNIT_EXPECT_TRUE(test, ret == PASS_ON || ret == DROP);
		}
	}
	KUNIT_EXPECT_EQ(test, rxe_ib_port(test->priv, RXE_PORT)->lid, TEST_LID);
}

struct rxe_sma_state_case {
	const char *name;
	bool sm_managed;
	enum ib_port_state cur;
	u8 req;
	bool ok;
};

static const struct rxe_sma_state_case state_cases[] = {
	{ "built-in SA: NOP on ACTIVE", false, IB_PORT_ACTIVE, 0, true },
	{ "built-in SA: NOP on DOWN", false, IB_PORT_DOWN, 0, true },
	{ "built-in SA: confirm ACTIVE", false, IB_PORT_ACTIVE, 4, true },
	{ "built-in SA: ACTIVE on DOWN", false, IB_PORT_DOWN, 4, false },
	{ "built-in SA: ARM", false, IB_PORT_ACTIVE, 3, false },
	{ "built-in SA: take DOWN", false, IB_PORT_ACTIVE, 1, false },
	{ "SM: NOP on INIT", true, IB_PORT_INIT, 0, true },
	{ "SM: INIT -> ARMED", true, IB_PORT_INIT, 3, true },
	{ "SM: ARMED -> ARMED", true, IB_PORT_ARMED, 3, true },
	{ "SM: ARMED -> ACTIVE", true, IB_PORT_ARMED, 4, true },
	{ "SM: ACTIVE -> ACTIVE", true, IB_PORT_ACTIVE, 4, true },
	{ "SM: INIT -> ACTIVE", true, IB_PORT_INIT, 4, false },
	{ "SM: ACTIVE -> ARMED", true, IB_PORT_ACTIVE, 3, false },
	{ "SM: DOWN -> ARMED", true, IB_PORT_DOWN, 3, false },
	{ "SM: DOWN -> ACTIVE", true, IB_PORT_DOWN, 4, false },
	{ "SM: set INIT", true, IB_PORT_ARMED, 2, false },
	{ "SM: take DOWN", true, IB_PORT_ACTIVE, 1, false },
	{ "SM: state 5", true, IB_PORT_ACTIVE, 5, false },
	{ "SM: state 15", true, IB_PORT_INIT, 15, false },
};

static void state_case_desc(const struct rxe_sma_state_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(state, state_cases, state_case_desc);

static void rxe_sma_test_state(struct kunit *test)
{
	const struct rxe_sma_state_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rxe_sma_state_ok(c->sm_managed, c->cur, c->req),
			c->ok);
}

struct rxe_sma_carry_case {
	const char *name;
	enum ib_port_state state;
	bool smp;
	bool xmit;
	bool ok;
};

/* IBA 7.2: what a port carries in each state */
static const struct rxe_sma_carry_case carry_cases[] = {
	{ "ACTIVE sends data", IB_PORT_ACTIVE, false, true, true },
	{ "ACTIVE receives data", IB_PORT_ACTIVE, false, false, true },
	{ "ACTIVE sends SMPs", IB_PORT_ACTIVE, true, true, true },
	{ "ACTIVE receives SMPs", IB_PORT_ACTIVE, true, false, true },
	{ "ARMED does not send data", IB_PORT_ARMED, false, true, false },
	{ "ARMED receives data", IB_PORT_ARMED, false, false, true },
	{ "ARMED sends SMPs", IB_PORT_ARMED, true, true, true },
	{ "ARMED receives SMPs", IB_PORT_ARMED, true, false, true },
	{ "INIT does not send data", IB_PORT_INIT, false, true, false },
	{ "INIT does not receive data", IB_PORT_INIT, false, false, false },
	{ "INIT sends SMPs", IB_PORT_INIT, true, true, true },
	{ "INIT receives SMPs", IB_PORT_INIT, true, false, true },
	{ "DOWN sends nothing", IB_PORT_DOWN, true, true, false },
	{ "DOWN receives nothing", IB_PORT_DOWN, true, false, false },
	{ "NOP carries nothing", IB_PORT_NOP, false, false, false },
};

static void carry_case_desc(const struct rxe_sma_carry_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(carry, carry_cases, carry_case_desc);

static void rxe_sma_test_carries(struct kunit *test)
{
	const struct rxe_sma_carry_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rxe_sma_port_carries(c->state, c->smp, c->xmit),
			c->ok);
}

static void edit_active(struct ib_port_info *pi)
{
	pi->linkspeed_portstate |= IB_PORT_ACTIVE;
}

/* a port an SM manages, in INIT: armed by a Set, not activated at once */
static void rxe_sma_test_set_state(struct kunit *test)
{
	struct rxe_dev *rxe = test->priv;
	struct ib_port_info *pi;
	struct ib_smp *in, *out;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	pi = (struct ib_port_info *)out->data;
	test_port(rxe)->sma.sm_managed = true;
	test_port(rxe)->attr.state = IB_PORT_INIT;

	/* INIT -> ACTIVE: refused, nothing changes */
	KUNIT_EXPECT_EQ(test, set_port_info(test, in, out, edit_active), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x1c);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.state, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, pi->linkspeed_portstate & 0xf, IB_PORT_INIT);
	/* the link is up in INIT */
	KUNIT_EXPECT_EQ(test, pi->portphysstate_linkdown >> 4,
			IB_PORT_PHYS_STATE_LINK_UP);

	/* INIT -> ARMED, and the answer says so */
	KUNIT_EXPECT_EQ(test, set_port_info(test, in, out, edit_armed), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.state, IB_PORT_ARMED);
	KUNIT_EXPECT_EQ(test, pi->linkspeed_portstate & 0xf, IB_PORT_ARMED);

	/* NOP leaves ARMED alone */
	KUNIT_EXPECT_EQ(test, set_port_info(test, in, out, NULL), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.state, IB_PORT_ARMED);

	/* DOWN: the state follows carrier, an SM cannot take the port down */
	KUNIT_EXPECT_EQ(test, set_port_info(test, in, out, edit_down), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x1c);
	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.state, IB_PORT_ARMED);
}

/* the port a PortInfo is about, by its attribute modifier */
struct rxe_sma_port_sel_case {
	const char *name;
	u32 attr_mod, in_port, num_ports, port;
};

static const struct rxe_sma_port_sel_case port_sel_cases[] = {
	{ "0 on port 1", 0, 1, 1, 1 },
	{ "0 on port 2", 0, 2, 2, 2 },
	{ "1 on port 2", 1, 2, 2, 1 },
	{ "2 on port 1", 2, 1, 2, 2 },
	{ "2 of one port", 2, 1, 1, 0 },
	{ "3 of two ports", 3, 1, 2, 0 },
	{ "port 255", 255, 1, 2, 0 },
	{ "a block number", 0x10001, 1, 2, 0 },
};

KUNIT_ARRAY_PARAM_DESC(port_sel, port_sel_cases, name);

static void rxe_sma_test_port_sel(struct kunit *test)
{
	const struct rxe_sma_port_sel_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rxe_sma_port_sel(c->attr_mod, c->in_port,
					       c->num_ports), c->port);
}

#define TEST_LID2	0x0b0b
#define TEST_GUID2	0x525400fffe120b0bULL

/* what a two-port device answers on and about its second port */
static void rxe_sma_test_two_ports(struct kunit *test)
{
	struct rxe_dev *rxe = test->priv;
	struct ib_node_info *ni;
	struct ib_port_info *pi;
	struct ib_smp in, out;
	struct rxe_port *port2 = rxe_port(rxe, 2);

	if (RXE_MAX_PORTS < 2)
		kunit_skip(test, "rxe devices have one port");

	rxe->ib->num_ports = 2;
	rxe->ib_dev.phys_port_cnt = 2;
	spin_lock_init(&rxe_ib_port(rxe, 2)->lid_lock);
	spin_lock_init(&port2->port_lock);
	rxe_ib_port(rxe, 2)->lid = TEST_LID2;
	port2->attr = test_port(rxe)->attr;
	port2->attr.lid = TEST_LID2;
	port2->attr.sm_lid = TEST_LID2;
	port2->attr.state = IB_PORT_DOWN;
	port2->port_guid = cpu_to_be64(TEST_GUID2);
	port2->subnet_prefix = cpu_to_be64(TEST_PREFIX);

	/* NodeInfo: the port GUID and number of the port it came in on */
	mad_init(&in, LR, GET, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, rxe_sma_process_smp(rxe, 2, 0,
						  (struct ib_mad *)&in,
						  (struct ib_mad *)&out), REPLY);
	ni = (struct ib_node_info *)out.data;
	KUNIT_EXPECT_EQ(test, ni->num_ports, 2);
	KUNIT_EXPECT_EQ(test, ni->local_port_num, 2);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ni->port_guid), TEST_GUID2);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(ni->node_guid), TEST_GUID);

	/* PortInfo 0 on port 2: port 2's */
	mad_init(&in, LR, GET, IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_EXPECT_EQ(test, rxe_sma_process_smp(rxe, 2, 0,
						  (struct ib_mad *)&in,
						  (struct ib_mad *)&out), REPLY);
	pi = (struct ib_port_info *)out.data;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.status), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->lid), TEST_LID2);
	KUNIT_EXPECT_EQ(test, pi->local_port_num, 2);
	KUNIT_EXPECT_EQ(test, pi->linkspeed_portstate & 0xf, IB_PORT_DOWN);

	/* PortInfo 2 asked on port 1: port 2's, LocalPortNum 1 */
	mad_init(&in, LR, GET, IB_SMP_ATTR_PORT_INFO, 2);
	process(test, &in, &out);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.status), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->lid), TEST_LID2);
	KUNIT_EXPECT_EQ(test, pi->local_port_num, 1);

	/* and port 1's, asked on port 2 */
	mad_init(&in, LR, GET, IB_SMP_ATTR_PORT_INFO, 1);
	rxe_sma_process_smp(rxe, 2, 0, (struct ib_mad *)&in,
			    (struct ib_mad *)&out);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->lid), TEST_LID);
	KUNIT_EXPECT_EQ(test, pi->local_port_num, 2);
	KUNIT_EXPECT_EQ(test, pi->linkspeed_portstate & 0xf, IB_PORT_ACTIVE);

	/* there is no port 3 */
	mad_init(&in, LR, GET, IB_SMP_ATTR_PORT_INFO, 3);
	process(test, &in, &out);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out.status),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);

	/* GUIDInfo: the GUID of the port it came in on */
	mad_init(&in, LR, GET, IB_SMP_ATTR_GUID_INFO, 0);
	rxe_sma_process_smp(rxe, 2, 0, (struct ib_mad *)&in,
			    (struct ib_mad *)&out);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(*(__be64 *)out.data), TEST_GUID2);
}

/* the P_Key match of IBA 10.9.3 */
struct rxe_sma_pkey_case {
	const char *name;
	u16 a, b;
	bool match;
};

static const struct rxe_sma_pkey_case pkey_cases[] = {
	{ "default, full and full", 0xffff, 0xffff, true },
	{ "default, full and limited", 0xffff, 0x7fff, true },
	{ "default, limited and limited", 0x7fff, 0x7fff, false },
	{ "full and full", 0x8001, 0x8001, true },
	{ "limited and full", 0x0001, 0x8001, true },
	{ "limited and limited", 0x0001, 0x0001, false },
	{ "other partition", 0x8001, 0x8002, false },
	{ "other partition, limited", 0x0001, 0x8002, false },
	{ "invalid 0x0000", 0x0000, 0x8000, false },
	{ "invalid 0x8000", 0x8000, 0x8000, false },
	{ "empty entry", 0x0000, 0x0000, false },
};

KUNIT_ARRAY_PARAM_DESC(pkey, pkey_cases, name);

static void rxe_sma_test_pkey_match(struct kunit *test)
{
	const struct rxe_sma_pkey_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rxe_pkey_match(c->a, c->b), c->match);
	KUNIT_EXPECT_EQ(test, rxe_pkey_match(c->b, c->a), c->match);
}

/* the table of a new port, and what a packet's P_Key finds in a table */
static void rxe_sma_test_pkey_find(struct kunit *test)
{
	static const u16 tbl[] = { 0xffff, 0x0001, 0, 0x8002, 0x8001 };
	struct rxe_dev *rxe = test->priv;
	unsigned int i;
	u16 pkey;

	KUNIT_EXPECT_EQ(test, test_port(rxe)->attr.pkey_tbl_len,
			RXE_IB_PKEY_TBL_LEN);
	KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, 0), 0xffff);
	for (i = 1; i < RXE_IB_PKEY_TBL_LEN; i++)
		KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, i), 0);
	KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, RXE_IB_PKEY_TBL_LEN),
			0);
	KUNIT_EXPECT_EQ(test, rxe_pkey_query(&rxe->ib_dev, RXE_PORT, 0, &pkey),
			0);
	KUNIT_EXPECT_EQ(test, pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, rxe_pkey_query(&rxe->ib_dev, RXE_PORT,
					     RXE_IB_PKEY_TBL_LEN, &pkey),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0xffff), 0);
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x7fff), 0);
	/* a limited member's packet: not the limited entry, the full one */
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x0001), 4);
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, 4, 0x0001), -ENOENT);
	/* the first entry that matches takes a full member's packet */
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x8001), 1);
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x0002), 3);
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x8003), -ENOENT);
	/* an empty entry matches nothing */
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x0000), -ENOENT);
	KUNIT_EXPECT_EQ(test, rxe_pkey_find(tbl, ARRAY_SIZE(tbl), 0x8000), -ENOENT);
}

/* SubnSet(PKeyTable) and SubnGet(PKeyTable), and what the port holds */
static void rxe_sma_test_pkey_table(struct kunit *test)
{
	static const u16 tbl[] = { 0xffff, 0x8001, 0x0002, 0, 0x0001 };
	struct rxe_dev *rxe = test->priv;
	struct ib_smp *in, *out;
	__be16 *pkeys;
	unsigned int i;
	u16 val;

	in = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	pkeys = (__be16 *)out->data;

	/* an SM programs the table; the answer is the new table */
	mad_init(in, DR, SET, IB_SMP_ATTR_PKEY_TABLE, 0);
	for (i = 0; i < ARRAY_SIZE(tbl); i++)
		((__be16 *)in->data)[i] = cpu_to_be16(tbl[i]);
	((__be16 *)in->data)[31] = cpu_to_be16(0x8020);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x8000);
	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		KUNIT_EXPECT_EQ(test, be16_to_cpu(pkeys[i]), tbl[i]);
		KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, i), tbl[i]);
	}
	KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, 31), 0x8020);

	/* a Get reads it back, whatever port the modifier names */
	mad_init(in, LR, GET, IB_SMP_ATTR_PKEY_TABLE, 1 << 16);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pkeys[1]), 0x8001);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pkeys[31]), 0x8020);

	/* the entry of a partition: a full member's first */
	KUNIT_EXPECT_EQ(test, rxe_pkey_held(rxe, RXE_PORT, 0x0001), 0x8001);
	KUNIT_EXPECT_EQ(test, rxe_pkey_held(rxe, RXE_PORT, 0x8002), 0x0002);
	KUNIT_EXPECT_EQ(test, rxe_pkey_held(rxe, RXE_PORT, 0x7fff), 0xffff);
	KUNIT_EXPECT_EQ(test, rxe_pkey_held(rxe, RXE_PORT, 0x8003), 0);
	KUNIT_EXPECT_EQ(test, rxe_pkey_held(rxe, RXE_PORT, 0x8000), 0);

	/* block 1 does not exist: refused, the table stays */
	mad_init(in, LR, SET, IB_SMP_ATTR_PKEY_TABLE, 1);
	KUNIT_ASSERT_EQ(test, process(test, in, out), REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x1c);
	KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, 1), 0x8001);

	/* one entry at a time, as debugfs ports/N/pkey does: a change or not */
	val = 0x8005;
	KUNIT_EXPECT_TRUE(test, rxe_pkey_set(rxe, RXE_PORT, 3, &val, 1));
	KUNIT_EXPECT_FALSE(test, rxe_pkey_set(rxe, RXE_PORT, 3, &val, 1));
	KUNIT_EXPECT_EQ(test, rxe_pkey_get(rxe, RXE_PORT, 3), 0x8005);
	val = 0;
	KUNIT_EXPECT_TRUE(test, rxe_pkey_set(rxe, RXE_PORT, 1, &val, 1));
	KUNIT_EXPECT_EQ(test, rxe_pkey_held(rxe, RXE_PORT, 0x8001), 0x0001);
}

static struct kunit_case rxe_sma_test_cases[] = {
	KUNIT_CASE_PARAM(rxe_sma_test_status, status_gen_params),
	KUNIT_CASE(rxe_sma_test_contents),
	KUNIT_CASE(rxe_sma_test_set_refused),
	KUNIT_CASE(rxe_sma_test_mkey),
	KUNIT_CASE(rxe_sma_test_smp_fail),
	KUNIT_CASE(rxe_sma_test_sm_info),
	KUNIT_CASE(rxe_sma_test_notice_144),
	KUNIT_CASE(rxe_sma_test_notice_257),
	KUNIT_CASE(rxe_sma_test_notice_258),
	KUNIT_CASE(rxe_sma_test_trap_timeout),
	KUNIT_CASE(rxe_sma_test_random),
	KUNIT_CASE_PARAM(rxe_sma_test_state, state_gen_params),
	KUNIT_CASE_PARAM(rxe_sma_test_carries, carry_gen_params),
	KUNIT_CASE(rxe_sma_test_set_state),
	KUNIT_CASE_PARAM(rxe_sma_test_port_sel, port_sel_gen_params),
	KUNIT_CASE(rxe_sma_test_two_ports),
	KUNIT_CASE_PARAM(rxe_sma_test_pkey_match, pkey_gen_params),
	KUNIT_CASE(rxe_sma_test_pkey_find),
	KUNIT_CASE(rxe_sma_test_pkey_table),
	{}
};

static struct kunit_suite rxe_sma_test_suite = {
	.name = "rxe_sma",
	.init = rxe_sma_test_init,
	.test_cases = rxe_sma_test_cases,
};

kunit_test_suite(rxe_sma_test_suite);

MODULE_DESCRIPTION("KUnit tests for the soft InfiniBand subnet management agent");
MODULE_LICENSE("Dual BSD/GPL");
