#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=420 kernel=patched
#
# Two of Debian's unmodified opensm on the two-node soft InfiniBand
# subnet, one per guest, as a fabric runs a master SM and a standby
# (issue 18: SM change).  The built-in SA is off on both
# (rdma_rxe.sib_builtin_sa=N).  Both SMs poll each other's SMInfo every
# second (sminfo_polling_timeout 1000, polling_retry_number 3: the
# defaults are 10 s and 4).
#  - a's opensm (priority 10) becomes MASTER and brings the subnet up;
#    b's (priority 5), started next, finds a higher master and enters
#    STANDBY; sminfo shows a's SM MASTER; both SM LIDs are a's LID;
#    IPoIB pings over ib0.  Before b's opensm starts, b opens and closes
#    ib_umad's issm0, which sets and clears IsSM in its port's
#    CapabilityMask: each change reaches a's SM as a trap (Notice 144)
#    from b's LID.
#  - b's node description changes (sysfs node_desc): b's port traps to
#    a's SM (Notice 144, NodeDescriptionChange), which reads it again at
#    once: a's SA (saquery NodeRecord of b's LID) has it within 15 s,
#    where OpenSM would otherwise read it in its next heavy sweep only.
#  - a's opensm is killed (SIGKILL: no handover, its port stops being an
#    SM as its issm file closes).  b's standby finds the master gone,
#    takes over (MASTER, SUBNET UP) and sets both ports' SM LID to b's
#    LID (IB_EVENT_SM_CHANGE on a's port through its SMA); IPoIB joins
#    the broadcast group in b's SA and pings again
#    (RDMA-HA-MEASURE sm-takeover-s: from the kill to b's SUBNET UP).
#  - a's opensm comes back with its higher priority: it finds b MASTER,
#    hands the subnet over to itself (SMInfo HANDOVER to b, b STANDBY,
#    a MASTER), and both SM LIDs are a's LID again; IPoIB pings.
#  - the SMs stopped, each guest renames its node twice and deletes its
#    device at once: the queued traps and the send agents go with it.
. "$(dirname "$0")/lib.sh"

need_cmd rdma sminfo saquery opensm
PORT=/sys/class/infiniband/sib0/ports/1
IB_IP=198.18.10.$ROLE_NUM
PEER_IB=198.18.10.$PEER_NUM
res=0
bad() { log "FAIL: $*"; res=1; }
show() {
	log "port: lid $(cat $PORT/lid) sm_lid $(cat $PORT/sm_lid) state $(cat $PORT/state)"
}

nic_setup eth1 "$MY_IP"
echo N >/sys/module/rdma_rxe/parameters/sib_builtin_sa ||
	bad "no module parameter rdma_rxe.sib_builtin_sa"
sib_add sib0 eth0 INIT
ip link set ib0 up || bad "ib0 up"
ip addr add "$IB_IP/24" dev ib0 || bad "address on ib0"
LID=$(($(cat $PORT/lid)))
GUID=0x$(cut -d: -f5-8 $PORT/gids/0 | tr -d :)
peer_exchange ids "$LID $GUID"
set -- $PEER_DATA
PEER_LID=$1 PEER_GUID=$2
# the ports keep the LIDs derived from their GUIDs (OpenSM's guid2lid
# file is empty), so a's LID and b's LID name the SMs' ports throughout
A_LID=$LID B_LID=$PEER_LID
[ "$ROLE" = a ] || { A_LID=$PEER_LID B_LID=$LID; }

mkdir -p /var/log /var/cache/opensm /etc/opensm
cat >/tmp/osm.conf <<EOF
force_log_flush TRUE
sminfo_polling_timeout 1000
polling_retry_number 3
EOF

