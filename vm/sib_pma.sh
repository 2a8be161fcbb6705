#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=360 kernel=patched,debian,kasan
# rdma-ha-opt-in-on: debian: the same code as sib_pma@patched, built as modules; the DKMS modules' soft InfiniBand device runs in sib_smoke@debian (the check's budget, README)
#
# The performance management agent of soft InfiniBand ports (issue 18),
# asked by ib_core's sysfs and by Debian's perfquery:
#  - every file of ports/1/counters/ reads a number (before the PMA, each
#    read failed with EINVAL: the process_mad op answered SMPs only), and
#    the 64-bit (extended) set is there;
#  - perfquery and perfquery -x answer for the own port (through the own
#    LID) and for the peer's port (its LID);
#  - 40 pings of 1000 bytes over ib0 from a to b: a's PortXmitData and
#    b's PortRcvData grow by at least the 40 * 1028 bytes of IP (in
#    4-octet words), the packet counters by at least 40, sysfs and
#    perfquery -x (read at the peer) agree on it;
#  - perfquery -R resets the own counters, and the peer's when root on a
#    resets them over the wire;
#  - an ordinary user on b (uid 65534, sib_probe pma-reset) cannot reset
#    a's counters: the GSI Q_Key is controlled, so its Sets carry its own
#    QP's Q_Key and QP1 drops them; the same Sets sent by root from a QP
#    with the GSI Q_Key do reset them (the probe's MADs are good);
#  - receive errors: frames sent raw from a's eth0 to b with a bad ICRC
#    count in b's PortRcvErrors, also those whose P_Key b does not have
#    (a corrupted packet is an ICRC error, not a P_Key violation); one
#    with a good ICRC and such a P_Key counts in b's P_KeyViolations
#    (PortInfo) and not in PortRcvErrors;
#  - a PortCounters for port 2 gets an error;
#  - SMPs that a's QP0 had no receive buffer for (debugfs rxe/sib0/rnr
#    "sib0 0 2") count in a's VL15Dropped, sysfs and perfquery alike, and
#    b's smpquery gets its answer once they are dropped;
#  - no kernel warning.
# eth1 carries plain IP for the barriers; sib0 runs on eth0.
. "$(dirname "$0")/lib.sh"

need_cmd rdma perfquery smpquery sib_probe
PORT=/sys/class/infiniband/sib0/ports/1
CNT=$PORT/counters
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
PQ="perfquery -C sib0 -P 1"
res=0
bad() { log "FAIL: $*"; res=1; }

# pq_field NAME FILE: the value perfquery printed for NAME
pq_field() { sed -n "s/^$1:\.*//p" "$2" | head -n 1; }
# pq NAME ARGS...: perfquery ARGS into /tmp/NAME.log, FAIL when it fails
pq() {
	local name=$1 rc
	shift
	$PQ "$@" >"/tmp/$name.log" 2>&1
	rc=$?
	sed "s/^/  $name: /" "/tmp/$name.log"
	[ $rc = 0 ] && return 0
	bad "perfquery $*: rc=$rc $(tail -n 2 "/tmp/$name.log" | tr '\n' ' ')"
	return 1
}
# cnt NAME: a sysfs counter, empty when it cannot be read
cnt() { cat "$CNT/$1" 2>/dev/null; }

nic_setup eth1 "$MY_IP"
sib_add sib0 eth0
dmesg -c >/dev/null
LID=$(($(cat $PORT/lid)))
peer_exchange ids "$LID"
PEER_LID=$PEER_DATA
[ -n "$PEER_LID" ] && [ "$PEER_LID" != "$LID" ] || fail "bad peer LID '$PEER_LID'"
ip link set ib0 up || fail "ib0 up"
ip addr add "$IB_IP/24" dev ib0 || fail "address on ib0"

