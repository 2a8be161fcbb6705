#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=600 kernel=patched net=switch
#
# The RDMA CM HA modes on an IPoIB bond whose links bonding watches with
# its ARP monitor (arp_interval 100 on a, 1000 on b, arp_ip_target the
# peer, arp_validate none), on a switched segment (vm.sh net=switch): the four ports of the
# two guests' soft IB devices on one learning switch, as the ports of the
# hosts' HCAs on one subnet's switch (issue 17).  A backup slave hears the
# peer's probes and replies there, so the ARP monitor keeps it up, which
# it cannot on a cable of its own (cma_ha_arp): the sequences that switch
# or fail over to a healthy backup.  Both bonds first settle on link N
# (ibN, sibN), with both slaves up.
#
#  1 fail-fast (server on a, bound to bond0's address), fail-fast client:
#    administrative switch of both bonds to ibO, both links up.  The ARP
#    monitor's record of ibN is up: the old path is healthy, and
#    fail-fast keeps the connection on sibN (no event, no WC error, no
#    reconnection, no stall), where a cut it could not tell from a
#    switch would tear it down.  Both bonds switch back to ibN.
#  2 fail-fast/fail-fast: the switch stops forwarding a's port of link N
#    (its VLAN changes); a's NIC keeps its carrier and sibN stays ACTIVE
#    on both guests.  a: the ARP monitor gives ibN up and fails over to
#    the backup it kept up (no "no active slave" in between); the old
#    path is dead by bonding's record of the slave, so a's ID gets
#    DISCONNECTED -ENETDOWN within the act bound of that failover.  b:
#    its bond stays on ibN (a's probes and replies now come from a's ibO
#    and reach it); nothing tells its CM (a's DREQ leaves from the
#    isolated port), so its connection ends when RC's retries run out,
#    or, when a had acknowledged b's last ping but its echo never left
#    (b's QP then has nothing outstanding and never retries), when the
#    client's reply timeout gives the echo up, as a consumer that only
#    waits to receive must; the client's new connection runs from b's
#    sibN to a's sibO through the switch, a path across the links that
#    only a switched fabric has.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=sib

need_cmd rdma mono_watch $PP

# rdma_diag: what the RDMA side looks like, for the reader of a failure
rdma_diag() {
	for d in sib0 sib1; do
		log "$d: $(cd /sys/class/infiniband/$d/ports/1/hw_counters &&
			grep -H . * | sed 's/:/=/' | tr '\n' ' ')"
	done
	ip neigh show dev bond0 | sed "s/^/$ROLE: neigh: /"
	rdma res show qp 2>&1 | grep -v 'type UD\|type GSI\|type SMI' |
		sed "s/^/$ROLE: qp: /"
}

# rdma_brief DEV: one line on DEV's RC QPs and retries, for an assertion
# (CI shows the failed ones, not the log)
rdma_brief() {
	_c=/sys/class/infiniband/$1/ports/1/hw_counters
	echo "$1: qps $(rdma res show qp link "$1/1" 2>/dev/null |
		awk '/type RC/ { for (i = 1; i < NF; i++) if ($i == "state") printf "%s ", $(i + 1) }')" \
		"retries $(cat $_c/completer_retry_err) exceeded $(cat $_c/retry_exceeded_err)" \
		"rnr $(cat $_c/rcvd_rnr_err) seq $(cat $_c/rcvd_seq_err)" \
		"sent $(cat $_c/sent_pkts) rcvd $(cat $_c/rcvd_pkts)"
}

# slave_up IF: bonding's record of slave IF is up (/proc/net/bonding).
slave_up() {
	awk -v s="$1" '/^Slave Interface: / { cur = $3 }
		cur == s && /^MII Status: / { exit ($3 == "up") ? 0 : 1 }' \
		/proc/net/bonding/bond0
}

ib_bond_setup
wait_ping "$PEER_IP" 60
# b's monitor is ten times slower than a's: when a link stops carrying
# anything, both ARP monitors miss their replies at once and either bond
# may give its slave up first (seen: both failed over), as on a real
# fabric; here a's gives up first, and by the time b's looks, a's probes
# and replies reach b's ibN again from a's ibO.  Each gives a slave up
# after 5 intervals without a frame (arp_missed_max, 2 by default): a
# guest on a loaded machine can stall for more than 2 of a's intervals
# (seen: spurious failovers of a's bond at 200 ms)
iv=100
[ "$ROLE" = a ] || iv=1000
ip link set bond0 type bond miimon 0 arp_interval $iv \
	arp_ip_target "$PEER_IP" arp_validate none || fail "ARP monitoring on bond0"
