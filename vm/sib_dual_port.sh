#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched
#
# Two-port soft InfiniBand devices (rdma_rxe.sib_ports=2), as a dual-port
# HCA: on each guest sib0 has port 1 on eth0 and port 2 on eth1, the
# second given by a second "rdma link add sib0" naming the device.
#  1. both ports ACTIVE, each with the port GUID (EUI-64 of its own MAC)
#     and LID of its own netdevice, different from the other's; ibstat
#     per port; a third link for sib0 is refused (ENOSPC: no port left),
#     and so is a second device on eth1 (EEXIST);
#  2. IPoIB has ib0 on port 1 and ib1 on port 2 (dev_port 0 and 1), each
#     with its port's GID in its hardware address; each pings the peer's
#     interface on the same port, and the PMA's counters of each port
#     (perfquery -P) grow by what went over that port: 50 pings from a
#     over ib1 are at least 50 packets sent by port 2 on both guests, and
#     fewer by port 1; multicast that comes in on port 2 reaches ib1,
#     not ib0 (the two join the same groups);
#  3. the SMA answers per port (smpquery -P 2): NodeInfo by directed
#     route 0 from port 2 has LocalPortNum 2 and port 2's GUID, PortInfo
#     of the peer's port 2 (by its LID, over eth1) its LID and
#     LocalPortNum 2;
#  4. eth0's link cut on both guests: port 1 goes DOWN ("sib0: set
#     down"), port 2 stays ACTIVE with no event of its own and ib1 still
#     pings; the link back, port 1 is ACTIVE again and ib0 pings;
#  5. an active-backup bond of ib0 and ib1 (the two ports of one device,
#     as issue 20's RDMA CM migrate mode wants it): it pings, eth0's link
#     cut again moves it to ib1 and it still pings.
#  6. b makes sib0 again with no built-in SA: both ports wait in INIT;
#     20 frames sent raw from a's eth1 to b's port 2 count in port 2's
#     ib_port_state_drops, not in port 1's (the counter is the port's).
# eth1 also carries plain IP for the barriers (its sib frames have their
# own EtherType).
. "$(dirname "$0")/lib.sh"

need_cmd rdma ibstat smpquery perfquery sib_probe
P1=/sys/class/infiniband/sib0/ports/1
P2=/sys/class/infiniband/sib0/ports/2
IB0_IP=198.18.10.$ROLE_NUM
IB1_IP=198.18.11.$ROLE_NUM
PEER_IB0=198.18.10.$PEER_NUM
PEER_IB1=198.18.11.$PEER_NUM
res=0
bad() { log "FAIL: $*"; res=1; }

# eui64 NETDEV: the EUI-64 interface ID of NETDEV's MAC, as sysfs prints
# GIDs ("5054:00ff:fe00:0100")
eui64() {
	local IFS=:
	set -- $(cat "/sys/class/net/$1/address")
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x$1 ^ 2)) "$2" "$3" "$4" "$5" "$6"
}
# guid GID: the interface ID of a GID as sysfs prints it, 16 hex digits
guid() { echo "$1" | tr -d : | cut -c17-; }

[ -w /sys/module/rdma_rxe/parameters/sib_ports ] ||
	fail "no sib_ports parameter"
echo 2 >/sys/module/rdma_rxe/parameters/sib_ports
nic_setup eth1 "$MY_IP"
for n in eth0 eth1; do
	ip link set $n mtu 4200 up || fail "$n up"
	wait_carrier $n 1 30
done
rdma link add sib0 type sib netdev eth0 || fail "rdma link add sib0 eth0"
[ -d $P2 ] || fail "sib0 has no port 2"
log "port 2 before its netdevice: $(cat $P2/state), $(cat $P2/phys_state)"
grep -q DOWN $P2/state || bad "port 2 without a netdevice is not DOWN"
rdma link add sib0 type sib netdev eth1 || fail "rdma link add sib0 eth1"
for p in $P1 $P2; do
	wait_for 30 grep -q ACTIVE $p/state || fail "$p not ACTIVE"
done
rdma link show

# ib_state IF: what IPoIB and the port have, for a failure's log
ib_state() {
	local d=/sys/kernel/debug/ipoib
	log "$1: carrier $(cat /sys/class/net/$1/carrier)," \
	    "port 1 $(cat $P1/state) LID $(cat $P1/lid) SM LID $(cat $P1/sm_lid)"
	ip neigh show dev "$1"
	[ -r $d/$1_path ] && cat $d/$1_path
	[ -r $d/$1_mcg ] && cat $d/$1_mcg
	dmesg | sed -n '/rdma-ha: mark cut/,$p' | tail -n 40
}

