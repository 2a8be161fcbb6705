#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=2400 kernel=stock,patched tsc=host
#
# Benchmark (dev/bench.sh runs it; make check does not): the traffic gap
# of an RC connection across a cut of the active link when migrate mode
# moves it to its alternate path (issue 20), against a client that
# reconnects after fail-fast tore its connection down, against one that
# reconnects after its QP's retries ran out (notify: the stock CM's
# behaviour, on the same topology), and against the stock kernel, in the
# same run.
#
# Patched kernel: the topology of cma_ha_migrate.sh: a two-port soft
# InfiniBand device sib0 on each guest (port 1 on eth0, port 2 on eth1)
# and an active-backup bond0 of ib0 and ib1.  Per mode:
#   migrate    notify server bound to bond0's address; the client in
#              migrate mode gives its connection an alternate path from
#              its port 2 to the server's port 2 (rdma_ha_pingpong
#              --alt-path); both QPs move to it, nobody reconnects.
#   fail-fast  wildcard fail-fast server, fail-fast client: the CM tears
#              the connection down when port 1 goes down and the client
#              connects again over ib1.
#   notify     wildcard notify server, notify client: the connection
#              stays on the dead port until the QP's retries run out (a
#              WC error), then the client connects again over ib1.
# Stock kernel (no soft InfiniBand there): rxe on an active-backup
# Ethernet bond (fail_over_mac=active), as nvme_failover.sh's stock
# topology; mode "stock", the client reconnects when its connection ends
# (made anew after every round: a cut leaves the stock kernel's QP1 in the
# error state).  rxe on the bond follows the bond, so this is the
# best a stock kernel offers: the connection keeps its QP.
#
# Every client: RC retry count RETRY (default 3: with rxe's 7, "infinite",
# a notify client never hears of the dead path), a ping every 1 ms, stalls
# over 50 ms logged.  Per round: connect, cut the active link at both ends
# (QEMU set_link), observe OBSERVE_S s, stop, restore the link, make the
# first slave active again.
#
#	RDMA-HA-BENCH: bench=migrate_gap topo=ib|roce event=cut mode=M round=R
#		gap_ms=G reconnects_count=N wc_errors_count=N cm_events_count=N
#		migrations_count=N stalled_at_end_count=0|1
#
# gap_ms: the client's longest time without an echo in the window, from
# the barrier before the cut to its end (a stall still open at the end
# counts up to it); reconnects_count: connections the client made in the
# window; wc_errors_count, cm_events_count: the client's failed work
# completions and RDMA CM events in the window; migrations_count: its
# IBV_EVENT_PATH_MIG; stalled_at_end_count: 1 when the client was still
# stalled when the window ended (traffic never resumed).
#
# Knobs: RDMA_HA_BENCH_MODES (patched kernel, default
# migrate,fail-fast,notify), RDMA_HA_BENCH_ROUNDS (default 5),
# RDMA_HA_BENCH_RETRY (default 3), RDMA_HA_BENCH_OBSERVE_S (default 8).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_lib.sh"

ROUNDS=${RDMA_HA_BENCH_ROUNDS:-5}
RETRY=${RDMA_HA_BENCH_RETRY:-3}
OBSERVE_S=${RDMA_HA_BENCH_OBSERVE_S:-8}
PP_INTERVAL_US=1000
need_cmd rdma mono_watch $PP

if [ -w /sys/module/rdma_rxe/parameters/sib_ports ]; then
	TOPO=ib HA_RDEV=sib SLAVE0=ib0 SLAVE1=ib1
	MODES=$(echo "${RDMA_HA_BENCH_MODES:-migrate fail-fast notify}" | tr , ' ')
	P1=/sys/class/infiniband/sib0/ports/1
	P2=/sys/class/infiniband/sib0/ports/2
	sib_two_ports
	wait_for 10 test -d /sys/class/net/ib1 || fail "no ib1 for port 2"
	ib_bond_make "$MY_IP"
	wait_for 30 grep -q . /sys/class/net/bond0/bonding/active_slave ||
		fail "bond0 has no active slave"
	grep -qx ib0 /sys/class/net/bond0/bonding/active_slave ||
		bond_activate ib0
	wait_ping "$PEER_IP" 60
	barrier ready 120
	peer_exchange port2 "$(cat $P2/gids/0) $(($(cat $P2/lid)))"
	# shellcheck disable=SC2086
	set -- $PEER_DATA
	ALT="$(cat $P2/gids/0),$(($(cat $P2/lid))),$1,$2,1"
	log "alternate path: $ALT"
else
	TOPO=roce HA_RDEV=rxe SLAVE0=eth0 SLAVE1=eth1 MODES=stock
	bond_setup
	rxe_add rxe0 bond0
	wait_ping "$PEER_IP" 60
	barrier ready 120
fi

# restore: link 0 back, SLAVE0 up in bond0 and active again, the peer
# reachable.
restore() {
	barrier "back$seq" 120
	[ "$ROLE" = a ] && host_cmd both "set_link n0 on"
	wait_carrier eth0 1 30
	[ "$TOPO" = roce ] ||
		wait_for 30 grep -q ACTIVE $P1/state ||
		fail "port 1 not ACTIVE after link 0 came back"
	wait_for 30 grep -qx up /sys/class/net/$SLAVE0/bonding_slave/mii_status ||
		fail "bond0 does not see $SLAVE0 up"
	bond_activate $SLAVE0
	if [ "$TOPO" = roce ]; then
		rdma link delete rxe0 || fail "rdma link delete rxe0"
		rxe_add rxe0 bond0
	fi
	wait_ping "$PEER_IP" 60
	barrier "up$seq" 120
}

r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	for mode in $MODES; do
		opts="--retry-count $RETRY --stall-ms 50"
		case $mode in
		migrate) start notify "$MY_IP" migrate "$opts --alt-path $ALT" ;;
		stock) start default 0.0.0.0 default "$opts" ;;
		*) start "$mode" 0.0.0.0 "$mode" "$opts" ;;
		esac
		cut_active 0 $SLAVE1
		act_window cut
		if [ "$ROLE" = b ]; then
			stalled=$(awk -v w0="$T_WIN" -v t1="$T_END" '
				$1 >= w0 && $1 <= t1 && / stall begin / { open = 1 }
				$1 >= w0 && $1 <= t1 && / stall end / { open = 0 }
				END { print open + 0 }' "$PLOG")
			echo "RDMA-HA-BENCH: bench=migrate_gap topo=$TOPO event=cut mode=$mode round=$r gap_ms=$(longest_stall) reconnects_count=$(count " connected id=") wc_errors_count=$(count " wc_error ") cm_events_count=$(count " cm_event ") migrations_count=$(count " async event=path migrated ") stalled_at_end_count=$stalled"
			log "$mode round $r: $(awk -v w="$T_WIN" '$1 >= w && / (cm_event|stall|connected|wc_error|async) /' "$PLOG" | tr '\n' '|' | cut -c1-900)"
		fi
		# the program logs stay in the console (RDMA-HA-DATA lines)
		stop
		restore
	done
done
log "done"
exit 0
