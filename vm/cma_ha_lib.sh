#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The phase machinery of the two-guest RDMA CM HA scenarios (cma_ha_ib.sh,
# cma_ha_roce.sh): guest a runs the rdma_ha_pingpong server, guest b the
# client with --reconnect; a phase starts both with given HA modes (start),
# fails over or cuts a link on both guests at once (act), ends them (stop),
# and each guest asserts its own side from the program log of the window
# around the act (check and the *_checks helpers).  Timings are printed as
# RDMA-HA-DATA lines relative to the moment of the act (T_ACT).
#
# Source after lib.sh, with HA_RDEV set to the RDMA device name prefix:
# port N of the bond is device ${HA_RDEV}N on ethN.
PP=rdma_ha_pingpong
# the CM acts within this many ms of the failover or port event (TCG margin)
ACT_MAX_MS=${RDMA_HA_ACT_MAX_MS:-3000}
# a kept connection pauses no longer than this: on a loaded host the guests'
# vCPUs stall for a few 100 ms (seen: 292 ms with no act at all); a lost
# path stalls until RC retries run out, seconds
KEPT_MAX_GAP_MS=1500
OBSERVE_S=8
# the client's pause between a ping's echo and the next ping (-i): 10 ms
# keeps the connection busy; the program's default of 1 ms gave twice the
# pings and cma_ha_ib took 197 host CPU-s instead of 153, side by side
# (guests on the TSC; on jiffies both round up to 4 ms steps), for
# nothing more that the checks look at
PP_INTERVAL_US=${RDMA_HA_PP_INTERVAL_US:-10000}
ENETDOWN=100
ENETUNREACH=101
# the status of ADDR_CHANGE in HA modes other than notify: the path's state
# (enum rdma_cm_ha_path_status), positive, never an errno
ST_ALIGNED=1
ST_MIS=2
ST_DEAD=3

failed=0
seq=0
check() {
	if eval "$2"; then
		echo "RDMA-HA-DATA: phase=$seq role=$ROLE assert=ok $1"
	else
		log "ASSERTION FAILED: phase $seq: $1"
		echo "RDMA-HA-DATA: phase=$seq role=$ROLE assert=FAILED $1"
		failed=1
	fi
}
data() { echo "RDMA-HA-DATA: phase=$seq role=$ROLE $*"; }

# cmc DEV DIR MSG: ib_cm message counter (DIR tx|rx) of DEV's port 1.
cmc() { cat "/sys/class/infiniband/$1/ports/1/cm_$2_msgs/$3"; }

# The observation window of an act: from T_WIN, when this guest reached
# the act's barrier, to T_END, OBSERVE_S after the act.  Neither guest
# acts before both reached the barrier, so nothing the act causes on
# either side comes before T_WIN, however late a loaded guest leaves the
# barrier (seen: 0.75 s after its peer).

# since PATTERN: ms from T_ACT to the first line of this guest's program
# log in the window that matches the awk regular expression PATTERN (can
# be negative: the peer's act, or its reaction, can come before this
# guest's T_ACT); empty if there is none.
since() {
	awk -v t0="$T_ACT" -v w0="$T_WIN" -v t1="$T_END" -v pat="$1" '
		$1 >= w0 && $1 <= t1 && $0 ~ pat {
		printf "%.0f\n", ($1 - t0) * 1000; exit }' "$PLOG"
}

# count PATTERN: lines of the program log in the window matching PATTERN.
count() {
	awk -v w0="$T_WIN" -v t1="$T_END" -v pat="$1" '
		$1 >= w0 && $1 <= t1 && $0 ~ pat { n++ }
		END { print n + 0 }' "$PLOG"
}

# within MS: MS is set and at most ACT_MAX_MS.
within() { [ -n "$1" ] && [ "$1" -le "$ACT_MAX_MS" ]; }

# before A B: event times A and B both seen and A <= B.
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]; }

ev() { echo "cm_event name=RDMA_CM_EVENT_$1 status=$2 id=$3\$"; }

