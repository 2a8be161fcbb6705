#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=900 kernel=patched
#
# RDMA CM HA modes over a RoCE bond with one RDMA port per slave and the
# bonding default fail_over_mac=none: both guests have bond0
# (active-backup) over eth0/eth1 and rxe0 on eth0, rxe1 on eth1 (hardware
# without device LAG looks like this; rxe receives on the active slave of
# an active-backup bond since patch "RDMA/rxe: receive on the active slave
# of an active-backup bond").  roce_gid_mgmt keeps bond0's GIDs on the
# active slave's port only and moves them on failover; no hardware address
# changes, so the CM before HA modes (and notify) says nothing, and only
# the device/port/GID judgement of the HA modes sees the misalignment.
#
#  1 notify, notify      failover eth0 -> eth1 (both links up): bond0's
#                        GID moves from rxe0 to rxe1; no ADDR_CHANGE, no
#                        teardown by the CM (exactly the stock CM)
#  2 align, notify      failover eth1 -> eth0: the server's ID is torn
#                        down (ADDR_CHANGE, DISCONNECTED -ENETUNREACH); the
#                        listener, bound to bond0's address on rxe1, is
#                        extended to rxe0 and takes the reconnection
#  3 notify*, align      cut the active link (eth0 -> eth1): the client is
#                        torn down and reconnects on rxe1
#  4 migrate, notify     cut the active link (eth1 -> eth0): the server
#                        falls back (ADDR_CHANGE -EOPNOTSUPP, DISCONNECTED
#                        -ENETUNREACH); reconnect on rxe0
#  5 fail-fast*, notify  cut the active link (eth0 -> eth1): the path is
#                        dead (port down, no carrier): DISCONNECTED with
#                        -ENETDOWN (port event) or -ENETUNREACH (failover),
#                        whichever comes first
#  The teardowns and events are asserted; the reconnections are recorded
#  but not asserted yet (see reconnected_data).
#  One side acts per phase.  Unlike over IB, the peer cannot learn by
#  DREQ: roce_gid_mgmt has already taken bond0's GID off the old port, so
#  the CM cannot address a MAD from it (tx_dreq stays 0).  A notify client
#  learns by its own means: a send that finds no GID either makes rxe move
#  the QP to the error state (flushed work requests), retry count 6 ends
#  a send that left (rxe retries forever on 7), and when its last ping was
#  delivered but the echo never comes, nothing is outstanding on its send
#  queue: a 2 s reply timeout, as a ULP's keepalive would.
#  (* = the server listens on the wildcard address, else on bond0's)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=rxe

need_cmd rdma mono_watch $PP

# gid_of IP: the IPv4-mapped RoCE GID of IP, as sysfs prints GIDs.
gid_of() {
	echo "$1" | awk -F. '{
		printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n", $1, $2, $3, $4 }'
}