# ---- sysfs: every counter reads a number ----------------------------------
for f in "$CNT"/*; do
	v=$(cat "$f" 2>&1)
	case "$v" in
	''|*[!0-9]*) bad "$f: '$v'" ;;
	esac
done
log "sysfs counters: $(cd "$CNT" && grep -H . ./* 2>&1 | sed 's|^\./||' | tr '\n' ' ')"
# the extended set: ClassPortInfo says so
for f in unicast_xmit_packets multicast_rcv_packets; do
	[ -e "$CNT/$f" ] || bad "no $CNT/$f (the 64-bit counters)"
done

# ---- perfquery, own port and the peer's -------------------------------------
pq pc_own
pq pcx_own -x
pq pc_peer "$PEER_LID" 1
pq pcx_peer -x "$PEER_LID" 1
for f in pc_own pcx_own pc_peer pcx_peer; do
	[ -n "$(pq_field PortXmitData /tmp/$f.log)" ] ||
		bad "$f: no PortXmitData"
done
# a port this CA does not have
if $PQ "$PEER_LID" 2 >/tmp/pc_port2.log 2>&1; then
	bad "perfquery of port 2 succeeded: $(tr '\n' ' ' </tmp/pc_port2.log)"
fi
barrier queried

# ---- receive errors: the ICRC before the P_Key -----------------------------
# violations: the P_KeyViolations of the own port (PortInfo, by DR 0)
violations() {
	smpquery -C sib0 -P 1 -t 1000 -D portinfo 0 2>/dev/null |
		sed -n 's/^PkeyViolations:\.*//p'
}
# raw_to_peer ARGS...: soft IB frames from eth0 to the peer's QP1
raw_to_peer() {
	sib_probe raw-send --ifname eth0 --dst-mac "$PEER_MAC" --dlid "$PEER_LID" \
		--slid "$LID" "$@" || bad "raw-send $* failed"
}
peer_exchange mac "$(cat /sys/class/net/eth0/address)"
PEER_MAC=$PEER_DATA
e0=$(cnt port_rcv_errors) v0=$(violations)
barrier errors-start
if [ "$ROLE" = a ]; then
	raw_to_peer --count 3
	raw_to_peer --count 2 --pkey 0x1234
	raw_to_peer --good-icrc --pkey 0x1234
fi
barrier errors-sent
if [ "$ROLE" = b ]; then
	nap 1
	e1=$(cnt port_rcv_errors) v1=$(violations)
	log "5 frames with a bad ICRC (2 of them with P_Key 0x1234), 1 good with P_Key 0x1234: port_rcv_errors $e0 -> $e1, P_KeyViolations $v0 -> $v1"
	[ -n "$e0" ] && [ -n "$e1" ] && [ $((e1 - e0)) = 5 ] ||
		bad "port_rcv_errors $e0 -> $e1 for 5 frames with a bad ICRC, expected 5 more"
	[ -n "$v0" ] && [ -n "$v1" ] && [ $((v1 - v0)) = 1 ] ||
		bad "P_KeyViolations $v0 -> $v1 for 1 good frame of a foreign P_Key (and 2 corrupted ones), expected 1 more"
fi
barrier errors-checked

# ---- traffic: 40 pings of 1000 bytes from a to b ---------------------------
N=40
SIZE=1000
# IP bytes per echo request: ICMP data + 8 (ICMP) + 20 (IPv4)
MIN_WORDS=$((N * (SIZE + 28) / 4))
wait_for 30 ping -c1 -W1 "$PEER_IB" >/dev/null || bad "no ping over ib0"
barrier ping-ready
x0=$(cnt port_xmit_data) xp0=$(cnt port_xmit_packets)
r0=$(cnt port_rcv_data) rp0=$(cnt port_rcv_packets)
barrier ping-start
if [ "$ROLE" = a ]; then
	ping -q -c $N -i 0.05 -s $SIZE "$PEER_IB" >/tmp/ping.log 2>&1 ||
		bad "ping: $(tail -n 2 /tmp/ping.log | tr '\n' ' ')"
