#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched
#
# Automatic path migration across the two ports of a soft InfiniBand
# device (drivers/infiniband/sw/rxe/rxe_apm.c, rdma_rxe.sib_ports=2), as
# on a dual-port HCA: sib0 has port 1 on eth0 and port 2 on eth1 on both
# guests, an RC QP (user space verbs, sib_apm) has its primary path on
# port 1 to the peer's port 1 and its alternate path on port 2 to the
# peer's port 2 (alternate port number 2 in modify QP).
#  1. traffic arms both QPs (REARM -> ARMED), primary port 1;
#  2. under a stream of sends eth0's link is cut at both ends (QEMU
#     set_link n0 off: port 1 goes DOWN): the sender exhausts its retries
#     on port 1 and migrates to port 2, the receiver migrates on the first
#     packet with MigReq = 1 arriving on port 2; both get
#     IBV_EVENT_PATH_MIG, no completion in error, no message lost or out of
#     order, the longest gap between two send completions stays within
#     the bound (RDMA-HA-MEASURE apm-ports-gap-ms), both QPs are on port 2;
#     port 2's PMA counted the traffic after the cut;
#  3. traffic goes on over port 2 with port 1 still cut;
#  4. the link back, port 1 loaded again as the alternate path, both rearm
#     and arm; the sender forces the migration back to port 1 with modify
#     QP (MIGRATED), its next messages migrate the receiver (event): both
#     on port 1 again, traffic flows.
# eth1 also carries plain IP for the barriers.
. "$(dirname "$0")/lib.sh"

need_cmd rdma ibv_devinfo sib_apm perfquery
P1=/sys/class/infiniband/sib0/ports/1
P2=/sys/class/infiniband/sib0/ports/2
OUT=/tmp/apm.out
# The gap bound, as in sib_apm: the retries of the primary path (3 + 1
# local ACK timeouts of 67 ms) and one retry on the alternate path, at the
# 4 ms jiffies of the guests and with a loaded TCG host: 3 s.
GAP_MAX_MS=3000

nic_setup eth1 "$MY_IP"
sib_two_ports
ibv_devinfo -v -d sib0 | grep -q AUTO_PATH_MIG ||
	fail "sib0 does not announce AUTO_PATH_MIG"

peer_exchange ids "$(($(cat $P1/lid))) $(cat $P1/gids/0) $(($(cat $P2/lid))) $(cat $P2/gids/0)"
set -- $PEER_DATA
PEER_LID1=$1 PEER_GID1=$2 PEER_LID2=$3 PEER_GID2=$4
log "peer: port 1 LID $PEER_LID1 GID $PEER_GID1, port 2 LID $PEER_LID2 GID $PEER_GID2"

mkfifo /tmp/apm.in
sib_apm --dev sib0 --peer-lid "$PEER_LID1" --peer-gid "$PEER_GID1" \
	--alt-port 2 --alt-lid "$PEER_LID2" --alt-gid "$PEER_GID2" \
	</tmp/apm.in >$OUT 2>&1 &
pid=$!
exec 3>/tmp/apm.in

# the helpers of sib_apm.sh
_apm_bad() {
	grep -q '^wc error\|^error' $OUT || ! kill -0 $pid 2>/dev/null
}
_apm_from=1
_apm_has() {
	_apm_bad && return 0
	tail -n +$_apm_from $OUT | grep -q "$1"
}
apm_wait() {
	wait_for "${2:-30}" _apm_has "$1" ||
		fail "sib_apm: no '$1' in: $(cat $OUT)"
	! _apm_bad || fail "sib_apm: $(cat $OUT)"
	REPLY=$(tail -n +$_apm_from $OUT | grep -m 1 "$1")
}
apm() {
	_apm_from=$(($(wc -l <$OUT) + 1))
	echo "$1" >&3
	[ -z "$2" ] || apm_wait "$2" "$3"
}
# expect_state WANT: the QP ("MIG sl SL grh G") is WANT, on port PORT
expect_state() {
	apm state '^state '
	[ "$REPLY" = "state $1" ] || fail "QP: '$REPLY', expected 'state $1'"
	apm port '^port '
	[ "$REPLY" = "port $2" ] || fail "QP: '$REPLY', expected 'port $2'"
	log "QP state $1, port $2"
}
_events_are() {
	apm events '^events '
	[ "$REPLY" = "events mig $1 migerr 0" ]
}
expect_events() {
	wait_for 30 _events_are "$1" ||
		fail "events: '$REPLY', expected mig $1 migerr 0"
	log "$REPLY"
}
recv_total() {
	apm recvd '^recvd '
	echo "${REPLY#recvd }"
}
# xmit_pkts PORT: PortXmitPkts of PORT (perfquery -x, the PMA)
xmit_pkts() {
	perfquery -C sib0 -P "$1" -x 2>/dev/null |
		sed -n 's/^PortXmitPkts:\.*//p'
}

