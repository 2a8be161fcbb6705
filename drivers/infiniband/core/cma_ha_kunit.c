// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the high-availability policy of the RDMA CM (cma_ha.c).
 *
 * Run with:
 *   ./tools/testing/kunit/kunit.py run --arch=x86_64 \
 *	--kunitconfig=drivers/infiniband/core
 */

#include <kunit/test.h>
#include <net/net_namespace.h>

#include <rdma/rdma_cm.h>

#include "cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define HA_NOTIFY	RDMA_CM_HA_MODE_NOTIFY
#define HA_IGNORE	RDMA_CM_HA_MODE_IGNORE
#define HA_ALIGN	RDMA_CM_HA_MODE_ALIGN
#define HA_FAIL_FAST	RDMA_CM_HA_MODE_FAIL_FAST
#define HA_MIGRATE	RDMA_CM_HA_MODE_MIGRATE

#define EV_FAILOVER	CMA_HA_EV_BOND_FAILOVER
#define EV_PORT_ERR	CMA_HA_EV_PORT_ERR

#define P_MAC		CMA_HA_PATH_MAC_CHANGED
#define P_MIS		CMA_HA_PATH_MISALIGNED
#define P_DEAD		CMA_HA_PATH_DEAD
#define P_APM		CMA_HA_PATH_CAN_MIGRATE

static const char * const mode_names[] = {
	[HA_NOTIFY] = "notify", [HA_IGNORE] = "ignore", [HA_ALIGN] = "align",
	[HA_FAIL_FAST] = "fail-fast", [HA_MIGRATE] = "migrate",
};

static const char * const event_names[] = {
	[EV_FAILOVER] = "failover", [EV_PORT_ERR] = "port-err",
};

static const char * const state_names[] = {
	[CMA_HA_ID_IDLE] = "idle",
	[CMA_HA_ID_BOUND] = "bound",
	[CMA_HA_ID_RESOLVING] = "resolving",
	[CMA_HA_ID_RESOLVED] = "resolved",
	[CMA_HA_ID_CONNECTING] = "connecting",
	[CMA_HA_ID_CONNECTED] = "connected",
	[CMA_HA_ID_LISTENING] = "listening",
	[CMA_HA_ID_CLOSING] = "closing",
};

static const char * const action_names[] = {
	[CMA_HA_ACT_NONE] = "none",
	[CMA_HA_ACT_NOTIFY] = "notify",
	[CMA_HA_ACT_DISCONNECT] = "disconnect",
	[CMA_HA_ACT_FAIL_CONNECT] = "fail-connect",
	[CMA_HA_ACT_RELISTEN] = "relisten",
	[CMA_HA_ACT_MIGRATE] = "migrate",
};

struct cma_ha_decide_case {
	enum rdma_cm_ha_mode mode;
	enum cma_ha_event event;
	enum cma_ha_id_state state;
	unsigned int path;
	enum cma_ha_action action;
};

