// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the decisions of IPoIB connected mode
 * (ipoib_cm_policy.c): the keepalive state machine of a connection, the
 * transport retry count derived from it, the private data extension, the
 * choice between RC and UC and the answer to the RDMA WRITE that an RC
 * connection to a peer without the keepalive capability sends first.
 *
 * Run with:
 *   ./tools/testing/kunit/kunit.py run --arch=x86_64 \
 *	--kunitconfig=drivers/infiniband/ulp/ipoib
 */

#include <kunit/test.h>
#include <rdma/ib_cm.h>

#include "ipoib.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define KA_I	5000UL	/* interval in jiffies, an arbitrary unit here */
#define KA_P	3U

static const struct ipoib_cm_ka_cfg ka_cfg = {
	.interval = KA_I,
	.probes = KA_P,
};

/* Start times: an ordinary one and one just before jiffies wrap around. */
static const unsigned long ka_starts[] = { 1000, ULONG_MAX - KA_I / 2 };

static void ka_start_desc(const unsigned long *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "start %lu", *t);
}

KUNIT_ARRAY_PARAM(ka_start, ka_starts, ka_start_desc);

static unsigned long ka_t0(struct kunit *test)
{
	return *(const unsigned long *)test->param_value;
}

/* A new connection is left alone for one interval, then probed. */
static void ka_first_probe_after_interval(struct kunit *test)
{
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0), IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_I - 1),
			IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_I),
			IPOIB_CM_KA_PROBE);
	/* tick() alone does not consume the probe: still due */
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_I + 1),
			IPOIB_CM_KA_PROBE);
	KUNIT_EXPECT_EQ(test, ka.probes_sent, 0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_next(&ka, &ka_cfg, IPOIB_CM_KA_SENDER),
			t0 + KA_I);
}

/*
 * An idle, healthy RC connection: every probe is acknowledged at once.
 * It costs exactly one probe per interval and is never declared dead.
 */
static void ka_idle_healthy_one_probe_per_interval(struct kunit *test)
{
	unsigned long t0 = ka_t0(test), t;
	unsigned int probes = 0;
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	for (t = t0; t != t0 + 20 * KA_I; t += KA_I / 10) {
		switch (ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					 false, t)) {
		case IPOIB_CM_KA_PROBE:
			ipoib_cm_ka_probe_posted(&ka, t);
			probes++;
			KUNIT_EXPECT_EQ(test,
					ipoib_cm_ka_probe_done(&ka, IB_WC_SUCCESS,
							       true, t),
					IPOIB_CM_KA_NONE);
			break;
		case IPOIB_CM_KA_DEAD:
			KUNIT_FAIL(test, "healthy connection declared dead at +%lu",
				   t - t0);
			return;
		default:
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, probes, 19);
	KUNIT_EXPECT_EQ(test, ka.probes_sent, 19);
}

/* Traffic acknowledged within the interval makes probes unnecessary. */
static void ka_traffic_suppresses_probes(struct kunit *test)
{
	unsigned long t0 = ka_t0(test), t;
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	for (t = t0; t != t0 + 10 * KA_I; t += KA_I / 2) {
		ipoib_cm_ka_alive(&ka, t);
		KUNIT_EXPECT_EQ(test,
				ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
						 false, t + KA_I / 2 - 1),
				IPOIB_CM_KA_NONE);
	}
	KUNIT_EXPECT_EQ(test, ka.probes_sent, 0);
}

/*
 * A UC peer that died: probes complete locally but are never answered.
 * After an interval of silence a probe goes out every half interval,
 * 2 * (probes - 1) in all, and the peer is declared dead after probes
 * intervals of silence, not a jiffy earlier.
 */
static void ka_unanswered_probes_dead_at_bound(struct kunit *test)
{
	unsigned long t0 = ka_t0(test), t, dead_at = 0;
	unsigned int probes = 0;
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	for (t = t0; t != t0 + 5 * KA_I; t++) {
		enum ipoib_cm_ka_action a;

		a = ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER, false, t);
		if (a == IPOIB_CM_KA_PROBE) {
			KUNIT_EXPECT_EQ(test, (t - t0) % (KA_I / 2), 0);
			KUNIT_EXPECT_GE(test, t - t0, KA_I);
			ipoib_cm_ka_probe_posted(&ka, t);
			probes++;
			/* UC: the completion says nothing about the peer */
			ipoib_cm_ka_probe_done(&ka, IB_WC_SUCCESS, false, t);
		} else if (a == IPOIB_CM_KA_DEAD) {
			KUNIT_EXPECT_EQ(test, dead_at, 0);
			dead_at = t;
		}
	}
	KUNIT_EXPECT_EQ(test, probes, 2 * (KA_P - 1));
	KUNIT_EXPECT_EQ(test, dead_at - t0, KA_P * KA_I);
}

