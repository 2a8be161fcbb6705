#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=900 kernel=patched,kasan
#
# RDMA CM migrate mode moves a connection to its alternate path instead of
# tearing it down (issue 20).  Both guests have a two-port soft InfiniBand
# device sib0 (rdma_rxe.sib_ports=2: port 1 on eth0, port 2 on eth1), as a
# dual-port HCA, and an active-backup bond0 of its IPoIB interfaces ib0
# (port 1) and ib1 (port 2) that carries the IP address.  The client (b,
# librdmacm: rdma_ha_pingpong --alt-path) gives its connection, once the
# route is resolved, an alternate path from its port 2 to the server's
# port 2, with a GRH (RDMA_OPTION_IB_PATH with one IB_PATH_ALTERNATE
# record); the
# server's ID learns it from the REQ, and both QPs arm it (ib_cm's
# attributes through rdma_init_qp_attr(), which librdmacm applies).
#
#  0 paths that do not fit are refused with EINVAL and the connection is
#    not attempted: a source LID that is not the source port's (port 1's
#    LID with port 2's GID), a source GID that is not the device's (the
#    peer's GID).
#  1 notify server, migrate client: link 0 cut at both ends under
#    traffic; bond0 fails over to ib1 on both guests.  Client: the CM
#    decides "migrate" for the connection on bonding's failover
#    (cm_ha_decision event=bond-failover; miimon is 20 ms here, so that
#    the failover's work runs before the port's 100 ms hold-off is over:
#    a trigger queued while the ID's work is pending merges into it, and
#    with miimon 100 the port's judgement once came in the same tick and
#    was the only one traced) and tears nothing down: no CM event, no WC error, no new connection; its QP
#    migrates as port 1 goes down, IBV_EVENT_PATH_MIG before the port's
#    IBV_EVENT_PORT_ERR (it does not spend its retries, count 3, on the
#    dead path first); the longest gap in the ping traffic stays within
#    MIGRATE_GAP_MS (RDMA-HA-MEASURE cma-migrate-gap-ms).
#    Server: its QP migrates as its port 1 goes down too, before the
#    port's error event; the notify ID gets the stock CM's ADDR_CHANGE
#    (status 0) and nothing that ends it, and echoes all along.
#  2 link 0 still cut, the client ends the connection: its DREQ goes out
#    of port 2 (the CM told ib_cm of the migration), the server gets
#    DISCONNECTED status 0 within ACT_MAX_MS, and port 2's CM counters
#    show the DREQ sent by b and received by a.  Once the IDs are gone,
#    port 2's GID is still in its table on both guests.
#  3 link 0 back, ib0 active again, link 1 cut, ib1 down and up: IPoIB
#    lets its address handles on port 2 go, and port 2's GID is still in its table (a
#    migration must leave ib_cm's two address vectors with references of
#    their own: a reference put twice frees the GID here).
#  4 a new migrate client; link 0 cut: the QP migrates to port 2; link 0
#    back and bond0 fails back to ib0 under traffic: the connection stays
#    on port 2 untouched (no CM event on the client, no WC error, no new
#    connection, no stall over KEPT_MAX_GAP_MS, port 2 sends all along).
#  5 a kernel consumer (rdma_cm_ha_test, CONFIG_RDMA_CMA_HA_TEST): a
#    migrate client on kernel QPs with the same alternate path, a notify
#    server; bond0 switched to ib1 on both guests with both links up (the
#    old path healthy: the device migrates nothing by itself): the CM
#    forces the client's kernel QP onto port 2, with no CM event, WC
#    error, new connection or stall; the server's QP follows
#    (IB_EVENT_PATH_MIG); the client's DREQ leaves from port 2.
#  6 the same kernel consumer, moved to port 2 by a cut of link 0: link 0
#    back, the client's CM arms the path on port 1 again (LAP, APR); link 1
#    cut: the connection moves back to port 1 with no teardown, and its
#    DREQ leaves from port 1.
#  7 the same kernel client, a librdmacm server: moved to port 2 by a cut
#    of link 0; when link 0 is back the server's CM refuses the client's
#    LAP (APR "unsupported": the QP is the program's), the connection
#    stays on port 2 untouched, and the CM tries again each time port 1
#    comes back: a LAP lost with its resends ends in IB_CM_LAP_ERROR,
#    and the next one is sent and refused again.
#  8 librdmacm programs in migrate mode at both ends, moved to port 2 by a
#    cut of link 0: when link 0 is back, each is told of the path on
#    port 1 (RDMA_CM_EVENT_ALT_PATH_LOADED) and arms its QP with it; link
#    1 cut: the connection moves back to port 1 with no teardown.
#  9 a librdmacm client in migrate mode only by its port's default_ha_mode:
#    the CM sends no LAP for its QP and tells it nothing (it may not know
#    the event).
# 10 a new kernel connection, busy; sib0 deleted on both guests: the
#    consumer lets its IDs go on DEVICE_REMOVAL and the deletion ends.
# Left for later (README): the CM finding the alternate path itself.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=sib

