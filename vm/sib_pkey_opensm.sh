#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=420 kernel=patched
#
# P_Key tables of soft InfiniBand ports programmed by Debian's unmodified
# opensm from a partitions.conf (issue 18).  Both guests create sib0 with
# the built-in SA off and ib0.8001 (no carrier: the port has no 0x8001);
# guest a runs opensm with
#	Default=0x7fff, ipoib : ALL=full ;
#	P8001=0x8001, ipoib : ALL=full ;
#  - OpenSM's sweep programs both ports' tables by SubnSet(PKeyTable):
#    sysfs pkeys/ and smpquery PKeyTable hold 0xffff and 0x8001;
#  - ib0.8001 comes up on both (IB_EVENT_PKEY_CHANGE), joins its broadcast
#    group through OpenSM's SA and pings the peer's ib0.8001;
#  - partitions.conf rewritten with b out of 0x8001 (a alone a full
#    member), opensm told by SIGHUP: b's table loses 0x8001 and b's
#    ib0.8001 loses its carrier; a's keeps its P_Key;
#  - a pings b over ib0.8001: b's port drops the packets (b is out of the
#    partition) and reports the violation to OpenSM in a trap (Notice
#    257, Bad P_Key, from b's LID), at most one a second however many
#    packets it drops (100 pings in 2 s: 2-3 traps);
#  - a sends datagrams to QP1 of b's port with a Q_Key other than the
#    GSI's: b's port drops them (Q_KeyViolations, read by smpquery) and
#    reports the first in a trap (Notice 258, Bad Q_Key, from b's LID),
#    again at most one a second however many it drops;
#  - OpenSM stopped (SIGSTOP), one more such datagram: b's SMA sends its
#    trap 258 again every SubnetTimeOut (OpenSM's 18: 1.07 s), the same
#    transaction ID each time, until OpenSM, continued, represses it;
#    then no more copies;
#  - no kernel warning.
# eth1 carries plain IP for the barriers; sib0 runs on eth0.
. "$(dirname "$0")/lib.sh"

need_cmd rdma smpquery opensm sib_probe
PORT=/sys/class/infiniband/sib0/ports/1
res=0
bad() { log "FAIL: $*"; res=1; }

# trap_flood NUM WHAT CMD...: CMD, many violations at once (WHAT), brings
# OpenSM's log one trap NUM a second, counted 2 s after CMD ended: 1 to
# secs + 2 (the first at once, the last second begun); a trap OpenSM did
# not repress in time comes again with its transaction ID, and counts once
trap_flood() {
	_tn=$1 _tw=$2
	shift 2
	nap 1.5
	_t1=$(osm_traps /tmp/osm.log "$_tn")
	_t0=$(now)
	"$@" >/tmp/flood.log 2>&1
	_ts=$(rel "$_t0" "$(now)")
	nap 2
	_tg=$(($(osm_traps /tmp/osm.log "$_tn") - _t1))
	log "$_tw in $_ts s: OpenSM got $_tg trap(s) $_tn"
	_tl=$(awk -v s="$_ts" 'BEGIN { printf "%d\n", s + 2 }')
	[ "$_tg" -ge 1 ] && [ "$_tg" -le "$_tl" ] ||
		bad "$_tw in $_ts s brought $_tg traps $_tn, not 1 to $_tl (one a second): $(tail -n 1 /tmp/flood.log)"
}