/*
 * A lost probe followed by an answered one, half an interval later: the
 * connection recovers.
 */
static void ka_probe_loss_then_recovery(struct kunit *test)
{
	unsigned long t0 = ka_t0(test);
	unsigned long t1 = t0 + KA_I, t2 = t1 + KA_I / 2;
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	KUNIT_ASSERT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t1), IPOIB_CM_KA_PROBE);
	ipoib_cm_ka_probe_posted(&ka, t1);
	ipoib_cm_ka_probe_done(&ka, IB_WC_SUCCESS, false, t1);
	/* the reply to the first probe is lost: nothing until t2 */
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t2 - 1), IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_next(&ka, &ka_cfg, IPOIB_CM_KA_SENDER),
			t2);
	KUNIT_ASSERT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t2), IPOIB_CM_KA_PROBE);
	ipoib_cm_ka_probe_posted(&ka, t2);
	ipoib_cm_ka_probe_done(&ka, IB_WC_SUCCESS, false, t2);
	/* the second one is answered: no longer dead at the old bound */
	ipoib_cm_ka_alive(&ka, t2 + 10);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t2 + 10 + KA_I - 1),
			IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_P * KA_I),
			IPOIB_CM_KA_PROBE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t2 + 10 + KA_I),
			IPOIB_CM_KA_PROBE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t2 + 10 + KA_P * KA_I - 1),
			IPOIB_CM_KA_PROBE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t2 + 10 + KA_P * KA_I),
			IPOIB_CM_KA_DEAD);
}

/* RC: a probe in flight (being retried by the HCA) is not doubled. */
static void ka_in_flight_not_doubled(struct kunit *test)
{
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	ipoib_cm_ka_probe_posted(&ka, t0 + KA_I);
	KUNIT_EXPECT_TRUE(test, ka.in_flight);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + 2 * KA_I),
			IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_next(&ka, &ka_cfg, IPOIB_CM_KA_SENDER),
			t0 + KA_P * KA_I);
	/* the bound holds even while the HCA is still retrying */
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_P * KA_I),
			IPOIB_CM_KA_DEAD);
}

/* RC: outstanding data serves as a probe; silence still ends it. */
static void ka_busy_no_probe_but_bound(struct kunit *test)
{
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       true, t0 + KA_I), IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       true, t0 + KA_P * KA_I),
			IPOIB_CM_KA_DEAD);
}

/* The receive side watches: it never probes, and follows the bound. */
static void ka_watcher(struct kunit *test)
{
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_WATCHER,
					       false, t0 + KA_I), IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_next(&ka, &ka_cfg, IPOIB_CM_KA_WATCHER),
			t0 + KA_P * KA_I);
	ipoib_cm_ka_alive(&ka, t0 + 2 * KA_I);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_WATCHER,
					       false, t0 + KA_P * KA_I),
			IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_WATCHER,
					       false, t0 + (KA_P + 2) * KA_I - 1),
			IPOIB_CM_KA_NONE);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_WATCHER,
					       false, t0 + (KA_P + 2) * KA_I),
			IPOIB_CM_KA_DEAD);
	KUNIT_EXPECT_EQ(test, ka.probes_sent, 0);
}

/* DEAD is reported once; nothing follows it. */
static void ka_dead_once(struct kunit *test)
{
	unsigned long t0 = ka_t0(test), t = t0 + KA_P * KA_I;
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t), IPOIB_CM_KA_DEAD);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t + 1), IPOIB_CM_KA_NONE);
	/* a late sign of life does not resurrect a torn-down connection */
	ipoib_cm_ka_alive(&ka, t + 2);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t + 2 + KA_P * KA_I),
			IPOIB_CM_KA_NONE);
}

/* A transport retry error on an RC probe: dead at once, before the bound. */
static void ka_rc_retry_exceeded_is_dead(struct kunit *test)
{
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;

	ipoib_cm_ka_init(&ka, t0);
	ipoib_cm_ka_probe_posted(&ka, t0 + KA_I);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_probe_done(&ka, IB_WC_RETRY_EXC_ERR,
						     true, t0 + KA_I + 100),
			IPOIB_CM_KA_DEAD);
	KUNIT_EXPECT_FALSE(test, ka.in_flight);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_P * KA_I),
			IPOIB_CM_KA_NONE);
}

/*
 * Other errors end the connection (the QP is in error) but do not count
 * as a dead peer: an RNR NAK comes from a live one.
 */
