// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * High-availability policy of the RDMA CM.
 *
 * Every rdma_cm_id has an HA mode (enum rdma_cm_ha_mode) that says what the
 * CM does when the bonding device the ID is bound to fails over, or when the
 * port under the ID goes down. This unit holds the policy: a pure decision
 * function of (mode, event, ID state, path state) plus the helpers that
 * observe the ID and the network stack to build those inputs. cma.c calls
 * them from its notifiers and carries out the resulting action.
 *
 * See Documentation/infiniband/rdma_cm_ha.rst.
 */

#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <net/bonding.h>
#include <kunit/visibility.h>

#include <rdma/rdma_cm.h>
#include <rdma/ib_cache.h>
#include <rdma/lag.h>

#include "cma_priv.h"

/*
 * The names of the modes, for configfs, the tracepoints and the tests.
 * Every value from 0 to the last one is a mode (cma_ha_mode_valid()).
 */
static const char * const cma_ha_mode_names[] = {
	[RDMA_CM_HA_MODE_NOTIFY] = "notify",
	[RDMA_CM_HA_MODE_IGNORE] = "ignore",
	[RDMA_CM_HA_MODE_ALIGN] = "align",
	[RDMA_CM_HA_MODE_FAIL_FAST] = "fail-fast",
	[RDMA_CM_HA_MODE_MIGRATE] = "migrate",
	[RDMA_CM_HA_MODE_REPORT] = "report",
};

/**
 * cma_ha_mode_valid() - Check an HA mode value
 * @mode: value from a kernel or userspace caller
 *
 * Return: true if @mode is a known enum rdma_cm_ha_mode value.
 */
bool cma_ha_mode_valid(unsigned int mode)
{
	return mode < ARRAY_SIZE(cma_ha_mode_names);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_mode_valid);

/**
 * cma_ha_mode_name() - The name of an HA mode
 * @mode: an enum rdma_cm_ha_mode value
 *
 * Return: the name that the configfs default_ha_mode attribute and the
 * tracepoints use ("notify", "ignore", "align", "fail-fast", "migrate",
 * "report"), or NULL if @mode is not a known mode.
 */
const char *cma_ha_mode_name(unsigned int mode)
{
	if (mode >= ARRAY_SIZE(cma_ha_mode_names))
		return NULL;
	return cma_ha_mode_names[mode];
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_mode_name);

/**
 * cma_ha_mode_parse() - Parse the name of an HA mode
 * @buf: a name as cma_ha_mode_name() returns it, NUL-terminated; one
 *	trailing newline is ignored
 *
 * Return: the enum rdma_cm_ha_mode value, or -EINVAL if @buf names no mode.
 */
int cma_ha_mode_parse(const char *buf)
{
	return sysfs_match_string(cma_ha_mode_names, buf);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_mode_parse);

/**
 * cma_ha_mode_fits() - Check that an HA mode applies to an ID's QP type
 * @mode: a valid enum rdma_cm_ha_mode value
 * @qp_type: the QP type of the ID
 *
 * Align, fail-fast and migrate tear connections down or move them: they
 * apply to IDs of connected QP types (RC, UC, XRC) only. Notify, ignore
 * and report, which tear nothing down, apply to every ID.
 *
 * Return: true if @mode applies to IDs of @qp_type.
 */
