#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=700 kernel=debian+patched,patched+debian
#
# IPoIB connected mode between the series and the stock driver.  One
# guest boots Debian's unmodified kernel with only the soft InfiniBand
# device replaced (rdma_rxe of the DKMS flavour; its ib_ipoib is put back
# to Debian's own before anything uses it), the other the patched kernel;
# the check runs both pairs, so the stock guest is a once and b once:
# every exchange below goes both ways, with each side initiating its own
# connection, and the verified transfer goes from a to b.
#  1. the patched side, cm_qp_type auto, advertises UC (c0) and the stock
#     side does not (80): connections are RC both ways; pings (also with
#     60000-byte payloads) and a verified 16 MiB TCP transfer;
#  2. keepalives (1 s x 3) towards the stock peer: 15 idle seconds cost
#     one probe per interval, each a zero-length RDMA WRITE that the
#     stock RC responder acknowledges; no connection is torn down; the
#     stock side sees nothing: no packet, error or log line on ib0;
#  3. cm_qp_type uc on the patched side: the stock peer still gets RC;
#  4. the stock peer's link cut (no failover): the patched side declares
#     its send-side connection dead within the bound it reports (3 s,
#     cm_keepalive_tx_bound_ms, read before the cut); the receive
#     side from the stock sender, which does not probe, is left to the
#     stale-connection task; traffic resumes when the link is back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

res=0
nic_setup eth1 "$MY_IP"

if [ -f /etc/rdma-ha.dkms ]; then
	SIDE=stock
	ib_stock_up
	want=80
else
	SIDE=patched
	ib_up auto 1000 3
	ka_trace_on
	want=c0
fi
flags=$(cut -c1-2 /sys/class/net/ib0/address)
log "$SIDE side: ib0 $(cat /sys/class/net/ib0/mode) address" \
    "$(cat /sys/class/net/ib0/address)"
[ "$flags" = $want ] || { log "FAIL: address flags $flags, expected $want"; res=1; }

# ib0_stat FIELD: a statistic of ib0 (rx_packets, rx_errors, ...).
ib0_stat() { cat "/sys/class/net/ib0/statistics/$1"; }

# ipoib_log: ib_ipoib's kernel log lines.
ipoib_log() { dmesg | grep -E 'ib_ipoib|ib0:|ipoib' ; }

barrier up
wait_ping "$PEER_IB" 60