# start SERVER_MODE SERVER_BIND CLIENT_MODE [CLIENT_OPTIONS [SERVER_OPTIONS]]:
# a new phase; the server on a, the client on b (--reconnect), connected
# and exchanging pings.  A mode "default" sets none: the program's IDs
# take their port's default_ha_mode.
start() {
	seq=$((seq + 1))
	port=$((7480 + seq))
	PLOG=/tmp/pp$seq.log
	T_ACT=0 T_WIN=0
	kmsg_mark "phase$seq"
	log "phase $seq: server $1 on $2, client $3, bond0 on $(cat /sys/class/net/bond0/bonding/active_slave)"
	if [ "$ROLE" = a ]; then
		$PP -s -b "$2" -p "$port" -d 600 $(ha_opt "$1") ${5:-} >"$PLOG" 2>&1 &
		PID=$!
		wait_for 10 grep -q ' listening ' "$PLOG" ||
			fail "phase $seq: server did not listen: $(cat "$PLOG")"
		barrier "srv$seq"
	else
		barrier "srv$seq"
		$PP -c "$PEER_IP" -b "$MY_IP" -p "$port" -d 600 --reconnect \
			-i "$PP_INTERVAL_US" $(ha_opt "$3") $4 >"$PLOG" 2>&1 &
		PID=$!
	fi
	wait_for 40 grep -q ' connected id=1 ' "$PLOG" ||
		fail "phase $seq: no connection: $(cat "$PLOG")"
	barrier "conn$seq" 60
	sleep 3
}

# ha_opt MODE: the program's option for MODE; none for "default".
ha_opt() { [ "$1" = default ] || echo "--ha-mode $1"; }

# act switch IF | cut N | restore N | revive N: on both guests after a
# barrier; revive is a restore that is observed like a cut.
#   switch: administrative failover of bond0 to IF, both links stay up;
#   cut/restore: set_link nN off/on at both ends of link N.
# switch and cut set T_WIN and T_ACT, wait OBSERVE_S for the CM and the
# programs to react and set T_END: the checks look at that window only.
# T_ACT is where the act happens on this guest: for a switch, just before
# this guest's shell switches its bond; for a cut, which the host carries
# out, the kernel's time stamp of the port going down (rxe's "set down"
# for the port on ethN, the event the CM and IPoIB react to), never the
# shell's time after it asked: a guest that leaves the barrier late would
# take the reference after the events it is the reference of.
# RDMA_HA_ACT_DELAY_S (rdma_ha.act_delay_s=S on the kernel command line):
# guest a leaves every act's barrier S s late, as a guest of a loaded
# host does, to prove that the references above hold for it.
acts=0
act() {
	if [ "$1" != restore ]; then
		acts=$((acts + 1))
		kmsg_mark "act$acts"
		T_WIN=$(now)
	fi
	barrier "act$seq-$1$2"
	[ "$ROLE" = b ] || [ -z "${RDMA_HA_ACT_DELAY_S:-}" ] ||
		nap "$RDMA_HA_ACT_DELAY_S"
	case $1 in
	switch)
		T_ACT=$(now)
		bond_activate "$2" ;;
	cut)
		_act_link "$2" off down ;;
	restore)
		[ "$ROLE" = a ] || host_cmd both "set_link n$2 on"
		wait_carrier "eth$2" 1 30
		wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$HA_RDEV$2/ports/1/state" ||
			fail "$HA_RDEV$2 not ACTIVE again"
		return ;;
	revive)
		# a restore that is the act, observed like a cut
		_act_link "$2" on active ;;
	esac
	data "what=act act=$1 arg=$2 t_act=$T_ACT bond0=$(cat /sys/class/net/bond0/bonding/active_slave)"
	sleep $OBSERVE_S
	T_END=$(now)
}

# _act_link N off|on down|active: link N cut or restored at both ends;
# waits for ethN's carrier and for the kernel's log of $HA_RDEV$N's port
# ("set down", "set active"), whose time stamp is T_ACT.
_act_link() {
	local carrier=0
	[ "$2" = off ] || carrier=1
	[ "$ROLE" = a ] || host_cmd both "set_link n$1 $2"
	wait_carrier "eth$1" "$carrier" 30
	wait_for 30 _port_logged "$1" "$3" ||
		fail "no kernel log of $HA_RDEV$1: set $3"
	T_ACT=$(kmsg_time "act$acts" "$HA_RDEV$1: set $3\$")
	log "$HA_RDEV$1: set $3 at $T_ACT (kernel time stamp)"
}

# _port_logged N WORD: the kernel logged "$HA_RDEV$N: set WORD" since the
# mark of this act.
_port_logged() {
	[ -n "$(kmsg_time "act$acts" "$HA_RDEV$1: set $2\$")" ]
}

