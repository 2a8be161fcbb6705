// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for automatic path migration on soft InfiniBand ports: the
 * modify QP transitions, the receive rules, what a migration does to a
 * QP and which QPs migrate when their port goes down.
 */

#include <kunit/test.h>

#include "rxe.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define MIGRATED	IB_MIG_MIGRATED
#define REARM		IB_MIG_REARM
#define ARMED		IB_MIG_ARMED

static void rxe_apm_test_mig_state(struct kunit *test)
{
	static const struct {
		enum ib_mig_state cur, next;
		bool have_alt;
		int ret;
	} t[] = {
		/* rearm a migrated QP: only with an alternate path */
		{ MIGRATED, REARM, true, 0 },
		{ MIGRATED, REARM, false, -EINVAL },
		{ REARM, REARM, true, 0 },
		{ ARMED, REARM, true, -EINVAL },
		/* arm: only a rearmed (or armed) QP with an alternate path */
		{ REARM, ARMED, true, 0 },
		{ REARM, ARMED, false, -EINVAL },
		{ ARMED, ARMED, true, 0 },
		{ MIGRATED, ARMED, true, -EINVAL },
		/* migrate: forced from ARMED, a no-op from MIGRATED */
		{ ARMED, MIGRATED, true, 0 },
		{ MIGRATED, MIGRATED, false, 0 },
		{ REARM, MIGRATED, true, -EINVAL },
		/* no such state */
		{ ARMED, 3, true, -EINVAL },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, rxe_apm_chk_mig_state(t[i].cur,
								t[i].next,
								t[i].have_alt),
				    t[i].ret, "case %d: %d -> %d alt %d", i,
				    t[i].cur, t[i].next, t[i].have_alt);
}

static void rxe_apm_test_rcv_verdict(struct kunit *test)
{
	static const struct {
		enum ib_mig_state cur;
		bool mig_req, on_pri, on_alt;
		enum rxe_apm_verdict v;
	} t[] = {
		{ MIGRATED, true, true, false, RXE_APM_ACCEPT },
		{ MIGRATED, false, true, false, RXE_APM_ACCEPT },
		{ MIGRATED, true, false, true, RXE_APM_DROP },
		{ MIGRATED, false, false, false, RXE_APM_DROP },
		/* the peer rearmed: arm */
		{ REARM, false, true, false, RXE_APM_ARM },
		/* the peer did not rearm (yet) */
		{ REARM, true, true, false, RXE_APM_ACCEPT },
		{ REARM, true, false, true, RXE_APM_DROP },
		{ REARM, false, false, true, RXE_APM_DROP },
		/* armed, the peer still on the primary path */
		{ ARMED, false, true, false, RXE_APM_ACCEPT },
		{ ARMED, false, true, true, RXE_APM_ACCEPT },
		{ ARMED, false, false, true, RXE_APM_DROP },
		/* the peer migrated: to our alternate path, or elsewhere */
		{ ARMED, true, false, true, RXE_APM_MIGRATE },
		{ ARMED, true, true, true, RXE_APM_MIGRATE },
		{ ARMED, true, true, false, RXE_APM_MIG_ERR },
		{ ARMED, true, false, false, RXE_APM_MIG_ERR },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, rxe_apm_rcv_verdict(t[i].cur,
							      t[i].mig_req,
							      t[i].on_pri,
							      t[i].on_alt),
				    t[i].v, "case %d", i);
}

/*
 * Port 1 of a two-port device goes down: which QPs migrate at once.  The
 * first row is the one that migrates: an armed RC QP in RTS on port 1
 * with its alternate path on port 2, which is ACTIVE; each other row
 * changes what its name says.
 */
#define PD_DOWN		1

struct rxe_apm_port_down_case {
	const char *name;
	enum ib_qp_type type;
	enum ib_qp_state state;
	enum ib_mig_state mig;
	u32 port, alt_port;
	enum ib_port_state alt_state;
	bool migrates;
};

