#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the IPoIB connected-mode scenarios (ipoib_cm_*.sh), on top
# of lib.sh.  Sourced after lib.sh.
#
# Topology: a soft InfiniBand device sib0 on eth0 of each guest, IPoIB
# ib0 on it in connected mode with 198.18.10.N; eth1 carries plain IP
# (198.18.0.N) for the barriers, so that cutting eth0 or restarting sib0
# leaves them working.  A guest that is restarted (host_restart) gets the
# same MACs, hence the same eth1 address and sib0 GUID and LID, and its
# barriers carry on where it left them.

IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM

need_cmd rdma ethtool

# busybox runs its own applets first: the real iproute2 tc, by path
tc() { /usr/sbin/tc "$@"; }

# ib_up POLICY INTERVAL_MS PROBES: sib0 on eth0, ib0 in connected mode with
# the QP type policy and keepalive settings, addressed and up.
ib_up() {
	sib_add sib0 eth0
	ib_config "$@"
}

# ib_connected_up: ib0 in connected mode with the 65520 MTU, addressed, up.
ib_connected_up() {
	echo connected >/sys/class/net/ib0/mode || fail "connected mode"
	ip link set ib0 mtu 65520 || fail "mtu 65520"
	ip addr add "$IB_IP/24" dev ib0 2>/dev/null
	ip link set ib0 up || fail "ib0 up"
}

# ib_config POLICY INTERVAL_MS PROBES: configure an existing ib0.
ib_config() {
	local d=/sys/class/net/ib0
	echo "$1" >$d/cm_qp_type || fail "cm_qp_type $1"
	echo "$2" >$d/cm_keepalive_interval_ms || fail "keepalive interval $2"
	echo "$3" >$d/cm_keepalive_probes || fail "keepalive probes $3"
	ib_connected_up
	log "ib0: $(cat $d/mode) $(cat $d/cm_qp_type) keepalive" \
	    "$(cat $d/cm_keepalive_interval_ms) ms x $(cat $d/cm_keepalive_probes)" \
	    "address $(cat $d/address)"
}

# ib_stock_up: on a guest with the replacement modules (Debian's kernel),
# the distribution's own ib_ipoib in place of ours, then sib0 on eth0 and
# ib0 in connected mode, addressed and up: the stock driver.
ib_stock_up() {
	distribution_modules ib_ipoib
	sib_add sib0 eth0
	[ ! -e /sys/class/net/ib0/cm_qp_type ] ||
		fail "the stock ib0 has cm_qp_type"
	ib_connected_up
	log "ib0: stock ib_ipoib of $(uname -r), rdma_rxe" \
	    "$(cat /sys/module/rdma_rxe/version), $(cat /sys/class/net/ib0/mode)" \
	    "address $(cat /sys/class/net/ib0/address)"
}

# ib_policy POLICY: change the QP type policy of ib0.
ib_policy() {
	echo "$1" >/sys/class/net/ib0/cm_qp_type || fail "cm_qp_type $1"
	log "ib0: cm_qp_type $(cat /sys/class/net/ib0/cm_qp_type)" \
	    "address $(cat /sys/class/net/ib0/address)"
}

# cm_stat NAME [DEFAULT]: a connected-mode counter of ib0 (ethtool -S).
# An absent counter is DEFAULT if given (a stock driver, which has none),
# else a failure: "absent?" is no number, so a test(1) of it fails and
# shell arithmetic on it stops the scenario, where a 0 would pass every
# "-eq 0".
cm_stat() {
	ethtool -S ib0 2>/dev/null |
		awk -v n="$1:" -v d="${2-}" '
			$1 == n { v = $2; found = 1 }
			END {
				if (found)
					print v + 0
				else if (d != "")
					print d
				else
					print "absent?"
			}'
}

# cm_stats [TAG]: log the connected-mode counters.
cm_stats() {
	log "counters${1:+ $1}: $(ethtool -S ib0 2>/dev/null |
		awk '$1 ~ /^cm_/ { sub(":", "=", $1); printf "%s%s ", $1, $2 }')"
}

# nc_recv PORT FILE [TIMEOUT]: receive one TCP connection into FILE
# (busybox nc).  Its stdin is a FIFO opened read-write, which never ends:
# nc stops reading the network once its stdin ends.
nc_recv() {
	[ -p /tmp/nc-stdin ] || mkfifo /tmp/nc-stdin
	timeout "${3:-120}" nc -l -p "$1" <>/tmp/nc-stdin >"$2"
}

# wire_stats TAG: log what the layers under ib0 dropped or counted: the
# soft device's port counters (non-zero), ib0 and eth0 statistics, the
# backlog drops of the network stack.
wire_stats() {
	local f v hw= d=0 a b rest
	for f in /sys/class/infiniband/sib0/ports/1/hw_counters/*; do
		v=$(cat "$f" 2>/dev/null)
		[ "${v:-0}" = 0 ] || hw="$hw $(basename "$f")=$v"
	done
	log "wire $1: sib0:$hw"
	log "wire $1: ib0 $(ip -s link show ib0 | awk 'NR == 4 || NR == 6' | tr -s ' ' | tr '\n' '/')"
	log "wire $1: eth0 $(ip -s link show eth0 | awk 'NR == 4 || NR == 6' | tr -s ' ' | tr '\n' '/')"
	while read -r a b rest; do
		d=$((d + 0x$b))
	done </proc/net/softnet_stat
	log "wire $1: backlog drops $d"
}

# expect NAME OP VALUE: check a counter (OP is a test(1) operator).
expect() {
	local v
	v=$(cm_stat "$1")
	if [ "$v" "$2" "$3" ] 2>/dev/null; then
		log "ok: $1 = $v ($2 $3)"
	else
		log "FAIL: $1 = $v, expected $2 $3"
		res=1
	fi
}

# pings COUNT ADDR: ping, log the summary, succeed when nothing was lost.
pings() {
	ping -c "$1" -i 0.05 -W 2 "$2" >/tmp/pings.log 2>&1
	tail -n 2 /tmp/pings.log | head -n 1
	grep -q ' 0% packet loss' /tmp/pings.log
}

# transfer NAME MB: a TCP transfer of MB MiB of random data from a to b
# over ib0 (busybox nc), verified with md5sum on both ends.
_xfer_seq=0
transfer() {
	local port sum
	_xfer_seq=$((_xfer_seq + 1))
	port=$((9000 + 2 * _xfer_seq))
	if [ "$ROLE" = b ]; then
		rm -f /tmp/rx-$1
		nc_recv $port /tmp/rx-$1 &
		local srv=$!
		# a connects once: listening before the barrier ends
		wait_for 15 tcp_listening $port ||
			{ log "FAIL: no listener on port $port"; res=1; }
		barrier "xfer-$1"
		wait $srv
		sum=$(md5sum </tmp/rx-$1 | cut -d' ' -f1)
		log "received $(wc -c </tmp/rx-$1) bytes md5 $sum"
		barrier "xfer-$1-sum"
		# retried: the barrier can end before the peer's listener
		# is up ("Connection refused", the transfer unverified)
		echo "$sum" | _nc_send $((port + 1)) 10 ||
			log "could not send the checksum"
	else
		dd if=/dev/urandom of=/tmp/tx-$1 bs=1048576 count="$2" 2>/dev/null
		sum=$(md5sum </tmp/tx-$1 | cut -d' ' -f1)
		barrier "xfer-$1"
		sleep 0.5
		local t0=$(now)
		timeout 120 nc "$PEER_IB" $port </tmp/tx-$1 ||
			log "nc to $PEER_IB:$port failed"
		log "sent $(wc -c </tmp/tx-$1) bytes md5 $sum in $(rel "$t0" "$(now)") s"
		nc_recv $((port + 1)) /tmp/sum-$1 30 &
		local lp=$!
		barrier "xfer-$1-sum"
		wait $lp
		if [ "$(cat /tmp/sum-$1)" = "$sum" ]; then
			log "ok: transfer $1 verified ($2 MiB)"
		else
			log "FAIL: transfer $1: peer got md5 '$(cat /tmp/sum-$1)', sent $sum"
			res=1
		fi
	fi
}

# ka_trace_on: record the keepalive trace points of ib_ipoib, stamped with
# CLOCK_MONOTONIC (the clock of "now").
ka_trace_on() {
	local t=/sys/kernel/tracing
	[ -d $t/events/ib_ipoib ] || fail "no ib_ipoib trace events"
	echo mono >$t/trace_clock
	echo 4096 >$t/buffer_size_kb
	echo >$t/trace
	echo 1 >$t/events/ib_ipoib/enable
	echo 1 >$t/tracing_on
}

# ka_rc_qpn EVENT: after ka_trace_on, the QP number of the last RC
# connection of ib0 that the ib_ipoib trace event EVENT names within 5 s
# (empty if none); the events are off again afterwards.
ka_rc_qpn() {
	local t=/sys/kernel/tracing
	wait_for 5 grep -q "$1: ib0 qpn=0x[0-9a-f]* RC" $t/trace
	sed -n "s/.*$1: ib0 qpn=\(0x[0-9a-f]*\) RC.*/\1/p" $t/trace | tail -n 1
	echo 0 >$t/events/ib_ipoib/enable
}

