#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1200 kernel=patched,debian
#
# RDMA CM HA modes end to end, on the seeds' topology: both guests have
# sib0 on eth0 and sib1 on eth1 (soft InfiniBand), their IPoIB interfaces
# ib0/ib1 in an active-backup bond0 that carries the IP address.  An ID
# bound to bond0's address sits on the port of the slave that was active
# when it resolved; after a failover the IP stack uses the other port, so
# the modes that follow the IP stack have something to do (with rxe on
# bond0 the RDMA device follows the bond and nothing is ever misaligned).
#
# Guest a runs the rdma_ha_pingpong server, guest b the client with
# --reconnect; each phase starts both with the given HA modes, keeps the
# connection busy, then fails over or cuts a link on both guests at once:
#
#  1 notify, notify      cut the active link (ib0 -> ib1): ADDR_CHANGE
#                        (status 0) on both sides and on the listener,
#                        the CM tears nothing down (the stock CM's and the
#                        seeds' behaviour on an IPoIB bond)
#  2 notify*, align      fail-back (ib1 -> ib0, both links up): the client
#                        ID gets ADDR_CHANGE then DISCONNECTED -ENETUNREACH;
#                        its DREQ tells the server (DISCONNECTED status 0
#                        on a notify ID); the client reconnects on sib0
#  3 align, notify       failover ib0 -> ib1 on the passive side: the
#                        accepted ID inherits align from the listener and
#                        is disconnected (DREQ seen by the client); the
#                        listener, bound to bond0's address on sib0, now
#                        also listens on sib1 and takes the reconnection
#  4 fail-fast*, f-f     failover ib1 -> ib0 with both links up: the old
#                        path is healthy, the connection is kept, no event,
#                        no stall; then cut that link (the bond's backup):
#                        DISCONNECTED -ENETDOWN on both sides from the port
#                        event, without waiting for RC retries; reconnect
#  5 migrate, notify     failover ib0 -> ib1: rxe cannot migrate (no APM),
#                        so align's actions with ADDR_CHANGE -EOPNOTSUPP,
#                        on the passive side, listener extended to sib1
#  6 ignore*, notify     failover ib1 -> ib0 with both links up: the ignore
#                        side gets no event, the notify side ADDR_CHANGE;
#                        both keep the connection
#  7 notify*, migrate    failover ib0 -> ib1: migrate's fallback on the
#                        active side
#  8 align, align        cut the active link (ib1 -> ib0): both IDs torn
#                        down with -ENETUNREACH after ADDR_CHANGE (no DREQ
#                        can cross the dead link); the client reconnects on
#                        sib0 through the extended listener
#  9 migrate, ignore     cut the active link (ib0 -> ib1): the server falls
#                        back with -EOPNOTSUPP/-ENETUNREACH; the ignore
#                        client gets no CM event and learns from its own
#                        WC error (RC retries exhausted; retry count 6),
#                        then reconnects
# 10 ignore*, migrate    cut the active link (ib1 -> ib0): migrate's
#                        fallback on the active side; the ignore server
#                        gets no CM event for its connection (it learns
#                        nothing unless it has a send outstanding) and
#                        accepts the reconnection on sib0
#  (* = the server listens on the wildcard address, else on bond0's)
#
# Every guest asserts its own side; timings are printed as RDMA-HA-DATA
# lines relative to the moment of the failover or cut (T_ACT).
. "$(dirname "$0")/lib.sh"

PP=rdma_ha_pingpong
# the CM acts within this many ms of the failover or port event (TCG margin)
ACT_MAX_MS=${RDMA_HA_ACT_MAX_MS:-3000}
# a kept connection pauses no longer than this: on a loaded host the guests'
# vCPUs stall for a few 100 ms (seen: 292 ms with no act at all); a lost
# path stalls until RC retries run out, seconds
KEPT_MAX_GAP_MS=1500
OBSERVE_S=8
ENETDOWN=100
ENETUNREACH=101
EOPNOTSUPP=95

need_cmd rdma mono_watch $PP

ib_bond_setup
wait_ping "$PEER_IP" 60
barrier ready 120
log "bond0 over ib0/ib1 up, fail_over_mac $(cat /sys/class/net/bond0/bonding/fail_over_mac)"

failed=0
seq=0
check() {
	if eval "$2"; then
		echo "RDMA-HA-DATA: phase=$seq role=$ROLE assert=ok $1"
	else
		log "ASSERTION FAILED: phase $seq: $1"
		echo "RDMA-HA-DATA: phase=$seq role=$ROLE assert=FAILED $1"
		failed=1
	fi
}
data() { echo "RDMA-HA-DATA: phase=$seq role=$ROLE $*"; }

