// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the fault points of the RDMA CM's HA actions
 * (cma_ha_fault.c): how an armed fail-nth is handed to one action and
 * taken back, and the work item delay.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <rdma/rdma_cm.h>

#include "cma_priv.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* One allocation that failslab may fail, as the HA actions make them */
static bool cma_ha_fault_test_alloc(void)
{
	void *p = kmalloc(16, GFP_ATOMIC | __GFP_NOWARN);
	bool ok = p;

	kfree(p);
	return ok;
}

static void cma_ha_fault_test_exit(struct kunit *test)
{
	cma_ha_fault_arm(CMA_HA_FAULT_WORK, 0);
	cma_ha_fault_arm(CMA_HA_FAULT_RELISTEN, 0);
	cma_ha_fault_arm(CMA_HA_FAULT_PORT_WORK, 0);
	cma_ha_fault_set_delay(0);
}

/*
 * An armed fail-nth is the action's for its run, then the task's own again.
 * Allocations are counted as failslab counts them: every slab allocation
 * of the task, kmemleak's own ones for what it tracks included, so only
 * the first of an action is predictable.
 */
static void cma_ha_fault_handover_test(struct kunit *test)
{
	unsigned int own = current->fail_nth, during, after;
	struct cma_ha_fault fault;
	bool first, later;

	KUNIT_ASSERT_EQ(test, cma_ha_fault_arm(CMA_HA_FAULT_WORK, 1), 0);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_left(CMA_HA_FAULT_WORK), -1);

	cma_ha_fault_begin(CMA_HA_FAULT_WORK, &fault);
	during = current->fail_nth;
	/* No KUnit call in here: its own allocations would count */
	first = cma_ha_fault_test_alloc();
	cma_ha_fault_end(CMA_HA_FAULT_WORK, &fault);
	after = current->fail_nth;
	later = cma_ha_fault_test_alloc();

	KUNIT_EXPECT_TRUE(test, fault.taken);
	KUNIT_EXPECT_EQ(test, during, 1);
	KUNIT_EXPECT_FALSE(test, first);
	KUNIT_EXPECT_EQ(test, after, own);
	KUNIT_EXPECT_TRUE(test, later);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_left(CMA_HA_FAULT_WORK), 0);
}

/* An action that allocates less than N leaves the rest for reading back */
static void cma_ha_fault_left_test(struct kunit *test)
{
	struct cma_ha_fault fault;
	int left;
	bool ok;

	KUNIT_ASSERT_EQ(test, cma_ha_fault_arm(CMA_HA_FAULT_RELISTEN, 1000),
			0);
	cma_ha_fault_begin(CMA_HA_FAULT_RELISTEN, &fault);
	ok = cma_ha_fault_test_alloc();
	cma_ha_fault_end(CMA_HA_FAULT_RELISTEN, &fault);
	left = cma_ha_fault_left(CMA_HA_FAULT_RELISTEN);

	KUNIT_EXPECT_TRUE(test, ok);
	KUNIT_EXPECT_LT(test, left, 1000);
	KUNIT_EXPECT_GT(test, left, 0);
	/* The other point was neither armed nor taken */
	KUNIT_EXPECT_EQ(test, cma_ha_fault_left(CMA_HA_FAULT_WORK), -1);
}

/* One arming, one action: the next action runs with the task's own */
static void cma_ha_fault_once_test(struct kunit *test)
{
	unsigned int own = current->fail_nth, during;
	struct cma_ha_fault fault;

	KUNIT_ASSERT_EQ(test, cma_ha_fault_arm(CMA_HA_FAULT_WORK, 3), 0);
	cma_ha_fault_begin(CMA_HA_FAULT_WORK, &fault);
	cma_ha_fault_end(CMA_HA_FAULT_WORK, &fault);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_left(CMA_HA_FAULT_WORK), 3);

	cma_ha_fault_begin(CMA_HA_FAULT_WORK, &fault);
	during = current->fail_nth;
	cma_ha_fault_end(CMA_HA_FAULT_WORK, &fault);
	KUNIT_EXPECT_FALSE(test, fault.taken);
	KUNIT_EXPECT_EQ(test, during, own);
	/* What the first action left stays readable */
	KUNIT_EXPECT_EQ(test, cma_ha_fault_left(CMA_HA_FAULT_WORK), 3);

	/* Disarmed: nothing taken */
	KUNIT_ASSERT_EQ(test, cma_ha_fault_arm(CMA_HA_FAULT_WORK, 0), 0);
	cma_ha_fault_begin(CMA_HA_FAULT_WORK, &fault);
	cma_ha_fault_end(CMA_HA_FAULT_WORK, &fault);
	KUNIT_EXPECT_FALSE(test, fault.taken);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_left(CMA_HA_FAULT_WORK), -1);

	KUNIT_EXPECT_EQ(test, cma_ha_fault_arm(CMA_HA_FAULT_WORK,
					       (u64)INT_MAX + 1), -EINVAL);
}

