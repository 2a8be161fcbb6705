#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=240 kernel=stock,patched,debian
# rdma-ha-opt-in-on: debian: notify on the DKMS modules is the stock CM's behaviour, which the stock kernel's run shows; the modules' CM runs in cma_ha_default@debian and nvme_failover@debian (the check's budget, README)
#
# Baseline of bonding failover under an RDMA CM connection (issue 2, item 5).
#
# Both guests: bond0 = active-backup(eth0, eth1), miimon 100,
# fail_over_mac=active, rxe0 on bond0.  Guest a runs the rdma_ha_pingpong
# server, guest b the client.  While the connection is busy, b asks the
# host to cut the active link at both ends (set_link off on both QEMUs).
#
#   phase 1: client without --reconnect, cut the active link
#   phase 2: client with --reconnect, cut the active link
#            (failover_reconnect.sh; FAILOVER_PHASES selects, see below)
#
# Each guest prints its timeline relative to the moment it saw the carrier
# of the cut NIC drop, as "RDMA-HA-DATA: phase=N role=R t=+S.sss ..." lines.
#
# Asserted (what the stock kernel reliably does, with margins for TCG):
#   - both bonds fail over within FAILOVER_MAX_MS of the carrier loss;
#   - on a, the CM queues ADDR_CHANGE for the IDs bound to bond0 and the
#     server's listener gets RDMA_CM_EVENT_ADDR_CHANGE (on b it is only
#     recorded: the client's QP is sometimes flushed at the carrier drop,
#     before the failover, and the client gone before the event);
#   - phase 1: the client does not survive (exit 2);
#   - phase 2: the client exits 0 or 2, and the log shows why: a client
#     that exits 2 saw a WC error or a stall it never left; one that
#     exits 0 after a WC error reconnected and traffic flowed again.
#     Measured on stock 6.12: whether the client's QP errors at all
#     depends on whether a SEND was unacked at the cut, and whether the
#     reconnection gets through in the run's time varies, so which of
#     the two outcomes happens is recorded, not asserted.
# RDMA_HA_EXPECT_EVENT=NAME (kernel command line rdma_ha.expect_event=NAME)
# additionally requires cm_event NAME in both programs' logs after the cut.
. "$(dirname "$0")/lib.sh"

FAILOVER_MAX_MS=${RDMA_HA_FAILOVER_MAX_MS:-1500}
ADDR_CHANGE_MAX_MS=${RDMA_HA_ADDR_CHANGE_MAX_MS:-3000}
PP=rdma_ha_pingpong

need_cmd rdma mono_watch $PP

bond_setup
rxe_add rxe0 bond0
if [ "$ROLE" = b ]; then
	wait_ping "$PEER_IP" 60
fi
barrier ready 120
log "bond0 up, rxe0 on bond0, peer reachable"
watch_start /tmp/watch.log /sys/class/net/eth0/carrier \
	/sys/class/net/eth1/carrier /sys/class/net/bond0/bonding/active_slave \
	/sys/class/infiniband/rxe0/ports/1/state
failed=0
check() {
	if eval "$2"; then
		log "ok: $1"
		echo "RDMA-HA-DATA: phase=$phase role=$ROLE assert=ok $1"
	else
		log "ASSERTION FAILED: $1"
		echo "RDMA-HA-DATA: phase=$phase role=$ROLE assert=FAILED $1"
		failed=1
	fi
}

# data LINE...: one timeline line.
data() { echo "RDMA-HA-DATA: phase=$phase role=$ROLE $*"; }