static void ka_other_errors_not_dead(struct kunit *test)
{
	static const enum ib_wc_status st[] = {
		IB_WC_RNR_RETRY_EXC_ERR, IB_WC_REM_INV_REQ_ERR,
		IB_WC_REM_ACCESS_ERR, IB_WC_WR_FLUSH_ERR,
	};
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;
	int i;

	for (i = 0; i < ARRAY_SIZE(st); i++) {
		ipoib_cm_ka_init(&ka, t0);
		ipoib_cm_ka_probe_posted(&ka, t0 + KA_I);
		KUNIT_EXPECT_EQ(test, ipoib_cm_ka_probe_done(&ka, st[i], true,
							     t0 + KA_I + 1),
				IPOIB_CM_KA_NONE);
		KUNIT_EXPECT_TRUE(test, ka.stopped);
		KUNIT_EXPECT_EQ(test,
				ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
						 false, t0 + KA_P * KA_I),
				IPOIB_CM_KA_NONE);
	}
}

/*
 * Teardown races: the connection is stopped (DREQ, a failed send, the
 * interface going down) while a probe is in flight.  The late completion,
 * whatever its status, only clears in_flight so that the teardown can
 * wait for it, and triggers nothing.
 */
static void ka_teardown_races(struct kunit *test)
{
	static const enum ib_wc_status st[] = {
		IB_WC_SUCCESS, IB_WC_RETRY_EXC_ERR, IB_WC_WR_FLUSH_ERR,
	};
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;
	int i;

	for (i = 0; i < ARRAY_SIZE(st); i++) {
		ipoib_cm_ka_init(&ka, t0);
		ipoib_cm_ka_probe_posted(&ka, t0 + KA_I);
		ipoib_cm_ka_stop(&ka);
		KUNIT_EXPECT_EQ(test,
				ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
						 false, t0 + KA_P * KA_I),
				IPOIB_CM_KA_NONE);
		KUNIT_EXPECT_EQ(test, ipoib_cm_ka_probe_done(&ka, st[i], true,
							     t0 + KA_I + 1),
				IPOIB_CM_KA_NONE);
		KUNIT_EXPECT_FALSE(test, ka.in_flight);
	}

	/* stopped before the first probe: nothing is ever posted */
	ipoib_cm_ka_init(&ka, t0);
	ipoib_cm_ka_stop(&ka);
	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_tick(&ka, &ka_cfg, IPOIB_CM_KA_SENDER,
					       false, t0 + KA_I), IPOIB_CM_KA_NONE);
}

/* Keepalives off (interval 0, or no probes): nothing ever happens. */
static void ka_disabled(struct kunit *test)
{
	static const struct ipoib_cm_ka_cfg off[] = {
		{ .interval = 0, .probes = KA_P },
		{ .interval = KA_I, .probes = 0 },
	};
	unsigned long t0 = ka_t0(test);
	struct ipoib_cm_ka ka;
	int i;

	for (i = 0; i < ARRAY_SIZE(off); i++) {
		ipoib_cm_ka_init(&ka, t0);
		KUNIT_EXPECT_EQ(test,
				ipoib_cm_ka_tick(&ka, &off[i], IPOIB_CM_KA_SENDER,
						 false, t0 + 100 * KA_I),
				IPOIB_CM_KA_NONE);
	}
}

struct retry_case {
	u8 timeout;
	unsigned int bound_ms;
	u8 retry_cnt;
};

/* 4.096 us * 2^16 = 268 ms; 2^14 = 67 ms; 2^31 = 2.4 h */
static const struct retry_case retry_cases[] = {
	{ 16, 0, 0 },		/* keepalives off: the historical 0 */
	{ 0, 15000, 0 },	/* infinite ACK timeout */
	{ 16, 15000, 7 },	/* 55 ACK timeouts fit: capped at 7 retries */
	{ 16, 3000, 7 },	/* 11 fit */
	{ 16, 2148, 7 },	/* 8 fit (8 * 268.435456 ms = 2147.48 ms) */
	{ 16, 2147, 6 },
	{ 16, 1000, 2 },
	{ 16, 268, 0 },		/* not even one ACK timeout */
	{ 16, 269, 0 },
	{ 14, 100, 0 },
	{ 14, 135, 1 },
	{ 31, 3600000, 0 },
	{ 32, 5000, 0 },	/* invalid timeout */
};

static void retry_desc(const struct retry_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "timeout %u bound %u ms",
		 c->timeout, c->bound_ms);
}

KUNIT_ARRAY_PARAM(retry, retry_cases, retry_desc);

static void ka_retry_cnt(struct kunit *test)
{
	const struct retry_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ipoib_cm_ka_retry_cnt(c->timeout, c->bound_ms),
			c->retry_cnt);
}

