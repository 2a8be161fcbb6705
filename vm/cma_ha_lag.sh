#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched
#
# The RDMA CM's HA judgement of a device-LAG RoCE port (issue 17, D5).
# mlx5's RoCE LAG has one RDMA port for an active-backup bond; its
# netdevice is a slave of the bond, and the driver moves it to the new
# active slave from its own delayed work, after bonding raised
# NETDEV_BONDING_FAILOVER: when the CM judges the failover, the port is
# still on the old slave.  Both guests have bond0 over eth0/eth1
# (fail_over_mac none) and rxe0 on eth0 made such a device (debugfs
# rxe/rxe0/lag, "RDMA/rxe: Let a RoCE device follow its bond as device LAG
# does": RDMA_LAG_FLAGS_PORT_FOLLOWS_BOND, the port moved LAG_DELAY_MS
# after the failover, the port's state the bond's).
#
#  1 align, align           failover eth0 -> eth1 (both links up)
#  2 fail-fast, fail-fast   cut of the active link eth1 (-> eth0)
#  3 fail-fast, fail-fast   cut of both links: the bond, and with it the
#                           port, goes down; the dead path is torn down
#                           (DISCONNECTED -ENETDOWN, cm_ha_decision
#                           event=port-err path=dead action=disconnect)
#
# In each: the port moved to the new active slave, LAG_DELAY_MS after the
# failover (the ordering of mlx5); the CM judged id 1's path on the
# failover (cm_ha_decision, event=bond-failover, state=connected) neither
# misaligned nor dead and did nothing (action=none), and tore nothing
# down (no -ENETDOWN/-ENETUNREACH event); in phase 2 the port stayed
# ACTIVE (the bond kept its carrier).  Without the device's flag in the
# judgement, the port on the old slave is judged misaligned and dead and
# both modes tear the connection down.
#
# The connection keeps working, with its source GID: roce_gid_mgmt leaves
# the GIDs of a port with the device's flag in place on the failover
# ("RDMA/core: Let a driver say that its port follows a bond"; before
# it, it deleted bond0's GIDs from the port, still on the old slave, and
# added them again after the move at other indices, and rxe, which looks
# the source GID up by index for every packet, failed the busy client's
# QP on its next send).  Phase 1's client is busy (a ping every 10 ms):
# bond0's GIDs stay at their indices on rxe0, no WC error, no teardown,
# no reconnection, no stall over KEPT_MAX_GAP_MS.  So is phase 2's, across
# the cut: between the cut and the port's move rxe sends on the cut
# slave, whose queue drops the packets, lost as on the wire and sent
# again ("RDMA/rxe: Do not fail a work request whose packet the stack
# dropped"; before it rxe failed the QP).  In phase 3 the client sends
# once every 30 s, nothing in the window: the path is dead, and the
# teardown must come from the CM, not from a failed send.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=rxe
PP_INTERVAL_US=30000000
LAG_DELAY_MS=300
KNOB=/sys/kernel/debug/rxe/rxe0/lag

need_cmd rdma mono_watch $PP

ha_trace_on

# port_ndev: the netdevice of rxe0's port.
port_ndev() {
	rdma link show rxe0/1 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "netdev") print $(i + 1) }'
}

bond_setup fail_over_mac none
rxe_add rxe0 eth0
[ -f $KNOB ] || fail "no $KNOB"
echo $LAG_DELAY_MS >$KNOB || fail "cannot make rxe0 follow bond0"
check "a bad lag write is refused" '! echo 10001 >$KNOB 2>/dev/null'
check "lag refuses a line with a device name" '! echo "rxe0 0" >$KNOB 2>/dev/null'
wait_ping "$PEER_IP" 60
check "rxe0's port on eth0" '[ "$(port_ndev)" = eth0 ]'
barrier ready 120

# _rxe0_down_seen: the kernel logged rxe0 going down since this act's mark.
_rxe0_down_seen() { [ -n "$(kmsg_time "act$acts" "rxe0: set down\$")" ]; }

