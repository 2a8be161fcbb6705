// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fault injection into the RDMA CM's HA actions.
 *
 * A task's fail-nth (/proc/thread-self/fail-nth) fails the Nth slab
 * allocation of the task that sets it. The HA actions run elsewhere: the
 * per-ID HA work, the per-device port work and the destruction of failed
 * per-device listeners run on kworkers, and the relisten of a bound
 * listener runs inside the notifier chain of whatever task made the bond
 * fail over, after bonding's and every other notifier's allocations. So
 * these files in rdma_cm's debugfs directory hand a fail-nth to the next
 * action of a kind instead:
 *
 *   ha_work_fail_nth       the next per-ID HA work item, or destruction of
 *                          failed per-device listeners, to start
 *   ha_relisten_fail_nth   the next relisten of a bound listener
 *   ha_port_work_fail_nth  the next run of a device's port work
 *
 * Writing N (> 0) arms the file. The next action of that kind takes N as
 * its task's fail-nth, so that every allocation of its whole call tree
 * counts, and when it ends it records what is left and gives the task its
 * own fail-nth back (a kworker's is 0: it carries nothing into unrelated
 * work). Reading the file gives what is left: 0 when the Nth allocation
 * was failed, more when the action made fewer than N allocations, -1
 * while no action has taken the value last written or it still runs.
 * Writing 0 disarms it.
 *
 * Races between the HA work and what the consumer or the device does
 * meanwhile (destroying the ID, removing the device, changing the mode)
 * have a window of microseconds. A test opens it on purpose with
 *
 *   ha_work_delay_ms       while armed (N > 0), every per-ID HA work item
 *                          that starts sleeps up to N ms before it takes
 *                          the ID's handler_mutex
 *   ha_work_held           how many sleep now (read only)
 *
 * Writing 0 disarms the delay and wakes every work item that sleeps it: a
 * test arms a delay longer than the slowest machine needs, and ends it as
 * soon as what it raced against has happened. An ID's work item queued
 * again while it sleeps stays pending meanwhile.
 */

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include <rdma/rdma_cm.h>

#include "cma_priv.h"

struct cma_ha_fault_point {
	atomic_t armed;	/* fail-nth for the next action, 0 if none */
	atomic_t left;	/* fail-nth its action left, -1 if none yet */
};

static struct cma_ha_fault_point cma_ha_fault_points[CMA_HA_FAULT_NR] = {
	[0 ... CMA_HA_FAULT_NR - 1] = {
		.armed = ATOMIC_INIT(0),
		.left = ATOMIC_INIT(-1),
	},
};

/* ms for the HA work items that start to sleep, 0 if none */
static atomic_t cma_ha_work_delay = ATOMIC_INIT(0);
/* How many sleep it, and how many times it was disarmed */
static atomic_t cma_ha_work_held = ATOMIC_INIT(0);
static atomic_t cma_ha_work_releases = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(cma_ha_work_delay_wait);

/* Longest delay a test may ask for: an HA work item sleeps in a kworker */
#define CMA_HA_WORK_DELAY_MAX_MS	60000

static struct dentry *cma_ha_debugfs;

/**
 * cma_ha_fault_begin() - Let an HA action take an armed fail-nth
 * @site: The kind of action that begins.
 * @fault: Where to keep the task's own fail-nth until cma_ha_fault_end().
 *
 * Context: Process context; the action runs in the current task until
 * the matching cma_ha_fault_end().
 */
void cma_ha_fault_begin(enum cma_ha_fault_site site, struct cma_ha_fault *fault)
{
	unsigned int nth = atomic_xchg(&cma_ha_fault_points[site].armed, 0);

	fault->taken = nth != 0;
	if (!fault->taken)
		return;
	fault->saved = READ_ONCE(current->fail_nth);
	WRITE_ONCE(current->fail_nth, nth);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_begin);

/**
 * cma_ha_fault_end() - Record what an HA action left of its fail-nth
 * @site: The kind of action that ends, as given to cma_ha_fault_begin().
 * @fault: As filled by cma_ha_fault_begin().
 *
 * Context: The task of the matching cma_ha_fault_begin().
 */
void cma_ha_fault_end(enum cma_ha_fault_site site, struct cma_ha_fault *fault)
{
	if (!fault->taken)
		return;
	atomic_set(&cma_ha_fault_points[site].left,
		   READ_ONCE(current->fail_nth));
	WRITE_ONCE(current->fail_nth, fault->saved);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_end);

/**
 * cma_ha_fault_arm() - Arm a fail-nth fault point
 * @site: The kind of action.
 * @nth: The fail-nth its next action takes, 0 to disarm.
 *
 * What the last action left is forgotten (-1 until the next one ends).
 *
 * Return: 0, or -EINVAL if @nth is more than a fail-nth can be.
 */
VISIBLE_IF_KUNIT int cma_ha_fault_arm(enum cma_ha_fault_site site, u64 nth)
{
	struct cma_ha_fault_point *point = &cma_ha_fault_points[site];

	if (nth > INT_MAX)
		return -EINVAL;
	atomic_set(&point->armed, 0);
	atomic_set(&point->left, -1);
	atomic_set(&point->armed, nth);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_arm);

