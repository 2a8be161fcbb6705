#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=400 kernel=patched,kasan
#
# Automatic path migration (IB APM) of an RC connection between the sib0
# ports of two guests (drivers/infiniband/sw/rxe/rxe_apm.c), with user
# space verbs (sib_apm): the QPs are connected with a primary path (the
# peer's LID, SL 0, no GRH) and an alternate path (the same LID, SL 1, a
# GRH) and rearmed; messages are checked in order on the receiving side.
#  1. sib0 announces AUTO_PATH_MIG; traffic arms both QPs (REARM -> ARMED);
#  2. under a stream of sends, SL 0 is cut on both guests (debugfs
#     rxe/sib0/lost_sls: the soft IB ports lose what they send on SL 0, as
#     a fabric whose SL 0 routes died would): the sender exhausts its
#     retries, migrates to SL 1 and retransmits, the receiver migrates on
#     the first packet with MigReq = 1 on its alternate path; both get
#     IBV_EVENT_PATH_MIG, no
#     completion in error, no message lost, and the longest gap between two
#     send completions stays within the bound (RDMA-HA-MEASURE apm-gap-ms);
#  3. SL 0 restored and loaded again as the alternate path, both rearm and
#     arm, the sender forces the migration with modify QP (MIGRATED, no
#     event on its side); its next message migrates the receiver (event);
#     SL 1 is then cut and traffic still flows: it is on SL 0.
# eth1 carries plain IP for the barriers.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sib_apm_lib.sh"

need_cmd rdma ibv_devinfo sib_apm
PORT=/sys/class/infiniband/sib0/ports/1
LOST=/sys/kernel/debug/rxe/sib0/lost_sls
# The retransmission gap bound: the retries of the primary path (3 + 1 local
# ACK timeouts of 67 ms) and one retry on the alternate path, at the 4 ms
# jiffies of the guests and with a loaded TCG host: 3 s.
GAP_MAX_MS=3000

nic_setup eth1 "$MY_IP"
ip link set eth0 mtu 4200 up
wait_carrier eth0 1
rdma link add sib0 type sib netdev eth0 || fail "rdma link add sib0"
wait_for 10 grep -q ACTIVE $PORT/state || fail "sib0 not ACTIVE"

[ -w $LOST ] || fail "no $LOST"
ibv_devinfo -v -d sib0 | grep -q AUTO_PATH_MIG ||
	fail "sib0 does not announce AUTO_PATH_MIG"
log "sib0 announces AUTO_PATH_MIG"

LID=$(($(cat $PORT/lid)))
GID=$(cat $PORT/gids/0)
peer_exchange ids "$LID $GID"
set -- $PEER_DATA
PEER_LID=$1 PEER_GID=$2
log "own LID $LID GID $GID, peer LID $PEER_LID GID $PEER_GID"

# expect_state WANT: sib_apm's QP ("MIG sl SL grh G") is WANT.
expect_state() {
	apm state '^state '
	[ "$REPLY" = "state $1" ] || fail "QP: '$REPLY', expected 'state $1'"
	log "QP $REPLY"
}

# recv_total: what this guest received, in order
recv_total() {
	apm recvd '^recvd '
	echo "${REPLY#recvd }"
}

# cut_sl SL: lose every soft IB packet of SL this guest sends (debugfs
# rxe/sib0/lost_sls; both guests do it, so both directions of the path are
# cut); cut_sl none restores.
cut_sl() {
	local mask=0
	[ "$1" = none ] || mask=$((1 << $1))
	echo $mask >$LOST || fail "cannot write $LOST"
}

apm_start apm --dev sib0 --peer-lid "$PEER_LID" --peer-gid "$PEER_GID"
peer_exchange qpn "$QPN"
PEER_QPN=$PEER_DATA
apm "peer $PEER_QPN" '^connected'
log "QP $QPN connected to $PEER_QPN"
barrier connected

# 1. traffic arms both QPs
[ "$ROLE" = b ] || apm "send 100" '^sent 100$'
barrier armed-traffic
expect_state "ARMED sl 0 grh 0"
barrier armed

# 2. the primary path dies under traffic
if [ "$ROLE" = a ]; then
	apm "stream 200"
	nap 1
fi
barrier streaming
cut_sl 0
log "SL 0 cut"
if [ "$ROLE" = a ]; then
	apm_streamed apm-gap-ms 120
	peer_exchange sent "$sent" 180
else
	peer_exchange sent "" 180
	sent=$PEER_DATA
	got=$(recv_total)
	[ "$got" = "$sent" ] || fail "received $got messages, the peer sent $sent"
	log "received all $got messages in order"
fi
expect_events 1
expect_state "MIGRATED sl 1 grh 1"
barrier migrated

# 3. forced migration back to SL 0
cut_sl none
apm "rearm 0 0" '^rearmed'
barrier rearmed
[ "$ROLE" = b ] || apm "send 50" "^sent $((sent + 50))\$"
barrier rearm-traffic
expect_state "ARMED sl 1 grh 1"
barrier armed-again
if [ "$ROLE" = a ]; then
	apm force '^forced'
	expect_state "MIGRATED sl 0 grh 0"
	apm "send 50" "^sent $((sent + 100))\$"
	expect_events 1
else
	expect_events 2
	expect_state "MIGRATED sl 0 grh 0"
fi
barrier forced
cut_sl 1
log "SL 1 cut"
[ "$ROLE" = b ] || apm "send 50" "^sent $((sent + 150))\$" 60
barrier after-cut
if [ "$ROLE" = b ]; then
	got=$(recv_total)
	[ "$got" = "$((sent + 150))" ] ||
		fail "received $got messages, the peer sent $((sent + 150))"
	log "received all $got messages in order"
	expect_events 2
else
	expect_events 1
fi
cut_sl none
barrier done
apm_stop
log "PASS"
