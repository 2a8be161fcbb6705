// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test knobs of rxe devices, netdevsim style: debugfs rxe/<device>/ for
 * each device, made when the device is enabled, named as it was then:
 *
 *	qp_fatal		(w) "QPN"
 *	rnr			(w) "QPN COUNT"
 *	nak			(w) "QPN COUNT KIND"
 *	drop, corrupt		(rw) "CLASS COUNT"		(IB, rxe_ib.c)
 *	delay			(rw) "CLASS COUNT MS"		(IB, rxe_ib.c)
 *	lost_sls		(rw) a mask of SLs		(IB, rxe_ib.c)
 *	sa_fail, smp_fail	(rw) "COUNT STATUS"		(IB, rxe_ib.c)
 *	ports/N/pkey		(w) "INDEX PKEY"		(IB, rxe_ib.c)
 *	ports/N/link		(rw) "down" or "up"		(IB, rxe_ib.c)
 *	ports/N/lid		(w) a unicast LID		(IB, rxe_ib.c)
 *	ports/N/active_delay_ms	(rw) milliseconds		(IB, rxe_ib.c)
 *	lag			(w) MS or "off"			(RoCE, rxe_net.c)
 *
 * A knob of a device being unregistered gets -ENODEV.  Documented in
 * Documentation/infiniband/soft_ib.rst.
 */

#include <linux/debugfs.h>

#include "rxe.h"
#include "rxe_loc.h"

static struct dentry *rxe_debugfs_root;

/**
 * rxe_knob_line() - copy what user space wrote to a knob into a string
 * @ubuf: what user space wrote
 * @len: its length
 * @buf: gets the line, NUL-terminated
 * @size: the size of @buf
 *
 * Return: 0, -EINVAL for a line too long, or -EFAULT
 */
int rxe_knob_line(const char __user *ubuf, size_t len, char *buf,
		  size_t size)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

/*
 * The QP numbered @qpn of @rxe, with a reference held (rxe_put()), or an
 * ERR_PTR: -EINVAL for a negative @qpn, -ENOENT for no such QP.  QPN 0 and
 * 1 name the device's SMI and GSI QPs (port 1's).
 */
static struct rxe_qp *rxe_knob_qp_num(struct rxe_dev *rxe, int qpn)
{
	struct rxe_qp *qp;

	if (qpn < 0)
		return ERR_PTR(-EINVAL);
	/* the special QPs' numbers are not their pool indices */
	if (qpn == 0)
		qpn = rxe_port(rxe, 1)->qp_smi_index;
	else if (qpn == 1)
		qpn = rxe_port(rxe, 1)->qp_gsi_index;
	qp = rxe_pool_get_index(&rxe->qp_pool, qpn);
	return qp ?: ERR_PTR(-ENOENT);
}

/**
 * rxe_knob_qp() - the QP that a knob's line "QPN [N]" names
 * @rxe: the knob's device, registered (a reference held)
 * @buf: the line
 * @n: gets N, which must follow QPN; NULL when the knob takes none
 *
 * Return: the QP, with a reference held (rxe_put()), or an ERR_PTR:
 * -EINVAL for a malformed line, -ENOENT for no such QP.
 */
static struct rxe_qp *rxe_knob_qp(struct rxe_dev *rxe, const char *buf,
				  unsigned int *n)
{
	char end;
	int qpn;

	if (n ? sscanf(buf, "%i %u %c", &qpn, n, &end) != 2 :
		sscanf(buf, "%i %c", &qpn, &end) != 1)
		return ERR_PTR(-EINVAL);
	return rxe_knob_qp_num(rxe, qpn);
}

/*
 * qp_fatal: writing "QPN" moves that QP of the device (IB or RoCE) to the
 * error state and raises IB_EVENT_QP_FATAL, as a hardware device does when
 * a QP of its own fails.  For tests: what a consumer does with a QP that
 * died under it.
 */
