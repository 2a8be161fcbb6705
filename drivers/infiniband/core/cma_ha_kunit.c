// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the high-availability policy of the RDMA CM (cma_ha.c).
 *
 * Run with:
 *   ./tools/testing/kunit/kunit.py run --arch=x86_64 \
 *	--kunitconfig=drivers/infiniband/core
 */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/rtnetlink.h>
#include <net/bonding.h>
#include <net/net_namespace.h>

#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/lag.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define HA_NOTIFY	RDMA_CM_HA_MODE_NOTIFY
#define HA_IGNORE	RDMA_CM_HA_MODE_IGNORE
#define HA_ALIGN	RDMA_CM_HA_MODE_ALIGN
#define HA_FAIL_FAST	RDMA_CM_HA_MODE_FAIL_FAST
#define HA_MIGRATE	RDMA_CM_HA_MODE_MIGRATE
#define HA_REPORT	RDMA_CM_HA_MODE_REPORT
/* The first value that is no mode */
#define HA_INVALID	(RDMA_CM_HA_MODE_REPORT + 1)

#define ST_ALIGNED	RDMA_CM_HA_PATH_ALIGNED
#define ST_MIS		RDMA_CM_HA_PATH_MISALIGNED
#define ST_DEAD		RDMA_CM_HA_PATH_DEAD

#define EV_FAILOVER	CMA_HA_EV_BOND_FAILOVER
#define EV_PORT_ERR	CMA_HA_EV_PORT_ERR
#define EV_NEIGH	CMA_HA_EV_NEIGH_UPDATE
#define EV_PORT_UP	CMA_HA_EV_PORT_ACTIVE

#define P_MAC		CMA_HA_PATH_MAC_CHANGED
#define P_MIS		CMA_HA_PATH_MISALIGNED
#define P_DEAD		CMA_HA_PATH_DEAD
#define P_APM		CMA_HA_PATH_CAN_MIGRATE
#define P_HELD		CMA_HA_PATH_PORT_HELD
#define P_REARM		CMA_HA_PATH_REARM

