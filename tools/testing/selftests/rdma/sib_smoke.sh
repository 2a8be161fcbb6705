#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=400 kernel=patched,debian
#
# Soft InfiniBand smoke test: a sib
# device on eth0 of each guest, stock IPoIB on top; datagram ping,
# connected-mode ping with large payloads, rping over the IPoIB addresses.
# eth1 carries plain IP for the barriers.
. "$(dirname "$0")/lib.sh"

need_cmd rdma rping ibv_devinfo
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
res=0

nic_setup eth1 "$MY_IP"
ip link set eth0 mtu 4200 up
wait_carrier eth0 1
rdma link add sib0 type sib netdev eth0 || fail "rdma link add sib0"
wait_for 10 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state ||
	fail "sib0 not ACTIVE"
for f in lid sm_lid lid_mask_count state phys_state link_layer rate \
	 gids/0 pkeys/0 cap_mask; do
	log "port $f: $(cat /sys/class/infiniband/sib0/ports/1/$f)"
done
rdma link show
ibv_devinfo -d sib0 | grep -E 'hca_id|guid|state|mtu|lid|link_layer'
wait_for 10 test -d /sys/class/net/ib0 || fail "no ib0"
ip link set ib0 up || fail "ib0 up"
ip addr add "$IB_IP/24" dev ib0 || fail "address on ib0"
barrier up
wait_for 30 ping -c1 -W1 "$PEER_IB" || { log "FAIL: no first ping"; res=1; }
log "ib0: mode $(cat /sys/class/net/ib0/mode) mtu $(cat /sys/class/net/ib0/mtu)"
counters() {
	log "counters $1"
	ip -s link show eth0 | sed -n '3,6p'
	ip -s link show ib0 | sed -n '3,6p'
	awk '/^Icmp:/ { if (h) print "  " $0; h = 1 }' /proc/net/snmp
	for f in /sys/class/infiniband/sib0/ports/1/hw_counters/*; do
		v=$(cat "$f")
		[ "$v" = 0 ] || echo "  $(basename "$f") $v"
	done
}
icmp_reps() { awk '/^Icmp:/ { if (h) print $11; h = 1 }' /proc/net/snmp; }
counters before
if [ "$ROLE" = a ]; then
	ping -q -c 1000 -i 0.01 "$PEER_IP" >/tmp/ping-eth.log 2>&1
	log "eth1 reference:"; tail -n 2 /tmp/ping-eth.log
	reps0=$(icmp_reps)
	ping -c 1000 -i 0.01 "$PEER_IB" >/tmp/ping-dg.log 2>&1
	awk -F'seq=' '/seq=/ { split($2, a, " "); s = a[1] + 0;
		if (s != n) printf "  gap: %d..%d\n", n, s - 1; n = s + 1 }' /tmp/ping-dg.log
	tail -n 3 /tmp/ping-dg.log
	# busybox ping's 7 KiB socket buffer drops replies IP received
	# (IPoIB receive buffers are 8 KiB): count at the ICMP layer
	got=$(( $(icmp_reps) - reps0 ))
	log "echo replies received by ICMP: $got of 1000"
	[ "$got" -ge 1000 ] || { log "FAIL: datagram ping lost $((1000 - got))"; res=1; }
fi
barrier datagram 120
counters after

echo connected >/sys/class/net/ib0/mode || { log "FAIL: connected mode"; res=1; }
ip link set ib0 mtu 65520 || { log "FAIL: mtu 65520"; res=1; }
log "ib0: mode $(cat /sys/class/net/ib0/mode) mtu $(cat /sys/class/net/ib0/mtu)"
barrier connected
if [ "$ROLE" = a ]; then
	ping -c 20 -i 0.1 -s 60000 "$PEER_IB" >/tmp/ping-cm.log 2>&1
	tail -n 4 /tmp/ping-cm.log
	grep -q ' 0% packet loss' /tmp/ping-cm.log || { log "FAIL: connected ping"; res=1; }
fi
barrier cmping 120

# pair NAME SERVER_ARGS CLIENT_ARGS: run "NAME SERVER_ARGS" on b and
# "NAME CLIENT_ARGS" on a once b's server runs; both must succeed.
pair() {
	if [ "$ROLE" = b ]; then
		eval "timeout 60 $1 $2" >"/tmp/$1.log" 2>&1 &
		srv=$!
		barrier "$1"
		wait $srv || { log "FAIL: $1 server"; res=1; }
	else
		barrier "$1"
		sleep 1
		eval "timeout 60 $1 $3" >"/tmp/$1.log" 2>&1 ||
			{ log "FAIL: $1 client"; res=1; }
	fi
	tail -n 6 "/tmp/$1.log"
	barrier "$1-done" 90
}

pair rping '-s -a "$IB_IP" -p 7175 -C 10' '-c -a "$PEER_IB" -p 7175 -C 10 -S 64 -v'
pair ucmatose '-b "$IB_IP" -c 4 -C 20' '-s "$PEER_IB" -c 4 -C 20'

dmesg | grep -iE 'sib|ipoib|ib0|rxe' | tail -n 30
exit $res
