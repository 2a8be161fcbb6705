#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched,kasan
#
# IPoIB connected mode over UC (RFC 4755), on the soft InfiniBand device:
#  1. both ends "uc": UC connections both ways; pings with large payloads
#     and a TCP transfer verified end to end; probes and their replies
#     flow on the idle connections.
#     Strays: b's user space UC QP sends messages to a's UC receive QP
#     (they reach the stack: the control) and to a's UC send QP, as a
#     peer whose old QP number was reused would: they must be dropped,
#     never completed as receives (no list corruption, no oops, the
#     connection still carries pings).  Datagrams of protocol 0x88b6
#     (the UC keepalive's) that are no keepalive of a live connection,
#     from a user space UD QP of b, reach a's stack.
#     A UC peer that follows RFC 4755 alone, in user space on b
#     (ipoib_stray ka-peer: its own UC QP connected to a's ib0 through
#     the CM, its own UD QP named in the private data): of the 0x88b6
#     datagrams its UD QP sends, only the exact keepalive probe of its
#     live connection is taken (answered with the reply, seen in the
#     probe_received trace); one octet more or less, a reserved octet
#     set, another type, another QP number on either end, another UD QP
#     of b, or the probe after the connection ended reach a's stack.
#     Data that a user space RC peer of b sends with immediate data
#     reaches a's stack (only a zero-length message can be a probe).
#  2. b becomes RC-only ("rc") while a still holds b's old address with
#     the UC flag: a's UC request is refused and a falls back to RC; b's
#     connection to a (UC-capable) is RC; pings and a verified transfer.
#     With b's address holding the UC flag alone (a peer that advertises
#     UC only), a's one refused UC request is followed by datagram mode,
#     never by an RC request.
#  3. a "rc", b "uc": RC both ways.  b's user space UC peer is refused
#     (REJ reason 9), and 0x88b6 datagrams reach a's stack, under the
#     policy rc and in datagram mode.
#  4. both "uc", b's UC QPs cannot be created (debugfs
#     fail_ipoib_cm_uc_qp): a's UC request is rejected (reason 28) and
#     b's own UC send QP fails; both fall back to RC at once.  Then b's
#     ib0 is made again while UC QPs fail: it advertises RC only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"
need_cmd ipoib_stray

# stray_qpn EVENT: the QP number of the last EVENT line in the trace
stray_qpn() {
	awk "$KA_TRACE_LINE"' ev == "'"$1"':" { v = q }
		END { sub("qpn=", "", v); print v }' /sys/kernel/tracing/trace
}

# stray_qpns: txq and rxq from the trace; true once both are known.
stray_qpns() {
	txq=$(stray_qpn ipoib_cm_ka_probe) rxq=$(stray_qpn ipoib_cm_ka_probe_received)
	[ -n "$txq" ] && [ -n "$rxq" ]
}

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

