#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched
#
# A RoCE port whose netdevice is the bond itself (issue 17): both guests
# have bond0 (active-backup, fail_over_mac none) over eth0/eth1 and rxe0
# on bond0.  Nothing about such a port changes on a failover: the bond
# keeps its addresses and its hardware address, and the port its
# carrier.  rdma_cm_ha.rst says such a port keeps its GIDs and its
# connections keep working; each phase checks that, with the client busy
# (a ping every 10 ms) across the act:
#
#  1 default, default       failover eth0 -> eth1 (both links up)
#  2 fail-fast, fail-fast   cut of the active link eth1 (-> eth0)
#
# In each: bond0's GIDs stay on rxe0 at the GID indices they had, no WC
# error, no teardown, no reconnection, no stall over KEPT_MAX_GAP_MS, and
# the CM's HA judgement (phase 2) found nothing to do.  Before
# "RDMA/core: Keep the GIDs of a port on the bond across a failover",
# roce_gid_mgmt deleted bond0's GIDs from rxe0 on every failover and
# added them again at other indices while the connection held the old
# entries: rxe looks its source GID up by index for every packet, and the
# QP flushed on its next send.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=rxe

need_cmd rdma mono_watch $PP

ha_trace_on

# bond_phase_checks WHAT GIDS: the act kept everything: GIDS (bond_gids
# rxe0 before it) unchanged, the connection kept, nothing for the CM to do.
bond_phase_checks() {
	gids_kept_check "$1" rxe0 "$2"
	kept_checks "$1"
	decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
	check "$1: no decision found a path misaligned or dead" \
		'! decisions | grep -Eq "path=[a-z|-]*(misaligned|dead)"'
}

bond_setup fail_over_mac none
rxe_add rxe0 bond0
wait_ping "$PEER_IP" 60
GIDS=$(bond_gids rxe0)
check "bond0's GIDs on rxe0 ($(echo $GIDS))" '[ -n "$GIDS" ]'
barrier ready 120

# -- phase 1: no mode chosen (notify), administrative failover -----------
start default "$MY_IP" default
echo >$T/trace
act switch eth1
bond_phase_checks "switch to eth1" "$GIDS"
stop

# -- phase 2: fail-fast on both sides, cut of the active link -----------
# act cut waits for a port going down: this port does not (the bond keeps
# its carrier); cut_active's reference is the kernel's log of the
# failover.  Until
# bonding fails over (miimon), the bond sends on the cut slave, whose
# queue drops the packets: they are lost as on the wire, and RC sends
# them again ("RDMA/rxe: Do not fail a work request whose packet the
# stack dropped"; before it rxe failed the work request and the QP, seen
# 40 ms before the failover with this busy client).
start fail-fast "$MY_IP" fail-fast
echo >$T/trace
cut_active 1 eth0
act_window cut1
bond_phase_checks "cut of eth1" "$GIDS"
check "rxe0 stayed ACTIVE" 'grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state'
barrier "act$seq-restore1"
[ "$ROLE" = a ] || host_cmd both "set_link n1 on"
wait_carrier eth1 1 30
stop

finish