struct fit_case {
	unsigned int interval_ms;
	unsigned int probes;
	u8 timeout;
	unsigned int fit_ms;	/* the interval after ipoib_cm_ka_fit() */
};

/* 4.096 us * 2^16 = 268.4 ms; 2^14 = 67.1 ms; 2^19 = 2.1 s; 2^20 = 4.3 s */
static const struct fit_case fit_cases[] = {
	{ 100, 2, 16, 1074 },	/* 200 ms < 8 ACK timeouts: 2148 ms / 2 */
	{ 100, 3, 16, 716 },
	{ 100, 2, 14, 269 },	/* 537 ms / 2 */
	{ 300, 2, 14, 300 },	/* 600 ms >= 537 ms: kept */
	{ 1000, 3, 16, 1000 },
	{ 5000, 3, 18, 5000 },	/* 8590 ms <= 15 s */
	{ 5000, 3, 19, 5727 },	/* 17180 ms / 3 */
	{ 5000, 3, 20, 11454 },	/* 34360 ms / 3 */
	{ 100, 2, 0, 100 },	/* infinite ACK timeout: nothing to hold */
	{ 0, 3, 16, 0 },	/* keepalives off stay off */
	{ 100, 2, 31, IPOIB_CM_KA_INTERVAL_MAX_MS },
	{ 100, 2, 32, 100 },	/* invalid timeout */
};

static void fit_desc(const struct fit_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u ms x %u timeout %u",
		 c->interval_ms, c->probes, c->timeout);
}

KUNIT_ARRAY_PARAM(fit, fit_cases, fit_desc);

/*
 * The bound of an RC connection holds IPOIB_CM_KA_FIT_ACKS ACK timeouts:
 * a busy connection silent that long (a packet lost, its retransmission
 * lost...) is not dead, and the transport retries IPOIB_CM_KA_FIT_ACKS - 1
 * times within the bound.
 */
static void ka_fit(struct kunit *test)
{
	const struct fit_case *c = test->param_value;
	struct ipoib_cm_ka_cfg cfg = {
		.interval = msecs_to_jiffies(c->interval_ms),
		.probes = c->probes,
	};
	struct ipoib_cm_ka ka;
	unsigned long t0 = 1000, ack;

	ipoib_cm_ka_fit(&cfg, c->timeout);
	KUNIT_EXPECT_EQ(test, cfg.interval, msecs_to_jiffies(c->fit_ms));
	if (!c->fit_ms || c->timeout < 1 || c->timeout > 24)
		return;

	/* a busy connection while its transport retransmits: not dead */
	ack = nsecs_to_jiffies(4096ULL << c->timeout);
	ipoib_cm_ka_init(&ka, t0);
	KUNIT_EXPECT_NE(test, ipoib_cm_ka_tick(&ka, &cfg, IPOIB_CM_KA_SENDER, true,
					       t0 + IPOIB_CM_KA_FIT_ACKS * ack - 1),
			IPOIB_CM_KA_DEAD);
	KUNIT_EXPECT_NE(test, ipoib_cm_ka_tick(&ka, &cfg, IPOIB_CM_KA_WATCHER, false,
					       t0 + IPOIB_CM_KA_FIT_ACKS * ack - 1),
			IPOIB_CM_KA_DEAD);
	KUNIT_EXPECT_GE(test,
			ipoib_cm_ka_retry_cnt(c->timeout,
					      jiffies_to_msecs(cfg.interval) *
					      cfg.probes),
			IPOIB_CM_KA_FIT_ACKS - 1);
}

#define KA_DUE_N	64

/*
 * The due queue gives the keepalive task exactly the connections due at
 * a time, earliest first, each once, across a jiffies wrap-around; the
 * others stay queued, and the first of them says when to run next.  A
 * connection queued again moves; one taken out is no longer queued.
 */