# ---- 1. the ports ----------------------------------------------------------

LID1=$(($(cat $P1/lid)))
LID2=$(($(cat $P2/lid)))
GID1=$(cat $P1/gids/0)
GID2=$(cat $P2/gids/0)
log "port 1: LID $LID1 GID $GID1; port 2: LID $LID2 GID $GID2"
[ "$LID1" != "$LID2" ] || bad "both ports have LID $LID1"
case $GID1 in *"$(eui64 eth0)") ;; *) bad "port 1 GID $GID1 is not eth0's";; esac
case $GID2 in *"$(eui64 eth1)") ;; *) bad "port 2 GID $GID2 is not eth1's";; esac
for p in 1 2; do
	ibstat sib0 $p >/tmp/ibstat$p.log || bad "ibstat sib0 $p"
	cat /tmp/ibstat$p.log
	eval lid=\$LID$p
	for want in "State: Active" "Base lid: $lid" "SM lid: $lid" \
		    "Link layer: InfiniBand"; do
		grep -q "$want" /tmp/ibstat$p.log ||
			bad "ibstat sib0 $p: no '$want'"
	done
done
ip link add v0 type veth peer name v1 || fail "veth"
ip link set v0 up
if rdma link add sib0 type sib netdev v0 2>/tmp/third.err; then
	bad "a third port was added to sib0"
else
	log "third link refused: $(cat /tmp/third.err)"
	grep -q 'No space left' /tmp/third.err ||
		bad "the third link was not refused with ENOSPC"
fi
if rdma link add sib1 type sib netdev eth1 2>/tmp/again.err; then
	bad "a second device on eth1"
else
	log "second device on eth1 refused: $(cat /tmp/again.err)"
	grep -q 'File exists' /tmp/again.err ||
		bad "the second device on eth1 was not refused with EEXIST"
fi
ip link del v0

# ---- 2. IPoIB on both ports ------------------------------------------------

for i in 0 1; do
	wait_for 10 test -d /sys/class/net/ib$i || fail "no ib$i"
	dp=$(cat /sys/class/net/ib$i/dev_port)
	[ "$dp" = $i ] || bad "ib$i has dev_port $dp"
done
# the hardware address: 4 bytes of QPN, then the port's GID
hw1=$(cat /sys/class/net/ib1/address | cut -d: -f13- | tr -d :)
want=$(guid "$GID2")
[ "$hw1" = "$want" ] || bad "ib1's address ends $hw1, port 2's GUID is $want"
ip link set ib0 up && ip addr add "$IB0_IP/24" dev ib0 || fail "ib0"
ip link set ib1 up && ip addr add "$IB1_IP/24" dev ib1 || fail "ib1"
peer_exchange ids "$LID1 $LID2 $GID2"
set -- $PEER_DATA
PEER_LID1=$1 PEER_LID2=$2 PEER_GID2=$3
log "peer: port 1 LID $PEER_LID1, port 2 LID $PEER_LID2 GID $PEER_GID2"

# xmit_pkts PORT: PortXmitPkts of PORT by the PMA (perfquery -x)
xmit_pkts() {
	perfquery -C sib0 -P "$1" -x >/tmp/pq$1.log 2>&1 ||
		{ bad "perfquery -P $1: $(tail -n 1 /tmp/pq$1.log)"; echo 0; return; }
	sed -n 's/^PortXmitPkts:\.*//p' /tmp/pq$1.log
}

barrier up 120
wait_for 30 ping -c1 -W1 "$PEER_IB0" || bad "no first ping over ib0"
wait_for 30 ping -c1 -W1 "$PEER_IB1" || bad "no first ping over ib1"
x1=$(xmit_pkts 1) x2=$(xmit_pkts 2)
barrier pinged 120
# a pings, b answers: 50 packets out of port 2 on both
if [ "$ROLE" = a ]; then
	ping -q -c 50 -i 0.02 -I ib1 "$PEER_IB1" >/tmp/ping-ib1.log 2>&1 ||
		bad "ping over ib1: $(tail -n 2 /tmp/ping-ib1.log | tr '\n' ' ')"
	tail -n 2 /tmp/ping-ib1.log
