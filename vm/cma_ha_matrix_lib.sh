#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The lifecycle matrix of the RDMA CM HA modes (issue 17): a generator of
# the bond event sequences a real bond produces, run under one connection
# per column (an HA mode with a wildcard or a bound listener) at once,
# and an expected table computed from the rules of
# Documentation/infiniband/rdma_cm_ha.rst for every column, side and
# step.  Sourced by the cma_ha_matrix_*.sh scenarios after lib.sh, with
#
#	MX_KIND    ib | roce | lag: the IPoIB bond on soft IB (sibN on ethN,
#	           ibN enslaved), rxe on each slave (rxeN on ethN), or rxe on
#	           the bond itself (rxe0 on bond0: a device that follows it)
#	MX_FOM     bonding's fail_over_mac (none, active, follow; IPoIB forces
#	           active)
#	MX_SEQS    the sequences to run (see mx_sequences; all by default)
#
# Per act (one event of a sequence) every column's connection is judged
# on both guests, each guest its own side:
#   decision  the cm_ha_decision lines of the connection's IDs (by their
#             addresses, ports and state) for the failover and the port
#             event (not on the stock kernel: it has no such trace)
#   events    the CM events the connection's ID got (ADDR_CHANGE with its
#             status, DISCONNECTED/UNREACHABLE with theirs), in order
#   survives  the ID is still connected after the act
#   reconnect the client is connected at the end of the act, and where
# The expected row comes from the rules (MX_RULES, each with the section
# of the document it takes it from), applied to what the kernels did:
# which failovers bonding made and when, when each RDMA port went down
# and came back, read from the kernel log with its own time stamps on
# this guest and, exchanged after the act, on the peer (whose teardown
# may reach this side as a DREQ); never the shell's view of the act, and
# nothing recorded from a run.  A row whose outcome depends on a port
# change within MX_EDGE_MS of the moment the CM looked at it is printed
# "unjudged" and counted apart, never as a pass.
#
# Each row is printed as
#   RDMA-HA-MATRIX: kind=K fom=F seq=S act=A col=MODE/LST side=a|b
#                   exp=(...) got=(...) ok|FAILED|unjudged: WHY
# with the trace lines and the program log of a failed row after it.  The
# stock kernel runs the notify column (cma_ha_matrix_lag.sh): its rows and
# the patched kernel's notify rows are held to the same rules, act for
# act, and their got= parts compare directly.

PP=rdma_ha_pingpong
MX_MODES_ALL="notify ignore align fail-fast migrate report"
# rdma_ha.matrix_seqs=A,B and rdma_ha.matrix_modes=A,B on the kernel
# command line (vm.sh --append) run a part of the matrix
[ -z "${RDMA_HA_MATRIX_SEQS:-}" ] || MX_SEQS=$(echo "$RDMA_HA_MATRIX_SEQS" | tr , ' ')
[ -z "${RDMA_HA_MATRIX_MODES:-}" ] || MX_MODES=$(echo "$RDMA_HA_MATRIX_MODES" | tr , ' ')
# MX_MON: how bonding watches the slaves, miimon (100 ms) or arp
# (arp_interval 100 ms, the peer as arp_ip_target; rdma_ha.matrix_mon=)
MX_MON=${RDMA_HA_MATRIX_MON:-${MX_MON:-miimon}}
# MX_FABRIC: how the guests' links meet: cables (each link its own
# point-to-point segment: slave N reaches only the peer's slave N) or
# switch (vm.sh net=switch: every slave reaches both of the peer's)
MX_FABRIC=${MX_FABRIC:-cables}
# TCP ports of the RDMA CM (not the IP stack's): column i of sequence s
MX_PORT_BASE=7500
# a port event is judged this long after it (CMA_HA_PORT_ERR_HOLDOFF_MS)
MX_HOLDOFF_MS=100
# IPoIB has its carrier again at most this long after its port came back
# (it joins the broadcast group first)
MX_CARRIER_MS=5000
# a port state change this close to a decision's moment may have been
# seen either way (the CM reads the cached port state, updated from a
# work item after the port's log line)
MX_EDGE_MS=60
# the client: busy (a ping every 200 ms: twelve connections share one TCG
# vCPU), RC retries that end (6), and an 8 s reply timeout for a last ping
# that was delivered but never echoed (2 s ended healthy connections on a
# host at load 30: their guests stalled up to 6 s between two pings)
MX_REPLY_TIMEOUT_MS=8000
MX_CLIENT_OPTS="-i 200000 --retry-count 6 --reply-timeout-ms $MX_REPLY_TIMEOUT_MS"
# a flushed work request waits this long for the CM's own event, so that
# a connection the CM tears down is seen with the CM's status
MX_GRACE_MS=3000
# an act's window: at least MX_MIN_S, at most MX_MAX_S, until the
# clients that should be connected are
MX_MIN_S=5
MX_MAX_S=30
ENETDOWN=100
ENETUNREACH=101
ETIMEDOUT=110

T=/sys/kernel/tracing
mx_failed=0
mx_unjudged=0
mx_rows=0
mx_seq=0
mx_act=0

# mx_patched: the kernel has the HA modes (the cm_ha_decision event).
mx_patched() { [ -d $T/events/rdma_cma/cm_ha_decision ]; }

mx_trace_init() {
	[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
	mx_patched || return 0
	echo 2048 >$T/buffer_size_kb
	echo 1 >$T/events/rdma_cma/cm_ha_decision/enable
}

# mx_columns: MX_COLS, "MODE/LST" words; the stock kernel has notify only
# (set as nothing: it has no option).
mx_columns() {
	local m modes=${MX_MODES:-$MX_MODES_ALL}
	mx_patched || modes=notify
	MX_COLS=
	for m in $modes; do
		MX_COLS="$MX_COLS $m/wild $m/bound"
	done
	MX_NCOLS=$(echo $MX_COLS | wc -w)
}

# mx_dev N: the RDMA device of slave N; mx_slave N: bond0's slave N.
mx_dev() {
	case $MX_KIND in
	ib) echo sib$1 ;;
	roce) echo rxe$1 ;;
	lag) echo rxe0 ;;
	esac
}
mx_slave() { if [ "$MX_KIND" = ib ]; then echo ib$1; else echo eth$1; fi; }

mx_setup() {
	case $MX_KIND in
	ib)
		ib_bond_setup ;;
	roce)
		bond_setup fail_over_mac "$MX_FOM"
		rxe_add rxe0 eth0
		rxe_add rxe1 eth1 ;;
	lag)
		bond_setup fail_over_mac "$MX_FOM"
		rxe_add rxe0 bond0 ;;
	esac
	wait_ping "$PEER_IP" 60
	if [ "$MX_MON" = arp ]; then
		# bonding's ARP monitor instead of miimon; the backup slave
		# hears the peer only on a switched segment (vm.sh net=switch)
		ip link set bond0 type bond miimon 0 arp_interval 100 \
			arp_ip_target "$PEER_IP" || fail "ARP monitoring on bond0"
		wait_ping "$PEER_IP" 60
		wait_for 30 mx_slaves_up ||
			fail "bond0's slaves not both up under the ARP monitor: $(cat /proc/net/bonding/bond0)"
		[ "$(mx_active)" = 0 ] || bond_activate "$(mx_slave 0)"
	fi
	log "matrix: kind $MX_KIND fail_over_mac $(cut -d' ' -f1 /sys/class/net/bond0/bonding/fail_over_mac) monitor $MX_MON"
}

