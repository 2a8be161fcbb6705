#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=1 timeout=2400 kernel=stock,patched tsc=host
#
# Benchmark (dev/bench.sh runs it; make check does not): the cost of a
# bonding failover against the number of RDMA CM IDs on the host, when only
# 1% of them (at least one) are bound to the failing bond, stock kernel vs
# patched kernel in notify mode (the default).
#
# One guest: bond0 over eth0 and eth1 (wired to each other),
# fail_over_mac=active, rxe0 on bond0; rxe1 on veth0, a device the failover
# does not touch, with ADDRS addresses from 198.19.10.0/24.  For each size N:
# N - A IDs bound to rxe1's addresses with explicit ports (a background
# rdma_ha_idbench), A = max(1, N / 100) IDs bound to bond0's address (the
# measured rdma_ha_idbench); ROUNDS administrative failovers eth0 -> eth1,
# each followed by an unmeasured fail-back.  Per round, two windows:
#
#  first_ms, last_ms     user space: from the write to active_slave to the
#                        first and the last of the A ADDR_CHANGE events read
#                        by the idbench (what an application sees)
#  k_first_ms, k_last_ms in the kernel, from the trace buffer: from
#                        bonding's failover (its "making interface the new
#                        active one" message, printk:console) to the first
#                        and the last ADDR_CHANGE handed to the consumer
#                        (rdma_cma:cm_event_done; the consumer is ucma).
#                        Both tracepoints exist in the stock kernel too.
#                        This leaves out the shell's write and the reads
#                        of a user-space process, most of the noise of a
#                        TCG guest, and keeps the CM's notifier walk, its
#                        work queue and ucma
#
#	RDMA-HA-BENCH: bench=failover_scale ids=N round=R first_ms=F last_ms=L k_first_ms=KF k_last_ms=KL events=E
#
# The stock CM pr_info()s a line per ID it tells; on the serial console of
# a TCG guest that costs about 0.5 ms a line, so the console runs at
# loglevel 4 (warnings and worse, what a distribution's "quiet" boot
# gives) unless RDMA_HA_BENCH_LOGLEVEL says otherwise (8: every message).
# The guests keep time with the TSC (tsc=host): jiffies have 4 ms steps.
#
# Knobs: RDMA_HA_BENCH_SIZES (default 1,1000,10000,100000),
# RDMA_HA_BENCH_ROUNDS (default 10), RDMA_HA_BENCH_AFFECTED (a fixed A
# instead of 1%), RDMA_HA_BENCH_LOGLEVEL (default 4).
. "$(dirname "$0")/lib.sh"

SIZES=$(echo "${RDMA_HA_BENCH_SIZES:-1 1000 10000 100000}" | tr , ' ')
ROUNDS=${RDMA_HA_BENCH_ROUNDS:-10}
AFFECTED=${RDMA_HA_BENCH_AFFECTED:-}
ADDRS=4
IDB=rdma_ha_idbench
LOGLEVEL=${RDMA_HA_BENCH_LOGLEVEL:-4}

need_cmd rdma mono_watch $IDB
dmesg -n "$LOGLEVEL" || fail "dmesg -n $LOGLEVEL"
bond_setup
rxe_add rxe0 bond0
ip link add veth0 type veth peer name veth1 || fail "veth pair"
ip link set veth1 up || fail "veth1 up"
nic_setup veth0
bg_addrs=
a=1
while [ $a -le $ADDRS ]; do
	ip addr add "198.19.10.$a/24" dev veth0 || fail "address on veth0"
	bg_addrs="$bg_addrs -b 198.19.10.$a"
	a=$((a + 1))
done
rxe_add rxe1 veth0

# The in-kernel window (see above); the trace clock is CLOCK_MONOTONIC,
# the clock of mono_watch and the idbench.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T || fail "mount tracefs"
[ -d $T/events/rdma_cma/cm_event_done ] && [ -d $T/events/printk/console ] ||
	fail "no rdma_cma:cm_event_done or printk:console tracepoint"
