#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=300 kernel=patched,debian,kasan
# rdma-ha-opt-in-on: debian: the same code as sib_sma@patched, built as modules; the DKMS modules' soft InfiniBand device runs in sib_smoke@debian (the check's budget, README)
#
# The subnet management agent of soft InfiniBand ports (issue 18), asked
# by Debian's infiniband-diags as an SM would ask it.  Each guest:
#  - its own port by directed route (smpquery -D ... 0: answered in the
#    kernel, process_mad) and by its LID (an SMP on QP0 looped back):
#    NodeInfo, NodeDescription, PortInfo, GUIDInfo, PKeyTable carry what
#    the port has in sysfs (GUIDs, LID, SM LID, state, LMC, P_Key 0xffff);
#  - the peer's port, directed route 0,1 (a DR SMP on the wire, VL15, to
#    the permissive LID, answered back along the return path) and by the
#    peer's LID: the peer's GUIDs, LID and node description;
#  - malformed SMPs (sib_probe smp through ib_umad), locally and at the
#    peer: an unknown attribute, an unknown method, class version 2, a
#    PortInfo of port 2 get their MAD status; a directed route of 70 hops
#    is refused by the MAD layer; no kernel warning;
#  - datagrams from an ordinary user's UD QP to QPN 0 (VL0) and to the
#    permissive LID are not received: only VL15 reaches QP0;
#  - ibstat shows the same port; ibnetdiscover (on a) finds both channel
#    adapters.
# eth1 carries plain IP for the barriers; sib0 runs on eth0.
. "$(dirname "$0")/lib.sh"

need_cmd rdma smpquery ibstat ibnetdiscover sib_probe
PORT=/sys/class/infiniband/sib0/ports/1
SMP="smpquery -C sib0 -P 1 -t 1000"
res=0
bad() { log "FAIL: $*"; res=1; }

# field NAME FILE: the value smpquery prints for NAME ("Name:....value")
field() { sed -n "s/^$1:\.*//p" "$2" | head -n 1; }
# hexguid "5254:00ff:fe10:5a17": 0x525400fffe105a17
hexguid() { echo "0x$1" | tr -d : | tr A-F a-f; }
# smp NAME ARGS...: run smpquery into /tmp/NAME.log, FAIL when it fails
smp() {
	local name=$1 rc
	shift
	$SMP "$@" >"/tmp/$name.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		sed "s/^/  $name: /" "/tmp/$name.log"
		return 0
	fi
	bad "smpquery $*: rc=$rc $(tail -n 2 "/tmp/$name.log" | tr '\n' ' ')"
	return 1
}
# expect WHAT GOT WANT: numbers (hex or decimal) or strings
expect() {
	case "$3" in
	0x*|[0-9]*) [ "$(($2))" = "$(($3))" ] 2>/dev/null && return 0 ;;
	*) [ "$2" = "$3" ] && return 0 ;;
	esac
	bad "$1: '$2', expected '$3'"
}

nic_setup eth1 "$MY_IP"
sib_add sib0 eth0
dmesg -c >/dev/null

LID=$(($(cat $PORT/lid)))
SM_LID=$(($(cat $PORT/sm_lid)))
NODE_GUID=$(hexguid "$(cat /sys/class/infiniband/sib0/node_guid)")
SYS_GUID=$(hexguid "$(cat /sys/class/infiniband/sib0/sys_image_guid)")
PORT_GUID=$(hexguid "$(cut -d: -f5-8 $PORT/gids/0)")
PREFIX=$(hexguid "$(cut -d: -f1-4 $PORT/gids/0)")
DESC=$(cat /sys/class/infiniband/sib0/node_desc)
log "port: LID $LID SM LID $SM_LID node GUID $NODE_GUID port GUID $PORT_GUID desc '$DESC'"
grep -q ACTIVE $PORT/state || bad "port not ACTIVE: $(cat $PORT/state)"
[ "$(cat $PORT/pkeys/0)" = 0xffff ] || bad "P_Key 0 is $(cat $PORT/pkeys/0)"