fi
barrier ib1-pinged 120
d1=$(( $(xmit_pkts 1) - x1 )) d2=$(( $(xmit_pkts 2) - x2 ))
log "PortXmitPkts grew by $d1 on port 1, $d2 on port 2 (50 pings over port 2)"
[ "$d2" -ge 50 ] || bad "port 2 counted $d2 packets sent, not the 50 pings"
[ "$d1" -lt 50 ] || bad "port 1 counted $d1 packets sent while port 2 pinged"
ping -q -c 20 -i 0.02 -I ib0 "$PEER_IB0" >/tmp/ping-ib0.log 2>&1 ||
	bad "ping over ib0: $(tail -n 2 /tmp/ping-ib0.log | tr '\n' ' ')"
tail -n 2 /tmp/ping-ib0.log

# A multicast packet that comes in on port 2 is for the QPs of port 2: ib0
# and ib1 join the same groups (the broadcast group, all-hosts), as on any
# dual-port HCA, and an HCA steers a packet to the QPs of its own port.  b
# pings the all-hosts group over ib1 (no one answers: the echo requests
# are multicast); a's ib1 receives them, its ib0 must not (fewer than 10:
# what ib0 gets of its own port's multicast meanwhile; the bug gave 30).
mcast() { cat /sys/class/net/$1/statistics/multicast; }
m0=$(mcast ib0) m1=$(mcast ib1)
barrier mcast 120
[ "$ROLE" = b ] && ping -q -c 30 -i 0.05 -I ib1 224.0.0.1 >/dev/null 2>&1
barrier mcast-sent 120
dm0=$(( $(mcast ib0) - m0 )) dm1=$(( $(mcast ib1) - m1 ))
log "multicast received while b pinged 224.0.0.1 over ib1: ib0 $dm0, ib1 $dm1"
if [ "$ROLE" = a ]; then
	[ "$dm1" -ge 30 ] ||
		bad "ib1 received $dm1 multicast packets, not b's 30 pings"
	[ "$dm0" -lt 10 ] ||
		bad "ib0 (port 1) received $dm0 multicast packets that came in on port 2"
fi

# ---- 3. the SMA of each port -----------------------------------------------

SMP="smpquery -C sib0 -P 2 -t 1000"
# field NAME FILE: the value smpquery printed for NAME ("Name:....value")
field() { sed -n "s/^$1:\.*//p" "$2" | head -n 1; }
$SMP -D nodeinfo 0 >/tmp/ni.log 2>&1 || bad "smpquery -P 2 -D nodeinfo 0"
cat /tmp/ni.log
[ "$(field LocalPort /tmp/ni.log)" = 2 ] ||
	bad "NodeInfo from port 2: LocalPort $(field LocalPort /tmp/ni.log)"
[ "$(field NumPorts /tmp/ni.log)" = 2 ] ||
	bad "NodeInfo: NumPorts $(field NumPorts /tmp/ni.log)"
pg=$(field PortGuid /tmp/ni.log)
[ "${pg#0x}" = "$(guid "$GID2")" ] ||
	bad "NodeInfo from port 2: PortGuid $pg, port 2 GID $GID2"
$SMP portinfo "$PEER_LID2" >/tmp/pi.log 2>&1 ||
	bad "smpquery -P 2 portinfo $PEER_LID2"
cat /tmp/pi.log
[ "$(($(field Lid /tmp/pi.log)))" = "$PEER_LID2" ] ||
	bad "the peer's port 2 PortInfo: Lid $(field Lid /tmp/pi.log)"
[ "$(field LocalPort /tmp/pi.log)" = 2 ] ||
	bad "the peer's port 2 PortInfo: LocalPort $(field LocalPort /tmp/pi.log)"
barrier smp 120

# ---- 4. a cut of port 1's link ---------------------------------------------

kmsg_mark cut
# both marks before the cut: it takes both guests' links at once
barrier marked 120
[ "$ROLE" = a ] && host_cmd both "set_link n0 off"
wait_for 60 grep -q DOWN $P1/state || bad "port 1 not DOWN after the cut"
grep -q ACTIVE $P2/state || bad "port 2 not ACTIVE after port 1's cut"
# the port is DOWN before rxe logs it
cut_log() { dmesg | sed -n '/rdma-ha: mark cut/,$p' >/tmp/cut.log; grep -q "$1" /tmp/cut.log; }
wait_for 10 cut_log 'sib0: set down$' || bad "no 'sib0: set down'"
grep -q 'sib0: port 2: set down' /tmp/cut.log && bad "port 2 went down"
barrier cut 120
ping -q -c 20 -i 0.05 -I ib1 "$PEER_IB1" >/tmp/ping-cut.log 2>&1 ||
	bad "ib1 lost its pings with port 1 cut: $(tail -n 2 /tmp/ping-cut.log | tr '\n' ' ')"
