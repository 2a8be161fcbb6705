#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=2400 kernel=debian mem=2048 tsc=host
#
# Benchmark (dev/bench.sh runs it; make check does not): what the IPoIB-CM
# keepalive task costs as the number of idle connections grows (review
# D6).  On Debian's kernel with the replacement ib_ipoib (the patched
# driver; its receive queues cut to QUEUE entries so that 100+ interfaces
# fit in the guest).  Guest b makes N IPoIB child interfaces of ib0 (the
# same P_Key, each with its own UD QP, hence its own hardware address)
# with addresses 198.18.11.1-N; guest a's ib0 sends to each of them, so
# that a's ib0 holds N + 1 idle send-side RC connections (one to b's ib0),
# each probed every interval (1000 ms x 3), and watches b's receive-side
# ones: conns is their sum.  (Each child also pings a with ping -I, but
# busybox's -I picks the source address, not the interface: b's packets
# to a leave by one interface, and a holds one receive-side connection.
# Policy routing per child would give a N of them; not done.)
# A soft InfiniBand port takes 1024 QPs in a multicast group (rxe's RoCE
# limit of 56 capped N at 54: an IPoIB interface has no carrier until its
# UD QP joined the broadcast group).  With that raised, a run with N = 110
# (session 22) brought all 110 children up with carrier, but a reached
# only 56 of them (57 connections; pings to the others and from them went
# unanswered, cause not found), and the pings' timeouts took so long that
# IPoIB's neighbour aging had freed the idle connections before the
# rounds (it ran beside a cold check).  Session 23's run with N = 110,
# same guest images, nothing else on the host, reached all children
# (112 connections).
# N stays at 48 by default, to keep the bench short.  Per round, over IDLE_S s,
# on a:
#   - task_cpu_us: the time the keepalive task ran (workqueue trace
#     events, start to end of each ipoib_cm_ka_task), per interval;
#   - runs_per_min, examined_per_min: runs of the task and connections
#     they looked at (ethtool cm_ka_runs, cm_ka_examined);
#   - probes_per_min: probes a sent (cm_ka_probes_sent);
#   - wire_pkts_per_min: IB packets a's port sent and received.
# N from SIZES (default 1,10,48), ROUNDS rounds each.
#
#	RDMA-HA-BENCH: bench=ipoib_cm_scale conns=C round=R task_cpu_us=C
#		runs_per_min=.. examined_per_min=.. probes_per_min=..
#		wire_pkts_per_min=..
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

SIZES=$(echo "${RDMA_HA_BENCH_SIZES:-1,10,48}" | tr , ' ')
ROUNDS=${RDMA_HA_BENCH_ROUNDS:-3}
IDLE_S=${RDMA_HA_BENCH_IDLE_S:-10}
QUEUE=${RDMA_HA_BENCH_QUEUE:-32}
INTERVAL_MS=1000
T=/sys/kernel/tracing

[ -f /etc/rdma-ha.dkms ] ||
	fail "runs on Debian's kernel with the replacement modules (kernel=debian)"
# the replacement ib_ipoib again, with short receive queues: a connected
# mode interface holds recv_queue_size 64 KiB buffers
ko=$(grep '/ib_ipoib\.ko' /etc/rdma-ha.modules)
rmmod ib_ipoib && insmod "$ko" recv_queue_size="$QUEUE" send_queue_size="$QUEUE" ||
	fail "ib_ipoib with recv_queue_size=$QUEUE"
nic_setup eth1 "$MY_IP"
ib_up rc "$INTERVAL_MS" 3
ip addr add "198.18.11.$((250 + ROLE_NUM))/24" dev ib0
barrier up
wait_ping "$PEER_IB" 60

hw() { cat "/sys/class/infiniband/sib0/ports/1/hw_counters/$1"; }
wire() { echo $(($(hw sent_pkts) + $(hw rcvd_pkts))); }

# children N: b's child interfaces ib0c1 ... ib0cN, up, addressed; prints
# "ADDRESS HWADDR" of each
children() {
	local i=1 d
	while [ $i -le "$1" ]; do
		d=ib0c$i
		if [ ! -d /sys/class/net/$d ]; then
			ip link add link ib0 name $d type ipoib ||
				fail "ip link add $d type ipoib"
			# refused (EACCES) for children made through rtnetlink;
			# a child accepts connections in datagram mode too (a's
			# ib0 makes them)
			echo connected 2>/dev/null >/sys/class/net/$d/mode
			ip addr add "198.18.11.$i/24" dev $d
			ip link set $d up
		fi
		i=$((i + 1))
	done
	i=1
	while [ $i -le "$1" ]; do
		wait_carrier ib0c$i 1 60
		echo "198.18.11.$i $(cat /sys/class/net/ib0c$i/address)"
		i=$((i + 1))
	done
}

