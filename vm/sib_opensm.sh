#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=420 kernel=patched
#
# Debian's unmodified opensm manages the two-node soft InfiniBand subnet
# (issue 18).  Both guests create sib0 with the built-in SA off
# (rdma_rxe.sib_builtin_sa=N), so the SA class is free for OpenSM; guest
# a runs opensm bound to its port:
#  - before it runs, both ports wait in INIT (ibstat: Initializing,
#    physical state LinkUp), IPoIB has no carrier, and a SubnSet(PortInfo)
#    that asks an INIT port for ACTIVE (sib_probe smp --port-state 4, not
#    armed first) is refused (status 0x001c), the port stays INIT;
#  - a port in INIT carries SMPs only, an ARMED one receives data but
#    sends SMPs only (IBA 7.2): a's UD sends to a UD QP of b are not sent
#    (a's PortXmitDiscards grow by them), frames with a good ICRC sent raw
#    from a's eth0 are not taken by b in INIT (b's ib_port_state_drops
#    grow), b's QP receives them once b armed its port (SubnSet(PortInfo)
#    ARMED from b itself), and b's own UD sends, ARMED, are not sent;
#  - opensm binds (SMI, SA, PerfMgt, CC classes, IsSM) and becomes MASTER;
#  - sminfo from a finds it MASTER, at a's LID and port GUID;
#  - it swept the subnet through the SMAs: b's SM LID is a's LID (its
#    SubnSet(PortInfo) reached b's port), ibnetdiscover finds both
#    channel adapters;
#  - its SA serves both guests over the wire: saquery on b lists the
#    NodeRecords of both ports;
#  - it armed and activated both ports: ibstat shows Active, the kernel
#    logged the SM's activation (IB_EVENT_PORT_ACTIVE), and an ARMED
#    request to an active port, from the port itself and from a across
#    the link, is refused;
#  - IPoIB (up since before OpenSM) joins its broadcast group through
#    OpenSM's SA once its port is active and pings both ways;
#  - opensm restarted, the same LIDs: a new master with an empty multicast
#    database sets ClientReregister (the ports have the capability), IPoIB
#    joins again (OpenSM's SA lists both ports in the broadcast group) and
#    pings with its neighbours flushed;
#  - opensm restarted with new LIDs (-r): both ports' LIDs change
#    (IB_EVENT_LID_CHANGE), b's SM LID follows (IB_EVENT_SM_CHANGE), IPoIB
#    joins again and pings through paths to the new LIDs;
#  - no kernel warning.
# The LIDs stay those the ports had (OpenSM keeps valid, unique LIDs).
# eth1 carries plain IP for the barriers; sib0 runs on eth0.
. "$(dirname "$0")/lib.sh"

need_cmd rdma sminfo ibnetdiscover saquery opensm sib_probe
PORT=/sys/class/infiniband/sib0/ports/1
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
res=0
bad() { log "FAIL: $*"; res=1; }
show() {
	log "port: lid $(cat $PORT/lid) sm_lid $(cat $PORT/sm_lid) state $(cat $PORT/state) cap $(cat $PORT/cap_mask)"
}

nic_setup eth1 "$MY_IP"
echo N >/sys/module/rdma_rxe/parameters/sib_builtin_sa ||
	bad "no module parameter rdma_rxe.sib_builtin_sa"
sib_add sib0 eth0 INIT
dmesg -c >/dev/null
show
LID=$(($(cat $PORT/lid)))
GUID=0x$(cut -d: -f5-8 $PORT/gids/0 | tr -d :)
peer_exchange ids "$LID $GUID"
set -- $PEER_DATA
PEER_LID=$1 PEER_GUID=$2