# mx_slaves_up: bonding's record of both slaves is up (/proc/net/bonding).
mx_slaves_up() {
	[ "$(grep -c '^MII Status: up' /proc/net/bonding/bond0)" = 3 ]
}

mx_active() {
	read_attr /sys/class/net/bond0/bonding/active_slave
	echo "${ATTR##*[!0-9]}"
}

# mx_normal: both links up, both slaves enslaved, slave 0 active.
mx_normal() {
	local n s
	for n in 0 1; do
		s=$(mx_slave $n)
		[ -e /sys/class/net/$s/master ] || {
			ip link set "$s" down
			ip link set "$s" master bond0 ||
				fail "cannot enslave $s again"
		}
		ip link set "$s" up
	done
	[ "$ROLE" = b ] || host_cmd both "set_link n0 on"
	[ "$ROLE" = b ] || host_cmd both "set_link n1 on"
	wait_carrier eth0 1 30
	wait_carrier eth1 1 30
	wait_carrier "$(mx_slave 0)" 1 30
	wait_carrier "$(mx_slave 1)" 1 30
	for n in 0 1; do
		[ "$MX_KIND" = lag ] && [ $n = 1 ] && continue
		wait_for 30 grep -q ACTIVE \
			"/sys/class/infiniband/$(mx_dev $n)/ports/1/state" ||
			fail "$(mx_dev $n) not ACTIVE"
	done
	bond_activate "$(mx_slave 0)"
	wait_carrier bond0 1 30
	wait_ping "$PEER_IP" 60
}

# ---- the programs: one server (a) and one client (b) per column ----------

mx_port() { echo $((MX_PORT_BASE + mx_seq * 20 + $1)); }

mx_start() {
	local i=0 c mode lst bind opt
	mx_stop_all
	for c in $MX_COLS; do
		i=$((i + 1))
		mode=${c%/*} lst=${c#*/}
		opt=
		# the self-test of the matrix: the programs of column MODE
		# run in another mode than the rules expect, whose rows must
		# fail (rdma_ha.matrix_run_as=MODE:OTHER)
		case ${RDMA_HA_MATRIX_RUN_AS:-} in
		"$mode":*) mode=${RDMA_HA_MATRIX_RUN_AS#*:} ;;
		esac
		mx_patched && opt="--ha-mode $mode"
		if [ "$ROLE" = a ]; then
			bind=0.0.0.0
			[ "$lst" = bound ] && bind=$MY_IP
			$PP -s -b $bind -p "$(mx_port $i)" -d 900 $opt \
				--wc-error-grace-ms $MX_GRACE_MS \
				>/tmp/mx$i.log 2>&1 &
		else
			$PP -c "$PEER_IP" -b "$MY_IP" -p "$(mx_port $i)" -d 900 \
				--reconnect $MX_CLIENT_OPTS $opt \
				--wc-error-grace-ms $MX_GRACE_MS \
				>/tmp/mx$i.log 2>&1 &
		fi
		eval "mx_pid$i=$!"
		# a fresh listener is bound to slave 0's port and listens there
		eval "mx_ls$i=0 mx_rep$i=1"
	done
	if [ "$ROLE" = a ]; then
		for i in $(seq "$MX_NCOLS"); do
			wait_for 20 grep -q ' listening ' /tmp/mx$i.log ||
				fail "column $i: server did not listen: $(cat /tmp/mx$i.log)"
		done
		barrier "mx-srv$mx_seq"
	else
		barrier "mx-srv$mx_seq"
	fi
	for i in $(seq "$MX_NCOLS"); do
		wait_for 60 grep -q ' connected id=' /tmp/mx$i.log ||
			fail "column $i: no connection: $(cat /tmp/mx$i.log)"
	done
	barrier "mx-conn$mx_seq" 120
}

mx_stop_all() {
	local i p
	for i in $(seq "${MX_NCOLS:-0}"); do
		eval "p=\${mx_pid$i:-}"
		[ -z "$p" ] || kill "$p" 2>/dev/null
	done
	for i in $(seq "${MX_NCOLS:-0}"); do
		eval "p=\${mx_pid$i:-}"
		[ -z "$p" ] || wait "$p" 2>/dev/null
		eval "mx_pid$i="
	done
}

# ---- the kernel's facts of an act ----------------------------------------

