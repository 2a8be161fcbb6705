#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm.sh - host side of the rdma-ha QEMU test machine.
#
#   vm.sh run --kernel BZIMAGE --initrd CPIO --test NAME [--guests 1|2]
#             [--kernel-b BZIMAGE --initrd-b CPIO]
#             [--timeout SEC] [--outdir DIR] [--append "CMDLINE"]
#             [--mem MIB] [--net p2p|switch]
#   vm.sh kunit --kernel BZIMAGE [--initrd CPIO] [--filter GLOB]
#             [--timeout SEC] [--outdir DIR] [--append "CMDLINE"]
#
# run: boots one or two guests (TCG, -cpu max, 1 GiB, one vCPU unless
# --smp says more) that run /selftests/NAME.sh a (and b).  --guests,
# --timeout and --smp default to the scenario's "# rdma-ha: guests=N
# timeout=SEC smp=N" header (smp: 1 without one).  Guest b boots
# --kernel-b and --initrd-b when given (a mixed pair, such as Debian's
# kernel against the patched one), --kernel and --initrd otherwise.
# --mem gives each guest MIB MiB instead (benchmarks that hold many
# objects).  --net (header net=): the NICs on cables (p2p, the default)
# or on one switch (below).
#
# The kernel is the project's bzImage (everything built in) or a modular
# distribution kernel such as Debian's vmlinuz with an initramfs that
# carries its modules (build-initramfs.sh KMOD_ROOT=...; dev/check.sh
# makes one with the replacement modules for its "debian" kernel kind).
#
# CPUs and clock: a second vCPU is a scenario's choice (smp=2 where
# concurrency is the point, cma_ha_race), because under TCG it costs host
# CPU: cma_ha_ib took 236 and 252 CPU-s on two vCPUs against 212 on one
# (all with the TSC clock, see below; 185 on one vCPU and jiffies), and
# ipoib_cm_load 194 against 132.  The vCPUs are sockets of one core each:
# our kernel has no ACPI and finds its CPUs in SeaBIOS's MP table, which
# lists one CPU per package, so two cores of one socket boot as one CPU
# (as every guest of ours did before; Debian's kernel reads ACPI and saw
# two).
#
# Our kernel has no HPET or PM timer either, and calibrating the TSC
# against the PIT fails under TCG, after which it keeps time in jiffies:
# 4 ms steps, no high-resolution timers, and behind by the ticks lost
# while QEMU waits for a host CPU (seen: 1.8 s in 62 s beside a busy
# lane).  Under TCG a guest's TSC is the host's: booted with
# tsc_early_khz= at the host's rate and tsc=reliable, the guest keeps
# time with the TSC (the benchmarks do, dev/bench.sh tsc=host).  The
# scenarios do not: the failure that stopped them (ipoib_cm_keepalive's
# crash phase, "no keepalive probe") was a race in the scenario, seen on
# jiffies too and since fixed, but the TSC costs host CPU (cma_ha_ib: 212
# CPU-s against 185 on jiffies, above), and the scenarios pass on
# jiffies' 4 ms steps.
#
# Network: every guest has two virtio-net NICs, netdevs n0 and n1, MAC
# 52:54:00:00:0G:0N (G = guest 1|2, N = NIC 0|1), backed by QEMU socket
# netdevs on 127.0.0.1 only (no host networking, ever).  Two guests: a.n0 is
# wired to b.n0 and a.n1 to b.n1.  One guest: its n0 is wired to its own n1
# (a loopback cable; put one end in a namespace to use it).  The UDP ports
# are picked per run (free ones around a PID-derived base), so runs can go
# on concurrently.
#
# Switched segment: a scenario whose header says net=switch (or --net
# switch) gets one learning Ethernet switch instead of the cables: a
# vde_switch (Debian's vde-switch) on a UNIX socket in a directory of
# its own under /tmp, with the four NICs (a.n0, a.n1, b.n0, b.n1; one guest: its
# n0 and n1) on ports 1-4, as the two ports of each host's HCA sit on one
# subnet's switch in a fabric.  Every NIC hears every other's broadcasts
# and multicasts (a bond's backup slave hears the probes and replies of
# bonding's ARP monitor, which it cannot on a cable of its own).  Still
# nothing outside QEMU: the switch has no tap and no uplink.
#
# Fault injection: each guest has an HMP monitor on DIR/<guest>.mon.  A
# guest console line "RDMA-HA-HOST: self|peer|both <HMP command>" makes
# this script run the command on the named monitors at once (logged as
# "host <epoch> <guest> <cmd>" in DIR/host.log).  On a switched segment,
# "RDMA-HA-HOST: self|peer|both switch nN off|on" stops and resumes the
# forwarding of the switch port of the guest's NIC nN (the port is moved
# to an isolated VLAN and back), while the NIC keeps its carrier: a
# link that is up at both ends and carries nothing, which only bonding's
# ARP monitor or the RDMA traffic itself can tell.
#
# Guest restart: "RDMA-HA-HOST: self|peer|both restart [KEY=VALUE...]"
# kills the named guests' QEMU (SIGKILL: a power cut, the guest shuts
# nothing down) and starts it again with the same arguments (kernel,
# initrd, MACs, socket netdev ports), plus rdma_ha.boot=N (2 for the
# first restart; init.sh exports it as RDMA_HA_BOOT, lib.sh as $BOOT) and
# rdma_ha.KEY=VALUE for each KEY=VALUE (KEY [a-z0-9_], VALUE
# [A-Za-z0-9_.:,-]; exported as RDMA_HA_KEY), which is how a guest hands
# state to its next boot.  Its rdma_ha.timeout= is what is left of the
# run's.  The console of the new boot is appended to the same
# <guest>.console after a line "==== rdma-ha vm.sh: restart of guest G,
# boot N ====".  The verdict reads RDMA-HA-RESULT and RDMA-HA-DONE from
# the last boot only and looks for kernel splats in all of them.
# -no-reboot stays: a guest that panics or reboots by itself ends.
#
# Output in DIR (default out/vm/runs/NAME-<time>): <guest>.console,
# <guest>.console.ts (host epoch per line), host.log, <guest>.qemu.log.
# Verdict: PASS when every guest printed RDMA-HA-RESULT PASS and no console
# shows a kernel splat; SKIP when one skipped and none failed; FAIL
# otherwise, with the reason and the last 60 console lines of each guest.
# Prints "TEST NAME: PASS|FAIL|SKIP (SECONDS, CPU-SECONDS)", the wall and
# the host CPU time (user and system) of the run; exits 0, 1 or 4.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sel=$(cd "$here/.." && pwd)
root=$(cd "$sel/.." && pwd)

