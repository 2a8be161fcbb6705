// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Decisions of IPoIB connected mode, as pure functions: the keepalive
 * state machine of one connection, and the choice between RC and UC
 * connections (RFC 4755).  The callers in ipoib_cm.c own the locking and
 * every side effect (posting probes, tearing connections down); the
 * functions here only look at the state they are given, so that
 * ipoib_cm_kunit.c can test them without a device.
 */

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/rbtree.h>
#include <kunit/visibility.h>
#include <rdma/ib_cm.h>

#include "ipoib.h"

/**
 * ipoib_cm_ka_init() - start the keepalive state of a new connection
 * @ka: keepalive state
 * @now: current time in jiffies
 *
 * A connection is alive when it is established: the first probe is due
 * one interval later.
 */
void ipoib_cm_ka_init(struct ipoib_cm_ka *ka, unsigned long now)
{
	WRITE_ONCE(ka->last_alive, now);
	ka->last_probe = now;
	ka->probe_epoch = now;
	ka->probes_sent = 0;
	ka->in_flight = false;
	ka->stopped = false;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_init);

/**
 * ipoib_cm_ka_alive() - record a sign of life from the peer
 * @ka: keepalive state
 * @now: current time in jiffies
 *
 * A sign of life is an acknowledged send on RC, a probe reply on UC, or
 * any message received on a receive-side connection.
 *
 * Context: any; the only field written is @ka->last_alive, with
 * WRITE_ONCE(), so the data path needs no lock.
 */
void ipoib_cm_ka_alive(struct ipoib_cm_ka *ka, unsigned long now)
{
	WRITE_ONCE(ka->last_alive, now);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_alive);

/**
 * ipoib_cm_ka_stop() - no further keepalive actions on a connection
 * @ka: keepalive state
 *
 * Called when the connection is torn down for any reason; a probe still
 * in flight may complete afterwards and is then ignored.
 */
void ipoib_cm_ka_stop(struct ipoib_cm_ka *ka)
{
	ka->stopped = true;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_stop);

static bool ipoib_cm_ka_silent_for(const struct ipoib_cm_ka *ka,
				   unsigned long now, unsigned long t)
{
	return time_after_eq(now, READ_ONCE(ka->last_alive) + t);
}

/**
 * ipoib_cm_ka_tick() - what a connection needs now
 * @ka: keepalive state
 * @cfg: keepalive parameters of the connection
 * @role: whether this end sends probes or only watches for traffic
 * @busy: sends other than a probe are outstanding on the connection
 *	  (RC: they will be acknowledged or fail, so they serve as a probe)
 * @now: current time in jiffies
 *
 * The peer is declared dead when it has been silent for @cfg->probes
 * intervals.  A sender probes once an interval of silence has passed,
 * and again every half interval while no answer comes: an idle healthy
 * connection costs one probe per interval, and a lossy one gets
 * 2 * (@cfg->probes - 1) probes answered or lost before its peer is
 * declared dead.
 * The function does not change @ka except to remember a death: the
 * caller posts the probe and then calls ipoib_cm_ka_probe_posted(), so a
 * probe that cannot be posted now is simply due again at the next tick.
 *
 * Return: %IPOIB_CM_KA_DEAD once (the caller tears the connection down),
 * %IPOIB_CM_KA_PROBE when a probe is due, else %IPOIB_CM_KA_NONE.
 */
enum ipoib_cm_ka_action ipoib_cm_ka_tick(struct ipoib_cm_ka *ka,
					 const struct ipoib_cm_ka_cfg *cfg,
					 enum ipoib_cm_ka_role role,
					 bool busy, unsigned long now)
{
	unsigned long alive;

	if (ka->stopped || !cfg->interval || !cfg->probes)
		return IPOIB_CM_KA_NONE;

	if (ipoib_cm_ka_silent_for(ka, now, cfg->interval * cfg->probes)) {
		ka->stopped = true;
		return IPOIB_CM_KA_DEAD;
	}

	if (role != IPOIB_CM_KA_SENDER || ka->in_flight || busy)
		return IPOIB_CM_KA_NONE;

	if (!ipoib_cm_ka_silent_for(ka, now, cfg->interval))
		return IPOIB_CM_KA_NONE;

	/*
	 * Silent for an interval: probe, unless a probe already went out
	 * during this silence less than half an interval ago.  The epoch
	 * check is an equality test, immune to jiffies wrap-around.
	 */
	alive = READ_ONCE(ka->last_alive);
	if (ka->probe_epoch == alive &&
	    time_before(now, ka->last_probe + cfg->interval / 2))
		return IPOIB_CM_KA_NONE;

	return IPOIB_CM_KA_PROBE;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_tick);

