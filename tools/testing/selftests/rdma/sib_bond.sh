#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=300 kernel=patched,debian
#
# Soft InfiniBand bonding: sib0/sib1 on eth0/eth1, IPoIB ib0/ib1
# enslaved to an active-backup bond0; ping across a cut of the active link
# (set_link n0 off on both guests); the sib port goes DOWN, the bond fails
# over to ib1, ping resumes.
. "$(dirname "$0")/lib.sh"

need_cmd rdma
res=0
for i in 0 1; do
	ip link set eth$i mtu 4200 up
	wait_carrier eth$i 1
	rdma link add sib$i type sib netdev eth$i || fail "rdma link add sib$i"
done
for i in 0 1; do
	wait_for 10 grep -q ACTIVE /sys/class/infiniband/sib$i/ports/1/state ||
		fail "sib$i not ACTIVE"
	wait_for 10 test -d /sys/class/net/ib$i || fail "no ib$i"
done
ip link add bond0 type bond mode active-backup miimon 100 || fail "bond0"
for s in ib0 ib1; do
	ip link set $s down
	ip link set $s master bond0 || fail "cannot enslave $s"
done
ip link set bond0 up
ip addr add "$MY_IP/24" dev bond0 || fail "address on bond0"
wait_for 10 grep -qx ib0 /sys/class/net/bond0/bonding/active_slave ||
	fail "bond0 has no active slave"
log "bond0: fail_over_mac $(cat /sys/class/net/bond0/bonding/fail_over_mac)"
wait_ping "$PEER_IP" 60
log "first ping answered"
icmp() { awk '/^Icmp:/ { if (h) print $'"$1"'; h = 1 }' /proc/net/snmp; }
reps0=$(icmp 11)
if [ "$ROLE" = a ]; then
	ping -c 300 -i 0.05 "$PEER_IP" >/tmp/ping-bond.log 2>&1 &
	pp=$!
	sleep 4
	host_cmd both "set_link n0 off"
	wait_for 10 grep -q DOWN /sys/class/infiniband/sib0/ports/1/state &&
		log "sib0 port DOWN" || { log "FAIL: sib0 port not DOWN"; res=1; }
	wait_for 10 grep -qx ib1 /sys/class/net/bond0/bonding/active_slave &&
		log "bond0 failed over to ib1" || { log "FAIL: no failover"; res=1; }
	wait $pp
	awk -F'seq=' '/seq=/ { split($2, a, " "); s = a[1] + 0;
		if (s != n) printf "  gap: %d..%d\n", n, s - 1; n = s + 1 }' \
		/tmp/ping-bond.log
	tail -n 3 /tmp/ping-bond.log
	log "echo replies received by ICMP: $(( $(icmp 11) - reps0 )) of 300"
	host_cmd both "set_link n0 on"
	wait_for 10 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state &&
		log "sib0 port ACTIVE again" || { log "FAIL: sib0 not ACTIVE"; res=1; }
else
	sleep 25
fi
dmesg | grep -iE 'sib|ipoib|ib[01]|bond0' | tail -n 25
exit $res