static ssize_t rxe_knob_qp_fatal_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *ppos)
{
	struct rxe_dev *rxe = file->private_data;
	char buf[32];
	struct ib_event ev;
	struct rxe_qp *qp;
	ssize_t ret;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	qp = rxe_knob_qp(rxe, buf, NULL);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto put_dev;
	}
	rxe_qp_error(qp);
	if (qp->ibqp.event_handler) {
		ev.device = &rxe->ib_dev;
		ev.element.qp = &qp->ibqp;
		ev.event = IB_EVENT_QP_FATAL;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	rxe_put(qp);
	ret = len;
put_dev:
	ib_device_put(&rxe->ib_dev);
	return ret;
}

static const struct file_operations rxe_knob_qp_fatal_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rxe_knob_qp_fatal_write,
};

/*
 * Whether @k, a fault of @rxe armed for one QP's next requests, is armed
 * for @qp: if so, one request is taken and, when @nak is given, it gets
 * the refusal debugfs nak asked for.  A device with nothing armed pays a
 * load.
 */
static bool rxe_qp_knob_take(struct rxe_dev *rxe, struct rxe_qp_knob *k,
			     struct rxe_qp *qp, enum resp_states *nak)
{
	unsigned long flags;
	bool hit = false;

	if (likely(!READ_ONCE(k->count)))
		return false;

	spin_lock_irqsave(&rxe->knob_lock, flags);
	if (k->count && k->qpn == qp->ibqp.qp_num) {
		WRITE_ONCE(k->count, k->count - 1);
		if (nak)
			*nak = rxe->nak_state;
		hit = true;
	}
	spin_unlock_irqrestore(&rxe->knob_lock, flags);
	return hit;
}

/* arm @k for the next @count requests of @qp; under knob_lock */
static void rxe_qp_knob_arm(struct rxe_qp_knob *k, struct rxe_qp *qp,
			    unsigned int count)
{
	k->qpn = qp->ibqp.qp_num;
	WRITE_ONCE(k->count, count);
}

/**
 * rxe_rnr_inject() - whether debugfs rnr asks the responder of @qp to
 * answer a request as an empty receive queue does
 * @qp: the responder's QP
 *
 * Writing "QPN COUNT" to the device's rnr makes the responder of that QP
 * (IB or RoCE) answer its next COUNT requests that need a receive WQE as
 * an empty receive queue or SRQ does: an RNR NAK on RC, a dropped message
 * on UC and UD.  Nothing is consumed, so the request a sender retries
 * after an RNR NAK counts again.  "QPN 0" disarms it; one QP of a device
 * at a time.  For tests: a receiver that runs out of receive buffers for a
 * moment (an incast on a shared SRQ), at a chosen time.  "0 COUNT" runs
 * QP0's receive queue dry for COUNT SMPs, which VL15Dropped counts (on
 * every port of a two-port device: the knob takes the QP number).
 *
 * Called for each request that needs a receive WQE; takes one of the
 * requests asked for if it does.
 *
 * Context: the responder task.
 * Return: true if the request gets an RNR NAK (or is dropped).
 */
bool rxe_rnr_inject(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);

	return rxe_qp_knob_take(rxe, &rxe->rnr, qp, NULL);
}

static ssize_t rxe_knob_rnr_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct rxe_dev *rxe = file->private_data;
	unsigned int count;
	struct rxe_qp *qp;
	char buf[32];
	ssize_t ret;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	qp = rxe_knob_qp(rxe, buf, &count);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto put_dev;
	}

	spin_lock_irq(&rxe->knob_lock);
	rxe_qp_knob_arm(&rxe->rnr, qp, count);
	spin_unlock_irq(&rxe->knob_lock);

	rxe_put(qp);
	ret = len;
put_dev:
	ib_device_put(&rxe->ib_dev);
	return ret;
}

static const struct file_operations rxe_knob_rnr_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rxe_knob_rnr_write,
};

/* the responder's errors that debugfs nak takes, by their names there */
static const struct {
	const char		*name;
	enum resp_states	state;
} rxe_nak_kinds[] = {
	{ "inv", RESPST_ERR_UNSUPPORTED_OPCODE },	/* invalid request */
	{ "acc", RESPST_ERR_RKEY_VIOLATION },	/* remote access error */
	{ "op",	 RESPST_ERR_MALFORMED_WQE },	/* remote operational error */
};