need_cmd rdma mono_watch $PP
# The client's gap across the cut: the port going down (the link's
# carrier), then one resend of what is outstanding on the alternate path
# (at most the CM's ACK timeout: about 330 ms on these guests, see
# cma_ha_ib phase 9), with the TCG margin of ACT_MAX_MS.  Before "RDMA/rxe:
# Migrate armed soft InfiniBand QPs when their port goes down" the QP
# first spent its retries on the dead path: 1112-1188 ms in five runs.
MIGRATE_GAP_MS=$((400 + ACT_MAX_MS))
# migrated_first: in the window, this side's QP migrated
# (IBV_EVENT_PATH_MIG) before its port's IBV_EVENT_PORT_ERR came: it moved
# when the port went down, not after its retries on the dead path.
migrated_first() {
	awk -v w0="$T_WIN" '$1 >= w0 && / async event=path migrated / {
			print "migrated"; exit }
		$1 >= w0 && / async event=port error / { print "port"; exit }' \
		"$PLOG" | grep -qx migrated
}
P1=/sys/class/infiniband/sib0/ports/1
P2=/sys/class/infiniband/sib0/ports/2
# the device's test knobs (Documentation/infiniband/soft_ib.rst)
KD=/sys/kernel/debug/rxe/sib0
# cmp N DIR MSG: ib_cm's counter of MSG (tx|rx) on port N; cm2: on port 2
cmp() { cat "/sys/class/infiniband/sib0/ports/$1/cm_$2_msgs/$3"; }
cm2() { cmp 2 "$@"; }
# cm2_reached DIR MSG N: that counter is N or more (for wait_for)
cm2_reached() { [ "$(cm2 "$1" "$2")" -ge "$3" ]; }
# lap_mark: port 2's LAP and APR counters now (lap_tx0 ... apr_rx0)
lap_mark() {
	lap_tx0=$(cm2 tx lap) lap_rx0=$(cm2 rx lap)
	apr_tx0=$(cm2 tx apr) apr_rx0=$(cm2 rx apr)
}
# apr_wait: the APR of a LAP since lap_mark went out (a) or came in (b);
# then a second for the QP to be armed on it and carry a packet
apr_wait() {
	if [ "$ROLE" = b ]; then
		wait_for 20 cm2_reached rx apr $((apr_rx0 + 1))
	else
		wait_for 20 cm2_reached tx apr $((apr_tx0 + 1))
	fi
	sleep 1
}
# lap_data WHAT: the counters since lap_mark, the HA decisions and the
# cm_ha_errors traced
lap_data() {
	data "what=$* lap_tx=$lap_tx0..$(cm2 tx lap) lap_rx=$lap_rx0..$(cm2 rx lap) apr_tx=$apr_tx0..$(cm2 tx apr) apr_rx=$apr_rx0..$(cm2 rx apr)"
	decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
	grep ' cm_ha_error: ' $T/trace | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
}
# link0_back BARRIER: after BARRIER, link 0 back at both ends, port 1
# ACTIVE and ib0 up again in bond0 (not yet its active slave)
link0_back() {
	barrier "$1" 120
	[ "$ROLE" = a ] && host_cmd both "set_link n0 on"
	wait_carrier eth0 1 30
	wait_for 30 grep -q ACTIVE $P1/state ||
		fail "port 1 not ACTIVE after link 0 came back"
	wait_carrier ib0 1 30
	wait_for 10 grep -qx up /sys/class/net/ib0/bonding_slave/mii_status ||
		fail "bond0 does not see ib0 up"
}

sib_two_ports
wait_for 10 test -d /sys/class/net/ib1 || fail "no ib1 for port 2"
ib_bond_make "$MY_IP"
# bonding fails over well inside the CM's 100 ms port-down hold-off
echo 20 >/sys/class/net/bond0/bonding/miimon || fail "bond0 miimon 20"
wait_for 30 grep -q . /sys/class/net/bond0/bonding/active_slave ||
	fail "bond0 has no active slave"
grep -qx ib0 /sys/class/net/bond0/bonding/active_slave || bond_activate ib0
wait_ping "$PEER_IP" 60
barrier ready 120

GID2=$(cat $P2/gids/0)
peer_exchange port2 "$GID2 $(($(cat $P2/lid)))"
set -- $PEER_DATA
# with a GRH (hop limit 1): the address vectors hold references on the
# GID attributes, which a migration must not lose or double (ib_cm)
ALT="$(cat $P2/gids/0),$(($(cat $P2/lid))),$1,$2,1"
log "alternate path: $ALT"
ha_trace_on cm_ha_error cm_event_handler
echo >$T/trace

# -- phase 0: alternate paths that do not fit ----------------------------
PORT0=7470
if [ "$ROLE" = a ]; then
	$PP -s -b "$MY_IP" -p $PORT0 -d 60 >/tmp/pp0s.log 2>&1 &
	PID0=$!
	wait_for 10 grep -q ' listening ' /tmp/pp0s.log || fail "phase 0: no server"
	barrier srv0
	barrier bad0 60
	check "no connection request reached the server" \
		'! grep -q CONNECT_REQUEST /tmp/pp0s.log'
	kill $PID0 2>/dev/null
	wait $PID0
else
	barrier srv0
	mygid=$(cat $P2/gids/0) lid1=$(($(cat $P1/lid))) lid2=$(($(cat $P2/lid)))
	for bad in "$mygid,$lid1,$1,$2" "$1,$lid2,$1,$2"; do
		$PP -c "$PEER_IP" -b "$MY_IP" -p $PORT0 -d 3 --alt-path "$bad" \
			>/tmp/pp0.log 2>&1
		check "alternate path $bad refused with EINVAL" \
			'grep -q " alt_path rc=-1 errno=22 " /tmp/pp0.log'
		check "no connection with it" '! grep -q " connected id=" /tmp/pp0.log'
	done
	barrier bad0 60
fi

# -- phase 1: notify server, migrate client; cut link 0 -------------------
# (stalls over 50 ms logged: the program's 200 ms would read a shorter gap
# across the migration as 0)
start notify "$MY_IP" migrate "--alt-path $ALT --retry-count 3 --stall-ms 50"
[ "$ROLE" = a ] ||
	check "the alternate path was accepted" \
		'grep -q " alt_path rc=0 errno=0 .* id=1$" "$PLOG"'
cut_active 0 ib1
act_window cut0
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
grep ' cm_ha_error: ' $T/trace | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "the QP migrated (IBV_EVENT_PATH_MIG)" \
	'[ "$(count " async event=path migrated ")" = 1 ]'
check "the QP migrated as its port went down, before IBV_EVENT_PORT_ERR" \
	migrated_first
check "no migration error" '[ "$(count " async event=path migration request error")" = 0 ]'
check "no WC error" '[ "$(count " wc_error ")" = 0 ]'
check "no new connection" '[ "$(count " connected id=")" = 0 ]'
check "no DISCONNECTED/UNREACHABLE/REJECTED" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
if [ "$ROLE" = b ]; then
	check "the CM decided migrate for the connection on the failover" \
		'decisions | grep -qE "mode=migrate event=bond-failover state=connected .* action=migrate$"'
	check "the CM's migration did not fail (no cm_ha_error)" \
		'! grep -q " cm_ha_error: " $T/trace'
	check "migrate: no CM event for the connection" \
		'[ "$(count " cm_event .* id=1$")" = 0 ]'
	gap=$(longest_stall)
	data "what=migrate_gap_ms value=$gap"
	echo "RDMA-HA-MEASURE: cma-migrate-gap-ms $gap bound=$MIGRATE_GAP_MS"
	check "longest gap in the traffic $gap ms, at most $MIGRATE_GAP_MS ms" \
		'[ "$gap" -le "$MIGRATE_GAP_MS" ]'