# KA_TRACE_LINE: the first rule of the awk programs that read the trace:
# ts (the CLOCK_MONOTONIC stamp), ev (the event, with its colon) and q
# (the connection: qpn=0x...) of each line.
KA_TRACE_LINE='
	{
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				break
		ts = substr($i, 1, length($i) - 1) + 0
		ev = $(i + 1)
		q = $(i + 3)
	}'

# ka_bounds: the keepalive bounds ib0's connections use, as the kernel
# reports them (an RC connection raises its interval to hold its
# transport's retransmissions, the receive side one ACK timeout step
# more: 1000 ms x 3 stays 3 s on the send side and is 4.3 s on the
# receive side of the soft device): KA_TX_BOUND and KA_RX_BOUND in
# seconds, 0 without such a connection, and bound, the longer one in
# whole seconds rounded up.  Read while the connections are up, before a
# fault ends them.
ka_bounds() {
	local tx rx
	read -r tx </sys/class/net/ib0/cm_keepalive_tx_bound_ms || tx=0
	read -r rx </sys/class/net/ib0/cm_keepalive_rx_bound_ms || rx=0
	KA_TX_BOUND=$(awk -v b="$tx" 'BEGIN { printf "%.3f", b / 1000 }')
	KA_RX_BOUND=$(awk -v b="$rx" 'BEGIN { printf "%.3f", b / 1000 }')
	bound=$(( ((tx > rx ? tx : rx) + 999) / 1000 ))
	log "keepalive bounds in use: send side $KA_TX_BOUND s," \
	    "receive side $KA_RX_BOUND s"
}

