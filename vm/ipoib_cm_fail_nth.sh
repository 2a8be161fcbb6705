#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=2400 kernel=patched
#
# IPoIB-CM connection setup and keepalives with every allocation failed in
# turn (fail-nth), on the debug kernel (kmemleak, lockdep, debug objects:
# the runner fails the scenario on any splat or leak).  They run on
# kworkers, which a task's own fail-nth does not reach: ib_ipoib's debugfs
# fault points (ipoib_cm_fail_nth/) hand a fail-nth N to the next run of
#   tx_start   the start task of a send-side connection (QP, CM ID, REQ),
#   rep        the REP handler of a send-side connection (QP to RTS, UC
#              keepalive registration, RTU),
#   req        the REQ handler of a receive-side connection (QP, REP),
#   keepalive  the keepalive task (probes),
# and read back what it left (0: the Nth allocation failed, more: it made
# fewer than N, -1: no run took it).  A sweep goes N = 1, 2, ... until a
# run has allocations left.  Each step of a setup sweep starts a's
# connection to b afresh (a's ib0 down and up: its paths, hence what they
# learned of UC, are flushed) and pings b, and must end in the documented
# state (Documentation/infiniband/ipoib.rst):
#   - traffic recovers within RECOVER_S s and then loses nothing (a failed
#     setup is retried by the CM or by the next packet);
#   - a has exactly one established send-side connection to b;
#   - under the policy uc, a UC attempt that failed (cm_uc_refused grew)
#     is followed by an RC connection, and one that did not fail is UC;
#     under the policy rc, RC.
# Sweeps: tx_start and rep on a; req on b, each step armed by b before a
# starts its connection (under the policy uc: a UC attempt whose setup
# fails is followed by an RC one, so both transports' setup code runs;
# the RC-only sweeps, tx_start-rc, rep-rc and req-rc, go through the same
# allocations and run on request); keepalive (uc, rc) on a, with an
# established idle connection: a run whose probe could not be sent must
# not cost the connection (no dead peer, no failed send).
# Afterwards, settled: every RC and UC QP of sib0 on each guest belongs to
# a live connection (none stuck half set up), and pings pass both ways.
# RDMA_HA_SWEEP_MAX (rdma_ha.sweep_max=N) caps each sweep;
# RDMA_HA_SWEEPS (rdma_ha.sweeps=POINT-POLICY,...|all) runs those sweeps.
# About 500 s of guest time (each allocation is failed twice: once
# itself, once kmemleak's record of it, which kmemleak's pool absorbs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

FP=/sys/kernel/debug/ipoib_cm_fail_nth
SWEEP_MAX=${RDMA_HA_SWEEP_MAX:-80}
RECOVER_S=40
res=0

# sweep POINT-POLICY: whether to run that sweep
sweep() {
	case ",${RDMA_HA_SWEEPS:-tx_start-uc,rep-uc,req-uc,keepalive-uc,keepalive-rc}," in
	*,all,*|*",$1,"*) return 0 ;;
	esac
	return 1
}

nic_setup eth1 "$MY_IP"
ib_up uc 1000 3
[ -w $FP/tx_start ] && [ -w $FP/rep ] && [ -w $FP/req ] &&
	[ -w $FP/keepalive ] ||
	fail "no $FP fault points (CONFIG_FAULT_INJECTION_DEBUG_FS)"
# GFP_KERNEL allocations fail too; no stack dump per injected failure
echo N >/sys/kernel/debug/failslab/ignore-gfp-wait &&
	echo 0 >/sys/kernel/debug/failslab/verbose ||
	fail "failslab: debugfs knobs missing (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
barrier up
wait_ping "$PEER_IB" 60

# fault_left FILE [TIMEOUT_S]: what the run that took FILE's fail-nth
# left, once one did (up to TIMEOUT_S, 5 s); -1 if none
fault_left() {
	local end left
	boot_secs
	end=$((BOOT_SECS + ${2:-5}))
	while :; do
		left=$(cat "$1")
		boot_secs
		[ "$left" != -1 ] || [ "$BOOT_SECS" -ge "$end" ] && break
		nap 0.05
	done
	echo "$left"
}

# fresh: a's connections start anew: ib0 down and up, b's address
# permanent (no ARP while the broadcast group is joined again).
fresh() {
	ip link set ib0 down
	ip link set ib0 up
	wait_carrier ib0 1 30
	ip neigh replace "$PEER_IB" lladdr "$PEER_HW" dev ib0 nud permanent
}

# conns: a's established send-side connections, "uc rc"
conns() { echo "$(cm_stat cm_tx_uc_conns) $(cm_stat cm_tx_rc_conns)"; }