else
	t=$(since "$(ev ADDR_CHANGE 0 1)")
	check "notify server: ADDR_CHANGE status 0 (${t:-never} ms)" 'within "$t"'
fi

# -- phase 2: the DREQ after the migration, link 0 still cut --------------
# pp_end N: b stops the librdmacm client of the phase: its DREQ leaves
# from port N, and the server (a) gets DISCONNECTED status 0, the DREQ in
# on port N.  b stops the client as soon as it leaves the barrier, which
# may be before a does: a's window opens before the barrier, its
# reference is when it left it (the DREQ may come a little earlier:
# negative times).
pp_end() {
	KPORT=$1	# (check evaluates its test in its own scope)
	dreq_tx0=$(cmp "$KPORT" tx dreq) dreq_rx0=$(cmp "$KPORT" rx dreq)
	T_WIN=$(now)
	barrier "end$seq" 120
	T_ACT=$(now)
	if [ "$ROLE" = b ]; then
		kill "$PID" 2>/dev/null
		wait "$PID"
		RC=$?
		check "client busy until it was stopped (exit $RC, want 0)" '[ "$RC" = 0 ]'
		check "the client's DREQ went out of port $KPORT" \
			'[ "$(cmp "$KPORT" tx dreq)" -gt "$dreq_tx0" ]'
		barrier "stop$seq" 120
	else
		T_END=$(awk -v t="$T_ACT" 'BEGIN { print t + 30 }')
		wait_for 10 grep -q "$(ev DISCONNECTED 0 1)" "$PLOG"
		t=$(since "$(ev DISCONNECTED 0 1)")
		data "what=dreq_disconnected_ms value=${t:-none}"
		check "the server got the client's DREQ: DISCONNECTED status 0 (${t:-never} ms after the barrier)" \
			'within "$t"'
		check "the DREQ came in on port $KPORT" \
			'[ "$(cmp "$KPORT" rx dreq)" -gt "$dreq_rx0" ]'
		barrier "stop$seq" 120
		kill "$PID" 2>/dev/null
		wait "$PID"
	fi
	sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /" "$PLOG"
}
pp_end 2
# The connection's IDs are destroyed by now; the GID of port 2, which the
# alternate path's address vectors referenced, is still in the port's
# table.
check "port 2 still has its GID $GID2 ($(cat $P2/gids/0 2>&1))" \
	'[ "$(cat $P2/gids/0 2>&1)" = "$GID2" ]'

# -- phase 3: port 2's GID once nothing else holds it ---------------------
# The address vectors ib_cm kept for the connection held references on
# port 2's GID attribute.  A migration that makes the primary vector a
# plain copy of the alternate one (cm_migrate() before "RDMA/cm: Give the
# address vector a path migration copies its own references") puts that
# attribute twice when the cm_id goes: the GID stays in the table only as
# long as something else holds it.  Here IPoIB's address handles on ib1
# do; with link 0 back and ib0 active again, link 1 cut and ib1 down and
# up, IPoIB lets them go, and the GID must still be in port 2's table (a
# lost reference frees it: the table shows the zero GID until the next
# port event).
seq=3
link0_back back0
bond_activate ib0
wait_ping "$PEER_IP" 60
barrier back1 120
# Port 2 down (link 1 cut), then ib1 down and up: IPoIB leaves its
# multicast groups, and with the port down it joins none again, so its
# reaping work (once a second) destroys the old address handles and
# nothing holds the GID but the table.  (With the port up, IPoIB's new
# handles would hold it; once the port is back, the GID cache is filled
# again on PORT_ACTIVE and a GID freed early comes back.)
[ "$ROLE" = a ] && host_cmd both "set_link n1 off"
wait_carrier eth1 0 30
wait_for 30 grep -q DOWN $P2/state || fail "port 2 not DOWN with link 1 cut"
ip link set ib1 down || fail "ib1 down"
ip link set ib1 up || fail "ib1 up"
sleep 3
check "port 2 keeps its GID once IPoIB let it go ($(cat $P2/gids/0 2>&1))" \
	'[ "$(cat $P2/gids/0 2>&1)" = "$GID2" ]'
barrier back2 120
[ "$ROLE" = a ] && host_cmd both "set_link n1 on"
wait_carrier eth1 1 30
wait_for 30 grep -q ACTIVE $P2/state || fail "port 2 not ACTIVE after link 1 came back"

# -- phase 4: fail-back after a migration ---------------------------------
# A connection that migrated to port 2 on a cut of link 0 stays there when
# link 0 comes back and bond0 fails back to ib0: the CM leaves it alone
# (no CM event on the client, no WC error on either side, no new
# connection, no stall over KEPT_MAX_GAP_MS) and its traffic goes on over
# port 2 all along (port 2's PortXmitPkts grows through the window).
wait_carrier ib1 1 30
wait_for 30 grep -qx up /sys/class/net/ib1/bonding_slave/mii_status ||
	fail "bond0 does not see ib1 up"
wait_ping "$PEER_IP" 60
echo >$T/trace
start notify "$MY_IP" migrate "--alt-path $ALT --retry-count 3"
cut_active 0 ib1
act_window cut4
check "phase 4: the QP migrated on the cut (IBV_EVENT_PATH_MIG)" \
	'[ "$(count " async event=path migrated ")" = 1 ]'
link0_back back4
barrier "failback4" 120
T_WIN=$(now)
x0=$(cat $P2/counters/port_xmit_packets)
bond_activate ib0
T_ACT=$(now)
sleep $OBSERVE_S
T_END=$(now)
x1=$(cat $P2/counters/port_xmit_packets)
data "what=failback port2_xmit_packets=$x0..$x1"
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "fail-back: no WC error" '[ "$(count " wc_error ")" = 0 ]'
check "fail-back: no new connection" '[ "$(count " connected id=")" = 0 ]'
check "fail-back: no DISCONNECTED/UNREACHABLE/REJECTED" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
# a ping (b) or an echo (a) every 10 ms leaves port 2, besides the ACKs:
# 790 in the window on a loaded host; a quarter of that rate at least
check "fail-back: traffic stays on port 2 (PortXmitPkts $x0 -> $x1)" \
	'[ $((x1 - x0)) -ge $((OBSERVE_S * 25)) ]'