# ka_detect KIND T0 WHAT: from the trace, the first KIND_dead event
# (KIND: tx or rx) after T0 and the last sign of life of the same
# connection before it (a probe answered for tx, a probe received for
# rx).  Logs the delay from T0 (the moment the fault was requested; the
# host carries it out a little later) and from that last sign of life,
# which must be within the bound the kernel reported for KIND
# connections before the fault (ka_bounds: KA_TX_BOUND or KA_RX_BOUND)
# plus KA_SLACK s.  The keepalive task is armed for the very deadline;
# the slack is the guest's timer and workqueue latency under TCG on a
# shared 2-core host: seen up to 0.25 s (the receive side of the guest
# whose own link was cut, debug and KASAN kernels); 0.8 s on KASAN, still
# under one 1 s interval, so a detection an interval late fails.
# It must not be early either (a peer declared dead after one of three
# silent intervals would pass an upper bound alone): the receive side
# declares a peer dead only after its bound of silence, the send side
# probes only after an interval (its bound / probes) of silence and may
# end sooner than the bound only when that probe's retries ran out; both
# at most KA_EARLY s before (the time stamps' clock ticks in 4 ms steps).
KA_SLACK=0.4
dmesg | grep -q 'KernelAddressSanitizer initialized' && KA_SLACK=0.8
KA_EARLY=0.1
ka_detect() {
	local life=probe_received r dead last d dl probes min b
	[ "$1" = tx ] && life=answered
	read -r probes </sys/class/net/ib0/cm_keepalive_probes
	if [ "$1" = tx ]; then
		b=${KA_TX_BOUND:-0}
		min=$(awk -v b="$b" -v p="$probes" -v e=$KA_EARLY \
			'BEGIN { print b / p - e }')
	else
		b=${KA_RX_BOUND:-0}
		min=$(awk -v b="$b" -v e=$KA_EARLY 'BEGIN { print b - e }')
	fi
	r=$(awk -v t0="$2" -v dead="ipoib_cm_ka_$1_dead:" \
		-v life="ipoib_cm_ka_$life:" "$KA_TRACE_LINE"'
		ev == life { last[q] = ts }
		ev == dead && ts >= t0 && !found {
			found = 1
			printf "%.6f %.6f\n", ts, (q in last) ? last[q] : 0
		}' /sys/kernel/tracing/trace)
	dead=${r%% *} last=${r##* }
	d=$(rel "$2" "$dead")
	dl=none
	[ -z "$last" ] || [ "$last" = 0.000000 ] || dl=$(rel "$last" "$dead")
	log "$3: peer declared dead $d s after the fault was requested," \
	    "$dl s after its last answer (bound $b s)"
	echo "RDMA-HA-MEASURE: $3 since-fault=$d since-last-life=$dl bound=$b"
	if awk -v b="$b" 'BEGIN { exit !(b + 0 <= 0) }'; then
		log "FAIL: $3: no $1 keepalive bound was reported before the fault"
		res=1
	elif [ -z "$r" ] || [ "$dl" = none ] ||
	   awk -v d="$dl" -v b="$b" -v s=$KA_SLACK \
		'BEGIN { exit !(d + 0 > b + s) }'; then
		log "FAIL: $3 not detected within the bound"
		res=1
	elif awk -v d="$dl" -v m="$min" 'BEGIN { exit !(d + 0 < m + 0) }'; then
		log "FAIL: $3 declared dead $dl s after its last sign of life, before the $min s it may ($b s bound, $probes probes)"
		res=1
	fi
}

# probes_ok N T0 T1: N probes, sent at one per 1 s interval between the
# times T0 and T1 (now), are as many as the whole seconds between them,
# +-2.  The window is measured, not assumed: on the KASAN kernel of a
# loaded host a "sleep 10" and the eight counter reads around it took 17 s
# of the guest's clock.
probes_ok() {
	local ms lo hi
	ms=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%d", (b - a) * 1000 }')
	lo=$((ms / 1000 - 2)) hi=$(((ms + 999) / 1000 + 2))
	log "$1 probes in $ms ms (one per second: $lo to $hi)"
	[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ]
}

# ka_wait_dead TX0 RX0: until cm_ka_tx_dead exceeds TX0 (not looked at if
# TX0 is -) and cm_ka_rx_dead exceeds RX0, at most the bound and 30 s (a
# loaded KASAN guest is seconds late: a fixed bound + 3 s was a guess),
# then one interval more, in which a second declaration would show.  The
# detection times are the trace's (ka_detect), not this wait's.
_ka_dead_seen() {
	{ [ "$1" = - ] || [ "$(cm_stat cm_ka_tx_dead)" -gt "$1" ]; } &&
		[ "$(cm_stat cm_ka_rx_dead)" -gt "$2" ]
}
ka_wait_dead() {
	wait_for $((bound + 30)) _ka_dead_seen "$1" "$2" ||
		log "no dead peer declared within $((bound + 30)) s"
	sleep 1
}

# ka_dead_checks WHAT: the peer stopped at $t0 (without a word), with
# the bounds read by ka_bounds before; wait for the bound, then both sides of the connection to it were declared
# dead within the bound, each exactly once since the counters were $p0
# (send side) and $r0 (receive side).  Sets res=1 if not.
ka_dead_checks() {
	ka_wait_dead "$p0" "$r0"
	ka_detect tx "$t0" "$policy-$1-send-side"
	ka_detect rx "$t0" "$policy-$1-receive-side"
	[ "$(cm_stat cm_ka_tx_dead)" -eq $((p0 + 1)) ] &&
	[ "$(cm_stat cm_ka_rx_dead)" -eq $((r0 + 1)) ] ||
		{ log "FAIL: not exactly one dead peer per side"; res=1; }
}

# ib_ids: "GUID,LID,QPN": sib0's node GUID and LID and the number of the
# UD QP of ib0 (bytes 2-4 of its hardware address), which together make
# the address peers know this node by.
ib_ids() {
	local a
	a=$(cat /sys/class/net/ib0/address)
	echo "$(tr -d : </sys/class/infiniband/sib0/node_guid)" \
	     "$(cat /sys/class/infiniband/sib0/ports/1/lid)" \
	     "0x$(echo "$a" | cut -d: -f2-4 | tr -d :)" | tr ' ' ,
}

# ids_same WHAT BEFORE AFTER: log and compare two ib_ids.
ids_same() {
	log "$1: GUID,LID,QPN before $2, after $3"
	[ -n "$2" ] && [ "$2" = "$3" ] && return 0
	log "FAIL: $1: GUID, LID or UD QPN changed"
	res=1
}

# ka_crash_armed: silence the wire under sib0 (netem drops everything) and
# wait until a keepalive probe of this guest's RC send side is outstanding,
# so that the crash that follows finds it.  A probe sent just before the
# port goes down never completes; the connection must be flushed, not
# waited for while the interface is torn down (its CQs and SRQ destroyed
# under its QP).
#
# Outstanding means: the last probe in the trace has no answer and is at
# least KA_UNANSWERED s old (an answer takes milliseconds).  Counting
# probes sent since the silence is not enough: one posted in the moment
# before the counter is read is missed, and as only one probe is in
# flight at a time, no other follows it.
KA_UNANSWERED=0.3
ka_crash_armed() {
	if ! tc qdisc add dev eth0 root netem loss 100% 2>/dev/null; then
		log "FAIL: no netem to drop the wire (CONFIG_NET_SCH_NETEM)"
		res=1
		return
	fi
	if wait_for 5 _probe_outstanding; then
		log "crash armed: probe of $(_probe_outstanding -v) unanswered"
	else
		log "FAIL: no unanswered keepalive probe within 5 s of the silence"
		cm_stats
		log "the last keepalive events:"
		grep ipoib_cm_ka /sys/kernel/tracing/trace | tail -n 8
		res=1
	fi
}

# _probe_outstanding [-v]: succeed when the last keepalive probe in the
# trace is unanswered and at least KA_UNANSWERED s old; -v prints its
# connection and age.
_probe_outstanding() {
	awk -v now="$(now)" -v min=$KA_UNANSWERED -v verbose="${1:-}" \
		"$KA_TRACE_LINE"'
		ev == "ipoib_cm_ka_probe:" { sent[q] = ts; last = q }
		ev == "ipoib_cm_ka_answered:" { delete sent[q] }
		END {
			if (last == "" || !(last in sent) || now - sent[last] < min)
				exit 1
			if (verbose)
				printf "%s, sent %.3f s ago\n", last, now - sent[last]
		}' /sys/kernel/tracing/trace
}

# ka_scenario POLICY: keepalives of POLICY (rc or uc) connections with a
# 1 s interval and 3 probes (bound 3 s, or what the kernel raised it to:
# ka_bounds):
#  - an idle connection costs one probe per interval (and, on UC, one
#    reply);
#  - link cut without failover (set_link off on guest b's eth0 only, so
#    that a's port stays up and nothing but keepalives can tell a): a
#    detects the dead peer within the bound on the send and the receive
#    side (b's own send side goes with its port, its receive side is
#    watched); traffic resumes when the link is back;
#  - crash and re-add of guest b's soft IB device (link off, rdma link
#    delete, re-add with the same GUID and QPN layout): a detects it
#    within the bound on both sides while idle, and traffic resumes; on
#    RC, b crashes with one of its own probes outstanding (ka_crash_armed)
#    and its device must go promptly and cleanly;
#  - power cut and reboot of guest b (host_restart: its QEMU is killed
#    and started again; nothing is shut down, no DREQ goes out): a
#    detects it within the bound on both sides while b is down; b's
#    second boot (BOOT=2) skips the phases above, brings sib0 up with the
#    same GUID, LID and UD QPN (checked on both guests against what b had
#    before) and rejoins; traffic resumes.
# Detection is measured with the keepalive trace points (ka_detect).
ka_scenario() {
	local policy=$1 bound=5 t0 t1 p0 p1 r0 r1 n0 n1 e0 e1 addr0 addr1 ids0 ids1
	res=0
	if [ "$ROLE" = b ] && [ "$BOOT" -gt 1 ]; then
		ka_rebooted "$policy"
		return $?
	fi
	nic_setup eth1 "$MY_IP"
	ib_up "$policy" 1000 3
	echo 1 >/sys/module/ib_ipoib/parameters/debug_level
	dmesg -n 8
	ka_trace_on
	barrier up
	wait_ping "$PEER_IB" 60
	[ "$ROLE" = a ] && { pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
	barrier pinged
	cm_stats start
	expect cm_tx_${policy}_conns -eq 1
	expect cm_rx_${policy}_conns -eq 1

	# ---- idle cost ----
	# counted from after the barrier: the wait there is not idle time
	barrier idle
	p0=$(cm_stat cm_ka_probes_sent) t0=$(now)
	r0=$(cm_stat cm_ka_replies_received)
	n0=$(cm_stat cm_ka_runs) e0=$(cm_stat cm_ka_examined)
	sleep 10
	t1=$(now) p1=$(cm_stat cm_ka_probes_sent)
	r1=$(cm_stat cm_ka_replies_received)
	n1=$(cm_stat cm_ka_runs) e1=$(cm_stat cm_ka_examined)
	log "idle 10 s, 1 send-side connection: $((p1 - p0)) probes sent," \
	    "$((r1 - r0)) replies received"
	echo "RDMA-HA-MEASURE: ${policy}-idle-probes-per-10s $((p1 - p0))"
	probes_ok $((p1 - p0)) "$t0" "$t1" ||
		{ log "FAIL: not one probe per interval"; res=1; }
	# The keepalive task looks at the connections that are due, not at
	# all of them: of the two here (send side, due every interval, and
	# receive side, due once per bound of silence at most), one per run
	# as a rule, and each probe sent needs one look.  A task that walks
	# every connection looks at exactly 2 per run.
	log "keepalive task: $((n1 - n0)) runs looked at $((e1 - e0)) connections"
	echo "RDMA-HA-MEASURE: ${policy}-idle-task-runs $((n1 - n0)) examined $((e1 - e0))"
	[ -n "$e1" ] && [ $((e1 - e0)) -ge $((p1 - p0)) ] &&
	[ $((2 * (e1 - e0))) -lt $((3 * (n1 - n0))) ] ||
		{ log "FAIL: the keepalive task looked at connections that were not due"; res=1; }
	if [ "$policy" = uc ]; then
		[ $((r1 - r0)) -ge 8 ] || { log "FAIL: probes unanswered"; res=1; }
	fi
	expect cm_ka_tx_dead -eq 0
	expect cm_ka_rx_dead -eq 0

	# ---- link cut, no failover ----
	ka_bounds
	p0=$(cm_stat cm_ka_tx_dead) r0=$(cm_stat cm_ka_rx_dead)
	barrier cut
	t0=$(now)
	[ "$ROLE" = a ] && host_cmd peer "set_link n0 off"
	if [ "$ROLE" = a ]; then ka_wait_dead "$p0" "$r0"; else ka_wait_dead - "$r0"; fi
	[ "$ROLE" = a ] && ka_detect tx "$t0" "$policy-linkcut-send-side"
	ka_detect rx "$t0" "$policy-linkcut-receive-side"
	cm_stats after-cut
	barrier cut-done
	[ "$ROLE" = a ] && host_cmd peer "set_link n0 on"
	wait_for 20 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state ||
		{ log "FAIL: sib0 not ACTIVE again"; res=1; }
	t0=$(now)
	wait_ping "$PEER_IB" 60
	log "link back: ping answered after $(rel "$t0" "$(now)") s"
	[ "$ROLE" = a ] && { pings 20 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
	barrier relinked
	expect cm_tx_${policy}_conns -eq 1
	# ka_detect measures from the last keepalive sign of life of a
	# connection: let the new ones go idle and be probed first, or the
	# pings above are their last sign of life, which it does not see
	sleep 3

	# ---- crash and re-add of b's device ----
	if [ "$ROLE" = a ]; then
		p0=$(cm_stat cm_ka_tx_dead) r0=$(cm_stat cm_ka_rx_dead)
		ka_bounds
		barrier readd
		t0=$(now)
		ka_dead_checks readd
		# b re-adds its device once a has seen it dead
		barrier readd-detected 120
		barrier readded 120
		t0=$(now)
		wait_ping "$PEER_IB" 60
		log "device back: ping answered after $(rel "$t0" "$(now)") s"
		echo "RDMA-HA-MEASURE: $policy-readd-resume $(rel "$t0" "$(now)")"
		pings 20 "$PEER_IB" || { log "FAIL: ping after re-add"; res=1; }
	else
		addr0=$(cat /sys/class/net/ib0/address)
		barrier readd
		# a crash: nothing more goes out (no DREQ), then the device
		# comes back with the same GUID, LID and QP numbers
		[ "$policy" = rc ] && ka_crash_armed
		host_cmd self "set_link n0 off"
		wait_for 30 grep -q DOWN /sys/class/infiniband/sib0/ports/1/state ||
			fail "sib0 not DOWN after set_link off"
		ka_delete_device
		tc qdisc del dev eth0 root 2>/dev/null
		sleep $((bound + 3))
		barrier readd-detected 120
		if dmesg | grep -q 'sends not completed'; then
			log "FAIL: a connection waited for its sends at the crash"
			res=1
		fi
		host_cmd self "set_link n0 on"
		ib_up "$policy" 1000 3
		addr1=$(cat /sys/class/net/ib0/address)
		log "address before $addr0, after $addr1"
		[ "$addr0" = "$addr1" ] ||
			{ log "FAIL: the re-added device has another address"; res=1; }
		barrier readded 120
	fi
	barrier readd-resumed 120
	expect cm_tx_${policy}_conns -eq 1
	sleep 3

	# ---- power cut and reboot of guest b ----
	peer_exchange reboot-ids "$(ib_ids)"
	if [ "$ROLE" = b ]; then
		barrier reboot
		# from here on this boot does nothing: the host kills it
		host_restart self "ka_ids=$(ib_ids)" "ka_res=$res"
		sleep 600
		fail "the host did not restart this guest"
	fi
	ids0=$PEER_DATA
	p0=$(cm_stat cm_ka_tx_dead) r0=$(cm_stat cm_ka_rx_dead)
	ka_bounds
	barrier reboot
	t0=$(now)
	ka_dead_checks reboot
	cm_stats after-reboot-detect
	# b's second boot: up to the barrier, then sib0 and ib0
	barrier rebooted 240
	log "peer rebooted: barrier reached $(rel "$t0" "$(now)") s after the power cut"
	peer_exchange reboot-ids-after "" 120
	ids1=$PEER_DATA
	ids_same "peer after its reboot" "$ids0" "$ids1"
	t1=$(now)
	wait_ping "$PEER_IB" 60
	log "peer back: ping answered $(rel "$t1" "$(now)") s after its ib0 came up," \
	    "$(rel "$t0" "$(now)") s after the power cut"
	echo "RDMA-HA-MEASURE: $policy-reboot-resume since-ib-up=$(rel "$t1" "$(now)")" \
	     "since-power-cut=$(rel "$t0" "$(now)")"
	pings 20 "$PEER_IB" || { log "FAIL: ping after the reboot"; res=1; }
	ka_resumed
	return $res
}

# ka_delete_device: `rdma link delete sib0` after a crash (the wire is
# gone, sends are outstanding): the device goes without waiting for
# anything the dead wire would have to answer.  Such a wait is one of
# IPoIB's 5 s timeouts ("sends not completed", "RX drain timing out",
# "sends ... receives not completed"), none of which may show; the delete
# takes at most 3 s, 10 s on a KASAN kernel (a loaded host has been seen
# to stretch KASAN's 0.6 s beyond 3 s).  A delete still running after 2 s
# has its stack and the blocked tasks printed, so that a slow one can be
# told from a waiting one.
ka_delete_device() {
	local t1 pid max=3 msgs='sends not completed|RX drain timing out|receives not completed'
	dmesg | grep -q 'KernelAddressSanitizer initialized' && max=10
	t1=$(now)
	rdma link delete sib0 &
	pid=$!
	(
		sleep 2
		[ -d /proc/$pid ] || exit 0
		log "rdma link delete still running after 2 s; its stack:"
		cat /proc/$pid/stack 2>/dev/null
		echo w >/proc/sysrq-trigger
	) &
	wait $pid || fail "rdma link delete sib0"
	t1=$(rel "$t1" "$(now)")
	log "rdma link delete took $t1 s (at most $max s)"
	awk -v d="$t1" -v m=$max 'BEGIN { exit !(d + 0 > m) }' &&
		{ log "FAIL: deleting the device took over $max s"; res=1; }
	if dmesg | grep -Eq "$msgs"; then
		dmesg | grep -E "$msgs"
		log "FAIL: the delete waited for the dead wire"
		res=1
	fi
}

# ka_rebooted POLICY: guest b's second boot in ka_scenario: rejoin at the
# barrier after the power cut, bring sib0 and ib0 up again, check that
# they have the GUID, LID and UD QPN of the first boot.
ka_rebooted() {
	local policy=$1 ids
	res=${RDMA_HA_KA_RES:-1}
	[ "$res" = 0 ] || log "FAIL: the first boot failed (res=$res)"
	log "boot $BOOT after a power cut; before it sib0 had GUID,LID,QPN" \
	    "${RDMA_HA_KA_IDS:-unknown}; barriers carry on after $_barrier_seq"
	nic_setup eth1 "$MY_IP"
	barrier rebooted 240
	ib_up "$policy" 1000 3
	echo 1 >/sys/module/ib_ipoib/parameters/debug_level
	dmesg -n 8
	ka_trace_on
	ids=$(ib_ids)
	ids_same "this guest after its reboot" "${RDMA_HA_KA_IDS:-}" "$ids"
	peer_exchange reboot-ids-after "$ids" 120
	ka_resumed
	return $res
}

# ka_resumed: ka_scenario's last barrier and checks.
ka_resumed() {
	barrier resumed 120
	cm_stats end
	expect cm_tx_${policy}_conns -eq 1
}

# ka_foreign_peer: RC keepalives towards a peer that follows RFC 4755
# alone and grants no remote write on its receive QPs (illumos ibd; here
# b with debugfs ipoib_cm_foreign_rx): a's RC connection to it, made
# afresh (a's ib0 goes down and up), carries pings after each of three
# idle periods of 3 keepalive intervals (1 s x 3) without being torn
# down: no send-side connection failed or declared dead, not a ping lost.
# a may learn that the peer refuses RDMA WRITEs once, before any data
# went out on the connection, and then never probes it.  About 20 s.
ka_foreign_peer() {
	local knob=/sys/kernel/debug/ipoib_cm_foreign_rx f0 d0 w0 p0 i t0
	if [ "$ROLE" = b ]; then
		[ -f $knob ] || { log "FAIL: no $knob"; res=1; return; }
		echo Y >$knob
	fi
	barrier foreign
	if [ "$ROLE" = a ]; then
		ip link set ib0 down
		ip link set ib0 up
		f0=$(cm_stat cm_tx_failed) d0=$(cm_stat cm_ka_tx_dead)
		w0=$(cm_stat cm_ka_write_refused 0)
		# the first packet waits for the connection (and, with the
		# peer's refusal, for the next one): it must not be dropped.
		# ib0 has carrier once the broadcast group is joined; ARP
		# before that may give up on a slow guest (3 solicitations
		# 1 s apart), so wait for it rather than for a fixed time.
		t0=$(now)
		wait_carrier ib0 1 30
		log "ib0 has carrier $(rel "$t0" "$(now)") s after up"
		t0=$(now)
		if ping -c 1 -W 10 "$PEER_IB" >/dev/null; then
			log "first ping answered after $(rel "$t0" "$(now)") s"
		else
			log "FAIL: the first ping to the foreign peer was lost"
			res=1
			ip neigh show dev ib0
			cm_stats foreign-lost
			dmesg | tail -40
		fi
		wait_ping "$PEER_IB" 60
		p0=$(cm_stat cm_ka_probes_sent)
		for i in 1 2 3; do
			sleep 3
			pings 10 "$PEER_IB" ||
				{ log "FAIL: ping after idle period $i to the foreign peer"; res=1; }
		done
		cm_stats foreign
		log "foreign peer: $(($(cm_stat cm_ka_probes_sent) - p0)) probes" \
		    "in 3 idle periods, $(($(cm_stat cm_ka_write_refused 0) - w0))" \
		    "RDMA WRITE refusals"
		expect cm_tx_failed -eq "$f0"
		expect cm_ka_tx_dead -eq "$d0"
		expect cm_tx_rc_conns -eq 1
	fi
	barrier foreign-done
	[ "$ROLE" = b ] && echo N >$knob
	return 0
}

# ka_foreign_close_first: the foreign peer of ka_foreign_peer (b with
# debugfs ipoib_cm_foreign_rx) closes a's new RC connection before the
# NAK of a's RDMA WRITE gets back: b's soft IB device loses that NAK
# (debugfs rxe/sib0/drop "nak 1"), its QP goes to the error state all the
# same, and b's IPoIB tears the connection down (a REJ before the RTU, a
# DREQ after it), which a's CM handles while the write is outstanding;
# the write then completes flushed (status 5), not refused.  The first
# ping, which waited for that connection, must go out on the next one
# (where the write is refused, as in ka_foreign_peer: a records one
# refusal, and no third write is tried), not be freed with the first
# connection's neighbour.  An attempt counts when the first write
# completed flushed; one whose write ran out of retries first (status
# 12: b's teardown came after 8 ACK timeouts) is made again, at most 3
# times.  A lost ping fails in any attempt.  b first checks that bad
# lines written to the knob are refused and arm nothing.  About 10 s.
_ka_naks_left() { awk '$1 == "nak" { print $2 }' /sys/kernel/debug/rxe/sib0/drop; }
ka_foreign_close_first() {
	local knob=/sys/kernel/debug/ipoib_cm_foreign_rx
	local naks=/sys/kernel/debug/rxe/sib0/drop i v=again
	if [ "$ROLE" = b ]; then
		[ -f $knob ] || { log "FAIL: no $knob"; res=1; return; }
		[ -f $naks ] || { log "FAIL: no $naks"; res=1; return; }
		# bad lines get an errno and arm nothing
		for i in "sib0 nak 1" "" "nak" "nak x" "nak -1" "naks 1"; do
			if echo "$i" 2>/dev/null >$naks; then
				log "FAIL: $naks took '$i'"
				res=1
			fi
		done
		[ "$(_ka_naks_left)" = 0 ] ||
			{ log "FAIL: $naks armed by a bad line: $(tr '\n' ' ' <$naks)"; res=1; }
		echo Y >$knob
	fi
	for i in 1 2 3; do
		[ "$ROLE" = b ] && echo "nak 1" >$naks
		barrier close-first-$i
		if [ "$ROLE" = a ]; then
			v=$(_ka_close_first_try)
			log "close-first attempt $i: $v"
		fi
		peer_exchange close-first-$i "$v"
		if [ "$ROLE" = b ]; then
			v=$PEER_DATA
			log "close-first attempt $i: NAKs still to lose: $(_ka_naks_left)"
		fi
		case "$v" in ok*|FAIL*) break ;; esac
	done
	case "$v" in
	ok*) ;;
	FAIL*) [ "$ROLE" = a ] && res=1 ;;
	*) [ "$ROLE" = a ] &&
		{ log "FAIL: the peer's teardown never came before the write's retries ran out"; res=1; } ;;
	esac
	if [ "$ROLE" = b ]; then
		echo "nak 0" >$naks
		echo N >$knob
	fi
	barrier close-first-done
	return 0
}