/**
 * rxe_nak_inject() - the error debugfs nak asks the responder of @qp to
 * answer a request with
 * @qp: the responder's QP, RC
 *
 * Writing "QPN COUNT KIND" to the device's nak makes the responder of that
 * RC QP (IB or RoCE) refuse its next COUNT requests, whatever their
 * opcode, as a responder does that finds them at fault: KIND inv as an
 * invalid request (NAK Invalid Request; the requester's work request
 * completes with IB_WC_REM_INV_REQ_ERR), acc as a remote access violation
 * (NAK Remote Access Error, IB_WC_REM_ACCESS_ERR), op as a remote
 * operational error (NAK Remote Operational Error, IB_WC_REM_OP_ERR).
 * These are the IBA's class A and C errors: the responder's QP goes to
 * the error state after the NAK, and the requester's after the
 * completion.  "QPN 0 KIND" disarms it; one QP of a device at a time.
 * For tests: what a consumer does when its peer refuses its requests, at
 * a chosen time and without a faulty peer.
 *
 * Called for the first packet of each new request; takes one of the
 * requests asked for if it is one.
 *
 * Context: the responder task.
 * Return: the responder state that refuses the request, or %RESPST_NONE.
 */
enum resp_states rxe_nak_inject(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	enum resp_states state = RESPST_NONE;

	rxe_qp_knob_take(rxe, &rxe->nak, qp, &state);
	return state;
}

static ssize_t rxe_knob_nak_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct rxe_dev *rxe = file->private_data;
	char buf[40], kind[8], end;
	unsigned int count, k;
	struct rxe_qp *qp;
	ssize_t ret;
	int qpn;

	ret = rxe_knob_line(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%i %u %7s %c", &qpn, &count, kind, &end) != 3)
		return -EINVAL;
	for (k = 0; k < ARRAY_SIZE(rxe_nak_kinds); k++)
		if (!strcmp(kind, rxe_nak_kinds[k].name))
			break;
	if (k == ARRAY_SIZE(rxe_nak_kinds))
		return -EINVAL;

	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	qp = rxe_knob_qp_num(rxe, qpn);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto put_dev;
	}
	/* only RC has NAKs that refuse a request */
	if (qp_type(qp) != IB_QPT_RC) {
		ret = -EINVAL;
		goto put_qp;
	}

	spin_lock_irq(&rxe->knob_lock);
	rxe->nak_state = rxe_nak_kinds[k].state;
	rxe_qp_knob_arm(&rxe->nak, qp, count);
	spin_unlock_irq(&rxe->knob_lock);
	ret = len;
put_qp:
	rxe_put(qp);
put_dev:
	ib_device_put(&rxe->ib_dev);
	return ret;
}

static const struct file_operations rxe_knob_nak_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rxe_knob_nak_write,
};

/**
 * rxe_debugfs_add() - give a device its directory of test knobs
 * @rxe: the device, being enabled
 */
void rxe_debugfs_add(struct rxe_dev *rxe)
{
	struct dentry *dir;

	dir = debugfs_create_dir(dev_name(&rxe->ib_dev.dev), rxe_debugfs_root);
	rxe->debugfs = dir;
	debugfs_create_file("qp_fatal", 0200, dir, rxe,
			    &rxe_knob_qp_fatal_fops);
	debugfs_create_file("rnr", 0200, dir, rxe, &rxe_knob_rnr_fops);
	debugfs_create_file("nak", 0200, dir, rxe, &rxe_knob_nak_fops);
	if (rxe_is_ib(rxe))
		rxe_ib_debugfs_add(rxe);
	else
		rxe_lag_debugfs_add(rxe);
}

/**
 * rxe_debugfs_remove() - undo rxe_debugfs_add()
 * @rxe: the device, unregistered
 *
 * Waits for the knobs' handlers that are running.
 */
void rxe_debugfs_remove(struct rxe_dev *rxe)
{
	debugfs_remove_recursive(rxe->debugfs);
	rxe->debugfs = NULL;
}

/**
 * rxe_debugfs_init() - make debugfs rxe/, before any device
 */
void rxe_debugfs_init(void)
{
	rxe_debugfs_root = debugfs_create_dir("rxe", NULL);
}

/**
 * rxe_debugfs_exit() - remove debugfs rxe/, once every device is gone
 */
void rxe_debugfs_exit(void)
{
	debugfs_remove(rxe_debugfs_root);
}
