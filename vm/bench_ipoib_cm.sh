#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=2400 kernel=debian
#
# Benchmark (dev/bench.sh runs it; make check does not): IPoIB connected
# mode over the soft InfiniBand device, RC and UC connections, keepalives
# at their defaults (5 s x 3).  Like with like: both drivers run on
# Debian's kernel (release configuration) in the same boot, the
# replacement ib_ipoib (the patched driver; the samples say
# kernel=patched) over RC and UC, and Debian's own ib_ipoib (only the
# soft InfiniBand device replaced; kernel=stock) over RC, swapped every
# round (ROUNDS rounds, the order alternating: patched first in odd
# rounds, stock first in even ones), so that a host whose load drifts
# during the run weighs on both drivers alike.  (Running one half after
# the other measured the host: the stock half had less CPU.)
#  - throughput: REPEAT TCP transfers of SIZE MiB from a to b (busybox
#    nc) per round, kernel and transport; patched/stock per round (the
#    medians of its transfers) and the UC/RC ratio of the medians hold
#    under TCG; with each transfer, what a's soft device counted
#    meanwhile: send QPs that ran out of retries (retry_exceeded_err:
#    a connection lost, which IPoIB makes again) and retransmissions
#    (completer_retry_err).  The soft link loses packets in bursts, where
#    an InfiniBand link's credits would hold them; the stock driver's
#    connections have no retries (IPoIB-CM's REQ asks for none), so each
#    lost packet costs it a connection;
#  - keepalive cost of an idle connection (one each way) over IDLE_S
#    seconds, in the first round: probes and replies ipoib counts, and
#    the IB packets on the wire (the soft device's port counters, both
#    directions, divided by the two connections).
#
#	RDMA-HA-BENCH: bench=ipoib_cm kernel=K transport=T round=R xfer_ms=X
#		tput_mib_per_min=M qp_retry_exceeded_count=F qp_retries_count=N
#	RDMA-HA-BENCH: bench=ipoib_cm kernel=K transport=T ka_probes_per_min=P
#		ka_replies_per_min=R ka_wire_pkts_per_min=W
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

ROUNDS=${RDMA_HA_BENCH_ROUNDS:-3}
REPEAT=${RDMA_HA_BENCH_REPEAT:-2}
SIZE=${RDMA_HA_BENCH_SIZE:-16}
IDLE_S=${RDMA_HA_BENCH_IDLE_S:-30}
[ -f /etc/rdma-ha.dkms ] ||
	fail "runs on Debian's kernel with the replacement modules (kernel=debian)"
REPLACEMENT_IPOIB=$(grep '/ib_ipoib\.ko' /etc/rdma-ha.modules)
[ -n "$REPLACEMENT_IPOIB" ] || fail "no replacement ib_ipoib in /etc/rdma-ha.modules"
nic_setup eth1 "$MY_IP"
ib_up rc 5000 3
dd if=/dev/urandom of=/tmp/blob bs=1048576 count="$SIZE" 2>/dev/null
barrier up
wait_ping "$PEER_IB" 60

# throughput T: REPEAT timed transfers a -> b.
throughput() {
	local i t0 t1 port f0 f1 r0 r1
	for i in $(seq "$REPEAT"); do
		port=$((9800 + i))
		if [ "$ROLE" = b ]; then
			nc_recv $port /dev/null &
			barrier "tp-$round-$kernel-$1-$i"
			wait
		else
			barrier "tp-$round-$kernel-$1-$i"
			sleep 0.3
			f0=$(hw retry_exceeded_err) r0=$(hw completer_retry_err)
			t0=$(now)
			timeout 300 nc "$PEER_IB" $port </tmp/blob
			t1=$(now)
			f1=$(hw retry_exceeded_err) r1=$(hw completer_retry_err)
			echo "RDMA-HA-BENCH: bench=ipoib_cm kernel=$kernel" \
			     "transport=$1 round=$round $(awk -v a="$t0" -v b="$t1" -v s="$SIZE" 'BEGIN {
				printf "xfer_ms=%.0f tput_mib_per_min=%.1f",
					(b - a) * 1000, s * 60 / (b - a) }')" \
			     "qp_retry_exceeded_count=$((f1 - f0))" \
			     "qp_retries_count=$((r1 - r0))"
		fi
	done
}

hw() { cat "/sys/class/infiniband/sib0/ports/1/hw_counters/$1" || fail "no counter $1 on sib0"; }

# idle_cost T: IDLE_S seconds without traffic, one connection each way.
idle_cost() {
	local p0 p1 r0 r1 w0 w1
	barrier "idle-$kernel-$1"
	p0=$(cm_stat cm_ka_probes_sent 0) r0=$(cm_stat cm_ka_replies_received 0)
	w0=$(( $(hw sent_pkts) + $(hw rcvd_pkts) ))
	sleep "$IDLE_S"
	p1=$(cm_stat cm_ka_probes_sent 0) r1=$(cm_stat cm_ka_replies_received 0)
	w1=$(( $(hw sent_pkts) + $(hw rcvd_pkts) ))
	echo "RDMA-HA-BENCH: bench=ipoib_cm kernel=$kernel transport=$1" \
	     "ka_probes_per_min=$(( (p1 - p0) * 60 / IDLE_S ))" \
	     "ka_replies_per_min=$(( (r1 - r0) * 60 / IDLE_S ))" \
	     "ka_wire_pkts_per_min=$(( (w1 - w0) * 60 / IDLE_S / 2 ))"
	cm_stats "$kernel-$1-idle"
}

# use KERNEL: ib0 from the patched (replacement) or the stock ib_ipoib,
# on the same sib0, in connected mode, its paths and neighbours new.
use() {
	kernel=$1
	if [ "$kernel" = stock ]; then
		transports=rc
		distribution_modules ib_ipoib
		wait_for 10 test -d /sys/class/net/ib0 ||
			fail "no ib0 from the stock ib_ipoib"
		ib_connected_up
	else
		transports="rc uc"
		case "$(cat /sys/module/ib_ipoib/taint)" in
		*O*) ;;		# already the replacement (the first round)
		*)	rmmod ib_ipoib && insmod "$REPLACEMENT_IPOIB" ||
				fail "insmod $REPLACEMENT_IPOIB" ;;
		esac
		wait_for 10 test -d /sys/class/net/ib0 ||
			fail "no ib0 from the replacement ib_ipoib"
		ib_config rc 5000 3
	fi
	barrier "$round-$kernel-up"
	ip neigh flush dev ib0
}

# run: each transport of $transports on $kernel
run() {
	local t
	for t in $transports; do
		if [ "$t" = uc ]; then
			# a new policy flushes the paths, but not the peer's
			# address (with its old flags) from the ARP cache
			ib_policy uc
			barrier "$round-uc-set"
			ip neigh flush dev ib0
		fi
		barrier "$round-$kernel-$t"
		wait_ping "$PEER_IB" 60
		[ "$ROLE" = a ] && pings 5 "$PEER_IB" >/dev/null
		barrier "$round-$kernel-$t-pinged"
		cm_stats "$round-$kernel-$t"
		[ $kernel = stock ] || [ "$(cm_stat cm_tx_${t}_conns)" -ge 1 ] ||
			fail "no $t connection"
		throughput $t
		[ "$round" != 1 ] || idle_cost $t
	done
}

round=1
while [ $round -le "$ROUNDS" ]; do
	if [ $((round % 2)) = 1 ]; then order="patched stock"; else order="stock patched"; fi
	for k in $order; do
		use $k
		run
	done
	round=$((round + 1))
done
barrier end