# lag_checks SLAVE: the checks of a phase whose act made SLAVE active.
lag_checks() {
	local slave=$1 t_fo t_mv d
	decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
	check "rxe0's port moved to $slave" '[ "$(port_ndev)" = "$slave" ]'
	t_fo=$(kmsg_time "act$acts" "slave $slave.*making interface the new active one")
	t_mv=$(kmsg_time "act$acts" "rxe0: device LAG: port moved from [a-z0-9]+ to $slave")
	d=$(awk -v a="$t_fo" -v b="$t_mv" 'BEGIN { if (a == "" || b == "") print "none"; else printf "%.0f\n", (b - a) * 1000 }')
	data "what=lag_move_ms value=$d"
	check "the port moved $LAG_DELAY_MS ms or more after the failover ($d ms)" \
		'[ "$d" != none ] && [ "$d" -ge $((LAG_DELAY_MS - 20)) ]'
	check "the CM judged id 1's path on the failover (cm_ha_decision)" \
		'decisions | grep "event=bond-failover" | grep -q "state=connected"'
	check "no decision found a path misaligned or dead" \
		'! decisions | grep "event=bond-failover" | grep -Eq "path=[a-z|-]*(misaligned|dead)"'
	check "the CM did nothing to id 1 (action=none)" \
		'! decisions | grep "event=bond-failover" | grep "state=connected" | grep -vq "action=none"'
	check "the CM tore nothing down (no -ENETDOWN/-ENETUNREACH)" \
		'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
	data "what=traffic wc_errors=$(count " wc_error ") reconnects=$(count " connected id=")"
}

# -- phase 1: align on both sides, administrative failover ---------------
# the client busy: the connection keeps working, with its GIDs
PP_INTERVAL_US=10000
GIDS=$(bond_gids rxe0)
start align "$MY_IP" align
echo >$T/trace
act switch eth1
lag_checks eth1
gids_kept_check "switch to eth1" rxe0 "$GIDS"
kept_checks "switch to eth1"
stop

# -- phase 2: fail-fast on both sides, cut of the active link ------------
# the client busy too: until the port moves, rxe sends on the cut slave,
# whose queue drops the packets; they are lost as on the wire and RC
# sends them again
start fail-fast "$MY_IP" fail-fast
echo >$T/trace
cut_active 1 eth0
act_window cut1
lag_checks eth0
check "rxe0 stayed ACTIVE (the bond kept its carrier)" \
	'! dmesg | awk -v tag="act$acts" "f; \$0 ~ \"rdma-ha: mark \" tag \" \" { f = 1 }" | grep -q "rxe0: set down"'
kept_checks "cut of eth1"
barrier "act$seq-restore1"
[ "$ROLE" = a ] || host_cmd both "set_link n1 on"
wait_carrier eth1 1 30
stop


PP_INTERVAL_US=30000000

# -- phase 3: fail-fast on both sides, both links cut -------------------
# bond0 loses its carrier, and with it the port: a dead path, torn down
start fail-fast "$MY_IP" fail-fast
echo >$T/trace
cut_links cutboth 0 1
wait_carrier bond0 0 10
wait_for 10 _rxe0_down_seen || fail "no kernel log of rxe0 going down"
T_ACT=$(kmsg_time "act$acts" "rxe0: set down\$")
act_window cutboth
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "the port went down with the bond (at ${T_ACT:-never})" '[ -n "$T_ACT" ]'
teardown_checks $ENETDOWN ""
check "the CM found id 1's path dead on the port event" \
	'decisions | grep "event=port-err" | grep "state=connected" | grep -q "path=dead.*action=disconnect"'
# no barrier while bond0 is down (barriers run over it): b, which cut the
# links, mends them after its own window
[ "$ROLE" = a ] || { host_cmd both "set_link n0 on"; host_cmd both "set_link n1 on"; }
wait_carrier bond0 1 30
wait_for 30 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state ||
	fail "rxe0 not ACTIVE again"
stop

echo off >$KNOB || fail "cannot end rxe0's device LAG"
finish