# _ka_close_first_try: one attempt of ka_foreign_close_first on a;
# prints "ok: ...", "FAIL: ..." or "again: ..." (the attempt does not
# count).
_ka_close_first_try() {
	local t=/sys/kernel/tracing w0 t0 st
	ip link set ib0 down
	ip link set ib0 up
	w0=$(cm_stat cm_ka_write_refused)
	ka_trace_on
	wait_carrier ib0 1 30
	t0=$(now)
	if ! ping -c 1 -W 10 "$PEER_IB" >/dev/null; then
		echo "FAIL: the first ping to the peer was lost"
		grep ipoib_cm_ka_write_checked: $t/trace >&2
		dmesg | tail -20 >&2
		return
	fi
	t0=$(rel "$t0" "$(now)")
	# the statuses of the write checks, in order
	st=$(awk "$KA_TRACE_LINE"'
		ev == "ipoib_cm_ka_write_checked:" && match($0, /status=[0-9]+/) {
			printf "%s ", substr($0, RSTART + 7, RLENGTH - 7)
		}' $t/trace)
	set -- $st
	case "${1:-}" in
	5)	case "${2:-}" in
		9|10|11) ;;	# remote invalid request, access, operational error
		*)	echo "FAIL: first write flushed, then write statuses '$st', expected a refusal (9-11) next"
			return ;;
		esac
		if [ "$#" -ne 2 ]; then
			echo "FAIL: write statuses '$st', expected two write checks"
		elif [ "$(cm_stat cm_ka_write_refused)" -ne $((w0 + 1)) ]; then
			echo "FAIL: cm_ka_write_refused $(cm_stat cm_ka_write_refused), expected $((w0 + 1))"
		else
			echo "ok: first write flushed by the peer's teardown, the next one refused; first ping answered after $t0 s"
		fi ;;
	12)	echo "again: the first write ran out of retries before the peer's teardown (write statuses $st)" ;;
	*)	echo "FAIL: write statuses '$st', expected 5 (flushed) first" ;;
	esac
}

