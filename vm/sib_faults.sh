#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=500 kernel=patched
#
# The soft InfiniBand device's packet fault knobs (issue 18: debugfs
# rxe/DEVICE/drop and corrupt, "CLASS COUNT", and delay, "CLASS COUNT
# MS"; and nak, "QPN COUNT KIND", of any rxe device), between the sib0
# ports of two guests, each fault armed on one guest just before a pingpong over
# its class and checked by what the peer and the transport saw:
#  - bad lines get EINVAL and arm nothing; both knobs read "CLASS 0" for
#    each of the five classes;
#  - drop req 3 on a: a's RC requests are lost three times, a retries them
#    (completer_retry_err grows by 3 or more) and ibv_rc_pingpong passes;
#  - drop resp 2 on b: b's ACKs are lost, a retries, b sees the requests
#    again (duplicate_request grows by 2 or more), the pingpong passes;
#  - corrupt req 2 on a: b's port drops exactly 2 packets for their ICRC
#    (PortRcvErrors grows by 2) and the pingpong passes after a's retries;
#  - drop mad 10 on a: a's SMPs to b's port go unanswered (smpquery fails,
#    having used some of the 10 up), and answered once disarmed;
#  - drop ud 1 on a: a UD pingpong, which never sends a datagram again,
#    loses its first and stalls; the next one passes;
#  - delay mad 1 800 on b: a's smpquery of b's port is answered 800 ms or
#    more after it asked;
#  - delay ud 1 1000 on a: a UD pingpong passes, taking 1000 ms or more;
#    bad delay lines (0 ms, over 10000, missing or extra fields) EINVAL;
#  - nak on b (inv, acc, op) for the QP of its pingpong server: a's send
#    fails with the matching status (remote invalid request, remote access,
#    remote operation error), b's receives flush; bad lines, a QP that is
#    not RC and one that does not exist are refused;
#  - delay req 1 3000 on a: an RC pingpong whose first request is held
#    back ends on the retransmission, and the destroy of its QP waits for
#    the held-back request (3000 ms or more in all), without a splat;
#  - sa_fail on a: saquery fails on an answer failed with ERR_NO_RESOURCES
#    and passes after; three failed answers to IPoIB's join of the
#    broadcast group are logged as failed joins, and ib0 gets carrier
#    after IPoIB's retries;
#  - ports/1/link down on a: a's port DOWN, physical state Disabled,
#    LinkDownedCounter one more, eth0 still with carrier, b's SMPs to it
#    unanswered; up again: ACTIVE, and answering;
#  - smp_fail on b: a's smpquery gets b's failed answer (status 0x001c)
#    twice, at once, then an answer; bad lines refused;
#  - ports/1/lid on a: a's LID and SM LID move, the move is logged, b
#    reaches a's port at the new LID and not at the old, and IPoIB on a
#    joins through ib_sa, which followed IB_EVENT_LID_CHANGE;
#  - every armed count is used up: the knobs read 0 again.
# ib0 stays down, so that IPoIB sends nothing that could take a fault,
# until sa_fail's phase, the last, brings it up on a.
# eth1 carries plain IP for the barriers and the pingpongs' TCP exchange.
. "$(dirname "$0")/lib.sh"

need_cmd rdma ibv_rc_pingpong ibv_ud_pingpong smpquery saquery
PORT=/sys/class/infiniband/sib0/ports/1
KD=/sys/kernel/debug/rxe/sib0
res=0
bad() { log "FAIL: $*"; res=1; }
# refused KNOB ERROR LINE...: writing each LINE to debugfs KNOB (a path
# under $KD) fails with ERROR (strerror's words)
refused() {
	local k=$1 err=$2 l
	shift 2
	for l; do
		if echo "$l" 2>/tmp/knob.err >"$KD/$k"; then
			bad "$k took '$l'"
		elif ! grep -q "$err" /tmp/knob.err; then
			bad "$k on '$l': $(cat /tmp/knob.err), expected $err"
		fi
	done
}

nic_setup eth1 "$MY_IP"
ip link set eth0 mtu 4200 up
wait_carrier eth0 1
rdma link add sib0 type sib netdev eth0 || fail "rdma link add sib0"
wait_for 10 grep -q ACTIVE $PORT/state || fail "sib0 not ACTIVE"
ip link set ib0 down 2>/dev/null
LID=$(($(cat $PORT/lid)))
peer_exchange ids "$LID"
PEER_LID=$PEER_DATA
log "own LID $LID, peer LID $PEER_LID"