# mx_klog: the kernel log since this act's mark, printk time in ms and
# the line: failovers ("fo N"), no active slave ("none"), and the RDMA
# ports' state changes ("down N", "up N"); on the bond (lag) "down N" and
# "up N" are bonding's view of slave N's link, "down L" and "up L" the
# state of the RDMA port on the bond.  On the IPoIB bond under the ARP
# monitor also bonding's record of slave N ("bdown N", "bup N": the CM
# takes a running slave that bonding took out of service as a dead path),
# and when this guest's act set ibN down or up ("ifdown N" before the
# command, "ifdowned N" after it; "ifup N", and "ifupped N" once it has
# carrier again).
mx_klog() {
	local d0 d1
	d0=$(mx_dev 0) d1=$(mx_dev 1)
	dmesg | awk -v tag="mx-act$mx_act " -v d0="$d0" -v d1="$d1" -v kind="$MX_KIND" \
	    -v mon="$MX_MON" -v start="$MX_START_ACTIVE" '
		BEGIN { print 0, "start", start }
		index($0, "rdma-ha: mark " tag) { on = 1; next }
		!on { next }
		{ t = $0; sub(/^\[ */, "", t); t = int(t * 1000 + 0.5) }
		/bond0: .*making interface the new active one/ {
			s = $0; sub(/.*\(slave /, "", s); sub(/\).*/, "", s)
			print t, "fo", substr(s, length(s)); next }
		/bond0: now running without any active interface/ { print t, "none"; next }
		/rdma-ha: mark mx-if[01]-(down|down-done|up|up-done) / {
			s = $0; sub(/.*mark mx-if/, "", s); n = substr(s, 1, 1)
			sub(/^[01]-/, "", s); sub(/ .*/, "", s)
			w = s == "down" ? "ifdown" : s == "down-done" ? "ifdowned" : s == "up" ? "ifup" : "ifupped"
			print t, w, n; next }
		kind == "ib" && mon == "arp" && /bond0: \(slave ib[01]\): link status definitely (down|up)/ {
			s = $0; sub(/.*\(slave ib/, "", s)
			print t, / definitely down/ ? "bdown" : "bup", substr(s, 1, 1); next }
		kind == "lag" && $0 ~ (d0 ": set down$") { print t, "down", "L"; next }
		kind == "lag" && $0 ~ (d0 ": set active$") { print t, "up", "L"; next }
		kind != "lag" && $0 ~ (d0 ": set down$") { print t, "down", 0; next }
		kind != "lag" && $0 ~ (d0 ": set active$") { print t, "up", 0; next }
		kind != "lag" && $0 ~ (d1 ": set down$") { print t, "down", 1; next }
		kind != "lag" && $0 ~ (d1 ": set active$") { print t, "up", 1; next }
		kind == "lag" && /bond0: \(slave eth[01]\): link status definitely down/ {
			s = $0; sub(/.*eth/, "", s); print t, "down", substr(s, 1, 1); next }
		kind == "lag" && /bond0: \(slave eth[01]\): link status definitely up/ {
			s = $0; sub(/.*eth/, "", s); print t, "up", substr(s, 1, 1); next }
	' >/tmp/mx-facts
}

# ---- the rules ------------------------------------------------------------

# The rules of Documentation/infiniband/rdma_cm_ha.rst as one awk program
# (a guest under TCG pays 10-20 ms per process; this runs once per act
# for every column).  Input: the facts of one side ("T fo N", "T none",
# "T down P", "T up P"; T in printk ms), then one line per column:
# "I MODE LST CP REP LS PT PA": the connection's slave CP ("-" for none),
# the path status last reported to it (report), the slaves the listener
# listens on, and whether the peer tore its end down (PT) on a path
# alive at its end (PA).  Output per column: "I DEC EV ALTS KEEP RECON
# REP LS TORN ALIVE SKIP" (DEC "FAILOVER+PORT", "-" for nothing traced
# and "any" for a decision that finds the ID closing or gone; EV the CM
# events of the ID in order, NAME/STATUS joined by ","; ALTS other
# orders of them; TORN fo|pe|peer|- ; SKIP "-" or why the row cannot be
# judged, with "_" for spaces).
#
# Per failover to slave N (bonding raises it only for a new active
# slave; "Misalignment and dead paths"):
#   mac   the bond's hardware address is not the one the ID resolved with:
#         IPoIB and fail_over_mac=active take the active slave's
#   mis   IB: N's GID is not the ID's (N != CP); RoCE, a port per slave:
#         its port is not N's; a port on the bond is never misaligned
#   dead  IB: the ID's port is not ACTIVE, or (ARP monitor) bonding took
#         its slave out of service running with carrier; RoCE per
#         slave: misaligned (its
#         GID leaves the port) or its port is down; on the bond: N is down
#   held  IB: dead only because the ID's port went down less than
#         MX_HOLDOFF_MS ago: the port event judges it (fail-fast)
# then per mode ("Modes", "Actions", "Path status"):
#   notify     mac: ADDR_CHANGE 0
#   ignore     nothing
#   align,     mis: ADDR_CHANGE STATUS, DISCONNECTED -ENETUNREACH (rxe has
#   migrate    no alternate path: migrate falls back to align)
#   fail-fast  dead, not held: ADDR_CHANGE STATUS, DISCONNECTED -ENETDOWN
#   report     ADDR_CHANGE STATUS when STATUS is not the last reported
# STATUS: 3 dead, 2 misaligned, 1 aligned.  A port event (judged
# MX_HOLDOFF_MS after the port went down, on the port's state then):
#   fail-fast  dead: DISCONNECTED -ENETDOWN (no ADDR_CHANGE)
#   report     dead: ADDR_CHANGE 3 unless reported already; when the
#              port comes back after that, the path as after a failover
#              (ADDR_CHANGE 2 or 1) unless it is still dead
#   migrate    nothing (no alternate path); the others are not judged
# A bound listener in align, fail-fast, migrate and report listens on
# N's port from the failover on; a wildcard one listens everywhere.
# A teardown's DREQ reaches the peer over IB on a path alive at both
# ends (RoCE per slave: the GID has left the port; a cut link carries
# nothing).  On the bond with fail_over_mac=active the peer's new
# address is a neighbour update: UNREACHABLE -ETIMEDOUT to the client's
# ID in notify, report, align and migrate ("Neighbour updates").
MX_RULES='
function port_at(p, t,   k, s, d, e) {
	s = (" " downs " ") ~ (" " p " ") ? "down" : "up"
	e = 0
	for (k = 1; k <= nf; k++) {
		if (fp[k] != p || (fw[k] != "down" && fw[k] != "up"))
			continue
		if (ft[k] <= t)
			s = fw[k]
		d = ft[k] - t
		if (d < 0)
			d = -d
		if (d <= edge)
			e = 1
	}
	return e ? "edge" : s
}
function port_err(p,   k, d, u) {
	d = ""; u = ""
	for (k = 1; k <= nf; k++) {
		if (fp[k] == p && fw[k] == "down" && d == "")
			d = ft[k]
		else if (fp[k] == p && fw[k] == "up" && d != "" && u == "")
			u = ft[k]
	}
	if (d == "")
		return "none"
	if (u != "" && u - d < holdoff - edge)
		return "alive"
	if (u != "" && u - d <= holdoff + 4 * edge)
		return "edge"
	return "dead"
}
# held(p, t): port p went down less than the hold-off before t and is not
# up again: the port event is still to be judged, so a failover at t
# leaves fail-fast to it
function held(p, t,   k, d) {
	d = ""
	for (k = 1; k <= nf; k++) {
		if (fp[k] != p || ft[k] > t)
			continue
		if (fw[k] == "down")
			d = ft[k]
		else if (fw[k] == "up")
			d = ""
	}
	return d != "" && t - d < holdoff
}
# bond_at(p, t): the record bonding keeps of slave p at t (ARP monitor), "up" or
# "down"; bedge: it changed within the edge after t, when the CM may
# have looked
function bond_at(p, t,   k, s) {
	s = (" " bdowns " ") ~ (" " p " ") ? "down" : "up"
	bedge = 0
	for (k = 1; k <= nf; k++) {
		if (fp[k] != p || (fw[k] != "bdown" && fw[k] != "bup"))
			continue
		if (ft[k] <= t)
			s = fw[k] == "bdown" ? "down" : "up"
		else if (ft[k] - t <= edge)
			bedge = 1
	}
	return s
}
# running_at(p, t): the interface of slave p runs with carrier at t: "y", "n",
# or "edge" while the act on this guest sets it down or up
function running_at(p, t,   k, s) {
	s = (" " ifdowns " ") ~ (" " p " ") ? "n" : "y"
	for (k = 1; k <= nf; k++) {
		if (fp[k] != p || ft[k] > t)
			continue
		if (fw[k] == "ifdown" || fw[k] == "ifup")
			s = "edge"
		else if (fw[k] == "ifdowned")
			s = "n"
		else if (fw[k] == "ifupped")
			s = "y"
	}
	return s
}
# came_up(p, t, w): port p came back (up) less than w ms before t
function came_up(p, t, w,   k) {
	for (k = 1; k <= nf; k++)
		if (fp[k] == p && fw[k] == "up" && ft[k] <= t && t - ft[k] < w)
			return 1
	return 0
}
# reach(s, peers): a client on slave s can reach the listener of the
# column when the peer has one of the slaves PEERS active (the address
# of the peer resolves to the GID of its active slave): on cables only
# port s of the peer, so both ends on s; on a switch from any slave, when
# the listener listens on that port of the peer and its link is up
# (links are cut at both ends: the port here says)
function reach(s, peers,   l, ports) {
	if (fabric != "switch" || kind == "lag")
		return lst == "wild" || kind == "lag" || index(ls, s)
	ports = lst == "wild" ? "01" : ls
	for (l = 0; l <= 1; l++)
		if (index(peers, l) && index(ports, l) && port_at(l, 1e15) == "up")
			return 1
	return 0
}
function add(e) { ev = ev (ev == "" ? "" : ",") e }
function judge_pe() {
	if (pe == "none")
		return
	if (mode != "fail-fast" && mode != "migrate" && mode != "report")
		return
	if (pe == "edge")
		skip = "port_" pp "_came_back_around_the_hold-off"
	if (torn != "")
		dpe = "any"
	else if (mode == "fail-fast" && pe == "dead") {
		dpe = "disconnect"; torn = "pe"; add("DISCONNECTED/-" ENETDOWN)
	} else if (mode == "report" && pe == "dead" && rep != 3) {
		dpe = "report"; rep = 3; t3 = tpe + holdoff; add("ADDR_CHANGE/3")
	} else
		dpe = "none"
}
# act_at(t): the active slave of the bond at t ("" for none)
function act_at(t,   k, a) {
	a = start_active
	for (k = 1; k <= nf; k++)
		if (ft[k] <= t && fw[k] == "fo")
			a = fp[k]
		else if (ft[k] <= t && fw[k] == "none")
			a = ""
	return a
}
# port_back(): report mode told the ID that its path died (at t3); the
# port of the ID came back after that: the port work, which runs when the
# port came back and its hold-off from going down is over, tells the
# path as after a failover with the bond as it is then, unless it is
# still dead ("Path status")
function port_back(   k, td, tu, tw, st, a, dd, mm) {
	td = ""; tw = ""
	for (k = 1; k <= nf; k++) {
		if (fp[k] != pp)
			continue
		if (fw[k] == "down")
			td = ft[k]
		else if (fw[k] == "up") {
			tu = ft[k]
			if (td != "" && td + holdoff > tu)
				tu = td + holdoff
			if (tu > t3 && tw == "")
				tw = tu
		}
	}
	if (tw == "")
		return
	st = port_at(cp, tw); a = act_at(tw)
	if (st == "edge") {
		skip = "port_" pp "_changed_state_around_its_port_work"
		return
	}
	mm = a != cp
	dd = st != "up"
	if (kind == "roce")
		dd = dd || mm
	else if (mon == "arp" && bond_at(cp, tw) == "down" && running_at(cp, tw) == "y")
		dd = 1
	if (dd)
		return
	rep = mm ? 2 : 1
	add("ADDR_CHANGE/" rep)
}
FNR == NR {
	if ($2 ~ /^(fo|none|down|up|bdown|bup|ifdown|ifdowned|ifup|ifupped)$/) {
		nf++; ft[nf] = $1; fw[nf] = $2; fp[nf] = $3
	}
	next
}
{
	i = $1; mode = $2; lst = $3; cp = $4; rep = $5; ls = $6; pt = $7; pa = $8
	if (cp == "-")
		cp = ""
	skip = ""; ev = ""; alts = ""; torn = ""; dfo = "-"; dpe = "-"; pedone = 0
	# when report mode last told the ID its path was dead
	t3 = rep == 3 ? -1 : ""
	# the RDMA port of the ID: of its slave, or the one on the bond
	pp = kind == "lag" ? "L" : cp
	if (cp != "") {
		pe = port_err(pp)
		tpe = ""; tfo = ""
		for (k = 1; k <= nf; k++) {
			if (tpe == "" && fw[k] == "down" && fp[k] == pp)
				tpe = ft[k]
			if (tfo == "" && fw[k] == "fo")
				tfo = ft[k]
		}
		if (tpe != "" && tfo != "" && tpe + holdoff > tfo - edge &&
		    tpe + holdoff < tfo + edge &&
		    mode ~ /^(fail-fast|migrate|report)$/)
			skip = "the_port_event_was_judged_around_the_failover"
		if (tpe != "" && (tfo == "" || tpe + holdoff < tfo)) {
			judge_pe(); pedone = 1
		}
	}
	end = start_active
	for (k = 1; k <= nf; k++) {
		if (fw[k] == "none") { end = ""; continue }
		if (fw[k] != "fo")
			continue
		n = fp[k]; end = n
		if (cp != "" && torn == "") {
			mac = (kind == "ib" || fom == "active") && n != cp
			mis = 0; dead = 0; hold = 0
			if (kind == "ib") {
				mis = n != cp; st = port_at(cp, ft[k])
				hold = st == "down" && held(cp, ft[k])
				# ARP monitor: a running slave with carrier that bonding
				# took out of service is a dead path, its port ACTIVE or
				# not (notify and ignore do not ask).  IPoIB turns the
				# carrier of the slave off while the port is down and on
				# once it joined again, which no log line says: within
				# carrier_ms of the port coming back it is not known
				if (mon == "arp" && st == "up" && mode != "notify" && mode != "ignore") {
					bs = bond_at(cp, ft[k]); rn = running_at(cp, ft[k])
					if (bs == "down" && rn == "y" && came_up(cp, ft[k], carrier_ms))
						skip = "the_IPoIB_carrier_after_the_port_came_back_is_not_known"
					else if (bs == "down" && rn == "y")
						dead = 1
					else if ((bedge && rn != "n") || (rn == "edge" && bs == "down"))
						skip = "bonding_took_the_slave_out_around_its_own_down_or_up"
				}
			} else if (kind == "roce") {
				mis = n != cp; dead = mis
				st = mis ? "up" : port_at(cp, ft[k])
			} else
				# bonding makes only a slave with link active
				st = "up"
			if (st == "down")
				dead = 1
			if (st == "edge" && mode != "notify" && mode != "ignore")
				skip = "a_port_changed_state_around_the_failover"
			status = dead ? 3 : mis ? 2 : 1
			act = "none"; e = ""
			if (mode == "notify" && mac) {
				act = "notify"; e = "ADDR_CHANGE/0"
			} else if ((mode == "align" || mode == "migrate") && mis) {
				act = "disconnect"
				e = "ADDR_CHANGE/" status ",DISCONNECTED/-" ENETUNREACH
			} else if (mode == "fail-fast" && dead && !hold) {
				act = "disconnect"
				e = "ADDR_CHANGE/" status ",DISCONNECTED/-" ENETDOWN
			} else if (mode == "report" && status != rep) {
				act = "report"; e = "ADDR_CHANGE/" status; rep = status
				t3 = status == 3 ? ft[k] : ""
			}
			if (dfo == "-")
				dfo = act
			if (e != "")
				add(e)
			if (act == "disconnect")
				torn = "fo"
		} else if (cp != "" && dfo == "-")
			dfo = "any"
		if (lst == "bound" && mode ~ /^(align|fail-fast|migrate|report)$/ &&
		    index(ls, n) == 0)
			ls = ls n
	}
	if (cp != "" && !pedone) {
		pe = port_err(pp); judge_pe()
	}
	if (mode == "report" && cp != "" && kind != "lag" && torn == "" && rep == 3 && t3 != "")
		port_back()
	alive = "n"
	if (cp != "") {
		if (kind == "ib")
			alive = port_at(cp, 1e15) == "up" ? "y" : "n"
		else if (kind == "roce")
			alive = (end == cp && tfo == "" && port_err(cp) != "dead" &&
				 port_at(cp, 1e15) == "up") ? "y" : "n"
		else
			alive = (end != "" && (fom != "active" || end == cp)) ? "y" : "n"
	}
	dreq = ""
	# the peer row could not be judged: nor can its DREQ
	if (pt == "skip" && kind == "ib" && mode ~ /^(align|fail-fast|migrate)$/ &&
	    alive == "y" && pa == "y")
		skip = "the_peer_row_is_unjudged"
	if (pt != "-" && pt != "skip" && kind == "ib" && alive == "y" && pa == "y") {
		if (torn != "")
			dreq = "y"
		else {
			add("DISCONNECTED/0"); torn = "peer"
		}
	}
	keep = cp == "" ? "-" : (torn != "" || alive == "n") ? "n" : "y"
	# on the bond the path follows both bonds, which the two guests switch
	# one after the other (seconds apart on a loaded host): with two
	# back-to-back links there is no path in between, and whether the RC
	# retries of the connection outlast that is not a rule of the CM
	if (kind == "lag" && keep == "y" && tfo != "")
		keep = "?"
	# Ethernet with fail_over_mac=active: the gratuitous ARP of the peer
	# that failed over changes the neighbour of the client: UNREACHABLE
	# -ETIMEDOUT to its ID in notify, report, align and migrate (in
	# fail-fast only on a dead port, which a failover leaves up), ending
	# it; whether the new address comes while the ID lives depends on when
	# the two bonds switch: the event may come anywhere among the events
	# of the ID, or not at all (NEIGH, see mx_match)
	# A bond with no active slave fails the neighbour: its address
	# changes too.
	nonefact = 0
	for (k = 1; k <= nf; k++)
		if (fw[k] == "none")
			nonefact = 1
	if (kind != "ib" && side == "b" && cp != "" &&
	    ((fom == "active" && end != cp) || nonefact) &&
	    mode ~ /^(notify|report|align|migrate)$/)
		alts = "NEIGH"
	recon = "-"
	if (keep == "y")
		recon = dev[cp]
	else if (end != "" && reach(end, pend))
		recon = dev[end]
	# on a switch a client that reconnected during the act, before its
	# own bond switched, did so from the slave active then; the modes
	# that keep a connection merely misaligned keep it there ("|": any
	# of them)
	if (fabric == "switch" && kind == "ib" && keep != "y" && cp == "" && mode ~ /^(notify|ignore|report|fail-fast)$/) {
		was = start_active
		for (k = 1; k <= nf; k++)
			if (fw[k] == "fo")
				was = was fp[k]
		for (s = 0; s <= 1; s++)
			if (index(was, s) && s != end && reach(s, pwas) && port_at(s, 1e15) == "up")
				recon = recon == "-" ? dev[s] : recon "|" dev[s]
	}
	# the server has nothing outstanding but echoes: it learns that its
	# connection died from the CM, from the client coming back (the new
	# connection retires the old one), or when an echo was in flight as
	# the path died (its RC retries run out): with no client coming back,
	# whether it ends is not a rule of the CM
	if (side == "a" && keep == "n" && torn == "" && recon == "-")
		keep = "?"
	if (dreq == "y")
		alts = alts (alts == "" ? "" : "|") "DREQ"
	# a failover that comes more than 1.5 s after the path of the ID died
	# (its port went down, or the bond had no active slave) may find it
	# gone: its RC retries run out, the client ends a connection whose
	# ping is not echoed in time, a connection the client left is retired
	# on the server;
	# the events expected from then on may be missing (TRUNC)
	tdead = ""
	for (k = 1; k <= nf && cp != ""; k++) {
		if (tdead == "" && ((fw[k] == "down" && fp[k] == pp) || fw[k] == "none"))
			tdead = ft[k]
		if (tdead != "" && fw[k] == "fo" && ft[k] - tdead > 1500) {
			alts = alts (alts == "" ? "" : "|") "TRUNC"
			break
		}
	}
	printf "%s %s+%s %s %s %s %s %s %s %s %s %s\n", i, dfo, dpe,
		ev == "" ? "-" : ev, alts == "" ? "-" : alts, keep, recon,
		rep, ls, torn == "" ? "-" : torn, alive, skip == "" ? "-" : skip
}'

# mx_rules FACTS SIDE COLS: the rules' rows (see MX_RULES) of the columns
# in the file COLS on SIDE, from the facts in the file FACTS; the other
# side had the slaves MX_PEER_WAS active during the act, MX_PEER_END at
# its end (mx_peer_actives).
mx_rules() {
	awk -v kind="$MX_KIND" -v fom="$MX_FOM" -v side="$2" \
	    -v mon="$MX_MON" -v fabric="$MX_FABRIC" \
	    -v pwas="$MX_PEER_WAS" -v pend="$MX_PEER_END" -v carrier_ms="$MX_CARRIER_MS" \
	    -v bdowns="$MX_BDOWN_AT_START" -v ifdowns="$MX_IFDOWN_AT_START" \
	    -v holdoff="$MX_HOLDOFF_MS" -v edge="$MX_EDGE_MS" \
	    -v downs="$MX_DOWN_AT_START" -v start_active="$MX_START_ACTIVE" \
	    -v ENETDOWN=$ENETDOWN -v ENETUNREACH=$ENETUNREACH -v ETIMEDOUT=$ETIMEDOUT \
	    -v d0="$(mx_dev 0)" -v d1="$(mx_dev 1)" \
	    "BEGIN { dev[0] = d0; dev[1] = d1 } $MX_RULES" "$1" "$3"
}

# mx_peer_actives FACTS: MX_PEER_WAS and MX_PEER_END from the facts of
# the other side: the slaves its bond had active during the act (from
# the start on), the one at the end (none: empty).
mx_peer_actives() {
	set -- $(awk '$2 == "start" { w = $3; e = $3 }
		$2 == "fo" { w = w $3; e = $3 }
		$2 == "none" { e = "" }
		END { print (w == "" ? "-" : w), (e == "" ? "-" : e) }' "$1")
	MX_PEER_WAS=${1#-} MX_PEER_END=${2#-}
}

# ---- what happened ----------------------------------------------------------

# mx_conns: "I ID DEV SPORT DPORT" for every column with a connection now
# (the last "connected" line of its log with no end of the same id after
# it), with the RDMA CM ports of its ID (its own, the peer's).
mx_conns() {
	local i f=""
	for i in $(seq "$MX_NCOLS"); do f="$f /tmp/mx$i.log"; done
	awk 'FNR == 1 { if (col) out(); col = FILENAME; sub(/.*mx/, "", col); sub(/\.log$/, "", col); last = ""; split("", live) }
	/ connected id=/ {
		for (k = 1; k <= NF; k++) {
			if ($k ~ /^id=/) id = substr($k, 4)
			if ($k ~ /^dev=/) d = substr($k, 5)
			if ($k ~ /^sport=/) sp = substr($k, 7)
			if ($k ~ /^dport=/) dp = substr($k, 7)
		}
		live[id] = d " " sp " " dp; last = id
	}
	/ (disconnected|connect_failed) id=/ {
		for (k = 1; k <= NF; k++)
			if ($k ~ /^id=/) delete live[substr($k, 4)]
	}
	function out() { if (last != "" && (last in live)) print col, last, live[last] }
	END { if (col) out() }' $f
}

# mx_observed: "I DEC EV KEEP RECON" for every column on this side: the
# first failover and port decision traced for the connection's IDs (by
# address and port: the client's goes to the server's port, the
# server's comes from it; by state: connected or closing, which a
# listener and the column's next connection, still connecting, are
# not), the CM events of the ID
# the act found (mx_id$I) since T_WIN, whether it ended, and where the
# client is connected now.
mx_observed() {
	local i f="" ids="" ports=""
	mx_patched && grep ' cm_ha_decision: ' $T/trace >/tmp/mx-trace
	mx_patched || : >/tmp/mx-trace
	mx_conns >/tmp/mx-conns
	for i in $(seq "$MX_NCOLS"); do
		f="$f /tmp/mx$i.log"
		eval "ids=\"\$ids \${mx_id$i:--}\" ports=\"\$ports \${mx_ports$i:--}\""
	done
	awk -v role="$ROLE" -v me="$MY_IP" -v peer="$PEER_IP" -v w0="$T_WIN" \
	    -v ids="$ids" -v ncols="$MX_NCOLS" \
	    -v patched="$(mx_patched && echo 1)" -v ports="$ports" '
	BEGIN { split(ids, id, " "); split(ports, pts, " ") }
	FILENAME == "/tmp/mx-trace" {
		for (c = 1; c <= ncols; c++) {
			# the act found no connection: a decision is for one the
			# client made during the act (the rules judge none)
			if (id[c] == "-")
				continue
			# the ID of the connection the act found, by its own port
			# and the port of the peer: a newer connection of the
			# column has others (on a switched fabric a client whose
			# connection the peer ended reconnects at once, and the
			# failover of this side may end that one too); connected,
			# or closing when the peer or an earlier decision ended it
			split(pts[c], p, ":")
			sel = "src=" me ":" p[1] " dst=" peer ":" p[2] " "
			if (!index($0, sel) || $0 !~ / state=(connected|closing) /)
				continue
			a = $0; sub(/.*action=/, "", a); sub(/ .*/, "", a)
			if (index($0, "event=bond-failover") && fo[c] == "")
				fo[c] = a
			if (index($0, "event=port-err") && pe[c] == "")
				pe[c] = a
		}
		next
	}
	FILENAME == "/tmp/mx-conns" { recon[$1] = $3; next }
	{
		c = FILENAME; sub(/.*mx/, "", c); sub(/\.log$/, "", c)
		if ($1 < w0 || id[c] == "-")
			next
		# TIMEWAIT_EXIT may follow any disconnect ("Actions"): not judged
		if (/ cm_event name=/ && $NF == "id=" id[c] && !/TIMEWAIT_EXIT/) {
			n = $0; sub(/.*name=RDMA_CM_EVENT_/, "", n); sub(/ .*/, "", n)
			s = $0; sub(/.*status=/, "", s); sub(/ .*/, "", s)
			ev[c] = ev[c] (ev[c] == "" ? "" : ",") n "/" s
		}
		if (/ (disconnected|connect_failed) id=/ && $4 == "id=" id[c])
			ended[c] = / reason=superseded/ ? "r" : "n"
	}
	END {
		for (c = 1; c <= ncols; c++)
			printf "%d %s+%s %s %s %s\n", c,
				fo[c] == "" ? "-" : fo[c], pe[c] == "" ? "-" : pe[c],
				ev[c] == "" ? "-" : ev[c],
				id[c] == "-" ? "-" : ended[c] ? ended[c] : "y",
				recon[c] == "" ? "-" : recon[c]
	}' /tmp/mx-trace /tmp/mx-conns $f
}

# mx_evidence I: the trace lines and the program log of column I in this
# act's window, for a failed row.
mx_evidence() {
	local port
	port=$((MX_PORT_BASE + mx_seq * 20 + $1))
	grep -F ":$port " /tmp/mx-trace | sed "s/^/RDMA-HA-DATA: act=$mx_act col=$1 trace: /"
	awk -v w0="$T_WIN" '$1 >= w0' "/tmp/mx$1.log" | head -n 30 |
		sed "s/^/RDMA-HA-DATA: act=$mx_act col=$1 log: /"
}

# mx_match: the row is as expected.  E_ALTS may allow other orders of the
# events, and "DREQ": the peer's DREQ came before this side's own
# decision, which then ends the ID with DISCONNECTED status 0 and, if
# traced at all, finds it closing (none).
mx_match() {
	local e g g0=$G_EV
	# keep=r: the server retired the connection for a new one of its
	# client (superseded).  A client that had left it before the act
	# (rejected meanwhile by a bound listener that is not on its port)
	# and came back in it does that to a connection the CM kept, as the
	# rules expect; whether the client should have come back is its own
	# row's (b's keep and recon).
	if [ "$G_KEEP" = r ]; then
		G_KEEP=n
		[ "$ROLE" = a ] && [ "$E_KEEP" = y ] && G_KEEP=y
	fi
	[ "$E_KEEP" = "?" ] || [ "$G_KEEP" = "$E_KEEP" ] || return 1
	if [ "$ROLE" = b ]; then
		case "|$E_RECON|" in *"|$G_RECON|"*) ;; *) return 1 ;; esac
	fi
	# the server: a client that ended its end by itself (its reply
	# timeout, a WC error, UNREACHABLE) sends a DREQ, which reaches the
	# server once a path carries it; a server that ended its own end
	# (an echo in flight as the path died: keep "?") sent one that no
	# path carried, and its ID ends with DISCONNECTED -ETIMEDOUT
	if [ "$ROLE" = a ] && [ "$E_KEEP" != y ]; then
		case $G_EV in
		DISCONNECTED/0) G_EV=- ;;
		*,DISCONNECTED/0) G_EV=${G_EV%,DISCONNECTED/0} ;;
		esac
	fi
	if [ "$ROLE" = a ] && [ "$E_KEEP" = "?" ]; then
		case $G_EV in
		DISCONNECTED/-$ETIMEDOUT) G_EV=- ;;
		*,DISCONNECTED/-$ETIMEDOUT) G_EV=${G_EV%,DISCONNECTED/-$ETIMEDOUT} ;;
		esac
	fi
	if [ "$G_EV" = "$E_EV" ]; then
		[ "$G_DEC" = "$E_DEC" ] && return 0
		# a port decision after the failover's teardown: none, or none traced
		[ "${E_DEC#*+}" = any ] && [ "${G_DEC%+*}" = "${E_DEC%+*}" ] && return 0
		[ "${E_DEC%+*}" = any ] && [ "${G_DEC#*+}" = "${E_DEC#*+}" ] && return 0
	fi
	for e in $(echo "$E_ALTS" | tr '|' ' '); do
		case $e in
		DREQ)
			[ "$g0" = DISCONNECTED/0 ] || continue
			case ${G_DEC%+*} in -|none) return 0 ;; esac ;;
		TRUNC)
			[ "$G_KEEP" = n ] || continue
			case ",$E_EV," in
			",$G_EV,"*) ;;
			*) [ "$G_EV" = - ] || continue ;;
			esac
			case ${G_DEC%+*} in -|"${E_DEC%+*}") return 0 ;; esac ;;
		NEIGH)
			# UNREACHABLE -ETIMEDOUT anywhere; once it came, the
			# ID is gone: what the rules expect after it is not
			# delivered, and its failover decision, if traced at
			# all, found it closing
			case ",$G_EV," in
			*,UNREACHABLE/-$ETIMEDOUT,*) ;;
			*) continue ;;
			esac
			# (one per update of the neighbour: two updates, two
			# events, as from the stock CM)
			g=$(echo ",$G_EV," | sed ":a; s/,UNREACHABLE\/-$ETIMEDOUT,/,/; ta; s/^,//; s/,\$//")
			case ",$E_EV," in
			",$g,"*|*",-,") ;;
			*) [ -z "$g" ] || continue ;;
			esac
			case ${G_DEC%+*} in -|none|"${E_DEC%+*}") return 0 ;; esac ;;
		esac
	done
	return 1
}

