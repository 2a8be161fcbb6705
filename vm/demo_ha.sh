#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-demo: guests=2 timeout=900
#
# The demo of `make demo` (dev/demo.sh), not a check: what the RDMA CM HA
# modes change, on the seeds' topology.  Both guests have bond0
# (active-backup, miimon 100) over IPoIB ib0/ib1 on soft InfiniBand
# devices sib0/sib1, as in cma_ha_ib.sh.  Guest a runs the
# rdma_ha_pingpong server (wildcard listener), guest b the client with
# --reconnect, both in the same HA mode, busy with pings every 10 ms.
# For each mode, two events on both guests at once:
#
#   switch  administrative failover, both links up: the old path is
#           healthy, the IP stack now uses the other port;
#   cut     the active link cut at both ends (set_link off): the old path
#           is dead.
#
# Each guest prints one line per phase,
#   RDMA-HA-DEMO: mode=M event=E role=R events=... dreq_tx=N dreq_rx=N
#                 outcome=kept|torn-down|lost|stalled status=S
#                 reconnected_ms=T gap_ms=G
# and its program log of the window as RDMA-HA-DATA lines; dev/demo.sh
# turns them into the table and the timeline.  RDMA_HA_DEMO_MODES (kernel
# command line rdma_ha.demo_modes=a,b) picks the modes.  The mode "stock"
# runs on Debian's kernel with the replacement modules (the "debian"
# kernel kind): the distribution's own rdma_cm, rdma_ucm and ib_ipoib are
# put back, so that only the soft InfiniBand device is ours, and the
# programs set no HA mode: what an unpatched kernel does on this topology.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"
HA_RDEV=sib
MODES=$(echo "${RDMA_HA_DEMO_MODES:-notify,align,fail-fast}" | tr ',' ' ')
# a dead path stalls a notify connection until RC retries run out (the
# CM's retry count 7: about 2.3 s on the soft InfiniBand device): watch
# for long enough to show whether anything ends the stall
OBSERVE_S=10

need_cmd rdma mono_watch $PP

case " $MODES " in
*" stock "*) distribution_modules rdma_cm rdma_ucm ib_ipoib ;;
esac
ib_bond_setup
wait_ping "$PEER_IP" 60
barrier ready 120

# active: the index of bond0's active slave (0 for ib0, 1 for ib1).
active() {
	case $(cat /sys/class/net/bond0/bonding/active_slave) in
	ib1) echo 1 ;; *) echo 0 ;;
	esac
}

# events: the CM events of the window for connection 1 and the listener,
# "NAME/status", comma-separated (a reconnection's own are left out: the
# reconnected_ms field tells it).
events() {
	awk -v w0="$T_WIN" -v t1="$T_END" '
		$1 >= w0 && $1 <= t1 && / cm_event / && / id=[01]$/ &&
		!/CONNECT_REQUEST/ {
			n = s = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^name=RDMA_CM_EVENT_/) n = substr($i, 20)
				if ($i ~ /^status=/) s = substr($i, 8)
				if ($i ~ /^id=/) id = substr($i, 4)
			}
			if (id == 0) n = "listener:" n
			out = out (out == "" ? "" : ",") n "/" s
		}
		END { print (out == "" ? "none" : out) }' "$PLOG"
}

# outcome: what became of connection 1 in the window.
outcome() {
	local st
	st=$(awk -v w0="$T_WIN" -v t1="$T_END" '
		$1 >= w0 && $1 <= t1 && / cm_event name=RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE) .* id=1$/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^status=/) { print substr($i, 8); exit }
		}' "$PLOG")
	if [ -n "$st" ] && [ "$st" != 0 ]; then
		echo "torn-down status=$st"
	elif [ -n "$st" ]; then
		echo "torn-down-by-peer status=0"
	elif [ "$(count " wc_error .* id=1 ")" != 0 ]; then
		echo "lost status=wc_error"
	elif [ "$ROLE" = b ] && [ "$(longest_stall)" -gt "$KEPT_MAX_GAP_MS" ]; then
		echo "stalled status=none"
	else
		echo "kept status=none"
	fi
}

# phase MODE EVENT
phase() {
	local mode=$1 event=$2 n dtx drx o t g hm=$1
	[ "$mode" != stock ] || hm=default
	start "$hm" 0.0.0.0 "$hm"
	n=$(active)
	dtx=$(( $(cmc sib0 tx dreq) + $(cmc sib1 tx dreq) ))
	drx=$(( $(cmc sib0 rx dreq) + $(cmc sib1 rx dreq) ))
	if [ "$event" = switch ]; then
		act switch "ib$((1 - n))"
	else
		act cut "$n"
	fi
	o=$(outcome)
	t=$(since " connected id=([2-9]|[1-9][0-9]) ")
	g=-
	[ "$ROLE" = a ] || g=$(longest_stall)
	echo "RDMA-HA-DEMO: mode=$mode event=$event role=$ROLE" \
	     "events=$(events)" \
	     "dreq_tx=$(( $(cmc sib0 tx dreq) + $(cmc sib1 tx dreq) - dtx ))" \
	     "dreq_rx=$(( $(cmc sib0 rx dreq) + $(cmc sib1 rx dreq) - drx ))" \
	     "outcome=$o reconnected_ms=${t:-none} gap_ms=$g t_act=$T_ACT"
	[ "$event" = switch ] || act restore "$n"
	stop
}

for m in $MODES; do
	phase "$m" switch
	phase "$m" cut
done
dmesg | grep -E "bond0|sib[01]" | tail -n 20
log "demo done"
exit 0