static void ka_due_queue(struct kunit *test)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	unsigned long t0 = ka_t0(test), now = t0 + KA_I, due, last;
	struct ipoib_cm_ka *ka, *kas;
	unsigned int i, popped = 0, expect = 0;

	kas = kunit_kcalloc(test, KA_DUE_N, sizeof(*kas), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kas);
	KUNIT_EXPECT_FALSE(test, ipoib_cm_ka_due_first(&root, &due));
	KUNIT_EXPECT_NULL(test, ipoib_cm_ka_due_pop(&root, now));

	/* dues spread over 2 intervals around @now, in a scrambled order */
	for (i = 0; i < KA_DUE_N; i++) {
		ka = &kas[i];
		ipoib_cm_ka_due_init(ka);
		KUNIT_EXPECT_FALSE(test, ipoib_cm_ka_due_queued(ka));
		ipoib_cm_ka_due_add(&root, ka,
				    t0 + (i * 37 % KA_DUE_N) * (2 * KA_I / KA_DUE_N));
		KUNIT_EXPECT_TRUE(test, ipoib_cm_ka_due_queued(ka));
		if (!time_after(ka->due, now))
			expect++;
	}
	/* queued again: it moves (to just after @now), and is there once */
	if (!time_after(kas[0].due, now))
		expect--;
	ipoib_cm_ka_due_add(&root, &kas[0], now + 1);
	/* taken out: gone, and taking it out again is harmless */
	ipoib_cm_ka_due_del(&root, &kas[1]);
	ipoib_cm_ka_due_del(&root, &kas[1]);
	KUNIT_EXPECT_FALSE(test, ipoib_cm_ka_due_queued(&kas[1]));
	if (!time_after(kas[1].due, now))
		expect--;

	last = t0;
	while ((ka = ipoib_cm_ka_due_pop(&root, now))) {
		KUNIT_EXPECT_FALSE(test, time_after(ka->due, now));
		KUNIT_EXPECT_FALSE(test, time_before(ka->due, last));
		KUNIT_EXPECT_FALSE(test, ipoib_cm_ka_due_queued(ka));
		last = ka->due;
		popped++;
	}
	KUNIT_EXPECT_EQ(test, popped, expect);
	KUNIT_EXPECT_GT(test, popped, 0U);
	KUNIT_EXPECT_LT(test, popped, KA_DUE_N - 2U);

	/* the rest: none due yet, the first at @now + 1 (kas[0]) */
	KUNIT_EXPECT_TRUE(test, ipoib_cm_ka_due_first(&root, &due));
	KUNIT_EXPECT_EQ(test, due, now + 1);
	KUNIT_EXPECT_PTR_EQ(test, ipoib_cm_ka_due_pop(&root, now + 1), &kas[0]);
	popped = 0;
	while (ipoib_cm_ka_due_pop(&root, now + 2 * KA_I))
		popped++;
	/* all but kas[1], the @expect due at @now and kas[0] */
	KUNIT_EXPECT_EQ(test, popped, KA_DUE_N - 2U - expect);
	KUNIT_EXPECT_FALSE(test, ipoib_cm_ka_due_first(&root, &due));
}

/* The private data extension round-trips and defaults to all zero. */
static void ext_roundtrip(struct kunit *test)
{
	struct ipoib_cm_ext in = {
		.caps = IPOIB_CM_CAP_KEEPALIVE,
		.ka_probes = 3,
		.ka_interval_ms = 5000,
	}, out;
	struct ipoib_cm_data data = {};
	u8 *raw = (u8 *)&data;

	KUNIT_EXPECT_EQ(test, sizeof(data), 16);
	ipoib_cm_ext_parse(&data, &out);
	KUNIT_EXPECT_EQ(test, out.caps, 0);
	KUNIT_EXPECT_EQ(test, out.ka_interval_ms, 0);

	data.qpn = cpu_to_be32(0x48);
	data.mtu = cpu_to_be32(65524);
	ipoib_cm_ext_fill(&data, &in);
	/* RFC 4755 octets untouched, extension in network order after them */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(data.qpn), 0x48);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(data.mtu), 65524);
	KUNIT_EXPECT_EQ(test, raw[8], 0x4b);
	KUNIT_EXPECT_EQ(test, raw[9], 0x41);
	KUNIT_EXPECT_EQ(test, raw[10], 3);
	KUNIT_EXPECT_EQ(test, raw[11], IPOIB_CM_CAP_KEEPALIVE);
	KUNIT_EXPECT_EQ(test, raw[14], 5000 >> 8);
	KUNIT_EXPECT_EQ(test, raw[15], 5000 & 0xff);
	ipoib_cm_ext_parse(&data, &out);
	KUNIT_EXPECT_EQ(test, out.caps, in.caps);
	KUNIT_EXPECT_EQ(test, out.ka_probes, in.ka_probes);
	KUNIT_EXPECT_EQ(test, out.ka_interval_ms, in.ka_interval_ms);
}