# start_opensm NAME PRIORITY: opensm on this guest's port, its log in
# /tmp/NAME.log and its output in /tmp/NAME.out
start_opensm() {
	opensm -F /tmp/osm.conf -g "$GUID" -p "$2" -f "/tmp/$1.log" \
		>"/tmp/$1.out" 2>&1 &
	opid=$!
	osm=$1
}
# osm_state WORD: this guest's opensm said "Entering WORD state" (its
# output), within 60 s
osm_state() {
	wait_for 60 grep -q "Entering $1 state" "/tmp/$osm.out" ||
		bad "$ROLE's opensm ($osm) never entered the $1 state: $(grep -E 'Entering|ERR' "/tmp/$osm.out" "/tmp/$osm.log" | tail -n 5 | tr '\n' ' ')"
}
# subnet_up: this guest's opensm logged SUBNET UP, within 60 s
subnet_up() {
	wait_for 60 grep -q 'SUBNET UP' "/tmp/$osm.log" ||
		bad "$ROLE's opensm ($osm) never brought the subnet up"
}
# sm_lid_is LID WHAT: this port's SM LID becomes LID within 30 s, and the
# port is ACTIVE
sm_lid_is() {
	wait_for 30 sh -c "[ \$((\$(cat $PORT/sm_lid))) = $1 ]" ||
		bad "after $2 the SM LID is $(cat $PORT/sm_lid), not $1"
	grep -q ACTIVE $PORT/state || bad "after $2 the port is $(cat $PORT/state)"
	show
}
# sminfo_master LID GUID WHAT: sminfo (from this port, to its SM LID)
# shows the MASTER SM at LID with port GUID GUID
sminfo_master() {
	sminfo -C sib0 -P 1 >/tmp/sminfo.log 2>&1 || bad "sminfo after $3: rc=$?"
	sed 's/^/  sminfo: /' /tmp/sminfo.log
	grep -q "sm lid $1 sm guid $2.*SMINFO_MASTER" /tmp/sminfo.log ||
		bad "after $3 sminfo does not show the MASTER SM at LID $1, GUID $2"
}
# ping_fresh WHAT: IPoIB ping to the peer, neighbours flushed (ARP through
# the broadcast group joined in the current SM's SA, a new path)
ping_fresh() {
	ip neigh flush dev ib0
	wait_for 30 ping -c 1 -W 1 "$PEER_IB" >/dev/null ||
		bad "no IPoIB ping to $PEER_IB after $1"
}

# the port's asynchronous events as user space sees them
ibv_asyncwatch -d sib0 >/tmp/async.log 2>&1 &
apid=$!
# sm_changes: the SM change events of the port so far
sm_changes() { grep -c 'IBV_EVENT_SM_CHANGE' /tmp/async.log; }

# ---- a master and a standby --------------------------------------------------
if [ "$ROLE" = a ]; then
	start_opensm osm-a1 10
	osm_state MASTER
	subnet_up
fi
barrier a-master 120

# ---- IsSM set and cleared on b's port: b's SMA traps to a's SM ---------------
# (before b's opensm runs, whose own traps would hide the port's: an SM in
# STANDBY sends the master a Notice 144 of its own)
if [ "$ROLE" = b ]; then
	# ib_umad sets IsSM while the issm file is open, and clears it
	exec 3</dev/infiniband/issm0 || bad "cannot open issm0"
	nap 1
	grep -q ' SM ' /sys/class/infiniband/sib0/ports/1/cap_mask 2>/dev/null ||
		log "cap_mask with IsSM: $(cat /sys/class/infiniband/sib0/ports/1/cap_mask)"
	exec 3<&-
fi
barrier issm 60
if [ "$ROLE" = a ]; then
	wait_for 10 osm_traps_ge /tmp/osm-a1.log 144 "$B_LID" 2 ||
		bad "a's opensm got $(osm_traps /tmp/osm-a1.log 144 "$B_LID") trap(s) 144 from b's port (LID $B_LID), not 2, for IsSM set and cleared"
	grep 'Received Generic Notice' /tmp/osm-a1.log | head -n 4 | sed 's/^/  osm-a1: /'
fi
barrier issm-seen 60

if [ "$ROLE" = b ]; then
	start_opensm osm-b 5
	osm_state STANDBY
	grep -q 'Entering MASTER state' /tmp/osm-b.out &&
		bad "b's opensm became MASTER beside a's"
fi
barrier b-standby 120
sm_lid_is "$A_LID" "a's opensm came up"
sminfo_master "$A_LID" "$( [ "$ROLE" = a ] && echo "$GUID" || echo "$PEER_GUID")" "the first sweep"
ping_fresh "the first sweep"
barrier pinged 60

# ---- b's node description changes: the master reads it at once ---------------
# (one name both guests know: each shell's $$ is its own, and equal only
# while both guests boot alike; seen differ on a loaded host)
DESC="rdma-ha-b-renamed-lid$B_LID"
if [ "$ROLE" = b ]; then
	echo "$DESC" >/sys/class/infiniband/sib0/node_desc ||
		bad "cannot write sib0's node_desc"