if [ "$ROLE" = b ]; then
	check "fail-back: no CM event for the connection" \
		'[ "$(count " cm_event .* id=1$")" = 0 ]'
	check "fail-back: no stall over $KEPT_MAX_GAP_MS ms (longest $(longest_stall) ms)" \
		'[ "$(longest_stall)" -le "$KEPT_MAX_GAP_MS" ]'
fi
stop

# -- phase 5: a kernel consumer, moved by the CM itself --------------------
# The CM forces a kernel QP onto its armed alternate path on a failover
# (rdma_cm_ha_test: an RC ping client and echo server on kernel QPs).  An
# administrative switch of bond0 to ib1 with both links up leaves the old
# path healthy, so the device migrates nothing by itself: the client's QP
# moves to port 2 because the CM moved it (its decision: migrate, and no
# cm_ha_error), with no CM event, no WC error and no new connection on
# the client; its pings leave from port 2 from then on.  The notify
# server's kernel QP follows the first packet with its MigReq bit on its
# alternate path (IB_EVENT_PATH_MIG, "path migration successful").  Then
# the client ends the connection: its DREQ leaves from port 2 (the CM told
# ib_cm) and the server gets DISCONNECTED status 0.
seq=5
KC=/sys/kernel/debug/rdma_cm_ha_test/ctl
[ -e "$KC" ] || fail "no $KC (CONFIG_RDMA_CMA_HA_TEST)"
PLOG=/tmp/kc.log
# kc_log: the consumer's kernel log lines, CLOCK_MONOTONIC first
kc_log() { dmesg | sed -n 's/^.*cma_ha_test: //p' >"$PLOG"; }
# kc_conns: how many connections the consumer of this guest made so far
kc_conns() { dmesg | grep -c 'cma_ha_test: .* connected id='; }
# kc_connected N: wait until the consumer made its connection N+1; KID
# is its number
kc_connected() {
	wait_for 40 sh -c "[ \$(dmesg | grep -c 'cma_ha_test: .* connected id=') -gt $1 ]" ||
		fail "phase $seq: no kernel connection: $(dmesg | grep cma_ha_test: | tail -n 5)"
	kc_log
	KID=$(sed -n 's/.* connected id=\([0-9]*\) port=[0-9]*$/\1/p' "$PLOG" | tail -n 1)
	log "phase $seq: kernel connection id=$KID"
}
# kc_pair PORT: a new kernel connection, a's notify server on PORT and
# b's migrate client with the alternate path $ALT; once this guest's side
# is connected, KID is its number.
kc_pair() {
	local n
	n=$(kc_conns)
	if [ "$ROLE" = a ]; then
		echo "listen $MY_IP $1 notify" >$KC || fail "phase $seq: listen"
		barrier "ksrv$seq" 120
	else
		barrier "ksrv$seq" 120
		echo "connect $MY_IP $PEER_IP $1 migrate $ALT" >$KC ||
			fail "phase $seq: connect"
	fi
	kc_connected "$n"
}
# kc_end N: the kernel client (b) ends connection KID: its DREQ leaves
# from port N and the server (a) gets DISCONNECTED status 0, its DREQ in
# on port N.  b stops as soon as it leaves the barrier, which a may leave
# later: a's window opens before it (as in phase 2).
kc_end() {
	# (check evaluates its test in its own scope: no $1 there)
	KPORT=$1
	dreq_tx0=$(cmp "$KPORT" tx dreq) dreq_rx0=$(cmp "$KPORT" rx dreq)
	T_WIN=$(now)
	barrier "kend$seq" 120
	if [ "$ROLE" = b ]; then
		echo stop >$KC || fail "phase $seq: stop"
		check "the kernel client's DREQ went out of port $1" \
			'[ "$(cmp "$KPORT" tx dreq)" -gt "$dreq_tx0" ]'
		barrier "kstop$seq" 120
	else
		wait_for 10 sh -c "dmesg | grep -q 'cma_ha_test: .* cm_event name=RDMA_CM_EVENT_DISCONNECTED status=0 id=$KID\$'"
		T_END=$(now)
		kc_log
		check "the kernel server got the DREQ: DISCONNECTED status 0" \
			'[ "$(count "$(ev DISCONNECTED 0 "$KID")")" = 1 ]'
		check "the DREQ came in on port $1" \
			'[ "$(cmp "$KPORT" rx dreq)" -gt "$dreq_rx0" ]'
		barrier "kstop$seq" 120
		echo stop >$KC || fail "phase $seq: stop"
	fi
}
barrier kc5 120
echo >$T/trace
T_WIN=$(now)
if [ "$ROLE" = a ]; then
	echo "listen $MY_IP 7495 notify" >$KC || fail "phase 5: listen"
	barrier ksrv5 120
else
	barrier ksrv5 120
	for bad in "connect $MY_IP $PEER_IP 7495 sideways" \
	    "connect $MY_IP $PEER_IP 7495 migrate $GID2,1,2,3" \
	    "connect $MY_IP nowhere 7495 migrate"; do
		check "the consumer refuses \"$bad\" (EINVAL)" \
			'! echo "$bad" >$KC 2>/dev/null'
	done
	echo "connect $MY_IP $PEER_IP 7495 migrate $ALT" >$KC ||
		fail "phase 5: connect"
fi
wait_for 40 sh -c "dmesg | grep -q 'cma_ha_test: .* connected id=1 '" ||
	fail "phase 5: no kernel connection: $(dmesg | grep cma_ha_test: | tail -n 5)"
barrier kconn5 120
kc_log
[ "$ROLE" = a ] ||
	check "the kernel client's alternate path was accepted" \
		'grep -q " alt_path ret=0 id=1$" "$PLOG"'
sleep 2
x1_0=$(cat $P1/counters/port_xmit_packets) x2_0=$(cat $P2/counters/port_xmit_packets)
act switch ib1
x1_1=$(cat $P1/counters/port_xmit_packets) x2_1=$(cat $P2/counters/port_xmit_packets)
kc_log
data "what=kswitch port1_xmit=$x1_0..$x1_1 port2_xmit=$x2_0..$x2_1"
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
grep ' cm_ha_error: ' $T/trace | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "kernel consumer: no WC error" '[ "$(count " wc_error ")" = 0 ]'
check "kernel consumer: no new connection" '[ "$(count " connected id=")" = 0 ]'
check "kernel consumer: no DISCONNECTED/UNREACHABLE/REJECTED" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
# a ping (b) or an echo (a) every 10 ms, and the ACKs of the other side's
check "kernel consumer: the traffic left from port 2 after the switch (PortXmitPkts $x2_0 -> $x2_1)" \
	'[ $((x2_1 - x2_0)) -ge $((OBSERVE_S * 25)) ]'