/* Garbage and out-of-range values never produce a watch bound. */
static void ext_rejects_bad(struct kunit *test)
{
	struct ipoib_cm_data data = {};
	struct ipoib_cm_ext in = { .caps = IPOIB_CM_CAP_KEEPALIVE }, out;
	static const struct { u32 ms; u8 probes; } bad[] = {
		{ 99, 3 }, { 3600001, 3 }, { 5000, 1 }, { 5000, 0 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		in.ka_interval_ms = bad[i].ms;
		in.ka_probes = bad[i].probes;
		ipoib_cm_ext_fill(&data, &in);
		ipoib_cm_ext_parse(&data, &out);
		KUNIT_EXPECT_EQ(test, out.ka_interval_ms, 0);
		KUNIT_EXPECT_EQ(test, out.ka_probes, 0);
		KUNIT_EXPECT_EQ(test, out.caps, IPOIB_CM_CAP_KEEPALIVE);
	}

	/* a wrong magic number: the rest is not read */
	in.ka_interval_ms = 5000;
	in.ka_probes = 3;
	ipoib_cm_ext_fill(&data, &in);
	data.ext_magic = cpu_to_be16(0x4b40);
	ipoib_cm_ext_parse(&data, &out);
	KUNIT_EXPECT_EQ(test, out.caps, 0);
	KUNIT_EXPECT_EQ(test, out.ka_interval_ms, 0);
}

static void hw_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ipoib_cm_hw_flags(IPOIB_CM_POLICY_RC, true), 0x80);
	KUNIT_EXPECT_EQ(test, ipoib_cm_hw_flags(IPOIB_CM_POLICY_AUTO, true), 0xc0);
	KUNIT_EXPECT_EQ(test, ipoib_cm_hw_flags(IPOIB_CM_POLICY_UC, true), 0xc0);
	/* a device that cannot create UC QPs advertises RC only */
	KUNIT_EXPECT_EQ(test, ipoib_cm_hw_flags(IPOIB_CM_POLICY_RC, false), 0x80);
	KUNIT_EXPECT_EQ(test, ipoib_cm_hw_flags(IPOIB_CM_POLICY_AUTO, false), 0x80);
	KUNIT_EXPECT_EQ(test, ipoib_cm_hw_flags(IPOIB_CM_POLICY_UC, false), 0x80);
}

struct uc_failed_case {
	const char *desc;
	enum ib_cm_event_type event;
	bool established;
	bool expect;
};

/* how a UC send-side connection ended x whether it was established */
static const struct uc_failed_case uc_failed_cases[] = {
	{ "REJ, any reason (9, 28, stale connection...)", IB_CM_REJ_RECEIVED, false, true },
	{ "no answer to the REQ", IB_CM_REQ_ERROR, false, true },
	{ "REP not usable", IB_CM_REP_RECEIVED, false, true },
	{ "timewait exit before the RTU", IB_CM_TIMEWAIT_EXIT, false, true },
	{ "REJ after use", IB_CM_REJ_RECEIVED, true, false },
	{ "timewait exit after use", IB_CM_TIMEWAIT_EXIT, true, false },
	{ "DREQ after use", IB_CM_DREQ_RECEIVED, true, false },
	{ "DREQ", IB_CM_DREQ_RECEIVED, false, false },
	{ "DREP", IB_CM_DREP_RECEIVED, false, false },
};

static void uc_failed_desc(const struct uc_failed_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uc_failed, uc_failed_cases, uc_failed_desc);

static void uc_failed(struct kunit *test)
{
	const struct uc_failed_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ipoib_cm_uc_failed(c->event, c->established),
			c->expect);
}

#define W_UNK	IPOIB_CM_PEER_WRITE_UNKNOWN
#define W_OK	IPOIB_CM_PEER_WRITE_OK
#define W_REF	IPOIB_CM_PEER_WRITE_REFUSED

struct write_check_case {
	const char *desc;
	enum ib_wc_status status;
	bool live;
	enum ipoib_cm_peer_write peer;
	bool up;
	bool teardown;
	bool requeue;
};

/*
 * The completion of the RDMA WRITE a new RC connection sends first x
 * whether the connection is still set up -> what the path remembers,
 * and what becomes of the connection and of what waited for it.
 */
static const struct write_check_case write_check_cases[] = {
	{ "acknowledged: up, sends what waited", IB_WC_SUCCESS, true,
	  W_OK, true, false, true },
	{ "NAK remote access: refused, next connection sends",
	  IB_WC_REM_ACCESS_ERR, true, W_REF, false, true, true },
	{ "NAK invalid request: refused", IB_WC_REM_INV_REQ_ERR, true,
	  W_REF, false, true, true },
	{ "NAK remote operation: refused", IB_WC_REM_OP_ERR, true,
	  W_REF, false, true, true },
	{ "no answer: fails, nothing learned", IB_WC_RETRY_EXC_ERR, true,
	  W_UNK, false, true, false },
	{ "RNR: fails, nothing learned", IB_WC_RNR_RETRY_EXC_ERR, true,
	  W_UNK, false, true, false },
	{ "flushed: fails, nothing learned", IB_WC_WR_FLUSH_ERR, true,
	  W_UNK, false, true, false },
	{ "local error: fails, nothing learned", IB_WC_LOC_QP_OP_ERR, true,
	  W_UNK, false, true, false },
	{ "acknowledged after teardown: learned only", IB_WC_SUCCESS, false,
	  W_OK, false, false, false },
	{ "NAK after teardown: learned only", IB_WC_REM_ACCESS_ERR, false,
	  W_REF, false, false, false },
	{ "flushed after teardown: nothing", IB_WC_WR_FLUSH_ERR, false,
	  W_UNK, false, false, false },
};

