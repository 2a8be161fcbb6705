// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel consumer of the RDMA CM's high-availability modes, for tests.
 *
 * The HA modes act on kernel QPs where they act on a user QP only through
 * the device: migrate mode forces a kernel QP whose alternate path is
 * armed onto it, and align and fail-fast move a kernel QP to the error
 * state.  No in-tree ULP sets an alternate path, so this module is the
 * kernel consumer the tests of those paths need: an RC ping client and
 * an echo server on kernel QPs, driven from debugfs
 * (/sys/kernel/debug/rdma_cm_ha_test/ctl), one line per command:
 *
 *   listen ADDR PORT MODE
 *	a server on ADDR (IPv4) port PORT whose IDs take HA mode MODE
 *	(notify, ignore, align, fail-fast, migrate, report, or default:
 *	none set); it echoes every message of each connection
 *   connect SRC DST PORT MODE [SGID,SLID,DGID,DLID,HOPS]
 *	a client from SRC to DST:PORT in MODE; with the alternate path
 *	(GIDs as IPv6 addresses, LIDs in decimal or 0x hex, a hop limit
 *	of 1 or more for a GRH, 0 for none) given to rdma_set_ib_alt_path()
 *	once the route is resolved.  It sends a 64-byte message every
 *	10 ms, one at a time, and waits for its echo: any RC server that
 *	echoes what it receives will do, a user space one too
 *   stop
 *	disconnects and destroys every connection and the server
 *
 * Everything it sees goes to the kernel log, one line each, prefixed
 * "cma_ha_test: " and the CLOCK_MONOTONIC time: CM events ("cm_event
 * name=... status=... id=N"), QP events ("async event=... id=N"), work
 * completion errors, "connected id=N", and gaps of 50 ms or more between
 * two echoes ("stall begin since=T", "stall end gap_ms=N").
 *
 * The connections and the server stay until "stop", whatever happens to
 * them, but for RDMA_CM_EVENT_DEVICE_REMOVAL: then, as a ULP must, a
 * connection is torn down and the server closed from the CM's handler,
 * whose non-zero return has the CM destroy the ID, so that the device can
 * go ("destroyed id=N", "destroyed listener").
 *
 * Copyright (c) 2026 rdma-ha developers
 */

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#define KC_MSG_SIZE	64
#define KC_RECVS	8
#define KC_PING_MS	10
#define KC_STALL_MS	50

struct kc_conn {
	struct list_head	list;
	struct rdma_cm_id	*id;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	bool			client;
	bool			has_alt;
	struct sa_path_rec	alt;
	unsigned int		num;
	void			*buf;		/* KC_RECVS + 1 messages */
	u64			dma;
	struct ib_cqe		send_cqe;
	struct ib_cqe		recv_cqe;
	struct delayed_work	ping_work;
	spinlock_t		lock;		/* guards what follows */
	bool			stopping;
	bool			outstanding;
	bool			stalled;
	u64			seq;
	ktime_t			last;
};

static DEFINE_MUTEX(kc_lock);		/* serialises the commands */
static DEFINE_SPINLOCK(kc_list_lock);	/* guards kc_conns */
static LIST_HEAD(kc_conns);
static struct rdma_cm_id *kc_listener;	/* taken with xchg() */
static atomic_t kc_next = ATOMIC_INIT(1);
static struct dentry *kc_dir;

static const char * const kc_modes[] = {
	[RDMA_CM_HA_MODE_NOTIFY] = "notify",
	[RDMA_CM_HA_MODE_IGNORE] = "ignore",
	[RDMA_CM_HA_MODE_ALIGN] = "align",
	[RDMA_CM_HA_MODE_FAIL_FAST] = "fail-fast",
	[RDMA_CM_HA_MODE_MIGRATE] = "migrate",
	[RDMA_CM_HA_MODE_REPORT] = "report",
};

__printf(1, 2)
static void kc_log(const char *fmt, ...)
{
	u64 ns = ktime_get_ns();
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("cma_ha_test: %llu.%06llu %pV\n", ns / NSEC_PER_SEC,
		(ns % NSEC_PER_SEC) / NSEC_PER_USEC, &vaf);
	va_end(args);
}

static int kc_post_recv(struct kc_conn *c, unsigned int i)
{
	struct ib_sge sge = {
		.addr = c->dma + (i + 1) * KC_MSG_SIZE,
		.length = KC_MSG_SIZE,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &c->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->id->qp, &wr, NULL);
}

static int kc_post_send(struct kc_conn *c, u64 seq)
{
	struct ib_sge sge = {
		.addr = c->dma,
		.length = KC_MSG_SIZE,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	memcpy(c->buf, &seq, sizeof(seq));
	return ib_post_send(c->id->qp, &wr, NULL);
}

static void kc_wc_error(struct kc_conn *c, struct ib_wc *wc, const char *what)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		kc_log("wc_flush %s id=%u", what, c->num);
	else
		kc_log("wc_error %s status=%s id=%u", what,
		       ib_wc_status_msg(wc->status), c->num);
}

static void kc_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kc_conn *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS)
		kc_wc_error(c, wc, "send");
}