if [ "$ROLE" = b ]; then
	check "the CM decided migrate for the kernel client on the switch" \
		'decisions | grep -qE "mode=migrate event=bond-failover state=connected .* action=migrate$"'
	check "the CM's migration of the kernel QP did not fail (no cm_ha_error)" \
		'! grep -q " cm_ha_error: " $T/trace'
	check "kernel consumer: no CM event on the client" \
		'[ "$(count " cm_event .* id=1$")" = 0 ]'
	check "kernel consumer: no stall over $KEPT_MAX_GAP_MS ms (longest $(longest_stall) ms)" \
		'[ "$(longest_stall)" -le "$KEPT_MAX_GAP_MS" ]'
	# (port 1 still carries some of the backup slave's and the CM's
	# own traffic: 24 and 102 packets in two runs, against 1039 with
	# the connection on it)
	check "kernel consumer: port 1 sent less than a quarter of port 2's after the switch (PortXmitPkts $x1_0 -> $x1_1)" \
		'[ $((x1_1 - x1_0)) -lt $(((x2_1 - x2_0) / 4)) ]'
else
	check "notify server: ADDR_CHANGE status 0" \
		'[ "$(count "$(ev ADDR_CHANGE 0 1)")" = 1 ]'
	check "notify server: its kernel QP migrated (IB_EVENT_PATH_MIG)" \
		'[ "$(count " async event=path migration successful id=1$")" = 1 ]'
fi
KID=1
kc_end 2
kc_log
sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /" "$PLOG"

# -- phase 6: the path a migration left is armed again; the way back -------
# A kernel migrate client, moved to port 2 by a cut of link 0.  When link 0
# is back and port 1 ACTIVE again, the client's CM arms the path on port 1
# as the connection's new alternate path: its decision "rearm" on
# port-active, a LAP from b that a's CM answers with an APR once its
# kernel QP has the path (port 2's CM counters), and the client's QP is
# armed on the APR (no cm_ha_error on either side).  Then link 1 is cut:
# the connection moves back to port 1 (both QPs: IB_EVENT_PATH_MIG again)
# with no teardown, no CM event on the client, no WC error, no new
# connection, and a gap within MIGRATE_GAP_MS; with link 1 still cut the
# client's DREQ leaves from port 1 and the server gets it.  Before the CM
# rearmed, nothing loaded a new alternate path: the cut of link 1 left the
# connection on a dead port 2 until its retries ran out (a WC error).
seq=6
barrier kc6 120
bond_activate ib0
wait_ping "$PEER_IP" 60
echo >$T/trace
T_WIN=$(now) T_WIN0=$(now)
kc_pair 7496
grep -q " connected id=$KID port=1$" "$PLOG" ||
	fail "phase 6: the kernel connection is not on port 1"
barrier kconn6 120
sleep 2
cut_active 0 ib1
act_window kcut6
kc_log
check "phase 6: the QPs migrated to port 2 on the cut of link 0" \
	'[ "$(count " async event=path migration successful id=$KID$")" = 1 ]'
lap_mark
echo >$T/trace
link0_back kback6
# the client's QP is armed once the APR is in (the port's 100 ms hold-off,
# a LAP and an APR)
apr_wait
lap_data rearm
check "phase 6: no cm_ha_error while the path on port 1 was armed again" \
	'! grep -q " cm_ha_error: " $T/trace'
if [ "$ROLE" = b ]; then
	check "the CM decided rearm for the kernel client when port 1 came back" \
		'decisions | grep -qE "mode=migrate event=port-active state=connected path=.*rearm.* action=rearm$"'
	check "the client's CM sent a LAP on port 2" \
		'[ "$(cm2 tx lap)" -gt "$lap_tx0" ]'
	check "the client got the server's APR on port 2" \
		'[ "$(cm2 rx apr)" -gt "$apr_rx0" ]'
else
	check "the server's CM got the LAP on port 2" \
		'[ "$(cm2 rx lap)" -gt "$lap_rx0" ]'
	check "the server's CM answered with an APR on port 2" \
		'[ "$(cm2 tx apr)" -gt "$apr_tx0" ]'
	check "a's CM sent no LAP of its own (the active side loads paths)" \
		'[ "$(cm2 tx lap)" = "$lap_tx0" ]'
fi
echo >$T/trace
x1_0=$(cat $P1/counters/port_xmit_packets)
cut_active 1 ib0
act_window kcut6b
x1_1=$(cat $P1/counters/port_xmit_packets)
kc_log
data "what=kcut-back port1_xmit=$x1_0..$x1_1"
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
grep ' cm_ha_error: ' $T/trace | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "phase 6: the QPs migrated back to port 1 on the cut of link 1" \
	'[ "$(count " async event=path migration successful id=$KID$")" = 1 ]'
check "phase 6: no WC error" '[ "$(count " wc_error ")" = 0 ]'
check "phase 6: no new connection" '[ "$(count " connected id=")" = 0 ]'
check "phase 6: no DISCONNECTED/UNREACHABLE/REJECTED" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
check "phase 6: the traffic is on port 1 again (PortXmitPkts $x1_0 -> $x1_1)" \
	'[ $((x1_1 - x1_0)) -ge $((OBSERVE_S * 25)) ]'
if [ "$ROLE" = b ]; then
	check "the CM decided migrate for the kernel client on the cut of link 1" \
		'decisions | grep -qE "mode=migrate event=(bond-failover|port-err) state=connected .* action=migrate$"'
	check "the move back did not fail (no cm_ha_error)" \
		'! grep -q " cm_ha_error: " $T/trace'
	check "phase 6: no CM event on the client" \
		'[ "$(count " cm_event .* id=$KID$")" = 0 ]'
	check "phase 6: gap across the cut of link 1 within $MIGRATE_GAP_MS ms (longest $(longest_stall) ms)" \
		'[ "$(longest_stall)" -le "$MIGRATE_GAP_MS" ]'
fi
kc_end 1
kc_log
awk -v w0="$T_WIN0" '$1 >= w0' "$PLOG" | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /"
barrier link1back6 120
[ "$ROLE" = a ] && host_cmd both "set_link n1 on"
wait_carrier eth1 1 30

