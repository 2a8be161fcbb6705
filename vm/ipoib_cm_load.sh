#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=900 kernel=patched
#
# IPoIB-CM keepalives under load and packet loss: 1% loss each way on the
# wire under the soft InfiniBand device (netem on eth0), keepalives at
# their defaults (5 s x 3); for RC and then UC connections, LOAD_S seconds
# of back-to-back verified TCP transfers from a to b plus a ping stream
# both ways.  No connection may be torn down: no peer declared dead, no
# failed send, every transfer verified; nor stall: no run of unanswered
# pings as long as the keepalive bound.  60 s is four detection bounds
# per connection type.  (An RC receive connection that the switch to UC
# left without a sender is reaped before the UC load and not counted.)
# One send side declared dead is allowed in a phase where either guest
# did not run for half the send-side bound or more (mono_watch starve;
# RDMA-HA-MEASURE load-NAME-longest-stop-ms): the host's, not the
# keepalive's (seen once, in a full check: the short phase's 2.15 s
# bound, a 2.66 s run of unanswered pings, no stop recorded then).
#
# Nothing crosses the switch between the two phases: the pings of a phase
# run until both guests are done with its load (they are asked for far
# more than LOAD_S and stopped at the barrier), and each guest switches
# its policy only once both have checked the RC phase.  A ping still
# running on one guest when the other switched made that guest resolve
# its peer's address anew (its own address change flushes its ARP
# entries): the one switched to uc learnt the RC-only address of the
# other and connected to it over RC, as it must, and the other learnt the
# new address and opened a second RC connection beside the first; the
# RC connection made that way lives, probed and answered, until the IPoIB
# neighbour of the old address is garbage collected, 60-90 s later.
# Timed by each guest's own clock, the pings did cross the switch: under
# load a guest's clock falls behind by seconds (b's by 8 s in the 65 s of
# the RC phase, in a cold check).
# Then RC at the shortest keepalive setting (100 ms x 2, a bound below
# the soft device's ACK timeout of 268 ms, which each connection raises
# to hold its transport's 8 transmissions: the bound the kernel reports
# in cm_keepalive_tx_bound_ms must hold 8 ACK timeouts), with 0.5% loss
# each way: SHORT_S seconds of the same load, and again no connection
# torn down and no ping unanswered for the longer of the two bounds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

LOAD_S=${RDMA_HA_LOAD_S:-60}
LOSS=${RDMA_HA_LOSS:-1%}
SHORT_S=${RDMA_HA_SHORT_S:-30}
SHORT_LOSS=${RDMA_HA_SHORT_LOSS:-0.5%}
res=0
need_cmd /usr/sbin/tc mono_watch
nic_setup eth1 "$MY_IP"
ib_up rc 5000 3
KA_BOUND=15	# 5 s x 3
tc qdisc add dev eth0 root netem loss "$LOSS" ||
	skip "no netem (CONFIG_NET_SCH_NETEM) in this kernel"
log "eth0: $(tc qdisc show dev eth0)"
dd if=/dev/urandom of=/tmp/blob bs=1048576 count=4 2>/dev/null
blob=$(md5sum </tmp/blob | cut -d' ' -f1)
barrier up
wait_ping "$PEER_IB" 60

# ping_stop NAME: stop the ping stream of phase NAME and log what it lost
# and where, and the longest run of unanswered pings, which must stay
# below the keepalive bound: a connection that carries nothing for that
# long must have been declared dead, and none may be.  Most of the pings
# "lost" on RC are not lost on the connection: the guest's kernel gets
# nearly every echo reply (Icmp InEchoReps), but busybox ping's raw
# socket, which also gets a copy of the peer's 50 echo requests a second,
# has a receive buffer of 2 x 9168 bytes (SO_RCVBUF 2 x size + 7 KiB),
# room for very few IPoIB-CM receive buffers, and drops the replies that
# RC delivers in bursts after each retransmission.
ping_stop() {
	local gap
	log "ping's socket dropped $(cat /proc/net/raw /proc/net/icmp 2>/dev/null |
		awk '$NF ~ /^[0-9]+$/ { d += $NF } END { print d + 0 }') ICMP messages"
	kill -INT $pp 2>/dev/null
	wait $pp
	grep 'packets transmitted' /tmp/ping-$1.log
	log "icmp: $(awk '/^Icmp:/ {
			if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next }
			print "echo requests in", $c["InEchos"], "replies out",
			      $c["OutEchoReps"], "replies in", $c["InEchoReps"]
		}' /proc/net/snmp)"
	gap=$(awk '/ packets transmitted/ { sent = $1 }
		/ bytes from .*seq=/ {
			sub(/.*seq=/, ""); sub(/ .*/, "")
			if ($1 - last - 1 > gap) gap = $1 - last - 1
			last = $1 + 0
		}
		END {
			if (sent - last - 1 > gap) gap = sent - last - 1
			printf "%.2f\n", gap * 0.02
		}' last=-1 /tmp/ping-$1.log)
	echo "RDMA-HA-MEASURE: ping-gap-$1 $gap"
	awk -v g="$gap" -v b="$KA_BOUND" 'BEGIN { exit !(g < b) }' ||
		{ log "FAIL: $1: no ping answered for $gap s (bound $KA_BOUND s)"; res=1; }
}