static const char * const event_names[] = {
	[EV_FAILOVER] = "failover", [EV_PORT_ERR] = "port-err",
	[EV_NEIGH] = "neigh-update", [EV_PORT_UP] = "port-active",
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
	[CMA_HA_ACT_REPORT] = "report",
	[CMA_HA_ACT_REARM] = "rearm",
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
	/* a failover inside a flap of the ID's port: the port event judges */
	C(HA_FAIL_FAST, EV_FAILOVER, CONNECTED, P_MIS | P_DEAD | P_HELD, NONE),
	C(HA_FAIL_FAST, EV_FAILOVER, CONNECTING, P_MIS | P_DEAD | P_HELD, NONE),
	C(HA_FAIL_FAST, EV_FAILOVER, LISTENING, P_MIS | P_DEAD | P_HELD, RELISTEN),
	C(HA_ALIGN, EV_FAILOVER, CONNECTED, P_MIS | P_DEAD | P_HELD, DISCONNECT),
	C(HA_REPORT, EV_FAILOVER, CONNECTED, P_MIS | P_DEAD | P_HELD, REPORT),
	C(HA_FAIL_FAST, EV_PORT_ERR, CONNECTED, P_DEAD, DISCONNECT),
	C(HA_FAIL_FAST, EV_PORT_ERR, CONNECTING, P_DEAD, FAIL_CONNECT),
	C(HA_FAIL_FAST, EV_PORT_ERR, RESOLVED, P_DEAD, FAIL_CONNECT),
	C(HA_FAIL_FAST, EV_FAILOVER, BOUND, P_DEAD, NOTIFY),
	C(HA_FAIL_FAST, EV_PORT_ERR, BOUND, P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_PORT_ERR, RESOLVING, P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_PORT_ERR, LISTENING, P_DEAD, NONE),
	/* a bound listener follows the bond: extending it tears nothing down */
	C(HA_FAIL_FAST, EV_FAILOVER, LISTENING, P_MIS | P_DEAD, RELISTEN),
	C(HA_FAIL_FAST, EV_FAILOVER, LISTENING, P_MIS, RELISTEN),
	C(HA_FAIL_FAST, EV_FAILOVER, LISTENING, 0, NONE),
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
	/* the port is ACTIVE again when the work runs: a flap */
	C(HA_MIGRATE, EV_PORT_ERR, CONNECTED, P_APM, NONE),
	C(HA_FAIL_FAST, EV_PORT_ERR, CONNECTED, 0, NONE),
	C(HA_MIGRATE, EV_PORT_ERR, CLOSING, P_DEAD | P_APM, NONE),
	/*
	 * A neighbour update: notify is the CM's UNREACHABLE -ETIMEDOUT, in
	 * any state for notify (as before HA modes), align and migrate; for
	 * fail-fast only on a dead path; never for ignore
	 */
	C(HA_NOTIFY, EV_NEIGH, CONNECTED, 0, NOTIFY),
	C(HA_NOTIFY, EV_NEIGH, RESOLVED, 0, NOTIFY),
	C(HA_NOTIFY, EV_NEIGH, CLOSING, 0, NOTIFY),
	C(HA_IGNORE, EV_NEIGH, CONNECTED, 0, NONE),
	C(HA_IGNORE, EV_NEIGH, CONNECTED, P_DEAD, NONE),
	C(HA_ALIGN, EV_NEIGH, CONNECTED, 0, NOTIFY),
	C(HA_MIGRATE, EV_NEIGH, CONNECTED, P_APM, NOTIFY),
	C(HA_FAIL_FAST, EV_NEIGH, CONNECTED, 0, NONE),
	C(HA_FAIL_FAST, EV_NEIGH, CONNECTING, 0, NONE),
	C(HA_FAIL_FAST, EV_NEIGH, CONNECTED, P_DEAD, NOTIFY),
	/*
	 * report: the path's state on every failover, in every state but
	 * idle and closing (cma_ha_report_status() says whether it changed
	 * for the ID); on a port event only when the path is dead; a bound
	 * listener is extended as in align; never a teardown
	 */
	C(HA_REPORT, EV_FAILOVER, CONNECTED, 0, REPORT),
	C(HA_REPORT, EV_FAILOVER, CONNECTED, P_MAC, REPORT),
	C(HA_REPORT, EV_FAILOVER, CONNECTED, P_MIS, REPORT),
	C(HA_REPORT, EV_FAILOVER, CONNECTED, P_MIS | P_DEAD, REPORT),
	C(HA_REPORT, EV_FAILOVER, CONNECTED, P_MIS | P_APM, REPORT),
	C(HA_REPORT, EV_FAILOVER, CONNECTING, P_DEAD, REPORT),
	C(HA_REPORT, EV_FAILOVER, RESOLVED, P_MIS, REPORT),
	C(HA_REPORT, EV_FAILOVER, RESOLVING, P_MIS, REPORT),
	C(HA_REPORT, EV_FAILOVER, BOUND, P_MIS, REPORT),
	C(HA_REPORT, EV_FAILOVER, LISTENING, P_MIS, RELISTEN),
	C(HA_REPORT, EV_FAILOVER, LISTENING, P_MAC, NONE),
	C(HA_REPORT, EV_FAILOVER, CLOSING, P_MIS | P_DEAD, NONE),
	C(HA_REPORT, EV_FAILOVER, IDLE, P_MIS, NONE),
	C(HA_REPORT, EV_PORT_ERR, CONNECTED, P_DEAD, REPORT),
	C(HA_REPORT, EV_PORT_ERR, CONNECTED, P_DEAD | P_APM, REPORT),
	C(HA_REPORT, EV_PORT_ERR, RESOLVED, P_DEAD, REPORT),
	C(HA_REPORT, EV_PORT_ERR, CONNECTED, 0, NONE),
	C(HA_REPORT, EV_PORT_ERR, LISTENING, P_DEAD, NONE),
	C(HA_REPORT, EV_PORT_ERR, CLOSING, P_DEAD, NONE),
	/* a port back: report says whether the path lives again */
	C(HA_REPORT, EV_PORT_UP, CONNECTED, 0, REPORT),
	C(HA_REPORT, EV_PORT_UP, CONNECTED, P_MIS, REPORT),
	C(HA_REPORT, EV_PORT_UP, RESOLVED, P_MIS, REPORT),
	C(HA_REPORT, EV_PORT_UP, CONNECTED, P_DEAD, NONE),
	C(HA_REPORT, EV_PORT_UP, CONNECTED, P_MIS | P_DEAD, NONE),
	C(HA_REPORT, EV_PORT_UP, LISTENING, P_MIS, NONE),
	C(HA_REPORT, EV_PORT_UP, CLOSING, 0, NONE),
	C(HA_REPORT, EV_PORT_UP, IDLE, 0, NONE),
	/* ... and no other mode acts on it: a teardown mode least of all */
	C(HA_NOTIFY, EV_PORT_UP, CONNECTED, P_MAC | P_MIS, NONE),
	C(HA_IGNORE, EV_PORT_UP, CONNECTED, P_MIS, NONE),
	C(HA_ALIGN, EV_PORT_UP, CONNECTED, P_MIS, NONE),
	C(HA_ALIGN, EV_PORT_UP, LISTENING, P_MIS, NONE),
	C(HA_FAIL_FAST, EV_PORT_UP, CONNECTED, P_DEAD, NONE),
	C(HA_FAIL_FAST, EV_PORT_UP, CONNECTING, P_DEAD, NONE),
	C(HA_MIGRATE, EV_PORT_UP, CONNECTED, P_MIS | P_APM, NONE),
	/*
	 * ... but migrate: the port a migration left is back, and the
	 * connection's path on it is armed again, on a connection only
	 */
	C(HA_MIGRATE, EV_PORT_UP, CONNECTED, P_REARM, REARM),
	C(HA_MIGRATE, EV_PORT_UP, CONNECTED, P_REARM | P_MIS, REARM),
	C(HA_MIGRATE, EV_PORT_UP, CONNECTED, 0, NONE),
	C(HA_MIGRATE, EV_PORT_UP, CONNECTING, P_REARM, NONE),
	C(HA_MIGRATE, EV_PORT_UP, LISTENING, P_REARM, NONE),
	C(HA_MIGRATE, EV_PORT_UP, CLOSING, P_REARM, NONE),
	C(HA_MIGRATE, EV_FAILOVER, CONNECTED, P_REARM, NONE),
	C(HA_MIGRATE, EV_PORT_ERR, CONNECTED, P_REARM, NONE),
	C(HA_ALIGN, EV_PORT_UP, CONNECTED, P_REARM, NONE),
	C(HA_FAIL_FAST, EV_PORT_UP, CONNECTED, P_REARM, NONE),
	C(HA_NOTIFY, EV_PORT_UP, CONNECTED, P_REARM, NONE),
	/* a neighbour update: the CM's UNREACHABLE, as for notify */
	C(HA_REPORT, EV_NEIGH, CONNECTED, 0, NOTIFY),
	C(HA_REPORT, EV_NEIGH, CONNECTED, P_DEAD, NOTIFY),
	/* values outside the enum decide nothing */
	C(HA_INVALID, EV_FAILOVER, CONNECTED, P_MAC | P_MIS | P_DEAD, NONE),
	C(255, EV_PORT_ERR, CONNECTED, P_DEAD, NONE),
};

static const char *name_of(const char * const *names, size_t n,
			   unsigned int v)
{
	return v < n && names[v] ? names[v] : "?";
}

static const char * const path_names[] = {
	"mac-changed", "misaligned", "dead", "can-migrate", "held", "rearm",
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
		 cma_ha_mode_name(c->mode) ?: "?",
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

/*
 * The status of ADDR_CHANGE: 0 for notify (the stock event), else the
 * path's state as a positive enum rdma_cm_ha_path_status value, never an
 * errno; migrate's fallback says what align's would
 */
static void cma_ha_status_test(struct kunit *test)
{
	unsigned int path, mode;

	KUNIT_EXPECT_EQ(test, cma_ha_path_status(0), ST_ALIGNED);
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_MAC), ST_ALIGNED);
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_APM), ST_ALIGNED);
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_MIS), ST_MIS);
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_MIS | P_MAC), ST_MIS);
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_DEAD), ST_DEAD);
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_MIS | P_DEAD), ST_DEAD);
	/* held for fail-fast, dead to every other mode */
	KUNIT_EXPECT_EQ(test, cma_ha_path_status(P_MIS | P_DEAD | P_HELD), ST_DEAD);

	for (path = 0; path < 16; path++) {
		KUNIT_EXPECT_EQ(test, cma_ha_addr_change_status(HA_NOTIFY, path),
				0);
		for (mode = HA_IGNORE; mode < HA_INVALID; mode++)
			KUNIT_EXPECT_EQ(test,
					cma_ha_addr_change_status(mode, path),
					(int)cma_ha_path_status(path));
	}
	KUNIT_EXPECT_EQ(test, cma_ha_addr_change_status(HA_MIGRATE, P_MIS),
			ST_MIS);
	KUNIT_EXPECT_EQ(test,
			cma_ha_addr_change_status(HA_MIGRATE, P_MIS | P_DEAD),
			ST_DEAD);
	KUNIT_EXPECT_EQ(test, cma_ha_teardown_status(HA_ALIGN), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, cma_ha_teardown_status(HA_MIGRATE), -ENETUNREACH);
	KUNIT_EXPECT_EQ(test, cma_ha_teardown_status(HA_FAIL_FAST), -ENETDOWN);
}