# timeline NIC PROGLOG: merge what this guest saw during the phase (sysfs
# changes, kernel log, the program's log) into one time-sorted list and
# print it relative to T0, the first sign of the cut: the carrier drop seen
# in sysfs or the bond's "link status definitely down", whichever is first
# (the sysfs poller can lag under TCG; printk time stamps do not).  Sets T0
# and T_FAILOVER (first sign of the new active slave).
timeline() {
	local nic=$1 plog=$2 ev=/tmp/events$phase off t_carrier t_bond t1 t2
	off=$(dmesg_offset "phase$phase")
	{
		awk -v s="$phase_start" '$1 > s { print $1, "sysfs", $2 "=" $3 }' \
			/tmp/watch.log
		dmesg | awk -v off="$off" -v p="$phase" '
			/rdma-ha: mark phase/ { on = ($0 ~ "mark phase" p " "); next }
			on && /bond0|rxe|infiniband|rdma|RDMA/ {
				i = index($0, "]")
				ts = substr($0, 2, i - 2) + 0
				line = substr($0, i + 1); sub(/^ +/, "", line)
				printf "%.6f dmesg %s\n", ts - off, line }'
		awk '$1 ~ /^[0-9]+\.[0-9]+$/ { t = $1; $1 = ""; print t, "pp" $0 }' "$plog"
		[ -z "$T_REQ" ] || echo "$T_REQ host cut_requested"
	} | sort -n -k1,1 >"$ev"
	t_carrier=$(first_time "$ev" "\$2 == \"sysfs\" && \$3 == \"/sys/class/net/$nic/carrier=0\"")
	t_bond=$(first_time "$ev" "/\\(slave $nic\\): link status definitely down/")
	T0=$(printf '%s\n%s\n' "$t_carrier" "$t_bond" | awk 'NF' | sort -n | head -1)
	t1=$(first_time "$ev" "\$2 == \"sysfs\" && /active_slave=/ && !/active_slave=($nic|<empty>)\$/")
	t2=$(first_time "$ev" "/making interface the new active one/")
	T_FAILOVER=$(printf '%s\n%s\n' "$t1" "$t2" | awk 'NF' | sort -n | head -1)
	[ -n "$T0" ] || { data "error=no_carrier_loss_seen"; return; }
	data "t0_mono=$T0 what=cut_seen if=$nic carrier_sysfs=$(rel "$T0" "$t_carrier") bond_down_dmesg=$(rel "$T0" "$t_bond")"
	awk -v t0="$T0" -v p="$phase" -v r="$ROLE" '{
		t = $1; $1 = ""
		printf "RDMA-HA-DATA: phase=%s role=%s t=%+.3f what=%s\n", p, r, t - t0, substr($0, 2) }' "$ev"
}

# after_cut PATTERN: ms from T0 to the first event of the phase matching
# PATTERN (negative when it came before T0; empty if none).
after_cut() {
	awk -v t0="$T0" -v pat="$1" '$0 ~ pat {
		printf "%.0f\n", ($1 - t0) * 1000; exit }' "/tmp/events$phase"
}