# load NAME PORT [TYPE]: LOAD_S seconds of transfers a -> b and pings
# both ways over TYPE (NAME) connections.
# A transfer refused while b restarts its listener is tried again; any
# other failure (a reset, a 60 s stall) fails the phase.
load() {
	local n=0 bad=0 refused=0 end sums port=$2 type=${3:-$1} pp sp st lim dead
	barrier "load-$1"
	# the guest's stops of 500 ms or more (a loaded host starving its
	# TCG vCPU): a send side declares its peer dead when a probe is not
	# answered within its bound, and a stop of either guest for half of
	# that leaves the RC transport too little of it
	mono_watch starve -m 500 >/tmp/stall-$1.log 2>&1 &
	sp=$!
	# until both are done with the load: stopped at load-$1-done
	ping -i 0.02 -s 1000 -w $((LOAD_S + 120)) "$PEER_IB" >/tmp/ping-$1.log 2>&1 &
	pp=$!
	if [ "$ROLE" = b ]; then
		: >/tmp/sums-$1
		(
			while :; do
				nc_recv $port /tmp/rx 60 || break
				[ -s /tmp/rx ] || break
				md5sum </tmp/rx | cut -d' ' -f1 >>/tmp/sums-$1
			done
		) &
		local lp=$!
		barrier "load-$1-done" $((LOAD_S + 120))
		ping_stop "$1"
		# a's nc ends at its end of file, not when all its data has
		# arrived: let the last transfer drain (the next listener
		# starts with an empty file)
		wait_for 30 test ! -s /tmp/rx
		kill $lp 2>/dev/null
		wait $lp 2>/dev/null
		barrier "load-$1-sums"
		_nc_send $((port + 1)) 10 </tmp/sums-$1
	else
		boot_secs
		end=$((BOOT_SECS + LOAD_S))
		sleep 1
		while boot_secs && [ "$BOOT_SECS" -lt $end ]; do
			if timeout 60 nc "$PEER_IB" $port </tmp/blob 2>/tmp/nc.err; then
				n=$((n + 1))
			elif grep -q 'refused' /tmp/nc.err; then
				refused=$((refused + 1))
				sleep 0.3
			else
				bad=$((bad + 1))
				log "transfer $((n + bad)) failed: $(cat /tmp/nc.err)"
				sleep 0.3
			fi
		done
		barrier "load-$1-done" 120
		ping_stop "$1"
		nc_recv $((port + 1)) /tmp/peer-sums-$1 30 &
		local sp=$!
		barrier "load-$1-sums"
		wait $sp
		sums=$(grep -c . /tmp/peer-sums-$1)
		log "$1: $n transfers of 4 MiB sent, $sums received," \
		    "$(grep -c -v "$blob" /tmp/peer-sums-$1) corrupt," \
		    "$bad failed, $refused refused while b's listener restarted"
		echo "RDMA-HA-MEASURE: load-$1-transfers $n failed=$bad refused=$refused"
		[ "$n" -ge 3 ] && [ "$bad" = 0 ] && [ "$sums" -ge "$n" ] &&
		! grep -q -v "$blob" /tmp/peer-sums-$1 ||
			{ log "FAIL: $1 transfers"; res=1; }
	fi
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
	st=$(awk '{ d = ($2 - $1) * 1000; if (d > m) m = d } END { printf "%d\n", m }' /tmp/stall-$1.log)
	peer_exchange "stall-$1" "$st"
	[ "${PEER_DATA:-0}" -le "$st" ] || st=$PEER_DATA
	lim=$(awk -v b="${KA_TX_BOUND:-$KA_BOUND}" 'BEGIN { printf "%d\n", b * 500 }')
	echo "RDMA-HA-MEASURE: load-$1-longest-stop-ms $st"
	cm_stats "$1"
	# one send side declared dead across such a stop is the host's
	dead=0
	if [ "$st" -ge "$lim" ]; then
		dead=1
		log "$1: a guest stopped for $st ms (half the send-side bound: $lim ms): one peer declared dead is allowed"
	fi
	expect cm_ka_tx_dead -le "$((tx_dead0 + dead))"
	expect cm_ka_rx_dead -eq "$rx_dead0"
	expect cm_tx_failed -eq "$tx_failed0"
	expect cm_tx_${type}_conns -eq 1
}