# setup_step POINT POLICY N: one step of a setup sweep on a: a fresh
# connection to b with POINT (tx_start, rep: a's own, armed here with N;
# req: b's, armed by b) and a check of the state it ends in.  Sets
# STEP_LEFT (what the run left, for a's own points) and STEP (what
# happened).
setup_step() {
	local point=$1 policy=$2 n=$3 r0 r1 t0 rec c want
	STEP_LEFT=-1
	r0=$(cm_stat cm_uc_refused)
	fresh
	[ "$point" = req ] || echo "$n" >$FP/"$point"
	t0=$(now)
	# the packet that starts the connection (lost with a failed one)
	ping -c 1 -W 1 "$PEER_IB" >/dev/null 2>&1
	if wait_for $RECOVER_S ping -c 1 -W 1 "$PEER_IB"; then
		rec=$(rel "$t0" "$(now)")
	else
		rec=none
	fi
	if [ "$point" != req ]; then
		STEP_LEFT=$(fault_left $FP/"$point")
		echo 0 >$FP/"$point"
	fi
	pings 5 "$PEER_IB" >/dev/null || rec="$rec,lost-pings"
	r1=$(cm_stat cm_uc_refused)
	c=$(conns)
	want="0 1"
	[ "$policy" = uc ] && [ "$r1" = "$r0" ] && want="1 0"
	STEP="traffic=$rec uc_refused+=$((r1 - r0)) conns(uc,rc)=$(echo $c | tr ' ' ,)"
	case "$rec" in
	none*) log "FAIL: $point $policy n=$n: no traffic within $RECOVER_S s"; res=1 ;;
	*lost*) log "FAIL: $point $policy n=$n: pings lost after the connection came up"; res=1 ;;
	esac
	if [ "$c" != "$want" ]; then
		log "FAIL: $point $policy n=$n: send-side connections (uc rc) '$c', expected '$want' (UC refusals +$((r1 - r0)))"
		res=1
	fi
	if [ "$point" != req ] && [ "$STEP_LEFT" = -1 ]; then
		log "FAIL: $point $policy n=$n: no run took the fail-nth"
		res=1
	fi
}

# step_log POINT POLICY N LEFT: record a step of a's
step_log() {
	echo "$1 $2 n=$3 left=$4 $STEP" >>/tmp/sweep.log
	echo "RDMA-HA-DATA: role=a what=fail-nth $1 $2 n=$3 left=$4 $STEP"
}

# sweep_done POINT POLICY STEPS LEFT: the sweep failed N=1 and ended, with
# allocations left, before SWEEP_MAX.
sweep_done() {
	local first
	first=$(sed -n "s/^$1 $2 n=1 left=\([-0-9]*\) .*/\1/p" /tmp/sweep.log)
	log "sweep $1 $2: $3 steps, the last left $4"
	if [ "$3" -lt 2 ] || [ "$3" -ge "$SWEEP_MAX" ] || [ "$first" != 0 ] ||
	   [ "$4" = 0 ] || [ "$4" = -1 ]; then
		log "FAIL: sweep $1 $2: N=1 failed ($first), ended with allocations left in $3 steps (left $4)"
		res=1
	fi
}

# a_sweep POINT POLICY: sweep one of a's own setup points.
a_sweep() {
	local n=0
	while [ $n -lt "$SWEEP_MAX" ]; do
		n=$((n + 1))
		setup_step "$1" "$2" $n
		step_log "$1" "$2" $n "$STEP_LEFT"
		[ "$STEP_LEFT" = 0 ] || break
	done
	sweep_done "$1" "$2" $n "$STEP_LEFT"
}

# req_sweep POLICY: b's REQ handler, armed by b before each of a's steps
req_sweep() {
	local n=0 left=
	while [ $n -lt "$SWEEP_MAX" ]; do
		n=$((n + 1))
		[ "$ROLE" = b ] && echo $n >$FP/req
		barrier "req-$1-$n"
		[ "$ROLE" = a ] && setup_step req "$1" $n
		if [ "$ROLE" = b ]; then
			left=$(fault_left $FP/req $RECOVER_S)
			echo 0 >$FP/req
			if [ "$left" = -1 ]; then
				log "FAIL: req $1 n=$n: no REQ handler took the fail-nth"
				res=1
			fi
		fi
		peer_exchange "req-$1-$n-left" "$left" 120
		if [ "$ROLE" = a ]; then
			left=$PEER_DATA
			step_log req "$1" $n "$left"
		fi
		[ "$left" = 0 ] || break
	done
	[ "$ROLE" = a ] && sweep_done req "$1" $n "$left"
	return 0
}