# phase N NIC RECONNECT(0|1)
phase() {
	phase=$1
	local nic=n$2 ifname=eth$2 reconnect=$3 port=$((7470 + $1)) plog rc
	local srv cli t_addr t_fo t_kaddr n_kaddr t_flush t_stall t_any t_lis
	phase_start=$(now)
	T_REQ=
	kmsg_mark "phase$phase"
	log "phase $phase: cut $nic, reconnect=$reconnect"
	if [ "$ROLE" = a ]; then
		plog=/tmp/server$phase.log
		$PP -s -b "$MY_IP" -p "$port" -d 120 >"$plog" 2>&1 &
		srv=$!
		wait_for 10 grep -q listening "$plog" || fail "server did not listen: $(cat "$plog")"
		barrier "server$phase"
		wait_for 60 _carrier_is "$ifname" 0 || fail "$ifname never lost carrier"
		barrier "done$phase" 120
		kill "$srv" 2>/dev/null
		wait "$srv"
		rc=$?
		log "server exit $rc"
	else
		plog=/tmp/client$phase.log
		barrier "server$phase"
		if [ "$reconnect" = 1 ]; then
			$PP -c "$PEER_IP" -b "$MY_IP" -p "$port" -d 20 --reconnect >"$plog" 2>&1 &
		else
			$PP -c "$PEER_IP" -b "$MY_IP" -p "$port" -d 20 >"$plog" 2>&1 &
		fi
		cli=$!
		wait_for 40 grep -q '^[0-9.]* client connected' "$plog" ||
			fail "client did not connect: $(cat "$plog")"
		sleep 4
		T_REQ=$(now)
		host_cmd both "set_link $nic off"
		wait_for 10 _carrier_is "$ifname" 0 || fail "$ifname never lost carrier"
		wait "$cli"
		rc=$?
		log "client exit $rc"
		barrier "done$phase" 120
	fi
	wait_for 10 sh -c "! grep -qx $ifname /sys/class/net/bond0/bonding/active_slave" ||
		log "bond0 still on $ifname"
	sleep 0.2
	timeline "$ifname" "$plog"
	data "what=exit rc=$rc"
	grep -h summary "$plog" | sed "s/^/RDMA-HA-DATA: phase=$phase role=$ROLE what=summary /"

	# -- assertions --
	check "carrier of $ifname dropped" '[ -n "$T0" ]'
	[ -n "$T0" ] || return
	t_fo=$(awk -v a="$T0" -v b="$T_FAILOVER" 'BEGIN { if (b != "") printf "%.0f", (b - a) * 1000 }')
	data "what=failover_ms value=${t_fo:-none}"
	check "bond0 failed over within ${FAILOVER_MAX_MS} ms (${t_fo:-never} ms)" \
		'[ -n "$t_fo" ] && [ "$t_fo" -le "$FAILOVER_MAX_MS" ]'
	# The CM queues ADDR_CHANGE for every ID bound to bond0 (stock cma.c
	# also logs "RDMA CM addr change for ndev bond0 used by id").  The
	# server's listener is always there to get it; the client may already
	# have lost its QP (flush) and exited, so on b it is only recorded.
	t_kaddr=$(after_cut "dmesg RDMA CM addr change for ndev bond0")
	t_addr=$(after_cut "pp .*cm_event name=RDMA_CM_EVENT_ADDR_CHANGE")
	n_kaddr=$(grep -c "dmesg RDMA CM addr change for ndev bond0" "/tmp/events$phase")
	t_flush=$(after_cut "pp .* disconnected id=[0-9]+ reason=wc_error")
	t_stall=$(after_cut "pp .*stall begin")
	data "what=cm_addr_change_queued_ms value=${t_kaddr:-none} ids=$n_kaddr"
	data "what=addr_change_ms value=${t_addr:-none}"
	data "what=lost_by_wc_error_ms value=${t_flush:-none}"
	data "what=first_stall_ms value=${t_stall:-none}"
	t_any=$(printf '%s\n%s\n' "$t_kaddr" "$t_addr" | awk 'NF' | sort -n | head -1)
	data "what=first_addr_change_ms value=${t_any:-none}"
	if [ "$ROLE" = a ]; then
		check "ADDR_CHANGE for bond0 IDs within ${ADDR_CHANGE_MAX_MS} ms (${t_any:-never} ms)" \
			'[ -n "$t_any" ] && [ "$t_any" -le "$ADDR_CHANGE_MAX_MS" ]'
		# The listener (id=0) is always there to receive it.
		t_lis=$(after_cut "pp server cm_event name=RDMA_CM_EVENT_ADDR_CHANGE status=0 id=0")
		check "server listener got RDMA_CM_EVENT_ADDR_CHANGE (${t_lis:-never} ms)" \
			'[ -n "$t_lis" ] && [ "$t_lis" -le "$ADDR_CHANGE_MAX_MS" ]'
	fi
	if [ -n "${RDMA_HA_EXPECT_EVENT:-}" ]; then
		check "expected cm_event $RDMA_HA_EXPECT_EVENT" \
			'[ -n "$(after_cut "pp .*cm_event name=$RDMA_HA_EXPECT_EVENT")" ]'
	fi
	if [ "$ROLE" = b ] && [ "$reconnect" = 0 ]; then
		check "client without --reconnect does not survive (exit $rc, want 2)" \
			'[ "$rc" = 2 ]'
	fi
	if [ "$ROLE" = b ] && [ "$reconnect" = 1 ]; then
		local t_rc t_conn t_res
		t_rc=$(after_cut "pp client reconnect attempt=")
		t_conn=$(after_cut "pp client connected id=([2-9]|[1-9][0-9])")
		# traffic resumed: the first echo after the new connection
		# ends the stall that the cut began
		t_res=$(awk -v t0="$T0" -v tc="$t_conn" 'tc != "" &&
			/pp client stall end/ && ($1 - t0) * 1000 >= tc {
			printf "%.0f\n", ($1 - t0) * 1000; exit }' "/tmp/events$phase")
		# a client that reconnected before its pings were overdue
		# never stalled: traffic went on from the new connection
		# (seen on Debian's kernel: WC error at +8 ms, connected
		# again at +125 ms, longest gap 146 ms, no stall)
		[ -n "$t_res" ] || [ -n "$t_stall" ] || [ -z "$t_conn" ] ||
			! grep -q ' summary .* stalls=0 ' "$plog" || t_res=$t_conn
		data "what=reconnect_ms value=${t_rc:-none}"
		data "what=reconnected_ms value=${t_conn:-none}"
		data "what=traffic_resumed_ms value=${t_res:-none}"
		# Stock: the client learns of the loss only through a WC error;
		# with no unacked SEND at the cut its QP never errors and it
		# waits to the end of its run (exit 2).  Both are the baseline.
		check "client with --reconnect exits 0 or 2 (exit $rc)" \
			'[ "$rc" = 0 ] || [ "$rc" = 2 ]'
		# Either outcome has its cause in the log: a client that
		# lost its connection (2) saw a WC error or a stall it never
		# got out of; one that ends busy (0) after a WC error did so
		# on a new connection, with traffic flowing on it.
		check "exit $rc has its cause in the log (WC error ${t_flush:-none}, stall ${t_stall:-none}, reconnected ${t_conn:-none}, resumed ${t_res:-none})" \
			'case $rc in
			 2) [ -n "$t_flush$t_stall" ] ;;
			 0) [ -z "$t_flush" ] || { [ -n "$t_conn" ] && [ -n "$t_res" ]; } ;;
			 esac'
		# A WC error makes the client reconnect, but whether a new
		# connection gets through before the run ends is not reliable
		# on the stock kernel: new connections can time out for
		# seconds after the failover (seen: two 5 s connect timeouts in
		# a row).  The suspect, not yet confirmed, is the peer's
		# neighbour entry still holding the bond's old MAC
		# (fail_over_mac=active).  Recorded, not asserted.
		if [ -n "$t_flush" ]; then
			data "what=reconnect_after_wc_error value=${t_conn:-never} rc=$rc"
			check "client saw a WC error, so it tried to reconnect" \
				'grep -q " reconnect attempt=" "$plog"'
		fi
	fi
}

# Phase 1: eth0 is active; cut n0 on both guests.
# FAILOVER_PHASES: which phases this boot runs, in order.  The default
# runs phase 1 only, on a fresh boot; failover_reconnect.sh runs phase 2
# on its own fresh boot.  "1 2" runs both in one boot (the second failover
# then starts from the state the first one left; seen on stock 6.12 to
# sometimes leave new connections timing out).
for p in ${FAILOVER_PHASES:-1}; do
	case $p in
	1) nic=0; rec=0 ;;
	2) nic=1; rec=1
	   # start phase 2 on eth1 when eth0 is active (fresh boot)
	   if grep -qx eth0 /sys/class/net/bond0/bonding/active_slave; then
		nic=0
	   fi ;;
	*) fail "unknown phase $p" ;;
	esac
	phase "$p" "$nic" "$rec"
	# Restore the cut link (it rejoins as backup: no primary, no fail-back).
	[ "$ROLE" = b ] && host_cmd both "set_link n$nic on"
	wait_carrier "eth$nic" 1 30
	barrier "restored$p" 60
done
watch_stop
[ $failed = 0 ] || fail "assertions failed"
log "all assertions hold"
exit 0