#define C(m, e, s, p, a) \
	{ .mode = m, .event = e, .state = CMA_HA_ID_##s, .path = p, \
	  .action = CMA_HA_ACT_##a }

static const struct cma_ha_decide_case cma_ha_decide_cases[] = {
	/* notify: exactly the pre-HA behaviour, MAC change in any state */
	C(HA_NOTIFY, EV_FAILOVER, CONNECTED, P_MAC, NOTIFY),
	C(HA_NOTIFY, EV_FAILOVER, LISTENING, P_MAC, NOTIFY),
	C(HA_NOTIFY, EV_FAILOVER, CLOSING, P_MAC, NOTIFY),
	C(HA_NOTIFY, EV_FAILOVER, IDLE, P_MAC, NOTIFY),
	C(HA_NOTIFY, EV_FAILOVER, CONNECTED, 0, NONE),
	C(HA_NOTIFY, EV_FAILOVER, CONNECTED, P_MIS, NONE),
	C(HA_NOTIFY, EV_FAILOVER, CONNECTED, P_MIS | P_DEAD, NONE),
	C(HA_NOTIFY, EV_PORT_ERR, CONNECTED, P_DEAD, NONE),
	C(HA_NOTIFY, EV_PORT_ERR, CONNECTED, P_MAC | P_DEAD, NONE),
	/* ignore: never anything */
	C(HA_IGNORE, EV_FAILOVER, CONNECTED, P_MAC | P_MIS | P_DEAD, NONE),
	C(HA_IGNORE, EV_FAILOVER, LISTENING, P_MAC | P_MIS, NONE),
	C(HA_IGNORE, EV_PORT_ERR, CONNECTED, P_DEAD | P_APM, NONE),
	/* align: misalignment, not the MAC, decides (fail_over_mac=none) */
	C(HA_ALIGN, EV_FAILOVER, CONNECTED, P_MIS, DISCONNECT),
	C(HA_ALIGN, EV_FAILOVER, CONNECTED, P_MAC | P_MIS, DISCONNECT),
	C(HA_ALIGN, EV_FAILOVER, CONNECTED, P_MAC, NONE),
	C(HA_ALIGN, EV_FAILOVER, CONNECTED, P_DEAD, NONE),
	C(HA_ALIGN, EV_FAILOVER, CONNECTING, P_MIS, FAIL_CONNECT),
	C(HA_ALIGN, EV_FAILOVER, RESOLVED, P_MIS, FAIL_CONNECT),
	C(HA_ALIGN, EV_FAILOVER, RESOLVING, P_MIS, NOTIFY),
	C(HA_ALIGN, EV_FAILOVER, BOUND, P_MIS, NOTIFY),
	C(HA_ALIGN, EV_FAILOVER, LISTENING, P_MIS, RELISTEN),
	C(HA_ALIGN, EV_FAILOVER, LISTENING, P_MAC, NONE),
	C(HA_ALIGN, EV_FAILOVER, CLOSING, P_MIS, NONE),
	C(HA_ALIGN, EV_FAILOVER, IDLE, P_MIS, NONE),
	C(HA_ALIGN, EV_PORT_ERR, CONNECTED, P_DEAD, NONE),
	C(HA_ALIGN, EV_FAILOVER, CONNECTED, P_MIS | P_APM, DISCONNECT),
	/* fail-fast: only a dead path is torn down */
	C(HA_FAIL_FAST, EV_FAILOVER, CONNECTED, P_MIS, NONE),
	C(HA_FAIL_FAST, EV_FAILOVER, CONNECTED, P_MAC | P_MIS, NONE),
	C(HA_FAIL_FAST, EV_FAILOVER, CONNECTED, P_MIS | P_DEAD, DISCONNECT),
	C(HA_FAIL_FAST, EV_FAILOVER, CONNECTED, P_DEAD, DISCONNECT),
	C(HA_FAIL_FAST, EV_PORT_ERR, CONNECTED, P_DEAD, DISCONNECT),
	C(HA_FAIL_FAST, EV_PORT_ERR, CONNECTING, P_DEAD, FAIL_CONNECT),
	C(HA_FAIL_FAST, EV_PORT_ERR, RESOLVED, P_DEAD, FAIL_CONNECT),
	C(HA_FAIL_FAST, EV_FAILOVER, BOUND, P_DEAD, NOTIFY),
	C(HA_FAIL_FAST, EV_PORT_ERR, BOUND, P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_PORT_ERR, RESOLVING, P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_PORT_ERR, LISTENING, P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_FAILOVER, LISTENING, P_MIS | P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_PORT_ERR, CLOSING, P_DEAD, NONE),
	/* migrate: move when the QP can, else fall back to align */
	C(HA_MIGRATE, EV_FAILOVER, CONNECTED, P_MIS | P_APM, MIGRATE),
	C(HA_MIGRATE, EV_FAILOVER, CONNECTED, P_DEAD | P_APM, MIGRATE),
	C(HA_MIGRATE, EV_FAILOVER, CONNECTED, P_APM, NONE),
	C(HA_MIGRATE, EV_FAILOVER, CONNECTED, P_MIS, DISCONNECT),
	C(HA_MIGRATE, EV_FAILOVER, CONNECTING, P_MIS | P_APM, FAIL_CONNECT),
	C(HA_MIGRATE, EV_FAILOVER, LISTENING, P_MIS, RELISTEN),
	C(HA_MIGRATE, EV_PORT_ERR, CONNECTED, P_DEAD | P_APM, MIGRATE),
	C(HA_MIGRATE, EV_PORT_ERR, CONNECTED, P_DEAD, NONE),
	C(HA_MIGRATE, EV_PORT_ERR, CLOSING, P_DEAD | P_APM, NONE),
	/* values outside the enum decide nothing */
	C(5, EV_FAILOVER, CONNECTED, P_MAC | P_MIS | P_DEAD, NONE),
	C(255, EV_PORT_ERR, CONNECTED, P_DEAD, NONE),
};

static const char *name_of(const char * const *names, size_t n,
			   unsigned int v)
{
	return v < n && names[v] ? names[v] : "?";
}

static const char * const path_names[] = {
	"mac-changed", "misaligned", "dead", "can-migrate",
};

static void cma_ha_decide_desc(const struct cma_ha_decide_case *c,
			       char *desc)
{
	char path[64] = "ok";
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(path_names); i++)
		if (c->path & BIT(i))
			len += scnprintf(path + len, sizeof(path) - len, "%s%s",
					 len ? "|" : "", path_names[i]);

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s/%s/%s/%s -> %s",
		 name_of(mode_names, ARRAY_SIZE(mode_names), c->mode),
		 name_of(event_names, ARRAY_SIZE(event_names), c->event),
		 name_of(state_names, ARRAY_SIZE(state_names), c->state),
		 path,
		 name_of(action_names, ARRAY_SIZE(action_names), c->action));
}