# restart_opensm NAME ARGS...: (a) stop opensm, start it again with ARGS,
# its log in /tmp/NAME.log, and wait for its first SUBNET UP (60 s)
restart_opensm() {
	local name=$1 end
	shift
	kill $opid 2>/dev/null
	wait $opid 2>/dev/null
	opensm -F /tmp/osm.conf -g "$GUID" -f "/tmp/$name.log" "$@" \
		>"/tmp/$name.out" 2>&1 &
	opid=$!
	end=$(($(mono_watch now | cut -d. -f1) + 60))
	until grep -q 'SUBNET UP' "/tmp/$name.log" 2>/dev/null ||
	      ! kill -0 $opid 2>/dev/null ||
	      [ "$(mono_watch now | cut -d. -f1)" -ge "$end" ]; do
		nap 0.5
	done
	grep -q 'SUBNET UP' "/tmp/$name.log" ||
		bad "opensm $* never brought the subnet up again"
}
# bcast_members: the port GIDs of the members of IPoIB's broadcast group in
# OpenSM's SA, asked with its SM_Key (1, OpenSM's default): an untrusted
# requester gets the group without its members' GIDs
bcast_members() {
	saquery -C sib0 -P 1 --smkey 1 -m 2>/dev/null | awk '
		/MGID\./ { m = /ff12:401b:ffff::ffff:ffff/ }
		/PortGid\./ && m { sub(/^.*PortGid\.*/, ""); if ($0 != "::") print }' |
		sort -u
}
# rejoined WHAT: wait up to 30 s for both ports in the broadcast group
rejoined() {
	local i=0
	until [ "$(bcast_members | wc -l)" -ge 2 ] || [ $i -ge 30 ]; do
		nap 1
		i=$((i + 1))
	done
	log "broadcast group after $1: $(bcast_members | tr '\n' ' ')"
	[ "$(bcast_members | wc -l)" -ge 2 ] ||
		bad "after $1, OpenSM's SA has $(bcast_members | wc -l) members in the broadcast group, not 2: IPoIB did not join again"
}
# ping_fresh WHAT: ping the peer over ib0 with the neighbours flushed (ARP
# through the broadcast group, a path to the peer's LID)
ping_fresh() {
	ip neigh flush dev ib0
	wait_for 30 ping -c 1 -W 1 "$PEER_IB" >/dev/null ||
		bad "no IPoIB ping to $PEER_IB after $1"
}

# ibstat_is FIELD VALUE: ibstat's FIELD of port 1 is VALUE
ibstat_is() {
	local v
	v=$(ibstat sib0 1 | sed -n "s/^[[:space:]]*$1: //p")
	[ "$v" = "$2" ] && return 0
	bad "ibstat $1: '$v', expected '$2'"
}
# port_state DR STATE WANT: sib_probe's SubnSet(PortInfo) asking for STATE
# along DR gets MAD status WANT
port_state() {
	local out
	out=$(sib_probe smp --dev sib0 --dr "$1" --port-state "$2" 2>&1)
	log "  Set(PortInfo) PortState $2 along $1: $(echo "$out" | tr '\n' ' ')"
	echo "$out" | grep -qx "status $3" ||
		bad "Set(PortInfo) PortState $2 along $1: '$(echo "$out" | head -n 1)', expected status $3"
}

# ---- before OpenSM: INIT, no IPoIB -------------------------------------------
ibstat_is State Initializing
ibstat_is "Physical state" LinkUp
ip link set ib0 up || bad "ib0 up"
ip addr add "$IB_IP/24" dev ib0 || bad "address on ib0"
# not armed: the port cannot be activated
port_state 0 4 0x001c
grep -q INIT $PORT/state || bad "port state $(cat $PORT/state) after a refused Set"
nap 2
[ "$(cat /sys/class/net/ib0/carrier)" = 0 ] ||
	bad "ib0 has carrier on a port in INIT"

# ---- INIT and ARMED: SMPs only, and data received when ARMED --------------
QKEY=0x1234
# cnt FILE: a counter of the port (ports/1/counters or hw_counters)
cnt() { cat "$PORT/$1" 2>/dev/null || echo none; }
# recvd: the datagrams b's UD QP received so far
recvd() { grep -c '^recv' /tmp/udr.log; }
# raw_to_b COUNT: frames with a good ICRC from a's eth0 to b's UD QP
raw_to_b() {
	sib_probe raw-send --ifname eth0 --dst-mac "$PEER_MAC" --dlid "$PEER_LID" \
		--slid "$LID" --dqpn "$PEER_QPN" --qkey $QKEY --good-icrc \
		--count "$1" || bad "raw-send failed"
}
if [ "$ROLE" = b ]; then
	sib_probe ud-recv --dev sib0 --qkey $QKEY --count 16 --timeout 60 \
		>/tmp/udr.log 2>&1 &
	wait_for 10 grep -q '^qpn' /tmp/udr.log || bad "b's UD QP: $(cat /tmp/udr.log)"
