#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh [stock|patched]: the main job.  Build the kernel (patched by
# default), boot two QEMU guests with bond0 (active-backup) over two NICs
# and rxe on bond0, keep an RC connection busy between them, cut the active
# link at both ends, and print the failover timeline.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=${1:-patched}
"$RDMA_HA_ROOT/dev/check.sh" --setup-only
"$RDMA_HA_ROOT/dev/build-kernel.sh" "$tree" debug
make -s -C "$RDMA_HA_ROOT/tools/rdma" O="$OUT/tools"
"$RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/build-initramfs.sh" \
	"$OUT/initramfs.cpio"

dir=$OUT/demo-$tree
rc=0
"$RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/vm.sh" run \
	--kernel "$OUT/$tree/build-debug/arch/x86/boot/bzImage" \
	--initrd "$OUT/initramfs.cpio" --test failover_baseline \
	--guests 2 --timeout 400 --outdir "$dir" || rc=$?

echo
echo "Failover timeline ($tree kernel; times in seconds relative to the link cut):"
for g in a b; do
	[ -f "$dir/$g.console" ] || continue
	sed -n "s/^.*RDMA-HA-DATA: /[$g] /p" "$dir/$g.console"
done
echo
echo "consoles: $dir/{a,b}.console"
exit $rc