# ---- 1: connected mode both ways, RC ----
check_conns() {
	[ $SIDE = patched ] || return 0
	expect cm_tx_rc_conns -eq 1
	expect cm_rx_rc_conns -eq 1
	expect cm_tx_uc_conns -eq 0
	expect cm_rx_uc_conns -eq 0
}
# each side's own send-side connection first: b, then a
[ "$ROLE" = b ] && { pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
barrier b-pinged
[ "$ROLE" = a ] && { pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
barrier a-pinged
# 60000-byte messages, one side at a time.  A stock sender (RC retry
# count 0) loses its connection, and the packets on it, at the first
# packet lost on the wire, which the soft device under TCG sometimes
# drops: losses are counted, and half the pings must come through.
big_pings() {
	local got
	ping -c 10 -i 0.1 -s 60000 -W 2 "$PEER_IB" >/tmp/ping-big.log 2>&1
	tail -n 2 /tmp/ping-big.log | head -n 1
	got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' /tmp/ping-big.log)
	[ "${got:-0}" -ge 5 ] || { log "FAIL: ping -s 60000"; res=1; }
}
[ "$ROLE" = a ] && big_pings
barrier a-big-pinged
[ "$ROLE" = b ] && big_pings
barrier big-pinged
transfer auto 16
# A stock sender (RC retry count 0, see above) loses a connection at each
# packet dropped on the wire; when that was one of its last packets of the
# transfer it has none until it sends again (seen once: the patched side
# counted cm_rx_rc_conns 0).  A few pings from it give it one.
[ $SIDE = stock ] && pings 5 "$PEER_IB"
barrier auto-repinged
[ $SIDE = patched ] && cm_stats auto
check_conns
barrier auto-done

# ---- 2: keepalives towards the stock peer ----
barrier idle
if [ $SIDE = patched ]; then
	p0=$(cm_stat cm_ka_probes_sent) t0=$(now)
	a0=$(cm_stat cm_ka_probes_acked)
else
	ipoib_log >/tmp/ipoib-before.log
	rp0=$(ib0_stat rx_packets) re0=$(ib0_stat rx_errors)
	rd0=$(ib0_stat rx_dropped)
fi
sleep 15
if [ $SIDE = patched ]; then
	t1=$(now) p1=$(cm_stat cm_ka_probes_sent)
	a1=$(cm_stat cm_ka_probes_acked)
else
	rp1=$(ib0_stat rx_packets) re1=$(ib0_stat rx_errors)
	rd1=$(ib0_stat rx_dropped)
fi
barrier idle-done
if [ $SIDE = patched ]; then
	log "idle 15 s: $((p1 - p0)) probes sent, $((a1 - a0)) acknowledged"
	echo "RDMA-HA-MEASURE: interop-idle-probes-per-15s $((p1 - p0))"
	probes_ok $((p1 - p0)) "$t0" "$t1" ||
		{ log "FAIL: not one probe per interval"; res=1; }
	[ $((a1 - a0)) -ge $((p1 - p0 - 2)) ] ||
		{ log "FAIL: the stock peer did not acknowledge the probes"; res=1; }
	expect cm_ka_tx_dead -eq 0
	expect cm_ka_rx_dead -eq 0
	expect cm_tx_failed -eq 0
	check_conns
else
	rp=$((rp1 - rp0)) re=$((re1 - re0)) rd=$((rd1 - rd0))
	log "idle 15 s on the stock side: ib0 rx_packets +$rp," \
	    "rx_errors +$re, rx_dropped +$rd"
	# the peer sent 15 probes or so; ARP may add a packet or two
	[ $rp -le 3 ] && [ $re = 0 ] && [ $rd = 0 ] ||
		{ log "FAIL: the stock side received something"; res=1; }
	ipoib_log >/tmp/ipoib-after.log
	if ! cmp -s /tmp/ipoib-before.log /tmp/ipoib-after.log; then
		log "FAIL: ib_ipoib logged during the idle time:"
		diff /tmp/ipoib-before.log /tmp/ipoib-after.log | tail -n 10
		res=1
	fi
fi
pings 20 "$PEER_IB" || { log "FAIL: ping after the idle time"; res=1; }
barrier idle-pinged

# ---- 3: cm_qp_type uc on the patched side ----
if [ $SIDE = patched ]; then
	ib_policy uc
	ip neigh flush dev ib0
fi
barrier uc
wait_ping "$PEER_IB" 60
pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }
barrier uc-pinged
transfer uc 4
[ $SIDE = patched ] && cm_stats uc
check_conns
[ $SIDE = patched ] && expect cm_uc_refused -eq 0
barrier uc-done

# ---- 4: the stock peer's link cut ----
# idle first, so that the last sign of life ka_detect sees is a probe
# answered on the new connection, not the transfer
sleep 3
# The stock side's link stays cut until the patched side has declared it
# dead (or given up waiting: bound + 30 s), not for a fixed time that a
# loaded host can outlast; the detection time is the trace's.
if [ $SIDE = patched ]; then
	ka_bounds
	p0=$(cm_stat cm_ka_tx_dead) r0=$(cm_stat cm_ka_rx_dead)
	t0=$(now)
fi
barrier cut
if [ $SIDE = stock ]; then
	host_cmd self "set_link n0 off"
	barrier cut-detected 120
	host_cmd self "set_link n0 on"
else
	# the send side only: the receive side must not change (below)
	wait_for $((bound + 30)) _ka_dead_seen "$p0" -1 ||
		log "no dead peer declared within $((bound + 30)) s"
	sleep 1
	barrier cut-detected
	ka_detect tx "$t0" interop-linkcut-send-side
	expect cm_ka_tx_dead -eq $((p0 + 1))
	expect cm_ka_rx_dead -eq "$r0"
	cm_stats after-cut
fi
barrier cut-done
wait_for 20 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state ||
	{ log "FAIL: sib0 not ACTIVE again"; res=1; }
t0=$(now)
wait_ping "$PEER_IB" 60
log "link back: ping answered after $(rel "$t0" "$(now)") s"
pings 20 "$PEER_IB" || { log "FAIL: ping after the link came back"; res=1; }
barrier relinked
transfer relinked 4
[ $SIDE = patched ] && { cm_stats end; expect cm_tx_rc_conns -eq 1; }
barrier end
ipoib_log | tail -n 20
exit $res