static void write_check_desc(const struct write_check_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(write_check, write_check_cases, write_check_desc);

static void write_check_done(struct kunit *test)
{
	const struct write_check_case *c = test->param_value;
	struct ipoib_cm_write_check res;

	res = ipoib_cm_write_check_done(c->status, c->live);
	KUNIT_EXPECT_EQ(test, res.peer, c->peer);
	KUNIT_EXPECT_EQ(test, res.up, c->up);
	KUNIT_EXPECT_EQ(test, res.teardown, c->teardown);
	KUNIT_EXPECT_EQ(test, res.requeue, c->requeue);
	/* a connection neither comes up nor stays down in limbo */
	if (c->live)
		KUNIT_EXPECT_NE(test, res.up, res.teardown);
}

#define RC	IB_QPT_RC
#define UC	IB_QPT_UC
#define DG	IB_QPT_MAX	/* no connected mode: datagram */
#define F_RC	IPOIB_FLAGS_RC
#define F_UC	IPOIB_FLAGS_UC
#define P_RC	IPOIB_CM_POLICY_RC
#define P_AUTO	IPOIB_CM_POLICY_AUTO
#define P_UC	IPOIB_CM_POLICY_UC
#define U_UNK	IPOIB_CM_PEER_UC_UNKNOWN
#define U_OK	IPOIB_CM_PEER_UC_OK
#define U_REF	IPOIB_CM_PEER_UC_REFUSED

struct choose_case {
	enum ipoib_cm_qp_policy policy;
	u8 peer_flags;
	enum ipoib_cm_peer_uc peer;
	bool keepalive;
	enum ib_qp_type expect;
};

/* local policy x peer flags x peer capability x local keepalives */
static const struct choose_case choose_cases[] = {
	/* rc: exactly the historical behaviour, whatever the peer says */
	{ P_RC, F_RC, U_UNK, true, RC },
	{ P_RC, F_RC | F_UC, U_UNK, true, RC },
	{ P_RC, F_RC | F_UC, U_OK, true, RC },
	{ P_RC, F_UC, U_OK, true, DG },
	{ P_RC, 0, U_UNK, true, DG },
	{ P_RC, F_RC | F_UC, U_OK, false, RC },
	/* auto: RC preferred; UC only when it is the one common mode */
	{ P_AUTO, F_RC, U_UNK, true, RC },
	{ P_AUTO, F_RC | F_UC, U_UNK, true, RC },
	{ P_AUTO, F_RC | F_UC, U_OK, true, RC },
	{ P_AUTO, F_UC, U_UNK, true, UC },
	{ P_AUTO, F_UC, U_OK, true, UC },
	{ P_AUTO, F_UC, U_REF, true, DG },
	{ P_AUTO, F_UC, U_OK, false, DG },
	{ P_AUTO, 0, U_UNK, true, DG },
	/* uc: UC whenever the peer accepts it */
	{ P_UC, F_RC | F_UC, U_UNK, true, UC },
	{ P_UC, F_RC | F_UC, U_OK, true, UC },
	{ P_UC, F_RC | F_UC, U_REF, true, RC },
	{ P_UC, F_RC | F_UC, U_UNK, false, RC },
	{ P_UC, F_RC, U_UNK, true, RC },
	{ P_UC, F_RC, U_OK, true, RC },
	{ P_UC, F_UC, U_UNK, true, UC },
	{ P_UC, F_UC, U_REF, true, DG },
	{ P_UC, F_UC, U_UNK, false, DG },
	{ P_UC, 0, U_OK, true, DG },
	/* reserved flag bits are ignored */
	{ P_UC, F_RC | F_UC | 0x3f, U_UNK, true, UC },
	{ P_RC, 0x3f, U_UNK, true, DG },
};

static const char *policy_name(enum ipoib_cm_qp_policy p)
{
	return p == P_RC ? "rc" : p == P_AUTO ? "auto" : "uc";
}

static void choose_desc(const struct choose_case *c, char *desc)
{
	static const char * const peer[] = { "unknown", "uc-ok", "uc-refused" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "policy %s peer flags %#x peer %s keepalive %d",
		 policy_name(c->policy), c->peer_flags, peer[c->peer],
		 c->keepalive);
}

KUNIT_ARRAY_PARAM(choose, choose_cases, choose_desc);

static void choose_qp_type(struct kunit *test)
{
	const struct choose_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ipoib_cm_choose_qp_type(c->policy, c->peer_flags,
						      c->peer, c->keepalive),
			c->expect);
}

