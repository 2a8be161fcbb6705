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
#                        falls back (ADDR_CHANGE status 3, dead, then
#                        DISCONNECTED -ENETUNREACH); reconnect on rxe0
#  5 fail-fast*, notify  cut the active link (eth0 -> eth1): the path is
#                        dead (port down, no carrier): DISCONNECTED with
#                        -ENETDOWN (port event) or -ENETUNREACH (failover),
#                        whichever comes first
#  6 fail-fast, notify  failover eth1 -> eth0 (both links up): the old
#                        port is up, but bond0's GID (the ID's source GID)
#                        leaves it, so the path is dead: DISCONNECTED
#                        -ENETDOWN; the listener, bound to bond0's address
#                        on rxe1, takes the reconnection on rxe0
#  7 report, report      failover eth0 -> eth1 (both links up): the stock
#                        CM and notify say nothing (phase 1), report tells
#                        both IDs ADDR_CHANGE status 3: their path is dead
#                        (its GID left rxe0); the CM tears nothing down,
#                        the client learns from its own sends and
#                        reconnects through the extended listener on rxe1
#  After each phase, the client has reconnected on the new port and is
#  busy at the end.
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

T=/sys/kernel/tracing
# roce_trace_start: MAD sends and completions, and dropped skbs, traced.
roce_trace_start() {
	[ -d $T/events ] || mount -t tracefs nodev $T || return 0
	echo 4096 >$T/buffer_size_kb
	echo 1 >$T/events/ib_mad/ib_mad_ib_send_mad/enable
	echo 1 >$T/events/ib_mad/ib_mad_send_done_handler/enable
	echo 1 >$T/events/ib_mad/ib_mad_recv_done_handler/enable
	echo 'reason > 2' >$T/events/skb/kfree_skb/filter
	echo 1 >$T/events/skb/kfree_skb/enable
	echo >$T/trace
}

# roce_trace_dump: a summary of the trace since the last one.
roce_trace_dump() {
	[ -f $T/trace ] || return 0
	awk '/ib_mad_ib_send_mad:/ { split($0, a, "ib_mad_ib_send_mad: "); split(a[2], b, " "); k = "send " b[1]; n[k]++ }
	     /ib_mad_send_done_handler:/ { match($0, /SEND WC Status [0-9]+/); split($0, a, "handler: "); split(a[2], b, " "); k = "done " b[1] " " substr($0, RSTART + 15, RLENGTH - 15); n[k]++ }
	     /ib_mad_recv_done_handler:/ { split($0, a, "handler: "); split(a[2], b, " "); k = "recv " b[1]; n[k]++ }
	     /kfree_skb:/ { match($0, /location=[^ ]+/); l = substr($0, RSTART + 9, RLENGTH - 9); match($0, /reason: [A-Z_0-9]+/); k = "drop " l " " substr($0, RSTART + 8, RLENGTH - 8); n[k]++ }
	     END { for (k in n) printf "%s=%d\n", k, n[k] }' $T/trace |
		sort | tr ' ' ':' | while read -r l; do data "what=roce_trace $l"; done
	echo >$T/trace
}

# roce_state: at the end of an observation window, where bond0's GID sits
# and what each port received (diagnostics for the reconnections).
roce_state() {
	local d g
	for d in rxe0 rxe1; do
		g=no
		has_gid $d && g=yes
		data "what=roce_state dev=$d gid=$g state=$(cat /sys/class/infiniband/$d/ports/1/state | tr -d ' ') rcvd_pkts=$(cat /sys/class/infiniband/$d/ports/1/hw_counters/rcvd_pkts) sent_pkts=$(cat /sys/class/infiniband/$d/ports/1/hw_counters/sent_pkts) rx_req=$(cmc $d rx req) tx_req=$(cmc $d tx req)"
	done
	roce_trace_dump
	data "what=roce_state bond0=$(cat /sys/class/net/bond0/bonding/active_slave) eth0_rx=$(cat /sys/class/net/eth0/statistics/rx_packets) eth1_rx=$(cat /sys/class/net/eth1/statistics/rx_packets) udp=$(awk '/^Udp:/ { n++; if (n == 2) print $2 "/" $3 "/" $4 }' /proc/net/snmp)"
}

bond_setup fail_over_mac none
rxe_add rxe0 eth0
rxe_add rxe1 eth1
wait_ping "$PEER_IP" 60
check "bond0 fail_over_mac none" 'grep -q "^none" /sys/class/net/bond0/bonding/fail_over_mac'
check "bond0's GID on rxe0 (the active slave's port) only" 'gids_on rxe0'
# both slaves carry bond0's address; ib_cm tells a connection's remote
# side by node GUID and QPN, which two devices with one GUID would share
guid0=$(cat /sys/class/infiniband/rxe0/node_guid)
guid1=$(cat /sys/class/infiniband/rxe1/node_guid)
check "rxe0 and rxe1 have node GUIDs of their own ($guid0, $guid1)" \
	'[ -n "$guid0" ] && [ "$guid0" != "$guid1" ]'