# What counts as a kernel splat on a console.
SPLAT_RE='BUG:|WARNING:|Oops|general protection fault|INFO: possible|possible circular locking|unreferenced object|Kernel panic|INFO: task .* blocked|watchdog: BUG: soft lockup|UBSAN|KASAN|INFO: rcu_|inconsistent lock state|DEBUG_LOCKS_WARN_ON|ODEBUG:|list_add corruption|list_del corruption'

# What counts as an error of the scenario's shell (busybox sh, bash): a
# test or an arithmetic expansion that choked on its operands goes on
# with the wrong answer (an empty "$(f)" compared with -ge is false, so a
# bounded wait becomes unbounded), so it fails the run like a splat.
SHELL_ERR_RE='^(sh|[^ :]*\.sh|/bin/sh|bash): (.*: )?(bad number|syntax error|arithmetic syntax error|Illegal number|integer expression expected|unbound variable|bad substitution)'

usage() {
	sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
die() { echo "vm.sh: $*" >&2; exit 2; }

# load_slack_ms DT_MS LOAD NPROC: the part of DT_MS that a guest is
# estimated to have waited for a CPU on a host with NPROC CPUs and LOAD
# runnable tasks (its load average): DT_MS x (1 - NPROC / LOAD), 0 when
# LOAD <= NPROC.
load_slack_ms() {
	awk -v dt="$1" -v l="$2" -v n="$3" \
		'BEGIN { printf "%d\n", (l > n && n > 0) ? dt * (1 - n / l) : 0 }'
}

mode=${1:-}
[ $# -gt 0 ] && shift
# for the check's self-test
if [ "$mode" = --load-slack-ms ]; then
	load_slack_ms "$@"
	exit
fi
kernel='' initrd='' kernel_b='' initrd_b='' test='' guests='' timeout='' outdir='' append='' filter=''
smp='' net=''
mem=1024
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)  kernel=$2; shift 2 ;;
	--initrd)  initrd=$2; shift 2 ;;
	--kernel-b) kernel_b=$2; shift 2 ;;
	--initrd-b) initrd_b=$2; shift 2 ;;
	--test)    test=$2; shift 2 ;;
	--guests)  guests=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--outdir)  outdir=$2; shift 2 ;;
	--append)  append=$2; shift 2 ;;
	--filter)  filter=$2; shift 2 ;;
	--mem)     mem=$2; shift 2 ;;
	--smp)     smp=$2; shift 2 ;;
	--net)     net=$2; shift 2 ;;
	*) usage ;;
	esac
