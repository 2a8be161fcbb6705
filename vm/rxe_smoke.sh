#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=120
#
# Smoke test of the test machine: rxe on eth0 with a local address, rping
# client and server in the same guest over it.  Passes when rping does,
# the device's hw counters lack the soft IB ones, its debugfs knobs are a
# RoCE device's, refuse bad lines and go with the device.
. "$(dirname "$0")/lib.sh"

need_cmd rdma rping ibv_devinfo

nic_setup eth0 "$MY_IP"
rxe_add rxe0 eth0
ibv_devinfo -d rxe0 | grep -E 'hca_id|state|link_layer'

rping -s -a "$MY_IP" -p 7174 -C 10 >/tmp/rping-server.log 2>&1 &
srv=$!
sleep 0.5
log "rping client"
timeout 60 rping -c -a "$MY_IP" -p 7174 -C 10 -S 64 -v >/tmp/rping-client.log 2>&1
rc=$?
wait $srv
src=$?
sed 's/^/client: /' /tmp/rping-client.log | tail -n 5
sed 's/^/server: /' /tmp/rping-server.log | tail -n 5
[ $rc = 0 ] || fail "rping client exited $rc"
[ $src = 0 ] || fail "rping server exited $src"
n=$(grep -c 'ping data' /tmp/rping-client.log)
[ "$n" -ge 10 ] || fail "rping client printed $n of 10 pings"
log "rping: $n pings, client and server exited 0"
# rxe's hw counters of a RoCE device: rdma_recvs last, no soft IB counter
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
[ -f $hw/rdma_recvs ] || fail "no $hw/rdma_recvs"
[ ! -e $hw/ib_port_state_drops ] || fail "RoCE rxe0 has the soft IB counter ib_port_state_drops"
# the device's test knobs (debugfs rxe/rxe0/): a RoCE device has the
# knobs of every rxe device and lag, none of the soft IB ones (its packets
# do not go through the soft IB port's send path)
kd=/sys/kernel/debug/rxe/rxe0
for f in qp_fatal rnr nak lag; do
	[ -f $kd/$f ] || fail "no $kd/$f"
done
for f in drop corrupt lost_sls ports; do
	[ ! -e $kd/$f ] || fail "RoCE device rxe0 has the soft IB knob $kd/$f"
done
log "rxe0's knobs: $(ls $kd | tr '\n' ' ')"
# the knobs that name a QP refuse bad lines with their own errnos
for k in rnr:1 qp_fatal:; do
	n=${k#*:} k=$kd/${k%%:*}
	for l in ":Invalid argument" "x${n:+ $n}:Invalid argument" \
		 "-1${n:+ $n}:Invalid argument" "1${n:+ $n} 7:Invalid argument" \
		 "65535${n:+ $n}:No such file"; do
		if echo "${l%%:*}" 2>/tmp/knob.err >$k; then
			fail "$k took '${l%%:*}'"
		fi
		grep -q "${l#*:}" /tmp/knob.err ||
			fail "$k on '${l%%:*}': $(cat /tmp/knob.err), expected ${l#*:}"
	done
done
echo 1 2>/tmp/knob.err >$kd/rnr && fail "rnr took a QPN without a count"
log "rnr and qp_fatal refuse bad lines"
# the directory goes with the device; a knob held open fails once the
# device is gone, and nothing else happens
exec 3>$kd/rnr
rdma link delete rxe0 || fail "rdma link delete rxe0"
[ ! -e $kd ] || fail "$kd outlived rxe0"
if echo "1 1" 2>/tmp/knob.err >&3; then
	fail "rnr of deleted rxe0 took a write"
fi
exec 3>&-
log "rxe0's knobs went with it; a write to one held open: $(sed 's/.*: //' /tmp/knob.err)"
exit 0