# hw COUNTER, port COUNTER: a counter of sib0 port 1
hw() { read_attr "$PORT/hw_counters/$1"; echo "${ATTR:-none}"; }
port() { read_attr "$PORT/counters/$1"; echo "${ATTR:-none}"; }
# ms_since T0: milliseconds from T0 (now's) to now
ms_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
# left KNOB CLASS: the faults of CLASS still to come
left() { awk -v c="$2" '$1 == c { print $2 }' "$KD/$1"; }
# knobs_clear: both knobs read 0 for each class
knobs_clear() {
	local k
	for k in drop corrupt delay; do
		[ "$(awk '{ printf "%s %s ", $1, $2 }' "$KD/$k")" = "req 0 nak 0 resp 0 ud 0 mad 0 " ] ||
			bad "$k reads '$(tr '\n' ' ' <"$KD/$k")', expected 0 for every class"
	done
}

# pair NAME TCP_PORT SECS PROGRAM ARGS...: PROGRAM ARGS as the server on
# b, as the client on a, for at most SECS; RC gets the exit status of
# this guest's side.  The faults are armed before it is called.
pair() {
	local name=$1 port=$2 secs=$3 prog=$4
	shift 4
	if [ "$ROLE" = b ]; then
		timeout "$secs" "$prog" -d sib0 -p "$port" "$@" >"/tmp/$name.log" 2>&1 &
		srv=$!
		wait_for 60 tcp_listening "$port" || log "$name: server not listening"
		barrier "$name"
		wait $srv
		RC=$?
	else
		barrier "$name"
		timeout "$secs" "$prog" -d sib0 -p "$port" "$@" "$PEER_IP" \
			>"/tmp/$name.log" 2>&1
		RC=$?
	fi
	tail -n 2 "/tmp/$name.log"
	log "$name: exit status $RC"
	barrier "$name-done" 120
}

# ---- bad lines -----------------------------------------------------------
for k in drop corrupt; do
	[ -f "$KD/$k" ] && [ -f "$KD/delay" ] || fail "no $KD/$k or $KD/delay"
	refused $k "Invalid argument" "" "req" "req x" "req -1" "foo 1" \
		"req 1 2" "reqreqreq 1" "sib0 req 1"
done
knobs_clear
[ $res = 0 ] && log "drop and corrupt refuse bad lines, arm nothing"

# ---- drop req 3 on a: lost requests, retried ------------------------------
r0=$(hw completer_retry_err)
[ "$ROLE" = a ] && echo "req 3" >$KD/drop
pair rc_drop_req 18515 120 ibv_rc_pingpong -s 64 -n 20
[ $RC = 0 ] || bad "rc_drop_req: pingpong exit $RC"
if [ "$ROLE" = a ]; then
	r1=$(hw completer_retry_err)
	log "a's completer_retry_err $r0 -> $r1 with 3 requests lost"
	[ "$(left drop req)" = 0 ] || bad "drop req: $(left drop req) left of 3"
	[ "$r1" != none ] && [ $((r1 - r0)) -ge 3 ] ||
		bad "completer_retry_err $r0 -> $r1: fewer than 3 retries for 3 lost requests"
fi

# ---- drop resp 2 on b: lost ACKs, the requests seen again -------------------
d0=$(hw duplicate_request)
[ "$ROLE" = b ] && echo "resp 2" >$KD/drop
pair rc_drop_resp 18516 120 ibv_rc_pingpong -s 64 -n 20
[ $RC = 0 ] || bad "rc_drop_resp: pingpong exit $RC"
if [ "$ROLE" = b ]; then
	d1=$(hw duplicate_request)
	log "b's duplicate_request $d0 -> $d1 with 2 ACKs lost"
	[ "$(left drop resp)" = 0 ] || bad "drop resp: $(left drop resp) left of 2"
	[ "$d1" != none ] && [ $((d1 - d0)) -ge 2 ] ||
		bad "duplicate_request $d0 -> $d1: a did not send the requests of 2 lost ACKs again"
fi

# ---- corrupt req 2 on a: bad ICRCs, dropped and counted by b ----------------
e0=$(port port_rcv_errors)
r0=$(hw completer_retry_err)
[ "$ROLE" = a ] && echo "req 2" >$KD/corrupt
pair rc_corrupt_req 18517 120 ibv_rc_pingpong -s 64 -n 20
[ $RC = 0 ] || bad "rc_corrupt_req: pingpong exit $RC"
e1=$(port port_rcv_errors)
r1=$(hw completer_retry_err)
if [ "$ROLE" = b ]; then
	log "b's PortRcvErrors $e0 -> $e1 with 2 of a's requests corrupted"
	[ "$e1" != none ] && [ $((e1 - e0)) = 2 ] ||
		bad "PortRcvErrors $e0 -> $e1, expected 2 more"
