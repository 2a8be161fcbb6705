#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=120 kernel=patched
#
# A UD QP whose send fails locally goes to the Send Queue Error state and
# recovers with a modify to RTS, as the IBA specifies and the MAD layer
# expects of QP1 (patch "RDMA/rxe: Stop only the send queue of a UD QP on
# a send error"; stock rxe moves the QP to the error state for good, which
# lost RoCE ports to the CM in cma_ha_roce).  rxe_ud_sqe holds an address
# handle whose source GID is eth0's IPv4 address; the address is deleted,
# then the program checks: the send completes in error, the QP is in SQE,
# a send posted in SQE is flushed, SQE -> RTS works, and a send over the
# link-local GID is received by the receive posted before the error.
. "$(dirname "$0")/lib.sh"

need_cmd rdma rxe_ud_sqe

nic_setup eth0 "$MY_IP"
rxe_add rxe0 eth0

# gid_index GID: the index of GID in rxe0's port 1 table.
gid_index() {
	local f
	for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
		[ "$(cat "$f")" = "$1" ] && { basename "$f"; return 0; }
	done
	return 1
}

v4gid=$(echo "$MY_IP" | awk -F. '{
	printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n", $1, $2, $3, $4 }')
wait_for 10 gid_index "$v4gid" || fail "no GID for $MY_IP on rxe0"
bad=$(gid_index "$v4gid")
case $(cat /sys/class/infiniband/rxe0/ports/1/gids/0) in
fe80:*) ;;
*) fail "GID 0 is not link-local: $(cat /sys/class/infiniband/rxe0/ports/1/gids/0)" ;;
esac
log "GID $bad is $v4gid, GID 0 link-local"
# The good AH goes through GID 0, eth0's IPv6 link-local address, which is
# tentative until DAD ends (a second or more after eth0 came up).  Its
# address resolution can time out meanwhile: ibv_create_ah failed with
# ETIMEDOUT once, 0.25 s after the GIDs appeared, under a loaded host.
_dad_done() { [ -z "$(ip -6 addr show dev eth0 tentative)" ]; }
wait_for 15 _dad_done || fail "eth0's IPv6 address still tentative after 15 s"

mkfifo /tmp/sqe.in
rxe_ud_sqe --dev rxe0 --bad-gid-index "$bad" </tmp/sqe.in >/tmp/sqe.out 2>&1 &
pid=$!
exec 3>/tmp/sqe.in
wait_for 10 grep -qx ready /tmp/sqe.out || fail "rxe_ud_sqe: $(cat /tmp/sqe.out)"
ip addr del "$MY_IP/24" dev eth0 || fail "address off eth0"
wait_for 10 sh -c "! grep -qx $v4gid /sys/class/infiniband/rxe0/ports/1/gids/*" ||
	fail "GID $v4gid still on rxe0"
log "the address and its GID are gone"
echo go >&3
wait $pid
rc=$?
exec 3>&-
cat /tmp/sqe.out
[ $rc = 0 ] || fail "rxe_ud_sqe exited $rc"
log "all assertions hold"
exit 0
