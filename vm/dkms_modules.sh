#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=180 kernel=debian
#
# The replacement modules (DKMS flavour, dev/dkms.sh) on Debian's own
# kernel:
# - every module in /etc/rdma-ha.dkms is loaded and is ours: its version
#   is the package's and it carries the out-of-tree taint; the
#   distribution's modules around it (ib_core, ib_uverbs, iw_cm) do
#   not;
# - a module built for another release of the same kernel version (CRCs
#   and vermagic accepted by the loader) refuses to load, naming both
#   releases;
# - the distribution's ib_core reads our rdma_cm's IDs right (restrack and
#   nldev reach into struct rdma_id_private): "rdma res show cm_id" shows a
#   listening rping ID with its device, state and address.
. "$(dirname "$0")/lib.sh"

[ -f /etc/rdma-ha.dkms ] || skip "no /etc/rdma-ha.dkms: not a guest with replacement modules"
need_cmd rdma rping insmod rmmod
res=0
krel=$(uname -r)
log "kernel $krel, tainted $(cat /proc/sys/kernel/tainted)"

# 1. Ours, loaded; the distribution's, untouched.
while read -r m v; do
	if [ ! -d "/sys/module/$m" ]; then
		log "FAIL: $m is not loaded"
		res=1
		continue
	fi
	have=$(cat "/sys/module/$m/version" 2>/dev/null)
	taint=$(cat "/sys/module/$m/taint")
	log "$m: version '$have', taint '$taint'"
	[ "$have" = "$v" ] || { log "FAIL: $m is not the replacement module $v"; res=1; }
	case "$taint" in
	*O*) ;;
	*) log "FAIL: $m lacks the out-of-tree taint"; res=1 ;;
	esac
done </etc/rdma-ha.dkms
for m in ib_core ib_uverbs iw_cm; do
	[ -d "/sys/module/$m" ] || { log "FAIL: $m is not loaded"; res=1; continue; }
	taint=$(cat "/sys/module/$m/taint")
	log "$m (distribution): taint '$taint'"
	case "$taint" in
	*O*) log "FAIL: $m is out-of-tree"; res=1 ;;
	esac
done

# 2. A module built for another release refuses to load.
mis=/usr/lib/rdma-ha/mismatch/rdma_ucm.ko
if [ ! -f "$mis" ]; then
	log "FAIL: no $mis in the initramfs"
	res=1
else
	mrel=$(cat /usr/lib/rdma-ha/mismatch/release)
	ours=$(grep '/rdma_ucm\.ko$' /etc/rdma-ha.modules)
	rmmod rdma_ucm || fail "rmmod rdma_ucm"
	if insmod "$mis" 2>/tmp/insmod.err; then
		log "FAIL: rdma_ucm built for $mrel loaded on $krel"
		res=1
		rmmod rdma_ucm
	else
		log "insmod of the module built for $mrel: $(cat /tmp/insmod.err)"
	fi
	msg=$(dmesg | grep "rdma_ucm: rdma-ha .* was built for Linux $mrel, refusing to load on Linux $krel")
	if [ -n "$msg" ]; then
		log "kernel log: $msg"
	else
		log "FAIL: no refusal naming $mrel and $krel in the kernel log"
		dmesg | tail -n 5
		res=1
	fi
	insmod "$ours" || { log "FAIL: reloading $ours"; res=1; }
fi

# 3. ib_core's view of an rdma_cm ID.
nic_setup eth0 "$MY_IP"
rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0"
rping -s -a "$MY_IP" -p 7174 >/tmp/rping.log 2>&1 &
rping_pid=$!
wait_for 10 sh -c 'rdma res show cm_id | grep -q "comm rping"' ||
	{ log "FAIL: rdma res show cm_id lists no rping ID"; res=1; }
line=$(rdma res show cm_id | grep 'comm rping')
log "cm_id: $line"
case "$line" in
*"link rxe0/1 "*"state LISTEN "*"ps TCP "*"src-addr $MY_IP:7174"*) ;;
*) log "FAIL: ib_core misreads the rping ID (want rxe0/1, LISTEN, TCP, $MY_IP:7174)"; res=1 ;;
esac
kill "$rping_pid" 2>/dev/null
wait "$rping_pid" 2>/dev/null
rdma link del rxe0
exit $res