# -- phase 7: a passive side whose QP is the consumer's own ---------------
# The CM arms a path again only in kernel QPs.  A kernel migrate client
# (b) with the alternate path, and a librdmacm server in notify mode (a,
# rdma_ha_pingpong: its QP is the program's, created through librdmacm).
# A cut of link 0 moves the connection to port 2 (the device migrates the
# server's QP as its port goes down).  When link 0 is back, the client's
# CM sends its LAP, as in phase 6; a's CM, which may not modify a QP of
# the consumer's own, answers with an APR "unsupported" (and traces
# cm_ha_error rearm -EOPNOTSUPP); b's CM, refused, leaves the path
# unarmed (cm_ha_error rearm -ECONNREFUSED).  Each time port 1 comes
# back (link 0 cut and back again, the connection on port 2 all along)
# the CM tries again: the second LAP is lost with all its resends (b's
# MADs dropped on the wire), ib_cm raises IB_CM_LAP_ERROR (cm_ha_error
# rearm -ETIMEDOUT) and a never hears of it; the third, sent because the
# LAP state is idle again after the error, is refused as the first.
# Through all of it nothing else happens: no CM event on either side, no
# WC error, no new connection, no stall over KEPT_MAX_GAP_MS on the
# client.  The client's DREQ then leaves from port 2 and the server gets
# DISCONNECTED status 0.
seq=7
PORT7=7498
barrier kc7 120
bond_activate ib0
wait_ping "$PEER_IP" 60
wait_for 30 grep -qx up /sys/class/net/ib1/bonding_slave/mii_status ||
	fail "bond0 does not see ib1 up"
echo >$T/trace
T_WIN=$(now) T_WIN0=$(now)
n=$(kc_conns)
if [ "$ROLE" = a ]; then
	PLOG=/tmp/pp7s.log
	$PP -s -b "$MY_IP" -p $PORT7 -d 600 >"$PLOG" 2>&1 &
	PID=$!
	wait_for 10 grep -q ' listening ' "$PLOG" ||
		fail "phase 7: server did not listen: $(cat "$PLOG")"
	barrier ksrv7 120
	wait_for 40 grep -q " connected id=" "$PLOG" ||
		fail "phase 7: no connection: $(tail -n 5 "$PLOG")"
else
	barrier ksrv7 120
	echo "connect $MY_IP $PEER_IP $PORT7 migrate $ALT" >$KC ||
		fail "phase 7: connect"
	kc_connected "$n"
fi
barrier kconn7 120
sleep 2
cut_active 0 ib1
act_window kcut7
[ "$ROLE" = a ] || kc_log
if [ "$ROLE" = b ]; then
	check "phase 7: the kernel client's QP migrated to port 2 on the cut of link 0" \
		'[ "$(count " async event=path migration successful id=$KID$")" = 1 ]'
else
	check "phase 7: the server's QP migrated to port 2 on the cut of link 0" \
		'[ "$(count " async event=path migrated ")" = 1 ]'
fi
# round_start: the counters and the trace of a round start afresh
round_start() {
	lap_mark
	echo >$T/trace
}
# rearmed_once: one rearm decision since the round started (b)
rearmed_once() {
	[ "$(decisions | grep -cE "mode=migrate event=port-active state=connected .* action=rearm$")" = 1 ]
}
# rearm_error ERR: the one cm_ha_error of the round is rearm's ERR
rearm_error() {
	[ "$(grep -c " cm_ha_error: " $T/trace)" = 1 ] &&
		grep -q " cm_ha_error: .* action=rearm err=$1$" $T/trace
}
# port1_bounce BARRIER: link 0 cut at both ends and port 1 down, the
# connection on port 2 all along (bond0 stays on ib1), then round_start
port1_bounce() {
	barrier "$1" 120
	[ "$ROLE" = a ] && host_cmd both "set_link n0 off"
	wait_carrier eth0 0 30
	wait_for 30 grep -q DOWN $P1/state || fail "port 1 not DOWN with link 0 cut"
	round_start
}
# rearm_refused N: link 0 is back; round N's LAP went out (b) or came in
# (a) on port 2 and was answered with an APR that refused it
rearm_refused() {
	R=$1	# (check evaluates its test in its own scope)
	apr_wait
	lap_data rearm round="$R"
	if [ "$ROLE" = b ]; then
		check "phase 7 ($R): the CM decided rearm for the kernel client when port 1 came back" \
			rearmed_once
		check "phase 7 ($R): the client's CM sent one LAP on port 2" \
			'[ "$(cm2 tx lap)" = $((lap_tx0 + 1)) ]'
		check "phase 7 ($R): the client got one APR on port 2" \
			'[ "$(cm2 rx apr)" = $((apr_rx0 + 1)) ]'
		check "phase 7 ($R): the client's CM took the refusal (cm_ha_error rearm -ECONNREFUSED)" \
			'rearm_error -111'
	else
		check "phase 7 ($R): the server's CM got one LAP on port 2" \
			'[ "$(cm2 rx lap)" = $((lap_rx0 + 1)) ]'
		check "phase 7 ($R): the server's CM answered with one APR" \
			'[ "$(cm2 tx apr)" = $((apr_tx0 + 1)) ]'
		check "phase 7 ($R): the server's CM left the program's QP alone (cm_ha_error rearm -EOPNOTSUPP)" \
			'rearm_error -95'
	fi
}
round_start
link0_back kback7
rearm_refused 1
# Round 2, a LAP that gets no answer: b's device loses every MAD it sends
# on the wire (debugfs drop, class mad), the LAP and all its resends.
# ib_cm gives up when the resends run out (the connection's CM timeouts:
# 15 resends, about 4.1 s apart, from rdma_cm's REQ) and raises
# IB_CM_LAP_ERROR, which b's CM traces as cm_ha_error rearm -ETIMEDOUT;
# a never hears of the LAP; nothing else happens to the connection.
port1_bounce kcut7b
[ "$ROLE" = b ] && { echo "mad 1000" >$KD/drop || fail "phase 7: drop mad"; }
link0_back kback7b
if [ "$ROLE" = b ]; then
	t0=$(now)
	wait_for 120 grep -q " cm_ha_error: .* action=rearm " $T/trace
	lap_error_s=$(awk -v t0="$t0" -v t1="$(now)" 'BEGIN { printf "%.1f", t1 - t0 }')
	echo "mad 0" >$KD/drop || fail "phase 7: drop mad 0"
	sleep 1
	lap_data rearm round=2
	data "what=lap_error_s value=$lap_error_s"
	check "phase 7 (2): the CM decided rearm for the kernel client when port 1 came back" \
		rearmed_once
	check "phase 7 (2): no answer to the LAP: IB_CM_LAP_ERROR, cm_ha_error rearm -ETIMEDOUT (after $lap_error_s s)" \
		'rearm_error -110'
	check "phase 7 (2): no APR came" '[ "$(cm2 rx apr)" = "$apr_rx0" ]'
	barrier klaperr7 180