/*
 * Report mode: what an ID hears, given what it heard last (0: nothing yet,
 * the ID is on the path the IP stack chose)
 */
struct cma_ha_report_case {
	enum cma_ha_event event;
	unsigned int path;
	unsigned int reported;
	unsigned int status;
};

static const struct cma_ha_report_case cma_ha_report_cases[] = {
	/* a failover judges the whole path */
	{ EV_FAILOVER, 0, 0, 0 },
	{ EV_FAILOVER, P_MAC, 0, 0 },
	{ EV_FAILOVER, P_MIS, 0, ST_MIS },
	{ EV_FAILOVER, P_MIS | P_MAC, 0, ST_MIS },
	{ EV_FAILOVER, P_DEAD, 0, ST_DEAD },
	{ EV_FAILOVER, P_MIS | P_DEAD, 0, ST_DEAD },
	{ EV_FAILOVER, P_MIS, ST_MIS, 0 },
	{ EV_FAILOVER, P_MIS | P_DEAD, ST_MIS, ST_DEAD },
	{ EV_FAILOVER, P_MIS, ST_DEAD, ST_MIS },
	{ EV_FAILOVER, 0, ST_MIS, ST_ALIGNED },
	{ EV_FAILOVER, 0, ST_DEAD, ST_ALIGNED },
	{ EV_FAILOVER, 0, ST_ALIGNED, 0 },
	{ EV_FAILOVER, P_DEAD, ST_DEAD, 0 },
	/* a port event only says the path is dead */
	{ EV_PORT_ERR, P_DEAD, 0, ST_DEAD },
	{ EV_PORT_ERR, P_DEAD, ST_MIS, ST_DEAD },
	{ EV_PORT_ERR, P_DEAD, ST_DEAD, 0 },
	{ EV_PORT_ERR, 0, 0, 0 },
	{ EV_PORT_ERR, 0, ST_MIS, 0 },
	{ EV_PORT_ERR, 0, ST_DEAD, 0 },
	{ EV_PORT_ERR, P_APM, ST_DEAD, 0 },
	/* a port back says the path lives again, after it was reported dead */
	{ EV_PORT_UP, 0, ST_DEAD, ST_ALIGNED },
	{ EV_PORT_UP, P_MIS, ST_DEAD, ST_MIS },
	{ EV_PORT_UP, P_MIS | P_APM, ST_DEAD, ST_MIS },
	{ EV_PORT_UP, P_DEAD, ST_DEAD, 0 },
	{ EV_PORT_UP, P_MIS | P_DEAD, ST_DEAD, 0 },
	{ EV_PORT_UP, 0, 0, 0 },
	{ EV_PORT_UP, P_MIS, 0, 0 },
	{ EV_PORT_UP, 0, ST_MIS, 0 },
	{ EV_PORT_UP, P_MIS, ST_ALIGNED, 0 },
	/* a neighbour update is the CM's UNREACHABLE, not a report */
	{ EV_NEIGH, P_DEAD, 0, 0 },
	{ EV_NEIGH, P_MIS, 0, 0 },
};

static void cma_ha_report_desc(const struct cma_ha_report_case *c,
			       char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "%s path %#x after status %u -> %u",
		 name_of(event_names, ARRAY_SIZE(event_names), c->event),
		 c->path, c->reported, c->status);
}

KUNIT_ARRAY_PARAM(cma_ha_report, cma_ha_report_cases, cma_ha_report_desc);

static void cma_ha_report_test(struct kunit *test)
{
	const struct cma_ha_report_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test,
			cma_ha_report_status(c->event, c->path, c->reported),
			c->status);
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
	{ HA_REPORT, IB_QPT_RC, 0 },
	{ HA_ALIGN, IB_QPT_UC, 0 },
	{ HA_INVALID, IB_QPT_RC, -EINVAL },
	{ 128, IB_QPT_RC, -EINVAL },
	{ 255, IB_QPT_RC, -EINVAL },
	{ 0x100, IB_QPT_RC, -EINVAL },
	{ HA_NOTIFY, IB_QPT_UD, 0 },
	{ HA_IGNORE, IB_QPT_UD, 0 },
	{ HA_REPORT, IB_QPT_UD, 0 },
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
				mode <= RDMA_CM_HA_MODE_REPORT);
}

/* The names of the modes: configfs default_ha_mode reads and writes them */
struct cma_ha_name_case {
	const char *buf;
	int mode;
};

static const struct cma_ha_name_case cma_ha_name_cases[] = {
	{ "notify", HA_NOTIFY },
	{ "ignore", HA_IGNORE },
	{ "align", HA_ALIGN },
	{ "fail-fast", HA_FAIL_FAST },
	{ "migrate", HA_MIGRATE },
	{ "report", HA_REPORT },
	{ "fail-fast\n", HA_FAIL_FAST },	/* echo adds a newline */
	{ "align\n", HA_ALIGN },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "fail_fast", -EINVAL },
	{ "FAIL-FAST", -EINVAL },
	{ "Notify", -EINVAL },
	{ "align\n\n", -EINVAL },
	{ " align", -EINVAL },
	{ "align ", -EINVAL },
	{ "alignx", -EINVAL },
	{ "alig", -EINVAL },
	{ "2", -EINVAL },		/* names only, as default_roce_mode */
	{ "0", -EINVAL },
};