done
case "$mode" in run|kunit) ;; *) usage ;; esac
[ -n "$kernel" ] || usage
[ -f "$kernel" ] || die "no kernel $kernel"
[[ $mem =~ ^[0-9]+$ ]] && [ "$mem" -ge 256 ] || die "--mem MIB: at least 256"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
command -v socat >/dev/null || die "socat missing (apt-get install socat)"

if [ -z "$initrd" ]; then
	initrd=$root/out/vm/initramfs.cpio
	[ -f "$initrd" ] || "$here/build-initramfs.sh" "$initrd" || die "initramfs build failed"
fi
[ -f "$initrd" ] || die "no initrd $initrd"
kernel_b=${kernel_b:-$kernel} initrd_b=${initrd_b:-$initrd}
[ -f "$kernel_b" ] || die "no kernel $kernel_b"
[ -f "$initrd_b" ] || die "no initrd $initrd_b"

# header_value NAME KEY: KEY=VALUE from the scenario's "# rdma-ha:" line.
header_value() {
	sed -n 's/^# rdma-ha:\(.*\)/\1/p' "$sel/$1.sh" 2>/dev/null |
		tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

if [ "$mode" = run ]; then
	[ -n "$test" ] || usage
	[ -f "$sel/$test.sh" ] || die "no scenario $sel/$test.sh"
	guests=${guests:-$(header_value "$test" guests)}
	timeout=${timeout:-$(header_value "$test" timeout)}
	smp=${smp:-$(header_value "$test" smp)}
	net=${net:-$(header_value "$test" net)}
	label=$test
else
	test=kunit
	guests=1
	label=kunit
fi
guests=${guests:-1}
smp=${smp:-1}
case "$smp" in 1|2|3|4) ;; *) die "--smp 1 to 4" ;; esac
net=${net:-p2p}
case "$net" in p2p) ;;
switch) command -v vde_switch >/dev/null ||
		die "vde_switch missing (apt-get install vde-switch)" ;;