# cmc DEV DIR MSG: ib_cm message counter (DIR tx|rx) of DEV's port 1.
cmc() { cat "/sys/class/infiniband/$1/ports/1/cm_$2_msgs/$3"; }

# The observation window of an act: from SKEW s before T_ACT (the two
# guests leave a barrier up to some ms apart, so the peer's reaction can
# come before this guest's T_ACT) to T_END, OBSERVE_S after it.
SKEW=0.5

# since PATTERN: ms from T_ACT to the first line of this guest's program
# log in the window that matches the awk regular expression PATTERN (can
# be negative, down to -SKEW); empty if there is none.
since() {
	awk -v t0="$T_ACT" -v t1="$T_END" -v sk="$SKEW" -v pat="$1" '
		$1 >= t0 - sk && $1 <= t1 && $0 ~ pat {
		printf "%.0f\n", ($1 - t0) * 1000; exit }' "$PLOG"
}

# count PATTERN: lines of the program log in the window matching PATTERN.
count() {
	awk -v t0="$T_ACT" -v t1="$T_END" -v sk="$SKEW" -v pat="$1" '
		$1 >= t0 - sk && $1 <= t1 && $0 ~ pat { n++ }
		END { print n + 0 }' "$PLOG"
}

# within MS: MS is set and at most ACT_MAX_MS.
within() { [ -n "$1" ] && [ "$1" -le "$ACT_MAX_MS" ]; }

# before A B: event times A and B both seen and A <= B.
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]; }

ev() { echo "cm_event name=RDMA_CM_EVENT_$1 status=$2 id=$3\$"; }

# start SERVER_MODE SERVER_BIND CLIENT_MODE [CLIENT_OPTION...]: a new
# phase; the server on a, the client on b (--reconnect), connected and
# exchanging pings.
start() {
	seq=$((seq + 1))
	port=$((7480 + seq))
	PLOG=/tmp/pp$seq.log
	T_ACT=0
	kmsg_mark "phase$seq"
	log "phase $seq: server $1 on $2, client $3, bond0 on $(cat /sys/class/net/bond0/bonding/active_slave)"
	if [ "$ROLE" = a ]; then
		$PP -s -b "$2" -p "$port" -d 600 --ha-mode "$1" >"$PLOG" 2>&1 &
		PID=$!
		wait_for 10 grep -q ' listening ' "$PLOG" ||
			fail "phase $seq: server did not listen: $(cat "$PLOG")"
		barrier "srv$seq"
	else
		barrier "srv$seq"
		$PP -c "$PEER_IP" -b "$MY_IP" -p "$port" -d 600 --reconnect \
			--ha-mode "$3" $4 >"$PLOG" 2>&1 &
		PID=$!
	fi
	wait_for 40 grep -q ' connected id=1 ' "$PLOG" ||
		fail "phase $seq: no connection: $(cat "$PLOG")"
	barrier "conn$seq" 60
	sleep 3
}

# act switch IF | cut N | restore N: on both guests after a barrier.
#   switch: administrative failover of bond0 to IF, both links stay up;
#   cut/restore: set_link nN off/on at both ends of link N.
# switch and cut set T_ACT, wait OBSERVE_S for the CM and the programs to
# react and set T_END: the checks look at that window only.
act() {
	barrier "act$seq-$1$2"
	[ "$1" = restore ] || T_ACT=$(now)
	case $1 in
	switch)
		bond_activate "$2" ;;
	cut)
		[ "$ROLE" = a ] || host_cmd both "set_link n$2 off"
		wait_carrier "eth$2" 0 10 ;;
	restore)
		[ "$ROLE" = a ] || host_cmd both "set_link n$2 on"
		wait_carrier "eth$2" 1 30
		wait_for 30 grep -q ACTIVE "/sys/class/infiniband/sib$2/ports/1/state" ||
			fail "sib$2 not ACTIVE again"
		return ;;
	esac
	data "what=act act=$1 arg=$2 t_act=$T_ACT bond0=$(cat /sys/class/net/bond0/bonding/active_slave)"
	sleep $OBSERVE_S
	T_END=$(now)
}

# stop: end both programs, the client first (SIGTERM: its verdict is 0
# when it is connected and not stalled), and print the program log.
stop() {
	if [ "$ROLE" = b ]; then
		kill "$PID" 2>/dev/null
		wait "$PID"
		RC=$?
		barrier "stop$seq" 120
	else
		barrier "stop$seq" 120
		kill "$PID" 2>/dev/null
		wait "$PID"
		RC=$?
	fi
	sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /" "$PLOG"
	data "what=exit rc=$RC"
}