static void cma_ha_name_desc(const struct cma_ha_name_case *c, char *desc)
{
	int i, n = 0;

	n += scnprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"");
	for (i = 0; c->buf[i]; i++)
		n += scnprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n,
			       c->buf[i] == '\n' ? "\\n" : "%c", c->buf[i]);
	scnprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n, "\" -> %d", c->mode);
}

KUNIT_ARRAY_PARAM(cma_ha_name, cma_ha_name_cases, cma_ha_name_desc);

static void cma_ha_name_test(struct kunit *test)
{
	const struct cma_ha_name_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cma_ha_mode_parse(c->buf), c->mode);
}

/* Every valid mode has a name that parses back to it; others have none */
static void cma_ha_name_roundtrip_test(struct kunit *test)
{
	unsigned int mode;

	for (mode = 0; mode < 0x200; mode++) {
		const char *name = cma_ha_mode_name(mode);

		if (!cma_ha_mode_valid(mode)) {
			KUNIT_EXPECT_NULL(test, name);
			continue;
		}
		KUNIT_ASSERT_NOT_NULL(test, name);
		KUNIT_EXPECT_EQ(test, cma_ha_mode_parse(name), (int)mode);
	}
}

/*
 * The mode an ID that chose none takes from its port's default: the
 * default itself where rdma_set_ha_mode() would accept it for the ID's QP
 * type, notify otherwise.
 */
struct cma_ha_default_case {
	unsigned int port_default;
	enum ib_qp_type qp_type;
	enum rdma_cm_ha_mode mode;
};

static const struct cma_ha_default_case cma_ha_default_cases[] = {
	{ HA_NOTIFY, IB_QPT_RC, HA_NOTIFY },
	{ HA_IGNORE, IB_QPT_RC, HA_IGNORE },
	{ HA_ALIGN, IB_QPT_RC, HA_ALIGN },
	{ HA_FAIL_FAST, IB_QPT_RC, HA_FAIL_FAST },
	{ HA_MIGRATE, IB_QPT_RC, HA_MIGRATE },
	{ HA_FAIL_FAST, IB_QPT_UC, HA_FAIL_FAST },
	{ HA_ALIGN, IB_QPT_XRC_INI, HA_ALIGN },
	{ HA_ALIGN, IB_QPT_XRC_TGT, HA_ALIGN },
	{ HA_NOTIFY, IB_QPT_UD, HA_NOTIFY },
	{ HA_IGNORE, IB_QPT_UD, HA_IGNORE },
	{ HA_ALIGN, IB_QPT_UD, HA_NOTIFY },
	{ HA_FAIL_FAST, IB_QPT_UD, HA_NOTIFY },
	{ HA_MIGRATE, IB_QPT_UD, HA_NOTIFY },
	{ HA_REPORT, IB_QPT_RC, HA_REPORT },
	{ HA_REPORT, IB_QPT_UD, HA_REPORT },
	{ HA_INVALID, IB_QPT_RC, HA_NOTIFY },
	{ 255, IB_QPT_RC, HA_NOTIFY },
};

static void cma_ha_default_desc(const struct cma_ha_default_case *c,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "default %u on %s id -> %d",
		 c->port_default, c->qp_type == IB_QPT_UD ? "UD" :
				  c->qp_type == IB_QPT_UC ? "UC" :
				  c->qp_type == IB_QPT_RC ? "RC" : "XRC",
		 c->mode);
}

KUNIT_ARRAY_PARAM(cma_ha_default, cma_ha_default_cases, cma_ha_default_desc);

static void cma_ha_default_test(struct kunit *test)
{
	const struct cma_ha_default_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cma_ha_default_mode(c->port_default, c->qp_type),
			c->mode);
	/* The default never gives a mode that rdma_set_ha_mode() refuses */
	KUNIT_EXPECT_TRUE(test, cma_ha_mode_fits(c->mode, c->qp_type));
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

/*
 * The helpers that observe the network stack and the RDMA device to build
 * the path state, on fakes: a one-port RDMA device that is never
 * registered (its port data and cached port state set by the test), and
 * bond and slave net_devices that are allocated but never registered.
 */
struct cma_ha_fake {
	struct ib_device device;
	struct ib_port_data port_data[3];
	struct net_device *port_ndev;
	struct rdma_id_private id_priv;
	struct ib_cm_id cm_id;
};

static struct net_device *cma_ha_fake_get_netdev(struct ib_device *device,
						 u32 port)
{
	struct cma_ha_fake *fake =
		container_of(device, struct cma_ha_fake, device);

	dev_hold(fake->port_ndev);
	return fake->port_ndev;
}

static void cma_ha_free_netdev(void *ndev)
{
	free_netdev(ndev);
}

static const u8 cma_ha_gid0[INFINIBAND_ALEN] = {
	0x00, 0x00, 0x00, 0x48, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01,
};

static const u8 cma_ha_gid1[INFINIBAND_ALEN] = {
	0x00, 0x00, 0x00, 0x49, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x02,
};

static const u8 cma_ha_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };

/* An unregistered net_device, running and with carrier unless told */
static struct net_device *cma_ha_fake_ndev(struct kunit *test, int priv,
					   bool ib, bool carrier)
{
	struct net_device *ndev;

	ndev = alloc_netdev(priv, "cmahatest%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							cma_ha_free_netdev,
							ndev), 0);
	if (ib) {
		ndev->type = ARPHRD_INFINIBAND;
		ndev->addr_len = INFINIBAND_ALEN;
		dev_addr_set(ndev, cma_ha_gid0);
	} else {
		dev_addr_set(ndev, cma_ha_mac);
	}
	set_bit(__LINK_STATE_START, &ndev->state);
	if (carrier)
		netif_carrier_on(ndev);
	else
		netif_carrier_off(ndev);
	return ndev;
}

/*
 * A slave in the middle of its release from a bond: unlinked from it (no
 * IFF_SLAVE), still IFF_BONDING, running with carrier (bonding closes it
 * after the failover)
 */
static struct net_device *cma_ha_fake_released(struct kunit *test)
{
	struct net_device *ndev = cma_ha_fake_ndev(test, 0, false, true);

	ndev->priv_flags |= IFF_BONDING;
	return ndev;
}