echo mono >$T/trace_clock || fail "trace_clock mono"
echo 8192 >$T/buffer_size_kb
echo 0 >$T/tracing_on
echo 1 >$T/events/rdma_cma/cm_event_done/enable
echo 1 >$T/events/printk/console/enable

# trace_window: "first last" ms from bonding's failover message to the
# first and the last ADDR_CHANGE in the trace buffer; "none none" when a
# mark is missing (the buffer overflowed, say).
trace_window() {
	awk '{
		t = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1); break }
		if (t == "") next
	}
	/ console: .*making interface the new active one/ && b == "" { b = t }
	/ cm_event_done: .*ADDR_CHANGE/ && b != "" { if (f == "") f = t; l = t }
	END {
		if (b == "" || f == "") print "none none"
		else printf "%.3f %.3f\n", (f - b) * 1000, (l - b) * 1000
	}' $T/trace
}

mem_avail() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }

# events_after T: "count first last" of the ADDR_CHANGE lines at or after T.
events_after() {
	awk -v t="$1" '$1 >= t && / name=RDMA_CM_EVENT_ADDR_CHANGE / {
		n++; if (!f) f = $1; l = $1 }
		END { printf "%d %.3f %.3f\n", n, (f - t) * 1000, (l - t) * 1000 }' \
		/tmp/idb.log
}

# stop PID: end an idbench and wait for it (destroying many IDs takes a
# while).
stop() {
	kill "$1" 2>/dev/null
	wait "$1"
}

log "memory available: $(mem_avail) MiB"
for n in $SIZES; do
	aff=${AFFECTED:-$((n / 100))}
	[ "$aff" -ge 1 ] || aff=1
	[ "$aff" -le "$n" ] || aff=$n
	bg=$((n - aff))
	bgpid=
	t0=$(now)
	if [ $bg -gt 0 ]; then
		# shellcheck disable=SC2086
		$IDB $bg_addrs -p 10000 -n $bg >/tmp/bg.log 2>&1 &
		bgpid=$!
		wait_for 1200 grep -q ' ready ' /tmp/bg.log ||
			fail "background idbench ($bg IDs) did not start: $(tail -n 3 /tmp/bg.log), $(mem_avail) MiB available"
	fi
	$IDB -b "$MY_IP" -n "$aff" >/tmp/idb.log 2>&1 &
	pid=$!
	wait_for 600 grep -q ' ready ' /tmp/idb.log ||
		fail "idbench did not start: $(cat /tmp/idb.log)"
	log "ids=$n: $aff on bond0, $bg on rxe1, set up in $(rel "$t0" "$(now)") s, $(mem_avail) MiB available"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		sleep 0.5
		echo >$T/trace
		echo 1 >$T/tracing_on
		t=$(now)
		echo eth1 >/sys/class/net/bond0/bonding/active_slave
		# the events take milliseconds; polling from the start would
		# compete with them for the guest's CPUs
		sleep 0.2
		wait_for 120 sh -c "[ \$(awk -v t=$t '\$1 >= t && /ADDR_CHANGE/' /tmp/idb.log | wc -l) -ge $aff ]" ||
			log "ids=$n round=$r: not all events came"
		echo 0 >$T/tracing_on
		# shellcheck disable=SC2046
		set -- $(events_after "$t") $(trace_window)
		echo "RDMA-HA-BENCH: bench=failover_scale ids=$n round=$r first_ms=$2 last_ms=$3 k_first_ms=$4 k_last_ms=$5 events=$1"
		[ "$1" -ge "$aff" ] || fail "ids=$n round=$r: $1 of $aff ADDR_CHANGE events"
		[ "$4" != none ] || fail "ids=$n round=$r: no failover message or no ADDR_CHANGE in the trace"
		# Back to eth0, unmeasured (see bench_failover_ids.sh).
		sleep 0.5
		echo eth0 >/sys/class/net/bond0/bonding/active_slave
	done
	# The background IDs get no event at all.
	[ -z "$bgpid" ] || ! grep -q ' event ' /tmp/bg.log ||
		fail "ids=$n: the IDs on rxe1 got events: $(grep ' event ' /tmp/bg.log | head -n 3)"
	stop $pid
	[ -z "$bgpid" ] || stop $bgpid
done
exit 0
