#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched
#
# IPoIB connected mode over UC (RFC 4755), on the soft InfiniBand device:
#  1. both ends "uc": UC connections both ways; pings with large payloads
#     and a TCP transfer verified end to end; probes and their replies
#     flow on the idle connections.
#  2. b becomes RC-only ("rc") while a still holds b's old address with
#     the UC flag: a's UC request is refused and a falls back to RC; b's
#     connection to a (UC-capable) is RC; pings and a verified transfer.
#  3. a "rc", b "uc": RC both ways.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

res=0
nic_setup eth1 "$MY_IP"
ib_up uc 1000 3
flags=$(cut -c1-2 /sys/class/net/ib0/address)
[ "$flags" = c0 ] || { log "FAIL: hardware address flags $flags, expected c0"; res=1; }
barrier up
wait_ping "$PEER_IB" 60

# ---- 1: UC to UC ----
if [ "$ROLE" = a ]; then
	pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }
	ping -c 10 -i 0.1 -s 60000 -W 2 "$PEER_IB" >/tmp/ping-big.log 2>&1
	tail -n 2 /tmp/ping-big.log | head -n 1
	grep -q ' 0% packet loss' /tmp/ping-big.log ||
		{ log "FAIL: ping -s 60000"; res=1; }
fi
barrier uc-pinged
transfer uc 16
cm_stats uc
wire_stats uc
expect cm_tx_uc_conns -eq 1
expect cm_rx_uc_conns -eq 1
expect cm_tx_rc_conns -eq 0
expect cm_rx_rc_conns -eq 0
# idle: probes every interval, each answered
p0=$(cm_stat cm_ka_probes_sent) r0=$(cm_stat cm_ka_replies_received)
barrier uc-idle
sleep 5
p1=$(cm_stat cm_ka_probes_sent) r1=$(cm_stat cm_ka_replies_received)
log "idle 5 s: $((p1 - p0)) probes sent, $((r1 - r0)) replies received"
[ $((p1 - p0)) -ge 3 ] && [ $((r1 - r0)) -ge 3 ] ||
	{ log "FAIL: UC probes not answered"; res=1; }
expect cm_ka_tx_dead -eq 0
expect cm_ka_rx_dead -eq 0
barrier uc-done

# ---- 2: b becomes RC-only ----
if [ "$ROLE" = b ]; then
	ib_policy rc
	[ "$(cut -c1-2 /sys/class/net/ib0/address)" = 80 ] ||
		{ log "FAIL: flags not 80 under rc"; res=1; }
	barrier rc-only
	barrier rc-pinged 120
else
	old=$(ip neigh show "$PEER_IB" dev ib0 | awk '{ print $3 }')
	log "b's address as a knows it: $old"
	barrier rc-only
	# restart a's connections, keeping b's old address (UC flag) as if
	# a's ARP cache were stale
	echo datagram >/sys/class/net/ib0/mode
	echo connected >/sys/class/net/ib0/mode
	ip link set ib0 mtu 65520
	ip neigh replace "$PEER_IB" lladdr "$old" nud permanent dev ib0 ||
		{ log "FAIL: ip neigh replace"; res=1; }
	wait_ping "$PEER_IB" 60
	pings 20 "$PEER_IB" || { log "FAIL: ping to an RC-only peer"; res=1; }
	expect cm_uc_refused -ge 1
	ip neigh del "$PEER_IB" dev ib0
	barrier rc-pinged
fi
transfer rc 8
cm_stats rc-only
# a's connections to b's old (UC) and new address are both RC now
expect cm_tx_rc_conns -ge 1
expect cm_tx_uc_conns -eq 0
barrier rc-done

# ---- 3: a RC-only, b UC-capable ----
if [ "$ROLE" = a ]; then ib_policy rc; else ib_policy uc; fi
barrier swapped
wait_ping "$PEER_IB" 60
[ "$ROLE" = a ] && { pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
barrier swapped-pinged
transfer swapped 8
cm_stats swapped
expect cm_tx_rc_conns -eq 1
expect cm_tx_uc_conns -eq 0
expect cm_rx_uc_conns -eq 0
expect cm_ka_tx_dead -eq 0
expect cm_ka_rx_dead -eq 0
barrier end
dmesg | grep -iE 'ipoib|ib0' | tail -n 20
exit $res