# ka_sweep POLICY: a's keepalive task, its connection to b established
# and idle (b sends nothing: its own keepalives are off, so that a
# watches no receive side and every run of a's task is for its probe).
ka_sweep() {
	local n=0 left d0 f0 c0 p0
	if [ "$ROLE" = b ]; then
		echo 0 >/sys/class/net/ib0/cm_keepalive_interval_ms
		ip link set ib0 down
		ip link set ib0 up
		wait_carrier ib0 1 30
		barrier "ka-$1"
		barrier "ka-$1-done" 600
		echo 1000 >/sys/class/net/ib0/cm_keepalive_interval_ms
		return 0
	fi
	barrier "ka-$1"
	fresh
	wait_ping "$PEER_IB" 60
	pings 5 "$PEER_IB" >/dev/null
	d0=$(cm_stat cm_ka_tx_dead) f0=$(cm_stat cm_tx_failed) c0=$(conns)
	while [ $n -lt "$SWEEP_MAX" ]; do
		n=$((n + 1))
		try=0
		while :; do
			try=$((try + 1))
			p0=$(cm_stat cm_ka_probes_sent)
			echo $n >$FP/keepalive
			left=$(fault_left $FP/keepalive)
			echo 0 >$FP/keepalive
			p0=$(($(cm_stat cm_ka_probes_sent) - p0))
			# a run that had nothing to probe (the peer answered
			# since the last one) and allocated nothing: again.
			# UC: every probe allocates its datagram, so a run that
			# took no fault probed nothing either; a probe counted
			# came from a run that began before the fault was armed
			# (seen on a loaded host: n=1 left=1 probes+=1)
			[ "$left" = $n ] && [ $try -lt 10 ] &&
				{ [ $p0 = 0 ] || [ "$1" = uc ]; } || break
		done
		STEP="probes+=$p0 runs=$try"
		step_log keepalive "$1" $n "$left"
		[ "$left" = -1 ] &&
			{ log "FAIL: keepalive $1 n=$n: no run took the fail-nth"; res=1; }
		[ "$left" = 0 ] || break
	done
	# a probe skipped at every step: the connection lives on, probed
	p0=$(cm_stat cm_ka_probes_sent)
	sleep 4
	log "keepalive $1: $(($(cm_stat cm_ka_probes_sent) - p0)) probes in 4 s after the sweep"
	expect cm_ka_tx_dead -eq "$d0"
	expect cm_tx_failed -eq "$f0"
	[ "$(conns)" = "$c0" ] ||
		{ log "FAIL: keepalive $1: connections (uc rc) '$(conns)', were '$c0'"; res=1; }
	pings 5 "$PEER_IB" || { log "FAIL: keepalive $1: ping after the sweep"; res=1; }
	[ "$n" -lt "$SWEEP_MAX" ] && [ "$left" != -1 ] ||
		{ log "FAIL: keepalive $1: sweep did not end ($n steps, left=$left)"; res=1; }
	# a UC probe is a datagram the task allocates
	[ "$1" = rc ] || [ "$n" -ge 2 ] ||
		{ log "FAIL: keepalive uc: no allocation of the task failed"; res=1; }
	barrier "ka-$1-done" 600
}

# qps_settled: every RC and UC QP of sib0 belongs to a live connection.
qps_settled() {
	local q c
	q=$(rdma res show qp link sib0/1 | grep -cE 'type (RC|UC)')
	c=$(($(cm_stat cm_tx_uc_conns) + $(cm_stat cm_tx_rc_conns) +
	     $(cm_stat cm_rx_uc_conns) + $(cm_stat cm_rx_rc_conns)))
	[ "$q" = "$c" ] && return 0
	log "RC/UC QPs $q, live connections $c"
	return 1
}

for policy in uc rc; do
	ib_policy "$policy"
	peer_exchange "hw-$policy" "$(cat /sys/class/net/ib0/address)"
	PEER_HW=$PEER_DATA
	if [ "$ROLE" = a ]; then
		wait_ping "$PEER_IB" 60
		! sweep "tx_start-$policy" || a_sweep tx_start "$policy"
		! sweep "rep-$policy" || a_sweep rep "$policy"
	fi
	barrier "a-sweeps-$policy" 900
	! sweep "req-$policy" || req_sweep "$policy"
	barrier "req-$policy-done" 600
	! sweep "keepalive-$policy" || ka_sweep "$policy"
done

# ---- settled: nothing stuck, traffic both ways ----
barrier settle
sleep 10
wait_ping "$PEER_IB" 60
pings 10 "$PEER_IB" || { log "FAIL: ping after the sweeps"; res=1; }
barrier settle-pinged
sleep 5
rdma res show qp link sib0/1 | grep -E 'type (RC|UC)'
cm_stats end
wait_for 30 qps_settled ||
	{ log "FAIL: RC/UC QPs of no live connection left on sib0"; qps_settled; res=1; }
barrier done
exit $res