# strays: a finds its UC send and receive QPs in the probe trace
if [ "$ROLE" = a ]; then
	ka_trace_on
	# a probe each way (1 s interval); waited for, not slept for
	wait_for 15 stray_qpns
	log "a's UC send QP $txq, receive QP $rxq"
	[ -n "$txq" ] && [ -n "$rxq" ] || { log "FAIL: no UC QPs in the trace"; res=1; }
	peer_exchange stray "$(cat /sys/class/infiniband/sib0/ports/1/lid) $txq $rxq $(ib_ids | cut -d, -f3) $(cat /sys/class/infiniband/sib0/ports/1/gids/0)"
	# a datagram of the keepalive protocol that is no keepalive of a
	# live connection (a user space UD QP of b sends it) reaches the stack
	# (until 3 arrived and a second more, or 30 s: the window covers
	# the barrier and b's start on a loaded host)
	ipoib_stray recv ib0 88b6 30 3 >/tmp/stray-recv.log &
	srv=$!
	wait_for 15 grep -q listening /tmp/stray-recv.log ||
		fail "ipoib_stray recv not listening"
	barrier stray-pkt
	wait $srv
	n=$(awk '$1 == "received" { print $2 }' /tmp/stray-recv.log)
	log "datagrams of type 0x88b6 that reached the stack: ${n:-none}"
	[ "${n:-0}" -eq 3 ] ||
		{ log "FAIL: datagrams of type 0x88b6 swallowed"; res=1; }
	# counted before the barrier after which b sends
	k0=$(dmesg | wc -l)
	r0=$(cat /sys/class/net/ib0/statistics/rx_packets)
	barrier stray-pkt-done
	barrier stray-rx
	r1=$(cat /sys/class/net/ib0/statistics/rx_packets)
	log "strays into the receive QP: ib0 rx_packets +$((r1 - r0))"
	# (UC: a message can be lost; most of them must arrive)
	[ $((r1 - r0)) -ge 6 ] ||
		{ log "FAIL: stray UC messages did not reach a's receive QP"; res=1; }
	p0=$(cat /sys/class/infiniband/sib0/ports/1/hw_counters/rcvd_pkts)
	barrier stray-rx-counted
	barrier stray-tx
	p1=$(cat /sys/class/infiniband/sib0/ports/1/hw_counters/rcvd_pkts)
	log "strays into the send QP: sib0 rcvd_pkts +$((p1 - p0))"
	[ $((p1 - p0)) -ge 12 ] ||
		{ log "FAIL: stray UC messages did not reach sib0"; res=1; }
	pings 20 "$PEER_IB" || { log "FAIL: ping after the strays"; res=1; }
	expect cm_tx_uc_conns -eq 1
	if dmesg | sed "1,${k0}d" |
	   grep -E 'corruption|BUG|Oops|WARNING|general protection|not a receive'; then
		log "FAIL: a stray UC message was completed as a receive"
		res=1
	fi
	# b's user space UC peer: its exact probes are keepalives, taken
	# here (the trace); all its other 0x88b6 datagrams reach the stack
	ipoib_stray recv ib0 88b6 20 >/tmp/kapeer-recv.log &
	srv=$!
	wait_for 5 grep -q listening /tmp/kapeer-recv.log
	echo >/sys/kernel/tracing/trace
	barrier ka-peer
	wait $srv
	peer_exchange ka-peer-done "" 60
	set -- $PEER_DATA
	n=$(awk '$1 == "received" { print $2 }' /tmp/kapeer-recv.log)
	t=$(awk -v c="$3" "$KA_TRACE_LINE"'
		ev == "ipoib_cm_ka_probe_received:" && q == c { n++ }
		END { print n + 0 }' /sys/kernel/tracing/trace)
	log "b's user space UC peer ($3): $t datagrams taken as keepalives" \
	    "(b saw $2 replies), ${n:-none} reached the stack (b sent $1 that" \
	    "are no keepalive)"
	[ "$1" -gt 0 ] 2>/dev/null && [ "$2" -gt 0 ] && [ "$t" -eq "$2" ] &&
	[ "${n:-0}" -eq "$1" ] || {
		log "FAIL: UC keepalive datagrams taken or left to the stack wrongly"
		res=1
	}
	echo 0 >/sys/kernel/tracing/events/ib_ipoib/enable
else
	peer_exchange stray ""
	set -- $PEER_DATA
	log "a: LID $1, UC send QP $2, receive QP $3, UD QP $4"
	barrier stray-pkt
	# IPoIB's Q_Key: the soft device's SA default, 0xb1b
	ipoib_stray ud sib0 "$1" "$4" 0xb1b 3 ||
		{ log "FAIL: stray datagrams to a's UD QP"; res=1; }
	barrier stray-pkt-done
	ipoib_stray uc sib0 "$1" "$3" 8 ||
		{ log "FAIL: stray sends to a's receive QP"; res=1; }
	barrier stray-rx
	barrier stray-rx-counted
	ipoib_stray uc sib0 "$1" "$2" 16 ||
		{ log "FAIL: stray sends to a's send QP"; res=1; }
	sleep 0.5
	barrier stray-tx
	A_LID=$1 A_UDQPN=$4 A_GID=$5
	barrier ka-peer
	ipoib_stray ka-peer "$A_GID" "$A_UDQPN" 0xb1b >/tmp/kapeer.log 2>&1
	rc=$?
	sed 's/^/ka-peer: /' /tmp/kapeer.log
	[ $rc -eq 0 ] ||
		{ log "FAIL: the user space UC peer (exit $rc)"; res=1; }
	peer_exchange ka-peer-done "$(awk '
		$1 == "stack" { s = $2 }
		$1 == "connected" { q = $5 }
		$1 == "case" && $3 == "reply" { r++ }
		END { printf "%s %d qpn=%s\n", s == "" ? "none" : s, r, q }
		' /tmp/kapeer.log)" 60
fi
# Data with immediate data (RFC 4755 neither requires nor forbids it),
# from b's user space RC peer (ipoib_stray imm): 5 frames of EtherType
# 0x88b5 sent as SEND_WITH_IMM reach a's stack, the immediate data
# ignored; only a zero-length message is looked at as a keepalive probe
# (the last one, with another immediate value, is dropped).
if [ "$ROLE" = a ]; then
	ipoib_stray recv ib0 88b5 30 5 >/tmp/imm-recv.log &
	srv=$!
	wait_for 15 grep -q listening /tmp/imm-recv.log ||
		fail "ipoib_stray recv not listening"
	d0=$(cat /sys/class/net/ib0/statistics/rx_dropped)
	barrier imm-data
	wait $srv
	n=$(awk '$1 == "received" { print $2 }' /tmp/imm-recv.log)
	log "frames sent with immediate data that reached the stack:" \
	    "${n:-none} of 5 (rx_dropped +$(($(cat /sys/class/net/ib0/statistics/rx_dropped) - d0)))"
	[ "${n:-0}" -eq 5 ] ||
		{ log "FAIL: data sent with immediate data was dropped"; res=1; }
	pings 5 "$PEER_IB" || { log "FAIL: ping after the immediate data"; res=1; }
else
	barrier imm-data
	ipoib_stray imm "$A_GID" "$A_UDQPN" 88b5 5 >/tmp/imm.log 2>&1 ||
		{ log "FAIL: b's user space RC peer with immediate data (exit $?)"; res=1; }
	sed 's/^/imm: /' /tmp/imm.log
fi
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
	# b's address with the UC flag alone: a peer that advertises UC
	# only (legal under RFC 4755) and refuses it is reached in
	# datagram mode, with no RC request (review D11)
	echo datagram >/sys/class/net/ib0/mode
	echo connected >/sys/class/net/ib0/mode
	ip link set ib0 mtu 65520
	u0=$(cm_stat cm_uc_refused)
	ip neigh replace "$PEER_IB" lladdr "40${old#??}" nud permanent dev ib0 ||
		{ log "FAIL: ip neigh replace 40${old#??}"; res=1; }
	wait_ping "$PEER_IB" 60
	pings 20 "$PEER_IB" || { log "FAIL: ping to a UC-only peer that refused UC"; res=1; }
	cm_stats uc-only
	expect cm_uc_refused -eq $((u0 + 1))
	expect cm_tx_rc_conns -eq 0
	expect cm_tx_uc_conns -eq 0
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
# a "rc": b's user space UC peer is refused; 0x88b6 datagrams reach the
# stack, under the policy rc, then in datagram mode
for m in rc datagram; do
	if [ "$ROLE" = a ]; then
		[ $m = datagram ] && echo datagram >/sys/class/net/ib0/mode
		ipoib_stray recv ib0 88b6 30 3 >/tmp/stray-recv.log &
		srv=$!
		wait_for 15 grep -q listening /tmp/stray-recv.log ||
			fail "ipoib_stray recv not listening"
		barrier "stray-$m"
		wait $srv
		n=$(awk '$1 == "received" { print $2 }' /tmp/stray-recv.log)
		log "$m: datagrams of type 0x88b6 that reached the stack: ${n:-none}"
		[ "${n:-0}" -eq 3 ] ||
			{ log "FAIL: datagrams of type 0x88b6 swallowed ($m)"; res=1; }
		if [ $m = datagram ]; then
			echo connected >/sys/class/net/ib0/mode
			ip link set ib0 mtu 65520
		fi
	else
		if [ $m = rc ]; then
			r=$(ipoib_stray ka-peer "$A_GID" "$A_UDQPN" 0xb1b 2>&1)
			log "user space UC peer to a under rc: $r"
			case "$r" in
			"refused reason 9") ;;
			*) log "FAIL: a under rc did not refuse UC with reason 9"; res=1 ;;
			esac
		fi
		barrier "stray-$m"
		ipoib_stray ud sib0 "$A_LID" "$A_UDQPN" 0xb1b 3 ||
			{ log "FAIL: stray datagrams to a's UD QP"; res=1; }
	fi
	barrier "stray-$m-done"