peer_exchange ids "$LID $NODE_GUID $PORT_GUID $DESC"
set -- $PEER_DATA
PEER_LID=$1 PEER_NODE_GUID=$2 PEER_PORT_GUID=$3 PEER_DESC=$4
[ -n "$PEER_LID" ] && [ "$PEER_LID" != "$LID" ] || fail "bad peer LID '$PEER_LID'"

# ---- ibstat (sysfs) ----------------------------------------------------------
ibstat sib0 1 >/tmp/ibstat.log 2>&1 || bad "ibstat sib0 1: rc=$?"
sed 's/^/  ibstat: /' /tmp/ibstat.log
expect "ibstat Base lid" "$(sed -n 's/^[[:space:]]*Base lid: //p' /tmp/ibstat.log)" "$LID"
expect "ibstat SM lid" "$(sed -n 's/^[[:space:]]*SM lid: //p' /tmp/ibstat.log)" "$SM_LID"
expect "ibstat Port GUID" "$(sed -n 's/^[[:space:]]*Port GUID: //p' /tmp/ibstat.log)" "$PORT_GUID"
expect "ibstat Link layer" "$(sed -n 's/^[[:space:]]*Link layer: //p' /tmp/ibstat.log)" InfiniBand

# ---- the own port: directed route 0 and LID-routed to the own LID ----------
# check_node_info LOG NODE_GUID PORT_GUID
check_node_info() {
	expect "$1 NodeType" "$(field NodeType "/tmp/$1.log")" "Channel Adapter"
	expect "$1 NumPorts" "$(field NumPorts "/tmp/$1.log")" 1
	expect "$1 LocalPort" "$(field LocalPort "/tmp/$1.log")" 1
	expect "$1 Guid" "$(field Guid "/tmp/$1.log")" "$2"
	expect "$1 PortGuid" "$(field PortGuid "/tmp/$1.log")" "$3"
	expect "$1 PartCap" "$(field PartCap "/tmp/$1.log")" 32
}
# check_port_info LOG LID
check_port_info() {
	expect "$1 Lid" "$(field Lid "/tmp/$1.log")" "$2"
	expect "$1 LinkState" "$(field LinkState "/tmp/$1.log")" Active
	expect "$1 PhysLinkState" "$(field PhysLinkState "/tmp/$1.log")" LinkUp
	expect "$1 LMC" "$(field LMC "/tmp/$1.log")" 0
	expect "$1 GidPrefix" "$(field GidPrefix "/tmp/$1.log")" "$PREFIX"
}

if smp ni_dr -D nodeinfo 0; then
	check_node_info ni_dr "$NODE_GUID" "$PORT_GUID"
	expect "ni_dr SystemGuid" "$(field SystemGuid /tmp/ni_dr.log)" "$SYS_GUID"
fi
if smp pi_dr -D portinfo 0; then
	check_port_info pi_dr "$LID"
	expect "pi_dr SMLid" "$(field SMLid /tmp/pi_dr.log)" "$SM_LID"
fi
smp nd_dr -D nodedesc 0 &&
	expect "nd_dr" "$(field 'Node Description' /tmp/nd_dr.log)" "$DESC"
smp guids_dr -D GUIDInfo 0 &&
	{ grep -qi "$PORT_GUID" /tmp/guids_dr.log || bad "GUIDInfo lacks $PORT_GUID"; }
smp pkeys_dr -D pkeys 0 &&
	{ grep -qi 0xffff /tmp/pkeys_dr.log || bad "PKeyTable lacks 0xffff"; }
smp ni_lr nodeinfo "$LID" &&
	check_node_info ni_lr "$NODE_GUID" "$PORT_GUID"
smp pi_lr portinfo "$LID" && check_port_info pi_lr "$LID"
barrier local

# ---- the peer: directed route 0,1 and its LID --------------------------------
smp ni_peer_dr -D nodeinfo 0,1 &&
	check_node_info ni_peer_dr "$PEER_NODE_GUID" "$PEER_PORT_GUID"
smp pi_peer_dr -D portinfo 0,1 && check_port_info pi_peer_dr "$PEER_LID"
smp nd_peer_dr -D nodedesc 0,1 &&
	expect "nd_peer_dr" "$(field 'Node Description' /tmp/nd_peer_dr.log)" "$PEER_DESC"