/* A bond in active-backup mode whose active slave is @active */
static struct net_device *cma_ha_fake_bond(struct kunit *test, bool ib,
					   bool carrier,
					   struct net_device *active)
{
	struct net_device *ndev;
	struct bonding *bond;
	struct slave *slave;

	ndev = cma_ha_fake_ndev(test, sizeof(*bond), ib, carrier);
	ndev->flags |= IFF_MASTER;
	ndev->priv_flags |= IFF_BONDING;
	bond = netdev_priv(ndev);
	bond->dev = ndev;
	bond->params.mode = BOND_MODE_ACTIVEBACKUP;
	if (active) {
		slave = kunit_kzalloc(test, sizeof(*slave), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, slave);
		slave->dev = active;
		RCU_INIT_POINTER(bond->curr_active_slave, slave);
	}
	return ndev;
}

/*
 * A slave of @bond that is not its active slave, as bonding records it:
 * IFF_SLAVE, IFF_BONDING, and its struct slave as rx_handler_data
 */
static struct net_device *cma_ha_fake_slave(struct kunit *test,
					    struct net_device *bond)
{
	struct net_device *ndev = cma_ha_fake_ndev(test, 0, false, true);
	struct slave *slave;

	slave = kunit_kzalloc(test, sizeof(*slave), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slave);
	slave->dev = ndev;
	slave->bond = netdev_priv(bond);
	ndev->flags |= IFF_SLAVE;
	ndev->priv_flags |= IFF_BONDING;
	RCU_INIT_POINTER(ndev->rx_handler_data, slave);
	return ndev;
}

/*
 * A fake device of one IB or RoCE port in @port_state, and a connected ID
 * on that port whose source address is the hardware address of @src.
 */
static struct cma_ha_fake *cma_ha_fake_alloc(struct kunit *test, bool ib,
					     enum ib_port_state port_state,
					     struct net_device *src)
{
	struct rdma_dev_addr *dev_addr;
	struct cma_ha_fake *fake;

	fake = kunit_kzalloc(test, sizeof(*fake), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fake);
	fake->device.phys_port_cnt = 1;
	fake->device.port_data = fake->port_data;
	fake->device.ops.get_netdev = cma_ha_fake_get_netdev;
	rwlock_init(&fake->device.cache_lock);
	fake->port_data[1].immutable.core_cap_flags =
		ib ? RDMA_CORE_PORT_IBA_IB : RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	fake->port_data[1].cache.port_state = port_state;

	mutex_init(&fake->id_priv.handler_mutex);
	fake->id_priv.state = RDMA_CM_CONNECT;
	fake->id_priv.id.device = &fake->device;
	fake->id_priv.id.port_num = 1;
	fake->cm_id.state = IB_CM_ESTABLISHED;
	fake->id_priv.cm_id.ib = &fake->cm_id;
	fake->id_priv.ha_established = 1;
	dev_addr = &fake->id_priv.id.route.addr.dev_addr;
	dev_addr->dev_type = ib ? ARPHRD_INFINIBAND : ARPHRD_ETHER;
	memcpy(dev_addr->src_dev_addr, src->dev_addr, src->addr_len);
	return fake;
}

static void cma_ha_port_down_test(struct kunit *test)
{
	struct net_device *src = cma_ha_fake_ndev(test, 0, true, true);
	struct cma_ha_fake *fake;

	fake = cma_ha_fake_alloc(test, true, IB_PORT_ACTIVE, src);
	KUNIT_EXPECT_FALSE(test, cma_ha_port_down(&fake->device, 1));
	fake->port_data[1].cache.port_state = IB_PORT_DOWN;
	KUNIT_EXPECT_TRUE(test, cma_ha_port_down(&fake->device, 1));
	fake->port_data[1].cache.port_state = IB_PORT_INIT;
	KUNIT_EXPECT_TRUE(test, cma_ha_port_down(&fake->device, 1));
	fake->port_data[1].cache.port_state = IB_PORT_ACTIVE;
	KUNIT_EXPECT_TRUE(test, cma_ha_port_down(&fake->device, 2));
}

/*
 * The port-down decision is taken on the port's state when the HA work
 * runs: a port that is ACTIVE again by then (a flap) is not dead.
 */
static void cma_ha_port_err_path_test(struct kunit *test)
{
	struct net_device *src = cma_ha_fake_ndev(test, 0, true, true);
	struct cma_ha_fake *fake;

	fake = cma_ha_fake_alloc(test, true, IB_PORT_DOWN, src);
	KUNIT_EXPECT_EQ(test, cma_ha_port_err_path(&fake->id_priv), P_DEAD);
	fake->port_data[1].cache.port_state = IB_PORT_ACTIVE;
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_port_err_path(&fake->id_priv), 0,
			    "a port that is ACTIVE again is not dead");
}

/*
 * A connection with an alternate path on port 2 of a two-port device: it
 * can migrate while that port is ACTIVE and the path armed; once it
 * migrated, it is judged on port 2, can migrate back only when the path on
 * port 1 is armed again, and the CM of its active side arms that path
 * again once port 1 is ACTIVE.
 */