static const struct rxe_apm_port_down_case rxe_apm_port_down_cases[] = {
	{ "RC migrates",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_ACTIVE, true },
	{ "UC migrates",
	  IB_QPT_UC, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_ACTIVE, true },
	{ "UD stays",
	  IB_QPT_UD, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_ACTIVE, false },
	{ "GSI stays",
	  IB_QPT_GSI, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_ACTIVE, false },
	{ "RTR stays",
	  IB_QPT_RC, IB_QPS_RTR, ARMED, 1, 2, IB_PORT_ACTIVE, false },
	{ "SQD stays",
	  IB_QPT_RC, IB_QPS_SQD, ARMED, 1, 2, IB_PORT_ACTIVE, false },
	{ "SQE stays",
	  IB_QPT_UC, IB_QPS_SQE, ARMED, 1, 2, IB_PORT_ACTIVE, false },
	{ "ERR stays",
	  IB_QPT_RC, IB_QPS_ERR, ARMED, 1, 2, IB_PORT_ACTIVE, false },
	{ "MIGRATED stays",
	  IB_QPT_RC, IB_QPS_RTS, MIGRATED, 1, 2, IB_PORT_ACTIVE, false },
	{ "REARM stays",
	  IB_QPT_RC, IB_QPS_RTS, REARM, 1, 2, IB_PORT_ACTIVE, false },
	{ "QP on the other port stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 2, 2, IB_PORT_ACTIVE, false },
	{ "QP on the other port, alt on the downed one stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 2, 1, IB_PORT_ACTIVE, false },
	{ "alt on the downed port stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 1, 1, IB_PORT_ACTIVE, false },
	{ "alt port 0 stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 1, 0, IB_PORT_NOP, false },
	{ "alt port 3 stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 1, 3, IB_PORT_NOP, false },
	{ "alt port DOWN stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_DOWN, false },
	{ "alt port INIT stays",
	  IB_QPT_RC, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_INIT, false },
	{ "alt port ARMED stays",
	  IB_QPT_UC, IB_QPS_RTS, ARMED, 1, 2, IB_PORT_ARMED, false },
};

KUNIT_ARRAY_PARAM_DESC(rxe_apm_port_down, rxe_apm_port_down_cases, name);

static void rxe_apm_test_port_down(struct kunit *test)
{
	const struct rxe_apm_port_down_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rxe_apm_port_down_migrates(c->type, c->state,
							 c->mig, c->port,
							 c->alt_port, PD_DOWN,
							 c->alt_state),
			c->migrates);
}

struct rxe_apm_test_ctx {
	struct ib_device ibdev;
	struct rxe_qp qp;
	int nev[IB_EVENT_GID_CHANGE + 1];
};

static void rxe_apm_test_event(struct ib_event *ev, void *ctx)
{
	struct rxe_apm_test_ctx *c = ctx;

	if (ev->event >= 0 && ev->event < ARRAY_SIZE(c->nev))
		c->nev[ev->event]++;
}

/* an armed RC QP: primary LID 0x0207 SL 0, alternate LID 0x0207 SL 1 */
static struct rxe_apm_test_ctx *rxe_apm_test_qp(struct kunit *test)
{
	struct rxe_apm_test_ctx *c;
	struct rxe_qp *qp;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	qp = &c->qp;
	spin_lock_init(&qp->state_lock);
	qp->ibqp.device = &c->ibdev;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->ibqp.event_handler = rxe_apm_test_event;
	qp->ibqp.qp_context = c;
	rxe_ib_av(&qp->pri_av)->dlid = 0x0207;
	rxe_ib_av(&qp->alt_av)->dlid = 0x0207;
	rxe_ib_av(&qp->alt_av)->sl = 1;
	qp->attr.port_num = 1;
	qp->attr.alt_port_num = 1;
	qp->attr.timeout = 0;
	qp->attr.alt_timeout = 14;
	qp->attr.path_mig_state = IB_MIG_ARMED;
	return c;
}

static void rxe_apm_test_retry_exhausted(struct kunit *test)
{
	struct rxe_apm_test_ctx *c = rxe_apm_test_qp(test);
	struct rxe_qp *qp = &c->qp;

	KUNIT_EXPECT_TRUE(test, rxe_apm_retry_exhausted(qp));
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	KUNIT_EXPECT_EQ(test, rxe_ib_av(&qp->pri_av)->sl, 1);
	KUNIT_EXPECT_EQ(test, qp->attr.timeout, 14);
	KUNIT_EXPECT_NE(test, qp->qp_timeout_jiffies, 0);
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG], 1);

	/* migrated: nothing left to migrate to, the send fails */
	KUNIT_EXPECT_FALSE(test, rxe_apm_retry_exhausted(qp));
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG], 1);

	/* neither does a rearmed QP the peer has not confirmed */
	qp->attr.path_mig_state = IB_MIG_REARM;
	KUNIT_EXPECT_FALSE(test, rxe_apm_retry_exhausted(qp));
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_REARM);
}

static void rxe_apm_test_rcv(struct kunit *test)
{
	struct rxe_apm_test_ctx *c = rxe_apm_test_qp(test);
	struct rxe_qp *qp = &c->qp;

	/* rearmed: a MigReq = 0 packet on the primary path arms it */
	qp->attr.path_mig_state = IB_MIG_REARM;
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, true, false), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_REARM);
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, false, true, false), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_ARMED);

	/* a migration request elsewhere: dropped, told once */
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, true, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, false, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG_ERR], 1);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_ARMED);

	/* on the alternate path: the responder migrates */
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, false, true), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	KUNIT_EXPECT_EQ(test, rxe_ib_av(&qp->pri_av)->sl, 1);
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG], 1);

	/* migrated: only the (new) primary path */
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, true, false), 0);
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, false, false, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG], 1);
}

/*
 * A request outstanding when the peer moved the QP gets the full retry
 * count on the new path; one the QP's own exhaustion moved gets it from
 * the completer once, not twice.
 */
