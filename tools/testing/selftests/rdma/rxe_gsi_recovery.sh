#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=300 kernel=patched
#
# A RoCE port's QP1 survives a MAD that cannot be sent (patch "RDMA/rxe:
# Stop only the send queue of a UD QP on a send error").  Guest a's
# rdma_ha_pingpong server is connected to b's client over rxe0 on eth0
# (198.18.2.N); then a's address, and so the source GID of the
# connection, goes away and the server ends: the CM's DREQ fails in rxe
# (no GID).  Asserted on a: the CM sent a DREQ, QP1 is back in RTS
# within 5 s (the MAD layer's SQE -> RTS recovery; stock rxe leaves it in
# ERR for good), and with the address back a new connection from b is
# accepted: its REP leaves QP1.  eth1 (198.18.0.N) carries the barriers.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"

need_cmd rdma mono_watch $PP

RDMA_IP=198.18.2.$ROLE_NUM
PEER_RDMA_IP=198.18.2.$PEER_NUM

# qp1_state: the state of rxe0's QP1 (RTS, SQE, ERR, ...).
qp1_state() {
	rdma resource show qp link rxe0/1 lqpn 1 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "state") print $(i + 1) }'
}

qp1_rts() { [ "$(qp1_state)" = RTS ]; }

# no_gid: rxe0 holds no GID of 198.18.2.0/24 any more.
no_gid() { ! cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -q ffff:c612:02; }

# pp_conn N: connection round N, the server on a, the client on b; sets
# CONNECTED to 1 when the connection is up.
pp_conn() {
	local port=$((7490 + $1))
	PLOG=/tmp/gsi$1.log
	if [ "$ROLE" = a ]; then
		$PP -s -b "$RDMA_IP" -p $port -d 120 >"$PLOG" 2>&1 &
		PID=$!
		wait_for 10 grep -q ' listening ' "$PLOG" ||
			fail "round $1: server did not listen: $(cat "$PLOG")"
		barrier "srv$1"
	else
		barrier "srv$1"
		$PP -c "$PEER_RDMA_IP" -b "$RDMA_IP" -p $port -d 120 \
			--retry-count 3 >"$PLOG" 2>&1 &
		PID=$!
	fi
	CONNECTED=0
	wait_for 40 grep -q ' connected id=1 ' "$PLOG" && CONNECTED=1
	log "round $1: connected=$CONNECTED"
}

nic_setup eth1 "$MY_IP"
nic_setup eth0 "$RDMA_IP"
rxe_add rxe0 eth0
wait_ping "$PEER_IP" 60
wait_ping "$PEER_RDMA_IP" 60
barrier ready 120

seq=1
pp_conn 1
check "round 1: connected" '[ $CONNECTED = 1 ]'
check "QP1 in RTS before ($(qp1_state))" 'qp1_rts'
barrier conn1 60

if [ "$ROLE" = a ]; then
	sent0=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts)
	dreq0=$(cmc rxe0 tx dreq)
	# the connection's source GID goes away; its DREQ cannot be sent
	ip addr del "$RDMA_IP/24" dev eth0 || fail "address off eth0"
	wait_for 10 no_gid || fail "rxe0 kept the address's GID"
	kill "$PID"
	wait "$PID"
	sed "s/^/round 1: /" "$PLOG"
	check "the CM sent a DREQ ($dreq0 -> $(cmc rxe0 tx dreq))" \
		'[ "$(cmc rxe0 tx dreq)" -gt "$dreq0" ]'
	sent1=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts)
	data "what=dreq_without_gid sent_pkts_before=$sent0 after=$sent1 qp1=$(qp1_state)"
	wait_for 5 qp1_rts
	check "QP1 back in RTS within 5 s of the failed send ($(qp1_state))" \
		'qp1_rts'
	nic_setup eth0 "$RDMA_IP"
	wait_ping "$PEER_RDMA_IP" 30
	barrier down 60
else
	barrier down 60
	kill "$PID"
	wait "$PID"
	sed "s/^/round 1: /" "$PLOG"
fi

# round 2: the same port takes a new connection (a's REP leaves QP1)
seq=2
[ "$ROLE" = b ] || rep0=$(cmc rxe0 tx rep)
pp_conn 2
check "round 2: connected again" '[ $CONNECTED = 1 ]'
[ "$ROLE" = b ] || data "what=reps_sent before=$rep0 after=$(cmc rxe0 tx rep)"
check "QP1 in RTS at the end ($(qp1_state))" 'qp1_rts'
barrier end2 60
kill "$PID" 2>/dev/null
wait "$PID"
sed "s/^/round 2: /" "$PLOG"
[ $failed = 0 ] || fail "assertions failed"
log "all assertions hold"
exit 0
