#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest-side helpers for the rdma-ha VM scenarios (busybox sh).  Sourced:
#
#	. "$(dirname "$0")/lib.sh"
#
# The scenario runs as "/selftests/NAME.sh ROLE" inside a guest started by
# qemu/vm.sh.  Exit 0 = pass, 4 = skip, anything else = fail.
#
# Topology (two guests): guest a and guest b each have eth0 and eth1; a's
# eth0 is wired to b's eth0 and a's eth1 to b's eth1.  One guest: its eth0
# and eth1 are wired to each other.  Addresses come from 198.18.0.0/15 only:
# role a is 198.18.0.1, role b is 198.18.0.2 (bond0 or eth0), and
# 198.19.0.1/.2 on helper links.

ROLE=${1:-${RDMA_HA_ROLE:-a}}
case "$ROLE" in
a)	ROLE_NUM=1; PEER_NUM=2 ;;
b)	ROLE_NUM=2; PEER_NUM=1 ;;
*)	echo "unknown role '$ROLE'"; exit 1 ;;
esac
MY_IP=198.18.0.$ROLE_NUM
PEER_IP=198.18.0.$PEER_NUM
KSFT_SKIP=4
# The scenarios reconfigure eth0/eth1: run them only in the test VM.
if ! grep -q 'rdma_ha\.test=' /proc/cmdline 2>/dev/null; then
	echo "SKIP: runs only inside the rdma-ha test VM (qemu/vm.sh)"
	exit $KSFT_SKIP
fi
BARRIER_PORT_BASE=7700
# A guest restarted by host_restart carries on with the barriers where the
# guest that asked for the restart was (rdma_ha.barrier_seq=).
_barrier_seq=${RDMA_HA_BARRIER_SEQ:-0}
# BOOT: 1, or N on the (N-1)th restart of this guest by host_restart.
# shellcheck disable=SC2034 # for the scenarios
BOOT=${RDMA_HA_BOOT:-1}

# Debian's static busybox runs its own applets before PATH lookups
# (FEATURE_PREFER_APPLETS), so real tools must be called by path: iproute2.
ip() { /usr/sbin/ip "$@"; }

# now: CLOCK_MONOTONIC as secs.usec (the clock rdma_ha_pingpong uses).
now() { mono_watch now; }

# log MSG...: a time-stamped line on the console.
log() { echo "$(now) $ROLE: $*"; }

# skip REASON / fail REASON: end the scenario.
skip() { log "SKIP: $*"; exit $KSFT_SKIP; }
fail() { log "FAIL: $*"; exit 1; }

# need_cmd CMD...: skip unless every command exists.
need_cmd() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c not available"
	done
}

# host_cmd self|peer|both HMP-COMMAND: ask the host runner to run an HMP
# command on this guest's, the peer's or both QEMU monitors (for instance
# "set_link n0 off").  Asynchronous: observe the effect yourself.
host_cmd() {
	log "host request: $1 $2"
	echo "RDMA-HA-HOST: $1 $2"
}

# host_restart self|peer [KEY=VALUE...]: ask the host runner to kill the
# guest's QEMU (a power cut: nothing is shut down) and boot it again with
# the same kernel, MACs and links.  The new boot runs the same scenario
# with BOOT one higher and RDMA_HA_KEY=VALUE for each KEY=VALUE (KEY in
# [a-z0-9_], VALUE in [A-Za-z0-9_.:,-]); its barriers carry on after the
# last one this guest passed (both guests' barriers are in step).  On
# self, the caller should do nothing but wait for the end.
host_restart() {
	local who="$1"
	shift
	host_cmd "$who" "restart barrier_seq=$_barrier_seq $*"
}

# kmsg_mark TEXT: put TEXT with the current CLOCK_MONOTONIC time into the
# kernel log, so printk time stamps can be converted (see dmesg_offset).
kmsg_mark() { echo "rdma-ha: mark $1 mono=$(now)" >/dev/kmsg; }