static void cma_ha_migrated_path_test(struct kunit *test)
{
	struct net_device *src = cma_ha_fake_ndev(test, 0, true, true);
	struct rdma_id_private *id_priv;
	struct cma_ha_fake *fake;

	fake = cma_ha_fake_alloc(test, true, IB_PORT_ACTIVE, src);
	id_priv = &fake->id_priv;
	fake->device.phys_port_cnt = 2;
	fake->port_data[2] = fake->port_data[1];
	id_priv->id.route.num_pri_alt_paths = 2;
	id_priv->ha_alt_port = 2;
	id_priv->ha_alt_local = true;

	KUNIT_EXPECT_EQ(test, cma_ha_cur_port(id_priv), 1);
	KUNIT_EXPECT_EQ(test, cma_ha_other_port(id_priv), 2);
	KUNIT_EXPECT_EQ(test, cma_ha_port_err_path(id_priv), P_APM);
	KUNIT_EXPECT_EQ(test, cma_ha_rearm_path(id_priv), 0);
	fake->port_data[1].cache.port_state = IB_PORT_DOWN;
	KUNIT_EXPECT_EQ(test, cma_ha_port_err_path(id_priv), P_DEAD | P_APM);
	fake->port_data[2].cache.port_state = IB_PORT_DOWN;
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_port_err_path(id_priv), P_DEAD,
			    "no migration to a port that is down");
	fake->port_data[2].cache.port_state = IB_PORT_ACTIVE;

	/* cma_ha_migrate() moved it to port 2 */
	id_priv->ha_on_alt = true;
	id_priv->ha_unarmed = true;
	KUNIT_EXPECT_EQ(test, cma_ha_cur_port(id_priv), 2);
	KUNIT_EXPECT_EQ(test, cma_ha_other_port(id_priv), 1);
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_port_err_path(id_priv), 0,
			    "judged on the port it is on, not the ID's");
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_rearm_path(id_priv), 0,
			    "nothing to arm while port 1 is down");
	fake->port_data[2].cache.port_state = IB_PORT_DOWN;
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_port_err_path(id_priv), P_DEAD,
			    "the path it left is not armed");
	fake->port_data[2].cache.port_state = IB_PORT_ACTIVE;

	/* port 1 is back: the active side arms the path on it again */
	fake->port_data[1].cache.port_state = IB_PORT_ACTIVE;
	KUNIT_EXPECT_EQ(test, cma_ha_rearm_path(id_priv), P_REARM);
	id_priv->ha_alt_local = false;
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_rearm_path(id_priv), 0,
			    "the passive side waits for the LAP");
	id_priv->ha_alt_local = true;
	KUNIT_EXPECT_EQ(test, cma_ha_port_err_path(id_priv), 0);

	/* the APR came: the connection can migrate back to port 1 */
	id_priv->ha_unarmed = false;
	KUNIT_EXPECT_EQ(test, cma_ha_rearm_path(id_priv), 0);
	fake->port_data[2].cache.port_state = IB_PORT_DOWN;
	KUNIT_EXPECT_EQ(test, cma_ha_port_err_path(id_priv), P_DEAD | P_APM);
}

/* cma_ha_failover_path() with faked bond, slave and port states */
struct cma_ha_path_case {
	const char *name;
	bool ib;
	enum ib_port_state port_state;
	bool bond_carrier;	/* bonding sets it after FAILOVER */
	bool active_carrier;	/* the new active slave */
	bool other_gid;		/* the bond carries another port's GID */
	enum {
		PORT_NDEV_BOND,		/* RoCE: the port is on the bond */
		PORT_NDEV_SLAVE,	/* RoCE: the port is on the active slave */
		PORT_NDEV_SLAVE_DOWN,	/* RoCE: on a slave without carrier */
		PORT_NDEV_RELEASED,	/* RoCE: on the slave being released */
		PORT_NDEV_OLD_SLAVE,	/* RoCE: on a slave, not the active */
		/*
		 * device LAG (RDMA_LAG_FLAGS_PORT_FOLLOWS_BOND): the driver
		 * has not moved the port from the old slave yet
		 */
		PORT_NDEV_LAG_OLD,
		PORT_NDEV_LAG_RELEASED,	/* device LAG, the released slave */
		PORT_NDEV_LAG_OTHER,	/* device LAG under another bond */
	} port_ndev;
	unsigned int path;
};

static const struct cma_ha_path_case cma_ha_path_cases[] = {
	{ "ib aligned, all up", true, IB_PORT_ACTIVE, true, true, false,
	  0, 0 },
	/* ib0 down, ib1 down (no active slave), ib0 up: FAILOVER to ib0 */
	{ "ib aligned, bond recovering, carrier not set yet", true,
	  IB_PORT_ACTIVE, false, true, false, 0, 0 },
	{ "ib aligned, port down", true, IB_PORT_DOWN, true, true, false,
	  0, P_DEAD },
	{ "ib other port's gid, old port active", true, IB_PORT_ACTIVE,
	  true, true, true, 0, P_MAC | P_MIS },
	{ "ib other port's gid, old port down", true, IB_PORT_DOWN, true,
	  true, true, 0, P_MAC | P_MIS | P_DEAD },
	{ "roce on the bond, active slave up", false, IB_PORT_ACTIVE, true,
	  true, false, PORT_NDEV_BOND, 0 },
	/* the port on the bond follows the bond's carrier, later still */
	{ "roce on the bond, bond recovering, carrier not set yet", false,
	  IB_PORT_DOWN, false, true, false, PORT_NDEV_BOND, 0 },
	{ "roce on the bond, active slave without carrier", false,
	  IB_PORT_DOWN, false, false, false, PORT_NDEV_BOND, P_DEAD },
	{ "roce on a slave, slave up", false, IB_PORT_ACTIVE, true, true,
	  false, PORT_NDEV_SLAVE, 0 },
	{ "roce on a slave, bond recovering, carrier not set yet", false,
	  IB_PORT_ACTIVE, false, true, false, PORT_NDEV_SLAVE, 0 },
	{ "roce on a slave, slave without carrier", false, IB_PORT_ACTIVE,
	  true, true, false, PORT_NDEV_SLAVE_DOWN, P_DEAD },
	{ "roce on a slave, port down", false, IB_PORT_DOWN, true, true,
	  false, PORT_NDEV_SLAVE, P_DEAD },
	/* a port per slave: the bond's GIDs left the old slave's port */
	{ "roce on the old slave, slave up", false, IB_PORT_ACTIVE, true,
	  true, false, PORT_NDEV_OLD_SLAVE, P_MIS | P_DEAD },
	/* ip link set eth0 nomaster on the active eth0: FAILOVER to eth1 */
	/* its GIDs leave its port with it: the path is dead too */
	{ "roce on the released active slave", false, IB_PORT_ACTIVE, true,
	  true, false, PORT_NDEV_RELEASED, P_MIS | P_DEAD },
	/*
	 * mlx5's RoCE LAG: the port is still on the old slave when the
	 * failover is raised; the driver moves it later and it follows
	 * the bond, whose state its port has (an administrative switch,
	 * a cut of the active link with the backup up, a recovery)
	 */
	{ "roce lag, port not moved yet, new active slave up", false,
	  IB_PORT_ACTIVE, true, true, false, PORT_NDEV_LAG_OLD, 0 },
	{ "roce lag, port not moved yet, bond recovering", false,
	  IB_PORT_DOWN, false, true, false, PORT_NDEV_LAG_OLD, 0 },
	{ "roce lag, new active slave without carrier", false,
	  IB_PORT_DOWN, false, false, false, PORT_NDEV_LAG_OLD, P_DEAD },
	/* the bond leaves the device with the released slave */
	{ "roce lag, port on the released active slave", false,
	  IB_PORT_ACTIVE, true, true, false, PORT_NDEV_LAG_RELEASED,
	  P_MIS | P_DEAD },
	/* a slave of another bond does not follow this one */
	{ "roce lag, port under another bond, port down", false,
	  IB_PORT_DOWN, true, true, false, PORT_NDEV_LAG_OTHER, P_DEAD },
};

