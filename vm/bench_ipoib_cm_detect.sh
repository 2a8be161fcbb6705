#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=2400 kernel=debian
#
# Benchmark (dev/bench.sh runs it; make check does not): how long an
# idle IPoIB connected-mode host takes to notice that its peer is gone
# (the peer's link cut, no failover), patched vs stock.
# Like with like: both drivers run on Debian's kernel (release
# configuration) in the same boot:
#  - patched: first, the replacement ib_ipoib on both guests, keepalives
#    at their defaults (5 s x 3: the bound is 15 s);
#  - stock: then Debian's own ib_ipoib on both guests (only the soft
#    InfiniBand device replaced); the samples say kernel=stock.
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

[ -f /etc/rdma-ha.dkms ] ||
	fail "runs on Debian's kernel with the replacement modules (kernel=debian)"
nic_setup eth1 "$MY_IP"
ib_up rc 5000 3
kernel=patched
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

# rounds: ROUNDS rounds on $kernel
rounds() {
	local r
	for r in $(seq "$ROUNDS"); do
		barrier "$kernel-r$r"
		[ "$ROLE" = b ] && pings 5 "$PEER_IB"
		barrier "$kernel-r$r-b"
		[ "$ROLE" = a ] && pings 5 "$PEER_IB"
		barrier "$kernel-r$r-a"
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
		barrier "$kernel-r$r-done" $((CAP_S + 60))
		wait_for 30 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state ||
			fail "sib0 not ACTIVE again"
		wait_ping "$PEER_IB" 90
	done
}

rounds
# Debian's own ib_ipoib in place of the replacement, on the same sib0
barrier stock
distribution_modules ib_ipoib
wait_for 10 test -d /sys/class/net/ib0 || fail "no ib0 from the stock ib_ipoib"
ib_connected_up
barrier stock-up
ip neigh flush dev ib0
kernel=stock
wait_ping "$PEER_IB" 60
rounds
barrier end
