#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1200 kernel=patched,debian
# rdma-ha-opt-in-on: debian: the same code as cma_ha_ib@patched, built as modules; the DKMS modules' HA mode runs in cma_ha_default@debian on this topology and in nvme_failover@debian on a RoCE bond (the check's budget, README)
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
#                        ID gets ADDR_CHANGE (status 2, misaligned) then
#                        DISCONNECTED -ENETUNREACH;
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
#                        so align's actions with ADDR_CHANGE status 2,
#                        on the passive side, listener extended to sib1
#  6 ignore*, notify     failover ib1 -> ib0 with both links up: the ignore
#                        side gets no event, the notify side ADDR_CHANGE;
#                        both keep the connection
#  7 notify*, migrate    failover ib0 -> ib1: migrate's fallback on the
#                        active side
#  8 align, align        cut the active link (ib1 -> ib0): both IDs torn
#                        down with -ENETUNREACH after ADDR_CHANGE status 3,
#                        dead (no DREQ
#                        can cross the dead link); the client reconnects on
#                        sib0 through the extended listener
#  9 migrate, ignore     cut the active link (ib0 -> ib1): the server falls
#                        back with ADDR_CHANGE 3/-ENETUNREACH; the ignore
#                        client gets no CM event and learns from its own
#                        WC error (RC retries exhausted; retry count 6)
#                        or, with no send outstanding, its own 5 s reply
#                        timeout, then reconnects
# 10 ignore*, migrate    cut the active link (ib1 -> ib0): migrate's
#                        fallback on the active side; the ignore server
#                        gets no CM event for its connection (it learns
#                        nothing unless it has a send outstanding) and
#                        accepts the reconnection on sib0
# 11 report, report     failover ib0 -> ib1 with both links up: both IDs
#                        get ADDR_CHANGE status 2 (misaligned, alive) and
#                        nothing else, the connection is kept and busy;
#                        the listener is extended to sib1, with no event;
#                        then cut link 0 (the IDs' port, now the backup):
#                        ADDR_CHANGE status 3 (dead) from the port event,
#                        and still no teardown by the CM: the programs
#                        end id 1 by their own detection (a WC error when
#                        RC retries run out, or the client's 2 s reply
#                        timeout) and the client reconnects on sib1,
#                        through the extended listener
# 12 report, report     the path comes back: an idle connection on sib1
#                        (bond0 on ib1); failover to ib0 (status 2),
#                        cut link 1 (the IDs' port: status 3, dead), then
#                        restore it: the port is ACTIVE again and the
#                        path alive, so both IDs get ADDR_CHANGE status 2
#                        (misaligned: bond0 is still on ib0) within the
#                        act bound, and nothing else; the idle connection
#                        is kept throughout
#  (* = the server listens on the wildcard address, else on bond0's)
#
# Every guest asserts its own side; timings are printed as RDMA-HA-DATA
# lines relative to the moment of the failover or cut (T_ACT).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=sib

need_cmd rdma mono_watch $PP

ib_bond_setup
wait_ping "$PEER_IP" 60
barrier ready 120
log "bond0 over ib0/ib1 up, fail_over_mac $(cat /sys/class/net/bond0/bonding/fail_over_mac)"

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
	teardown_checks $ENETUNREACH $ST_MIS
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
	teardown_checks $ENETUNREACH $ST_MIS
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
	teardown_checks $ENETUNREACH $ST_MIS
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
	teardown_checks $ENETUNREACH $ST_MIS
else
	peer_disconnect_checks
fi
reconnected_checks sib1

# -- phase 8: align on both sides, the active link is cut ----------------
start align "$MY_IP" align
act cut 1
teardown_checks $ENETUNREACH $ST_DEAD
[ "$ROLE" = a ] ||
	check "client reconnected" 'grep -q " reconnect attempt=1" "$PLOG"'
act restore 1
stop
reconnected_checks sib0