tail -n 2 /tmp/ping-cut.log
barrier cut-pinged 120
[ "$ROLE" = a ] && host_cmd both "set_link n0 on"
wait_for 60 grep -q ACTIVE $P1/state || bad "port 1 not ACTIVE after the link came back"
barrier restored 120
wait_for 60 ping -c1 -W1 "$PEER_IB0" ||
	{ bad "no ping over ib0 after the cut"; ib_state ib0; }
# the peer keeps its address on ib0 until both have pinged: the one that
# pinged first must not take it away from the other's ARP (the bond below)
barrier ib0-back 120

# ---- 5. an IPoIB bond over the two ports -------------------------------------

BOND_IP=198.18.12.$ROLE_NUM
PEER_BOND=198.18.12.$PEER_NUM
ip addr flush dev ib0
ip addr flush dev ib1
ib_bond_make "$BOND_IP"
wait_for 30 grep -qx ib0 /sys/class/net/bond0/bonding/active_slave ||
	echo ib0 >/sys/class/net/bond0/bonding/active_slave
barrier bond-up 120
wait_for 30 ping -c1 -W1 "$PEER_BOND" || bad "no ping over the bond"
barrier bond-pinged 120
[ "$ROLE" = a ] && host_cmd both "set_link n0 off"
wait_for 60 grep -qx ib1 /sys/class/net/bond0/bonding/active_slave ||
	bad "bond0 did not fail over to ib1: $(cat /sys/class/net/bond0/bonding/active_slave)"
barrier bond-failed-over 120
wait_for 30 ping -c1 -W1 "$PEER_BOND" || bad "no ping over the bond on ib1"
barrier bond-done 120
[ "$ROLE" = a ] && host_cmd both "set_link n0 on"
wait_carrier eth0 1 30

# 6. ib_port_state_drops per port: b makes sib0 again, both ports and no
#    built-in SA, so both wait in INIT (no SM here); a, its IPoIB down,
#    sends frames with a good ICRC raw from its eth1 to b's port 2: port
#    2's counter grows by them, port 1's does not.
ip link del bond0
ip link set ib0 down
ip link set ib1 down
if [ "$ROLE" = b ]; then
	rdma link delete sib0 || bad "rdma link delete sib0"
	echo N >/sys/module/rdma_rxe/parameters/sib_builtin_sa ||
		bad "no module parameter rdma_rxe.sib_builtin_sa"
	for n in eth0 eth1; do
		rdma link add sib0 type sib netdev $n || bad "rdma link add sib0 $n"
	done
	for p in $P1 $P2; do
		wait_for 10 grep -q INIT $p/state || bad "$p not INIT: $(cat $p/state)"
	done
fi
peer_exchange init "$(cat /sys/class/net/eth1/address) $(($(cat $P2/lid)))"
set -- $PEER_DATA
drops() { cat "$1/hw_counters/ib_port_state_drops" 2>/dev/null || echo none; }
if [ "$ROLE" = b ]; then
	s1=$(drops $P1) s2=$(drops $P2)
	barrier init-counted 120
	barrier init-sent 120
	nap 1
	t1=$(drops $P1) t2=$(drops $P2)
	log "INIT: ib_port_state_drops port 1 $s1 -> $t1, port 2 $s2 -> $t2 (a sent 20 to port 2)"
	[ "$s2" != none ] && [ "$t2" != none ] && [ $((t2 - s2)) -ge 20 ] ||
		bad "port 2 in INIT: ib_port_state_drops $s2 -> $t2, expected 20 more"
	[ "$s1" != none ] && [ "$t1" != none ] && [ $((t1 - s1)) -lt 20 ] ||
		bad "port 1 counted port 2's drops: ib_port_state_drops $s1 -> $t1"
else
	barrier init-counted 120
	sib_probe raw-send --ifname eth1 --dst-mac "$1" --dlid "$2" \
		--slid "$(($(cat $P2/lid)))" --dqpn 0x123 --qkey 0x11111111 \
		--good-icrc --count 20 || bad "raw-send failed"
	barrier init-sent 120
fi
barrier done 120

# (not "lockdep": the boot says "RCU lockdep checking is enabled")
if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|possible recursive|circular locking|inconsistent lock'; then
	bad "kernel warning"
fi
[ $res = 0 ] || fail "sib_dual_port"
log "PASS"