else
	log "a's completer_retry_err $r0 -> $r1 with 2 requests corrupted"
	[ "$(left corrupt req)" = 0 ] || bad "corrupt req: $(left corrupt req) left of 2"
	[ "$r1" != none ] && [ $((r1 - r0)) -ge 2 ] ||
		bad "completer_retry_err $r0 -> $r1: fewer than 2 retries for 2 corrupted requests"
fi

# ---- drop mad 10 on a: SMPs unanswered until disarmed ---------------------
barrier mad
if [ "$ROLE" = a ]; then
	echo "mad 10" >$KD/drop
	if smpquery -C sib0 -P 1 -t 200 nodeinfo "$PEER_LID" >/tmp/smp.log 2>&1; then
		bad "smpquery answered with every SMP of a lost: $(tr '\n' ' ' </tmp/smp.log)"
	fi
	n=$(left drop mad)
	log "smpquery with a's MADs lost: failed, $((10 - n)) SMP(s) lost"
	[ "$n" -lt 10 ] || bad "drop mad: no MAD of a's smpquery lost"
	echo "mad 0" >$KD/drop
	smpquery -C sib0 -P 1 -t 1000 nodeinfo "$PEER_LID" >/tmp/smp.log 2>&1 &&
		grep -q '^Guid:\.' /tmp/smp.log ||
		bad "smpquery after drop mad 0: $(tr '\n' ' ' </tmp/smp.log)"
fi
barrier mad-done

# ---- drop ud 1 on a: a UD pingpong loses its first datagram ---------------
[ "$ROLE" = a ] && echo "ud 1" >$KD/drop
pair ud_drop 18518 10 ibv_ud_pingpong -s 64 -n 10
[ "$ROLE" = a ] && [ "$(left drop ud)" != 0 ] && bad "drop ud: the datagram was not lost"
# (busybox timeout ends it with SIGTERM: 143; coreutils' exits 124)
case $RC in
124|143) ;;
*) bad "ud_drop: pingpong exit $RC, expected to stall on a lost datagram until killed" ;;
esac
pair ud_after 18519 120 ibv_ud_pingpong -s 64 -n 10
[ $RC = 0 ] || bad "ud_after: pingpong exit $RC"

# ---- delay mad 1 800 on b: a late SMP answer ------------------------------
[ "$ROLE" = b ] && echo "mad 1 800" >$KD/delay
barrier delay-mad
if [ "$ROLE" = a ]; then
	t0=$(now)
	smpquery -C sib0 -P 1 -t 4000 nodeinfo "$PEER_LID" >/tmp/smp.log 2>&1 ||
		bad "smpquery with b's answer 800 ms late: $(tr '\n' ' ' </tmp/smp.log)"
	ms=$(ms_since "$t0")
	log "smpquery answered in $ms ms, b's answer held back 800 ms"
	[ "$ms" -ge 800 ] || bad "smpquery answered in $ms ms, before b's answer was due"
fi
barrier delay-mad-done
[ "$ROLE" = b ] && [ "$(left delay mad)" != 0 ] && bad "delay mad: b's answer not held back"

# ---- delay ud 1 1000 on a: a late datagram, then the rest -----------------
[ "$ROLE" = a ] && echo "ud 1 1000" >$KD/delay
t0=$(now)
pair ud_delay 18520 60 ibv_ud_pingpong -s 64 -n 10
ms=$(ms_since "$t0")
[ $RC = 0 ] || bad "ud_delay: pingpong exit $RC"
if [ "$ROLE" = a ]; then
	log "ud_delay: pingpong and barriers took $ms ms, its first datagram 1000 ms late"
	[ "$(left delay ud)" = 0 ] || bad "delay ud: the datagram was not held back"
	[ "$ms" -ge 1000 ] || bad "ud_delay took $ms ms with a datagram held back 1000 ms"
fi
for k in "ud 1 0:Invalid argument" "ud 1 10001:Invalid argument" "ud 1:Invalid argument" \
	 "ud x 5:Invalid argument" "ud 1 5 5:Invalid argument"; do
	if echo "${k%%:*}" 2>/tmp/knob.err >$KD/delay; then
		bad "delay took '${k%%:*}'"
	elif ! grep -q "${k#*:}" /tmp/knob.err; then
		bad "delay on '${k%%:*}': $(cat /tmp/knob.err), expected ${k#*:}"
	fi