# teardown_checks STATUS: this side's connection (id 1) was torn down by
# the CM with STATUS, after ADDR_CHANGE (status ADDR_STATUS) when the act
# was a failover, quickly; then (client) it reconnected on DEV.
teardown_checks() {
	local status=$1 addr_status=$2 t_addr t_disc
	t_disc=$(since "$(ev DISCONNECTED "-$status" 1)")
	data "what=disconnected_ms value=${t_disc:-none} status=-$status"
	check "id 1 DISCONNECTED status -$status within ${ACT_MAX_MS} ms (${t_disc:-never})" \
		'within "$t_disc"'
	if [ -n "$addr_status" ]; then
		t_addr=$(since "$(ev ADDR_CHANGE "$addr_status" 1)")
		data "what=addr_change_ms value=${t_addr:-none} status=$addr_status"
		check "id 1 ADDR_CHANGE status $addr_status before DISCONNECTED (${t_addr:-never} <= ${t_disc:-never})" \
			'before "$t_addr" "$t_disc"'
	fi
}

# peer_disconnect_checks: this side's notify ID learnt of the peer's
# teardown from its DREQ: DISCONNECTED status 0, quickly.
peer_disconnect_checks() {
	local t
	t=$(since "$(ev DISCONNECTED 0 1)")
	data "what=peer_dreq_disconnected_ms value=${t:-none}"
	check "id 1 DISCONNECTED status 0 (the peer's DREQ) within ${ACT_MAX_MS} ms (${t:-never})" \
		'within "$t"'
}

# reconnected_checks DEV: a new connection (id > 1) on DEV after T_ACT; on
# the client, traffic flows on it (it was busy when stopped: exit 0).
reconnected_checks() {
	local t
	t=$(since " connected id=([2-9]|[1-9][0-9]) .* dev=$1 ")
	data "what=reconnected_ms value=${t:-none} dev=$1"
	check "new connection on $1 (${t:-never} ms)" '[ -n "$t" ]'
	[ "$ROLE" = a ] ||
		check "client busy at the end of the phase (exit $RC, want 0)" '[ "$RC" = 0 ]'
}

# kept_checks WHAT: the connection (id 1) survived the act: no teardown,
# no WC error, no reconnection, no stall.
kept_checks() {
	check "$1: no DISCONNECTED/UNREACHABLE/REJECTED" \
		'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
	check "$1: no WC error" '[ "$(count " wc_error ")" = 0 ]'
	check "$1: no new connection" '[ "$(count " connected id=")" = 0 ]'
	[ "$ROLE" = a ] ||
		check "$1: no stall over $KEPT_MAX_GAP_MS ms (longest $(longest_stall) ms)" \
			'[ "$(longest_stall)" -le "$KEPT_MAX_GAP_MS" ]'
}

# longest_stall: ms of the longest data stall in the window, a stall still
# open at T_END counted up to T_END.
longest_stall() {
	awk -v t0="$T_ACT" -v t1="$T_END" -v sk="$SKEW" '
		$1 >= t0 - sk && $1 <= t1 && / stall begin / {
			open = 1; since = $1
			for (i = 1; i <= NF; i++)
				if ($i ~ /^since=/) since = substr($i, 7)
		}
		$1 >= t0 - sk && $1 <= t1 && / stall end / {
			open = 0
			for (i = 1; i <= NF; i++)
				if ($i ~ /^gap_ms=/ && substr($i, 8) + 0 > max)
					max = substr($i, 8) + 0
		}
		END {
			if (open && (t1 - since) * 1000 > max)
				max = (t1 - since) * 1000
			printf "%.0f\n", max
		}' "$PLOG"
}

# -- phase 1: notify/notify, cut the active link (ib0) -------------------
start notify "$MY_IP" notify
act cut 0
t=$(since "$(ev ADDR_CHANGE 0 1)")
data "what=addr_change_ms value=${t:-none}"
check "id 1 ADDR_CHANGE status 0 within ${ACT_MAX_MS} ms (${t:-never})" 'within "$t"'
if [ "$ROLE" = a ]; then
	t=$(since "$(ev ADDR_CHANGE 0 0)")
	check "listener ADDR_CHANGE status 0 within ${ACT_MAX_MS} ms (${t:-never})" 'within "$t"'
fi
check "notify: the CM tore nothing down (no event with -ENETDOWN/-ENETUNREACH)" \
	'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
check "bond0 failed over to ib1" 'grep -qx ib1 /sys/class/net/bond0/bonding/active_slave'
for m in req rep rtu dreq drep; do
	data "what=cm_msgs dev=sib0 tx_$m=$(cmc sib0 tx $m) rx_$m=$(cmc sib0 rx $m)"
done
act restore 0
stop