fi
barrier ping-done
x1=$(cnt port_xmit_data) xp1=$(cnt port_xmit_packets)
r1=$(cnt port_rcv_data) rp1=$(cnt port_rcv_packets)
log "xmit_data $x0 -> $x1, xmit_packets $xp0 -> $xp1, rcv_data $r0 -> $r1, rcv_packets $rp0 -> $rp1 (words, at least $MIN_WORDS)"
if [ "$ROLE" = a ]; then
	[ $((x1 - x0)) -ge $MIN_WORDS ] ||
		bad "port_xmit_data grew by $((x1 - x0)) words for $N pings of $SIZE bytes (at least $MIN_WORDS)"
	[ $((xp1 - xp0)) -ge $N ] ||
		bad "port_xmit_packets grew by $((xp1 - xp0)) for $N pings"
	# ... and their answers came in
	[ $((r1 - r0)) -ge $MIN_WORDS ] ||
		bad "port_rcv_data grew by $((r1 - r0)) words for $N ping replies"
	# not more than the pings, a few MADs and multicasts: 64 KiB
	[ $((x1 - x0)) -le $((MIN_WORDS + 16384)) ] ||
		bad "port_xmit_data grew by $((x1 - x0)) words for $MIN_WORDS"
else
	[ $((r1 - r0)) -ge $MIN_WORDS ] ||
		bad "port_rcv_data grew by $((r1 - r0)) words for $N pings of $SIZE bytes (at least $MIN_WORDS)"
	[ $((rp1 - rp0)) -ge $N ] ||
		bad "port_rcv_packets grew by $((rp1 - rp0)) for $N pings"
fi
# the peer's PMA over the wire agrees with its sysfs, read just before
peer_exchange rcv "$r1"
if pq pcx_peer2 -x "$PEER_LID" 1; then
	v=$(pq_field PortRcvData /tmp/pcx_peer2.log)
	[ -n "$v" ] && [ "$v" -ge "$PEER_DATA" ] 2>/dev/null &&
		[ "$v" -le $((PEER_DATA + 4096)) ] ||
		bad "the peer's PortRcvData by perfquery -x: '$v', its sysfs said $PEER_DATA"
fi
barrier compared

# ---- reset: own counters, then the peer's over the wire -------------------
pq reset_own -R
pq reset_own_x -x -R
v=$(cnt port_xmit_data)
[ -n "$v" ] && [ "$v" -lt 4096 ] && [ "$v" -lt "$x1" ] ||
	bad "port_xmit_data after perfquery -R: '$v' (was $x1)"
v=$(cnt port_xmit_packets)
[ -n "$v" ] && [ "$v" -lt 64 ] ||
	bad "port_xmit_packets after perfquery -R: '$v' (was $xp1)"
barrier reset-own

# let the counters grow again: a's receive counters for b's resets
[ "$ROLE" = a ] && ping -q -c 20 -i 0.05 -s $SIZE "$PEER_IB" >/dev/null 2>&1
barrier regrow
r2=$(cnt port_rcv_data)
peer_exchange before-reset "$r2"
# a resets b's counters over the wire (root, perfquery)
if [ "$ROLE" = a ]; then
	pq reset_peer -R "$PEER_LID" 1
	pq reset_peer_x -x -R "$PEER_LID" 1
fi
barrier reset-peer
if [ "$ROLE" = b ]; then
	v=$(cnt port_rcv_data)
	log "port_rcv_data $r2 -> $v around a's perfquery -R of this port"
	[ -n "$v" ] && [ "$v" -lt "$r2" ] && [ "$v" -lt 4096 ] ||
		bad "port_rcv_data after a reset it: '$v' (was $r2)"
fi

# ---- an ordinary user on b cannot reset a's counters ----------------------
[ "$ROLE" = b ] && ping -q -c 20 -i 0.05 -s $SIZE "$PEER_IB" >/dev/null 2>&1
barrier regrow2
r3=$(cnt port_rcv_data)
barrier nobody-start
if [ "$ROLE" = b ]; then
	env SIB_PROBE_NOBODY=1 sib_probe pma-reset --dev sib0 \
		--dlid "$PEER_LID" >/tmp/nobody.log 2>&1 ||
		bad "pma-reset as uid 65534: $(cat /tmp/nobody.log)"
	log "$(cat /tmp/nobody.log)"