static void rxe_apm_test_fresh_retries(struct kunit *test)
{
	struct rxe_apm_test_ctx *c = rxe_apm_test_qp(test);
	struct rxe_qp *qp = &c->qp;

	qp->attr.retry_cnt = 3;
	qp->comp.retry_cnt = 1;
	rxe_apm_fresh_retries(qp);
	KUNIT_EXPECT_EQ(test, qp->comp.retry_cnt, 1);

	/* the peer's MigReq on the alternate path */
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, false, true), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	rxe_apm_fresh_retries(qp);
	KUNIT_EXPECT_EQ(test, qp->comp.retry_cnt, 3);
	qp->comp.retry_cnt = 0;
	rxe_apm_fresh_retries(qp);
	KUNIT_EXPECT_EQ(test, qp->comp.retry_cnt, 0);

	/* rearmed, then moved by its own exhausted retries */
	qp->attr.path_mig_state = IB_MIG_ARMED;
	KUNIT_EXPECT_TRUE(test, rxe_apm_retry_exhausted(qp));
	qp->comp.retry_cnt = 2;
	rxe_apm_fresh_retries(qp);
	KUNIT_EXPECT_EQ(test, qp->comp.retry_cnt, 2);

	/* a forced migration counts as well */
	qp->attr.path_mig_state = IB_MIG_ARMED;
	qp->comp.retry_cnt = 0;
	rxe_apm_modify(qp, &(struct ib_qp_attr){
			.path_mig_state = IB_MIG_MIGRATED },
		       IB_QP_PATH_MIG_STATE);
	rxe_apm_fresh_retries(qp);
	KUNIT_EXPECT_EQ(test, qp->comp.retry_cnt, 3);
}

static void rxe_apm_test_modify(struct kunit *test)
{
	struct rxe_apm_test_ctx *c = rxe_apm_test_qp(test);
	struct rxe_qp *qp = &c->qp;
	struct ib_qp_attr attr = {};

	/* forced migration: the consumer asked, no event */
	attr.path_mig_state = IB_MIG_MIGRATED;
	rxe_apm_modify(qp, &attr, IB_QP_PATH_MIG_STATE);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	KUNIT_EXPECT_EQ(test, rxe_ib_av(&qp->pri_av)->sl, 1);
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG], 0);

	attr.path_mig_state = IB_MIG_REARM;
	rxe_apm_modify(qp, &attr, IB_QP_PATH_MIG_STATE);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_REARM);

	/* reset forgets the alternate path and the state */
	attr.qp_state = IB_QPS_RESET;
	rxe_apm_modify(qp, &attr, IB_QP_STATE);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	KUNIT_EXPECT_EQ(test, rxe_ib_av(&qp->alt_av)->dlid, 0);
}

/*
 * A UC QP has no retransmit timer (rxe_qp_init_req() sets one up for RC
 * only): a migration must not give it a timeout, whatever the alternate
 * path carries, or its next send arms a timer that was never set up.
 */
static void rxe_apm_test_uc_timeout(struct kunit *test)
{
	struct rxe_apm_test_ctx *c = rxe_apm_test_qp(test);
	struct rxe_qp *qp = &c->qp;
	struct ib_qp_attr attr = {};

	qp->ibqp.qp_type = IB_QPT_UC;

	/* forced */
	attr.path_mig_state = IB_MIG_MIGRATED;
	rxe_apm_modify(qp, &attr, IB_QP_PATH_MIG_STATE);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	KUNIT_EXPECT_EQ(test, rxe_ib_av(&qp->pri_av)->sl, 1);
	KUNIT_EXPECT_EQ(test, qp->attr.timeout, 0);
	KUNIT_EXPECT_EQ(test, qp->qp_timeout_jiffies, 0);

	/* by the peer's MigReq on the alternate path */
	qp->attr.path_mig_state = IB_MIG_ARMED;
	KUNIT_EXPECT_EQ(test, rxe_apm_rcv(qp, true, false, true), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mig_state, IB_MIG_MIGRATED);
	KUNIT_EXPECT_EQ(test, c->nev[IB_EVENT_PATH_MIG], 1);
	KUNIT_EXPECT_EQ(test, qp->attr.timeout, 0);
	KUNIT_EXPECT_EQ(test, qp->qp_timeout_jiffies, 0);
}

static struct kunit_case rxe_apm_test_cases[] = {
	KUNIT_CASE(rxe_apm_test_mig_state),
	KUNIT_CASE(rxe_apm_test_rcv_verdict),
	KUNIT_CASE(rxe_apm_test_retry_exhausted),
	KUNIT_CASE(rxe_apm_test_uc_timeout),
	KUNIT_CASE(rxe_apm_test_rcv),
	KUNIT_CASE(rxe_apm_test_modify),
	KUNIT_CASE(rxe_apm_test_fresh_retries),
	KUNIT_CASE_PARAM(rxe_apm_test_port_down, rxe_apm_port_down_gen_params),
	{}
};

static struct kunit_suite rxe_apm_test_suite = {
	.name = "rxe_apm",
	.test_cases = rxe_apm_test_cases,
};

kunit_test_suite(rxe_apm_test_suite);

MODULE_DESCRIPTION("KUnit tests for automatic path migration in rxe");
MODULE_LICENSE("Dual BSD/GPL");