*) die "--net p2p|switch" ;;
esac
timeout=${timeout:-120}
case "$guests" in 1) names="a" ;; 2) names="a b" ;; *) die "--guests 1|2" ;; esac
outdir=${outdir:-$root/out/vm/runs/$label-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir"/*.console "$outdir"/*.console.ts "$outdir"/host.log \
	"$outdir"/*.mon "$outdir"/*.fifo "$outdir"/*.qemu.log "$outdir"/*.restart

# ---- ports: four consecutive free UDP ports on 127.0.0.1 ----
pick_ports() {
	local base used p ok try
	used=$(ss -Hnlua 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
	for try in $(seq 0 50); do
		base=$(( 20000 + ( ($$ * 7 + try * 131 + RANDOM) % 20000 ) * 2 ))
		ok=1
		for p in $base $((base + 1)) $((base + 2)) $((base + 3)); do
			if echo "$used" | grep -qx "$p"; then ok=0; break; fi
		done
		[ $ok = 1 ] && { echo "$base"; return 0; }
	done
	die "no free UDP ports"
}
port_base=$(pick_ports)

# switch_port GUEST NIC: the switch port of NIC n<NIC> of GUEST (1-4).
switch_port() { echo $(( ($1 - 1) * 2 + $2 + 1 )); }

# netdev_args GUEST NIC: the -netdev argument for NIC n<NIC> of GUEST.
netdev_args() {
	local g=$1 n=$2 lp pp
	if [ "$net" = switch ]; then
		echo "vde,id=n$n,sock=$swdir/sw,port=$(switch_port "$g" "$n")"
		return
	fi
	if [ "$guests" = 2 ]; then
		# a.nN <-> b.nN
		lp=$((port_base + 2 * n + (g == 2)))
		pp=$((port_base + 2 * n + (g == 1)))
	else
		# n0 <-> n1 of the one guest
		lp=$((port_base + n))
		pp=$((port_base + 1 - n))
	fi
	echo "socket,id=n$n,udp=127.0.0.1:$pp,localaddr=127.0.0.1:$lp"
}

# switch_cmd CMD: a command to the switch's management console; fails
# unless the switch says Success.
switch_cmd() {
	printf '%s\nlogout\n' "$1" |
		socat -t 2 - "UNIX-CONNECT:$swdir/mgmt" 2>&1 | grep -q '^vde\$ 1000 Success'
}

# The switch: learning, ports 1-4 for the NICs, VLAN 4093 for the ports
# that "switch nN off" isolates.
SWITCH_ISOLATED=4093
swdir=''
if [ "$net" = switch ]; then
	swdir=$(mktemp -d /tmp/rdma-ha-vde.XXXXXX) || die "mktemp"
	vde_switch -s "$swdir/sw" -M "$swdir/mgmt" -n 8 -d -p "$swdir/pid" \
		>"$outdir/switch.log" 2>&1 || die "vde_switch did not start: $(cat "$outdir/switch.log")"
	for x in $(seq 50); do
		[ -S "$swdir/mgmt" ] && [ -S "$swdir/sw/ctl" ] && [ -s "$swdir/pid" ] && break
		sleep 0.1
	done
	switch_cmd "vlan/create $SWITCH_ISOLATED" ||
		{ kill "$(cat "$swdir/pid" 2>/dev/null)" 2>/dev/null; rm -rf "$swdir"
		  die "the switch's management console does not answer"; }
	echo "switch $swdir: vde_switch pid $(cat "$swdir/pid")" >>"$outdir/switch.log"
fi

declare -A qpid=() wpid=()
start_epoch=$EPOCHREALTIME

cleanup() {
	local p
	if [ -n "$swdir" ]; then
		kill "$(cat "$swdir/pid" 2>/dev/null)" 2>/dev/null
		rm -rf "$swdir"
	fi
	for p in "${qpid[@]}"; do
		kill "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${qpid[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	for p in "${wpid[@]}"; do
		kill "$p" 2>/dev/null
	done
	rm -f "$outdir"/*.fifo
}
trap cleanup EXIT
trap 'echo "vm.sh: interrupted" >&2; exit 130' INT TERM

# monitor_cmd GUEST CMD: run an HMP command on GUEST's monitor.
monitor_cmd() {
	printf '%s\n' "$2" | socat -t 0.5 - "UNIX-CONNECT:$outdir/$1.mon" \
		>>"$outdir/$1.monitor.log" 2>&1
}

# switch_port_set GUEST NIC on|off: resume or stop the forwarding of the
# switch port of GUEST's NIC n<NIC>, logged in host.log as the time the
# switch did it (or "switch failed").
switch_port_set() {
	local g=$1 n=$2 how=$3 gi=1 vlan=0 r=ok
	[ "$g" = a ] || gi=2
	[ "$how" = on ] || vlan=$SWITCH_ISOLATED
	if [ -z "$swdir" ]; then
		r="failed: not on a switched segment (net=switch)"
	elif ! switch_cmd "port/setvlan $(switch_port $gi "$n") $vlan"; then
		r=failed
	fi
	printf 'host %s %s switch n%s %s %s\n' "$EPOCHREALTIME" "$g" "$n" "$how" "$r" \
		>>"$outdir/host.log"
}

# console_watch GUEST: copy the console from stdin to the log files and
# serve the guest's RDMA-HA-HOST requests.
console_watch() {
	local g=$1 line tgt cmd targets x
	exec 3>>"$outdir/$g.console" 4>>"$outdir/$g.console.ts"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line//$'\r'/}
		printf '%s\n' "$line" >&3
		printf '%s %s\n' "$EPOCHREALTIME" "$line" >&4
		if [[ $line =~ RDMA-HA-HOST:\ (self|peer|both)\ (.*)$ ]]; then
			tgt=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]}
			case "$tgt" in
			self) targets=$g ;;
			both) targets=$names ;;
			peer) targets=$(for x in $names; do [ "$x" = "$g" ] || echo "$x"; done) ;;
			esac
			[ -n "$targets" ] || printf 'host %s %s no peer for: %s\n' \
				"$EPOCHREALTIME" "$g" "$cmd" >>"$outdir/host.log"
			if [[ $cmd =~ ^restart( |$) ]]; then
				# the main loop carries it out (restart_guest)
				for x in $targets; do
					printf 'host %s %s restart requested by %s\n' \
						"$EPOCHREALTIME" "$x" "$g" >>"$outdir/host.log"
					printf '%s\n' "${cmd#restart}" >"$outdir/$x.restart.new"
					mv "$outdir/$x.restart.new" "$outdir/$x.restart"
				done
				continue
			fi
			if [[ $cmd =~ ^switch\ n([01])\ (on|off)$ ]]; then
				for x in $targets; do
					switch_port_set "$x" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" &
				done
				wait
				continue
			fi
			for x in $targets; do
				printf 'host %s %s %s\n' "$EPOCHREALTIME" "$x" "$cmd" >>"$outdir/host.log"
				monitor_cmd "$x" "$cmd" &
			done
			wait
		fi
	done
}

# ---- boot ----
# no_timer_check: the kernel verifies at boot that the IO-APIC timer
# ticks within a busy loop, and under TCG on a loaded host it may not
# in time: "Kernel panic - not syncing: IO-APIC + timer doesn't work!"
# (seen in a cold check: guest b of cma_ha_ib, kernel builds and four
# other guests beside it).  KVM guests skip the check for the same
# reason; the timer does work once QEMU gets the CPU.
cmdline="console=ttyS0 panic=-1 bonding.max_bonds=0 no_timer_check"
# tsc=unstable: the scenarios keep time in jiffies (above), and that must
# not depend on luck.  On a busy host the PIT calibration of the TSC can
# succeed with a wrong result ("Detected 617.180 MHz" against the host's
# 2596, seen at load 30): the guest's clock then ran four times too fast,
# its timeouts fired early and a barrier gave up on its peer after 60 s
# of real time.  Not when the caller chose a TSC mode (the benchmarks'
# tsc=reliable, which tsc=unstable would override).
case " $append " in
*" tsc="*) ;;
*) cmdline="$cmdline tsc=unstable" ;;
esac
if [ "$mode" = kunit ]; then
	cmdline="$cmdline kunit.enable=1 rdma_ha.kunit=1"
	[ -z "$filter" ] || cmdline="$cmdline kunit.filter_glob=$filter"
else
	cmdline="$cmdline kunit.enable=0 rdma_ha.test=$test"
fi
deadline=$((SECONDS + timeout))
declare -A boot=()
RESTART_MARK='==== rdma-ha vm.sh: restart of guest'

# launch GUEST [EXTRA-CMDLINE]: start GUEST's QEMU (boot ${boot[GUEST]})
# and the watcher of its console.
launch() {
	local g=$1 extra=${2:-} gi=1 k=$kernel i=$initrd left gtimeout n
	local -a args
	[ "$g" = a ] || { gi=2 k=$kernel_b i=$initrd_b; }
	if [ "$mode" = run ]; then
		# The guest kills its scenario a little before we kill the
		# guest.
		left=$((deadline - SECONDS))
		gtimeout=$((left > 40 ? left - 20 : left))
		extra="rdma_ha.timeout=$gtimeout $extra"
	fi
	[ "${boot[$g]}" = 1 ] || extra="$extra rdma_ha.boot=${boot[$g]}"
	args=(-machine q35 -cpu max -accel tcg -smp "$smp,sockets=$smp,cores=1,threads=1" -m "${mem}M"
	      -nodefaults -display none -no-reboot -serial stdio
	      -monitor "unix:$outdir/$g.mon,server,nowait"
	      -kernel "$k" -initrd "$i"
	      -append "$cmdline $extra rdma_ha.role=$g $append")
	for n in 0 1; do
		args+=(-netdev "$(netdev_args $gi $n)"
		       -device "virtio-net-pci,netdev=n$n,mac=52:54:00:00:0$gi:0$n")
	done
	echo "qemu-system-x86_64 ${args[*]}" >>"$outdir/$g.qemu.log"
	rm -f "$outdir/$g.fifo" "$outdir/$g.mon"
	mkfifo "$outdir/$g.fifo"
	console_watch "$g" <"$outdir/$g.fifo" &
	wpid[$g]=$!
	qemu-system-x86_64 "${args[@]}" </dev/null >"$outdir/$g.fifo" \
		2>>"$outdir/$g.qemu.log" &
	qpid[$g]=$!
}

# restart_guest GUEST: carry out a restart request (console_watch wrote
# DIR/GUEST.restart): kill the QEMU, wait for its console to drain, mark
# the console, boot again with the next boot number.
restart_guest() {
	local g=$1 req w extra='' mark
	req=$(cat "$outdir/$g.restart")
	rm -f "$outdir/$g.restart"
	kill -KILL "${qpid[$g]}" 2>/dev/null
	wait "${qpid[$g]}" 2>/dev/null
	wait "${wpid[$g]}" 2>/dev/null
	for w in $req; do
		if [[ $w =~ ^[a-z0-9_]+=[A-Za-z0-9_.:,-]+$ ]]; then
			extra="$extra rdma_ha.$w"
		else
			printf 'host %s %s restart: ignored "%s"\n' \
				"$EPOCHREALTIME" "$g" "$w" >>"$outdir/host.log"
		fi
	done
	boot[$g]=$((${boot[$g]} + 1))
	mark="$RESTART_MARK $g, boot ${boot[$g]} ===="
	printf '%s\n' "$mark" >>"$outdir/$g.console"
	printf '%s %s\n' "$EPOCHREALTIME" "$mark" >>"$outdir/$g.console.ts"
	printf 'host %s %s killed, boot %s:%s\n' "$EPOCHREALTIME" "$g" \
		"${boot[$g]}" "$extra" >>"$outdir/host.log"
	launch "$g" "$extra"
}

for g in $names; do
	boot[$g]=1
	launch "$g"
done

# ---- wait: all guests end, or the timeout ----
# Under host load the guests get less than a CPU each and take longer for
# the same work (cma_ha_roce: 324 s alone, 633 s beside a LANES=3 check,
# over its 900 s with two kernel builds and two more guest pairs beside
# that).  So the deadline moves on by the time the guests are estimated
# to have waited for a CPU (load_slack_ms() of the 1-minute load average,
# every 5 s), by at most the timeout itself, so that a hung guest is
# still ended.  The guests' own timeouts (rdma_ha.timeout) need no such
# help: their clocks fall behind when they get no CPU (that run's guests
# had counted 436 s when their 900 s had passed).
timed_out=0 first_end=
slack_ms=0 slack_max_ms=$((timeout * 1000)) base_deadline=$deadline
ncpu=$(nproc) sampled=$SECONDS
while :; do
	if [ $((SECONDS - sampled)) -ge 5 ] && [ $slack_ms -lt $slack_max_ms ]; then
		read -r load _ </proc/loadavg
		slack_ms=$((slack_ms + $(load_slack_ms $(((SECONDS - sampled) * 1000)) "$load" "$ncpu")))
		[ $slack_ms -le $slack_max_ms ] || slack_ms=$slack_max_ms
		deadline=$((base_deadline + slack_ms / 1000))
		sampled=$SECONDS
	fi
	for g in $names; do
		[ ! -f "$outdir/$g.restart" ] || { restart_guest "$g"; first_end=; }
	done
	alive=0
	for g in $names; do
		kill -0 "${qpid[$g]}" 2>/dev/null && alive=$((alive + 1))
	done
	[ $alive = 0 ] && break
	if [ $SECONDS -ge $deadline ]; then
		timed_out=1
		break
	fi
	# A guest that is gone leaves its peer 20 s to finish.
	if [ $alive -lt "$guests" ]; then
		first_end=${first_end:-$SECONDS}
		[ $((SECONDS - first_end)) -lt 20 ] || { timed_out=2; break; }
	fi
	sleep 0.2
done
for g in $names; do
	kill "${qpid[$g]}" 2>/dev/null
done
for g in $names; do
	wait "${qpid[$g]}" 2>/dev/null
	wait "${wpid[$g]}" 2>/dev/null
done
elapsed=$(awk -v a="$start_epoch" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
# The host CPU the run took: user and system time of the QEMUs and of
# everything else this script waited for (bash's times, second line; in
# this shell, a subshell's children are not ours).
times >"$outdir/.times"
cpu=$(awk 'NR == 2 {
	t = 0
	for (i = 1; i <= 2; i++) {
		split($i, p, "m"); t += p[1] * 60 + p[2]
	}
	printf "%.0f", t }' "$outdir/.times")
rm -f "$outdir/.times"

# last_boot CONSOLE: the console of the guest's last boot (after the last
# restart mark).
last_boot() {
	awk -v m="$RESTART_MARK" 'index($0, m) == 1 { n = NR } END { print n + 1 }' "$1" |
		{ read -r from; tail -n "+$from" "$1"; }
}

# ---- verdict ----
verdict=PASS
reasons=()
bad() { verdict=FAIL; reasons+=("$*"); }

case $timed_out in
1) bad "timeout after ${timeout}s (+$((slack_ms / 1000))s for the host's load)" ;;
2) bad "a guest ended, its peer did not finish within 20 s" ;;
esac
ktap_rc=0
if [ "$mode" = kunit ]; then
	python3 "$here/ktap.py" "$outdir/a.console"
	ktap_rc=$?
	case $ktap_rc in
	0) ;;
	4) [ "$verdict" = PASS ] && verdict=SKIP ;;
	*) bad "KUnit: failures or no KTAP output" ;;
	esac
	grep -q 'RDMA-HA-KUNIT:' "$outdir/a.console" || bad "a: init never ran after KUnit"
fi
for g in $names; do
	c=$outdir/$g.console
	[ -f "$c" ] || { bad "$g: no console"; continue; }
	if [ "$mode" = run ]; then
		r=$(last_boot "$c" | grep -ao "RDMA-HA-RESULT: [^ ]* $g [A-Z]* rc=[0-9]*" | tail -1)
		case "$r" in
		*" PASS rc="*) ;;
		*" SKIP rc="*) [ "$verdict" = PASS ] && verdict=SKIP ;;
		*" FAIL rc="*) bad "$g: scenario failed (${r##* })" ;;
		*) bad "$g: no result" ;;
		esac
	fi
	s=$(grep -aE "$SPLAT_RE" "$c" | head -5)
	[ -z "$s" ] || bad "$g: kernel splat: $(echo "$s" | head -1 | cut -c1-160)"
	s=$(grep -aE "$SHELL_ERR_RE" "$c" | head -1)
	[ -z "$s" ] || [ "$mode" = kunit ] || bad "$g: shell error in the scenario: $(echo "$s" | cut -c1-160)"
	# not grep -q: it would stop reading at RDMA-HA-DONE, the reboot
	# lines after it would meet a closed pipe, and pipefail would make
	# a guest that finished one that did not
	last_boot "$c" | grep -a 'RDMA-HA-DONE' >/dev/null || [ "$mode" = kunit ] ||
		bad "$g: guest did not finish (no RDMA-HA-DONE)"
done
# a fault the host could not inject: the scenario judged a network that
# was not what it asked for
s=$(grep -a ' switch n[01] o[nf]* failed' "$outdir/host.log" 2>/dev/null | head -1)
[ -z "$s" ] || bad "host: $s"
# A failure wins over a skip.
[ ${#reasons[@]} -eq 0 ] || verdict=FAIL

if [ "$verdict" = FAIL ]; then
	for r in "${reasons[@]}"; do
		echo "# $label: $r"
	done
	for g in $names; do
		echo "# ---- last 60 lines of $outdir/$g.console ----"
		tail -n 60 "$outdir/$g.console" 2>/dev/null | sed 's/^/# /'
	done
	[ ! -s "$outdir/host.log" ] || { echo "# ---- host.log ----"; sed 's/^/# /' "$outdir/host.log"; }
fi
[ $slack_ms -lt 1000 ] ||
	echo "# deadline moved on by $((slack_ms / 1000)) s for the host's load"
# Where each guest's vCPU time went (init.sh's RDMA-HA-CPU line of its last
# boot, in USER_HZ ticks): the check's budget is CPU.
for g in $names; do
	last_boot "$outdir/$g.console" 2>/dev/null | tr -d '\r' |
		grep -ao 'RDMA-HA-CPU: user [0-9]* nice [0-9]* system [0-9]* idle [0-9]* iowait [0-9]* irq [0-9]* softirq [0-9]*' |
		tail -n1 | awk -v g="$g" '{
			u = $3 + $5; k = $7 + $13 + $15; t = u + k + $9 + $11
			if (t > 0)
				printf "# guest %s: %.0f s, busy %.0f%% (user %.0f s, kernel %.0f s)\n",
					g, t / 100, 100 * (u + k) / t, u / 100, k / 100
		}'
done
echo "TEST $label: $verdict (${elapsed}s, $cpu CPU-s)"
printf '%s\n' "$verdict" "${reasons[@]}" >"$outdir/verdict"
case $verdict in PASS) exit 0 ;; SKIP) exit 4 ;; *) exit 1 ;; esac