fi
peer_exchange udqp "$(sed -n 's/^qpn //p' /tmp/udr.log 2>/dev/null) $(cat /sys/class/net/eth0/address)"
set -- $PEER_DATA
PEER_QPN=$1 PEER_MAC=$2
s0=$(cnt hw_counters/ib_port_state_drops)
barrier udqp
if [ "$ROLE" = a ]; then
	d0=$(cnt counters/port_xmit_discards)
	sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn "$PEER_QPN" \
		--qp-qkey $QKEY --wr-qkey $QKEY --count 3 || bad "ud-send failed"
	d1=$(cnt counters/port_xmit_discards)
	log "INIT: 3 UD sends, a's port_xmit_discards $d0 -> $d1"
	[ "$d0" != none ] && [ "$d1" != none ] && [ $((d1 - d0)) -ge 3 ] ||
		bad "a in INIT sent UD data: port_xmit_discards $d0 -> $d1, expected 3 more"
	raw_to_b 2
fi
barrier init-sent
if [ "$ROLE" = b ]; then
	nap 1
	s1=$(cnt hw_counters/ib_port_state_drops)
	log "INIT: b's UD QP received $(recvd), ib_port_state_drops $s0 -> $s1"
	[ "$(recvd)" = 0 ] ||
		bad "b in INIT received $(recvd) data packet(s): $(grep '^recv' /tmp/udr.log | tr '\n' ' ')"
	[ "$s0" != none ] && [ "$s1" != none ] && [ $((s1 - s0)) -ge 2 ] ||
		bad "b in INIT: ib_port_state_drops $s0 -> $s1, expected 2 more for a's raw frames"
	# b arms its own port: INIT -> ARMED is a step an SM takes
	port_state 0 3 0x0000
	grep -q ARMED $PORT/state || bad "port state $(cat $PORT/state) after Set(ARMED)"
fi
barrier armed
[ "$ROLE" = a ] && raw_to_b 2
barrier armed-sent
if [ "$ROLE" = b ]; then
	wait_for 5 sh -c '[ "$(grep -c "^recv" /tmp/udr.log)" -ge 2 ]'
	log "ARMED: b's UD QP received $(recvd) of a's 2 raw frames"
	[ "$(recvd)" = 2 ] || bad "b ARMED received $(recvd) data packet(s), expected a's 2"
	d0=$(cnt counters/port_xmit_discards)
	sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn 1234 \
		--qp-qkey $QKEY --wr-qkey $QKEY --count 3 || bad "ud-send failed"
	d1=$(cnt counters/port_xmit_discards)
	log "ARMED: 3 UD sends, b's port_xmit_discards $d0 -> $d1"
	[ "$d0" != none ] && [ "$d1" != none ] && [ $((d1 - d0)) -ge 3 ] ||
		bad "b ARMED sent UD data: port_xmit_discards $d0 -> $d1, expected 3 more"
	grep -q ARMED $PORT/state || bad "port state $(cat $PORT/state), not ARMED"
fi
barrier init

if [ "$ROLE" = a ]; then
	mkdir -p /var/log /var/cache/opensm /etc/opensm
	# the log is written as it goes, so that SUBNET UP is seen when it is
	echo "force_log_flush TRUE" >/tmp/osm.conf
	t0=$(now)
	opensm -F /tmp/osm.conf -g "$GUID" -f /tmp/osm.log >/tmp/osm.out 2>&1 &
	opid=$!
	# MASTER, and a first sweep done (b's SM LID set): within a second
	# (its log said); 60 s at most
	end=$(($(mono_watch now | cut -d. -f1) + 60))
	until grep -q 'SUBNET UP' /tmp/osm.log 2>/dev/null ||
	      ! kill -0 $opid 2>/dev/null ||
	      [ "$(mono_watch now | cut -d. -f1)" -ge "$end" ]; do
		nap 0.5
	done
	log "opensm: $(grep -E 'MASTER' /tmp/osm.out | tr '\n' ' ')$(grep -m1 -o 'SUBNET UP' /tmp/osm.log) after $(rel "$t0" "$(now)") s"
	echo "RDMA-HA-MEASURE: opensm-subnet-up-s $(rel "$t0" "$(now)")"
	grep -v '^$' /tmp/osm.out | sed 's/^/  osm.out: /' | head -n 20
	kill -0 $opid 2>/dev/null || bad "opensm exited"
	grep -q 'Entering MASTER state' /tmp/osm.out ||
		bad "opensm never entered the MASTER state"
	grep -q 'SUBNET UP' /tmp/osm.log || bad "opensm never brought the subnet up"
	grep -E "ERR|bind|SUBNET UP|Entering|HEAVY SWEEP" /tmp/osm.log | head -n 30 | sed 's/^/  osm.log: /'
	[ $res = 0 ] || tail -n 80 /tmp/osm.log | sed 's/^/  osm.log: /'
	show
	sminfo -C sib0 -P 1 >/tmp/sminfo.log 2>&1 || bad "sminfo: rc=$?"
	sed 's/^/  sminfo: /' /tmp/sminfo.log
	grep -q "sm lid $LID sm guid $GUID.*SMINFO_MASTER" /tmp/sminfo.log ||
		bad "sminfo does not show the MASTER SM at LID $LID, GUID $GUID"
	ibnetdiscover -C sib0 -P 1 >/tmp/netdisc.log 2>&1 || bad "ibnetdiscover: rc=$?"
	grep -E '^(Ca|\[)' /tmp/netdisc.log | sed 's/^/  ibnetdiscover: /'
	n=$(grep -c '^Ca' /tmp/netdisc.log)
	[ "$n" = 2 ] || bad "ibnetdiscover found $n channel adapters, not 2"