static void cma_ha_path_desc(const struct cma_ha_path_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cma_ha_path, cma_ha_path_cases, cma_ha_path_desc);

static void cma_ha_failover_path_test(struct kunit *test)
{
	const struct cma_ha_path_case *c = test->param_value;
	struct net_device *active, *bond, *other;
	struct cma_ha_fake *fake;
	unsigned int path;

	active = cma_ha_fake_ndev(test, 0, c->ib, c->active_carrier);
	bond = cma_ha_fake_bond(test, c->ib, c->bond_carrier, active);
	other = cma_ha_fake_bond(test, false, true, NULL);
	fake = cma_ha_fake_alloc(test, c->ib, c->port_state, bond);
	if (c->other_gid)
		dev_addr_set(bond, cma_ha_gid1);
	if (!c->ib && c->port_ndev == PORT_NDEV_BOND)
		fake->port_ndev = bond;
	else if (!c->ib && c->port_ndev == PORT_NDEV_SLAVE)
		fake->port_ndev = active;
	else if (!c->ib && c->port_ndev == PORT_NDEV_RELEASED)
		fake->port_ndev = cma_ha_fake_released(test);
	else if (!c->ib && (c->port_ndev == PORT_NDEV_LAG_OLD ||
			    c->port_ndev == PORT_NDEV_OLD_SLAVE))
		fake->port_ndev = cma_ha_fake_slave(test, bond);
	else if (!c->ib && c->port_ndev == PORT_NDEV_LAG_RELEASED)
		fake->port_ndev = cma_ha_fake_released(test);
	else if (!c->ib && c->port_ndev == PORT_NDEV_LAG_OTHER)
		fake->port_ndev = cma_ha_fake_slave(test, other);
	else if (!c->ib)
		fake->port_ndev = cma_ha_fake_ndev(test, 0, false, false);
	if (c->port_ndev >= PORT_NDEV_LAG_OLD)
		fake->device.lag_flags = RDMA_LAG_FLAGS_PORT_FOLLOWS_BOND;

	rtnl_lock();
	KUNIT_EXPECT_PTR_EQ(test, cma_ha_active_slave(bond), active);
	path = cma_ha_failover_path(&fake->id_priv, bond, active);
	rtnl_unlock();
	KUNIT_EXPECT_EQ_MSG(test, path, c->path, "%s: path %#x, want %#x",
			    c->name, path, c->path);
}

/*
 * An IPoIB slave that bonding's ARP monitor took out of service carries a
 * dead path although its carrier and its port stay up, as the monitor
 * leaves them when the peer behind the link stops answering; the MII
 * monitor's record, a slave that is up, set down or without carrier,
 * another port's slave and a released one do not.
 */
static void cma_ha_ib_slave_out_test(struct kunit *test)
{
	struct net_device *bond = cma_ha_fake_bond(test, true, true, NULL);
	struct net_device *ib0 = cma_ha_fake_slave(test, bond);
	union ib_gid gid0, gid1;
	struct slave *slave;

	ib0->type = ARPHRD_INFINIBAND;
	ib0->addr_len = INFINIBAND_ALEN;
	dev_addr_set(ib0, cma_ha_gid0);
	memcpy(&gid0, cma_ha_gid0 + 4, sizeof(gid0));
	memcpy(&gid1, cma_ha_gid1 + 4, sizeof(gid1));

	rtnl_lock();
	slave = bond_slave_get_rtnl(ib0);
	slave->link = BOND_LINK_DOWN;
	KUNIT_EXPECT_FALSE_MSG(test, cma_ha_ib_slave_out(ib0, &gid0),
			       "MII monitor: its record follows the interface");
	slave->bond->params.arp_interval = 100;
	slave->link = BOND_LINK_UP;
	KUNIT_EXPECT_FALSE(test, cma_ha_ib_slave_out(ib0, &gid0));
	slave->link = BOND_LINK_DOWN;
	KUNIT_EXPECT_TRUE_MSG(test, cma_ha_ib_slave_out(ib0, &gid0),
			      "ARP monitor: link down in its record, carrier up");
	slave->link = BOND_LINK_FAIL;
	KUNIT_EXPECT_TRUE(test, cma_ha_ib_slave_out(ib0, &gid0));
	KUNIT_EXPECT_FALSE_MSG(test, cma_ha_ib_slave_out(ib0, &gid1),
			       "another port's slave");
	netif_carrier_off(ib0);
	KUNIT_EXPECT_FALSE_MSG(test, cma_ha_ib_slave_out(ib0, &gid0),
			       "no carrier: the port's state judges");
	netif_carrier_on(ib0);
	clear_bit(__LINK_STATE_START, &ib0->state);
	KUNIT_EXPECT_FALSE_MSG(test, cma_ha_ib_slave_out(ib0, &gid0),
			       "set down: the port's state judges");
	set_bit(__LINK_STATE_START, &ib0->state);
	KUNIT_EXPECT_TRUE(test, cma_ha_ib_slave_out(ib0, &gid0));
	ib0->flags &= ~IFF_SLAVE;
	KUNIT_EXPECT_FALSE_MSG(test, cma_ha_ib_slave_out(ib0, &gid0),
			       "no longer a slave");
	rtnl_unlock();
}

static void cma_ha_active_slave_test(struct kunit *test)
{
	struct net_device *active = cma_ha_fake_ndev(test, 0, false, true);
	struct net_device *bond = cma_ha_fake_bond(test, false, true, active);
	struct net_device *plain = cma_ha_fake_ndev(test, 0, false, true);

	rtnl_lock();
	KUNIT_EXPECT_PTR_EQ(test, cma_ha_active_slave(bond), active);
	KUNIT_EXPECT_NULL(test, cma_ha_active_slave(plain));
	((struct bonding *)netdev_priv(bond))->params.mode = BOND_MODE_XOR;
	KUNIT_EXPECT_NULL(test, cma_ha_active_slave(bond));
	rtnl_unlock();
}