# stop: end both programs, the client first (SIGTERM: its verdict is 0
# when it is connected and not stalled), and print the program log.
# Checks on the window (T_ACT..T_END) may come before or after it.
stop() {
	# both observation windows are over before anything ends: under load
	# one guest leaves a barrier seconds after the other, and the client's
	# DREQ must not fall into the server's window
	barrier "end$seq" 120
	if [ "$ROLE" = b ]; then
		kill "$PID" 2>/dev/null
		wait "$PID"
		RC=$?
		barrier "stop$seq" 120
	else
		barrier "stop$seq" 120
		kill "$PID" 2>/dev/null
		wait "$PID"
		RC=$?
	fi
	sed "s/^/RDMA-HA-DATA: phase=$seq role=$ROLE log: /" "$PLOG"
	data "what=exit rc=$RC"
}

# teardown_checks STATUS ADDR_STATUS: this side's connection (id 1) was
# torn down by the CM with STATUS, after ADDR_CHANGE (status ADDR_STATUS,
# the path's state) when the act was a failover, quickly.
teardown_checks() {
	local status=$1 addr_status=$2 t_addr t_disc
	t_disc=$(since "$(ev DISCONNECTED "-$status" 1)")
	data "what=disconnected_ms value=${t_disc:-none} status=-$status"
	check "id 1 DISCONNECTED status -$status within ${ACT_MAX_MS} ms (${t_disc:-never})" \
		'within "$t_disc"'
	if [ -n "$addr_status" ]; then
		t_addr=$(since "$(ev ADDR_CHANGE "$addr_status" 1)")
		data "what=addr_change_ms value=${t_addr:-none} status=$addr_status"
		check "id 1 ADDR_CHANGE status $addr_status before DISCONNECTED (${t_addr:-never} <= ${t_disc:-never})" \
			'before "$t_addr" "$t_disc"'
	fi
}

# peer_disconnect_checks: this side's notify ID learnt of the peer's
# teardown from its DREQ: DISCONNECTED status 0, quickly.
peer_disconnect_checks() {
	local t
	t=$(since "$(ev DISCONNECTED 0 1)")
	data "what=peer_dreq_disconnected_ms value=${t:-none}"
	check "id 1 DISCONNECTED status 0 (the peer's DREQ) within ${ACT_MAX_MS} ms (${t:-never})" \
		'within "$t"'
}

# reconnected_checks DEV: a new connection (id > 1) on DEV after T_ACT; on
# the client, traffic flows on it (it was busy when stopped: exit 0).
reconnected_checks() {
	local t
	t=$(since " connected id=([2-9]|[1-9][0-9]) .* dev=$1 ")
	data "what=reconnected_ms value=${t:-none} dev=$1"
	check "new connection on $1 (${t:-never} ms)" '[ -n "$t" ]'
	[ "$ROLE" = a ] ||
		check "client busy at the end of the phase (exit $RC, want 0)" '[ "$RC" = 0 ]'
}

# kept_checks WHAT: the connection (id 1) survived the act: no teardown,
# no WC error, no reconnection, no stall.
kept_checks() {
	check "$1: no DISCONNECTED/UNREACHABLE/REJECTED" \
		'[ "$(count "RDMA_CM_EVENT_(DISCONNECTED|UNREACHABLE|REJECTED)")" = 0 ]'
	check "$1: no WC error" '[ "$(count " wc_error ")" = 0 ]'
	check "$1: no new connection" '[ "$(count " connected id=")" = 0 ]'
	[ "$ROLE" = a ] ||
		check "$1: no stall over $KEPT_MAX_GAP_MS ms (longest $(longest_stall) ms)" \
			'[ "$(longest_stall)" -le "$KEPT_MAX_GAP_MS" ]'
}

# longest_stall: ms of the longest data stall in the window, a stall still
# open at T_END counted up to T_END.
longest_stall() {
	awk -v w0="$T_WIN" -v t1="$T_END" '
		$1 >= w0 && $1 <= t1 && / stall begin / {
			open = 1; since = $1
			for (i = 1; i <= NF; i++)
				if ($i ~ /^since=/) since = substr($i, 7)
		}
		$1 >= w0 && $1 <= t1 && / stall end / {
			open = 0
			for (i = 1; i <= NF; i++)
				if ($i ~ /^gap_ms=/ && substr($i, 8) + 0 > max)
					max = substr($i, 8) + 0
		}
		END {
			if (open && (t1 - since) * 1000 > max)
				max = (t1 - since) * 1000
			printf "%.0f\n", max
		}' "$PLOG"
}