# ka_write_check_cm: the RDMA WRITE that a new RC connection to a peer
# without the keepalive capability tries first (b with debugfs
# ipoib_cm_foreign_rx) does not hold up the CM of the host while it is
# outstanding: the CM handles the events of every connection of the host
# one at a time.  a delays everything it sends on eth0 by 3 s (netem), so
# the write is not answered before its retries run out (8 ACK timeouts
# of 268 ms), and while it is outstanding connects a ucmatose client to a
# ucmatose server of its own (loopback, not delayed): the server must see
# the connection request within KA_CM_LATENCY s of its REQ, before the
# write is done.  An attempt counts when the REQ went out at least
# KA_CM_LATENCY + 0.3 s before the write was done (so that a CM held up
# by the write would have kept it longer than the bound); up to 3
# attempts (ib0 down and up each).  About 40 s.
KA_CM_LATENCY=0.5
ka_write_check_cm() {
	local knob=/sys/kernel/debug/ipoib_cm_foreign_rx t=/sys/kernel/tracing
	local hw i e r=
	peer_exchange wc-hw "$(cat /sys/class/net/ib0/address)"
	hw=$PEER_DATA
	if [ "$ROLE" = b ]; then
		[ -f $knob ] || { log "FAIL: no $knob"; res=1; return; }
		echo Y >$knob
	fi
	barrier write-check
	if [ "$ROLE" = a ]; then
		for e in ib_cma/icm_send_req ib_cma/icm_send_rej \
			 rdma_cma/cm_event_handler; do
			echo 1 >$t/events/$e/enable ||
				{ log "FAIL: no trace event $e"; res=1; }
		done
		for i in 1 2 3; do
			r=$(_ka_write_check_try "$hw")
			log "write check attempt $i: $(echo "$r" | head -n 1)"
			echo "$r" | grep '^RDMA-HA-MEASURE:'
			case "$r" in
			*FAIL:*|*": ok"*) break ;;
			esac
		done
		case "$r" in
		*FAIL:*) res=1 ;;
		*": ok"*) ;;
		*) log "FAIL: no attempt placed a connection request while the write was outstanding"
		   res=1 ;;
		esac
		for e in ib_cma/icm_send_req ib_cma/icm_send_rej \
			 rdma_cma/cm_event_handler; do
			echo 0 >$t/events/$e/enable
		done
		# and the peer is reached once the wire is back
		wait_ping "$PEER_IB" 60
		pings 5 "$PEER_IB" ||
			{ log "FAIL: ping after the write check"; res=1; }
		cm_stats write-check
	fi
	barrier write-check-done 180
	[ "$ROLE" = b ] && echo N >$knob
	return 0
}

