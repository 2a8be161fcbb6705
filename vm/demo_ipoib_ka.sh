#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-demo: guests=2 timeout=400
#
# The second part of `make demo` (dev/demo.sh), not a check: how long an
# IPoIB connected-mode host keeps a dead peer's connections.  Topology as
# in ipoib_cm_keepalive.sh: sib0 on eth0 with ib0 in connected mode (RC),
# eth1 carrying the barriers.  Twice, with keepalives off (interval 0:
# the stock driver's behaviour, whose receive side reaps a silent
# connection after 512 to 1536 s and whose idle send side is never
# torn down) and on (1 s x 3):
#   - ping both ways, so that each guest has a send and a receive
#     connection to the other, then 3 s idle;
#   - guest b's link is cut at b's end only, so that a's port stays up
#     and nothing but keepalives can tell a;
#   - a watches its connections for WINDOW_S.
# Guest a prints one line per phase,
#   RDMA-HA-DEMO: part=ipoib keepalive=off|on tx_dead_s=T rx_dead_s=T
#                 tx_conns_after=N rx_conns_after=N window_s=W
# with times since the connection's last sign of life (the keepalive
# trace points), "none" when it was not torn down within the window, and
# rc_qps_before/rc_qps_after: ib_ipoib's RC QPs before the cut and after
# the window (rdma res), the same reading on every kernel.
# RDMA_HA_DEMO_KA (rdma_ha.demo_ka=) picks the phases: "off,on" (the
# default) on the patched kernel, or "stock" on Debian's kernel with the
# replacement modules (the "debian" kernel kind), where the
# distribution's own ib_ipoib runs over our soft InfiniBand device: it
# has no keepalive trace points, so its times come from watching its RC
# QPs every half second ("none": not one was destroyed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"
WINDOW_S=12
KAS=$(echo "${RDMA_HA_DEMO_KA:-off,on}" | tr ',' ' ')

need_cmd rdma
nic_setup eth1 "$MY_IP"
if [ "$KAS" = stock ]; then
	ib_stock_up
else
	ib_up rc 0 3
	ka_trace_on
fi
barrier up
wait_ping "$PEER_IB" 60

# dead_after KIND T0: s from the last sign of life of the first connection
# of KIND (tx or rx) declared dead since T0 to that moment; "none".
dead_after() {
	local life=probe_received
	[ "$1" = tx ] && life=answered
	awk -v t0="$2" -v dead="ipoib_cm_ka_$1_dead:" \
		-v life="ipoib_cm_ka_$life:" "$KA_TRACE_LINE"'
		ev == life { last[q] = ts }
		ev == dead && ts >= t0 && !found {
			found = 1
			if (q in last)
				printf "%.2f\n", ts - last[q]
			else
				print "unknown"
		}
		END { if (!found) print "none" }' /sys/kernel/tracing/trace
}

# rc_qps: ib_ipoib's RC QPs that are not in the error or reset state.
rc_qps() {
	rdma res show qp 2>/dev/null |
		grep ' type RC ' | grep 'ib_ipoib' | grep -cv ' state \(ERR\|RESET\) '
}

# watch_qps N T0: poll rc_qps for WINDOW_S; print the seconds from T0 to
# the first reading under N, or "none".
watch_qps() {
	local end first=none
	end=$(($(date +%s) + WINDOW_S))
	while [ "$(date +%s)" -lt $end ]; do
		if [ "$first" = none ] && [ "$(rc_qps)" -lt "$1" ]; then
			first=$(awk -v t0="$2" -v t="$(now)" 'BEGIN { printf "%.2f", t - t0 }')
		fi
		sleep 0.5
	done
	echo "$first"
}

for ka in $KAS; do
	if [ $ka = on ]; then
		# the interval applies to connections made after the write:
		# down and up, so that the next pings make new ones
		ip link set ib0 down
		echo 1000 >/sys/class/net/ib0/cm_keepalive_interval_ms ||
			fail "keepalive interval"
		ip link set ib0 up
		barrier "ib0-up-$ka"
		wait_ping "$PEER_IB" 60
	fi
	barrier "conn-$ka"
	pings 10 "$PEER_IB" || log "ping $PEER_IB: $(tail -n 1 /tmp/pings.log)"
	barrier "pinged-$ka"
	sleep 3
	barrier "cut-$ka"
	t0=$(now)
	if [ "$ROLE" = a ] && [ $ka = stock ]; then
		q0=$(rc_qps)
		host_cmd peer "set_link n0 off"
		d=$(watch_qps "$q0" "$t0")
		echo "RDMA-HA-DEMO: part=ipoib keepalive=$ka interval_ms=-" \
		     "tx_dead_s=$d rx_dead_s=$d tx_conns_after=- rx_conns_after=-" \
		     "rc_qps_before=$q0 rc_qps_after=$(rc_qps) window_s=$WINDOW_S" \
		     "kernel=$(uname -r)"
	elif [ "$ROLE" = a ]; then
		q0=$(rc_qps)
		host_cmd peer "set_link n0 off"
		sleep $WINDOW_S
		echo "RDMA-HA-DEMO: part=ipoib keepalive=$ka" \
		     "interval_ms=$(cat /sys/class/net/ib0/cm_keepalive_interval_ms)" \
		     "tx_dead_s=$(dead_after tx "$t0") rx_dead_s=$(dead_after rx "$t0")" \
		     "tx_conns_after=$(cm_stat cm_tx_rc_conns)" \
		     "rx_conns_after=$(cm_stat cm_rx_rc_conns)" \
		     "rc_qps_before=$q0 rc_qps_after=$(rc_qps) window_s=$WINDOW_S"
		cm_stats "keepalive $ka"
	else
		wait_for 10 grep -q DOWN /sys/class/infiniband/sib0/ports/1/state
		sleep $WINDOW_S
	fi
	barrier "window-$ka" 60
	[ "$ROLE" = a ] && host_cmd peer "set_link n0 on"
	[ "$ROLE" = b ] && wait_for 30 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state
	barrier "restored-$ka" 60
	wait_ping "$PEER_IB" 60
done
barrier done 60
log "demo done"
exit 0
