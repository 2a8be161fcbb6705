#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=400 kernel=patched
#
# Soft InfiniBand from user space, between the sib0 ports of two guests:
#  - verbs through the rxe provider on the IB link layer port: UD (LID- and
#    GRH-addressed), RC (LID and GRH), UC and SRQ pingpongs, every one
#    exiting 0 on both sides;
#  - the built-in SA queried through ib_umad with saquery: ClassPortInfo,
#    PathRecords to the peer by GIDs and by LIDs, the MCMemberRecords of
#    the IPoIB groups;
#  - multicast groups other than the IPoIB broadcast group: mckey (RDMA CM
#    UD sends to an MLID) delivered to a member QP on each guest, and IPoIB
#    pings to the IPv4 all-hosts and IPv6 all-nodes groups answered by the
#    peer;
#  - 200 UD QPs attached to one multicast group, as 200 IPoIB interfaces of
#    a port are to the broadcast group; and the same on a RoCE rxe device,
#    which keeps rxe's limit of 56 (what soft InfiniBand ports had before):
#    the probe must stop at the 57th there.
# eth1 carries plain IP for the barriers and the pingpongs' TCP exchange.
. "$(dirname "$0")/lib.sh"

need_cmd rdma ibv_devinfo ibv_ud_pingpong ibv_rc_pingpong ibv_uc_pingpong sib_probe \
	 ibv_srq_pingpong ibstat saquery mckey
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
PORT=/sys/class/infiniband/sib0/ports/1
res=0

nic_setup eth1 "$MY_IP"
ip link set eth0 mtu 4200 up
wait_carrier eth0 1
rdma link add sib0 type sib netdev eth0 || fail "rdma link add sib0"
wait_for 10 grep -q ACTIVE $PORT/state || fail "sib0 not ACTIVE"

LID=$(($(cat $PORT/lid)))
GID=$(cat $PORT/gids/0)
peer_exchange ids "$LID $GID"
set -- $PEER_DATA
PEER_LID=$1 PEER_GID=$2
log "own LID $LID GID $GID, peer LID $PEER_LID GID $PEER_GID"
[ -n "$PEER_GID" ] && [ "$PEER_LID" != "$LID" ] || fail "bad peer identity"

# ibstat reads the port through sysfs and umad
ibstat sib0 1 | tee /tmp/ibstat.log
for want in "State: Active" "Base lid: $LID" "SM lid: $LID" \
	    "Link layer: InfiniBand"; do
	grep -q "$want" /tmp/ibstat.log || { log "FAIL: ibstat: no '$want'"; res=1; }
done

# ---- verbs ---------------------------------------------------------------

# tcp_listening PORT: a TCP socket listens on PORT
tcp_listening() {
	awk -v p=":$(printf %04X "$1")" \
		'$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
		 END { exit !f }' /proc/net/tcp /proc/net/tcp6
}

# verbs_pair NAME TCP_PORT PROGRAM ARGS...: PROGRAM ARGS as the server on
# b, as the client on a (connecting over eth1); both must exit 0.
verbs_pair() {
	local name=$1 port=$2 prog=$3 rc
	shift 3
	if [ "$ROLE" = b ]; then
		timeout 120 "$prog" -d sib0 -p "$port" "$@" >"/tmp/$name.log" 2>&1 &
		srv=$!
		wait_for 60 tcp_listening "$port" || log "$name: server not listening"
		barrier "$name"
		wait $srv
		rc=$?
	else
		barrier "$name"
		timeout 120 "$prog" -d sib0 -p "$port" "$@" "$PEER_IP" \
			>"/tmp/$name.log" 2>&1
		rc=$?
	fi
	tail -n 4 "/tmp/$name.log"
	log "$name: exit status $rc"
	[ $rc = 0 ] || { log "FAIL: $name"; res=1; }
	awk -v t="$name" -v r="$ROLE" '
		/bytes in .* Mbit\/sec/ { mb = $(NF - 1) }
		/iters in .* usec\/iter/ { us = $(NF - 1) }
		END { if (mb != "")
			printf "RDMA-HA-DATA: metric=verbs test=%s role=%s mbit_s=%s usec_per_iter=%s\n", t, r, mb, us }' \
		"/tmp/$name.log"
	barrier "$name-done" 150
}

verbs_pair ud_lid 18515 ibv_ud_pingpong -c -n 500 -s 1024
verbs_pair ud_grh 18516 ibv_ud_pingpong -c -n 500 -s 1024 -g 0
verbs_pair rc_lid 18517 ibv_rc_pingpong -c -n 500
verbs_pair rc_grh 18518 ibv_rc_pingpong -c -n 500 -g 0
verbs_pair uc_lid 18519 ibv_uc_pingpong -c -n 500
verbs_pair srq_lid 18520 ibv_srq_pingpong -c -q 4 -n 200

# ---- IPoIB and the SA ----------------------------------------------------