tx_dead0=0 rx_dead0=0 tx_failed0=0
load rc 9700
# both checked the RC phase: now nothing of it is in flight
barrier switch
ib_policy uc
barrier uc
wait_ping "$PEER_IB" 60
# The switch tore down the RC connections.  A send side that goes away
# sends its DREQ once (the IB CM cancels its retries when the ID is
# destroyed): when netem drops it, the peer's RC receive side is left
# without a sender, and the keepalive reaps it after 5 s x 3 of silence,
# counted in cm_ka_rx_dead (seen once in a cold check).  That is the
# keepalive's job, not a loss under load: wait for it, then count from
# there.
_no_rc_rx() { [ "$(cm_stat cm_rx_rc_conns)" = 0 ]; }
wait_for 40 _no_rc_rx ||
	{ log "FAIL: an RC receive connection outlived the switch to UC"; res=1; }
rx_dead0=$(cm_stat cm_ka_rx_dead)
[ "$rx_dead0" = 0 ] || log "the switch left $rx_dead0 RC receive connection(s) without a sender; reaped by the keepalive"
load uc 9710
tc -s qdisc show dev eth0 | head -n 3

# ---- RC at the shortest keepalive setting, 0.5% loss ----
echo 1 >/sys/module/ib_ipoib/parameters/debug_level
# new connections, with the new setting, once both ends have counted
barrier uc-counted
ip link set ib0 down
ib_config rc 100 2
tc qdisc change dev eth0 root netem loss "$SHORT_LOSS" ||
	fail "netem loss $SHORT_LOSS"
barrier short
wait_ping "$PEER_IB" 60
# the UC connections that the switch ended may have lost their DREQ
_no_uc_rx() { [ "$(cm_stat cm_rx_uc_conns)" = 0 ]; }
wait_for 40 _no_uc_rx ||
	{ log "FAIL: a UC receive connection outlived the switch to RC"; res=1; }
tx_dead0=$(cm_stat cm_ka_tx_dead) rx_dead0=$(cm_stat cm_ka_rx_dead)
tx_failed0=$(cm_stat cm_tx_failed)
# The bound in use, as the kernel reports it, must hold the 8 ACK
# timeouts of the send-side connection's QP (its debug line gives the
# exponent): 100 ms x 2 cannot hold on this path.
ka_bounds
ack=$(dmesg | sed -n 's/.*ack timeout \([0-9]*\) retry count.*/\1/p' | tail -n 1)
log "ack timeout exponent $ack; setting 100 ms x 2; bound in use $KA_TX_BOUND s"
echo "RDMA-HA-MEASURE: short-tx-bound $KA_TX_BOUND short-rx-bound $KA_RX_BOUND ack=$ack"
# (busybox awk has no ^: 2^t by multiplication)
if [ -z "$ack" ] || awk -v t="$ack" -v b="$KA_TX_BOUND" 'BEGIN {
	for (p = 1; t-- > 0; ) p *= 2
	exit !(b * 1000 < int(8 * 4.096e-3 * p)) }'; then
	log "FAIL: the send-side bound $KA_TX_BOUND s does not hold 8 ACK timeouts (2^${ack:-?} x 4.096 us)"
	res=1
fi
# a ping and its answer cross both connections: a run of unanswered
# pings as long as the longer bound means a side should have declared
# its peer dead (pings lost in ping's own socket make runs of up to 1.8 s
# here, so the send side's 2.15 s alone would be too close)
KA_BOUND=$(awk -v t="$KA_TX_BOUND" -v r="$KA_RX_BOUND" 'BEGIN { print (t > r) ? t : r }')
LOAD_S=$SHORT_S
load short 9720 rc
dmesg | grep -E 'keepalive interval raised|ack timeout [0-9]+ retry count' | tail -n 4
tc -s qdisc show dev eth0 | head -n 3
barrier end
exit $res