done

# ---- nak on b: a's requests refused --------------------------------------
# The server's QP exists once it listens (rc_pingpong makes it first): b
# arms nak for it then, before a connects.  a's first send is refused with
# the NAK asked for, and a's pingpong fails with its completion status;
# b's QP goes to the error state too, so its receives flush.
if [ "$ROLE" = b ]; then
	refused nak "Invalid argument" "x 1 acc" "5 1" "5 1 foo" "5 1 acc x" \
		"1 1 acc"
	refused nak "No such file" "99999 1 acc"
fi
port=18530
for k in "inv:remote invalid request error" "acc:remote access error" \
	 "op:remote operation error"; do
	kind=${k%%:*} want=${k#*:} port=$((port + 1))
	if [ "$ROLE" = b ]; then
		timeout 30 ibv_rc_pingpong -d sib0 -p $port -s 64 -n 5 \
			>/tmp/nak-$kind.log 2>&1 &
		srv=$!
		wait_for 30 tcp_listening $port || log "nak $kind: server not listening"
		qpn=$(rdma resource show qp link sib0/1 |
		      awk '/type RC/ && /ibv_rc_pingpong/ { for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }' |
		      tail -n 1)
		echo "$qpn 1 $kind" >$KD/nak || bad "nak: '$qpn 1 $kind' refused"
		barrier "nak-$kind"
		wait $srv
		RC=$?
		grep -q "Work Request Flushed Error" /tmp/nak-$kind.log ||
			bad "nak $kind: b's receives not flushed: $(tr '\n' ' ' </tmp/nak-$kind.log)"
	else
		barrier "nak-$kind"
		timeout 30 ibv_rc_pingpong -d sib0 -p $port -s 64 -n 5 "$PEER_IP" \
			>/tmp/nak-$kind.log 2>&1
		RC=$?
		grep -q "Failed status $want" /tmp/nak-$kind.log ||
			bad "nak $kind: a's send did not fail with '$want': $(tr '\n' ' ' </tmp/nak-$kind.log)"
	fi
	log "nak $kind: pingpong exit $RC, $(grep -m1 'Failed status' /tmp/nak-$kind.log)"
	[ $RC = 1 ] || bad "nak $kind: pingpong exit $RC, expected 1"
	barrier "nak-$kind-done" 60
done

# ---- delay req 1 3000 on a: a QP destroyed with a request held back -------
# a's first request is held back 3 s; the retransmission after the ACK
# timeout gets through, the pingpong ends, and its QP is destroyed with
# the held-back request still queued.  The packet keeps its QP (rxe's skb
# destructor), so the destroy, and with it the program, waits for it to
# leave; the QP is not freed under it (no splat).  b's QP is gone by then
# and b drops the late request.
m0=$(dmesg | wc -l)
[ "$ROLE" = a ] && echo "req 1 3000" >$KD/delay
t0=$(now)
pair rc_delay_destroy 18521 60 ibv_rc_pingpong -s 64 -n 1
ms=$(ms_since "$t0")
[ $RC = 0 ] || bad "rc_delay_destroy: pingpong exit $RC"
if [ "$ROLE" = a ]; then
	log "rc_delay_destroy: pingpong and barriers took $ms ms, a request held back 3000 ms"
	[ "$(left delay req)" = 0 ] || bad "delay req: no request held back"
	[ "$ms" -ge 3000 ] ||
		bad "rc_delay_destroy took $ms ms: its QP was destroyed before the held-back request left"
fi
sleep 1
if dmesg | sed "1,${m0}d" | grep -E 'WARNING:|BUG:|Oops|general protection'; then
	bad "a splat with a QP destroyed under a held-back request"
fi

# ---- sa_fail on a: the SA says no ----------------------------------------
# a's own SA answers its next requests with an error status: saquery gets
# it and fails; then IPoIB's join of the broadcast group is refused three
# times (ERR_NO_RESOURCES, -EINVAL to IPoIB), and IPoIB retries with its
# backoff until a join succeeds: ib0 gets carrier once the three are used
# up, not before.
if [ "$ROLE" = a ]; then
	refused sa_fail "Invalid argument" "1" "1 0" "1 0x10000" "x 1" "1 1 1" "-1 1"
	[ "$(cat $KD/sa_fail)" = "0 0x0000" ] ||
		bad "sa_fail reads '$(cat $KD/sa_fail)' after bad lines, expected '0 0x0000'"
	echo "1 0x0100" >$KD/sa_fail
	if saquery -C sib0 -P 1 -g >/tmp/sa.log 2>&1; then
		bad "saquery passed with its answer failed: $(tr '\n' ' ' </tmp/sa.log)"
	fi
	log "saquery with the SA failing: $(grep -m1 -i 'err\|fail' /tmp/sa.log)"
	[ "$(cat $KD/sa_fail)" = "0 0x0100" ] ||
		bad "sa_fail reads '$(cat $KD/sa_fail)' after saquery, expected '0 0x0100'"
	saquery -C sib0 -P 1 -g >/tmp/sa.log 2>&1 ||
		bad "saquery after the failed answer: $(tr '\n' ' ' </tmp/sa.log)"
	m0=$(dmesg | wc -l)
	echo "3 0x0100" >$KD/sa_fail
	t0=$(now)
	ip link set ib0 up
	wait_carrier ib0 1 60
	n=$(dmesg | sed "1,${m0}d" | grep -c 'ib0: multicast join failed.*status -22')
	log "ib0: carrier $(rel "$t0" "$(now)") s after up, $n failed joins logged, sa_fail reads '$(cat $KD/sa_fail)'"
	[ "$n" -ge 3 ] || bad "IPoIB logged $n failed joins, expected 3 or more"
	[ "$(cat $KD/sa_fail)" = "0 0x0100" ] || bad "sa_fail: not every answer failed"
	ip link set ib0 down
fi
barrier sa-fail-done 120

# ---- ports/1/link on a: a port that dies while its netdevice does not ------
# a disables its port's link: the port is DOWN, its physical state
# Disabled, LinkDownedCounter one more, while eth0 keeps its carrier, and
# b's SMPs to a's port go unanswered; enabled again, the port is ACTIVE
# and answers.
barrier link
if [ "$ROLE" = a ]; then
	refused ports/1/link "Invalid argument" "" "off" "downn" "down up"
	[ "$(cat $KD/ports/1/link)" = up ] || bad "link reads '$(cat $KD/ports/1/link)', expected up"
	l0=$(port link_downed)
	echo down >$KD/ports/1/link
	log "link down: state '$(cat $PORT/state)', phys_state '$(cat $PORT/phys_state)', eth0 carrier $(cat /sys/class/net/eth0/carrier), link_downed $l0 -> $(port link_downed)"
	grep -q DOWN $PORT/state || bad "port $(cat $PORT/state) with its link disabled"
	grep -q Disabled $PORT/phys_state || bad "physical state $(cat $PORT/phys_state) with the link disabled"
	[ "$(cat /sys/class/net/eth0/carrier)" = 1 ] || bad "eth0 lost its carrier"
	[ "$(port link_downed)" = $((l0 + 1)) ] || bad "link_downed $l0 -> $(port link_downed), expected one more"
	[ "$(cat $KD/ports/1/link)" = down ] || bad "link reads '$(cat $KD/ports/1/link)', expected down"
	barrier link-down
	barrier link-probed 60
	echo up >$KD/ports/1/link
	wait_for 10 grep -q ACTIVE $PORT/state || bad "port $(cat $PORT/state) with its link enabled again"
	grep -q LinkUp $PORT/phys_state || bad "physical state $(cat $PORT/phys_state) with the link enabled again"
	barrier link-up
else
	barrier link-down
	if smpquery -C sib0 -P 1 -t 200 nodeinfo "$PEER_LID" >/tmp/smp.log 2>&1; then
		bad "a's port answered with its link disabled: $(tr '\n' ' ' </tmp/smp.log)"
	fi
	barrier link-probed 60
	barrier link-up
	wait_for 10 smpquery -C sib0 -P 1 -t 1000 nodeinfo "$PEER_LID" ||
		bad "a's port did not answer with its link enabled again"
fi
barrier link-done

# ---- smp_fail on b: the SMA says no ---------------------------------------
# b's SMA answers its next two Get SMPs with status 0x001c (invalid
# attribute or modifier): a's smpquery gets the answer at once (no
# timeout) and fails, twice; the third is answered.  Bad lines, and a
# status with the direction bit (0x8000, the SMA's), are refused.
if [ "$ROLE" = b ]; then
	refused smp_fail "Invalid argument" "1" "1 0" "1 0x8000" "x 1" "1 1 1" "-1 1"
	[ "$(cat $KD/smp_fail)" = "0 0x0000" ] ||
		bad "smp_fail reads '$(cat $KD/smp_fail)' after bad lines, expected '0 0x0000'"
	echo "2 0x1c" >$KD/smp_fail
fi
barrier smp-fail
if [ "$ROLE" = a ]; then
	for q in nodeinfo portinfo; do
		t0=$(now)
		if smpquery -C sib0 -P 1 -t 2000 $q "$PEER_LID" >/tmp/smp.log 2>&1; then
			bad "smpquery $q answered with b's SMA failing it: $(tr '\n' ' ' </tmp/smp.log)"
		fi
		ms=$(ms_since "$t0")
		log "smpquery $q, b's SMA failing: failed in $ms ms: $(grep -m1 -i 'status\|fail' /tmp/smp.log)"
		[ "$ms" -lt 2000 ] || bad "smpquery $q took $ms ms: timed out, not answered with a status"
	done
	smpquery -C sib0 -P 1 -t 2000 nodeinfo "$PEER_LID" >/tmp/smp.log 2>&1 &&
		grep -q '^Guid:\.' /tmp/smp.log ||
		bad "smpquery after b's two failed answers: $(tr '\n' ' ' </tmp/smp.log)"
fi
barrier smp-fail-done
if [ "$ROLE" = b ]; then
	[ "$(cat $KD/smp_fail)" = "0 0x001c" ] ||
		bad "smp_fail reads '$(cat $KD/smp_fail)' after a's queries, expected '0 0x001c'"
fi

# ---- ports/1/lid on a: a LID changed under the port's consumers ----------
# a moves its port to LID 0x777, as a subnet manager may: its LID and, as
# its own SM, its SM LID follow, IB_EVENT_LID_CHANGE is raised, b reaches
# a's port at the new LID and no longer at the old one, and IPoIB on a
# joins its broadcast group through ib_sa, whose SM address followed the
# event (it would ask the old LID otherwise, which nobody has).
NEW_LID=$((0x777))
[ "$LID" != $NEW_LID ] && [ "$PEER_LID" != $NEW_LID ] || NEW_LID=$((0x778))
if [ "$ROLE" = a ]; then
	refused ports/1/lid "Invalid argument" "0" "0xc000" "0xffff" "x" "1 2" "-5"
	[ "$(($(cat $PORT/lid)))" = "$LID" ] || bad "LID $(cat $PORT/lid) after bad lines, expected $LID"
	sm0=$(($(cat $PORT/sm_lid)))
	m0=$(dmesg | wc -l)
	echo "$NEW_LID" >$KD/ports/1/lid
	log "lid $NEW_LID: LID $(cat $PORT/lid), SM LID $(cat $PORT/sm_lid) (was $sm0), $(dmesg | sed "1,${m0}d" | grep -m1 'moved from LID')"
	[ "$(($(cat $PORT/lid)))" = $NEW_LID ] || bad "LID $(cat $PORT/lid), expected $NEW_LID"
	if [ "$sm0" = "$LID" ]; then
		[ "$(($(cat $PORT/sm_lid)))" = $NEW_LID ] ||
			bad "SM LID $(cat $PORT/sm_lid): the port's own SM did not move with it"
	fi
	dmesg | sed "1,${m0}d" | grep -q "moved from LID $(printf 0x%x "$LID") to LID $(printf 0x%x $NEW_LID)" ||
		bad "no log of the move"
fi
barrier lid-moved
if [ "$ROLE" = b ]; then
	smpquery -C sib0 -P 1 -t 1000 nodeinfo $NEW_LID >/tmp/smp.log 2>&1 &&
		grep -q '^Guid:\.' /tmp/smp.log ||
		bad "a's port not answering at its new LID: $(tr '\n' ' ' </tmp/smp.log)"
	if smpquery -C sib0 -P 1 -t 200 nodeinfo "$PEER_LID" >/tmp/smp.log 2>&1; then
		bad "a's port still answers at its old LID $PEER_LID"
	fi
fi
barrier lid-probed
if [ "$ROLE" = a ]; then
	t0=$(now)
	ip link set ib0 up
	if wait_for 30 _carrier_is ib0 1; then
		log "ib0: carrier $(rel "$t0" "$(now)") s after up, at LID $(cat $PORT/lid)"
	else
		bad "ib0 got no carrier in 30 s after the LID change: ib_sa did not follow it"
	fi
	ip link set ib0 down
fi
barrier lid-done 60

knobs_clear
[ $res = 0 ] || fail "see above"
log "PASS"
