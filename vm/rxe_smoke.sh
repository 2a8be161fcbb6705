#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=120
#
# Smoke test of the test machine: rxe on eth0 with a local address, rping
# client and server in the same guest over it.  Passes when rping does,
# the device's hw counters lack the soft IB ones, the soft IB knob
# rxe_ib_lost_naks refuses this RoCE device, and rxe_ib_rnr refuses bad
# lines.
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
# the soft IB knob that loses NAKs refuses a RoCE device: its packets do
# not go through the soft IB port's send path
naks=/sys/kernel/debug/rxe_ib_lost_naks
[ -f $naks ] || fail "no $naks"
if echo "rxe0 1" 2>/tmp/naks.err >$naks; then
	fail "$naks took RoCE device rxe0"
fi
grep -q 'not supported' /tmp/naks.err ||
	fail "$naks on rxe0: $(cat /tmp/naks.err), expected EOPNOTSUPP"
[ "$(cat $naks)" = 0 ] || fail "$naks armed for rxe0"
log "rxe_ib_lost_naks refuses RoCE device rxe0: $(cat /tmp/naks.err)"
# the knobs that name a QP refuse bad lines with their own errnos
rnr=/sys/kernel/debug/rxe_ib_rnr
for l in "nosuch 1 1:No such device" "rxe0:Invalid argument" \
	 "rxe0 1:Invalid argument" "rxe0 x 1:Invalid argument" \
	 "rxe0 -1 1:Invalid argument" "rxe0 65535 1:No such file"; do
	if echo "${l%%:*}" 2>/tmp/rnr.err >$rnr; then
		fail "$rnr took '${l%%:*}'"
	fi
	grep -q "${l#*:}" /tmp/rnr.err ||
		fail "$rnr on '${l%%:*}': $(cat /tmp/rnr.err), expected ${l#*:}"
done
log "rxe_ib_rnr refuses bad lines"
exit 0