done
barrier swapped-done

# ---- 4: b cannot create UC QPs ----
FAIL_UC=/sys/kernel/debug/fail_ipoib_cm_uc_qp
ib_policy uc
r0=$(cm_stat cm_uc_refused)
if [ "$ROLE" = b ]; then
	[ -d $FAIL_UC ] || { log "FAIL: no $FAIL_UC"; res=1; }
	echo 0 >$FAIL_UC/verbose
	echo -1 >$FAIL_UC/times
	echo 100 >$FAIL_UC/probability
fi
barrier uc-fail
# both addresses carry the UC flag now: forget the old ones
ip neigh flush dev ib0
# a's UC request is rejected (b's QP: REJ reason 28), b's own UC send QP
# fails: both must fall back to RC
if [ "$ROLE" = a ]; then
	wait_for 30 ping -c1 -W1 "$PEER_IB" ||
		{ log "FAIL: $PEER_IB unreachable when b has no UC QPs"; res=1; }
	pings 20 "$PEER_IB" || { log "FAIL: ping when b has no UC QPs"; res=1; }
fi
barrier uc-fail-pinged
cm_stats uc-fail
# b may still hold its RC connection of phase 3, to a's old address
expect cm_tx_rc_conns -ge 1
expect cm_tx_uc_conns -eq 0
expect cm_uc_refused -gt "$r0"
# a device that cannot create UC QPs on its SRQ advertises no UC
if [ "$ROLE" = b ]; then
	rdma link del sib0 || fail "rdma link del sib0"
	ib_up uc 1000 3
	flags=$(cut -c1-2 /sys/class/net/ib0/address)
	log "ib0 made while UC QPs fail: flags $flags"
	[ "$flags" = 80 ] || { log "FAIL: flags $flags, expected 80"; res=1; }
	echo 0 >$FAIL_UC/probability
fi
barrier uc-unable
ip neigh flush dev ib0
if [ "$ROLE" = a ]; then
	wait_for 30 ping -c1 -W1 "$PEER_IB" ||
		{ log "FAIL: $PEER_IB unreachable"; res=1; }
	pings 20 "$PEER_IB" || { log "FAIL: ping to a peer without UC"; res=1; }
	expect cm_tx_rc_conns -eq 1
	expect cm_tx_uc_conns -eq 0
fi
barrier end
dmesg | grep -iE 'ipoib|ib0' | tail -n 20
exit $res