static void cma_ha_dev_unrelated_test(struct kunit *test)
{
	struct net_device *bond = cma_ha_fake_bond(test, false, true, NULL);
	struct net_device *other = cma_ha_fake_ndev(test, 0, false, true);
	struct cma_ha_fake *fake;

	rtnl_lock();
	fake = cma_ha_fake_alloc(test, false, IB_PORT_ACTIVE, bond);
	fake->port_ndev = bond;
	KUNIT_EXPECT_FALSE(test, cma_ha_dev_unrelated(&fake->device, bond));
	fake->port_ndev = other;
	KUNIT_EXPECT_TRUE(test, cma_ha_dev_unrelated(&fake->device, bond));
	/* released from @bond: the release raises the failover after that */
	fake->port_ndev = cma_ha_fake_released(test);
	KUNIT_EXPECT_FALSE_MSG(test,
			       cma_ha_dev_unrelated(&fake->device, bond),
			       "the port of the released active slave is skipped");
	/* a slave of another bond, and another bond, are skipped */
	fake->port_ndev = other;
	other->priv_flags |= IFF_BONDING;
	other->flags |= IFF_SLAVE;
	KUNIT_EXPECT_TRUE(test, cma_ha_dev_unrelated(&fake->device, bond));
	other->flags &= ~IFF_SLAVE;
	other->flags |= IFF_MASTER;
	KUNIT_EXPECT_TRUE(test, cma_ha_dev_unrelated(&fake->device, bond));
	fake->port_ndev = NULL;
	KUNIT_EXPECT_FALSE(test, cma_ha_dev_unrelated(&fake->device, bond));
	/* IPoIB bonds enslave no port netdevice: IB ports are never skipped */
	fake->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	KUNIT_EXPECT_FALSE(test, cma_ha_dev_unrelated(&fake->device, bond));
	rtnl_unlock();
}

/*
 * Whether a connecting ID is established is the CM's own record, on every
 * transport, not the state of the IB CM's ID (which ib_cm's lock guards)
 */
static void cma_ha_current_state_test(struct kunit *test)
{
	struct net_device *src = cma_ha_fake_ndev(test, 0, true, true);
	struct rdma_id_private *id_priv;
	struct cma_ha_fake *fake;

	fake = cma_ha_fake_alloc(test, true, IB_PORT_ACTIVE, src);
	id_priv = &fake->id_priv;
	mutex_lock(&id_priv->handler_mutex);
	KUNIT_EXPECT_EQ(test, cma_ha_current_state(id_priv),
			CMA_HA_ID_CONNECTED);
	/* ib_cm took the RTU; the CM has not delivered ESTABLISHED yet */
	id_priv->ha_established = 0;
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_current_state(id_priv),
			    CMA_HA_ID_CONNECTING,
			    "ib: established before the CM said so");
	fake->cm_id.state = IB_CM_REQ_SENT;
	KUNIT_EXPECT_EQ(test, cma_ha_current_state(id_priv),
			CMA_HA_ID_CONNECTING);
	id_priv->cm_id.ib = NULL;
	KUNIT_EXPECT_EQ(test, cma_ha_current_state(id_priv),
			CMA_HA_ID_CONNECTING);
	/* iWARP: a connect in progress is not a connection */
	fake->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IWARP;
	KUNIT_EXPECT_EQ_MSG(test, cma_ha_current_state(id_priv),
			    CMA_HA_ID_CONNECTING,
			    "iwarp: a connecting ID counted as established");
	id_priv->ha_established = 1;
	KUNIT_EXPECT_EQ(test, cma_ha_current_state(id_priv),
			CMA_HA_ID_CONNECTED);
	id_priv->state = RDMA_CM_LISTEN;
	KUNIT_EXPECT_EQ(test, cma_ha_current_state(id_priv),
			CMA_HA_ID_LISTENING);
	id_priv->state = RDMA_CM_ROUTE_RESOLVED;
	KUNIT_EXPECT_EQ(test, cma_ha_current_state(id_priv),
			CMA_HA_ID_RESOLVED);
	mutex_unlock(&id_priv->handler_mutex);
}

static struct kunit_case cma_ha_path_test_cases[] = {
	KUNIT_CASE(cma_ha_port_down_test),
	KUNIT_CASE(cma_ha_port_err_path_test),
	KUNIT_CASE(cma_ha_migrated_path_test),
	KUNIT_CASE_PARAM(cma_ha_failover_path_test, cma_ha_path_gen_params),
	KUNIT_CASE(cma_ha_ib_slave_out_test),
	KUNIT_CASE(cma_ha_active_slave_test),
	KUNIT_CASE(cma_ha_dev_unrelated_test),
	KUNIT_CASE(cma_ha_current_state_test),
	{}
};

static struct kunit_suite cma_ha_path_test_suite = {
	.name = "cma_ha_path",
	.test_cases = cma_ha_path_test_cases,
};

static struct kunit_case cma_ha_test_cases[] = {
	KUNIT_CASE_PARAM(cma_ha_decide_test, cma_ha_decide_gen_params),
	KUNIT_CASE_PARAM(cma_ha_state_test, cma_ha_state_gen_params),
	KUNIT_CASE(cma_ha_status_test),
	KUNIT_CASE_PARAM(cma_ha_report_test, cma_ha_report_gen_params),
	KUNIT_CASE(cma_ha_mode_valid_test),
	KUNIT_CASE_PARAM(cma_ha_option_test, cma_ha_option_gen_params),
	KUNIT_CASE(cma_ha_inherit_test),
	KUNIT_CASE_PARAM(cma_ha_name_test, cma_ha_name_gen_params),
	KUNIT_CASE(cma_ha_name_roundtrip_test),
	KUNIT_CASE_PARAM(cma_ha_default_test, cma_ha_default_gen_params),
	{}
};

static struct kunit_suite cma_ha_test_suite = {
	.name = "cma_ha",
	.test_cases = cma_ha_test_cases,
};

kunit_test_suites(&cma_ha_test_suite, &cma_ha_path_test_suite);

MODULE_DESCRIPTION("KUnit tests for the RDMA CM high-availability modes");
MODULE_LICENSE("Dual BSD/GPL");
