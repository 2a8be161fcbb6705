#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=1500 kernel=patched,debian
#
# Benchmark (dev/bench.sh runs it; make check does not): how long an
# idle IPoIB connected-mode host takes to notice that its peer is gone
# (the peer's link cut, no failover), patched vs stock.
#  - patched: both guests on the patched kernel, keepalives at their
#    defaults (5 s x 3: the bound is 15 s);
#  - stock: both guests on Debian's kernel with its own ib_ipoib (only the
#    soft InfiniBand device replaced); the samples say kernel=stock.
#    Stock IPoIB notices an idle send-side connection only at the next
#    send, and reaps a receive-side one after 512 s or more of silence:
#    it is measured up to CAP_S seconds, and a sample of CAP_S s is a
#    lower bound.
# Per round, both connections are made (a ping each way), left idle for
# 2 s, then guest b's link is cut; guest a polls its live RC QPs (RTR or
# RTS in "rdma res show qp") and reports the ms from the request of the
# cut until the first and the last of them left.
#
#	RDMA-HA-BENCH: bench=ipoib_cm_detect round=R first_ms=F all_ms=A
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

ROUNDS=${RDMA_HA_BENCH_ROUNDS:-3}
CAP_S=${RDMA_HA_BENCH_CAP_S:-60}

nic_setup eth1 "$MY_IP"
if [ -f /etc/rdma-ha.dkms ]; then
	ib_stock_up
	kernel=stock
else
	ib_up rc 5000 3
	kernel=patched
fi
barrier up
wait_ping "$PEER_IB" 60

# live_rc: the QP numbers of the live RC QPs of sib0, one a line.
live_rc() {
	rdma res show qp link sib0/1 | awk '/type RC/ && /state RT[RS]/ {
		for (i = 1; i < NF; i++)
			if ($i == "lqpn")
				print $(i + 1)
	}' | sort
}

for r in $(seq "$ROUNDS"); do
	barrier "r$r"
	[ "$ROLE" = b ] && pings 5 "$PEER_IB"
	barrier "r$r-b"
	[ "$ROLE" = a ] && pings 5 "$PEER_IB"
	barrier "r$r-a"
	sleep 2
	if [ "$ROLE" = a ]; then
		live_rc >/tmp/qps0
		log "round $r: live RC QPs $(tr '\n' ' ' </tmp/qps0)"
		t0=$(now)
		host_cmd peer "set_link n0 off"
		first='' all=''
		while :; do
			t=$(now)
			live_rc >/tmp/qps
			# busybox has no comm: count the QPs of qps0 still in qps
			left=0
			[ ! -s /tmp/qps ] || left=$(grep -cxFf /tmp/qps /tmp/qps0)
			[ -n "$first" ] || [ "$left" -eq "$(wc -l </tmp/qps0)" ] ||
				first=$t
			[ "$left" -gt 0 ] || { all=$t; break; }
			awk -v a="$t0" -v b="$t" -v c="$CAP_S" \
				'BEGIN { exit !(b - a >= c) }' && break
			sleep 0.2
		done
		first=${first:-$t} all=${all:-$t}
		echo "RDMA-HA-BENCH: bench=ipoib_cm_detect kernel=$kernel round=$r" \
		     "$(awk -v a="$t0" -v f="$first" -v l="$all" 'BEGIN {
			printf "first_ms=%.0f all_ms=%.0f", (f - a) * 1000, (l - a) * 1000 }')"
		host_cmd peer "set_link n0 on"
	fi
	barrier "r$r-done" $((CAP_S + 60))
	wait_for 30 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state ||
		fail "sib0 not ACTIVE again"
	wait_ping "$PEER_IB" 90
done
barrier end