echo 0 >/proc/sys/net/ipv4/icmp_echo_ignore_broadcasts
wait_for 10 test -d /sys/class/net/ib0 || fail "no ib0"
ip link set ib0 up || fail "ib0 up"
ip addr add "$IB_IP/24" dev ib0 || fail "address on ib0"
barrier ipoib
wait_for 30 ping -c1 -W1 "$PEER_IB" || { log "FAIL: no ping over ib0"; res=1; }
# link-local address on ib0 once DAD is done
wait_for 10 sh -c 'ip -6 addr show dev ib0 scope link | grep -q "inet6.*scope link *$"' ||
	log "ib0: no IPv6 link-local address: $(ip -6 addr show dev ib0)"
LL=$(ip -6 addr show dev ib0 scope link | awk '/inet6/ { sub("/.*", "", $2); print $2; exit }')
ip maddr show dev ib0

# sa_field FILE NAME [N]: the value of the N-th (default 1st) "NAME....VALUE"
# line of a saquery dump
sa_field() {
	awk -v f="$2" -v n="${3:-1}" '{ k = $1; sub(/\.+.*/, "", k); v = $1
		sub(/^[^.]*\.+/, "", v) }
		k == f && ++i == n { print v; exit }' "$1"
}
# sa_expect FILE NAME VALUE WHAT: the record field must be VALUE
sa_expect() {
	local v
	v=$(sa_field "$1" "$2")
	[ "$v" = "$3" ] || { log "FAIL: $4: $2 is '$v', expected '$3'"; res=1; }
}

saquery -c >/tmp/sa-cpi.log 2>&1 || { log "FAIL: saquery ClassPortInfo"; res=1; }
cat /tmp/sa-cpi.log
grep -q 'Class version\.*2$' /tmp/sa-cpi.log || { log "FAIL: SA class version"; res=1; }

# gid_short GID: a fe80::/64 GID from sysfs as saquery prints it
gid_short() {
	echo "$1" | sed 's/:0\{1,3\}/:/g; s/^fe80:\(0*:\)*/fe80::/'
}

# the active MTU as the SA encodes it (enum ib_mtu)
mtu_enum=$(ibv_devinfo -d sib0 | awk '/active_mtu/ { print $NF; exit }' | tr -d '()')
mtu_sel=$(printf '0x%X' $((0x80 | mtu_enum)))
pr_check() {
	cat "$1"
	[ "$(grep -c 'PathRecord dump' "$1")" = 1 ] ||
		{ log "FAIL: $2: not one PathRecord"; res=1; return; }
	sa_expect "$1" dlid "$PEER_LID" "$2"
	sa_expect "$1" slid "$LID" "$2"
	sa_expect "$1" dgid "$(gid_short "$PEER_GID")" "$2"
	sa_expect "$1" sgid "$(gid_short "$GID")" "$2"
	sa_expect "$1" pkey 0xFFFF "$2"
	sa_expect "$1" sl 0x0 "$2"
	sa_expect "$1" mtu "$mtu_sel" "$2"
}
saquery --sgid-to-dgid "$GID-$PEER_GID" >/tmp/sa-pr-gid.log 2>&1 ||
	{ log "FAIL: saquery PathRecord by GIDs"; res=1; }
pr_check /tmp/sa-pr-gid.log "PathRecord by GIDs"
saquery --src-to-dst "$LID:$PEER_LID" >/tmp/sa-pr-lid.log 2>&1 ||
	{ log "FAIL: saquery PathRecord by LIDs"; res=1; }
pr_check /tmp/sa-pr-lid.log "PathRecord by LIDs"

# MCMemberRecords: this port is a full member of the IPoIB groups, with
# the parameters IPoIB joined with
BCAST=ff12:401b:ffff::ffff:ffff
saquery -g >/tmp/sa-groups.log 2>&1 || { log "FAIL: saquery groups"; res=1; }
cat /tmp/sa-groups.log
saquery MCMR --mgid "$BCAST" >/tmp/sa-bcast.log 2>&1 ||
	{ log "FAIL: saquery MCMemberRecord"; res=1; }
cat /tmp/sa-bcast.log
[ "$(grep -c 'MCMember Record dump' /tmp/sa-bcast.log)" = 1 ] ||
	{ log "FAIL: not one MCMemberRecord for $BCAST"; res=1; }
sa_expect /tmp/sa-bcast.log MGID "$BCAST" "broadcast group"
sa_expect /tmp/sa-bcast.log PortGid "$(gid_short "$GID")" "broadcast group"
sa_expect /tmp/sa-bcast.log qkey 0xb1b "broadcast group"
sa_expect /tmp/sa-bcast.log pkey 0xffff "broadcast group"
sa_expect /tmp/sa-bcast.log JoinState 0x1 "broadcast group"
sa_expect /tmp/sa-bcast.log mtu "$(printf '0x%x' $((0x80 | mtu_enum)))" "broadcast group"
MLID=$(sa_field /tmp/sa-bcast.log mlid)
# IPoIB's other groups: 224.0.0.1 (the MGID drops the address's top
# nibble) and ff02::1
for g in ff12:401b:ffff::1 ff12:601b:ffff::1; do
	grep -q "MGID\.*$g$" /tmp/sa-groups.log ||
		{ log "FAIL: IPoIB group $g not at the SA"; res=1; }