# dmesg_offset TAG: printk time minus CLOCK_MONOTONIC, from the mark TAG.
dmesg_offset() {
	dmesg | awk -v tag="$1" '
		$0 ~ "rdma-ha: mark " tag " mono=" {
			sub(/^\[ */, ""); pk = $1 + 0
			for (i = 1; i <= NF; i++)
				if ($i ~ /^mono=/) { m = substr($i, 6) + 0 }
			printf "%.6f\n", pk - m; exit
		}'
}

# kmsg_time TAG PATTERN: the CLOCK_MONOTONIC time of the first kernel log
# line after the mark TAG that matches the awk regular expression PATTERN
# (the kernel's own time stamp of an event, converted with the mark's
# offset); empty if there is none yet.
kmsg_time() {
	dmesg | awk -v tag="$1" -v pat="$2" '
		$0 ~ "rdma-ha: mark " tag " mono=" {
			sub(/^\[ */, ""); off = $1
			for (i = 1; i <= NF; i++)
				if ($i ~ /^mono=/) off -= substr($i, 6)
			on = 1; next
		}
		on && $0 ~ pat {
			sub(/^\[ */, "")
			printf "%.6f\n", $1 - off; exit
		}'
}

# dmesg_save FILE: the kernel log so far.
dmesg_save() { dmesg >"$1"; }

# The guests are emulated (TCG) and run a debug kernel: a fork costs about
# 8 ms of guest time there, a fork and exec of busybox 15 ms, a dynamically
# linked program 100 ms, a shell builtin 0.4 ms.  The helpers that poll
# therefore use builtins only: boot_secs reads /proc/uptime, nap sleeps in
# read -t on a FIFO that nobody writes.
_NAP_FIFO=/tmp/.rdma-ha-nap
[ -p "$_NAP_FIFO" ] || mkfifo "$_NAP_FIFO" 2>/dev/null

# boot_secs: whole seconds since boot, in $BOOT_SECS.
boot_secs() {
	read -r BOOT_SECS _ </proc/uptime
	BOOT_SECS=${BOOT_SECS%.*}
}

# nap SECONDS: sleep (fractions allowed) without starting a process.
nap() { read -r -t "$1" _ <>"$_NAP_FIFO"; true; }

# read_attr FILE: the first line of FILE (sysfs) in $ATTR, empty if none.
read_attr() {
	ATTR=
	read -r ATTR <"$1"
} 2>/dev/null

# wait_for TIMEOUT_S CMD...: poll CMD every 50 ms until it succeeds.
wait_for() {
	local t=$1 end
	shift
	boot_secs
	end=$((BOOT_SECS + t))
	while ! "$@" >/dev/null 2>&1; do
		boot_secs
		[ "$BOOT_SECS" -lt "$end" ] || return 1
		nap 0.05
	done
}

_carrier_is() { read_attr "/sys/class/net/$1/carrier"; [ "$ATTR" = "$2" ]; }

# wait_carrier IF [0|1] [TIMEOUT_S]
wait_carrier() {
	wait_for "${3:-10}" _carrier_is "$1" "${2:-1}" ||
		fail "$1 carrier did not become ${2:-1}"
}

# tcp_listening PORT: a TCP socket listens on PORT (IPv4 or IPv6).
tcp_listening() {
	grep -qi ":$(printf %04X "$1") [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# wait_ping ADDR [TIMEOUT_S]: until ADDR answers a ping.
wait_ping() {
	wait_for "${2:-30}" ping -c1 -W1 "$1" || fail "$1 unreachable"
}

# nic_setup IF [ADDR]: bring IF up (with ADDR/24).
nic_setup() {
	ip link set "$1" up || fail "ip link set $1 up"
	[ -z "$2" ] || ip addr add "$2/24" dev "$1" || fail "address on $1"
}

# bond_setup [BOND-OPTIONS...]: bond0 (active-backup, miimon 100,
# fail_over_mac active unless overridden) over eth0 (active) and eth1, with
# MY_IP/24.
bond_setup() {
	ip link add bond0 type bond mode active-backup miimon 100 \
		fail_over_mac active "$@" || fail "cannot create bond0"
	for s in eth0 eth1; do
		ip link set "$s" down
		ip link set "$s" master bond0 || fail "cannot enslave $s"
	done
	ip link set bond0 up || fail "bond0 up"
	ip addr add "$MY_IP/24" dev bond0 || fail "address on bond0"
	# A slave can come up late (virtio link negotiation): wait for both
	# carriers, then make eth0 the active slave.
	wait_carrier eth0 1 30
	wait_carrier eth1 1 30
	grep -qx eth0 /sys/class/net/bond0/bonding/active_slave ||
		ip link set bond0 type bond active_slave eth0
	wait_for 30 grep -qx eth0 /sys/class/net/bond0/bonding/active_slave ||
		fail "bond0: eth0 is not the active slave ($(cat /sys/class/net/bond0/bonding/active_slave))"
	wait_carrier bond0 1
}

# rxe_add NAME NETDEV: an rxe device on NETDEV, port ACTIVE.
rxe_add() {
	rdma link add "$1" type rxe netdev "$2" || fail "rdma link add $1 on $2"
	wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" ||
		fail "$1 port not ACTIVE: $(cat /sys/class/infiniband/$1/ports/1/state)"
}

# barrier NAME [TIMEOUT_S]: wait until the peer guest reaches the barrier of
# the same NAME.  Both guests must call barriers in the same order.  Runs
# over TCP (busybox nc) to PEER_IP: role a listens, role b connects.  A
# peer that host_restart kills in between is waited for like a slow one
# (give such barriers a TIMEOUT_S that covers a boot); its next boot
# carries on with the next barrier.
barrier() {
	local name=$1 t=${2:-60} port got end
	_barrier_seq=$((_barrier_seq + 1))
	port=$((BARRIER_PORT_BASE + _barrier_seq))
	if [ "$ROLE" = a ]; then
		got=$(timeout "$t" nc -l -p "$port" </dev/null)
		[ "$got" = "$name" ] ||
			fail "barrier $name: peer sent '${got:-nothing}'"
	else
		boot_secs
		end=$((BOOT_SECS + t))
		until timeout 5 nc "$PEER_IP" "$port" 2>/dev/null <<EOF
$name
EOF
		do
			boot_secs
			[ "$BOOT_SECS" -lt "$end" ] ||
				fail "barrier $name: peer never came"
			nap 0.2
		done
	fi
	log "barrier $name"
}

# _nc_send PORT TIMEOUT_S: send stdin (saved first) to PEER_IP:PORT,
# retrying until the peer listens.
_nc_send() {
	local data end
	data=$(cat)
	boot_secs
	end=$((BOOT_SECS + $2))
	until timeout 5 nc "$PEER_IP" "$1" 2>/dev/null <<EOF
$data
EOF
	do
		boot_secs
		[ "$BOOT_SECS" -lt "$end" ] || return 1
		nap 0.2
	done
}

# peer_exchange NAME DATA [TIMEOUT_S]: a barrier that also swaps DATA (any
# number of lines) with the peer guest: the peer's DATA is left in
# $PEER_DATA.  Both guests call it at the same point of their sequence of
# barriers (not in a subshell: it counts barriers).
peer_exchange() {
	local name=$1 data=$2 t=${3:-60} p1 p2 got
	_barrier_seq=$((_barrier_seq + 2))
	p1=$((BARRIER_PORT_BASE + _barrier_seq - 1))
	p2=$((BARRIER_PORT_BASE + _barrier_seq))
	# stdin a FIFO that never ends: busybox nc stops reading the network
	# once its stdin is at its end, which cut the data at about 1 KiB
	[ -p /tmp/px-stdin ] || mkfifo /tmp/px-stdin
	if [ "$ROLE" = a ]; then
		got=$(timeout "$t" nc -l -p "$p1" <>/tmp/px-stdin)
		printf '%s\n%s\n' "$name" "$data" | _nc_send "$p2" "$t" ||
			fail "exchange $name: peer never listened"
	else
		printf '%s\n%s\n' "$name" "$data" | _nc_send "$p1" "$t" ||
			fail "exchange $name: peer never came"
		got=$(timeout "$t" nc -l -p "$p2" <>/tmp/px-stdin)
	fi
	[ "$(printf '%s\n' "$got" | head -n 1)" = "$name" ] ||
		fail "exchange $name: peer sent '${got:-nothing}'"
	PEER_DATA=$(printf '%s\n' "$got" | sed 1d)
	log "exchange $name"
}

# cm_counters DEV [PORT]: the ib_cm message counters of an RDMA port, one
# "GROUP.MSG VALUE" line each: GROUP tx (cm_tx_msgs), rx (cm_rx_msgs),
# retry (cm_tx_retries), dup (cm_rx_duplicates); MSG req, mra, rej, rep,
# rtu, dreq, drep, sidr_req, sidr_rep, lap, apr.
cm_counters() {
	local d=/sys/class/infiniband/$1/ports/${2:-1} g m
	for g in tx:cm_tx_msgs rx:cm_rx_msgs retry:cm_tx_retries \
		 dup:cm_rx_duplicates; do
		for m in req mra rej rep rtu dreq drep sidr_req sidr_rep lap apr; do
			echo "${g%%:*}.$m $(cat "$d/${g#*:}/$m")"
		done
	done
}

# counters_delta BEFORE AFTER: "NAME AFTER-BEFORE" for each "NAME VALUE"
# line of the two files.
counters_delta() {
	awk 'NR == FNR { b[$1] = $2; next } { print $1, $2 - b[$1] }' "$1" "$2"
}

# watch_start FILE PATH...: log every change of the PATHs (sysfs) to FILE
# in the background, with CLOCK_MONOTONIC stamps.
watch_start() {
	local f=$1
	shift
	mono_watch watch -i 2000 "$@" >"$f" 2>&1 &
	_watch_pids="$_watch_pids $!"
}

watch_stop() {
	[ -z "$_watch_pids" ] || kill $_watch_pids 2>/dev/null
	wait $_watch_pids 2>/dev/null
	_watch_pids=
}

# first_time FILE AWK-PATTERN: time stamp (field 1) of the first matching line.
first_time() { awk "$2 { print \$1; exit }" "$1"; }

# rel T0 T: T - T0 in seconds, signed, 3 decimals.
rel() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == "") print "none"; else printf "%+.3f\n", b - a }'; }

# distribution_modules MOD...: on a guest with the replacement modules
# (Debian's kernel, /etc/rdma-ha.dkms), the distribution's own MODs in
# place of ours, loaded in the order given (a module before those that
# depend on it): the stock code, next to our soft InfiniBand device.
distribution_modules() {
	local m ko rev=
	[ -f /etc/rdma-ha.dkms ] ||
		fail "distribution_modules: no replacement modules on this guest"
	for m; do rev="$m $rev"; done
	for m in $rev; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || fail "rmmod $m"
	done
	for m; do
		ko=/usr/lib/rdma-ha/distribution/$m.ko
		[ -f "$ko" ] || fail "no $ko in the initramfs"
		insmod "$ko" || fail "insmod $ko"
		case "$(cat "/sys/module/$m/taint")" in
		*O*) fail "$m is not the distribution's" ;;
		esac
	done
	log "distribution modules of $(uname -r): $*"
}

# sib_add NAME NETDEV [STATE]: a soft InfiniBand device on NETDEV (MTU 4200
# for the 4096-byte IB MTU), port in STATE (ACTIVE; INIT for a port that
# waits for a subnet manager) and its IPoIB interface present.
sib_add() {
	local ib=ib${1#sib} state=${3:-ACTIVE}
	ip link set "$2" mtu 4200 up || fail "$2 up"
	wait_carrier "$2" 1 30
	rdma link add "$1" type sib netdev "$2" || fail "rdma link add $1 on $2"
	wait_for 30 grep -q "$state" "/sys/class/infiniband/$1/ports/1/state" ||
		fail "$1 port not $state"
	wait_for 10 test -d "/sys/class/net/$ib" || fail "no $ib for $1"
}

# sib_two_ports: sib0 as a two-port soft InfiniBand device, as a
# dual-port HCA (rdma_rxe.sib_ports=2): port 1 on eth0, port 2 on eth1
# (MTU 4200), both ACTIVE.
sib_two_ports() {
	local n p
	[ -w /sys/module/rdma_rxe/parameters/sib_ports ] ||
		fail "no sib_ports parameter"
	echo 2 >/sys/module/rdma_rxe/parameters/sib_ports
	for n in eth0 eth1; do
		ip link set $n mtu 4200 up || fail "$n up"
		wait_carrier $n 1 30
	done
	for n in eth0 eth1; do
		rdma link add sib0 type sib netdev $n ||
			fail "rdma link add sib0 $n"
	done
	for p in 1 2; do
		wait_for 30 grep -q ACTIVE /sys/class/infiniband/sib0/ports/$p/state ||
			fail "sib0 port $p not ACTIVE"
	done
}

# ib_bond_setup: the IPoIB bond of the seeds' scenario: sib0 on eth0 and
# sib1 on eth1, their IPoIB interfaces ib0 (active) and ib1 enslaved to an
# active-backup bond0 (miimon 100; bonding forces fail_over_mac=active for
# IPoIB slaves) with MY_IP/24.
ib_bond_setup() {
	sib_add sib0 eth0
	sib_add sib1 eth1
	ib_bond_make "$MY_IP"
	wait_for 30 grep -q . /sys/class/net/bond0/bonding/active_slave ||
		fail "bond0 has no active slave"
	grep -qx ib0 /sys/class/net/bond0/bonding/active_slave ||
		bond_activate ib0
}

# ib_bond_make ADDR: an active-backup bond0 (miimon 100) of ib0 and ib1,
# up, with ADDR/24
ib_bond_make() {
	ip link add bond0 type bond mode active-backup miimon 100 ||
		fail "cannot create bond0"
	for s in ib0 ib1; do
		ip link set $s down
		ip link set $s master bond0 || fail "cannot enslave $s"
	done
	ip link set bond0 up || fail "bond0 up"
	ip addr add "$1/24" dev bond0 || fail "address on bond0"
}

# bond_activate SLAVE: make SLAVE bond0's active slave (administrative
# failover: both links stay up).
bond_activate() {
	echo "$1" >/sys/class/net/bond0/bonding/active_slave ||
		fail "cannot make $1 active"
	wait_for 10 grep -qx "$1" /sys/class/net/bond0/bonding/active_slave ||
		fail "bond0: $1 did not become active"
}

# osm_trap_tids LOG NUM [LID]: the transaction IDs of the traps NUM (from
# LID) OpenSM's LOG records, each once: a trap the SM did not repress in
# time comes again with the same transaction ID, and is one trap
osm_trap_tids() {
	grep "num:$2 .* from LID:${3:-[0-9]*} " "$1" |
		sed -n 's/.* TID:\(0x[0-9a-f]*\)$/\1/p' | sort -u
}
# osm_traps LOG NUM [LID]: how many
osm_traps() { osm_trap_tids "$@" | wc -l; }
# osm_traps_ge LOG NUM LID N: at least N of them (for wait_for)
osm_traps_ge() { [ "$(osm_traps "$1" "$2" "$3")" -ge "$4" ]; }

# osm_summary LOG N: OpenSM's sweeps and errors in LOG, and its N most
# frequent error lines.
osm_summary() {
	log "opensm: $(grep -c 'SUBNET UP' "$1") sweeps, $(grep -c 'ERR' "$1") errors"
	grep 'ERR' "$1" | sed 's/^[^>]*> //' | sort | uniq -c |
		sort -rn | head -n "$2" | sed 's/^/  osm.log errors: /'
}