# ka_cpu_us: microseconds the keepalive task ran in the trace
ka_cpu_us() {
	awk '
		{
			for (i = 1; i < NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/)
					break
			ts = substr($i, 1, length($i) - 1) + 0
		}
		/workqueue_execute_start:/ && /ipoib_cm_ka_task/ {
			w = $(i + 4); sub(":", "", w); start[w] = ts
		}
		/workqueue_execute_end:/ {
			w = $(i + 4); sub(":", "", w)
			if (w in start) { sum += ts - start[w]; n++; delete start[w] }
		}
		END { printf "%.0f %d\n", sum * 1e6, n }' $T/trace
}

if [ "$ROLE" = a ]; then
	echo 1 >$T/events/workqueue/workqueue_execute_start/enable &&
		echo 1 >$T/events/workqueue/workqueue_execute_end/enable ||
		fail "no workqueue trace events"
	echo 8192 >$T/buffer_size_kb
fi
# a's ib0 only: a has the connections; b's replies go out on one of its
# interfaces, so that b holds few connections to a
for n in $SIZES; do
	if [ "$ROLE" = b ]; then
		# not in a command substitution, where its fail would only
		# end the subshell and send the failure as data
		children "$n" >/tmp/kids
		peer_exchange "kids-$n" "$(cat /tmp/kids)" 600
		# each child connects to a's ib0 (198.18.11.251)
		i=1
		while [ $i -le "$n" ]; do
			ip neigh replace 198.18.11.251 lladdr "$PEER_DATA" \
				dev ib0c$i nud permanent
			ping -c 1 -W 5 -I ib0c$i 198.18.11.251 >/dev/null 2>&1 ||
				log "no answer to ib0c$i"
			i=$((i + 1))
		done
	else
		peer_exchange "kids-$n" "$(cat /sys/class/net/ib0/address)" 600
		echo "$PEER_DATA" | while read -r addr hwaddr; do
			ip neigh replace "$addr" lladdr "$hwaddr" dev ib0 nud permanent
		done
		# three passes: under load a connection may take longer
		for pass in 1 2 3; do
			echo "$PEER_DATA" | while read -r addr hwaddr; do
				ping -c 1 -W 5 "$addr" >/dev/null 2>&1 ||
					log "pass $pass: no answer from $addr"
			done
			[ "$(cm_stat cm_tx_rc_conns)" -gt "$n" ] && break
		done
		c=$(cm_stat cm_tx_rc_conns)
		log "$n children: a holds $c send-side connections"
		# what a knows of the children it did not reach
		if [ "$c" -le "$n" ]; then
			ip -s neigh show dev ib0 | head -n 20
			head -n 40 /sys/kernel/debug/ipoib/ib0_path 2>/dev/null
			dmesg | grep -v 'rdma-ha:' | tail -n 40
		fi
		# a child whose broadcast join failed has no carrier: what a
		# holds is measured and reported (conns), within reason
		[ "$c" -ge $((n / 2)) ] || fail "only $c connections for $n children"
	fi
	barrier "idle-$n" 600
	if [ "$ROLE" = b ]; then
		# which children hold a receive-side connection from a
		i=1 got=0 none=
		while [ $i -le "$n" ]; do
			v=$(ethtool -S ib0c$i 2>/dev/null |
				awk '$1 == "cm_rx_rc_conns:" { print $2 }')
			if [ "${v:-0}" -gt 0 ]; then got=$((got + 1)); else none="$none $i"; fi
			i=$((i + 1))
		done
		log "$n children: $got hold a connection from a; none:${none:- -}"
		[ "$got" -lt "$n" ] && dmesg | grep -v 'rdma-ha:' | tail -n 40
	fi
	if [ "$ROLE" = a ]; then
		c=$(($(cm_stat cm_tx_rc_conns) + $(cm_stat cm_rx_rc_conns)))
		log "$n children: a holds $(cm_stat cm_tx_rc_conns) send-side and" \
		    "$(cm_stat cm_rx_rc_conns) receive-side connections"
	fi
	[ "$ROLE" = a ] || continue
	sleep 3
	for r in $(seq "$ROUNDS"); do
		r0=$(cm_stat cm_ka_runs) e0=$(cm_stat cm_ka_examined)
		p0=$(cm_stat cm_ka_probes_sent) w0=$(wire)
		echo >$T/trace
		echo 1 >$T/tracing_on
		sleep "$IDLE_S"
		echo 0 >$T/tracing_on
		r1=$(cm_stat cm_ka_runs) e1=$(cm_stat cm_ka_examined)
		p1=$(cm_stat cm_ka_probes_sent) w1=$(wire)
		set -- $(ka_cpu_us)
		echo "RDMA-HA-BENCH: bench=ipoib_cm_scale conns=$c round=$r" \
		     "task_cpu_us=$(($1 * INTERVAL_MS / (IDLE_S * 1000)))" \
		     "runs_per_min=$(((r1 - r0) * 60 / IDLE_S))" \
		     "examined_per_min=$(((e1 - e0) * 60 / IDLE_S))" \
		     "probes_per_min=$(((p1 - p0) * 60 / IDLE_S))" \
		     "wire_pkts_per_min=$(((w1 - w0) * 60 / IDLE_S))"
		log "round $r: $2 runs of the task traced"
	done
	cm_stats "$n"
done
barrier end
