#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=420 kernel=patched
#
# P_Key tables of soft InfiniBand ports (issue 18), programmed without a
# subnet manager through debugfs rxe/sib0/ports/1/pkey ("INDEX PKEY"),
# with the built-in SA answering the joins of IPoIB child interfaces:
#  - bad lines get their errnos (malformed, index 32, P_Key above 0xffff,
#    trailing words: EINVAL); a one-port device has no ports/2 and a RoCE
#    rxe device no ports/ at all; a new port has 32 entries, 0xffff at index 0
#    (sysfs pkeys/, smpquery PartCap and PKeyTable);
#  - ib0.8001 is created on both guests before the P_Key exists: no
#    carrier; both get 0x8001 (IB_EVENT_PKEY_CHANGE): the child comes up
#    and pings the peer's child; smpquery pkeys shows the entry;
#  - a also gets 0x8002, b does not: a's ib0.8002 comes up (a's SA takes
#    its join), but neither its broadcast ARP nor datagrams to b's
#    ib0.8001 QP (a static neighbour, the peer's hardware address) reach
#    b: ping fails and b's P_KeyViolations (smpquery portinfo) grow;
#  - limited members: both ports hold 0x0003 (limited); ib0.3 comes up on
#    both but the two cannot ping each other, and the port counts the
#    violation; once b's entry is 0x8003 (full) they can;
#  - a's 0x8001 removed (entry emptied): a's ib0.8001 loses carrier; put
#    back: it comes up again and pings;
#  - a PathRecord that selects no P_Key (saquery --sgid-to-dgid) gets a
#    P_Key a's port holds: 0xffff, and 0x8001 once a's entry 0 is 0x8001
#    instead of the default P_Key, as a subnet manager answers with a
#    P_Key both ports share;
#  - no kernel warning.
# eth1 carries plain IP for the barriers; sib0 runs on eth0.
. "$(dirname "$0")/lib.sh"

need_cmd rdma smpquery saquery
KNOB=/sys/kernel/debug/rxe/sib0/ports/1/pkey
PORT=/sys/class/infiniband/sib0/ports/1
SMP="smpquery -C sib0 -P 1 -t 1000"
res=0
bad() { log "FAIL: $*"; res=1; }

# field NAME FILE: the value smpquery prints for NAME ("Name:....value")
field() { sed -n "s/^$1:\.*//p" "$2" | head -n 1; }
# pkey_set INDEX PKEY: set an entry of sib0 port 1 through the knob
pkey_set() {
	echo "$1 $2" 2>/tmp/knob.err >$KNOB ||
		bad "$KNOB '$1 $2': $(cat /tmp/knob.err)"
}
# violations: the P_KeyViolations of the own port (PortInfo, by DR 0)
violations() {
	$SMP -D portinfo 0 >/tmp/pi.log 2>&1 || { echo none; return; }
	field PkeyViolations /tmp/pi.log
}
# child PKEY NET: ib0.PKEY (no 0x) with 198.18.NET.ROLE_NUM/24, up
child() {
	ip link add "ib0.$1" link ib0 type ipoib pkey "0x$1" ||
		bad "ip link add ib0.$1 pkey 0x$1"
	ip addr add "198.18.$2.$ROLE_NUM/24" dev "ib0.$1" ||
		bad "address on ib0.$1"
	ip link set "ib0.$1" up || bad "ib0.$1 up"
}
# carrier DEV 0|1 [TIMEOUT_S]: wait for it, FAIL if it does not come
carrier() {
	wait_for "${3:-20}" _carrier_is "$1" "$2" ||
		bad "$1 carrier not $2 (is $(cat "/sys/class/net/$1/carrier" 2>&1))"
}
# reach ADDR: ping ADDR until it answers (30 s); false if it never does
reach() {
	wait_for 30 ping -c1 -W1 "$1" && return 0
	bad "no ping to $1"
	return 1
}
# unreachable ADDR: 5 pings, none answered
unreachable() {
	if ping -c 5 -W 1 "$1" >/tmp/ping.log 2>&1; then
		bad "$1 answered: $(tail -n 2 /tmp/ping.log | tr '\n' ' ')"
	fi
}