# _ka_write_check_try HW: one attempt of ka_write_check_cm on a; prints
# "ok ...", "FAIL: ..." or "no: ..." (the attempt does not count).
_ka_write_check_try() {
	local t=/sys/kernel/tracing srv rc
	ip link set ib0 down
	ip link set ib0 up
	# the broadcast join gives ib0 its carrier; before it every packet
	# is dropped
	wait_carrier ib0 1 30
	# no ARP through the delayed wire
	ip neigh replace "$PEER_IB" lladdr "$1" dev ib0 nud permanent
	echo >$t/trace
	timeout 30 ucmatose -b "$IB_IP" -c 1 -C 1 >/tmp/wc-server.log 2>&1 &
	srv=$!
	tc qdisc add dev eth0 root netem delay 3000ms limit 100000 ||
		{ echo "FAIL: no netem"; return; }
	ping -c 1 -W 15 "$PEER_IB" >/dev/null 2>&1 &
	if wait_for 20 grep -q ipoib_cm_ka_probe: $t/trace; then
		timeout 20 ucmatose -s "$IB_IP" -c 1 -C 1 >/tmp/wc-client.log 2>&1
		rc=$?
	else
		rc=none
	fi
	wait_for 10 grep -qE 'ipoib_cm_ka_write_checked:|icm_send_rej:' $t/trace
	tc qdisc del dev eth0 root
	wait $srv
	ip neigh del "$PEER_IB" dev ib0 2>/dev/null
	[ "$rc" = none ] && { echo "no: no write posted within 20 s"; return; }
	awk -v rc="$rc" -v max=$KA_CM_LATENCY "$KA_TRACE_LINE"'
		ev == "ipoib_cm_ka_probe:" && tw == "" { tw = ts }
		tw == "" { next }
		(ev == "ipoib_cm_ka_write_checked:" || ev == "icm_send_rej:") &&
			twc == "" { twc = ts }
		ev == "icm_send_req:" && treq == "" { treq = ts }
		ev == "cm_event_handler:" && /CONNECT_REQUEST/ && treq != "" &&
			tcr == "" { tcr = ts }
		END {
			if (twc == "" || treq == "" || tcr == "") {
				printf "no: write posted %s, done %s, REQ %s, request %s (ucmatose %s)\n",
				       tw, twc, treq, tcr, rc
				exit
			}
			lat = tcr - treq
			printf "write outstanding %.3f s; REQ %+.3f s after it was posted, request seen %.3f s later, ucmatose %s: ",
			       twc - tw, treq - tw, lat, rc
			if (treq > twc - max - 0.3) {
				print "no: REQ too late"
			} else if (tcr > twc || lat > max) {
				printf "FAIL: the connection request waited %.3f s in the CM (bound %s s)\n",
				       lat, max
			} else {
				printf "ok\n"
				printf "RDMA-HA-MEASURE: cm-request-latency-during-write-check %.3f\n", lat
			}
		}' $t/trace
}