# ha_trace_on [EVENT...]: trace the CM's HA decisions (rdma_cma
# cm_ha_decision, which must exist) and the other rdma_cma EVENTs.
T=/sys/kernel/tracing
ha_trace_on() {
	local e
	[ -d $T/events ] || mount -t tracefs nodev $T
	[ -d $T/events/rdma_cma/cm_ha_decision ] ||
		fail "no cm_ha_decision trace event"
	for e in cm_ha_decision "$@"; do
		echo 1 >$T/events/rdma_cma/$e/enable
	done
}

# decisions: the cm_ha_decision lines since the trace was last cleared.
decisions() { grep ' cm_ha_decision: ' $T/trace; }

# bond_gids DEV: "INDEX GID" of every GID of port 1 of DEV whose netdevice
# is bond0.  One grep reads the table's ndevs (1024 of them on rxe: a cat
# per entry took 15 s on an idle guest and over 100 s on a loaded one).
bond_gids() {
	local d=/sys/class/infiniband/$1/ports/1 f
	for f in $(grep -lsx bond0 $d/gid_attrs/ndevs/*); do
		read_attr "$d/gids/${f##*/}"
		echo "${f##*/} $ATTR"
	done | sort -n
}

# gids_kept_check WHAT DEV BEFORE: DEV's bond0 GIDs (bond_gids) are still
# BEFORE, at the same indices.
gids_kept_check() {
	local now_gids before=$3 dev=$2
	now_gids=$(bond_gids "$dev")
	data "what=gids before=\"$(echo $before)\" after=\"$(echo $now_gids)\""
	check "$1: bond0's GIDs on $dev at the same indices" \
		'[ -n "$now_gids" ] && [ "$now_gids" = "$before" ]'
}

# failover_seen SLAVE: the kernel logged bond0 making SLAVE active since
# this act's mark.
failover_seen() {
	[ -n "$(kmsg_time "act$acts" "slave $1.*making interface the new active one")" ]
}

# cut_links NAME LINK...: an act for a port that does not go down with
# the link (act cut waits for that: a port on or following the bond):
# once both guests are at the barrier, b has the host cut LINKs at both
# ends.
cut_links() {
	local name=$1 n
	shift
	acts=$((acts + 1))
	kmsg_mark "act$acts"
	T_WIN=$(now)
	barrier "act$seq-$name"
	if [ "$ROLE" = b ]; then
		for n in "$@"; do host_cmd both "set_link n$n off"; done
	fi
}

# cut_active N SLAVE: cut_links of link N, the active one, then bond0
# fails over to SLAVE; T_ACT is the kernel's time of the failover.
cut_active() {
	cut_links "cut$1" "$1"
	wait_carrier "eth$1" 0 10
	wait_for 10 grep -qx "$2" /sys/class/net/bond0/bonding/active_slave ||
		fail "bond0 did not fail over to $2"
	wait_for 10 failover_seen "$2" || fail "no kernel log of the failover"
	T_ACT=$(kmsg_time "act$acts" "slave $2.*making interface the new active one")
}

# arp_failover N O: bond0 fails over from ibN to ibO by its ARP monitor,
# ibN keeping its carrier and sibN its ACTIVE port (the link carries
# nothing, the RDMA port cannot tell); T_ACT is the kernel's time of the
# failover.
arp_failover() {
	# (check evaluates its test in its own scope: no $1 there)
	_af_n=$1
	wait_for 30 grep -qx "ib$2" /sys/class/net/bond0/bonding/active_slave ||
		fail "bond0 did not fail over to ib$2"
	wait_for 10 failover_seen "ib$2" || fail "no kernel log of the failover"
	T_ACT=$(kmsg_time "act$acts" "slave ib$2.*making interface the new active one")
	check "the failover came from the ARP monitor: ib$1 has carrier" \
		'[ "$(cat /sys/class/net/ib$_af_n/carrier)" = 1 ]'
	check "sib$1's port is still ACTIVE" \
		'grep -q ACTIVE /sys/class/infiniband/sib$_af_n/ports/1/state'
}

# act_window NAME: wait out the observation window of an act at T_ACT.
act_window() {
	data "what=act act=$1 t_act=$T_ACT bond0=$(cat /sys/class/net/bond0/bonding/active_slave)"
	sleep $OBSERVE_S
	T_END=$(now)
}

# finish: the kernel's view of the bond and the devices, then the verdict.
finish() {
	dmesg | grep -E "bond0|$HA_RDEV|rdma-ha: mark" | tail -n 40
	[ $failed = 0 ] || fail "assertions failed"
	log "all assertions hold"
	exit 0
}
