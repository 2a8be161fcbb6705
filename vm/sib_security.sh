#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=420 kernel=patched,kasan smp=2
#
# What an ordinary user and another host can do to rxe and the soft
# InfiniBand device (review soft-ib-0006-0010-0015-0016, issue 18), with
# sib_probe (tools/rdma), run as uid 65534 where the attacker is a user:
#  - controlled Q_Key (D2): a UD send whose WR Q_Key has the high bit set
#    carries the sending QP's own Q_Key: the peer's QP with that Q_Key gets
#    it, the peer's QP with Q_Key 0x80010000 (set by root) gets nothing;
#  - source path bits (D4): a send on an AH with path bits 0x55 arrives with
#    the sender's own LID as SLID (LMC 0);
#  - the built-in SA (D1) creates nothing for MCMemberRecord joins sent by
#    another host, even by root on a QP with the GSI Q_Key, and still
#    answers its own node (saquery, IPoIB's joins: ping over ib0);
#  - QP0 (D7) is not reachable at its QP pool index (QPN 16): the port's
#    rcvd_pkts counter does not count 50 datagrams sent there;
#  - LID -> MAC learning (D5) ignores a frame that fails the ICRC check,
#    and a PathRecord answer for a GID teaches nothing: a's datagrams to
#    the LIDs of both still go to the broadcast address;
#  - RC retry count 7 (D8) is 7 retries, not infinite (IBTA: only the RNR
#    retry count has that meaning): on a, a send to a QP nobody answers
#    completes with a retry exceeded error;
#  - SQE resume race (D3), on guest a over RoCE rxe (2 vCPUs), 600 times: a
#    send that fails locally (its source GID deleted) with 40 good sends
#    queued behind it, SQE -> RTS as soon as the error completion is polled:
#    the QP must stay in RTS, the flushed sends must not put it back in SQE
#    (before the fix 4 of 150 iterations did).
# eth1 carries plain IP for the barriers; sib0 runs on eth0.
. "$(dirname "$0")/lib.sh"

need_cmd rdma saquery ibv_devinfo sib_probe
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
PORT=/sys/class/infiniband/sib0/ports/1
NOBODY="env SIB_PROBE_NOBODY=1"
res=0
bad() { log "FAIL: $*"; res=1; }

nic_setup eth1 "$MY_IP"
sib_add sib0 eth0
LID=$(($(cat $PORT/lid)))
peer_exchange ids "$LID $(cat /sys/class/net/eth0/address)"
set -- $PEER_DATA
PEER_LID=$1 PEER_MAC=$2
log "own LID $LID, peer LID $PEER_LID"
[ -n "$PEER_LID" ] && [ "$PEER_LID" != "$LID" ] || fail "bad peer LID"
ip link set ib0 up || fail "ib0 up"

# ---- D8: RC retry count 7 --------------------------------------------------
# LID 0x779 is nobody's: with a 4 ms local ACK timeout, 8 attempts take well
# under a second even under TCG; 15 s without a completion means "forever".
if [ "$ROLE" = a ]; then
	sib_probe rc-retry --dev sib0 --dlid 0x779 --retry 7 --timeout-exp 10 \
		--wait 15 >/tmp/retry.log 2>&1
	rc=$?
	log "$(cat /tmp/retry.log)"
	[ $rc = 0 ] ||
		bad "D8: an RC send with retry count 7 to a QP nobody answers: $(cat /tmp/retry.log)"
fi
ip addr add "$IB_IP/24" dev ib0 || fail "address on ib0"

# ---- D2 and D4: UD sends from an unprivileged user on b to a -------------
# a: QP "user" with Q_Key 0x22222222 expects two datagrams, QP "gsi" with
# the controlled Q_Key 0x80010000 (root may set it) expects none.
if [ "$ROLE" = a ]; then
	sib_probe ud-recv --dev sib0 --qkey 0x22222222 --count 2 \
		--timeout 60 >/tmp/user.log 2>&1 &
	upid=$!
	sib_probe ud-recv --dev sib0 --qkey 0x80010000 --count 1 \
		--timeout 60 >/tmp/gsi.log 2>&1 &
	gpid=$!
	wait_for 10 grep -q '^qpn' /tmp/user.log || fail "ud-recv: $(cat /tmp/user.log)"
	wait_for 10 grep -q '^qpn' /tmp/gsi.log || fail "ud-recv: $(cat /tmp/gsi.log)"
	peer_exchange qpns "$(awk '/^qpn/ { print $2 }' /tmp/user.log) $(awk '/^qpn/ { print $2 }' /tmp/gsi.log)"
else
	peer_exchange qpns x
	set -- $PEER_DATA
	UQPN=$1 GQPN=$2
	# path bits 0x55, an ordinary Q_Key
	$NOBODY sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn "$UQPN" \
		--qp-qkey 0x22222222 --wr-qkey 0x22222222 --path-bits 0x55 ||
		bad "ud-send with path bits failed"
	# the GSI Q_Key in the WR, to the QP with Q_Key 0x80010000 ...
	$NOBODY sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn "$GQPN" \
		--qp-qkey 0x22222222 --wr-qkey 0x80010000 ||
		bad "ud-send to the controlled Q_Key failed"
	# ... and to the QP whose Q_Key is the sender QP's own
	$NOBODY sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn "$UQPN" \
		--qp-qkey 0x22222222 --wr-qkey 0x80010000 ||
		bad "ud-send with a controlled WR Q_Key failed"