# mx_settled: every client that should be connected is, where expected.
mx_settled() {
	[ "$ROLE" = b ] || return 0
	mx_conns >/tmp/mx-conns
	awk 'FNR == NR { have[$1] = $3; next }
	     $6 != "-" && !index("|" $6 "|", "|" have[$1] "|") { bad = 1 }
	     END { exit bad }' /tmp/mx-conns /tmp/mx-exp
}

# mx_do ACT: carry out one act of a sequence on this guest.
#   switch:N   bond0's active slave N, both links up (administrative)
#   cut:N / restore:N   link N off / on at both ends (the host's QEMU)
#   flap:N     ethN down and up again at once (mono_watch flap); when slave N
#              was active and bonding did not fail over (miimon missed
#              the flap), bond0 is failed over to the other slave 3 s
#              later, so that both guests end on the same slave (with
#              back-to-back links the bonds have no common path else)
#   down:N / up:N   bond0's slave N down / up (ip link; for IPoIB the
#              interface only: its soft IB port stays ACTIVE)
#   release:N  slave N leaves bond0 (nomaster); enslave:N brings it back
#   A+B        A, then B 3 s later, with no barrier between (both links
#              down: the guests cannot reach each other in between)
mx_do() {
	local what=${1%%:*} n=${1#*:} s
	case $1 in
	*+*)
		mx_do "${1%%+*}"
		nap 3
		mx_do "${1#*+}"
		return ;;
	esac
	s=$(mx_slave "$n")
	case $what in
	switch) bond_activate "$s" ;;
	cut)
		[ "$ROLE" = a ] || host_cmd both "set_link n$n off"
		wait_carrier "eth$n" 0 10 ;;
	restore)
		[ "$ROLE" = a ] || host_cmd both "set_link n$n on"
		wait_carrier "eth$n" 1 30
		[ "$MX_KIND" = lag ] ||
			wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$(mx_dev "$n")/ports/1/state" ||
			fail "$(mx_dev "$n") not ACTIVE again" ;;
	flap)
		mono_watch flap "eth$n" >/dev/null || fail "flap of eth$n"
		if [ "$MX_START_ACTIVE" = "$n" ]; then
			nap 3
			[ "$(mx_active)" != "$n" ] ||
				bond_activate "$(mx_slave $((1 - n)))"
		fi ;;
	down)
		kmsg_mark "mx-if$n-down"
		ip link set "$s" down || fail "cannot take $s down"
		kmsg_mark "mx-if$n-down-done" ;;
	up)
		kmsg_mark "mx-if$n-up"
		ip link set "$s" up || fail "cannot bring $s up"
		wait_carrier "$s" 1 30
		kmsg_mark "mx-if$n-up-done" ;;
	release) ip link set "$s" nomaster || fail "cannot release $s" ;;
	enslave)
		ip link set "$s" down
		ip link set "$s" master bond0 || fail "cannot enslave $s"
		ip link set "$s" up ;;
	*) fail "unknown act $1" ;;
	esac
}