nic_setup eth1 "$MY_IP"
sib_add sib0 eth0
ip link set ib0 up || fail "ib0 up"
dmesg -c >/dev/null

# ---- the knob's bad lines; the table of a new port -------------------------
[ -f $KNOB ] || bad "no $KNOB"
if [ "$ROLE" = a ]; then
	rxe_add rxe0 eth1
	for l in ":Invalid argument" "1:Invalid argument" \
		 "32 0x8001:Invalid argument" \
		 "1 0x18001:Invalid argument" \
		 "1 -1:Invalid argument" \
		 "1 0x8001 0:Invalid argument" \
		 "x 0x8001:Invalid argument" \
		 "sib0 1 1 0x8001:Invalid argument"; do
		if echo "${l%%:*}" 2>/tmp/knob.err >$KNOB; then
			bad "$KNOB took '${l%%:*}'"
		elif ! grep -q "${l#*:}" /tmp/knob.err; then
			bad "$KNOB on '${l%%:*}': $(cat /tmp/knob.err), expected ${l#*:}"
		fi
	done
	[ ! -e /sys/kernel/debug/rxe/sib0/ports/2 ] ||
		bad "one-port sib0 has a knob directory for port 2"
	[ -d /sys/kernel/debug/rxe/rxe0 ] && [ ! -e /sys/kernel/debug/rxe/rxe0/ports ] ||
		bad "RoCE rxe0 has no knob directory, or one with ports/"
	[ ! -e /sys/class/infiniband/rxe0/ports/1/pkeys/1 ] ||
		bad "RoCE rxe0 has a P_Key index 1"
	rdma link delete rxe0 || bad "rdma link delete rxe0"
	[ $res = 0 ] && log "ports/1/pkey refuses bad lines"
fi
n=$(ls $PORT/pkeys | wc -l)
[ "$n" = 32 ] || bad "$n P_Key entries, expected 32"
[ "$(cat $PORT/pkeys/0)" = 0xffff ] || bad "P_Key 0 is $(cat $PORT/pkeys/0)"
[ "$(cat $PORT/pkeys/1)" = 0x0000 ] || bad "P_Key 1 is $(cat $PORT/pkeys/1)"
$SMP -D nodeinfo 0 >/tmp/ni.log 2>&1 || bad "smpquery nodeinfo"
[ "$(field PartCap /tmp/ni.log)" = 32 ] ||
	bad "PartCap '$(field PartCap /tmp/ni.log)', expected 32"
v0=$(violations)
log "P_KeyViolations $v0"
[ "$v0" = 0 ] || bad "P_KeyViolations '$v0' on a new port"

# ---- partition 0x8001 on both ---------------------------------------------
child 8001 81
nap 2
carrier ib0.8001 0 1
barrier children
pkey_set 1 0x8001
[ "$(cat $PORT/pkeys/1)" = 0x8001 ] || bad "P_Key 1 is $(cat $PORT/pkeys/1)"
$SMP -D pkeys 0 >/tmp/pkeys.log 2>&1 || bad "smpquery pkeys"
sed 's/^/  pkeys: /' /tmp/pkeys.log
grep -q '0x8001' /tmp/pkeys.log || bad "PKeyTable lacks 0x8001"
carrier ib0.8001 1
barrier p8001
reach "198.18.81.$PEER_NUM" && log "ib0.8001 pings the peer's ib0.8001"
peer_exchange hw "$(cat /sys/class/net/ib0.8001/address)"
PEER_HW=$PEER_DATA

# ---- 0x8002 on a only: no way to b ----------------------------------------
if [ "$ROLE" = a ]; then
	pkey_set 2 0x8002
	child 8002 82
	carrier ib0.8002 1
else
	# b's ib0.8001 answers for 198.18.82.2: only a 0x8002 packet that got
	# through would reach it
	ip addr add 198.18.82.2/24 dev ib0.8001 || bad "address on ib0.8001"
	v1=$(violations)