KUNIT_ARRAY_PARAM(cma_ha_decide, cma_ha_decide_cases, cma_ha_decide_desc);

static void cma_ha_decide_test(struct kunit *test)
{
	const struct cma_ha_decide_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cma_ha_decide(c->mode, c->event, c->state,
					    c->path),
			c->action);
}

struct cma_ha_state_case {
	enum rdma_cm_state state;
	bool established;
	enum cma_ha_id_state expected;
};

static const struct cma_ha_state_case cma_ha_state_cases[] = {
	{ RDMA_CM_IDLE, false, CMA_HA_ID_IDLE },
	{ RDMA_CM_ADDR_QUERY, false, CMA_HA_ID_RESOLVING },
	{ RDMA_CM_ADDR_RESOLVED, false, CMA_HA_ID_RESOLVED },
	{ RDMA_CM_ROUTE_QUERY, false, CMA_HA_ID_RESOLVING },
	{ RDMA_CM_ROUTE_RESOLVED, false, CMA_HA_ID_RESOLVED },
	{ RDMA_CM_CONNECT, false, CMA_HA_ID_CONNECTING },
	{ RDMA_CM_CONNECT, true, CMA_HA_ID_CONNECTED },
	{ RDMA_CM_DISCONNECT, true, CMA_HA_ID_CLOSING },
	{ RDMA_CM_ADDR_BOUND, false, CMA_HA_ID_BOUND },
	{ RDMA_CM_LISTEN, false, CMA_HA_ID_LISTENING },
	{ RDMA_CM_DEVICE_REMOVAL, false, CMA_HA_ID_CLOSING },
	{ RDMA_CM_DESTROYING, false, CMA_HA_ID_CLOSING },
};

static void cma_ha_state_desc(const struct cma_ha_state_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rdma_cm_state %d%s -> %s",
		 c->state, c->established ? " established" : "",
		 name_of(state_names, ARRAY_SIZE(state_names), c->expected));
}

KUNIT_ARRAY_PARAM(cma_ha_state, cma_ha_state_cases, cma_ha_state_desc);

static void cma_ha_state_test(struct kunit *test)
{
	const struct cma_ha_state_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cma_ha_id_state(c->state, c->established),
			c->expected);
}

static void cma_ha_status_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cma_ha_addr_change_status(HA_NOTIFY,
							CMA_HA_ACT_NOTIFY), 0);
	KUNIT_EXPECT_EQ(test, cma_ha_addr_change_status(HA_ALIGN,
							CMA_HA_ACT_DISCONNECT),
			0);
	KUNIT_EXPECT_EQ(test, cma_ha_addr_change_status(HA_MIGRATE,
							CMA_HA_ACT_DISCONNECT),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test,
			cma_ha_addr_change_status(HA_MIGRATE,
						  CMA_HA_ACT_FAIL_CONNECT),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, cma_ha_addr_change_status(HA_MIGRATE,
							CMA_HA_ACT_NOTIFY), 0);
	KUNIT_EXPECT_EQ(test, cma_ha_teardown_status(HA_ALIGN), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, cma_ha_teardown_status(HA_MIGRATE), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, cma_ha_teardown_status(HA_FAIL_FAST), -ENETDOWN);
}

/* Option validation: the values RDMA_OPTION_ID_HA_MODE accepts */
struct cma_ha_option_case {
	unsigned int mode;
	enum ib_qp_type qp_type;
	int ret;
};