struct accept_case {
	enum ipoib_cm_qp_policy policy;
	enum ib_qp_type qp_type;
	struct ipoib_cm_ext ext;
	bool expect;
};

#define EXT_NONE	{ 0 }
#define EXT_KA		{ IPOIB_CM_CAP_KEEPALIVE, 3, 5000 }
#define EXT_KA_OFF	{ IPOIB_CM_CAP_KEEPALIVE, 0, 0 }
#define EXT_NOCAP	{ 0, 3, 5000 }

static const struct accept_case accept_cases[] = {
	/* RC from anyone, as before */
	{ P_RC, RC, EXT_NONE, true },
	{ P_AUTO, RC, EXT_NONE, true },
	{ P_UC, RC, EXT_NONE, true },
	{ P_UC, RC, EXT_KA, true },
	/* UC: never under the rc policy */
	{ P_RC, UC, EXT_KA, false },
	{ P_RC, UC, EXT_NONE, false },
	/*
	 * UC: from a peer that probes, and from one that follows RFC 4755
	 * alone (no extension) or does not probe: served without keepalives
	 */
	{ P_AUTO, UC, EXT_KA, true },
	{ P_UC, UC, EXT_KA, true },
	{ P_AUTO, UC, EXT_NONE, true },
	{ P_UC, UC, EXT_NONE, true },
	{ P_UC, UC, EXT_KA_OFF, true },
	{ P_UC, UC, EXT_NOCAP, true },
	/* anything else */
	{ P_UC, IB_QPT_UD, EXT_KA, false },
	{ P_UC, IB_QPT_XRC_INI, EXT_KA, false },
};

static void accept_desc(const struct accept_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "policy %s qp type %d caps %#x interval %u probes %u",
		 policy_name(c->policy), c->qp_type, c->ext.caps,
		 c->ext.ka_interval_ms, c->ext.ka_probes);
}

KUNIT_ARRAY_PARAM(accept, accept_cases, accept_desc);

static void accept_qp_type(struct kunit *test)
{
	const struct accept_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ipoib_cm_accept_qp_type(c->policy, c->qp_type,
						      &c->ext),
			c->expect);
}

static struct kunit_case ipoib_cm_ka_cases[] = {
	KUNIT_CASE_PARAM(ka_first_probe_after_interval, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_idle_healthy_one_probe_per_interval,
			 ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_traffic_suppresses_probes, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_unanswered_probes_dead_at_bound, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_probe_loss_then_recovery, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_in_flight_not_doubled, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_busy_no_probe_but_bound, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_watcher, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_dead_once, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_rc_retry_exceeded_is_dead, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_other_errors_not_dead, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_teardown_races, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_disabled, ka_start_gen_params),
	KUNIT_CASE_PARAM(ka_retry_cnt, retry_gen_params),
	KUNIT_CASE_PARAM(ka_fit, fit_gen_params),
	KUNIT_CASE_PARAM(ka_due_queue, ka_start_gen_params),
	{}
};

static struct kunit_suite ipoib_cm_ka_suite = {
	.name = "ipoib_cm_keepalive",
	.test_cases = ipoib_cm_ka_cases,
};

static struct kunit_case ipoib_cm_nego_cases[] = {
	KUNIT_CASE(ext_roundtrip),
	KUNIT_CASE(ext_rejects_bad),
	KUNIT_CASE(hw_flags),
	KUNIT_CASE_PARAM(uc_failed, uc_failed_gen_params),
	KUNIT_CASE_PARAM(write_check_done, write_check_gen_params),
	KUNIT_CASE_PARAM(choose_qp_type, choose_gen_params),
	KUNIT_CASE_PARAM(accept_qp_type, accept_gen_params),
	{}
};

static struct kunit_suite ipoib_cm_nego_suite = {
	.name = "ipoib_cm_negotiation",
	.test_cases = ipoib_cm_nego_cases,
};

kunit_test_suites(&ipoib_cm_ka_suite, &ipoib_cm_nego_suite);

MODULE_DESCRIPTION("KUnit tests for IPoIB connected mode");
MODULE_LICENSE("Dual BSD/GPL");
