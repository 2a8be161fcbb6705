#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=300 kernel=patched
#
# Two soft InfiniBand ports whose MAC addresses give the same LID (issue
# 18, D6): a's eth0 is 52:54:00:10:5a:17 and b's 52:54:00:20:5a:17, both
# LID 0x5a17.  Each drops the other's frames as its own, so IPoIB between
# them never worked.  Now the port with the higher MAC address (b) moves
# to another LID when it hears the other, and raises IB_EVENT_LID_CHANGE:
#  - IPoIB pings go through both ways;
#  - a keeps LID 0x5a17, b has another one, and each port's SM LID is its
#    own LID (ib_sa follows the move);
#  - the SA of each node answers a PathRecord for the peer's GID with the
#    LID the peer really has (saquery);
#  - b's kernel log tells the move from 0x5a17.
# b's ib0 is up (joined, an ARP sent) before a's port exists, so that b
# moves under a live IPoIB interface.  eth1 carries plain IP for the
# barriers.
. "$(dirname "$0")/lib.sh"

need_cmd rdma saquery
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
PORT=/sys/class/infiniband/sib0/ports/1
res=0

nic_setup eth1 "$MY_IP"
ip link set eth0 address "52:54:00:${ROLE_NUM}0:5a:17" || fail "eth0 MAC"
# b's IPoIB runs before a's port exists, so that b moves under a live ib0
[ "$ROLE" = b ] || barrier b_up 120
sib_add sib0 eth0
# b may have moved already (it hears a as soon as both ports are up)
LID=$(($(cat $PORT/lid)))
[ "$ROLE" = b ] || [ "$LID" = $((0x5a17)) ] ||
	fail "sib0 starts at LID $(cat $PORT/lid), not 0x5a17"
GID=$(cat $PORT/gids/0)
ip link set ib0 up || fail "ib0 up"
ip addr add "$IB_IP/24" dev ib0 || fail "address on ib0"
if [ "$ROLE" = b ]; then
	wait_for 30 grep -q 1 /sys/class/net/ib0/carrier || fail "no carrier on ib0"
	ping -c 2 -W 1 198.18.10.3 >/dev/null 2>&1	# an ARP on the wire
	barrier b_up 120
fi
barrier up

if wait_for 60 ping -c1 -W1 "$PEER_IB"; then
	log "first ping answered"
else
	log "FAIL: no ping over IPoIB to $PEER_IB in 60 s (colliding LIDs)"
	res=1
fi
ping -c 5 -W 2 "$PEER_IB" >/tmp/ping.log 2>&1
cat /tmp/ping.log
grep -q " 0% packet loss" /tmp/ping.log ||
	{ log "FAIL: 5 pings to $PEER_IB after the first"; res=1; }
barrier pinged 120

LID=$(($(cat $PORT/lid)))
SM_LID=$(($(cat $PORT/sm_lid)))
peer_exchange ids "$LID $GID"
set -- $PEER_DATA
PEER_LID=$1 PEER_GID=$2
log "own LID $LID (SM LID $SM_LID), peer LID $PEER_LID GID $PEER_GID"
[ "$SM_LID" = "$LID" ] || { log "FAIL: SM LID $SM_LID, LID $LID"; res=1; }
[ "$PEER_LID" != "$LID" ] || { log "FAIL: both ports at LID $LID"; res=1; }
if [ "$ROLE" = a ]; then
	[ "$LID" = $((0x5a17)) ] ||
		{ log "FAIL: a (the lower MAC address) moved to $LID"; res=1; }
else
	[ "$LID" != $((0x5a17)) ] ||
		{ log "FAIL: b (the higher MAC address) did not move"; res=1; }
	dmesg | grep "LID 0x5a17 of eth0 is also used by 52:54:00:10:5a:17: moved to LID" ||
		{ log "FAIL: no move from LID 0x5a17 in b's kernel log"; res=1; }
fi

# the local SA's PathRecord to the peer carries the peer's real LID
saquery --sgid-to-dgid "$GID-$PEER_GID" >/tmp/pr.log 2>&1 ||
	{ log "FAIL: saquery PathRecord by GIDs"; res=1; }
cat /tmp/pr.log
dlid=$(awk '{ k = $1; sub(/\.+.*/, "", k); v = $1; sub(/^[^.]*\.+/, "", v) }
	k == "dlid" { print v; exit }' /tmp/pr.log)
if [ -z "$dlid" ] || [ $((dlid)) != "$PEER_LID" ]; then
	log "FAIL: PathRecord to the peer: DLID '$dlid', peer LID $PEER_LID"
	res=1
fi
barrier done 120
[ $res = 0 ] || fail "see above"
log "PASS"