/* While armed, the delay holds every work item that starts */
static void cma_ha_fault_delay_test(struct kunit *test)
{
	ktime_t t0;

	KUNIT_EXPECT_EQ(test, cma_ha_fault_set_delay(60001), -EINVAL);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_get_delay(), 0);

	/* Nothing armed: no wait */
	t0 = ktime_get();
	cma_ha_fault_delay();
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 20);

	KUNIT_ASSERT_EQ(test, cma_ha_fault_set_delay(60), 0);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_get_delay(), 60);
	t0 = ktime_get();
	cma_ha_fault_delay();
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), t0), 60);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_held(), 0);

	/* Still armed: the next work item waits too */
	KUNIT_EXPECT_EQ(test, cma_ha_fault_get_delay(), 60);
	t0 = ktime_get();
	cma_ha_fault_delay();
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), t0), 60);

	/* Disarmed: no wait */
	KUNIT_ASSERT_EQ(test, cma_ha_fault_set_delay(0), 0);
	t0 = ktime_get();
	cma_ha_fault_delay();
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 20);
}

struct cma_ha_fault_delay_ctx {
	struct completion started;
	struct completion done;
};

static int cma_ha_fault_delay_thread(void *data)
{
	struct cma_ha_fault_delay_ctx *ctx = data;

	complete(&ctx->started);
	cma_ha_fault_delay();
	complete(&ctx->done);
	return 0;
}

/*
 * Start N threads that sleep the delay, and wait until they all do.
 * Return: how many were started; each uses its ctx until it completes done.
 */
static int cma_ha_fault_delay_start(struct kunit *test,
				    struct cma_ha_fault_delay_ctx *ctx, int n)
{
	struct task_struct *task;
	int i;

	for (i = 0; i < n; i++) {
		init_completion(&ctx[i].started);
		init_completion(&ctx[i].done);
		task = kthread_run(cma_ha_fault_delay_thread, &ctx[i],
				   "cma_ha_delay%d", i);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_run: %pe", task);
			return i;
		}
		wait_for_completion(&ctx[i].started);
	}
	for (i = 0; i < 100 && cma_ha_fault_held() != n; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_held(), n);
	return n;
}

/* Work items sleep the delay side by side, and ha_work_held counts them */
static void cma_ha_fault_delay_sleeping_test(struct kunit *test)
{
	struct cma_ha_fault_delay_ctx ctx[2];
	int n;

	KUNIT_ASSERT_EQ(test, cma_ha_fault_set_delay(500), 0);
	n = cma_ha_fault_delay_start(test, ctx, 2);
	while (n--)
		wait_for_completion(&ctx[n].done);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_held(), 0);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_get_delay(), 500);
}

/* Disarming the delay ends the sleep of every work item */
static void cma_ha_fault_delay_release_test(struct kunit *test)
{
	struct cma_ha_fault_delay_ctx ctx[2];
	unsigned long left[2] = {};
	ktime_t t0;
	int i, n;

	KUNIT_ASSERT_EQ(test, cma_ha_fault_set_delay(60000), 0);
	n = cma_ha_fault_delay_start(test, ctx, 2);

	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, cma_ha_fault_set_delay(0), 0);
	for (i = 0; i < n; i++) {
		left[i] = wait_for_completion_timeout(&ctx[i].done, 5 * HZ);
		KUNIT_EXPECT_NE(test, left[i], 0);
	}
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 5000);
	KUNIT_EXPECT_EQ(test, cma_ha_fault_held(), 0);
	/* Each thread uses its ctx until it ends, whatever the test found */
	while (n--)
		if (!left[n])
			wait_for_completion(&ctx[n].done);
}

static struct kunit_case cma_ha_fault_test_cases[] = {
	KUNIT_CASE(cma_ha_fault_handover_test),
	KUNIT_CASE(cma_ha_fault_left_test),
	KUNIT_CASE(cma_ha_fault_once_test),
	KUNIT_CASE(cma_ha_fault_delay_test),
	KUNIT_CASE(cma_ha_fault_delay_sleeping_test),
	KUNIT_CASE(cma_ha_fault_delay_release_test),
	{}
};

static struct kunit_suite cma_ha_fault_test_suite = {
	.name = "cma_ha_fault",
	.exit = cma_ha_fault_test_exit,
	.test_cases = cma_ha_fault_test_cases,
};

kunit_test_suite(cma_ha_fault_test_suite);

MODULE_DESCRIPTION("KUnit tests for the fault points of the RDMA CM's HA actions");
MODULE_LICENSE("GPL");