fi
barrier p8002
if [ "$ROLE" = a ]; then
	# broadcast ARP in partition 0x8002 first, then a datagram straight to
	# b's ib0.8001 QP with a's 0x8002 P_Key
	unreachable 198.18.82.2
	ip neigh replace 198.18.82.2 lladdr "$PEER_HW" dev ib0.8002 \
		nud permanent || bad "neighbour 198.18.82.2 on ib0.8002"
	unreachable 198.18.82.2
	ip neigh show dev ib0.8002
fi
barrier p8002-sent 120
if [ "$ROLE" = b ]; then
	v2=$(violations)
	log "P_KeyViolations $v1 -> $v2 around a's 0x8002 pings"
	[ "$v2" != none ] && [ "$v1" != none ] && [ "$v2" -gt "$v1" ] ||
		bad "P_KeyViolations $v1 -> $v2: a's 0x8002 packets not counted"
	ip addr del 198.18.82.2/24 dev ib0.8001
fi

# ---- limited members: 0x0003 on both, then 0x8003 on b --------------------
pkey_set 3 0x0003
child 3 83
carrier ib0.3 1
barrier limited
[ "$ROLE" = b ] && v1=$(violations)
barrier limited-counted
[ "$ROLE" = a ] && unreachable 198.18.83.2
barrier limited-sent 120
if [ "$ROLE" = b ]; then
	v2=$(violations)
	log "P_KeyViolations $v1 -> $v2 around pings between limited members"
	[ "$v2" != none ] && [ "$v1" != none ] && [ "$v2" -gt "$v1" ] ||
		bad "P_KeyViolations $v1 -> $v2: limited to limited not counted"
	pkey_set 3 0x8003
fi
barrier full
if [ "$ROLE" = a ]; then
	reach 198.18.83.2 && log "limited 0x0003 pings full 0x8003"
fi
barrier limited-done 60

# ---- a's 0x8001 removed and put back --------------------------------------
if [ "$ROLE" = a ]; then
	carrier ib0.8001 1 1
	pkey_set 1 0
	carrier ib0.8001 0
	log "ib0.8001 without its P_Key: carrier $(cat /sys/class/net/ib0.8001/carrier)"
	pkey_set 1 0x8001
	carrier ib0.8001 1
	reach 198.18.81.2 && log "ib0.8001 back with its P_Key"
fi
barrier removed 120

# ---- a PathRecord that selects no P_Key --------------------------------------
peer_exchange gid "$(cat $PORT/gids/0)"
PEER_GID=$PEER_DATA
# pr_pkey: the P_Key of the PathRecord to the peer's GID, lower case
pr_pkey() {
	saquery -C sib0 -P 1 --sgid-to-dgid "$(cat $PORT/gids/0)-$PEER_GID" \
		>/tmp/pr.log 2>&1 || { echo "error: $(tail -n 1 /tmp/pr.log)"; return; }
	sed -n 's/^[[:space:]]*pkey\.*//p' /tmp/pr.log | head -n 1 | tr A-FX a-fx
}
if [ "$ROLE" = a ]; then
	p=$(pr_pkey)
	log "PathRecord selecting no P_Key: P_Key $p"
	[ "$p" = 0xffff ] || bad "PathRecord selecting no P_Key: P_Key '$p', expected 0xffff"
	# the port leaves the default partition: entry 0 holds 0x8001
	pkey_set 0 0x8001
	nap 1
	p=$(pr_pkey)
	log "PathRecord selecting no P_Key, entry 0 0x8001: P_Key $p"
	[ "$p" = 0x8001 ] ||
		bad "PathRecord selecting no P_Key from a port without 0xffff: P_Key '$p', expected 0x8001"
	pkey_set 0 0xffff
fi
barrier pathrecord 60

if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|lockdep|possible recursive'; then
	bad "kernel warnings (above)"
fi
barrier done
[ $res = 0 ] && log "PASS"
exit $res