static void kc_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kc_conn *c = cq->cq_context;
	ktime_t now = ktime_get();
	unsigned long flags;
	u64 seq, gap;

	if (wc->status != IB_WC_SUCCESS) {
		kc_wc_error(c, wc, "recv");
		return;
	}
	/* one message at a time: the next receive takes the same buffer */
	memcpy(&seq, c->buf + KC_MSG_SIZE, sizeof(seq));
	if (kc_post_recv(c, 0))
		kc_log("post_recv failed id=%u", c->num);
	if (!c->client) {
		if (kc_post_send(c, seq))
			kc_log("post_send failed id=%u", c->num);
		return;
	}

	spin_lock_irqsave(&c->lock, flags);
	gap = ktime_ms_delta(now, c->last);
	c->last = now;
	c->outstanding = false;
	if (c->stalled) {
		c->stalled = false;
		spin_unlock_irqrestore(&c->lock, flags);
		kc_log("stall end gap_ms=%llu id=%u", gap, c->num);
		return;
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

static void kc_ping(struct work_struct *work)
{
	struct kc_conn *c = container_of(to_delayed_work(work),
					 struct kc_conn, ping_work);
	ktime_t now = ktime_get();
	unsigned long flags;
	bool send = false;
	s64 since;

	spin_lock_irqsave(&c->lock, flags);
	if (c->stopping) {
		spin_unlock_irqrestore(&c->lock, flags);
		return;
	}
	if (!c->outstanding) {
		c->outstanding = true;
		send = true;
	} else if (!c->stalled &&
		   ktime_ms_delta(now, c->last) >= KC_STALL_MS) {
		c->stalled = true;
		since = ktime_to_ns(c->last);
		spin_unlock_irqrestore(&c->lock, flags);
		kc_log("stall begin since=%lld.%06lld id=%u",
		       since / NSEC_PER_SEC,
		       (since % NSEC_PER_SEC) / NSEC_PER_USEC, c->num);
		goto again;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (send && kc_post_send(c, ++c->seq))
		kc_log("post_send failed id=%u", c->num);
again:
	schedule_delayed_work(&c->ping_work, msecs_to_jiffies(KC_PING_MS));
}

static void kc_qp_event(struct ib_event *event, void *context)
{
	struct kc_conn *c = context;

	kc_log("async event=%s id=%u", ib_event_msg(event->event), c->num);
}

/* PD, CQ, QP and receives for @c on @id's device; in the CM's handler */
static int kc_create_qp(struct kc_conn *c)
{
	struct ib_device *dev = c->id->device;
	struct ib_qp_init_attr attr = {
		.event_handler = kc_qp_event,
		.qp_context = c,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = KC_RECVS,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	c->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		return ret;
	}
	c->cq = ib_alloc_cq(dev, c, 4 + KC_RECVS, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	ret = rdma_create_qp(c->id, c->pd, &attr);
	if (ret)
		return ret;
	c->dma = ib_dma_map_single(dev, c->buf, (KC_RECVS + 1) * KC_MSG_SIZE,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, c->dma))
		return -ENOMEM;
	return kc_post_recv(c, 0);
}

static struct kc_conn *kc_conn_alloc(struct rdma_cm_id *id, bool client)
{
	struct kc_conn *c;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->buf = kzalloc((KC_RECVS + 1) * KC_MSG_SIZE, GFP_KERNEL);
	if (!c->buf) {
		kfree(c);
		return NULL;
	}
	INIT_LIST_HEAD(&c->list);
	c->id = id;
	c->client = client;
	c->send_cqe.done = kc_send_done;
	c->recv_cqe.done = kc_recv_done;
	spin_lock_init(&c->lock);
	INIT_DELAYED_WORK(&c->ping_work, kc_ping);
	return c;
}

/*
 * Tear @c down: its pings, its connection, its QP, its ID when it has one
 * (the CM destroys the ID of a request its handler refused, and calls
 * this from the handler), the rest.  Under the ID's handler lock first:
 * a handler that runs after it sees @c stopping and touches nothing.
 */
static void kc_conn_free(struct kc_conn *c, bool destroy_id)
{
	struct rdma_cm_id *id = c->id;

	if (id && destroy_id)
		rdma_lock_handler(id);
	spin_lock_irq(&c->lock);
	c->stopping = true;
	spin_unlock_irq(&c->lock);
	if (id && destroy_id)
		rdma_unlock_handler(id);
	cancel_delayed_work_sync(&c->ping_work);
	if (id && id->qp) {
		if (destroy_id)
			rdma_disconnect(id);
		ib_drain_qp(id->qp);
		rdma_destroy_qp(id);
	}
	if (id && c->dma)
		ib_dma_unmap_single(id->device, c->dma,
				    (KC_RECVS + 1) * KC_MSG_SIZE,
				    DMA_BIDIRECTIONAL);
	if (id && destroy_id)
		rdma_destroy_id(id);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	kfree(c->buf);
	kfree(c);
}

static int kc_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);

static int kc_accept(struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	struct kc_conn *c;
	int ret;

	c = kc_conn_alloc(id, false);
	if (!c)
		return -ENOMEM;
	id->context = c;
	ret = kc_create_qp(c);
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret) {
		kc_log("accept failed ret=%d id=%u", ret, c->num);
		id->context = NULL;
		kc_conn_free(c, false);
		return ret;
	}
	spin_lock(&kc_list_lock);
	c->num = atomic_fetch_inc(&kc_next);
	list_add_tail(&c->list, &kc_conns);
	spin_unlock(&kc_list_lock);
	return 0;
}