fi
barrier ud-sent
if [ "$ROLE" = a ]; then
	wait_for 15 grep -q '^received' /tmp/user.log
	nap 2
	kill "$gpid" 2>/dev/null
	wait "$gpid"
	kill "$upid" 2>/dev/null
	wait "$upid"
	sed 's/^/  user QP: /' /tmp/user.log
	sed 's/^/  gsi QP: /' /tmp/gsi.log
	n=$(grep -c '^recv: status success' /tmp/user.log)
	[ "$n" = 2 ] ||
		bad "D2: the QP with the sender's own Q_Key got $n of 2 datagrams (a WR Q_Key 0x80010000 must be replaced by the QP's Q_Key)"
	grep -q '^recv' /tmp/gsi.log &&
		bad "D2: an unprivileged user reached a QP with Q_Key 0x80010000: $(grep '^recv' /tmp/gsi.log)"
	slids=$(awk '/^recv: status success/ { print $5 }' /tmp/user.log | sort -u | tr '\n' ' ')
	slids=${slids% }
	want=$(printf '0x%x' "$PEER_LID")
	[ -z "$slids" ] || [ "$slids" = "$want" ] ||
		bad "D4: SLIDs seen '$slids', the sender's LID is $want (path bits 0x55 with LMC 0)"
fi

# ---- D1: the built-in SA and another host ---------------------------------
# b, as root, on a QP with the GSI Q_Key: 8 MCMemberRecord joins to a's SA.
if [ "$ROLE" = b ]; then
	sib_probe sa --dev sib0 --dlid "$PEER_LID" --op join --count 8 \
		--vary mgid --mgid-lo 0x5ec0 --qp-qkey 0x80010000 ||
		bad "sa joins could not be sent"
fi
barrier sa-sent
wait_for 30 ping -c1 -W1 "$PEER_IB" >/dev/null || bad "no ping over ib0"
if [ "$ROLE" = a ]; then
	saquery -g >/tmp/g.log 2>&1 || bad "saquery -g on the own port: rc=$? $(tail -n 2 /tmp/g.log)"
	n=$(grep -ci '601b:ffff::5ec' /tmp/g.log)
	[ "$n" = 0 ] ||
		bad "D1: a's SA created $n groups for joins from another host"
	grep -qi 'ff12:401b:ffff::ffff:ffff' /tmp/g.log ||
		bad "D1: the own IPoIB broadcast group is missing: $(tail -n 3 /tmp/g.log)"
fi
barrier sa-checked

# ---- D7: QP0 at its pool index --------------------------------------------
# QP0 is the device's first QP, pool index 16: 50 datagrams from an
# unprivileged user to QPN 16 must not pass the receive checks on a.
RCVD=$PORT/hw_counters/rcvd_pkts
[ "$ROLE" = a ] && r0=$(cat $RCVD)
barrier qp0-start
if [ "$ROLE" = b ]; then
	$NOBODY sib_probe ud-send --dev sib0 --dlid "$PEER_LID" --qpn 16 \
		--qp-qkey 0x22222222 --count 50 || bad "ud-send to QPN 16 failed"
fi
barrier qp0-sent
if [ "$ROLE" = a ]; then
	r1=$(cat $RCVD)
	log "rcvd_pkts $r0 -> $r1 around 50 datagrams to QPN 16"
	[ $((r1 - r0)) -lt 50 ] ||
		bad "D7: $((r1 - r0)) packets received while b sent 50 to QPN 16 (QP0's pool index)"
fi

# ---- D5: a LID's MAC learned from a frame that fails the ICRC --------------
# b sends a with SLID 0x777 (nobody's LID) and a wrong ICRC; then a sends a
# datagram to LID 0x777.  A LID that a does not know goes to the broadcast
# address; had a learned 0x777 from that frame, it would go to b's MAC.
# Then a asks its SA for the path to fe80::ff:fe00:778, the GID of MAC
# 02:00:00:00:07:78 and LID 0x778 (nobody's), and sends a datagram to LID
# 0x778: had the SA's answer taught a that MAC (a guess that is stale once
# a peer changed its MAC, and chosen by whoever asks), it would go there.
# Each sniffer says "listening" once it sees frames; a's own sniffer tells
# when the bad frame has reached a's receive path (the packet taps run
# before rxe's handler, in the same softirq).
_sniffing() { grep -qx listening "$1"; }
if [ "$ROLE" = a ]; then
	sib_probe sniff --ifname eth0 --dlid "$LID" --slid 0x777 --timeout 60 \
		>/tmp/sniff_in.log 2>&1 &
	apid=$!
	wait_for 30 _sniffing /tmp/sniff_in.log || fail "a's sniffer never listened"