static const struct cma_ha_option_case cma_ha_option_cases[] = {
	{ HA_NOTIFY, IB_QPT_RC, 0 },
	{ HA_IGNORE, IB_QPT_RC, 0 },
	{ HA_ALIGN, IB_QPT_RC, 0 },
	{ HA_FAIL_FAST, IB_QPT_RC, 0 },
	{ HA_MIGRATE, IB_QPT_RC, 0 },
	{ HA_ALIGN, IB_QPT_UC, 0 },
	{ 5, IB_QPT_RC, -EINVAL },
	{ 128, IB_QPT_RC, -EINVAL },
	{ 255, IB_QPT_RC, -EINVAL },
	{ 0x100, IB_QPT_RC, -EINVAL },
	{ HA_NOTIFY, IB_QPT_UD, 0 },
	{ HA_IGNORE, IB_QPT_UD, 0 },
	{ HA_ALIGN, IB_QPT_UD, -EOPNOTSUPP },
	{ HA_FAIL_FAST, IB_QPT_UD, -EOPNOTSUPP },
	{ HA_MIGRATE, IB_QPT_UD, -EOPNOTSUPP },
	{ 7, IB_QPT_UD, -EINVAL },
};

static void cma_ha_option_desc(const struct cma_ha_option_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "mode %u on %s id -> %d",
		 c->mode, c->qp_type == IB_QPT_UD ? "UD" :
			  c->qp_type == IB_QPT_UC ? "UC" : "RC", c->ret);
}

KUNIT_ARRAY_PARAM(cma_ha_option, cma_ha_option_cases, cma_ha_option_desc);

static int cma_ha_test_handler(struct rdma_cm_id *id,
			       struct rdma_cm_event *event)
{
	return 0;
}

static void cma_ha_option_test(struct kunit *test)
{
	const struct cma_ha_option_case *c = test->param_value;
	enum rdma_ucm_port_space ps;
	struct rdma_cm_id *id;

	ps = c->qp_type == IB_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	id = rdma_create_id(&init_net, cma_ha_test_handler, NULL, ps,
			    c->qp_type);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);

	KUNIT_EXPECT_EQ(test, rdma_get_ha_mode(id), HA_NOTIFY);
	KUNIT_EXPECT_EQ(test, rdma_set_ha_mode(id, c->mode), c->ret);
	KUNIT_EXPECT_EQ(test, rdma_get_ha_mode(id), c->ret ? HA_NOTIFY : c->mode);

	/* A failed call leaves a previously set mode alone */
	if (c->ret && c->qp_type != IB_QPT_UD) {
		KUNIT_EXPECT_EQ(test, rdma_set_ha_mode(id, HA_FAIL_FAST), 0);
		KUNIT_EXPECT_EQ(test, rdma_set_ha_mode(id, c->mode), c->ret);
		KUNIT_EXPECT_EQ(test, rdma_get_ha_mode(id), HA_FAIL_FAST);
	}
	rdma_destroy_id(id);
}

static void cma_ha_mode_valid_test(struct kunit *test)
{
	unsigned int mode;

	for (mode = 0; mode < 0x200; mode++)
		KUNIT_EXPECT_EQ(test, cma_ha_mode_valid(mode),
				mode <= RDMA_CM_HA_MODE_MIGRATE);
}

/* Per-device listeners follow the mode of the listener they serve */
static void cma_ha_inherit_test(struct kunit *test)
{
	struct rdma_id_private *parent, *clone;

	parent = kunit_kzalloc(test, sizeof(*parent), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parent);
	clone = kunit_kzalloc(test, sizeof(*clone), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, clone);

	parent->ha_mode = HA_ALIGN;
	clone->internal_id = 1;
	clone->id.context = parent;
	clone->ha_mode = HA_NOTIFY;

	KUNIT_EXPECT_EQ(test, cma_ha_mode(parent), HA_ALIGN);
	KUNIT_EXPECT_EQ(test, cma_ha_mode(clone), HA_ALIGN);
	parent->ha_mode = HA_FAIL_FAST;
	KUNIT_EXPECT_EQ(test, cma_ha_mode(clone), HA_FAIL_FAST);
}

static struct kunit_case cma_ha_test_cases[] = {
	KUNIT_CASE_PARAM(cma_ha_decide_test, cma_ha_decide_gen_params),
	KUNIT_CASE_PARAM(cma_ha_state_test, cma_ha_state_gen_params),
	KUNIT_CASE(cma_ha_status_test),
	KUNIT_CASE(cma_ha_mode_valid_test),
	KUNIT_CASE_PARAM(cma_ha_option_test, cma_ha_option_gen_params),
	KUNIT_CASE(cma_ha_inherit_test),
	{}
};

static struct kunit_suite cma_ha_test_suite = {
	.name = "cma_ha",
	.test_cases = cma_ha_test_cases,
};

kunit_test_suite(cma_ha_test_suite);

MODULE_DESCRIPTION("KUnit tests for the RDMA CM high-availability modes");
MODULE_LICENSE("Dual BSD/GPL");