static int kc_route_resolved(struct kc_conn *c)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 3,
		.rnr_retry_count = 7,
	};
	int ret;

	if (c->has_alt) {
		struct sa_path_rec path = c->id->route.path_rec[0];

		path.sgid = c->alt.sgid;
		path.dgid = c->alt.dgid;
		path.ib.slid = c->alt.ib.slid;
		path.ib.dlid = c->alt.ib.dlid;
		path.hop_limit = c->alt.hop_limit;
		ret = rdma_set_ib_alt_path(c->id, &path);
		kc_log("alt_path ret=%d id=%u", ret, c->num);
		if (ret)
			return ret;
	}
	ret = kc_create_qp(c);
	if (ret)
		return ret;
	return rdma_connect_locked(c->id, &param);
}

static const char *kc_event_name(enum rdma_cm_event_type type)
{
	static const char * const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
	};

	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "UNKNOWN";
}

/*
 * The device of @c goes: tear @c down but for its ID, which the CM
 * destroys on the handler's non-zero return, unless "stop" took @c off
 * the list first (it then destroys @c once this handler returned).
 *
 * Context: the handler of @c's ID.
 * Return: 1 when the CM is to destroy the ID, else 0.
 */
static int kc_device_removal(struct kc_conn *c)
{
	unsigned int num = c->num;
	bool ours;

	/* off the list: "stop" took it (list_del_init()), or it is ours */
	spin_lock(&kc_list_lock);
	ours = !list_empty(&c->list);
	list_del_init(&c->list);
	spin_unlock(&kc_list_lock);
	if (!ours)
		return 0;
	kc_conn_free(c, false);
	kc_log("destroyed id=%u", num);
	return 1;
}

