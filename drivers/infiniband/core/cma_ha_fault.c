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
 *   ha_work_fail_nth       the next HA work item to start
 *   ha_relisten_fail_nth   the next relisten of a bound listener
 *
 * Writing N (> 0) arms the file. The next action of that kind takes N as
 * its task's fail-nth, so that every allocation of its whole call tree
 * counts, and when it ends it records what is left and gives the task its
 * own fail-nth back (a kworker's is 0: it carries nothing into unrelated
 * work). Reading the file gives what is left: 0 when the Nth allocation
 * was failed, more when the action made fewer than N allocations, -1
 * while no action has taken the value last written or it still runs.
 * Writing 0 disarms it.
 */

#include <linux/debugfs.h>
#include <linux/sched.h>

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

static int cma_ha_fault_get(void *data, u64 *val)
{
	struct cma_ha_fault_point *point = data;

	*val = (s64)atomic_read(&point->left);
	return 0;
}

static int cma_ha_fault_set(void *data, u64 val)
{
	struct cma_ha_fault_point *point = data;

	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&point->armed, 0);
	atomic_set(&point->left, -1);
	atomic_set(&point->armed, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cma_ha_fault_fops, cma_ha_fault_get,
			 cma_ha_fault_set, "%lld\n");

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
}

void cma_ha_fault_exit(void)
{
	debugfs_remove_recursive(cma_ha_debugfs);
}
