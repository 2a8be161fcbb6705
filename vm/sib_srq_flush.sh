#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=180 kernel=patched
#
# The receive an RC QP on an SRQ is working on is flushed when the QP goes
# to the error state in the middle of a message, before Last WQE Reached is
# raised (patch "RDMA/rxe: Flush the receive in progress of a QP on an
# SRQ"; stock rxe never completes it, and IPoIB connected mode loses a
# receive buffer each time).  One guest, its eth0 wired to its eth1: sib0
# on eth0 receives, sib1 on eth1 sends; netem on eth1 lets one frame out
# every few seconds, so that rxe_srq_flush moves the receiving QP to the
# error state between the first packet of its 3-packet SEND and the second.
. "$(dirname "$0")/lib.sh"

need_cmd rdma /usr/sbin/tc rxe_srq_flush
tc() { /usr/sbin/tc "$@"; }

# distinct MACs, so distinct LIDs (the last two bytes)
ip link set eth0 address 52:54:00:5f:0a:01 || fail "eth0 MAC"
ip link set eth1 address 52:54:00:5f:0a:02 || fail "eth1 MAC"
sib_add sib0 eth0
sib_add sib1 eth1
log "sib0 LID $(cat /sys/class/infiniband/sib0/ports/1/lid)," \
    "sib1 LID $(cat /sys/class/infiniband/sib1/ports/1/lid)"

# A SEND frame of a 256-byte MTU is about 300 bytes on the wire: one every
# 4.8 s at 500 bit/s, time enough for rxe_srq_flush to see the first one
# taken and modify its QP on a loaded host (it takes milliseconds).
tc qdisc add dev eth1 root netem rate 500bit || fail "no netem rate on eth1"

timeout 120 rxe_srq_flush --recv-dev sib0 --send-dev sib1 >/tmp/srq.out 2>&1
rc=$?
cat /tmp/srq.out
tc qdisc del dev eth1 root
[ $rc = 0 ] || fail "rxe_srq_flush exited $rc"
log "PASS"