bool cma_ha_mode_fits(enum rdma_cm_ha_mode mode, enum ib_qp_type qp_type)
{
	if (mode == RDMA_CM_HA_MODE_NOTIFY || mode == RDMA_CM_HA_MODE_IGNORE ||
	    mode == RDMA_CM_HA_MODE_REPORT)
		return true;

	switch (qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_mode_fits);

/**
 * cma_ha_default_mode() - The mode an ID takes from its port's default
 * @port_default: the default HA mode of the ID's port (configfs
 *	default_ha_mode)
 * @qp_type: the QP type of the ID
 *
 * An ID whose consumer chose no mode takes its port's default when it
 * acquires its device. A default that does not apply to the ID's QP type
 * (align, fail-fast or migrate for a UD ID) leaves it in notify mode, as
 * rdma_set_ha_mode() would have refused it.
 *
 * Return: the mode the ID takes.
 */
enum rdma_cm_ha_mode cma_ha_default_mode(enum rdma_cm_ha_mode port_default,
					 enum ib_qp_type qp_type)
{
	if (!cma_ha_mode_valid(port_default) ||
	    !cma_ha_mode_fits(port_default, qp_type))
		return RDMA_CM_HA_MODE_NOTIFY;
	return port_default;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_default_mode);

/**
 * cma_ha_mode() - The HA mode that applies to an ID
 * @id_priv: the ID
 *
 * The per-device listeners that rdma_listen() creates for a wildcard
 * listener, and the ones created when a bound listener follows a failover,
 * always apply the mode of the listener they serve, even when it changes
 * after they were created.
 *
 * Context: Any context.
 * Return: the mode.
 */
enum rdma_cm_ha_mode cma_ha_mode(const struct rdma_id_private *id_priv)
{
	if (id_priv->internal_id)
		id_priv = id_priv->id.context;
	return READ_ONCE(id_priv->ha_mode);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_mode);

/**
 * cma_ha_id_state() - Classify an ID state for the HA policy
 * @state: the ID's RDMA CM state
 * @established: for RDMA_CM_CONNECT, whether the connection is established
 *
 * Return: the class of @state.
 */
enum cma_ha_id_state cma_ha_id_state(enum rdma_cm_state state,
				     bool established)
{
	switch (state) {
	case RDMA_CM_ADDR_BOUND:
		return CMA_HA_ID_BOUND;
	case RDMA_CM_ADDR_QUERY:
	case RDMA_CM_ROUTE_QUERY:
		return CMA_HA_ID_RESOLVING;
	case RDMA_CM_ADDR_RESOLVED:
	case RDMA_CM_ROUTE_RESOLVED:
		return CMA_HA_ID_RESOLVED;
	case RDMA_CM_CONNECT:
		return established ? CMA_HA_ID_CONNECTED : CMA_HA_ID_CONNECTING;
	case RDMA_CM_LISTEN:
		return CMA_HA_ID_LISTENING;
	case RDMA_CM_DISCONNECT:
	case RDMA_CM_DEVICE_REMOVAL:
	case RDMA_CM_DESTROYING:
		return CMA_HA_ID_CLOSING;
	case RDMA_CM_IDLE:
	default:
		return CMA_HA_ID_IDLE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_id_state);

/* Take the ID down because it no longer matches the IP stack or is dead */
static enum cma_ha_action cma_ha_teardown(enum cma_ha_event event,
					  enum cma_ha_id_state state)
{
	switch (state) {
	case CMA_HA_ID_CONNECTED:
		return CMA_HA_ACT_DISCONNECT;
	case CMA_HA_ID_CONNECTING:
	case CMA_HA_ID_RESOLVED:
		return CMA_HA_ACT_FAIL_CONNECT;
	case CMA_HA_ID_BOUND:
	case CMA_HA_ID_RESOLVING:
		/* Nothing to tear down yet: tell the consumer on failover */
		return event == CMA_HA_EV_BOND_FAILOVER ? CMA_HA_ACT_NOTIFY :
							  CMA_HA_ACT_NONE;
	default:
		return CMA_HA_ACT_NONE;
	}
}

static enum cma_ha_action cma_ha_align(enum cma_ha_event event,
				       enum cma_ha_id_state state,
				       unsigned int path)
{
	if (event != CMA_HA_EV_BOND_FAILOVER || !(path & CMA_HA_PATH_MISALIGNED))
		return CMA_HA_ACT_NONE;
	if (state == CMA_HA_ID_LISTENING)
		return CMA_HA_ACT_RELISTEN;
	return cma_ha_teardown(event, state);
}

/*
 * A neighbour of the ID's destination changed its hardware address. The CM
 * has always sent RDMA_CM_EVENT_UNREACHABLE (-ETIMEDOUT) to the active-side
 * RoCE IDs of that neighbour, whatever their state; CMA_HA_ACT_NOTIFY
 * stands for that event here.
 */
static enum cma_ha_action cma_ha_neigh_update(enum rdma_cm_ha_mode mode,
					      unsigned int path)
{
	switch (mode) {
	case RDMA_CM_HA_MODE_IGNORE:
		return CMA_HA_ACT_NONE;
	case RDMA_CM_HA_MODE_FAIL_FAST:
		/* The peer's new address says nothing about this path */
		return path & CMA_HA_PATH_DEAD ? CMA_HA_ACT_NOTIFY :
						 CMA_HA_ACT_NONE;
	default:
		/*
		 * notify and report as always (report only adds its own
		 * ADDR_CHANGE); align and migrate follow the IP stack
		 */
		return CMA_HA_ACT_NOTIFY;
	}
}

/**
 * cma_ha_decide() - Decide what the CM does for one ID
 * @mode: the ID's HA mode
 * @event: what happened
 * @state: the ID's state, see cma_ha_id_state()
 * @path: the ID's path state, a mask of CMA_HA_PATH_* bits
 *
 * A pure function: the table in Documentation/infiniband/rdma_cm_ha.rst
 * and the KUnit cases in cma_ha_kunit.c describe it.
 *
 * - notify: RDMA_CM_EVENT_ADDR_CHANGE on failover when the bond's hardware
 *   address changed, the behaviour of the CM before HA modes existed.
 * - ignore: nothing.
 * - align: on failover, when the IP stack no longer uses the ID's port,
 *   disconnect a connected ID, fail a connecting or resolved ID, make a
 *   listener listen on the new port, and notify any other bound ID.
 * - fail-fast: as align, but only when the ID's own path is dead, on
 *   failover and on port-down; a healthy path is kept. A listener bound
 *   to the bond is extended as in align.
 * - migrate: on failover or port-down, move a connected ID that has an
 *   armed alternate path on an ACTIVE port to it; otherwise as align.
 *   When the port the connection left is ACTIVE again, arm the path it
 *   left as the new alternate one (rearm).
 * - report: on failover, on port-down when the path is dead, and on
 *   port-up when the path is alive, tell the consumer the state of the
 *   ID's path (cma_ha_report_status() says whether it changed); tear
 *   nothing down. A listener bound to the bond is extended as in align.
 *   No other mode acts on a port coming back.
 *
 * On a neighbour update, notify means the CM's UNREACHABLE (-ETIMEDOUT):
 * in every state for notify, report, align and migrate, as before HA
 * modes; for fail-fast only when the ID's own path is dead; never for
 * ignore.
 *
 * Return: the action.
 */
enum cma_ha_action cma_ha_decide(enum rdma_cm_ha_mode mode,
				 enum cma_ha_event event,
				 enum cma_ha_id_state state, unsigned int path)
{
	if (event == CMA_HA_EV_NEIGH_UPDATE)
		return cma_ha_neigh_update(mode, path);
	if (event == CMA_HA_EV_PORT_ACTIVE && mode == RDMA_CM_HA_MODE_MIGRATE)
		return state == CMA_HA_ID_CONNECTED &&
		       (path & CMA_HA_PATH_REARM) ?
			CMA_HA_ACT_REARM : CMA_HA_ACT_NONE;
	if (event == CMA_HA_EV_PORT_ACTIVE &&
	    (mode != RDMA_CM_HA_MODE_REPORT || state == CMA_HA_ID_LISTENING))
		return CMA_HA_ACT_NONE;

	/* Exactly what the CM did before HA modes existed, in any state */
	if (mode == RDMA_CM_HA_MODE_NOTIFY)
		return event == CMA_HA_EV_BOND_FAILOVER &&
		       (path & CMA_HA_PATH_MAC_CHANGED) ?
			CMA_HA_ACT_NOTIFY : CMA_HA_ACT_NONE;

	if (state == CMA_HA_ID_IDLE || state == CMA_HA_ID_CLOSING)
		return CMA_HA_ACT_NONE;

	switch (mode) {
	case RDMA_CM_HA_MODE_ALIGN:
		return cma_ha_align(event, state, path);
	case RDMA_CM_HA_MODE_FAIL_FAST:
		/* A listener follows the bond: extending it tears nothing down */
		if (state == CMA_HA_ID_LISTENING)
			return cma_ha_align(event, state, path);
		/*
		 * Dead only by a port that went down within the hold-off:
		 * the port event judges it when the hold-off is over, as it
		 * judges a flap with no failover in it
		 */
		if (!(path & CMA_HA_PATH_DEAD) ||
		    (path & CMA_HA_PATH_PORT_HELD))
			return CMA_HA_ACT_NONE;
		return cma_ha_teardown(event, state);
	case RDMA_CM_HA_MODE_MIGRATE:
		if (state == CMA_HA_ID_CONNECTED &&
		    (path & CMA_HA_PATH_CAN_MIGRATE) &&
		    (path & (CMA_HA_PATH_MISALIGNED | CMA_HA_PATH_DEAD)))
			return CMA_HA_ACT_MIGRATE;
		return cma_ha_align(event, state, path);
	case RDMA_CM_HA_MODE_REPORT:
		if (state == CMA_HA_ID_LISTENING)
			return cma_ha_align(event, state, path);
		/* A port event tells whether the path died or came back */
		if (event == CMA_HA_EV_PORT_ERR && !(path & CMA_HA_PATH_DEAD))
			return CMA_HA_ACT_NONE;
		if (event == CMA_HA_EV_PORT_ACTIVE && (path & CMA_HA_PATH_DEAD))
			return CMA_HA_ACT_NONE;
		return CMA_HA_ACT_REPORT;
	case RDMA_CM_HA_MODE_IGNORE:
	default:
		return CMA_HA_ACT_NONE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_decide);

/**
 * cma_ha_path_status() - The state of a path as the consumer sees it
 * @path: a mask of CMA_HA_PATH_* bits
 *
 * A dead path is dead whether or not the IP stack still uses its port.
 *
 * Return: the enum rdma_cm_ha_path_status value of @path.
 */
enum rdma_cm_ha_path_status cma_ha_path_status(unsigned int path)
{
	if (path & CMA_HA_PATH_DEAD)
		return RDMA_CM_HA_PATH_DEAD;
	if (path & CMA_HA_PATH_MISALIGNED)
		return RDMA_CM_HA_PATH_MISALIGNED;
	return RDMA_CM_HA_PATH_ALIGNED;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_path_status);

/**
 * cma_ha_addr_change_status() - Status of an RDMA_CM_EVENT_ADDR_CHANGE
 * @mode: the ID's HA mode
 * @path: the ID's path state, a mask of CMA_HA_PATH_* bits
 *
 * Notify mode's ADDR_CHANGE is the CM's event from before HA modes, with
 * status 0: the bond's hardware address changed. Every other mode judged
 * the ID's path and says what it found, also when a teardown follows (the
 * DISCONNECTED or UNREACHABLE after it says that the CM tore the ID down;
 * migrate sends none when it moved the QP).
 *
 * Return: 0 for notify, else the enum rdma_cm_ha_path_status of @path.
 */
int cma_ha_addr_change_status(enum rdma_cm_ha_mode mode, unsigned int path)
{
	if (mode == RDMA_CM_HA_MODE_NOTIFY)
		return 0;
	return cma_ha_path_status(path);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_addr_change_status);

/**
 * cma_ha_report_status() - What report mode tells the consumer of an ID
 * @event: what happened
 * @path: the ID's path state, a mask of CMA_HA_PATH_* bits
 * @reported: the last status reported to the ID, 0 if none yet
 *
 * The consumer hears of its path when its state changed for the ID: an ID
 * starts on the path the IP stack chose (aligned). A failover judges the
 * whole path; a port going down says only that the path is dead, nothing
 * about the bond, and a port that is active again by the time the CM
 * looks says nothing at all. A port that comes back after its path was
 * reported dead makes the path alive again, aligned or not, judged with
 * the bond as it is then (cma_ha_failover_path()).
 *
 * Return: the enum rdma_cm_ha_path_status value to report in
 * RDMA_CM_EVENT_ADDR_CHANGE, or 0 if nothing changed for the ID.
 */
unsigned int cma_ha_report_status(enum cma_ha_event event, unsigned int path,
				  unsigned int reported)
{
	unsigned int status;

	switch (event) {
	case CMA_HA_EV_BOND_FAILOVER:
		status = cma_ha_path_status(path);
		break;
	case CMA_HA_EV_PORT_ERR:
		if (!(path & CMA_HA_PATH_DEAD))
			return 0;
		status = RDMA_CM_HA_PATH_DEAD;
		break;
	case CMA_HA_EV_PORT_ACTIVE:
		if ((path & CMA_HA_PATH_DEAD) || reported != RDMA_CM_HA_PATH_DEAD)
			return 0;
		status = cma_ha_path_status(path);
		break;
	default:
		return 0;
	}
	if (status == (reported ?: RDMA_CM_HA_PATH_ALIGNED))
		return 0;
	return status;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_report_status);

/**
 * cma_ha_teardown_status() - Status of the DISCONNECTED or UNREACHABLE event
 * @mode: the ID's HA mode
 *
 * Return: -ENETDOWN when fail-fast tore the ID down (its path is dead),
 * -ENETUNREACH otherwise (the path no longer matches the IP stack).
 */
int cma_ha_teardown_status(enum rdma_cm_ha_mode mode)
{
	return mode == RDMA_CM_HA_MODE_FAIL_FAST ? -ENETDOWN : -ENETUNREACH;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_teardown_status);

/**
 * cma_ha_current_state() - Classify the current state of an ID
 * @id_priv: the ID
 *
 * A connecting ID is established once the CM delivered
 * RDMA_CM_EVENT_ESTABLISHED, or sent the RTU for a userspace consumer's
 * rdma_accept() on the active side, on any transport: the CM's own record,
 * not the state of the IB CM's or the iWARP CM's ID, which their own locks
 * protect.
 *
 * Context: Caller holds @id_priv->handler_mutex.
 * Return: the class of the ID's state.
 */
enum cma_ha_id_state cma_ha_current_state(struct rdma_id_private *id_priv)
{
	lockdep_assert_held(&id_priv->handler_mutex);

	return cma_ha_id_state(READ_ONCE(id_priv->state),
			       id_priv->ha_established);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_current_state);

/**
 * cma_ha_port_is_active() - Check whether a port carries a bond's traffic
 * @device: RDMA device
 * @port: port number
 * @active: the bond's active slave
 *
 * RoCE: @port's netdevice is @active. InfiniBand: @active is an IPoIB
 * interface whose hardware address holds a GID of @port (bonding enslaves
 * the IPoIB interfaces, not the ports' netdevices).
 *
 * Context: Any context that may sleep.
 * Return: true if the IP stack sends through @port of @device when @active
 * is the active slave.
 */
bool cma_ha_port_is_active(struct ib_device *device, u32 port,
			   struct net_device *active)
{
	const struct ib_gid_attr *attr;
	struct net_device *port_ndev;
	union ib_gid gid;
	bool ret;

	if (rdma_protocol_ib(device, port)) {
		if (active->type != ARPHRD_INFINIBAND ||
		    active->addr_len != INFINIBAND_ALEN)
			return false;
		memcpy(&gid, active->dev_addr + 4, sizeof(gid));
		attr = rdma_find_gid_by_port(device, &gid, IB_GID_TYPE_IB,
					     port, NULL);
		if (IS_ERR(attr))
			return false;
		rdma_put_gid_attr(attr);
		return true;
	}
	if (!rdma_protocol_roce(device, port))
		return false;
	port_ndev = ib_device_get_netdev(device, port);
	ret = port_ndev == active;
	dev_put(port_ndev);
	return ret;
}

/*
 * Whether bonding is releasing @ndev from its bond right now: a slave that
 * no longer has its master but still has IFF_BONDING. __bond_release_one()
 * unlinks the slave from the bond (and clears IFF_SLAVE) before it selects
 * the new active slave and raises the failover, and clears IFF_BONDING only
 * after that, so during the failover of a release this is the slave
 * released, and under RTNL it can only be one of the bond failing over.
 */
static bool cma_ha_ndev_released(struct net_device *ndev)
{
	return (ndev->priv_flags & IFF_BONDING) &&
	       !(ndev->flags & (IFF_MASTER | IFF_SLAVE));
}

/**
 * cma_ha_dev_unrelated() - Check whether a bond can carry a device's IDs
 * @device: RDMA device
 * @bond: the bonding device that failed over
 *
 * A RoCE ID is only bound to a netdevice whose addresses are in the GID
 * table of its port, that is its port's netdevice or one of its uppers. The
 * failover walk skips the IDs of devices that cannot have such IDs, so its
 * cost grows with the devices under the bond instead of with all IDs.
 * A port whose netdevice bonding is releasing from @bond is related: its
 * IDs are still bound to @bond when the release raises the failover.
 * Ports of other link layers are never skipped.
 *
 * Context: Caller holds the RTNL lock.
 * Return: true if no ID of @device can be bound to @bond.
 */
bool cma_ha_dev_unrelated(struct ib_device *device, struct net_device *bond)
{
	struct net_device *ndev;
	bool related;
	u32 port;

	ASSERT_RTNL();

	rdma_for_each_port(device, port) {
		if (!rdma_protocol_roce(device, port))
			return false;
		ndev = ib_device_get_netdev(device, port);
		if (!ndev)
			return false;
		related = ndev == bond || netdev_has_upper_dev(ndev, bond) ||
			  cma_ha_ndev_released(ndev);
		dev_put(ndev);
		if (related)
			return false;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_dev_unrelated);

/**
 * cma_ha_active_slave() - The active slave of a bond
 * @bond: the bonding device
 *
 * Context: Caller holds the RTNL lock.
 * Return: the active slave, or NULL if there is none or the bonding mode
 * has no active slave.
 */
struct net_device *cma_ha_active_slave(struct net_device *bond)
{
	ASSERT_RTNL();

	if (!netif_is_bond_master(bond))
		return NULL;
	return bond_option_active_slave_get_rcu(netdev_priv(bond));
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_active_slave);

/**
 * cma_ha_port_down() - Check whether a port cannot carry traffic
 * @device: RDMA device
 * @port: port number
 *
 * Context: Any context.
 * Return: true unless @port's cached state is IB_PORT_ACTIVE.
 */
VISIBLE_IF_KUNIT bool cma_ha_port_down(struct ib_device *device, u32 port)
{
	enum ib_port_state state;

	if (ib_get_cached_port_state(device, port, &state))
		return true;
	return state != IB_PORT_ACTIVE;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_port_down);

/* Whether a netdevice carries traffic: up and with carrier */
static bool cma_ha_ndev_up(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

/**
 * cma_ha_alt_port() - The port an alternate path leaves from
 * @device: the device of an ID
 * @path: the alternate path of the ID
 *
 * Context: Any context.
 * Return: the InfiniBand port of @device whose GID table has @path's
 * source GID, or 0 when none has.
 */
u32 cma_ha_alt_port(struct ib_device *device, const struct sa_path_rec *path)
{
	const struct ib_gid_attr *attr;
	u32 port;

	attr = rdma_find_gid(device, &path->sgid, IB_GID_TYPE_IB, NULL);
	if (IS_ERR(attr))
		return 0;
	port = attr->port_num;
	rdma_put_gid_attr(attr);
	return rdma_protocol_ib(device, port) ? port : 0;
}

/**
 * cma_ha_cur_port() - The port the connection of an ID is on
 * @id_priv: the ID
 *
 * Return: the ID's port, or the port of its alternate path once the
 * connection migrated to it (0 when it has none).
 */
u32 cma_ha_cur_port(const struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->ha_on_alt) ? READ_ONCE(id_priv->ha_alt_port) :
					       id_priv->id.port_num;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_cur_port);

/**
 * cma_ha_other_port() - The port a migration would move a connection to
 * @id_priv: the ID
 *
 * Return: the port of the ID's alternate path (0 without one), or the ID's
 * own port once the connection migrated away from it.
 */
u32 cma_ha_other_port(const struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->ha_on_alt) ? id_priv->id.port_num :
					       READ_ONCE(id_priv->ha_alt_port);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_other_port);

/* Whether the port cma_ha_other_port() gives is there and ACTIVE */
static bool cma_ha_other_port_up(const struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;
	u32 port = cma_ha_other_port(id_priv);

	return device && port && rdma_is_port_valid(device, port) &&
	       !cma_ha_port_down(device, port);
}

/*
 * Whether the connection can move to the other path: the ID has an
 * alternate path (the consumer's rdma_set_ib_alt_path(), or the REQ of a
 * passive ID), which ib_cm loaded into the QP at RTR and armed at RTS
 * (rdma_init_qp_attr()), or which a LAP armed again after a migration,
 * and the port it leaves from is ACTIVE. The QP itself may be the
 * consumer's (user space): the device moves it to the alternate path when
 * the primary one fails, and the CM tells ib_cm.
 */
static bool cma_ha_can_migrate(struct rdma_id_private *id_priv)
{
	return READ_ONCE(id_priv->id.route.num_pri_alt_paths) == 2 &&
	       !READ_ONCE(id_priv->ha_unarmed) &&
	       cma_ha_other_port_up(id_priv);
}

/*
 * Whether @ndev is a slave of @bond, asked of bonding's own record of the
 * slave, which the slave being released from @bond no longer has (no
 * IFF_SLAVE).
 *
 * Context: Caller holds the RTNL lock.
 */
static bool cma_ha_slave_of(struct net_device *ndev, struct net_device *bond)
{
	struct slave *slave;

	if (!ndev || !netif_is_bond_slave(ndev))
		return false;
	slave = bond_slave_get_rtnl(ndev);
	return slave && slave->bond->dev == bond;
}

/**
 * cma_ha_ib_slave_out() - Whether bonding took an IPoIB slave out of service
 * @ldev: a slave of a bond
 * @sgid: the source GID of an ID
 *
 * True when @ldev is the IPoIB interface of @sgid's port, running with
 * carrier, and bonding's ARP monitor (arp_interval) took it out of
 * service: a peer or a switch behind the link that stopped answering takes
 * the slave out with its port still ACTIVE.  The MII monitor's record
 * follows the interface, not the port: an IPoIB interface that is set down
 * or waits out its updelay leaves the RDMA path on its port working, and
 * the port's state says whether that path is dead.
 *
 * Context: Caller holds the RTNL lock.
 * Return: true when the path on @sgid's port is dead for bonding.
 */
bool cma_ha_ib_slave_out(struct net_device *ldev, const union ib_gid *sgid)
{
	struct slave *slave;

	if (ldev->type != ARPHRD_INFINIBAND ||
	    ldev->addr_len != INFINIBAND_ALEN ||
	    memcmp(ldev->dev_addr + 4, sgid, sizeof(*sgid)) ||
	    !netif_is_bond_slave(ldev))
		return false;
	slave = bond_slave_get_rtnl(ldev);
	return slave && slave->bond->params.arp_interval &&
	       netif_running(ldev) && netif_carrier_ok(ldev) &&
	       slave->link != BOND_LINK_UP;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_ib_slave_out);

/*
 * Whether @port_ndev, the netdevice of a port of @device, is a slave of
 * @bond that the driver moves to the bond's active slave (device LAG).
 * The slave being released from @bond is not: the bond leaves the device
 * with it.
 *
 * Context: Caller holds the RTNL lock.
 */
static bool cma_ha_port_follows(struct ib_device *device,
				struct net_device *port_ndev,
				struct net_device *bond)
{
	return (device->lag_flags & RDMA_LAG_FLAGS_PORT_FOLLOWS_BOND) &&
	       cma_ha_slave_of(port_ndev, bond);
}

/**
 * cma_ha_failover_path() - Path state of an ID after a bond failover
 * @id_priv: an ID bound to @bond
 * @bond: the bonding device that failed over
 * @active: its new active slave, from cma_ha_active_slave()
 *
 * RoCE: the ID is misaligned when its port's netdevice is a slave of @bond
 * other than the active one, or the slave that bonding is releasing from
 * @bond (a release of the active slave raises the failover after the
 * slave left the bond); a port on the bond itself (rxe, device LAG)
 * follows the bond. This holds with fail_over_mac=none, where no hardware
 * address changes. InfiniBand (IPoIB bonds, fail_over_mac=active): the
 * bond's hardware address carries the GID of the active port, so the ID is
 * misaligned when that is not the ID's source GID.
 *
 * A port of a device whose driver moves it to the active slave itself
 * (RDMA_LAG_FLAGS_PORT_FOLLOWS_BOND: device LAG) follows the bond like a
 * port on the bond, although its netdevice is still the old slave when
 * the failover is raised: the driver moves it later, from its own work.
 *
 * The path is dead when what carries it cannot: the ID's port is not
 * active, or (InfiniBand) bonding took the slave on the ID's port out of
 * service (cma_ha_ib_slave_out(): its ARP monitor found the link dead
 * with the port up), or (RoCE) the port's netdevice is down or has no
 * carrier, or is a slave of @bond other than the active one
 * (roce_gid_mgmt moves the bond's GIDs, the ID's source GID among them,
 * to the active slave's port, so a misaligned RoCE path on a port per
 * slave is always dead); for a port on the bond itself, the new active
 * slave is down or has no carrier. The bond's own carrier says nothing about the ID's path:
 * bonding raises the failover before it sets its carrier, so when a bond
 * recovers from having no active slave, its carrier (and the state of a
 * port on the bond, which follows it) is still off while the new active
 * slave and the ID's port work.
 *
 * Context: Caller holds the RTNL lock and the CM's device list lock.
 * Return: a mask of CMA_HA_PATH_* bits.
 */
unsigned int cma_ha_failover_path(struct rdma_id_private *id_priv,
				  struct net_device *bond,
				  struct net_device *active)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_device *device = id_priv->id.device;
	u32 port = id_priv->id.port_num;
	struct net_device *port_ndev;
	unsigned int path = 0;

	ASSERT_RTNL();

	if (memcmp(dev_addr->src_dev_addr, bond->dev_addr, bond->addr_len))
		path |= CMA_HA_PATH_MAC_CHANGED;
	if (!device || !rdma_is_port_valid(device, port))
		return path;

	if (rdma_protocol_ib(device, port)) {
		struct net_device *ldev;
		struct list_head *iter;
		union ib_gid sgid;

		rdma_addr_get_sgid(dev_addr, &sgid);
		if (bond->addr_len == INFINIBAND_ALEN &&
		    memcmp(bond->dev_addr + 4, &sgid, sizeof(sgid)))
			path |= CMA_HA_PATH_MISALIGNED;
		netdev_for_each_lower_dev(bond, ldev, iter)
			if (cma_ha_ib_slave_out(ldev, &sgid))
				path |= CMA_HA_PATH_DEAD;
		/*
		 * A port-down still in its hold-off is the port work's to
		 * judge. A migrated connection is judged on the port it is
		 * on, its alignment on the ID's address.
		 */
		if (!(path & CMA_HA_PATH_DEAD) &&
		    cma_ha_port_down(device, cma_ha_cur_port(id_priv)))
			path |= CMA_HA_PATH_DEAD |
				(cma_ha_port_held(id_priv) ?
				 CMA_HA_PATH_PORT_HELD : 0);
	} else if (rdma_protocol_roce(device, port)) {
		port_ndev = ib_device_get_netdev(device, port);
		if (port_ndev == bond ||
		    cma_ha_port_follows(device, port_ndev, bond)) {
			/* The port follows the bond: its path is the new slave */
			if (!active || !cma_ha_ndev_up(active))
				path |= CMA_HA_PATH_DEAD;
		} else {
			if (cma_ha_port_down(device, port) ||
			    (port_ndev && !cma_ha_ndev_up(port_ndev)))
				path |= CMA_HA_PATH_DEAD;
			/*
			 * roce_gid_mgmt keeps the bond's GIDs on the active
			 * slave's port only: the ID's source GID is leaving
			 * this port, and nothing can be sent with it after.
			 */
			if (port_ndev && port_ndev != active &&
			    (cma_ha_slave_of(port_ndev, bond) ||
			     cma_ha_ndev_released(port_ndev)))
				path |= CMA_HA_PATH_MISALIGNED |
					CMA_HA_PATH_DEAD;
		}
		dev_put(port_ndev);
	}

	if (cma_ha_can_migrate(id_priv))
		path |= CMA_HA_PATH_CAN_MIGRATE;
	return path;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_failover_path);

/**
 * cma_ha_rearm_path() - Whether the path a migration left can be armed again
 * @id_priv: a connected ID in migrate mode
 *
 * The CM of the active side (the consumer gave it the alternate path) arms
 * the path again once its port is ACTIVE.
 *
 * Context: Caller holds the CM's device list lock or @id_priv's
 * handler_mutex, which keep the ID's device.
 * Return: CMA_HA_PATH_REARM, or 0.
 */
unsigned int cma_ha_rearm_path(struct rdma_id_private *id_priv)
{
	if (!READ_ONCE(id_priv->ha_alt_local) ||
	    !READ_ONCE(id_priv->ha_unarmed) || !cma_ha_other_port_up(id_priv))
		return 0;
	return CMA_HA_PATH_REARM;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_rearm_path);

/**
 * cma_ha_port_err_path() - Path state of an ID whose port went down
 * @id_priv: the ID
 *
 * Judged on the port's state now, not when its IB_EVENT_PORT_ERR came: a
 * port that is ACTIVE again by now went through a flap that RC
 * retransmission covers, and its path is not dead. The port is the one
 * the connection is on (cma_ha_cur_port()).
 *
 * Context: Caller holds the CM's device list lock or @id_priv's
 * handler_mutex, which keep the ID's device.
 * Return: a mask of CMA_HA_PATH_* bits.
 */
unsigned int cma_ha_port_err_path(struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;
	unsigned int path = 0;

	if (!device || cma_ha_port_down(device, cma_ha_cur_port(id_priv)))
		path |= CMA_HA_PATH_DEAD;
	if (cma_ha_can_migrate(id_priv))
		path |= CMA_HA_PATH_CAN_MIGRATE;
	return path;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ha_port_err_path);
