#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=900 kernel=patched,kasan
#
# The kselftests of tools/testing/selftests/rdma, as a kernel developer
# runs them: built and installed by the kernel's kselftest Makefile
# (make -C tools/testing/selftests TARGETS=rdma install, at initramfs
# build) and run by its runner, run_kselftest.sh -c rdma, in one guest.
# Every test of the rdma collection must report ok: a skip or a failure
# fails the scenario, and so does a collection that ran fewer tests than
# its kselftest-list.txt names.  The runner checks the console for splats.
. "$(dirname "$0")/lib.sh"

K=/kselftest
[ -x $K/run_kselftest.sh ] || fail "no $K/run_kselftest.sh in the initramfs"
want=$(grep -c '^rdma:' $K/kselftest-list.txt)
[ "$want" -ge 1 ] || fail "kselftest-list.txt names no rdma test"

log "run_kselftest.sh -c rdma ($want tests)"
$K/run_kselftest.sh -c rdma >/tmp/ksft.out 2>&1
rc=$?
cat /tmp/ksft.out
log "run_kselftest.sh exited $rc"

ok=$(grep -c '^ok [0-9]* selftests: rdma: ' /tmp/ksft.out)
bad=$(grep -c '^not ok [0-9]* selftests: rdma: ' /tmp/ksft.out)
skipped=$(grep -c '^ok [0-9]* selftests: rdma: .*# SKIP' /tmp/ksft.out)
[ "$bad" = 0 ] || fail "$bad rdma kselftests failed"
[ "$skipped" = 0 ] || fail "$skipped rdma kselftests skipped"
[ "$ok" = "$want" ] || fail "$ok of $want rdma kselftests reported ok"
# the test's own TAP: the HA mode table ran, and the fail-nth sweep
# (the debug kernels have fault injection)
grep -q '^# ok .*mode' /tmp/ksft.out ||
	fail "rdma_cm_ha_mode.sh printed no per-mode result"
grep -q '^# ok [0-9]* - fail-nth sweep' /tmp/ksft.out ||
	fail "rdma_cm_ha_mode.sh ran no fail-nth sweep"
[ $rc = 0 ] || fail "run_kselftest.sh exited $rc"
log "rdma kselftests: $ok of $want ok"
exit 0