fi
barrier renamed 60
if [ "$ROLE" = a ]; then
	# OpenSM reads a NodeDescription again on a trap that says it
	# changed, and otherwise only in a heavy sweep (none comes here)
	wait_for 15 sh -c "saquery -C sib0 -P 1 NR $B_LID 2>/dev/null | grep -q '$DESC'" ||
		bad "a's SA does not have b's new node description after 15 s: $(saquery -C sib0 -P 1 NR $B_LID 2>&1 | grep -i desc | tr '\n' ' ')"
	grep -E 'Node description update|num:144' /tmp/osm-a1.log | tail -n 3 | sed 's/^/  osm-a1: /'
fi
barrier renamed-seen 60

# ---- the master dies: the standby takes over ---------------------------------
sm0=$(sm_changes)
if [ "$ROLE" = a ]; then
	t0=$(now)
	kill -9 $opid
	wait $opid 2>/dev/null
	log "a's opensm killed"
	peer_exchange killed "$t0"
else
	peer_exchange killed ""
	osm_state MASTER
	subnet_up
	log "b's opensm took over ($(grep -c 'SUBNET UP' /tmp/osm-b.log) SUBNET UP)"
	grep -E 'Entering|SM port is down|no response|HANDOVER|POLLING' /tmp/osm-b.out /tmp/osm-b.log |
		head -n 20 | sed 's/^/  osm-b: /'
fi
barrier takeover 120
sm_lid_is "$B_LID" "b's opensm took over"
if [ "$ROLE" = a ]; then
	t1=$(now)
	log "SM LID is b's $(rel "$t0" "$t1") s after the kill"
	echo "RDMA-HA-MEASURE: sm-takeover-s $(rel "$t0" "$t1")"
fi
# (ib_sa and IPoIB learn the new SM from it: SA queries go to its LID)
wait_for 10 sh -c "[ \$(grep -c IBV_EVENT_SM_CHANGE /tmp/async.log) -gt $sm0 ]" ||
	bad "no IBV_EVENT_SM_CHANGE on the port after the takeover: $(tail -n 3 /tmp/async.log | tr '\n' ' ')"
sminfo_master "$B_LID" "$( [ "$ROLE" = b ] && echo "$GUID" || echo "$PEER_GUID")" "the takeover"
ping_fresh "the takeover"
barrier takeover-pinged 60

# ---- the old master comes back and takes the subnet over ---------------------
sm0=$(sm_changes)
if [ "$ROLE" = a ]; then
	start_opensm osm-a2 10
	osm_state MASTER
	subnet_up
else
	# b hands over: back to STANDBY
	wait_for 90 sh -c "[ \$(grep -c 'Entering STANDBY state' /tmp/osm-b.out) -ge 2 ]" ||
		bad "b's opensm did not hand the subnet over: $(grep -E 'Entering|HANDOVER' /tmp/osm-b.out /tmp/osm-b.log | tail -n 5 | tr '\n' ' ')"
fi
barrier handback 120
sm_lid_is "$A_LID" "a's opensm came back"
wait_for 10 sh -c "[ \$(grep -c IBV_EVENT_SM_CHANGE /tmp/async.log) -gt $sm0 ]" ||
	bad "no IBV_EVENT_SM_CHANGE on the port after the handover: $(tail -n 3 /tmp/async.log | tr '\n' ' ')"
sminfo_master "$A_LID" "$( [ "$ROLE" = a ] && echo "$GUID" || echo "$PEER_GUID")" "the handover"
ping_fresh "the handover"
barrier handback-pinged 60

if [ "$ROLE" = a ]; then
	osm_summary /tmp/osm-a2.log 10
else
	osm_summary /tmp/osm-b.log 10
fi
kill $opid $apid 2>/dev/null
wait $opid $apid 2>/dev/null
sed 's/^/  async: /' /tmp/async.log | head -n 20
barrier done 60

# ---- the device goes with traps to send -----------------------------------
# traps queued by two node description changes (a's SM is gone: they may
# or may not reach it), then the device deleted at once: the trap work
# and the send agents go with the device, within 30 s, with no splat
echo "rdma-ha-$ROLE-1" >/sys/class/infiniband/sib0/node_desc
echo "rdma-ha-$ROLE-2" >/sys/class/infiniband/sib0/node_desc
t0=$(now)
rdma link delete sib0 || bad "rdma link delete sib0 failed"
wait_for 30 sh -c '! test -e /sys/class/infiniband/sib0' ||
	bad "sib0 still there 30 s after rdma link delete"
log "sib0 deleted with traps queued in $(rel "$t0" "$(now)") s"
barrier deleted 60
[ $res = 0 ] || exit 1
log "PASS"
exit 0