done
peer_exchange mlid "$MLID"
[ -n "$MLID" ] && [ "$PEER_DATA" = "$MLID" ] ||
	{ log "FAIL: broadcast MLID $MLID here, '$PEER_DATA' on the peer"; res=1; }

# ---- multicast -----------------------------------------------------------

# IPoIB: the peer answers pings to the all-hosts and all-nodes groups
peer_exchange ll "$LL"
PEER_LL=$PEER_DATA
# mcast_ping GROUP PEER_ADDR PING_ARGS...: at least 3 of 5 echo requests
# to GROUP answered by the peer
mcast_ping() {
	local group=$1 peer=$2 n
	shift 2
	ping "$@" -c 5 -I ib0 "$group" >/tmp/mping.log 2>&1
	cat /tmp/mping.log
	n=$(grep -c "from $peer: seq=" /tmp/mping.log)
	log "$group: $n answers from the peer $peer"
	[ -n "$peer" ] && [ "$n" -ge 3 ] ||
		{ log "FAIL: $group: the peer answered $n of 5"; res=1; }
}
if [ "$ROLE" = a ]; then
	mcast_ping 224.0.0.1 "$PEER_IB"
	mcast_ping ff02::1 "$PEER_LL" -6
fi
barrier mping 60

# mckey: a receiver QP joined on each guest; a sender on a; every
# receiver must get every message (the local one through the loopback of
# multicast sends).  UD multicast is unreliable, and librdmacm attaches the
# receiver's QP only when it has read the join event, some time after the
# SA holds the record: a round of 20 messages may miss a receiver on a
# loaded host.  The sender repeats its round (at most 6 times) until both
# receivers have counted 20 messages.
MC=239.18.0.7
MC_MGID=ff12:4001:ffff::f12:7	# $MC in the RDMA CM's UDP port space
timeout 150 mckey -m $MC -b "$IB_IP" -C 20 >/tmp/mckey-rx.log 2>&1 &
rx=$!
# mckey's output is buffered: see its join at the SA instead
wait_for 60 sh -c "saquery MCMR --mgid $MC_MGID | grep -q 'MCMember Record'" ||
	log "mckey receiver did not join"
barrier mckey-joined 90
round=0
while :; do
	round=$((round + 1))
	if [ "$ROLE" = a ]; then
		timeout 60 mckey -m $MC -b "$IB_IP" -s -C 20 \
			>/tmp/mckey-tx.log 2>&1 ||
			{ log "FAIL: mckey sender"; res=1; }
		cat /tmp/mckey-tx.log
	fi
	# let the receiver drain what was sent in this round
	wait_for 5 sh -c "! kill -0 $rx 2>/dev/null" && here=done || here=busy
	peer_exchange "mckey-round-$round" "$here" 90
	log "mckey round $round: receiver here $here, on the peer $PEER_DATA"
	[ "$here" = done ] && [ "$PEER_DATA" = done ] && break
	[ "$round" -ge 6 ] && break
done
wait $rx || { log "FAIL: mckey receiver"; res=1; }
cat /tmp/mckey-rx.log
grep -q 'data transfers complete' /tmp/mckey-rx.log ||
	{ log "FAIL: mckey receiver got not all messages"; res=1; }
MC_MLID=$(sed -n "s/.*joined dgid: $MC_MGID mlid \(0x[0-9a-f]*\) .*/\1/p" /tmp/mckey-rx.log)
peer_exchange mckey-done "$MC_MLID" 120
[ -n "$MC_MLID" ] && [ "$PEER_DATA" = "$MC_MLID" ] ||
	{ log "FAIL: MLID of $MC_MGID: '$MC_MLID' here, '$PEER_DATA' on the peer"; res=1; }

sib_probe mcast-attach --dev sib0 --count 200 >/tmp/attach.log 2>&1 ||
	{ log "FAIL: $(tr '\n' ' ' </tmp/attach.log)"; res=1; }
log "$(head -n 1 /tmp/attach.log)"
rdma link add rxe0 type rxe netdev eth1 || fail "rdma link add rxe0"
sib_probe mcast-attach --dev rxe0 --count 200 >/tmp/attach-roce.log 2>&1
log "RoCE: $(tr '\n' ' ' </tmp/attach-roce.log)"
grep -qx 'attached 56 of 200' /tmp/attach-roce.log ||
	{ log "FAIL: rxe0 (RoCE) did not stop at 56 attaches"; res=1; }
rdma link delete rxe0

dmesg | grep -iE 'sib|ipoib|rxe' | tail -n 20
exit $res