# -- phase 2: fail-back, client align, server notify (wildcard) -----------
start notify 0.0.0.0 align
dreq0=$(cmc sib1 rx dreq)
dreq_tx0=$(cmc sib1 tx dreq)
act switch ib0
stop
if [ "$ROLE" = b ]; then
	teardown_checks $ENETUNREACH 0
	check "the client sent a DREQ on sib1" '[ "$(cmc sib1 tx dreq)" -gt "$dreq_tx0" ]'
	check "client reconnected" 'grep -q " reconnect attempt=1" "$PLOG"'
else
	peer_disconnect_checks
	check "the server received a DREQ on sib1" '[ "$(cmc sib1 rx dreq)" -gt "$dreq0" ]'
	check "notify server: no teardown status of its own" \
		'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
fi
reconnected_checks sib0

# -- phase 3: failover on the passive side: server align, client notify ---
start align "$MY_IP" notify
act switch ib1
stop
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH 0
	check "align listener: no event" '[ "$(count " id=0$")" = 0 ]'
else
	peer_disconnect_checks
fi
reconnected_checks sib1

# -- phase 4: fail-fast, healthy old path kept, then its port dies --------
start fail-fast 0.0.0.0 fail-fast
act switch ib0
kept_checks "fail-fast, failover with the old path healthy"
check "fail-fast, healthy path: no CM event at all" \
	'[ "$(count " cm_event ")" = 0 ]'
act cut 1
teardown_checks $ENETDOWN ""
[ "$ROLE" = a ] ||
	check "client reconnected" 'grep -q " reconnect attempt=1" "$PLOG"'
act restore 1
stop
reconnected_checks sib0

# -- phase 5: migrate without an alternate path falls back to align -------
start migrate "$MY_IP" notify
act switch ib1
stop
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH "-$EOPNOTSUPP"
	check "migrate listener: no event" '[ "$(count " id=0$")" = 0 ]'
else
	peer_disconnect_checks
fi
reconnected_checks sib1

# -- phase 6: ignore on the server, notify on the client, both links up ---
start ignore 0.0.0.0 notify
act switch ib0
if [ "$ROLE" = a ]; then
	check "ignore: no CM event" '[ "$(count " cm_event ")" = 0 ]'
else
	t=$(since "$(ev ADDR_CHANGE 0 1)")
	check "notify: id 1 ADDR_CHANGE status 0 within ${ACT_MAX_MS} ms (${t:-never})" 'within "$t"'
fi
kept_checks "ignore/notify, failover with both links up"
stop
[ "$ROLE" = a ] || check "client busy at the end (exit $RC, want 0)" '[ "$RC" = 0 ]'

# -- phase 7: migrate on the active side ----------------------------------
start notify 0.0.0.0 migrate
act switch ib1
stop
if [ "$ROLE" = b ]; then
	teardown_checks $ENETUNREACH "-$EOPNOTSUPP"
else
	peer_disconnect_checks
fi
reconnected_checks sib1

# -- phase 8: align on both sides, the active link is cut ----------------
start align "$MY_IP" align
act cut 1
teardown_checks $ENETUNREACH 0
[ "$ROLE" = a ] ||
	check "client reconnected" 'grep -q " reconnect attempt=1" "$PLOG"'
act restore 1
stop
reconnected_checks sib0

# -- phase 9: migrate server, ignore client, the active link is cut -------
# the ignore side waits for RC retry exhaustion (rxe retries forever with
# the client's default retry count 7): a finite count, a longer window
start migrate "$MY_IP" ignore "--retry-count 6"
OBSERVE_S=30
act cut 0
OBSERVE_S=8
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH "-$EOPNOTSUPP"
else
	check "ignore: no ADDR_CHANGE" '[ "$(count "RDMA_CM_EVENT_ADDR_CHANGE")" = 0 ]'
	check "ignore: the CM tore nothing down (no -ENETDOWN/-ENETUNREACH)" \
		'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
	t=$(since " wc_error .* id=1 ")
	data "what=own_wc_error_ms value=${t:-none}"
	check "ignore: id 1 learnt from its own WC error (${t:-never} ms)" '[ -n "$t" ]'
fi
act restore 0
stop
reconnected_checks sib1

# -- phase 10: ignore server, migrate client, the active link is cut ------
start ignore 0.0.0.0 migrate
act cut 1
if [ "$ROLE" = b ]; then
	teardown_checks $ENETUNREACH "-$EOPNOTSUPP"
else
	check "ignore: no CM event on id 1" '[ "$(count " cm_event .* id=1$")" = 0 ]'
fi
act restore 1
stop
reconnected_checks sib0

dmesg | grep -E 'bond0|sib|rdma-ha: mark' | tail -n 40
[ $failed = 0 ] || fail "assertions failed"
log "all assertions hold"
exit 0