else
	barrier klaperr7 180
	lap_data rearm round=2
	check "phase 7 (2): the server's CM never got the LAP" \
		'[ "$(cm2 rx lap)" = "$lap_rx0" ]'
	check "phase 7 (2): the server's CM sent no APR" \
		'[ "$(cm2 tx apr)" = "$apr_tx0" ]'
	check "phase 7 (2): no cm_ha_error on the server" \
		'! grep -q " cm_ha_error: " $T/trace'
fi
# Round 3: the LAP that timed out left the connection's LAP state idle:
# the next port-up sends a new one, refused as in round 1
port1_bounce kcut7c
link0_back kback7c
rearm_refused 3
T_END=$(now)
[ "$ROLE" = a ] || kc_log
check "phase 7: no WC error" '[ "$(count " wc_error ")" = 0 ]'
check "phase 7: no new connection" '[ "$(count " connected id=")" = 0 ]'
check "phase 7: no DISCONNECTED/UNREACHABLE/REJECTED" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
if [ "$ROLE" = b ]; then
	check "phase 7: no CM event on the client" \
		'[ "$(count " cm_event .* id=$KID$")" = 0 ]'
	check "phase 7: no stall over $KEPT_MAX_GAP_MS ms (longest $(longest_stall) ms)" \
		'[ "$(longest_stall)" -le "$KEPT_MAX_GAP_MS" ]'
fi
# the end: b's DREQ leaves from port 2 (the connection never left it)
dreq_tx0=$(cm2 tx dreq) dreq_rx0=$(cm2 rx dreq)
T_WIN=$(now)
barrier kend7 120
if [ "$ROLE" = b ]; then
	echo stop >$KC || fail "phase 7: stop"
	check "phase 7: the kernel client's DREQ went out of port 2" \
		'[ "$(cm2 tx dreq)" -gt "$dreq_tx0" ]'
	barrier kstop7 120
	kc_log
else
	wait_for 10 grep -q "$(ev DISCONNECTED 0 1)" "$PLOG"
	T_END=$(now)
	check "phase 7: the server got the DREQ: DISCONNECTED status 0" \
		'[ "$(count "$(ev DISCONNECTED 0 1)")" = 1 ]'
	check "phase 7: the DREQ came in on port 2" \
		'[ "$(cm2 rx dreq)" -gt "$dreq_rx0" ]'
	barrier kstop7 120
	kill "$PID" 2>/dev/null
	wait "$PID"
fi
awk -v w0="$T_WIN0" '$1 >= w0' "$PLOG" | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /"
PLOG=/tmp/kc.log
barrier link0back7 120
bond_activate ib0
wait_ping "$PEER_IP" 60

# -- phase 8: librdmacm programs arm their own QPs again ------------------
# Both ends are librdmacm programs in migrate mode (rdma_ha_pingpong: the
# client with the alternate path, the server's IDs in migrate mode from
# its bound listener), whose QPs are their own.  A cut of link 0 moves
# the connection to port 2 (the devices migrate both QPs as port 1 goes
# down).  When link 0 is back, b's CM decides rearm and sends its LAP;
# a's CM accepts the path and tells the server
# (RDMA_CM_EVENT_ALT_PATH_LOADED), which arms its QP (rdma_init_qp_attr()
# for RTS, ibv_modify_qp()); on the APR b's CM tells the client, which arms
# its own.  Link 1 cut: both QPs migrate back to port 1 as port 2 goes
# down, with no other CM event, no WC error, no new connection and a gap
# within MIGRATE_GAP_MS; with link 1 still cut the client ends the
# connection and its DREQ leaves from port 1.  Before "RDMA/cma: Tell a
# consumer in migrate mode to arm its own QP again" b's CM sent no LAP for
# a QP of the program's, and the connection died on the cut of link 1.
seq=7
start migrate "$MY_IP" migrate "--alt-path $ALT --retry-count 3 --stall-ms 50"
[ "$ROLE" = a ] ||
	check "the alternate path was accepted" \
		'grep -q " alt_path rc=0 errno=0 .* id=1$" "$PLOG"'
cut_active 0 ib1
act_window cut8
check "the QP migrated to port 2 on the cut of link 0 (IBV_EVENT_PATH_MIG)" \
	'[ "$(count " async event=path migrated ")" = 1 ]'
lap_mark
echo >$T/trace
T_WIN=$(now)
link0_back back8
apr_wait
wait_for 10 grep -q " alt_path_armed " "$PLOG"
T_END=$(now)
lap_data rearm
check "the program was told of the new alternate path (ALT_PATH_LOADED)" \
	'[ "$(count "$(ev ALT_PATH_LOADED 0 1)")" = 1 ]'
check "the program armed its QP with it (rdma_init_qp_attr, ibv_modify_qp: rc 0, REARM)" \
	'[ "$(count " alt_path_armed rc=0 mask=0x[0-9a-f]* mig_state=1 alt_port=1 id=1$")" = 1 ]'
check "no cm_ha_error while the path was armed again" \
	'! grep -q " cm_ha_error: " $T/trace'
if [ "$ROLE" = b ]; then
	check "the CM decided rearm for the client when port 1 came back" \
		'decisions | grep -qE "mode=migrate event=port-active state=connected .* action=rearm$"'
	check "the client's CM sent a LAP on port 2" \
		'[ "$(cm2 tx lap)" = $((lap_tx0 + 1)) ]'
	check "the client got the server's APR on port 2" \
		'[ "$(cm2 rx apr)" = $((apr_rx0 + 1)) ]'
else
	check "the server's CM got the LAP on port 2" \
		'[ "$(cm2 rx lap)" = $((lap_rx0 + 1)) ]'
	check "the server's CM accepted it in its APR" \
		'[ "$(cm2 tx apr)" = $((apr_tx0 + 1)) ]'