echo 5 > /sys/class/net/bond0/bonding/arp_missed_max ||
	fail "arp_missed_max on bond0"
# A bond that turns its ARP monitor on has no active slave until its
# first replies (seen: b's for 1 s), and the peer's monitor, already on,
# gives up the link it probes over meanwhile (seen: a's bond on ib1
# before the first phase).  Both monitors on first, then the links.
barrier arp-on 120
N=0
O=1
wait_ping "$PEER_IP" 60
wait_for 30 slave_up "ib$N" || fail "ib$N not up under the ARP monitor"
grep -qx "ib$N" /sys/class/net/bond0/bonding/active_slave ||
	bond_activate "ib$N"
# the premise: the backup slave is up under the ARP monitor, and stays so
wait_for 30 slave_up "ib$O" ||
	fail "ib$O (backup) not up under the ARP monitor on a switched segment: $(cat /proc/net/bonding/bond0)"
barrier ready 120
ups=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	slave_up "ib$O" && slave_up "ib$N" && ups=$((ups + 1))
	nap 0.3
done
check "both slaves up under the ARP monitor over 3 s ($ups of 10 looks)" '[ "$ups" = 10 ]'
check "bond0 on ib$N" 'grep -qx "ib$N" /sys/class/net/bond0/bonding/active_slave'
log "bond0 (arp_interval $(cat /sys/class/net/bond0/bonding/arp_interval)) on ib$N, ib$O up as backup"

# -- phase 1: fail-fast/fail-fast, administrative switch, both links up ------
start fail-fast "$MY_IP" fail-fast
act switch "ib$O"
check "ib$N still up under the ARP monitor after the switch" 'slave_up "ib$N"'
stop
kept_checks "healthy old path under the ARP monitor"
check "still on sib$N at the end" \
	'[ "$(count " connected id=")" = 0 ] && grep -q " connected id=1 .* dev=sib$N " "$PLOG"'
barrier "back1" 60
bond_activate "ib$N"
wait_for 30 slave_up "ib$O" || fail "ib$O not up again"

# -- phase 2: fail-fast/fail-fast, the switch stops forwarding a's port N ----
# (seen without the reply timeout, in 4 runs of 42 on a loaded host and
# once in CI: b's ping acknowledged, its echo lost, b's client waiting
# for ever on a QP with no retry pending)
start fail-fast "$MY_IP" fail-fast "--reply-timeout-ms 5000"
acts=$((acts + 1))
kmsg_mark "act$acts"
T_WIN=$(now)
barrier "act$seq-isolate"
if [ "$ROLE" = a ]; then
	host_cmd self "switch n$N off"
	arp_failover "$N" "$O"
	check "straight to the healthy backup: no \"without any active interface\"" \
		'[ -z "$(kmsg_time "act$acts" "without any active interface")" ]'
else
	T_ACT=$(now)
fi
data "what=act act=isolate arg=$N t_act=$T_ACT bond0=$(cat /sys/class/net/bond0/bonding/active_slave)"
sleep $OBSERVE_S
T_END=$(now)
if [ "$ROLE" = a ]; then
	teardown_checks $ENETDOWN ""
else
	check "bond0 stays on ib$N (a's probes reach it from a's ib$O)" \
		'grep -qx "ib$N" /sys/class/net/bond0/bonding/active_slave'
	check "sib$N still ACTIVE" 'grep -q ACTIVE /sys/class/infiniband/sib$N/ports/1/state'
	wait_for 90 grep -q " connected id=[2-9][0-9]* .* dev=sib$N " "$PLOG" ||
		log "no reconnection within 90 s"
fi
rdma_diag
barrier "isolate-seen" 150
T_END=$(now)
if [ "$ROLE" = b ]; then
	reconnect_t=$(since " connected id=[2-9][0-9]* .* dev=sib$N ")
	data "what=reconnected_ms value=${reconnect_t:-none} dev=sib$N"
	check "reconnected from sib$N (${reconnect_t:-never} ms; $(rdma_brief sib$N))" \
		'[ -n "$reconnect_t" ]'
else
	reconnect_t=$(since " connected id=[2-9][0-9]* .* dev=sib$O ")
	data "what=reconnected_ms value=${reconnect_t:-none} dev=sib$O"
	check "the client's new connection arrived on sib$O (${reconnect_t:-never} ms; $(rdma_brief sib$O))" \
		'[ -n "$reconnect_t" ]'
fi
[ "$ROLE" = b ] || host_cmd self "switch n$N on"
stop

finish
