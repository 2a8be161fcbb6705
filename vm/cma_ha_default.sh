#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=900 kernel=patched,debian
#
# The administrator's default HA mode (configfs
# rdma_cm/DEV/ports/N/default_ha_mode) on IDs whose consumer sets none:
# rdma_ha_pingpong without --ha-mode is a librdmacm program that knows
# nothing of HA modes.  The seeds' topology of cma_ha_ib: bond0 over
# ib0/ib1 on soft InfiniBand (sib0 on eth0, sib1 on eth1).
#
#  0 the attribute on every port of both devices: notify at first; every
#    mode name is taken and read back; numbers, other spellings and
#    garbage fail with EINVAL and leave the default as it was
#  1 default notify when the programs connect, changed to fail-fast on
#    every port once they are connected; cut the active link: the live
#    IDs stay in notify mode (ADDR_CHANGE status 0, nothing torn down),
#    the default is not applied retroactively
#  2 default fail-fast, no mode set, server on the wildcard address (its
#    connections take the default of their port when the request
#    arrives): failover with the old path healthy keeps the connection
#    with no CM event at all (notify would get ADDR_CHANGE); a cut of
#    that link tears both ends down with -ENETDOWN; the client reconnects
#  3 default fail-fast, both programs set notify explicitly: a cut of the
#    active link is handled as notify (explicit wins)
#  4 default align on the server's guest, no mode set, server bound to
#    bond0's address (the listener takes its port's default when it
#    binds): an administrative failover tears the accepted ID down with
#    -ENETUNREACH (its DREQ tells the client), and the listener, extended
#    to the new port, takes the reconnection
#
# Every guest asserts its own side.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=sib
CFG=/sys/kernel/config/rdma_cm

need_cmd rdma mono_watch $PP
[ -d "$CFG" ] || skip "no $CFG (CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS)"

ib_bond_setup
for d in sib0 sib1; do
	mkdir -p "$CFG/$d" || fail "mkdir $CFG/$d"
done
wait_ping "$PEER_IP" 60
barrier ready 120

# dflt DEV: the default_ha_mode attribute of DEV's port 1
dflt() { echo "$CFG/$1/ports/1/default_ha_mode"; }

# set_default MODE: on both ports of this guest
set_default() {
	local d
	for d in sib0 sib1; do
		echo "$1" >"$(dflt $d)" ||
			fail "cannot set default_ha_mode $1 on $d"
	done
	log "default_ha_mode $1 on sib0, sib1"
}

# -- phase 0: the attribute ----------------------------------------------
seq=0
for d in sib0 sib1; do
	f=$(dflt $d)
	[ -f "$f" ] || fail "no $f: the kernel has no per-port default HA mode"
	v=$(cat "$f")
	check "$d: default_ha_mode is notify at first (read '$v')" '[ "$v" = notify ]'
	for m in ignore align fail-fast migrate report notify; do
		echo "$m" >"$f" 2>/dev/null
		v=$(cat "$f")
		check "$d: '$m' written and read back (read '$v')" '[ "$v" = "$m" ]'
	done
	# without the newline echo adds
	printf fail-fast >"$f"
	v=$(cat "$f")
	check "$d: 'fail-fast' without a newline taken (read '$v')" '[ "$v" = fail-fast ]'
	for bad in 0 3 4 5 255 -1 fail_fast FAIL-FAST Notify " align" "align x" \
		alignx "" x; do
		# busybox's echo reports a failed write with its errno
		err=$( { echo "$bad" >"$f"; } 2>&1 )
		rc=$?
		v=$(cat "$f")
		check "$d: '$bad' refused with EINVAL (rc $rc: $err), default still fail-fast (read '$v')" \
			'[ "$rc" != 0 ] && echo "$err" | grep -q "Invalid argument" && [ "$v" = fail-fast ]'
	done
	echo notify >"$f"
done
data "what=configfs_checks failed=$failed"

# -- phase 1: the default is read when the ID acquires its device --------
set_default notify
start default "$MY_IP" default
set_default fail-fast
act cut 0
t=$(since "$(ev ADDR_CHANGE 0 1)")
data "what=addr_change_ms value=${t:-none}"
check "live ID stays notify: id 1 ADDR_CHANGE status 0 within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
if [ "$ROLE" = a ]; then
	t=$(since "$(ev ADDR_CHANGE 0 0)")
	check "live listener stays notify: ADDR_CHANGE status 0 within ${ACT_MAX_MS} ms (${t:-never})" \
		'within "$t"'
fi
check "live ID stays notify: nothing torn down (no -ENETDOWN/-ENETUNREACH)" \
	'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
check "bond0 failed over to ib1" 'grep -qx ib1 /sys/class/net/bond0/bonding/active_slave'
act restore 0
stop

# -- phase 2: default fail-fast, no mode set, wildcard listener ----------
# the client reconnects ACT_MAX_MS after its teardown: a reconnection that
# came first would make the server retire its connection (superseded)
# before the server's own CM tore it down (seen on Debian's kernel)
start default 0.0.0.0 default "--connect-delay-ms $ACT_MAX_MS"
act switch ib0
kept_checks "default fail-fast, failover with the old path healthy"
check "default fail-fast, healthy path: no CM event at all (notify: ADDR_CHANGE)" \
	'[ "$(count " cm_event ")" = 0 ]'
act cut 1
teardown_checks $ENETDOWN ""
[ "$ROLE" = a ] ||
	check "client reconnected" 'grep -q " reconnect attempt=1" "$PLOG"'
act restore 1
stop
reconnected_checks sib0

# -- phase 3: an explicit mode wins over the default ---------------------
start notify "$MY_IP" notify
act cut 0
t=$(since "$(ev ADDR_CHANGE 0 1)")
data "what=addr_change_ms value=${t:-none}"
check "explicit notify: id 1 ADDR_CHANGE status 0 within ${ACT_MAX_MS} ms (${t:-never})" \
	'within "$t"'
check "explicit notify: nothing torn down (no -ENETDOWN/-ENETUNREACH)" \
	'[ "$(count "status=-($ENETDOWN|$ENETUNREACH) ")" = 0 ]'
act restore 0
stop

# -- phase 4: default align on the server's guest, listener bound --------
# (align on one side only: with both sides torn down by the same failover,
# the peer's DREQ can come before a side's own decision)
[ "$ROLE" = a ] && set_default align || set_default notify
start default "$MY_IP" default
act switch ib0
stop
if [ "$ROLE" = a ]; then
	teardown_checks $ENETUNREACH $ST_MIS
	check "align listener: no event" '[ "$(count " id=0$")" = 0 ]'
else
	peer_disconnect_checks
fi
reconnected_checks sib0

set_default notify
finish
