#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=1 timeout=1500 kernel=stock,patched
#
# Benchmark (dev/bench.sh runs it; make check does not): how long the RDMA
# CM takes to tell N IDs about a bonding failover, stock kernel vs patched
# kernel in notify mode (the default).  One guest, bond0 over eth0 and
# eth1 (wired to each other), fail_over_mac=active, rxe0 on bond0; N IDs
# bound to bond0's address (rdma_ha_idbench); ROUNDS administrative
# failovers eth0 -> eth1 per N (each followed by an unmeasured fail-back).
# Per round: ms from the write to active_slave to the first and the last
# of the N RDMA_CM_EVENT_ADDR_CHANGE events.
#
#	RDMA-HA-BENCH: bench=failover_ids ids=N round=R first_ms=F last_ms=L events=E
. "$(dirname "$0")/lib.sh"

IDS=$(echo "${RDMA_HA_BENCH_IDS:-1 16 128 512}" | tr , " ")
ROUNDS=${RDMA_HA_BENCH_ROUNDS:-15}
IDB=rdma_ha_idbench

need_cmd rdma mono_watch $IDB
bond_setup
rxe_add rxe0 bond0

# events_after T: "count first last" of the ADDR_CHANGE lines at or after T.
events_after() {
	awk -v t="$1" '$1 >= t && / name=RDMA_CM_EVENT_ADDR_CHANGE / {
		n++; if (!f) f = $1; l = $1 }
		END { printf "%d %.3f %.3f\n", n, (f - t) * 1000, (l - t) * 1000 }' \
		/tmp/idb.log
}

for n in $IDS; do
	$IDB -b "$MY_IP" -n "$n" >/tmp/idb.log 2>&1 &
	pid=$!
	wait_for 60 grep -q ' ready ' /tmp/idb.log ||
		fail "idbench did not start: $(cat /tmp/idb.log)"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		sleep 0.5
		t=$(now)
		echo eth1 >/sys/class/net/bond0/bonding/active_slave
		wait_for 60 sh -c "[ \$(awk -v t=$t '\$1 >= t && /ADDR_CHANGE/' /tmp/idb.log | wc -l) -ge $n ]" ||
			log "ids=$n round=$r: not all events came"
		set -- $(events_after "$t")
		echo "RDMA-HA-BENCH: bench=failover_ids ids=$n round=$r first_ms=$2 last_ms=$3 events=$1"
		[ "$1" -ge "$n" ] || fail "ids=$n round=$r: $1 of $n ADDR_CHANGE events"
		# Back to eth0, unmeasured: the IDs still hold eth0's address
		# from their bind, so this failover is no address change to
		# them (the stock CM's rule, kept by notify mode).
		sleep 0.5
		echo eth0 >/sys/class/net/bond0/bonding/active_slave
	done
	kill $pid
	wait $pid
done
exit 0
