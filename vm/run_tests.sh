#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run_tests.sh [--kernel BZIMAGE] [--initrd CPIO] [--outdir DIR]
#              [--append CMDLINE] [--kunit] [SCENARIO...]
#
# Runs rdma-ha VM scenarios (default: every *.sh here with an "# rdma-ha:"
# header) through qemu/vm.sh, each in its own guest(s), and ends with
# "N passed, N failed, N skipped".  Exits 1 when anything failed.
#
#   --kernel   default out/patched/build-debug/arch/x86/boot/bzImage
#   --initrd   default: built now into out/vm/initramfs.cpio
#   --kunit    also boot once for the KUnit suites built into the kernel
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
kernel=$root/out/patched/build-debug/arch/x86/boot/bzImage
initrd='' outdir=$root/out/vm/runs/run-$(date +%Y%m%d-%H%M%S)-$$ append='' kunit=0
tests=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--outdir) outdir=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--kunit)  kunit=1; shift ;;
	-h|--help) sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run_tests.sh: unknown option $1" >&2; exit 2 ;;
	*) tests+=("${1%.sh}"); shift ;;
	esac
done
[ -f "$kernel" ] || { echo "run_tests.sh: no kernel $kernel" >&2; exit 2; }
if [ ${#tests[@]} -eq 0 ]; then
	for f in "$here"/*.sh; do
		grep -q '^# rdma-ha:' "$f" && tests+=("$(basename "$f" .sh)")
	done
fi
mkdir -p "$outdir"
if [ -z "$initrd" ]; then
	initrd=$outdir/initramfs.cpio
	"$here/qemu/build-initramfs.sh" "$initrd" || exit 1
fi

pass=0 fail=0 skip=0
count() {
	case $1 in
	0) pass=$((pass + 1)) ;;
	4) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
}
# The KTAP parser against its fixtures (host only, instant).
if python3 "$here/qemu/ktap.py" --self-test >"$outdir/ktap-selftest.log" 2>&1; then
	echo "TEST ktap-parser: PASS"; count 0
else
	cat "$outdir/ktap-selftest.log"; echo "TEST ktap-parser: FAIL"; count 1
fi
if [ $kunit = 1 ]; then
	"$here/qemu/vm.sh" kunit --kernel "$kernel" --initrd "$initrd" \
		--outdir "$outdir/kunit"
	count $?
fi
for t in "${tests[@]}"; do
	"$here/qemu/vm.sh" run --kernel "$kernel" --initrd "$initrd" --test "$t" \
		--outdir "$outdir/$t" ${append:+--append "$append"}
	count $?
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