fi
barrier nobody-sent
if [ "$ROLE" = a ]; then
	sleep 2
	v=$(cnt port_rcv_data)
	log "port_rcv_data $r3 -> $v around an ordinary user's reset from b"
	[ -n "$v" ] && [ "$v" -ge "$r3" ] ||
		bad "an ordinary user on b reset port_rcv_data: $r3 -> '$v'"
fi
barrier nobody-checked
# the same MADs from root, on a QP with the GSI Q_Key: they reset
if [ "$ROLE" = b ]; then
	sib_probe pma-reset --dev sib0 --dlid "$PEER_LID" \
		--qp-qkey 0x80010000 >/tmp/root.log 2>&1 ||
		bad "pma-reset as root: $(cat /tmp/root.log)"
	log "$(cat /tmp/root.log)"
fi
barrier root-sent
if [ "$ROLE" = a ]; then
	wait_for 10 sh -c "[ \$(cat $CNT/port_rcv_data) -lt $r3 ]" ||
		bad "root's pma-reset from b did not reset port_rcv_data ($r3 -> $(cnt port_rcv_data)): the probe's MADs are wrong"
	log "port_rcv_data $r3 -> $(cnt port_rcv_data) after root's reset from b"
fi

# ---- VL15Dropped: SMPs that QP0 had no receive buffer for ------------------
# a's QP0 takes b's next 2 SMPs as a QP0 without receive buffers does
# (debugfs rxe/sib0/rnr "0 2"): b asks again until it has an answer
# (libibmad may send a lost SMP again itself, or give up when its own
# wait ends first, as long as the MAD layer's), and a's VL15Dropped counts
# exactly the 2 SMPs dropped.
if [ "$ROLE" = a ]; then
	v0=$(cnt VL15_dropped)
	echo "0 2" 2>/tmp/vl15-knob.log >/sys/kernel/debug/rxe/sib0/rnr ||
		bad "rxe/sib0/rnr does not take QP0: $(cat /tmp/vl15-knob.log)"
fi
barrier vl15-armed
if [ "$ROLE" = b ]; then
	n=0
	while [ $n -lt 4 ]; do
		n=$((n + 1))
		smpquery -C sib0 -P 1 -t 300 nodeinfo "$PEER_LID" \
			>/tmp/vl15.log 2>&1 && break
	done
	log "smpquery nodeinfo of a's port, its QP0 dry for 2 SMPs: $n run(s)"
	grep -q '^Guid:\.' /tmp/vl15.log ||
		bad "smpquery nodeinfo of a's port, its QP0 dry for 2 SMPs, in $n runs: $(tr '\n' ' ' </tmp/vl15.log)"
fi
barrier vl15-sent
if [ "$ROLE" = a ]; then
	v1=$(cnt VL15_dropped)
	log "VL15_dropped $v0 -> $v1 around b's SMPs, the first 2 without a buffer"
	[ -n "$v0" ] && [ -n "$v1" ] && [ $((v1 - v0)) = 2 ] ||
		bad "VL15_dropped $v0 -> '$v1' around 2 SMPs QP0 had no buffer for"
	pq pc_vl15 && [ "$(pq_field VL15Dropped /tmp/pc_vl15.log)" = "$v1" ] ||
		bad "perfquery VL15Dropped '$(pq_field VL15Dropped /tmp/pc_vl15.log)', sysfs $v1"
	echo "0 0" >/sys/kernel/debug/rxe/sib0/rnr
fi
barrier vl15-checked

if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|lockdep|possible recursive'; then
	bad "kernel warnings (above)"
fi
barrier done
[ $res = 0 ] && log "PASS"
exit $res