# mx_act: one judged act (MX_ACT): the rows of every column on this side.
mx_act() {
	local i id d cp n peer row e g
	local edec eev ealts ekeep erecon erep els etorn ealive eskip
	local gi gdec gev gkeep grecon
	mx_act=$((mx_act + 1))
	# what this side has when the act begins
	MX_DOWN_AT_START=
	for n in 0 1; do
		read_attr "/sys/class/infiniband/$(mx_dev $n)/ports/1/state"
		[ "$MX_KIND" = lag ] && n=L
		case $ATTR in *ACTIVE*) ;; *) MX_DOWN_AT_START="$MX_DOWN_AT_START $n" ;; esac
	done
	# the slaves' interfaces not running with carrier, and bonding's
	# record of its slaves (what the ARP monitor took out of service)
	MX_IFDOWN_AT_START= MX_BDOWN_AT_START=
	for n in 0 1; do
		read_attr "/sys/class/net/$(mx_slave $n)/operstate"
		[ "$ATTR" = up ] || MX_IFDOWN_AT_START="$MX_IFDOWN_AT_START $n"
	done
	MX_BDOWN_AT_START=$(awk '
		/^Slave Interface: / { s = $3; sub(/^[a-z]*/, "", s) }
		/^MII Status: down/ && s != "" { printf " %s", s }
		/^MII Status: / { s = "" }' /proc/net/bonding/bond0)
	mx_patched && echo >$T/trace
	# the mark comes before the barrier: the peer may act (ask the host
	# for a cut) before this guest leaves it
	T_WIN=$(now)
	kmsg_mark "mx-act$mx_act"
	barrier "mx-act$mx_act"
	# the connections the act finds: taken after the barrier, right
	# before the act (a connection may end or come up while a loaded
	# guest waits in the barrier)
	MX_START_ACTIVE=$(mx_active)
	for i in $(seq "$MX_NCOLS"); do
		eval "mx_id$i= mx_cp$i=- mx_ports$i=-"
	done
	mx_conns >/tmp/mx-conns
	while read -r i id d sp dp; do
		cp=-
		[ "$d" = "$(mx_dev 0)" ] && cp=0
		[ "$d" = "$(mx_dev 1)" ] && cp=1
		# a port on the bond: the slave it went through
		[ "$MX_KIND" = lag ] && cp=$MX_START_ACTIVE
		# a new connection starts aligned, with nothing reported
		eval "[ \"$id\" = \"\${mx_lid$i:-}\" ] || mx_rep$i=1; mx_lid$i=$id"
		eval "mx_id$i=$id mx_cp$i=$cp mx_ports$i=$sp:$dp"
	done </tmp/mx-conns
	for i in $(seq "$MX_NCOLS"); do
		eval "echo \"$i \${mx_col$i%/*} \${mx_col$i#*/} \$mx_cp$i \$mx_rep$i \$mx_ls$i - -\""
	done >/tmp/mx-cols
	log "matrix act $mx_act: $MX_ACT"
	mx_do "$MX_ACT"
	# the kernel's facts settle within a second or two (the hold-off,
	# bonding's miimon, IPoIB's carrier): the rows the clients should
	# reach, then wait for them
	nap 2
	mx_klog
	# until the facts of the peer come: it acted as this side did
	mx_peer_actives /tmp/mx-facts
	mx_rules /tmp/mx-facts "$ROLE" /tmp/mx-cols >/tmp/mx-exp
	boot_secs
	n=$BOOT_SECS
	nap $((MX_MIN_S - 2))
	while ! mx_settled; do
		boot_secs
		[ $((BOOT_SECS - n)) -lt $((MX_MAX_S - MX_MIN_S)) ] || break
		nap 0.5
	done
	# the final facts of both sides: the peer's teardowns, from its own
	# facts by the same rules, are what its DREQ brings to this side
	mx_klog
	sed "s/^/RDMA-HA-DATA: act=$mx_act $MX_ACT fact: /" /tmp/mx-facts
	# QP1 of each device: where the CM's MADs go (a stock rxe QP1 that
	# a failed send moved to ERR flushes every later MAD)
	rdma resource show qp lqpn 1 2>/dev/null |
		sed "s/^/RDMA-HA-DATA: act=$mx_act $MX_ACT qp1: /"
	peer_exchange "mx-end$mx_act" "$(cat /tmp/mx-facts)" 120
	printf '%s\n' "$PEER_DATA" >/tmp/mx-peer-facts
	peer=a
	[ "$ROLE" = a ] && peer=b
	mx_peer_actives /tmp/mx-facts
	mx_rules /tmp/mx-peer-facts $peer /tmp/mx-cols >/tmp/mx-peer-exp
	awk 'FNR == NR { t[$1] = $11 == "-" ? $9 : "skip"; a[$1] = $10; next }
	     { $7 = t[$1]; $8 = a[$1]; print }' /tmp/mx-peer-exp /tmp/mx-cols >/tmp/mx-cols2
	mx_peer_actives /tmp/mx-peer-facts
	mx_rules /tmp/mx-facts "$ROLE" /tmp/mx-cols2 >/tmp/mx-exp
	mx_observed >/tmp/mx-got
	while read -r i edec eev ealts ekeep erecon erep els etorn ealive eskip \
		     gi gdec gev gkeep grecon; do
		eval "c=\$mx_col$i mx_rep$i=$erep mx_ls$i=$els"
		E_DEC=$edec E_EV=$eev E_KEEP=$ekeep E_RECON=$erecon
		E_ALTS=$ealts
		[ "$ealts" = - ] && E_ALTS=
		G_DEC=$gdec G_EV=$gev G_KEEP=$gkeep G_RECON=$grecon
		# the stock kernel traces no decision
		mx_patched || E_DEC=n/a G_DEC=n/a
		if [ "$ROLE" = a ]; then
			E_RECON=- G_RECON=-
		fi
		row="kind=$MX_KIND fom=$MX_FOM seq=$mx_seq act=$MX_ACT col=$c side=$ROLE"
		e="dec=$E_DEC ev=$E_EV${E_ALTS:+ or=$E_ALTS} keep=$E_KEEP recon=$E_RECON"
		g="dec=$G_DEC ev=$G_EV keep=$G_KEEP recon=$G_RECON"
		mx_rows=$((mx_rows + 1))
		if [ "$eskip" != - ]; then
			echo "RDMA-HA-MATRIX: $row exp=($e) got=($g) unjudged: $eskip"
			mx_unjudged=$((mx_unjudged + 1))
		elif mx_match; then
			echo "RDMA-HA-MATRIX: $row exp=($e) got=($g) ok"
		else
			echo "RDMA-HA-MATRIX: $row exp=($e) got=($g) FAILED"
			mx_failed=$((mx_failed + 1))
			mx_evidence "$i"
		fi
	done <<EOF
$(paste -d ' ' /tmp/mx-exp /tmp/mx-got)
EOF
}