/*
 * The CM's handler.  An ID whose connection failed or ended stays until
 * "stop": its handler returns 0, as the ID is in the list.  On a device
 * removal the handler lets the ID go.
 */
static int kc_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct kc_conn *c = id->context;
	int ret = 0;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* the new ID has the listener's HA mode */
		kc_log("cm_event name=RDMA_CM_EVENT_CONNECT_REQUEST status=%d",
		       event->status);
		/* non-zero: the CM destroys the new ID */
		return kc_accept(id) ? 1 : 0;
	}
	if (!c) {
		kc_log("cm_event name=RDMA_CM_EVENT_%s status=%d listener",
		       kc_event_name(event->event), event->status);
		if (event->event != RDMA_CM_EVENT_DEVICE_REMOVAL ||
		    cmpxchg(&kc_listener, id, NULL) != id)
			return 0;
		kc_log("destroyed listener");
		return 1;
	}
	/* being torn down (kc_conn_free()): its resources are not ours */
	if (READ_ONCE(c->stopping))
		return 0;
	kc_log("cm_event name=RDMA_CM_EVENT_%s status=%d id=%u",
	       kc_event_name(event->event), event->status, c->num);
	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		return kc_device_removal(c);

	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, 2000);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = kc_route_resolved(c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		kc_log("connected id=%u port=%u", c->num, id->port_num);
		spin_lock_irq(&c->lock);
		c->last = ktime_get();
		if (c->client && !c->stopping)
			schedule_delayed_work(&c->ping_work, 0);
		spin_unlock_irq(&c->lock);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		rdma_disconnect(id);
		break;
	default:
		break;
	}
	if (ret)
		kc_log("handler failed ret=%d id=%u", ret, c->num);
	/* the ID stays until "stop", which destroys it */
	return 0;
}

static int kc_addr(const char *s, struct sockaddr_in *sin, u16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (!in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	return 0;
}

static int kc_mode(const char *s, bool *set, enum rdma_cm_ha_mode *mode)
{
	int i;

	*set = strcmp(s, "default");
	if (!*set)
		return 0;
	i = match_string(kc_modes, ARRAY_SIZE(kc_modes), s);
	if (i < 0)
		return -EINVAL;
	*mode = i;
	return 0;
}

/* SGID,SLID,DGID,DLID,HOPS */
static int kc_alt(char *s, struct sa_path_rec *p)
{
	char *f[5];
	u16 slid, dlid;
	u8 hops;
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = strsep(&s, ",");
		if (!f[i])
			return -EINVAL;
	}
	if (s || !in6_pton(f[0], -1, p->sgid.raw, -1, NULL) ||
	    !in6_pton(f[2], -1, p->dgid.raw, -1, NULL) ||
	    kstrtou16(f[1], 0, &slid) || kstrtou16(f[3], 0, &dlid) ||
	    kstrtou8(f[4], 0, &hops))
		return -EINVAL;
	p->ib.slid = cpu_to_be16(slid);
	p->ib.dlid = cpu_to_be16(dlid);
	p->hop_limit = hops;
	return 0;
}

static int kc_listen(char **argv, int argc)
{
	enum rdma_cm_ha_mode mode;
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	bool set;
	u16 port;
	int ret;

	if (argc != 4 || READ_ONCE(kc_listener) ||
	    kstrtou16(argv[2], 0, &port) ||
	    kc_addr(argv[1], &sin, port) || kc_mode(argv[3], &set, &mode))
		return -EINVAL;
	id = rdma_create_id(&init_net, kc_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = set ? rdma_set_ha_mode(id, mode) : 0;
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 8);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	WRITE_ONCE(kc_listener, id);
	kc_log("listening on %pI4:%u", &sin.sin_addr, port);
	return 0;
}

