#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched
#
# The RDMA CM HA modes on an IPoIB bond whose links bonding watches with
# its ARP monitor (arp_interval, arp_ip_target the peer) instead of the
# carrier (miimon), issue 17.  The ARP monitor takes a slave out of
# service when its probes go unanswered, while the slave's carrier and
# its RDMA port stay up: a peer or a switch behind the link that stopped
# forwarding.  Here the link is cut at the peer's end only (QEMU set_link
# on b's NIC alone): a's NIC keeps its carrier and a's port stays ACTIVE,
# but nothing a sends on that link arrives.
#
# Back to back, without a switch, a backup link carries no frames (only
# the active slave sends probes), so each ARP monitor holds its backup
# slave down, and a failover goes through "no active slave" and the
# monitor's round of probes on each slave.  Both bonds first settle on
# the same link N.
#
#  1 fail-fast (server on a, bound to bond0's address), fail-fast client:
#    b cuts its own end of link N.  b: port N goes down, DISCONNECTED
#    -ENETDOWN from the port event.  a: its port N stays ACTIVE with
#    carrier, its bond fails over to the other slave when the ARP
#    monitor gives slave N up; the old path is dead (bonding's record
#    of the slave, not the carrier, says so), so a's ID gets
#    DISCONNECTED -ENETDOWN within the act bound of that failover,
#    where before it was judged misaligned but alive and kept for ever
#    (b's DREQ cannot cross the cut link).  The client reconnects over
#    the other link, through the listener extended to the other port.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=sib

need_cmd rdma mono_watch $PP

ib_bond_setup
wait_ping "$PEER_IP" 60
# A slave is given up after 5 intervals without a reply (arp_missed_max,
# 2 by default): a guest on a loaded machine can stall for more than 2
# intervals (seen in cma_ha_arp_switch: spurious failovers at 200 ms),
# and a failover before the act would misplace the phase.  The act's
# time is the kernel's log of the failover, not a bound on the monitor.
ip link set bond0 type bond miimon 0 arp_interval 100 \
	arp_ip_target "$PEER_IP" || fail "ARP monitoring on bond0"
echo 5 > /sys/class/net/bond0/bonding/arp_missed_max ||
	fail "arp_missed_max on bond0"
wait_for 60 grep -q . /sys/class/net/bond0/bonding/active_slave ||
	fail "bond0: no active slave under the ARP monitor"
wait_ping "$PEER_IP" 60
peer_exchange active "$(cat /sys/class/net/bond0/bonding/active_slave)"
mine=$(cat /sys/class/net/bond0/bonding/active_slave)
[ "$PEER_DATA" = "$mine" ] ||
	fail "the bonds settled on different links ($mine here, $PEER_DATA on the peer)"
N=${mine#ib}
O=$((1 - N))
log "bond0 (arp_interval $(cat /sys/class/net/bond0/bonding/arp_interval)) on ib$N, as on the peer"
barrier ready 120

# -- phase 1: fail-fast/fail-fast, b cuts its own end of link N ------------
start fail-fast "$MY_IP" fail-fast
acts=$((acts + 1))
kmsg_mark "act$acts"
T_WIN=$(now)
barrier "act$seq-cut"
if [ "$ROLE" = b ]; then
	host_cmd self "set_link n$N off"
	wait_carrier "eth$N" 0 30
	wait_for 30 _port_logged "$N" down || fail "no kernel log of sib$N: set down"
	T_ACT=$(kmsg_time "act$acts" "sib$N: set down\$")
else
	arp_failover "$N" "$O"
fi
data "what=act act=peer-cut arg=$N t_act=$T_ACT bond0=$(cat /sys/class/net/bond0/bonding/active_slave)"
sleep $OBSERVE_S
T_END=$(now)
teardown_checks $ENETDOWN ""
# The client's first attempt may resolve its route before its own bond
# failed over, and time out on the dead port (a fail-fast ID resolving
# is told by an ADDR_CHANGE with status dead); a later one reconnects.
if [ "$ROLE" = b ]; then
	wait_for 60 grep -q " connected id=[0-9]* .* dev=sib$O " "$PLOG" ||
		log "no reconnection within 60 s"
fi
barrier "cut-seen" 120
T_END=$(now)
reconnect_t=$(since " connected id=[0-9]* .* dev=sib$O ")
data "what=reconnected_ms value=${reconnect_t:-none} dev=sib$O"
check "reconnected on sib$O (${reconnect_t:-never} ms)" '[ -n "$reconnect_t" ]'
[ "$ROLE" = a ] || host_cmd self "set_link n$N on"
stop

finish