# has_pkey PKEY: the port's table (sysfs) holds PKEY
has_pkey() { grep -qx "$1" $PORT/pkeys/*; }
# carrier DEV 0|1 [TIMEOUT_S]: wait for it, FAIL if it does not come
carrier() {
	wait_for "${3:-30}" _carrier_is "$1" "$2" ||
		bad "$1 carrier not $2 (is $(cat "/sys/class/net/$1/carrier" 2>&1))"
}
# partitions FILE P8001-MEMBERS: OpenSM's partitions.conf
partitions() {
	printf '%s\n' "Default=0x7fff, ipoib : ALL=full ;" \
		"P8001=0x8001, ipoib : $2 ;" >"$1"
}

nic_setup eth1 "$MY_IP"
echo N >/sys/module/rdma_rxe/parameters/sib_builtin_sa ||
	bad "no module parameter rdma_rxe.sib_builtin_sa"
sib_add sib0 eth0 INIT
dmesg -c >/dev/null
GUID=0x$(cut -d: -f5-8 $PORT/gids/0 | tr -d :)
peer_exchange ids "$GUID $(($(cat $PORT/lid)))"
set -- $PEER_DATA
PEER_GUID=$1 PEER_LID=$2
ip link set ib0 up || bad "ib0 up"
ip link add ib0.8001 link ib0 type ipoib pkey 0x8001 ||
	bad "ip link add ib0.8001"
ip addr add "198.18.81.$ROLE_NUM/24" dev ib0.8001 || bad "address on ib0.8001"
ip link set ib0.8001 up || bad "ib0.8001 up"
has_pkey 0x8001 && bad "0x8001 in the table before OpenSM ran"
barrier init

if [ "$ROLE" = a ]; then
	mkdir -p /var/log /var/cache/opensm /etc/opensm
	echo "force_log_flush TRUE" >/tmp/osm.conf
	partitions /tmp/partitions.conf ALL=full
	opensm -F /tmp/osm.conf -P /tmp/partitions.conf -g "$GUID" \
		-f /tmp/osm.log >/tmp/osm.out 2>&1 &
	opid=$!
	wait_for 60 grep -q 'SUBNET UP' /tmp/osm.log ||
		bad "opensm never brought the subnet up"
	kill -0 $opid 2>/dev/null || bad "opensm exited"
	grep -E 'ERR|SUBNET UP|Entering' /tmp/osm.log | head -n 20 |
		sed 's/^/  osm.log: /'
fi
barrier swept 120

# ---- the tables OpenSM programmed ------------------------------------------
wait_for 30 grep -q ACTIVE $PORT/state || bad "port $(cat $PORT/state)"
wait_for 30 has_pkey 0x8001 ||
	bad "OpenSM did not give the port 0x8001: $(cat $PORT/pkeys/0 $PORT/pkeys/1 | tr '\n' ' ')"
has_pkey 0xffff || bad "the port lost 0xffff"
smpquery -C sib0 -P 1 -t 1000 -D pkeys 0 >/tmp/pkeys.log 2>&1 ||
	bad "smpquery pkeys"
sed 's/^/  pkeys: /' /tmp/pkeys.log
grep -q 0x8001 /tmp/pkeys.log || bad "PKeyTable lacks 0x8001"
carrier ib0.8001 1
barrier programmed 60
if wait_for 30 ping -c 1 -W 1 "198.18.81.$PEER_NUM"; then
	log "ib0.8001 pings the peer's ib0.8001 (OpenSM's partition)"
else
	bad "no ping over ib0.8001 to 198.18.81.$PEER_NUM"
fi
barrier pinged 60

# ---- b leaves the partition ------------------------------------------------
if [ "$ROLE" = a ]; then
	partitions /tmp/partitions.conf "$GUID=full"
	kill -HUP $opid || bad "SIGHUP to opensm"
fi
barrier hup 60
if [ "$ROLE" = b ]; then
	wait_for 60 sh -c "! grep -qx 0x8001 $PORT/pkeys/*" ||
		bad "0x8001 still in b's table after OpenSM's new partitions"
	carrier ib0.8001 0
	log "b out of partition 0x8001: ib0.8001 carrier $(cat /sys/class/net/ib0.8001/carrier)"
fi
barrier left 90
if [ "$ROLE" = a ]; then
	has_pkey 0x8001 || bad "a lost 0x8001 too"
	[ "$(cat /sys/class/net/ib0.8001/carrier)" = 1 ] ||
		bad "a's ib0.8001 lost its carrier"
	# a's IPoIB goes on sending to b on 0x8001, which b's port drops:
	# b's SMA reports the violation to a's SM (Trap 257, Bad P_Key)
	n0=$(grep -c 'num:257 ' /tmp/osm.log)
	ping -c 3 -W 1 "198.18.81.$PEER_NUM" >/dev/null 2>&1 &&
		bad "ib0.8001 still pings b, out of the partition"
	wait_for 10 sh -c "[ \$(grep -c 'num:257 .* from LID:$PEER_LID ' /tmp/osm.log) -gt 0 ]" ||
		bad "no trap 257 (Bad P_Key) from b's port (LID $PEER_LID) in OpenSM's log: $(grep 'Notice' /tmp/osm.log | tail -n 2 | tr '\n' ' ')"
	grep 'num:257 ' /tmp/osm.log | head -n 3 | sed 's/^/  osm.log: /'
	log "OpenSM got $(($(grep -c 'num:257 ' /tmp/osm.log) - n0)) trap(s) 257"
	# a flood of violations costs the SM one trap a second: 100 pings
	# in 2 s
	trap_flood 257 "100 violating pings" \
		ping -c 100 -i 0.02 -W 1 "198.18.81.$PEER_NUM"
	# a datagram to QP1 of b's port that does not carry the GSI Q_Key:
	# b's port drops it and tells the SM (Trap 258, Bad Q_Key)
	q0=$(grep -c 'num:258 ' /tmp/osm.log)
	sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn 1 \
		--wr-qkey 0x12345678 >/tmp/ud.log 2>&1 ||
		bad "a datagram to b's QP1: $(cat /tmp/ud.log)"
	wait_for 10 sh -c "[ \$(grep -c 'num:258 .* from LID:$PEER_LID ' /tmp/osm.log) -gt $q0 ]" ||
		bad "no trap 258 (Bad Q_Key) from b's port (LID $PEER_LID) in OpenSM's log: $(grep 'Notice' /tmp/osm.log | tail -n 2 | tr '\n' ' ')"
	grep 'Bad Q_Key' /tmp/osm.log | head -n 2 | sed 's/^/  osm.log: /'
	# OpenSM's reading of its details: a's LID the source, b's the
	# destination, the Q_Key, a's QP the source QP, QP1 the destination
	my_lid=$(($(cat $PORT/lid)))
	grep -q "Bad Q_Key\" from LID $PEER_LID, .*: LID1 $my_lid, LID2 $PEER_LID, Q_Key 0x12345678, SL 0, QP1 0x[1-9a-f][0-9a-f]*, QP2 0x1," /tmp/osm.log ||
		bad "OpenSM read other details in trap 258: $(grep 'Bad Q_Key" from' /tmp/osm.log | head -n 1)"
	qv=$(smpquery -C sib0 -P 1 -t 1000 portinfo "$PEER_LID" 2>&1 |
		sed -n 's/^QkeyViolations:\.*//p')
	log "b's Q_KeyViolations: ${qv:-none}"
	[ -n "$qv" ] && [ "$qv" -ge 1 ] ||
		bad "b's PortInfo counts no Q_Key violation (${qv:-no QkeyViolations})"
	# and a flood of them costs the SM one trap 258 a second
	trap_flood 258 "200 datagrams with a bad Q_Key" \
		sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn 1 \
		--wr-qkey 0x12345678 --count 200
	# a trap the SM does not answer is sent again, the same, every
	# SubnetTimeOut until the SM represses it (IBA 13.4.9): OpenSM
	# stopped for 4 s, a trap 258 from b reaches it again and again
	# with one TID (1.07 s apart: 4 copies) when it goes on; once
	# OpenSM represses it, no more come
	st=$(smpquery -C sib0 -P 1 -t 1000 portinfo "$PEER_LID" 2>&1 |
		sed -n 's/^SubnetTimeout:\.*//p')
	log "b's SubnetTimeout: ${st:-none} (OpenSM's subnet_timeout)"
	nap 1.5
	osm_trap_tids /tmp/osm.log 258 >/tmp/tids.old
	kill -STOP $opid
	sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn 1 \
		--wr-qkey 0x12345678 >/tmp/ud.log 2>&1 ||
		bad "a datagram to b's QP1: $(cat /tmp/ud.log)"
	nap 4
	kill -CONT $opid
	wait_for 10 osm_traps_ge /tmp/osm.log 258 "$PEER_LID" $(($(wc -l </tmp/tids.old) + 1)) ||
		bad "no trap 258 from b's port after OpenSM went on"
	# (OpenSM represses the copies it had queued; one sent meanwhile
	# may still come)
	nap 2
	tid=$(osm_trap_tids /tmp/osm.log 258 "$PEER_LID" |
		grep -vxF -f /tmp/tids.old | head -n 1)
	n1=$(grep -c "num:258 .* TID:$tid\$" /tmp/osm.log)
	grep "TID:$tid\$" /tmp/osm.log | sed 's/^/  osm.log: /'
	nap 3.5
	n2=$(grep -c "num:258 .* TID:$tid\$" /tmp/osm.log)
	log "trap 258 TID ${tid:-none}: $n1 copies while OpenSM was stopped, $n2 after 3.5 s more"
	[ -n "$tid" ] && [ "$n1" -ge 2 ] && [ "$n1" -le 9 ] ||
		bad "trap 258 (TID ${tid:-none}) reached OpenSM $n1 time(s) after 4 s stopped, not 2 to 9: not repeated until repressed"
	[ "$n2" = "$n1" ] ||
		bad "trap 258 (TID $tid) still repeated after OpenSM's TrapRepress: $n1 copies, then $n2"
	osm_summary /tmp/osm.log 10
	kill $opid 2>/dev/null
	wait $opid 2>/dev/null
fi
if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|possible recursive'; then
	bad "kernel warnings (above)"
fi
barrier done
[ $res = 0 ] && log "PASS"
exit $res