else
	sib_probe sniff --ifname eth0 --dlid 0x777 --timeout 60 >/tmp/sniff.log 2>&1 &
	spid=$!
	sib_probe sniff --ifname eth0 --dlid 0x778 --timeout 60 >/tmp/sniff2.log 2>&1 &
	spid2=$!
	wait_for 30 _sniffing /tmp/sniff.log && wait_for 30 _sniffing /tmp/sniff2.log ||
		fail "b's sniffers never listened"
fi
barrier sniffing
if [ "$ROLE" = b ]; then
	sib_probe raw-send --ifname eth0 --dst-mac "$PEER_MAC" --dlid "$PEER_LID" \
		--slid 0x777 || bad "raw-send failed"
fi
barrier raw-sent
if [ "$ROLE" = a ]; then
	wait $apid
	grep -q '^dst [0-9a-f]' /tmp/sniff_in.log ||
		fail "b's frame from LID 0x777 never reached a: $(cat /tmp/sniff_in.log)"
	sib_probe ud-send --dev sib0 --dlid 0x777 --qpn 1234 || bad "ud-send to LID 0x777 failed"
	saquery --sgid-to-dgid "$(cat $PORT/gids/0)-fe80::ff:fe00:778" >/tmp/pr.log 2>&1 ||
		bad "saquery PathRecord to fe80::ff:fe00:778: rc=$? $(tail -n 2 /tmp/pr.log)"
	# saquery prints the DLID in decimal: 1912 = 0x778
	grep -Eq '^[[:space:]]*dlid\.*1912$' /tmp/pr.log ||
		bad "the SA's path to fe80::ff:fe00:778 has no DLID 0x778: $(cat /tmp/pr.log)"
	sib_probe ud-send --dev sib0 --dlid 0x778 --qpn 1234 || bad "ud-send to LID 0x778 failed"
fi
barrier d5-sent
if [ "$ROLE" = b ]; then
	wait $spid
	log "a's frame to LID 0x777: $(cat /tmp/sniff.log)"
	grep -qx 'dst ff:ff:ff:ff:ff:ff' /tmp/sniff.log ||
		bad "D5: a sent to LID 0x777 as learned from a frame with a bad ICRC: $(cat /tmp/sniff.log)"
	wait $spid2
	log "a's frame to LID 0x778: $(cat /tmp/sniff2.log)"
	grep -qx 'dst ff:ff:ff:ff:ff:ff' /tmp/sniff2.log ||
		bad "D5: a sent to LID 0x778 as derived from the PathRecord for fe80::ff:fe00:778: $(cat /tmp/sniff2.log)"
fi

# ---- D3: SQE resume race, RoCE, guest a -----------------------------------
if [ "$ROLE" = a ]; then
	RACE_IP=198.18.30.$ROLE_NUM
	ip addr add "$RACE_IP/24" dev eth1 || fail "race address"
	rxe_add rxe0 eth1
	gid_index() {
		local f
		for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
			[ "$(cat "$f")" = "$1" ] && { basename "$f"; return 0; }
		done
		return 1
	}
	v4gid=$(echo "$RACE_IP" | awk -F. '{
		printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n", $1, $2, $3, $4 }')
	wait_for 10 gid_index "$v4gid" || fail "no GID for $RACE_IP on rxe0"
	gidx=$(gid_index "$v4gid")
	log "rxe0 GID $gidx is $v4gid"
	case $(cat /sys/class/infiniband/rxe0/ports/1/gids/0) in
	fe80:*) ;;
	*) fail "rxe0 GID 0 is not link-local" ;;
	esac
	_dad_done() { [ -z "$(ip -6 addr show dev eth1 tentative)" ]; }
	wait_for 15 _dad_done || fail "eth1's IPv6 address still tentative"
	log "eth1's link-local address is usable"
	mkfifo /tmp/race.in
	sib_probe sqe-race --dev rxe0 --bad-gid-index "$gidx" --iters 600 \
		--batch 40 </tmp/race.in >/tmp/race.out 2>/tmp/race.err &
	pid=$!
	exec 3>/tmp/race.in
	wait_for 10 grep -qx ready /tmp/race.out ||
		fail "sqe-race: $(cat /tmp/race.out /tmp/race.err)"
	ip addr del "$RACE_IP/24" dev eth1 || fail "race address off eth1"
	wait_for 10 sh -c "! grep -qx $v4gid /sys/class/infiniband/rxe0/ports/1/gids/*" ||
		fail "GID $v4gid still on rxe0"
	log "GID $gidx is gone"
	t0=$(now)
	echo go >&3
	wait $pid
	rc=$?
	exec 3>&-
	log "sqe-race took $(rel "$t0" "$(now)") s"
	sed 's/^/  /' /tmp/race.out
	grep -q '^sqe-race: batch 40: 600 iterations' /tmp/race.out ||
		bad "D3: sqe-race did not run: $(tail -n 3 /tmp/race.err)"
	[ $rc = 0 ] ||
		bad "D3: sqe-race exited $rc: $(grep '^sqe-race' /tmp/race.out)"
	rdma link delete rxe0
fi
barrier end 300
[ $res = 0 ] && log "all assertions hold"
exit $res
