#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# PID 1 of the rdma-ha QEMU test machine (busybox sh).
#
# Kernel command line:
#   rdma_ha.test=NAME     run /selftests/NAME.sh ROLE
#   rdma_ha.role=a|b      this guest's role (default a)
#   rdma_ha.timeout=SEC   kill the scenario after SEC seconds (default 150)
#   rdma_ha.kunit=1       KUnit ran during boot: print a marker, power off
#   rdma_ha.boot=N        this is the guest's Nth boot of the run (vm.sh
#                         restarted it; lib.sh's $BOOT)
#   rdma_ha.KEY=VALUE     any other key is exported as RDMA_HA_KEY=VALUE
#
# Console protocol (read by qemu/vm.sh):
#   RDMA-HA-RESULT: NAME ROLE PASS|FAIL|SKIP rc=N
#   RDMA-HA-CPU: user U nice N system S idle I iowait W irq Q softirq F
#   RDMA-HA-KMEMLEAK: N    (debug kernels; the report follows)
#   RDMA-HA-DONE
# then reboot -f, which ends QEMU (-no-reboot).

export PATH=/usr/sbin:/usr/bin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# What udev makes on a real system: the kselftest runner writes to
# /dev/stdout, which devtmpfs does not have.
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
# A modular kernel (e.g. Debian's): the initramfs lists what to load.
if [ -f /etc/rdma-ha.modules ]; then
	# insmod does not read the command line's MODULE.PARAM=VALUE; we do.
	while read -r ko; do
		mod=$(basename "$ko" .ko | tr - _)
		params=
		for arg in $(cat /proc/cmdline); do
			case "$arg" in
			"$mod".*=*) params="$params ${arg#"$mod".}" ;;
			esac
		done
		# shellcheck disable=SC2086
		insmod "$ko" $params || echo "rdma-ha: insmod $ko failed"
	done </etc/rdma-ha.modules
	# configfs may be one of them (Debian: a module rdma_cm needs, for
	# its configfs directory): mounted above only if built in
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config 2>/dev/null
	# virtio_net probes asynchronously
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -e /sys/class/net/eth1 ] && break
		sleep 0.2
	done
fi
ip link set lo up
hostname rdma-ha

test_name=
role=a
timeout=150
kunit=0
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rdma_ha.test=*)		test_name=${arg#*=} ;;
	rdma_ha.role=*)		role=${arg#*=} ;;
	rdma_ha.timeout=*)	timeout=${arg#*=} ;;
	rdma_ha.kunit=*)	kunit=${arg#*=} ;;
	rdma_ha.*=*)
		key=${arg#rdma_ha.}
		key=$(echo "${key%%=*}" | tr 'a-z.-' 'A-Z__')
		export "RDMA_HA_$key=${arg#*=}"
		;;
	esac
done
export RDMA_HA_ROLE=$role RDMA_HA_TEST=$test_name

finish() {
	# Where the guest's CPU went (USER_HZ ticks since boot: user nice
	# system idle iowait irq softirq), for the check's budget.
	read -r _ cu cn cs ci cw cirq csirq _ </proc/stat
	echo "RDMA-HA-CPU: user $cu nice $cn system $cs idle $ci iowait $cw irq $cirq softirq $csirq"
	if [ -w /sys/kernel/debug/kmemleak ]; then
		# Objects younger than 5 s are never reported: wait 3 s
		# (no CPU) so that what the scenario freed or leaked at its
		# end is old enough, as the second of two back-to-back scans
		# saw it.  A second scan drops transient false positives of
		# the first; when the first reports nothing there is nothing
		# for it to drop, and a scan of a debug guest takes about
		# 1.5 s of CPU under TCG.
		sleep 3
		echo scan >/sys/kernel/debug/kmemleak
		n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
		if [ "$n" != 0 ]; then
			sleep 1
			echo scan >/sys/kernel/debug/kmemleak
			n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
		fi
		echo "RDMA-HA-KMEMLEAK: $n"
		[ "$n" = 0 ] || cat /sys/kernel/debug/kmemleak
	fi
	echo "RDMA-HA-DONE"
	sync
	reboot -f
	sleep 10
	echo o >/proc/sysrq-trigger
}

if [ "$kunit" = 1 ]; then
	echo "RDMA-HA-KUNIT: boot tests finished"
	finish
fi

if [ -z "$test_name" ]; then
	echo "RDMA-HA-RESULT: none $role FAIL rc=1 (no rdma_ha.test= on the command line)"
	finish
fi

script=/selftests/$test_name.sh
echo "RDMA-HA-START: $test_name $role uptime=$(cut -d' ' -f1 /proc/uptime)"
if [ -x "$script" ]; then
	cd /tmp || exit 1
	timeout -k 5 "$timeout" "$script" "$role" </dev/null
	rc=$?
else
	echo "no such scenario: $script"
	rc=1
fi
case $rc in
0)	verdict=PASS ;;
4)	verdict=SKIP ;;
143|137) verdict=FAIL; echo "scenario timed out after ${timeout}s" ;;
*)	verdict=FAIL ;;
esac
echo "RDMA-HA-RESULT: $test_name $role $verdict rc=$rc"
finish