# ka_down_outstanding: ib0 goes down while a's RC connection to b has
# sends outstanding towards a dead peer (b's link cut during a TCP
# stream): as soon as a's kernel sees the cut (its QPs retransmit; the
# host acts on the request when it gets to it) while the peer is not yet
# declared dead, then again once the keepalive or a failed send tore the
# connection down.  Each time a brings ib0 down, up and down again.  The
# connection's sends must be completed (flushed) while the interface
# stops, not given up after 5 s ("timing out; N sends not completed"):
# their completions stayed in the send CQ, and the next stop polled them
# for a freed connection (an oops in ipoib_cm_handle_tx_wc()).  The
# stream and its listener end with each round (killed by their own PIDs:
# busybox timeout execs the command), so that nothing of them is left
# for the phases that follow: a stream that outlived the phase kept the
# next one's connections busy, and busy connections are not probed.
# The retrying round runs with a 10 s keepalive interval on a: with the
# scenario's interval the keepalive declared the cut peer dead 3.3 s
# after the cut request, and a loaded KASAN guest had not yet brought
# ib0 down ("the connection was gone before ib0 went down", seen in a
# two-lane check); the dead round keeps the scenario's interval.
# About 50 s.
ka_down_outstanding() {
	local d k0 m0 flow srv port=9100 ka_iv=
	local oops='BUG:|Oops|general protection|timing out; [0-9]+ sends'
	[ -p /tmp/nc-stdin ] || mkfifo /tmp/nc-stdin
	# A new connection to b: the write checks before left one that a made
	# while b posed as a peer without keepalives, hence without transport
	# retries (retry count 0: the first ACK timeout after the cut ends it,
	# with nothing retransmitted).
	if [ "$ROLE" = a ]; then
		read_attr /sys/class/net/ib0/cm_keepalive_interval_ms
		ka_iv=$ATTR
		echo 10000 >/sys/class/net/ib0/cm_keepalive_interval_ms ||
			fail "keepalive interval 10000"
		ip link set ib0 down
		ip link set ib0 up
		wait_carrier ib0 1 30
		wait_ping "$PEER_IB" 60
	fi
	for d in retrying dead; do
		port=$((port + 1))
		if [ "$ROLE" = b ]; then
			timeout 60 nc -l -p $port <>/tmp/nc-stdin >/dev/null &
			srv=$!
			barrier "down-$d"
			barrier "down-$d-done" 120
			kill $srv 2>/dev/null
			wait $srv 2>/dev/null
			continue
		fi
		m0=$(dmesg | wc -l)
		barrier "down-$d"
		sleep 0.5
		dd if=/dev/zero bs=65536 count=100000 2>/dev/null |
			timeout 40 nc "$PEER_IB" $port &
		flow=$!
		sleep 2
		k0=$(($(cm_stat cm_ka_tx_dead) + $(cm_stat cm_tx_failed)))
		read_attr "$_KA_RETRIES"
		r0=$ATTR
		host_cmd peer "set_link n0 off"
		t0=$(now)
		if [ "$d" = dead ]; then
			wait_for 10 _ka_tx_gone "$k0" ||
				{ log "FAIL: the connection to the cut peer was not torn down"; res=1; }
		else
			wait_for 10 _ka_retrying "$r0" ||
				{ log "FAIL: no retransmission within 10 s of the cut request"; res=1; }
			if _ka_tx_gone "$k0"; then
				log "FAIL: the connection was gone before ib0 went down: nothing outstanding to test"
				res=1
			fi
		fi
		log "ib0 down $(rel "$t0" "$(now)") s after the cut request ($d)"
		ip link set ib0 down
		sleep 6
		# the dead round's connection is made with the usual interval
		echo "$ka_iv" >/sys/class/net/ib0/cm_keepalive_interval_ms
		ip link set ib0 up
		sleep 1
		ip link set ib0 down
		ip link set ib0 up
		kill $flow 2>/dev/null
		wait $flow 2>/dev/null
		host_cmd peer "set_link n0 on"
		if dmesg | sed "1,${m0}d" | grep -E "$oops"; then
			log "FAIL: ib0 down with sends outstanding ($d)"
			res=1
		fi
		wait_for 20 grep -q ACTIVE /sys/class/infiniband/sib0/ports/1/state
		wait_ping "$PEER_IB" 60
		barrier "down-$d-done" 120
	done
	if pidof nc dd >/dev/null; then
		log "FAIL: the stream outlived ka_down_outstanding: $(pidof nc dd)"
		res=1
	fi
	return 0
}

# _ka_retrying N: a's QPs retransmitted since sib0's completer_retry_err
# was N (a peer that stopped answering, as a's kernel sees it).
_KA_RETRIES=/sys/class/infiniband/sib0/ports/1/hw_counters/completer_retry_err
_ka_retrying() { read_attr "$_KA_RETRIES"; [ "${ATTR:-0}" -gt "$1" ]; }

# _ka_tx_gone N: a send-side connection was declared dead or failed since
# the sum of the two counters was N.
_ka_tx_gone() {
	[ $(($(cm_stat cm_ka_tx_dead) + $(cm_stat cm_tx_failed))) -gt "$1" ]
}