# has_gid DEV: DEV's port holds bond0's GID.
has_gid() {
	cat /sys/class/infiniband/"$1"/ports/1/gids/* | grep -qx "$(gid_of "$MY_IP")"
}

# gids_on DEV: bond0's GID is on DEV (the active slave's port) only,
# within 10 s (roce_gid_mgmt moves GIDs from a work queue).
gids_on() {
	local g other=rxe1
	g=$(gid_of "$MY_IP")
	[ "$1" = rxe1 ] && other=rxe0
	wait_for 10 sh -c "cat /sys/class/infiniband/$1/ports/1/gids/* | grep -qx $g &&
		! cat /sys/class/infiniband/$other/ports/1/gids/* | grep -qx $g"
}

bond_setup fail_over_mac none
rxe_add rxe0 eth0
rxe_add rxe1 eth1
wait_ping "$PEER_IP" 60
check "bond0 fail_over_mac none" 'grep -q "^none" /sys/class/net/bond0/bonding/fail_over_mac'
check "bond0's GID on rxe0 (the active slave's port) only" 'gids_on rxe0'
barrier ready 120
log "bond0 over eth0/eth1 up, fail_over_mac $(cat /sys/class/net/bond0/bonding/fail_over_mac), rxe0/rxe1 on the slaves"

# -- phase 1: notify/notify: a failover the stock CM does not see ---------
start notify "$MY_IP" notify
mac0=$(cat /sys/class/net/bond0/address)
act switch eth1
check "bond0's hardware address unchanged" '[ "$(cat /sys/class/net/bond0/address)" = "$mac0" ]'
check "bond0's GID moved to rxe1" 'gids_on rxe1'
check "notify: no ADDR_CHANGE (no hardware address change)" \
	'[ "$(count "RDMA_CM_EVENT_ADDR_CHANGE")" = 0 ]'
check "notify: the CM tore nothing down (no -ENETDOWN/-ENETUNREACH)" \
	'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
data "what=notify_after_failover stalls=$(count " stall begin ") wc_errors=$(count " wc_error ")"
stop

# cm_report: the ib_cm REQ/REP/DREQ counters of both ports (diagnostics).
cm_report() {
	local d m
	for d in rxe0 rxe1; do
		for m in req rep rej dreq; do
			data "what=cm_msgs dev=$d tx_$m=$(cmc $d tx $m) rx_$m=$(cmc $d rx $m)"
		done
	done
}

# reconnected_data DEV: where bond0's GID sits, and whether (and when) the
# client reconnected on DEV.  Recorded, not asserted: in 2 of 6 runs the
# client's REQs on the new port never reached the server's port (tx_req
# on b grew, rx_req on a did not) for 15 s; the cause, probably where
# roce_gid_mgmt left bond0's GID after a link came back, is not found yet.
reconnected_data() {
	local t d0=no d1=no
	has_gid rxe0 && d0=yes
	has_gid rxe1 && d1=yes
	t=$(since " connected id=([2-9]|[1-9][0-9]) .* dev=$1 ")
	data "what=reconnected_ms value=${t:-none} dev=$1 asserted=no gid_on_rxe0=$d0 gid_on_rxe1=$d1"
}

# own_wc_checks: this side's notify ID learnt from its own detection (a
# WC error, or no echo within the client's reply timeout) and got no
# teardown from the CM.
own_wc_checks() {
	local t
	t=$(since "( wc_error .* id=1 | reply_timeout id=1 )")
	data "what=own_detection_ms value=${t:-none}"
	check "notify: id 1 learnt from its own WC error or reply timeout (${t:-never} ms)" '[ -n "$t" ]'
	check "notify: the CM tore nothing down (no -ENETDOWN/-ENETUNREACH)" \
		'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
}

OBSERVE_S=15

# -- phase 2: align server, notify client, administrative failover --------
start align "$MY_IP" notify "--retry-count 6 --reply-timeout-ms 2000"
act switch eth0
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH 0
	check "align listener: no event" '[ "$(count " id=0$")" = 0 ]'
else
	own_wc_checks
fi
stop
cm_report
reconnected_data rxe0

# -- phase 3: notify server, align client, the active link is cut ---------
start notify 0.0.0.0 align
act cut 0
check "bond0's GID moved to rxe1" 'gids_on rxe1'
[ "$ROLE" = a ] || teardown_checks $ENETUNREACH 0
act restore 0
stop
cm_report
reconnected_data rxe1

# -- phase 4: migrate server, notify client, the active link is cut -------
start migrate "$MY_IP" notify "--retry-count 6 --reply-timeout-ms 2000"
act cut 1
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH "-$EOPNOTSUPP"
else
	own_wc_checks
fi
act restore 1
stop
cm_report
reconnected_data rxe0

# -- phase 5: fail-fast server, notify client, the active link is cut -----
start fail-fast 0.0.0.0 notify "--retry-count 6 --reply-timeout-ms 2000"
act cut 0
if [ "$ROLE" = a ]; then
	t=$(since "$(ev DISCONNECTED "-($ENETDOWN|$ENETUNREACH)" 1)")
	data "what=disconnected_ms value=${t:-none}"
	check "fail-fast: id 1 DISCONNECTED -ENETDOWN or -ENETUNREACH within ${ACT_MAX_MS} ms (${t:-never})" \
		'within "$t"'
else
	own_wc_checks
fi
act restore 0
stop
cm_report
reconnected_data rxe1

finish