static int kc_connect(char **argv, int argc)
{
	struct sockaddr_in src, dst;
	enum rdma_cm_ha_mode mode;
	struct rdma_cm_id *id;
	struct kc_conn *c;
	bool set;
	u16 port;
	int ret;

	if ((argc != 5 && argc != 6) || kstrtou16(argv[3], 0, &port) ||
	    kc_addr(argv[1], &src, 0) || kc_addr(argv[2], &dst, port) ||
	    kc_mode(argv[4], &set, &mode))
		return -EINVAL;
	c = kc_conn_alloc(NULL, true);
	if (!c)
		return -ENOMEM;
	if (argc == 6) {
		ret = kc_alt(argv[5], &c->alt);
		if (ret)
			goto free;
		c->has_alt = true;
	}
	id = rdma_create_id(&init_net, kc_handler, c, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto free;
	}
	c->id = id;
	ret = set ? rdma_set_ha_mode(id, mode) : 0;
	if (ret) {
		rdma_destroy_id(id);
		goto free;
	}
	spin_lock(&kc_list_lock);
	c->num = atomic_fetch_inc(&kc_next);
	list_add_tail(&c->list, &kc_conns);
	spin_unlock(&kc_list_lock);
	kc_log("connecting id=%u to %pI4:%u", c->num, &dst.sin_addr, port);
	/* failures from here on reach the log; "stop" cleans up */
	ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&dst, 2000);
	if (ret)
		kc_log("resolve_addr ret=%d id=%u", ret, c->num);
	return 0;
free:
	c->id = NULL;
	kc_conn_free(c, false);
	return ret;
}

/* Context: kc_lock held */
static void kc_stop(void)
{
	struct rdma_cm_id *listener;
	struct kc_conn *c;
	unsigned int num;

	/* no new connection once it is gone */
	listener = xchg(&kc_listener, NULL);
	if (listener)
		rdma_destroy_id(listener);
	/*
	 * One at a time, each off the list before its ID is destroyed: a
	 * handler on DEVICE_REMOVAL that finds its connection off the list
	 * leaves it to us (kc_device_removal()).
	 */
	spin_lock(&kc_list_lock);
	while ((c = list_first_entry_or_null(&kc_conns, struct kc_conn, list))) {
		list_del_init(&c->list);
		spin_unlock(&kc_list_lock);
		num = c->num;
		kc_conn_free(c, true);
		kc_log("destroyed id=%u", num);
		spin_lock(&kc_list_lock);
	}
	spin_unlock(&kc_list_lock);
}

static ssize_t kc_ctl_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char *buf, *s, *argv[6];
	int argc = 0, ret;

	if (len > 512)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	s = strim(buf);
	while (s && argc < ARRAY_SIZE(argv)) {
		argv[argc] = strsep(&s, " ");
		if (*argv[argc])
			argc++;
	}
	ret = -EINVAL;
	if (s || !argc)
		goto out;

	mutex_lock(&kc_lock);
	if (!strcmp(argv[0], "listen")) {
		ret = kc_listen(argv, argc);
	} else if (!strcmp(argv[0], "connect")) {
		ret = kc_connect(argv, argc);
	} else if (!strcmp(argv[0], "stop") && argc == 1) {
		kc_stop();
		ret = 0;
	}
	mutex_unlock(&kc_lock);
out:
	kfree(buf);
	return ret ? ret : len;
}

static const struct file_operations kc_ctl_fops = {
	.owner = THIS_MODULE,
	.write = kc_ctl_write,
};

static int __init kc_init(void)
{
	kc_dir = debugfs_create_dir("rdma_cm_ha_test", NULL);
	debugfs_create_file("ctl", 0200, kc_dir, NULL, &kc_ctl_fops);
	return 0;
}

static void __exit kc_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	mutex_lock(&kc_lock);
	kc_stop();
	mutex_unlock(&kc_lock);
}

module_init(kc_init);
module_exit(kc_exit);
MODULE_DESCRIPTION("Kernel consumer of the RDMA CM HA modes, for tests");
MODULE_LICENSE("GPL");