fi
barrier swept 120

show
# ---- after: ACTIVE, by the SM ------------------------------------------------
wait_for 10 grep -q ACTIVE $PORT/state || bad "port $(cat $PORT/state) after SUBNET UP"
ibstat_is State Active
ibstat_is "Physical state" LinkUp
dmesg | grep -q 'set active by the SM' ||
	bad "no activation by the SM in the kernel log"
# active: the port cannot be armed again, from itself or across the link
port_state 0 3 0x001c
[ "$ROLE" = a ] && port_state 0,1 3 0x001c
barrier states
grep -q ACTIVE $PORT/state || bad "port state $(cat $PORT/state) after refused Sets"
if [ "$ROLE" = b ]; then
	[ "$(($(cat $PORT/sm_lid)))" = "$PEER_LID" ] ||
		bad "b's SM LID is $(cat $PORT/sm_lid), not a's LID $PEER_LID"
	saquery -C sib0 -P 1 >/tmp/nr.log 2>&1 || bad "saquery on b: rc=$?"
	for g in "$GUID" "$PEER_GUID"; do
		grep -q "port_guid\.*$g" /tmp/nr.log ||
			bad "OpenSM's SA gave b no NodeRecord of $g: $(tail -n 3 /tmp/nr.log | tr '\n' ' ')"
	done
fi
[ "$(($(cat $PORT/lid)))" = "$LID" ] || bad "the LID moved from $LID to $(cat $PORT/lid)"

if wait_for 30 ping -c 1 -W 1 "$PEER_IB"; then
	log "IPoIB ping to $PEER_IB answered"
else
	bad "no IPoIB ping to $PEER_IB in 30 s (IPoIB's joins go to OpenSM's SA)"
fi
barrier pinged 60

# ---- a new master: ClientReregister -------------------------------------------
rejoined "OpenSM's first sweep"
barrier joined
[ "$ROLE" = a ] && restart_opensm osm2
barrier rereg 120
rejoined "opensm's restart"
ping_fresh "opensm's restart"
barrier rereg-pinged 60

# ---- new LIDs: LID and SM LID change -------------------------------------------
[ "$ROLE" = a ] && restart_opensm osm3 -r
barrier relid 120
NEW_LID=$(($(cat $PORT/lid)))
log "LID $LID -> $NEW_LID, SM LID $(cat $PORT/sm_lid) after opensm -r"
[ "$NEW_LID" != "$LID" ] || bad "the LID is still $LID after opensm -r"
peer_exchange new-lids "$NEW_LID"
PEER_NEW_LID=$PEER_DATA
if [ "$ROLE" = b ]; then
	[ "$(($(cat $PORT/sm_lid)))" = "$PEER_NEW_LID" ] ||
		bad "b's SM LID is $(cat $PORT/sm_lid), not a's new LID $PEER_NEW_LID"
fi
rejoined "new LIDs"
barrier relid-joined 60
ping_fresh "new LIDs"
barrier relid-pinged 60
if [ "$ROLE" = a ]; then
	# what OpenSM found wrong in its sweeps so far
	cat /tmp/osm2.log /tmp/osm3.log >>/tmp/osm.log
	osm_summary /tmp/osm.log 20
	kill $opid 2>/dev/null
	wait $opid 2>/dev/null
fi
if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|possible recursive'; then
	bad "kernel warnings (above)"
fi
barrier done
[ $res = 0 ] && log "PASS"
exit $res