roce_trace_start
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

# reconnected_data DEV: where bond0's GID sits, and that the client
# reconnected on DEV (reconnected_checks).  A reconnection used to be lost
# in a third of the runs: a MAD that found the GID gone from the old port
# moved its QP1 to the error state for good, until "RDMA/rxe: Stop only
# the send queue of a UD QP on a send error".
reconnected_data() {
	local d0=no d1=no
	has_gid rxe0 && d0=yes
	has_gid rxe1 && d1=yes
	data "what=gid_placement gid_on_rxe0=$d0 gid_on_rxe1=$d1"
	reconnected_checks "$1"
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
# The side whose HA mode acts leaves the teardown to the CM: rxe flushes
# the QP as soon as a send finds bond0's GID gone from the old port, and
# that can come before the CM's events (a consumer in these modes can
# rely on the CM's DISCONNECTED).
GRACE="--wc-error-grace-ms $ACT_MAX_MS"


# -- phase 2: align server, notify client, administrative failover --------
start align "$MY_IP" notify "--retry-count 6 --reply-timeout-ms 2000" "$GRACE"
act switch eth0
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH $ST_DEAD
	check "align listener: no event" '[ "$(count " id=0$")" = 0 ]'
else
	own_wc_checks
fi
roce_state
stop
cm_report
reconnected_data rxe0

# -- phase 3: notify server, align client, the active link is cut ---------
start notify 0.0.0.0 align "$GRACE"
act cut 0
check "bond0's GID moved to rxe1" 'gids_on rxe1'
[ "$ROLE" = a ] || teardown_checks $ENETUNREACH $ST_DEAD
roce_state
act restore 0
stop
cm_report
reconnected_data rxe1

# -- phase 4: migrate server, notify client, the active link is cut -------
start migrate "$MY_IP" notify "--retry-count 6 --reply-timeout-ms 2000" "$GRACE"
act cut 1
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH $ST_DEAD
else
	own_wc_checks
fi
roce_state
act restore 1
stop
cm_report
reconnected_data rxe0

# -- phase 5: fail-fast server, notify client, the active link is cut -----
start fail-fast 0.0.0.0 notify "--retry-count 6 --reply-timeout-ms 2000" "$GRACE"
act cut 0
if [ "$ROLE" = a ]; then
	t=$(since "$(ev DISCONNECTED "-($ENETDOWN|$ENETUNREACH)" 1)")
	data "what=disconnected_ms value=${t:-none}"
	check "fail-fast: id 1 DISCONNECTED -ENETDOWN or -ENETUNREACH within ${ACT_MAX_MS} ms (${t:-never})" \
		'within "$t"'
else
	own_wc_checks
fi
roce_state
act restore 0
stop
cm_report
reconnected_data rxe1

# -- phase 6: fail-fast server, notify client, administrative failover ----
start fail-fast "$MY_IP" notify "--retry-count 6 --reply-timeout-ms 2000" "$GRACE"
act switch eth0
check "bond0's GID moved to rxe0" 'gids_on rxe0'
if [ "$ROLE" = a ]; then
	teardown_checks $ENETDOWN $ST_DEAD
else
	own_wc_checks
fi
roce_state
stop
cm_report
reconnected_data rxe0

# -- phase 7: report on both sides, administrative failover ---------------
# (fail_over_mac=none: no hardware address changes, phase 1 saw nothing)
# both leave the end of a connection whose sends fail to the grace: a
# report consumer that wants the CM's word waits for it briefly
start report "$MY_IP" report "--retry-count 6 --reply-timeout-ms 2000 $GRACE" "$GRACE"
act switch eth1
check "bond0's GID moved to rxe1" 'gids_on rxe1'
t=$(since "$(ev ADDR_CHANGE $ST_DEAD 1)")
data "what=report_dead_ms value=${t:-none}"
check "report: id 1 ADDR_CHANGE status $ST_DEAD (dead, its GID left rxe0) within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
check "report: the program printed the status" \
	'[ "$(count " ha_path status=dead value=$ST_DEAD id=1$")" = 1 ]'
check "report: one ADDR_CHANGE for id 1" \
	'[ "$(count "RDMA_CM_EVENT_ADDR_CHANGE status=[0-9-]* id=1$")" = 1 ]'
check "report: the CM tore nothing down (no -ENETDOWN/-ENETUNREACH)" \
	'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
[ "$ROLE" = b ] ||
	check "report listener: no event (extended to rxe1)" '[ "$(count " id=0$")" = 0 ]'
roce_state
stop
cm_report
reconnected_data rxe1

finish
