#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=300 kernel=patched,debian
#
# Bad input for RDMA_OPTION_ID_HA_MODE: ucma_ha_setopt runs every invalid
# rdma_set_option() combination it knows against rxe0 (checking the
# documented errnos), then a randomized loop of RDMA_HA_ITERATIONS calls
# (default 100000; seed RDMA_HA_SEED, default the program's), then, on
# the project's debug kernel (fault injection), a fail-nth sweep that
# fails every slab allocation of create, set HA mode, bind, listen and
# resolve in turn (ucma_ha_setopt --fail-nth).  Debian's kernel has no
# fault injection; there the sweep is not run.  Afterwards kmemleak is
# scanned here, and the runner fails the test on any splat (oops,
# lockdep, WARNING, kmemleak) on the console.
. "$(dirname "$0")/lib.sh"

need_cmd rdma ucma_ha_setopt

nic_setup eth0 "$MY_IP"
rxe_add rxe0 eth0

set -- --addr "$MY_IP" --require --iterations "${RDMA_HA_ITERATIONS:-100000}"
case $(uname -r) in
*+deb*)
	log "Debian's kernel: no fault injection, no fail-nth sweep" ;;
*)
	# GFP_KERNEL allocations fail too; no stack dump per failure
	echo N >/sys/kernel/debug/failslab/ignore-gfp-wait ||
		fail "failslab: cannot turn ignore-gfp-wait off"
	echo 0 >/sys/kernel/debug/failslab/verbose ||
		fail "failslab: cannot quiet it"
	set -- "$@" --fail-nth ;;
esac
[ -z "$RDMA_HA_SEED" ] || set -- "$@" --seed "$RDMA_HA_SEED"
log "ucma_ha_setopt $*"
ucma_ha_setopt "$@"
rc=$?
log "ucma_ha_setopt exited $rc"
[ $rc = 0 ] || [ $rc = 4 ] || fail "ucma_ha_setopt exited $rc"
[ $rc = 0 ] || skip "ucma_ha_setopt skipped"

# kmemleak (debug kernels): objects younger than 5 s are not reported, so
# wait, then scan twice to avoid transient false positives.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	log "kmemleak: $n leaks reported"
	if [ "$n" != 0 ]; then
		cat /sys/kernel/debug/kmemleak
		fail "kmemleak reports $n leaks"
	fi
else
	log "kmemleak not available: leaks not checked"
fi
exit 0