wait_for 10 grep -q '^qpn ' $OUT || fail "sib_apm: $(cat $OUT)"
QPN=$(grep -m 1 '^qpn ' $OUT | cut -d' ' -f2)
peer_exchange qpn "$QPN"
apm "peer $PEER_DATA" '^connected'
log "QP $QPN connected to $PEER_DATA"
barrier connected

# 1. traffic arms both QPs
[ "$ROLE" = b ] || apm "send 100" '^sent 100$'
barrier armed-traffic
expect_state "ARMED sl 0 grh 0" 1
barrier armed

# 2. port 1's link is cut under traffic
x2=$(xmit_pkts 2)
if [ "$ROLE" = a ]; then
	apm "stream 200"
	nap 1
	host_cmd both "set_link n0 off"
fi
wait_for 60 grep -q DOWN $P1/state || fail "port 1 not DOWN after the cut"
log "port 1 DOWN"
if [ "$ROLE" = a ]; then
	apm_wait '^streamed ' 180
	set -- $REPLY
	sent=$2 gap=$4
	echo "RDMA-HA-MEASURE: apm-ports-gap-ms $gap bound=$GAP_MAX_MS"
	[ "$gap" -le $GAP_MAX_MS ] ||
		fail "longest gap between send completions $gap ms > $GAP_MAX_MS ms"
	log "$REPLY"
	peer_exchange sent "$sent" 180
else
	peer_exchange sent "" 180
	sent=$PEER_DATA
	got=$(recv_total)
	[ "$got" = "$sent" ] || fail "received $got messages, the peer sent $sent"
	log "received all $got messages in order"
fi
expect_events 1
expect_state "MIGRATED sl 1 grh 1" 2
d2=$(( $(xmit_pkts 2) - x2 ))
log "port 2 sent $d2 packets since the cut"
[ "$d2" -ge 100 ] || fail "port 2 sent $d2 packets, the stream went elsewhere"
barrier migrated

# 3. traffic goes on over port 2, port 1 still cut
grep -q DOWN $P1/state || fail "port 1 came back during the test"
[ "$ROLE" = b ] || apm "send 50" "^sent $((sent + 50))\$" 60
barrier on-port2
if [ "$ROLE" = b ]; then
	got=$(recv_total)
	[ "$got" = "$((sent + 50))" ] ||
		fail "received $got messages over port 2, the peer sent $((sent + 50))"
	log "received $got messages over port 2"
fi
barrier port2-checked

# 4. port 1 back, forced migration back to it
[ "$ROLE" = a ] && host_cmd both "set_link n0 on"
wait_for 60 grep -q ACTIVE $P1/state || fail "port 1 not ACTIVE after the link came back"
barrier restored 120
apm "rearm-port 1 0 0" '^rearmed'
barrier rearmed
[ "$ROLE" = b ] || apm "send 50" "^sent $((sent + 100))\$" 60
barrier rearm-traffic
expect_state "ARMED sl 1 grh 1" 2
barrier armed-again
if [ "$ROLE" = a ]; then
	apm force '^forced'
	expect_state "MIGRATED sl 0 grh 0" 1
	apm "send 50" "^sent $((sent + 150))\$" 60
	expect_events 1
else
	expect_events 2
	expect_state "MIGRATED sl 0 grh 0" 1
fi
barrier forced
if [ "$ROLE" = b ]; then
	got=$(recv_total)
	[ "$got" = "$((sent + 150))" ] ||
		fail "received $got messages, the peer sent $((sent + 150))"
	log "received all $got messages in order"
fi
barrier done
echo quit >&3
wait $pid || fail "sib_apm exited $?: $(cat $OUT)"
exec 3>&-
# (not "lockdep": the boot says "RCU lockdep checking is enabled")
if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|possible recursive|circular locking|inconsistent lock'; then
	fail "kernel warning"
fi
log "PASS"