# mx_run_seq NAME ACT...: fresh programs (every column connected on
# slave 0's port, bond0 on slave 0, both links up), then the acts.
mx_run_seq() {
	local name=$1 i=0 c
	shift
	mx_seq=$((mx_seq + 1))
	barrier "mx-norm$mx_seq" 120
	mx_normal
	barrier "mx-normed$mx_seq" 120
	for c in $MX_COLS; do
		i=$((i + 1))
		eval "mx_col$i=\$c"
	done
	log "matrix sequence $mx_seq ($name): $*"
	mx_start
	for a; do
		MX_ACT=$a
		mx_act
	done
	barrier "mx-done$mx_seq" 120
	mx_stop_all
	for i in $(seq "$MX_NCOLS"); do
		sed "s/^/RDMA-HA-DATA: seq=$mx_seq col=$i log: /" /tmp/mx$i.log | tail -n 40
	done
}

# The sequences.  Each is a lifecycle a real bond goes through, from a
# healthy bond on slave 0:
#   switch     administrative failover with both links up, a 50 ms flap
#              of the backup link (where the kept connections sit), a
#              cut and a restore of the backup link, the fail-back
#   cut        cut of the active link, its restore (the bond stays on
#              slave 1), a 50 ms flap of the new active link
#   both-down  both links down (the second cut and the restore of the
#              first link are one act: no barrier without a link), then
#              the other back
#   slaves-down  the same with the slaves taken down (ip link): on the
#              IPoIB bond the connections' ports stay ACTIVE, and the bond
#              recovers from having no active slave onto a healthy path
#              (issue 17, item 1)
#   release    release of the active slave, and its re-enslavement
mx_sequences() {
	local s
	for s in ${MX_SEQS:-switch cut both-down slaves-down release}; do
		case $s in
		switch) mx_run_seq switch switch:1 flap:0 cut:0 restore:0 switch:0 ;;
		cut) mx_run_seq cut cut:0 restore:0 flap:1 ;;
		both-down) mx_run_seq both-down cut:0 cut:1+restore:0 restore:1 ;;
		slaves-down) mx_run_seq slaves-down down:0 down:1+up:0 up:1 ;;
		release) mx_run_seq release release:0 enslave:0 ;;
		*) fail "unknown sequence $s" ;;
		esac
	done
}

mx_finish() {
	log "matrix: $mx_rows rows, $mx_failed failed, $mx_unjudged unjudged"
	echo "RDMA-HA-MEASURE: matrix rows=$mx_rows failed=$mx_failed unjudged=$mx_unjudged"
	[ "$mx_failed" = 0 ] || fail "$mx_failed matrix rows not as the rules say"
	log "all rows as the rules say"
	exit 0
}