fi
echo >$T/trace
cut_active 1 ib0
act_window cut8b
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
grep ' cm_ha_error: ' $T/trace | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "the QP migrated back to port 1 on the cut of link 1 (IBV_EVENT_PATH_MIG)" \
	'[ "$(count " async event=path migrated ")" = 1 ]'
check "no WC error" '[ "$(count " wc_error ")" = 0 ]'
check "no new connection" '[ "$(count " connected id=")" = 0 ]'
check "no DISCONNECTED/UNREACHABLE/REJECTED" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
if [ "$ROLE" = b ]; then
	check "the CM decided migrate for the client on the cut of link 1" \
		'decisions | grep -qE "mode=migrate event=(bond-failover|port-err) state=connected .* action=migrate$"'
	check "the move back did not fail (no cm_ha_error)" \
		'! grep -q " cm_ha_error: " $T/trace'
	check "no CM event for the connection on the cut of link 1" \
		'[ "$(count " cm_event .* id=1$")" = 0 ]'
	gap=$(longest_stall)
	data "what=migrate_back_gap_ms value=$gap"
	check "longest gap across the cut of link 1 $gap ms, at most $MIGRATE_GAP_MS ms" \
		'[ "$gap" -le "$MIGRATE_GAP_MS" ]'
fi
# the end, link 1 still cut: b's DREQ leaves from port 1
pp_end 1
barrier link1back8 120
[ "$ROLE" = a ] && host_cmd both "set_link n1 on"
wait_carrier eth1 1 30
PLOG=/tmp/kc.log

# -- phase 9: migrate only as the port's default ---------------------------
# A librdmacm client that sets no mode, on a port whose default_ha_mode is
# migrate (configfs), with the alternate path; the server as in phase 8.
# The program did not choose migrate mode, so it may not know
# RDMA_CM_EVENT_ALT_PATH_LOADED: when link 0 is back after the cut that
# moved the connection, b's CM decides rearm, but sends no LAP for the
# program's QP (cm_ha_error rearm -EOPNOTSUPP) and tells it nothing.
wait_for 30 grep -qx up /sys/class/net/ib1/bonding_slave/mii_status ||
	fail "bond0 does not see ib1 up"
CFG=/sys/kernel/config/rdma_cm
[ -d $CFG ] || mount -t configfs none /sys/kernel/config 2>/dev/null
if [ "$ROLE" = b ]; then
	mkdir -p $CFG/sib0 || fail "mkdir $CFG/sib0"
	echo migrate >$CFG/sib0/ports/1/default_ha_mode ||
		fail "default_ha_mode migrate on sib0 port 1"
fi
start migrate "$MY_IP" default "--alt-path $ALT --retry-count 3"
cut_active 0 ib1
act_window cut9
check "the QP migrated to port 2 on the cut of link 0 (IBV_EVENT_PATH_MIG)" \
	'[ "$(count " async event=path migrated ")" = 1 ]'
lap_mark
echo >$T/trace
T_WIN=$(now)
link0_back back9
[ "$ROLE" = a ] || wait_for 10 grep -q " cm_ha_error: " $T/trace
sleep 2
T_END=$(now)
decisions | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
grep ' cm_ha_error: ' $T/trace | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE trace: /"
check "no ALT_PATH_LOADED for a program that did not choose migrate mode" \
	'[ "$(count "ALT_PATH_LOADED")" = 0 ]'
if [ "$ROLE" = b ]; then
	check "the CM decided rearm for the default-mode client when port 1 came back" \
		'decisions | grep -qE "mode=migrate event=port-active state=connected .* action=rearm$"'
	check "but sent no LAP for the program's QP (cm_ha_error rearm -EOPNOTSUPP)" \
		'[ "$(grep -c " cm_ha_error: .* action=rearm err=-95$" $T/trace)" = 1 ] &&
		 [ "$(cm2 tx lap)" = "$lap_tx0" ]'
	echo notify >$CFG/sib0/ports/1/default_ha_mode ||
		fail "default_ha_mode notify on sib0 port 1"
else
	check "the server's CM got no LAP" '[ "$(cm2 rx lap)" = "$lap_rx0" ]'
fi
stop
bond_activate ib0
wait_ping "$PEER_IP" 60

# -- phase 10: the device goes under a live kernel connection -------------
# rdma_cm's removal of a device waits for every ID on it: a kernel
# consumer must let its IDs go on RDMA_CM_EVENT_DEVICE_REMOVAL.  A new
# kernel connection (migrate client with the alternate path, notify
# server), busy; both guests delete sib0: the deletion ends within 30 s,
# each consumer logs DEVICE_REMOVAL for its connection and destroys it
# (and a its listener), and the device goes with the last references to
# its GIDs, with no splat (the runner fails on any).  Before the consumer
# let its IDs go, the deletion waited for "stop".
seq=10
wait_for 30 grep -qx up /sys/class/net/ib1/bonding_slave/mii_status ||
	fail "bond0 does not see ib1 up"
barrier kc10 120
T_WIN=$(now)
kc_pair 7497
barrier kconn10 120
# the last barrier: the guests' barriers cross bond0, which goes with sib0
barrier done 120
sleep 1
rdma link delete sib0 >/tmp/del7.log 2>&1 &
DEL=$!
gone=0
wait_for 30 sh -c "! kill -0 $DEL" && gone=1
T_END=$(now)
kc_log
check "phase 10: rdma link delete sib0 ended within 30 s under a kernel connection" \
	'[ $gone = 1 ]'
check "phase 10: the consumer got DEVICE_REMOVAL for its connection" \
	'[ "$(count "$(ev DEVICE_REMOVAL 0 "$KID")")" = 1 ]'
check "phase 10: the consumer destroyed its connection" \
	'[ "$(count " destroyed id=$KID$")" = 1 ]'
[ "$ROLE" = b ] ||
	check "phase 10: the server let its listener go" \
		'[ "$(count " destroyed listener$")" = 1 ]'
# a deletion still waiting (a failed check above) ends once "stop"
# destroys the IDs
echo stop >$KC || fail "phase 10: stop"
wait $DEL
delrc=$?
kc_log
awk -v w0="$T_WIN" '$1 >= w0' "$PLOG" | sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /"
check "rdma link delete sib0 (rc $delrc: $(cat /tmp/del7.log))" '[ $delrc = 0 ]'
check "sib0 is gone" '! rdma link show | grep -q "link sib0/"'
finish