# ka_stale_idle: the stale-connection task (its 256 s unit shortened to
# 3 s through debugfs ipoib_cm_rx_stale_s: a receive-side connection
# silent for 6 s is reaped, checked every 9 s) and keepalives agree:
#  1. keepalives on (1 s x 3): connections idle for 16 s or more, probed
#     (at least 10 probes sent and 10 received, within 40 s: idle, not
#     kept busy by something left running), are not stale: none is
#     reaped, none declared dead, none failed;
#  2. keepalives off on a: b reaps a's idle connection to it and sends a
#     DREQ; a tears its end down at once, so the next pings go out on a
#     new connection: none lost, no send failed.
# Both ends start afresh (ib0 down and up) so that the shortened timers
# apply.  About 45 s.
_dreq_since() { [ "$(dmesg | grep -c 'DREQ received')" -gt "$1" ]; }
# _ka_probed_since P Q N: N probes sent and N received since the counters
# read P and Q.
_ka_probed_since() {
	[ $(($(cm_stat cm_ka_probes_sent) - $1)) -ge "$3" ] &&
	[ $(($(cm_stat cm_ka_probes_received) - $2)) -ge "$3" ]
}
_cm_tx_rc_conns_is() { [ "$(cm_stat cm_tx_rc_conns)" = "$1" ]; }
ka_stale_idle() {
	local knob=/sys/kernel/debug/ipoib_cm_rx_stale_s d0 r0 f0 s0 p0 q0 t0
	[ -f $knob ] || { log "FAIL: no $knob"; res=1; return; }
	barrier stale
	echo 3 >$knob
	ip link set ib0 down
	ip link set ib0 up
	barrier stale-up
	wait_ping "$PEER_IB" 60
	# a's connection to b first, then b's to a
	[ "$ROLE" = a ] && { pings 5 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
	barrier stale-a
	[ "$ROLE" = b ] && { pings 5 "$PEER_IB" || { log "FAIL: ping"; res=1; }; }
	barrier stale-b
	d0=$(cm_stat cm_ka_tx_dead) r0=$(cm_stat cm_ka_rx_dead)
	f0=$(cm_stat cm_tx_failed)
	p0=$(cm_stat cm_ka_probes_sent) q0=$(cm_stat cm_ka_probes_received)
	t0=$(now)
	sleep 16
	# 10 probes each way: in 16 s as a rule (16 seen), later when the
	# host is loaded, as each probe is due an interval after the answer
	# to the last, so a slow round trip spaces them (CI once saw fewer
	# than 10 in 16 s).  Idle connections get there within 40 s; busy
	# ones, which are not probed, never do.
	wait_for 24 _ka_probed_since "$p0" "$q0" 10
	cm_stats stale-idle
	p0=$(($(cm_stat cm_ka_probes_sent) - p0))
	q0=$(($(cm_stat cm_ka_probes_received) - q0))
	log "idle $(rel "$t0" "$(now)") s: $p0 probes sent, $q0 received"
	[ "$p0" -ge 10 ] && [ "$q0" -ge 10 ] ||
		{ log "FAIL: the connections were not idle and probed"; res=1; }
	expect cm_ka_tx_dead -eq "$d0"
	expect cm_ka_rx_dead -eq "$r0"
	expect cm_tx_failed -eq "$f0"
	expect cm_tx_rc_conns -eq 1
	expect cm_rx_rc_conns -eq 1
	barrier stale-probed
	if [ "$ROLE" = a ]; then
		echo 0 >/sys/class/net/ib0/cm_keepalive_interval_ms
		ip link set ib0 down
		ip link set ib0 up
		wait_ping "$PEER_IB" 60
		pings 5 "$PEER_IB" || { log "FAIL: ping"; res=1; }
		f0=$(cm_stat cm_tx_failed)
		s0=$(dmesg | grep -c 'DREQ received')
		t0=$(now)
		# b reaps the idle connection (silent for 6 s, checked every
		# 9 s: up to 15 s; 13.4 s seen on KASAN); the pings go out once
		# its DREQ tore a's side down, not while it is on the wire
		wait_for 60 _dreq_since "$s0" ||
			{ log "FAIL: b did not reap the idle connection within 60 s"; res=1; }
		wait_for 10 _cm_tx_rc_conns_is 0
		log "idle without keepalives: b's DREQ after $(rel "$t0" "$(now)") s"
		pings 10 "$PEER_IB" ||
			{ log "FAIL: ping after b reaped the idle connection"; res=1; }
		cm_stats stale-reaped
		expect cm_tx_failed -eq "$f0"
		echo 1000 >/sys/class/net/ib0/cm_keepalive_interval_ms
	fi
	barrier stale-done
	echo 256 >$knob
	return 0
}

# ka_qp_fatal: a's send-side QP of its idle RC connection to b fails
# under it (debugfs rxe/sib0/qp_fatal: the QP goes to the error state with
# IB_EVENT_QP_FATAL, as a hardware QP does on a fatal error of its own).
# IPoIB has no event handler on send QPs, and a flushed send does not
# tear a connection down: the next probe, flushed, must, within two
# keepalive intervals (1 s x 3), so that the next ping goes out on a new
# connection and is answered; the keepalive task does not spin on the
# stopped connection meanwhile (cm_ka_runs).  a's connection starts
# afresh (ib0 down and up) with keepalives of 1 s x 3.  About 20 s.
KA_QP_FATAL=/sys/kernel/debug/rxe/sib0/qp_fatal
ka_qp_fatal() {
	local qpn f0 d0 k0 k1 tdown t0
	barrier qp-fatal
	if [ "$ROLE" = a ]; then
		[ -f $KA_QP_FATAL ] || { log "FAIL: no $KA_QP_FATAL"; res=1; }
		# a fresh connection, with the keepalive settings of now
		ip link set ib0 down
		ip link set ib0 up
		wait_carrier ib0 1 30
		wait_ping "$PEER_IB" 60
		pings 5 "$PEER_IB" >/dev/null
		ka_trace_on
		# the QP that a's probes go out on: a's send side to b
		qpn=$(ka_rc_qpn ipoib_cm_ka_probe)
		f0=$(cm_stat cm_tx_failed) d0=$(cm_stat cm_ka_tx_dead)
		if [ -z "$qpn" ]; then
			log "FAIL: no probe on an RC connection of ib0 in 5 s"
			res=1
		elif t0=$(now) && kmsg_mark qpfatal &&
		     echo "$qpn" >$KA_QP_FATAL; then
			log "QP $qpn of sib0 failed (IB_EVENT_QP_FATAL)"
			k0=$(cm_stat cm_ka_runs)
			# torn down by the next probe, within two intervals of
			# the fault: timed by the kernel's log, not by this
			# shell's polls (an ethtool read takes 0.3 s on KASAN)
			wait_for 30 _ka_tx_gone $((f0 + d0)) ||
				{ log "FAIL: the connection whose QP failed was not torn down within 30 s"; res=1; }
			tdown=$(rel "$t0" "$(kmsg_time qpfatal "keepalive probe on connection $qpn failed")")
			log "the failed probe tore the connection down ${tdown:-never} s after the fault (bound 2 s + $KA_SLACK)"
			awk -v d="$tdown" -v s=$KA_SLACK 'BEGIN { exit !(d != "none" && d + 0 <= 2 + s) }' ||
				{ log "FAIL: the connection whose QP failed was not torn down within 2 intervals"; res=1; }
			sleep 2
			k1=$(cm_stat cm_ka_runs)
			log "keepalive task: $((k1 - k0)) runs in the 2 s after the fault and the rest of its detection"
			[ $((k1 - k0)) -lt 20 ] ||
				{ log "FAIL: the keepalive task ran $((k1 - k0)) times (a stopped connection re-armed it)"; res=1; }
			ping -c 1 -W 5 "$PEER_IB" >/dev/null ||
				{ log "FAIL: the first ping after the QP failed was lost"; res=1; }
			pings 10 "$PEER_IB" ||
				{ log "FAIL: ping on the new connection"; res=1; }
			rdma resource show qp link sib0/1 |
				grep -q "lqpn $((qpn)) " &&
				{ log "FAIL: QP $qpn still exists"; res=1; }
			cm_stats qp-fatal
			expect cm_tx_failed -eq $((f0 + 1))
			expect cm_ka_tx_dead -eq "$d0"
			expect cm_tx_rc_conns -eq 1
		else
			log "FAIL: echo $qpn >$KA_QP_FATAL"
			res=1
		fi
	fi
	barrier qp-fatal-done 60
	return 0
}

# ka_rnr: b's receive side runs out of receive buffers for a moment
# (debugfs rxe/sib0/rnr: its rx QP of a's idle connection answers the next
# 3 requests that need a receive WQE with RNR NAKs, as an SRQ emptied by
# an incast does), review D8:
#  1. a's next probe (a send with immediate data, b speaks the keepalive
#     protocol) gets 3 RNR NAKs: a retries it and the connection lives
#     on (no send failed, no peer declared dead, the same QP);
#  2. so does a ping's data: answered, on the same connection.
# With the RNR retry count of 0 of the REQ, the first NAK ended the
# connection.  About 10 s.
KA_RNR=/sys/kernel/debug/rxe/sib0/rnr
_ka_counter() { read_attr "/sys/class/infiniband/sib0/ports/1/hw_counters/$1"; echo "${ATTR:-0}"; }
_ka_rnr_sent() { [ "$(_ka_counter send_rnr_err)" -ge "$1" ]; }
ka_rnr() {
	local qpn txq f0 d0 n0 r0 round
	barrier rnr
	if [ "$ROLE" = a ]; then
		pings 3 "$PEER_IB" >/dev/null
		ka_trace_on
		txq=$(ka_rc_qpn ipoib_cm_ka_probe)
		[ -n "$txq" ] || { log "FAIL: no probe on an RC connection of ib0 in 5 s"; res=1; }
		# read before b arms anything (rnr-ready)
		f0=$(cm_stat cm_tx_failed) d0=$(cm_stat cm_ka_tx_dead)
		r0=$(_ka_counter rcvd_rnr_err)
		barrier rnr-ready 30
		barrier rnr-probe 30
		barrier rnr-probe-done 30
		barrier rnr-data 30
		pings 3 "$PEER_IB" ||
			{ log "FAIL: a ping whose data got RNR NAKs was lost"; res=1; }
		barrier rnr-data-done 30
		r0=$(($(_ka_counter rcvd_rnr_err) - r0))
		log "RNR NAKs received on the connection: $r0"
		[ "$r0" -ge 6 ] ||
			{ log "FAIL: a got $r0 RNR NAKs, 6 asked for"; res=1; }
		cm_stats rnr
		expect cm_tx_failed -eq "$f0"
		expect cm_ka_tx_dead -eq "$d0"
		expect cm_tx_rc_conns -eq 1
		rdma resource show qp link sib0/1 | grep -q "lqpn $((txq)) " ||
			{ log "FAIL: QP $txq of the connection is gone"; res=1; }
	else
		[ -f $KA_RNR ] || { log "FAIL: no $KA_RNR"; res=1; }
		ka_trace_on
		# the QP that receives a's probes: b's receive side of a's
		# connection
		qpn=$(ka_rc_qpn ipoib_cm_ka_probe_received)
		[ -n "$qpn" ] || { log "FAIL: no probe received on an RC connection in 5 s"; res=1; }
		barrier rnr-ready 30
		for round in probe data; do
			n0=$(_ka_counter send_rnr_err)
			echo "$qpn 3" >$KA_RNR ||
				{ log "FAIL: echo $qpn 3 >$KA_RNR"; res=1; }
			barrier "rnr-$round" 30
			# the probe is due within an interval (1 s); the
			# ping's data comes at once
			wait_for 10 _ka_rnr_sent $((n0 + 3)) ||
				{ log "FAIL: b sent $(($(_ka_counter send_rnr_err) - n0)) of 3 RNR NAKs ($round)"; res=1; }
			echo "$qpn 0" >$KA_RNR
			barrier "rnr-$round-done" 30
		done
		rdma resource show qp link sib0/1 | grep -q "lqpn $((qpn)) " ||
			{ log "FAIL: receive QP $qpn is gone"; res=1; }
	fi
	barrier rnr-end 60
	return 0
}