/**
 * ipoib_cm_ka_probe_posted() - a probe was posted
 * @ka: keepalive state
 * @now: current time in jiffies
 */
void ipoib_cm_ka_probe_posted(struct ipoib_cm_ka *ka, unsigned long now)
{
	ka->last_probe = now;
	ka->probe_epoch = READ_ONCE(ka->last_alive);
	ka->probes_sent++;
	ka->in_flight = true;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_probe_posted);

/**
 * ipoib_cm_ka_probe_done() - the send completion of a probe
 * @ka: keepalive state
 * @status: the completion status
 * @reliable: the connection is RC, whose completions mean the peer
 *	      acknowledged the probe
 * @now: current time in jiffies
 *
 * A successful RC completion is a sign of life; a UC completion is not
 * (the answer to a UC probe is the peer's reply).  A transport retry
 * error means the peer did not acknowledge the probe even after the
 * retries of the QP: it is dead.  Any other error also ends the
 * connection (the QP is in the error state), but says nothing about the
 * peer - a receiver-not-ready NAK, for one, comes from a live peer.
 *
 * Return: %IPOIB_CM_KA_DEAD when the peer is dead, else %IPOIB_CM_KA_NONE.
 */
enum ipoib_cm_ka_action ipoib_cm_ka_probe_done(struct ipoib_cm_ka *ka,
					       enum ib_wc_status status,
					       bool reliable, unsigned long now)
{
	ka->in_flight = false;

	if (ka->stopped)
		return IPOIB_CM_KA_NONE;

	switch (status) {
	case IB_WC_SUCCESS:
		if (reliable)
			ipoib_cm_ka_alive(ka, now);
		return IPOIB_CM_KA_NONE;
	case IB_WC_RETRY_EXC_ERR:
		ka->stopped = true;
		return IPOIB_CM_KA_DEAD;
	default:
		ka->stopped = true;
		return IPOIB_CM_KA_NONE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_probe_done);

/**
 * ipoib_cm_ka_next() - when a connection needs its next tick
 * @ka: keepalive state
 * @cfg: keepalive parameters of the connection
 * @role: whether this end sends probes
 *
 * Return: the jiffies at which ipoib_cm_ka_tick() may next return
 * something other than %IPOIB_CM_KA_NONE (a time in the past when that
 * is already the case).
 */
unsigned long ipoib_cm_ka_next(const struct ipoib_cm_ka *ka,
			       const struct ipoib_cm_ka_cfg *cfg,
			       enum ipoib_cm_ka_role role)
{
	unsigned long alive = READ_ONCE(ka->last_alive);
	unsigned long dead = alive + cfg->interval * cfg->probes;
	unsigned long probe;

	if (role != IPOIB_CM_KA_SENDER || ka->in_flight)
		return dead;

	probe = alive + cfg->interval;
	if (ka->probe_epoch == alive &&
	    time_after(ka->last_probe + cfg->interval / 2, probe))
		probe = ka->last_probe + cfg->interval / 2;

	return time_before(probe, dead) ? probe : dead;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_next);

/**
 * ipoib_cm_ka_due_init() - a connection not in a due queue yet
 * @ka: keepalive state of the connection
 */
void ipoib_cm_ka_due_init(struct ipoib_cm_ka *ka)
{
	RB_CLEAR_NODE(&ka->due_node);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_due_init);

/**
 * ipoib_cm_ka_due_queued() - whether a connection is in a due queue
 * @ka: keepalive state of the connection
 *
 * Return: true if it is
 */
bool ipoib_cm_ka_due_queued(const struct ipoib_cm_ka *ka)
{
	return !RB_EMPTY_NODE(&ka->due_node);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_due_queued);

static bool ipoib_cm_ka_due_less(struct rb_node *a, const struct rb_node *b)
{
	return time_before(rb_entry(a, struct ipoib_cm_ka, due_node)->due,
			   rb_entry(b, struct ipoib_cm_ka, due_node)->due);
}

/**
 * ipoib_cm_ka_due_add() - (re)queue a connection for the keepalive task
 * @root: the due queue of its side
 * @ka: keepalive state of the connection
 * @due: when the task is to look at it (jiffies)
 *
 * The keepalive task looks only at the connections that are due, so that
 * a run costs what it has to do, not the number of connections.  Signs of
 * life do not touch the queue: when the task finds a connection that was
 * alive meanwhile, it queues it again for its new deadline.
 *
 * Context: the lock of @root held (priv->lock).
 */
void ipoib_cm_ka_due_add(struct rb_root_cached *root, struct ipoib_cm_ka *ka,
			 unsigned long due)
{
	ipoib_cm_ka_due_del(root, ka);
	ka->due = due;
	rb_add_cached(&ka->due_node, root, ipoib_cm_ka_due_less);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_due_add);

/**
 * ipoib_cm_ka_due_del() - take a connection out of its due queue
 * @root: the due queue of its side
 * @ka: keepalive state of the connection; may be in no queue
 *
 * Context: the lock of @root held (priv->lock).
 */
void ipoib_cm_ka_due_del(struct rb_root_cached *root, struct ipoib_cm_ka *ka)
{
	if (RB_EMPTY_NODE(&ka->due_node))
		return;
	rb_erase_cached(&ka->due_node, root);
	RB_CLEAR_NODE(&ka->due_node);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_due_del);

/**
 * ipoib_cm_ka_due_pop() - the next connection due, out of its queue
 * @root: a due queue
 * @now: current time in jiffies
 *
 * Context: the lock of @root held (priv->lock).
 * Return: the connection due first if it is due at @now (taken out of
 * the queue), else NULL
 */
struct ipoib_cm_ka *ipoib_cm_ka_due_pop(struct rb_root_cached *root,
					unsigned long now)
{
	struct rb_node *first = rb_first_cached(root);
	struct ipoib_cm_ka *ka;

	if (!first)
		return NULL;
	ka = rb_entry(first, struct ipoib_cm_ka, due_node);
	if (time_after(ka->due, now))
		return NULL;
	ipoib_cm_ka_due_del(root, ka);
	return ka;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_due_pop);

/**
 * ipoib_cm_ka_due_first() - when the first connection of a queue is due
 * @root: a due queue
 * @due: set to that time if the queue is not empty
 *
 * Context: the lock of @root held (priv->lock).
 * Return: false if the queue is empty
 */
bool ipoib_cm_ka_due_first(const struct rb_root_cached *root,
			   unsigned long *due)
{
	struct rb_node *first = rb_first_cached(root);

	if (!first)
		return false;
	*due = rb_entry(first, struct ipoib_cm_ka, due_node)->due;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_due_first);

/**
 * ipoib_cm_ka_retry_cnt() - the transport retry count of an RC connection
 * @timeout: the local ACK timeout of the QP (4.096 us * 2^@timeout; 0
 *	     means infinite)
 * @bound_ms: keepalive bound (interval x probes), 0 when keepalives are
 *	      off
 *
 * Without keepalives the driver keeps its historical retry count of 0.
 * With them, a packet lost or delayed should be retransmitted rather
 * than end the connection; keepalives already bound the time a dead peer
 * goes unnoticed, so the retries only have to end within that bound.
 *
 * Return: the largest n in 0..7 with (n + 1) ACK timeouts within the
 * bound.
 */
u8 ipoib_cm_ka_retry_cnt(u8 timeout, unsigned int bound_ms)
{
	u64 acks;

	if (!bound_ms || !timeout || timeout > 31)
		return 0;

	acks = div64_u64((u64)bound_ms * NSEC_PER_MSEC, 4096ULL << timeout);
	return acks ? min_t(u64, acks, 8) - 1 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_retry_cnt);

/**
 * ipoib_cm_ka_fit() - make the keepalive bound of an RC connection hold
 * @cfg: keepalive parameters of the connection (interval in jiffies)
 * @timeout: the local ACK timeout of its QP (4.096 us * 2^@timeout; 0
 *	     means infinite)
 *
 * A busy RC connection hears nothing from its peer while the transport
 * waits an ACK timeout to retransmit a lost packet: a bound (interval x
 * probes) shorter than that declares a healthy peer dead at the first
 * packet lost, and one that holds only one retransmission at the first
 * retransmission lost too (go-back-N resends a whole window).  The bound
 * must hold %IPOIB_CM_KA_FIT_ACKS ACK timeouts, so that the transport
 * retries at least %IPOIB_CM_KA_FIT_ACKS - 1 times within it
 * (ipoib_cm_ka_retry_cnt()).  A shorter interval is raised to that (at
 * most to %IPOIB_CM_KA_INTERVAL_MAX_MS); the interface's setting is what
 * a connection gets when its path allows it.
 *
 * Return: true if @cfg->interval was raised.
 */
bool ipoib_cm_ka_fit(struct ipoib_cm_ka_cfg *cfg, u8 timeout)
{
	unsigned long interval;
	u64 min_ms;

	if (!cfg->interval || !cfg->probes || !timeout || timeout > 31)
		return false;

	min_ms = DIV_ROUND_UP_ULL(IPOIB_CM_KA_FIT_ACKS * (4096ULL << timeout),
				  NSEC_PER_MSEC);
	min_ms = DIV_ROUND_UP_ULL(min_ms, cfg->probes);
	interval = msecs_to_jiffies(min_t(u64, min_ms,
					  IPOIB_CM_KA_INTERVAL_MAX_MS));
	if (cfg->interval >= interval)
		return false;

	cfg->interval = interval;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ka_fit);

/**
 * ipoib_cm_hw_flags() - the connected-mode flags an interface advertises
 * @policy: the interface's QP type policy
 * @uc_capable: the device can create the QPs of UC connections
 *
 * The first octet of the IPoIB hardware address (RFC 4755 3.1) says which
 * connected modes the interface accepts.  With UC allowed by the policy
 * and possible on the device it accepts both.
 *
 * Return: %IPOIB_FLAGS_RC, possibly or-ed with %IPOIB_FLAGS_UC
 */
u8 ipoib_cm_hw_flags(enum ipoib_cm_qp_policy policy, bool uc_capable)
{
	return policy == IPOIB_CM_POLICY_RC || !uc_capable ?
	       IPOIB_FLAGS_RC : IPOIB_FLAGS_RC | IPOIB_FLAGS_UC;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_hw_flags);

/**
 * ipoib_cm_choose_qp_type() - the transport of a new send-side connection
 * @policy: the local QP type policy
 * @peer_flags: the first octet of the peer's hardware address
 * @peer: what earlier connections taught us about the peer
 * @keepalive: keepalives are enabled locally (UC needs them)
 *
 * rc: RC only, as the driver always did.  auto: RC when the peer accepts
 * it, UC when UC is the only connected mode both ends accept.  uc: UC
 * when the peer accepts it, else RC.  UC is never chosen without
 * keepalives, nor towards a peer that refused a UC connection or
 * answered one without the keepalive capability.
 *
 * Return: %IB_QPT_RC or %IB_QPT_UC, or %IB_QPT_MAX when no connected mode
 * is possible (the peer is reached in datagram mode).
 */
enum ib_qp_type ipoib_cm_choose_qp_type(enum ipoib_cm_qp_policy policy,
					u8 peer_flags,
					enum ipoib_cm_peer_uc peer,
					bool keepalive)
{
	bool rc = peer_flags & IPOIB_FLAGS_RC;
	bool uc = (peer_flags & IPOIB_FLAGS_UC) && keepalive &&
		  peer != IPOIB_CM_PEER_UC_REFUSED &&
		  policy != IPOIB_CM_POLICY_RC;

	switch (policy) {
	case IPOIB_CM_POLICY_UC:
		if (uc)
			return IB_QPT_UC;
		break;
	case IPOIB_CM_POLICY_AUTO:
		if (!rc && uc)
			return IB_QPT_UC;
		break;
	default:
		break;
	}

	return rc ? IB_QPT_RC : IB_QPT_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_choose_qp_type);

/**
 * ipoib_cm_uc_failed() - whether a UC connection attempt failed
 * @event: the CM event that ends the send-side connection
 * @established: the connection was established (it carried traffic)
 *
 * UC is optional on both ends, and nothing tells why an attempt failed: a
 * peer without UC may reject with any reason (RFC 4755 names none), a
 * passive side that cannot create its QP rejects as the consumer (reason
 * 28) or not at all, a REP may be unusable.  Every end of an attempt
 * before it was established is a failure, and the next connection to the
 * peer uses RC (so is a local failure to create the UC QP or send the
 * REQ).  The end of an established connection says nothing about UC.
 *
 * Return: true to fall back to RC for this peer
 */
bool ipoib_cm_uc_failed(enum ib_cm_event_type event, bool established)
{
	if (established)
		return false;

	switch (event) {
	case IB_CM_REQ_ERROR:
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_uc_failed);

/**
 * ipoib_cm_write_check_done() - what the answer to the write check of an RC
 *				 connection decides
 * @status: the completion status of the zero-length RDMA WRITE that the
 *	    connection sent before any data (its peer does not advertise
 *	    the keepalive capability, and RFC 4755 does not ask it to grant
 *	    remote write)
 * @live: the connection is still set up (not torn down while the write
 *	  was outstanding)
 *
 * Acknowledged: the peer may be probed by RDMA WRITE; the connection
 * comes up and sends what waited for it.  Refused with a NAK (remote
 * access, invalid request or operation error): the peer is never probed;
 * the QP is in the error state, so the connection is torn down, and what
 * waited goes to the next connection, which carries data at once.  Any
 * other error (no answer within the transport's retries, a flush) says
 * nothing about the peer: the connection fails, as it would have with
 * its first packet, what waited goes with it, and the next connection
 * tries again.  A connection torn down meanwhile is left alone, but what
 * its peer answered is still learned.
 *
 * Return: the decision
 */
struct ipoib_cm_write_check ipoib_cm_write_check_done(enum ib_wc_status status,
						      bool live)
{
	struct ipoib_cm_write_check res = {
		.peer = IPOIB_CM_PEER_WRITE_UNKNOWN,
	};

	switch (status) {
	case IB_WC_SUCCESS:
		res.peer = IPOIB_CM_PEER_WRITE_OK;
		break;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
		res.peer = IPOIB_CM_PEER_WRITE_REFUSED;
		break;
	default:
		break;
	}
	if (!live)
		return res;

	res.up = res.peer == IPOIB_CM_PEER_WRITE_OK;
	res.teardown = !res.up;
	res.requeue = res.peer != IPOIB_CM_PEER_WRITE_UNKNOWN;
	return res;
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_write_check_done);

/**
 * ipoib_cm_accept_qp_type() - whether the passive side takes a REQ
 * @policy: the local QP type policy
 * @qp_type: the transport the REQ asks for
 * @ext: the private data extension of the REQ (all zero from peers that
 *	 do not know it)
 *
 * RC is always accepted, as before; UC whenever the policy allows it.
 * A peer that follows RFC 4755 alone (no extension) or does not probe is
 * served too: the receive side of its connection is not watched, and is
 * reaped by the stale-connection task when it falls silent, as on RC
 * from such a peer.  (This host's own UC requests always carry
 * keepalives: its send side needs an answering peer, see
 * ipoib_cm_rep_handler().)
 *
 * Return: true to accept the connection
 */
bool ipoib_cm_accept_qp_type(enum ipoib_cm_qp_policy policy,
			     enum ib_qp_type qp_type,
			     const struct ipoib_cm_ext *ext)
{
	switch (qp_type) {
	case IB_QPT_RC:
		return true;
	case IB_QPT_UC:
		return policy != IPOIB_CM_POLICY_RC;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_accept_qp_type);

/**
 * ipoib_cm_ext_parse() - read the private data extension of a REQ or REP
 * @data: the private data, at least sizeof(*data) bytes
 * @ext: the extension read; all zero when the peer did not send one
 *
 * RFC 4755 defines the first 8 octets (UD QPN and receive MTU).  The
 * extension follows them, after a magic number, in octets that a peer
 * not knowing it leaves zero (the CM pads private data with zeros) and
 * ignores.  Keepalive parameters out of range are zeroed (no watching),
 * so that a peer cannot make the receive side watch with a bound of zero.
 */
void ipoib_cm_ext_parse(const struct ipoib_cm_data *data,
			struct ipoib_cm_ext *ext)
{
	memset(ext, 0, sizeof(*ext));
	if (be16_to_cpu(data->ext_magic) != IPOIB_CM_EXT_MAGIC)
		return;

	ext->caps = data->caps;
	ext->ka_interval_ms = be32_to_cpu(data->ka_interval_ms);
	ext->ka_probes = data->ka_probes;
	if (ext->ka_interval_ms &&
	    (ext->ka_interval_ms < IPOIB_CM_KA_INTERVAL_MIN_MS ||
	     ext->ka_interval_ms > IPOIB_CM_KA_INTERVAL_MAX_MS ||
	     ext->ka_probes < 2)) {
		ext->ka_interval_ms = 0;
		ext->ka_probes = 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ext_parse);

/**
 * ipoib_cm_ext_fill() - write the private data extension
 * @data: the private data
 * @ext: what to advertise
 */
void ipoib_cm_ext_fill(struct ipoib_cm_data *data,
		       const struct ipoib_cm_ext *ext)
{
	data->ext_magic = cpu_to_be16(IPOIB_CM_EXT_MAGIC);
	data->caps = ext->caps;
	data->ka_probes = ext->ka_probes;
	data->ka_interval_ms = cpu_to_be32(ext->ka_interval_ms);
}
EXPORT_SYMBOL_IF_KUNIT(ipoib_cm_ext_fill);