smp ni_peer_lr nodeinfo "$PEER_LID" &&
	check_node_info ni_peer_lr "$PEER_NODE_GUID" "$PEER_PORT_GUID"
smp pi_peer_lr portinfo "$PEER_LID" && check_port_info pi_peer_lr "$PEER_LID"
# ibnetdiscover sweeps the subnet by directed route: two channel adapters
if [ "$ROLE" = a ]; then
	ibnetdiscover -C sib0 -P 1 >/tmp/netdisc.log 2>&1 ||
		bad "ibnetdiscover: rc=$? $(tail -n 2 /tmp/netdisc.log | tr '\n' ' ')"
	sed 's/^/  ibnetdiscover: /' /tmp/netdisc.log
	n=$(grep -c '^Ca' /tmp/netdisc.log)
	[ "$n" = 2 ] || bad "ibnetdiscover found $n channel adapters, not 2"
	for g in "$NODE_GUID" "$PEER_NODE_GUID"; do
		grep -q "^caguid=$g" /tmp/netdisc.log ||
			bad "ibnetdiscover: no caguid=$g"
	done
fi
barrier peer

# ---- malformed SMPs ----------------------------------------------------------
# probe WHERE STATUS ARGS...: sib_probe smp ARGS must be answered with
# the MAD status STATUS
probe() {
	local where=$1 want=$2 out
	shift 2
	# the answer's bound: 5 s, not the MAD's 1 s with no retry (one MAD
	# each way between two loaded guests)
	out=$(sib_probe smp --dev sib0 --timeout-ms 5000 "$@" 2>&1)
	log "  smp $*: $(echo "$out" | head -n 1)"
	echo "$out" | grep -qx "status $want" ||
		bad "SMP $* ($where): '$(echo "$out" | head -n 1)', expected status $want"
}
for route in "--dr 0" "--dr 0,1" "--dlid $LID" "--dlid $PEER_LID"; do
	# shellcheck disable=SC2086 # the route is two words
	{
		probe "$route" 0x000c $route --attr 0x1234
		probe "$route" 0x0008 $route --attr 0x11 --method 0x10
		probe "$route" 0x0004 $route --attr 0x11 --class-version 2
		probe "$route" 0x001c $route --attr 0x15 --mod 2
		probe "$route" 0x000c $route --attr 0x20
		probe "$route" 0x0000 $route --attr 0x11
	}
done
out=$(sib_probe smp --dev sib0 --dr 0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --attr 0x11 2>&1)
log "  smp, 70 hops: $out"
echo "$out" | grep -q '^refused' || bad "a directed route of 70 hops: '$out'"
barrier malformed

# ---- QP0 takes VL15 only -----------------------------------------------------
# b, as an ordinary user, sends 50 datagrams to a's QPN 0 (on VL0) and 50
# to QPN 0x1234 at the permissive LID: a receives none of them.
RCVD=$PORT/hw_counters/rcvd_pkts
[ "$ROLE" = a ] && r0=$(cat $RCVD)
barrier vl15-start
if [ "$ROLE" = b ]; then
	env SIB_PROBE_NOBODY=1 sib_probe ud-send --dev sib0 --dlid "$PEER_LID" \
		--qpn 0 --count 50 || bad "ud-send to QPN 0 failed"
	env SIB_PROBE_NOBODY=1 sib_probe ud-send --dev sib0 --dlid 0xffff \
		--qpn 0x1234 --count 50 || bad "ud-send to the permissive LID failed"
fi
barrier vl15-sent
if [ "$ROLE" = a ]; then
	r1=$(cat $RCVD)
	log "rcvd_pkts $r0 -> $r1 around 100 datagrams to QPN 0 and the permissive LID"
	[ $((r1 - r0)) -lt 50 ] ||
		bad "$((r1 - r0)) packets received while b sent 50 to QPN 0 on VL0 and 50 to the permissive LID"
fi

if dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN|KASAN|lockdep|possible recursive'; then
	bad "kernel warnings (above)"
fi
barrier done
[ $res = 0 ] && log "PASS"
exit $res