/**
 * cma_ha_fault_left() - What the last action of a kind left of its fail-nth
 * @site: The kind of action.
 *
 * Return: the task's fail-nth when the action ended (0: its Nth
 * allocation was failed), -1 if no action has ended since the point was
 * armed.
 */
VISIBLE_IF_KUNIT int cma_ha_fault_left(enum cma_ha_fault_site site)
{
	return atomic_read(&cma_ha_fault_points[site].left);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_left);

/**
 * cma_ha_fault_delay() - Hold an HA work item as ha_work_delay_ms asks
 *
 * Sleeps the armed delay, if any, or until ha_work_delay_ms is written 0.
 *
 * Context: Process context, no lock held: the caller sleeps.
 */
void cma_ha_fault_delay(void)
{
	/* A release after this read ends the sleep, or zeroes the delay */
	int releases = atomic_read_acquire(&cma_ha_work_releases);
	int ms = atomic_read(&cma_ha_work_delay);

	if (ms <= 0)
		return;
	atomic_inc(&cma_ha_work_held);
	wait_event_timeout(cma_ha_work_delay_wait,
			   atomic_read(&cma_ha_work_releases) != releases,
			   msecs_to_jiffies(ms));
	atomic_dec(&cma_ha_work_held);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_delay);

/**
 * cma_ha_fault_set_delay() - Arm or disarm ha_work_delay_ms
 * @ms: How long each HA work item that starts sleeps, 0 to disarm.
 *
 * Disarming wakes every work item that sleeps.
 *
 * Return: 0, or -EINVAL if @ms is more than CMA_HA_WORK_DELAY_MAX_MS.
 */
VISIBLE_IF_KUNIT int cma_ha_fault_set_delay(u64 ms)
{
	if (ms > CMA_HA_WORK_DELAY_MAX_MS)
		return -EINVAL;
	atomic_set(&cma_ha_work_delay, ms);
	if (!ms) {
		/* Pairs with the acquire in cma_ha_fault_delay() */
		smp_mb__before_atomic();
		atomic_inc(&cma_ha_work_releases);
		wake_up_all(&cma_ha_work_delay_wait);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_set_delay);

/**
 * cma_ha_fault_get_delay() - What ha_work_delay_ms reads
 *
 * Return: the delay armed, 0 if none.
 */
VISIBLE_IF_KUNIT int cma_ha_fault_get_delay(void)
{
	return atomic_read(&cma_ha_work_delay);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_get_delay);

/**
 * cma_ha_fault_held() - What ha_work_held reads
 *
 * Return: how many HA work items sleep the delay now.
 */
VISIBLE_IF_KUNIT int cma_ha_fault_held(void)
{
	return atomic_read(&cma_ha_work_held);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_fault_held);

static int cma_ha_fault_get(void *data, u64 *val)
{
	struct cma_ha_fault_point *point = data;

	*val = (s64)cma_ha_fault_left(point - cma_ha_fault_points);
	return 0;
}

static int cma_ha_fault_set(void *data, u64 val)
{
	struct cma_ha_fault_point *point = data;

	return cma_ha_fault_arm(point - cma_ha_fault_points, val);
}

DEFINE_DEBUGFS_ATTRIBUTE(cma_ha_fault_fops, cma_ha_fault_get,
			 cma_ha_fault_set, "%lld\n");

static int cma_ha_delay_get(void *data, u64 *val)
{
	*val = (s64)cma_ha_fault_get_delay();
	return 0;
}

static int cma_ha_delay_set(void *data, u64 val)
{
	return cma_ha_fault_set_delay(val);
}

DEFINE_DEBUGFS_ATTRIBUTE(cma_ha_delay_fops, cma_ha_delay_get,
			 cma_ha_delay_set, "%lld\n");

static int cma_ha_held_get(void *data, u64 *val)
{
	*val = cma_ha_fault_held();
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cma_ha_held_fops, cma_ha_held_get, NULL, "%llu\n");

void cma_ha_fault_init(void)
{
	cma_ha_debugfs = debugfs_create_dir("rdma_cm", NULL);
	debugfs_create_file_unsafe("ha_work_fail_nth", 0600, cma_ha_debugfs,
				   &cma_ha_fault_points[CMA_HA_FAULT_WORK],
				   &cma_ha_fault_fops);
	debugfs_create_file_unsafe("ha_relisten_fail_nth", 0600,
				   cma_ha_debugfs,
				   &cma_ha_fault_points[CMA_HA_FAULT_RELISTEN],
				   &cma_ha_fault_fops);
	debugfs_create_file_unsafe("ha_port_work_fail_nth", 0600,
				   cma_ha_debugfs,
				   &cma_ha_fault_points[CMA_HA_FAULT_PORT_WORK],
				   &cma_ha_fault_fops);
	debugfs_create_file_unsafe("ha_work_delay_ms", 0600, cma_ha_debugfs,
				   NULL, &cma_ha_delay_fops);
	debugfs_create_file_unsafe("ha_work_held", 0400, cma_ha_debugfs,
				   NULL, &cma_ha_held_fops);
}

void cma_ha_fault_exit(void)
{
	debugfs_remove_recursive(cma_ha_debugfs);
}
