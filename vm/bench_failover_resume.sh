#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=3000 kernel=patched
#
# Benchmark (dev/bench.sh runs it; make check does not): time from a cut
# cable to traffic resumed for a reconnecting client, per HA mode, against
# the bonding miimon interval.  Patched kernel only (the stock kernel has
# no mode; its behaviour is notify's).
#
# Topology: the soft InfiniBand bond of cma_ha_ib.sh (sib0 on eth0, sib1 on
# eth1, bond0 over ib0/ib1, active-backup).  There an ID sits on the port
# of the slave that was active when it resolved and a cut leaves it on a
# dead port, so the modes differ: notify and ignore leave the connection
# on the dead port, align and migrate (which falls back to align on rxe)
# tear it down once the bond has failed over, fail-fast as soon as the port
# goes down.  Over rxe on bond0 the RDMA device follows the bond, nothing
# is ever misaligned and every mode would measure the same thing.
#
# Per round: the rdma_ha_pingpong server on a (wildcard address) and the
# client on b (--reconnect, 1 ms between pings, --stall-ms 100), both with
# MODE, connected on the active slave; the client's guest cuts the link of
# the active slave at both ends (T_ACT) and waits up to WINDOW s for
# traffic to flow again; then both programs stop, the link comes back and the next round starts
# with a fresh connection.
#
#	RDMA-HA-BENCH: bench=failover_resume mode=M miimon=MS round=R resume_ms=T outage_ms=G
#	RDMA-HA-BENCH: bench=failover_resume mode=M miimon=MS round=R noresume_ms=WINDOW
#
# resume_ms: from T_ACT to the end of the outage (client clock); outage_ms:
# the client's gap between the last echo before the cut and the first after
# (rdma_ha_pingpong's gap_ms), on the same or a new connection.
#
# Knobs: RDMA_HA_BENCH_MODES (default notify,ignore,align,fail-fast,migrate),
# RDMA_HA_BENCH_MIIMON (default 50,100,200), RDMA_HA_BENCH_ROUNDS (default
# 3), RDMA_HA_BENCH_WINDOW (s, default 6).
. "$(dirname "$0")/lib.sh"

MODES=$(echo "${RDMA_HA_BENCH_MODES:-notify ignore align fail-fast migrate}" | tr , ' ')
MIIMON=$(echo "${RDMA_HA_BENCH_MIIMON:-50 100 200}" | tr , ' ')
ROUNDS=${RDMA_HA_BENCH_ROUNDS:-3}
WINDOW=${RDMA_HA_BENCH_WINDOW:-6}
PP=rdma_ha_pingpong

need_cmd rdma mono_watch $PP
ib_bond_setup
wait_ping "$PEER_IP" 60
barrier ready 120

# resumed_after T: "resume_ms outage_ms" for the outage the cut at T
# caused, from the client log, or nothing while traffic is stalled.  TCG
# has short stalls of its own, so: traffic has resumed when the last stall
# record after T is an end; the outage is the longest gap that ended after
# T, resume_ms the time from T to its end.
resumed_after() {
	awk -v t="$1" '$1 >= t && / stall (begin|end) / {
		last = $4
		if ($4 != "end")
			next
		for (i = 1; i <= NF; i++)
			if ($i ~ /^gap_ms=/) g = substr($i, 8) + 0
		if (g > gmax) { gmax = g; at = $1 }
	}
	END { if (last == "end")
		printf "%.3f %.3f\n", (at - t) * 1000, gmax }' /tmp/pp.log
}

# wait_for runs its command in a new shell: the function as a script.
# shellcheck disable=SC2016
{ sed -n '/^resumed_after() {/,/^}/p' "$0"; echo 'resumed_after "$T_ACT"'; } >/tmp/resumed.sh

seq=0
for mi in $MIIMON; do
	echo "$mi" >/sys/class/net/bond0/bonding/miimon || fail "miimon $mi"
	for mode in $MODES; do
		r=0
		while [ $r -lt "$ROUNDS" ]; do
			r=$((r + 1))
			seq=$((seq + 1))
			port=$((7500 + seq))
			if [ "$ROLE" = a ]; then
				$PP -s -b 0.0.0.0 -p $port -d 600 --ha-mode "$mode" \
					>/tmp/pp.log 2>&1 &
				pid=$!
				wait_for 10 grep -q ' listening ' /tmp/pp.log ||
					fail "server did not listen: $(cat /tmp/pp.log)"
				barrier "srv$seq"
			else
				barrier "srv$seq"
				$PP -c "$PEER_IP" -b "$MY_IP" -p $port -d 600 \
					--reconnect --stall-ms 100 --ha-mode "$mode" \
					>/tmp/pp.log 2>&1 &
				pid=$!
			fi
			wait_for 40 grep -q ' connected id=1 ' /tmp/pp.log ||
				fail "$mode: no connection: $(cat /tmp/pp.log)"
			# Both bonds have the same active slave (they fail over
			# together): the link to cut.  Read before the barrier:
			# the peer may cut as soon as it leaves it.
			slave=$(cat /sys/class/net/bond0/bonding/active_slave)
			n=${slave#ib}
			barrier "conn$seq" 60
			sleep 2
			T_ACT=$(now)
			export T_ACT
			[ "$ROLE" = a ] || host_cmd both "set_link n$n off"
			wait_carrier "eth$n" 0 10
			if [ "$ROLE" = b ]; then
				# A stall begins 100 ms after the last echo:
				# give it time to be logged, then wait for
				# traffic to flow again.
				sleep 1.5
				wait_for "$WINDOW" sh -c "[ -n \"\$(. /tmp/resumed.sh)\" ]" || true
				# shellcheck disable=SC2046
				set -- $(resumed_after "$T_ACT")
				if [ $# = 2 ]; then
					echo "RDMA-HA-BENCH: bench=failover_resume mode=$mode miimon=$mi round=$r resume_ms=$1 outage_ms=$2"
				else
					echo "RDMA-HA-BENCH: bench=failover_resume mode=$mode miimon=$mi round=$r noresume_ms=$((WINDOW * 1000))"
				fi
				log "$mode miimon=$mi round=$r: $(grep -E ' (cm_event|stall|reconnect|connected|wc_error|disconnected) ' /tmp/pp.log | awk -v t="$T_ACT" '$1 >= t - 0.1' | tr "\n" "|" | cut -c1-900)"
			fi
			barrier "obs$seq" $((WINDOW + 60))
			kill $pid 2>/dev/null
			wait $pid
			barrier "stop$seq" 60
			[ "$ROLE" = a ] || host_cmd both "set_link n$n on"
			wait_carrier "eth$n" 1 30
			wait_for 30 grep -q ACTIVE "/sys/class/infiniband/sib$n/ports/1/state" ||
				fail "sib$n not ACTIVE again"
			wait_for 30 grep -qx up "/sys/class/net/ib$n/bonding_slave/mii_status" ||
				fail "ib$n not up in bond0 again"
			barrier "up$seq" 60
		done
	done
done
exit 0