# -- phase 9: migrate server, ignore client, the active link is cut -------
# the ignore side relies on its own detection: RC retry exhaustion of its
# outstanding ping (rxe retries forever with the client's default retry
# count 7: a finite count, a longer window), or, when the cut fell between
# the ping's ACK and its echo so that no send is outstanding, its own
# reply timeout
start migrate "$MY_IP" ignore "--retry-count 6 --reply-timeout-ms 5000"
OBSERVE_S=30
act cut 0
OBSERVE_S=8
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH $ST_DEAD
else
	check "ignore: no ADDR_CHANGE" '[ "$(count "RDMA_CM_EVENT_ADDR_CHANGE")" = 0 ]'
	check "ignore: the CM tore nothing down (no -ENETDOWN/-ENETUNREACH)" \
		'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
	t=$(since " wc_error .* id=1 ")
	data "what=own_wc_error_ms value=${t:-none}"
	t2=$(since " reply_timeout id=1 ")
	data "what=own_reply_timeout_ms value=${t2:-none}"
	check "ignore: id 1 learnt from its own detection (WC error ${t:-never} ms, reply timeout ${t2:-never} ms)" \
		'[ -n "$t$t2" ]'
fi
act restore 0
stop
reconnected_checks sib1

# -- phase 10: ignore server, migrate client, the active link is cut ------
start ignore 0.0.0.0 migrate
act cut 1
if [ "$ROLE" = b ]; then
	teardown_checks $ENETUNREACH $ST_DEAD
else
	check "ignore: no CM event on id 1" '[ "$(count " cm_event .* id=1$")" = 0 ]'
fi
act restore 1
stop
reconnected_checks sib0

# -- phase 11: report on both sides: told, nothing torn down --------------
start report "$MY_IP" report "--retry-count 6 --reply-timeout-ms 2000"
act switch ib1
t=$(since "$(ev ADDR_CHANGE $ST_MIS 1)")
data "what=report_misaligned_ms value=${t:-none}"
check "report: id 1 ADDR_CHANGE status $ST_MIS (misaligned) within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
check "report: the program printed the status" \
	'[ "$(count " ha_path status=misaligned value=$ST_MIS id=1$")" = 1 ]'
check "report: one CM event, the ADDR_CHANGE" '[ "$(count " cm_event ")" = 1 ]'
kept_checks "report, failover with the old path alive"
[ "$ROLE" = b ] ||
	check "report listener: no event (extended to sib1)" '[ "$(count " id=0$")" = 0 ]'
act cut 0
t=$(since "$(ev ADDR_CHANGE $ST_DEAD 1)")
data "what=report_dead_ms value=${t:-none}"
check "report: id 1 ADDR_CHANGE status $ST_DEAD (dead) within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
check "report: the program printed the status" \
	'[ "$(count " ha_path status=dead value=$ST_DEAD id=1$")" = 1 ]'
check "report: the CM tore nothing down (no DISCONNECTED/UNREACHABLE)" \
	'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
# by its own WC error or reply timeout, or (the server) because the
# client detected first and reconnected: the program's decision either way
check "report: id 1 ended by the program's own detection, if at all" \
	'[ "$(count " disconnected id=1 ")" = "$(count " disconnected id=1 reason=(wc_error|reply_timeout|superseded)$")" ]'
act restore 0
stop
reconnected_checks sib1

# -- phase 12: report: told that a dead path lives again ------------------
# The client pings once a minute, idle in between (no ping in flight can time out
# while its link is cut), so the connection lives through the phase.
start report "$MY_IP" report "-i 60000000"
act switch ib0
t=$(since "$(ev ADDR_CHANGE $ST_MIS 1)")
check "report, idle: id 1 ADDR_CHANGE status $ST_MIS (misaligned) within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
act cut 1
t=$(since "$(ev ADDR_CHANGE $ST_DEAD 1)")
check "report, idle: id 1 ADDR_CHANGE status $ST_DEAD (dead) within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
act revive 1
t=$(since "$(ev ADDR_CHANGE $ST_MIS 1)")
data "what=report_revived_ms value=${t:-none}"
check "report: id 1 ADDR_CHANGE status $ST_MIS (alive again, misaligned) within ${ACT_MAX_MS} ms of its port coming back (${t:-never})" \
	'within "$t"'
check "report: one CM event when the port came back, the ADDR_CHANGE" \
	'[ "$(count " cm_event ")" = 1 ]'
kept_checks "report, the dead path's port back"
[ "$ROLE" = b ] ||
	check "report listener: no event when the port came back" \
		'[ "$(count " id=0$")" = 0 ]'
stop

finish
