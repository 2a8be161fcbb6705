#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh: the main job, shown.  Builds the patched kernel and boots two
# QEMU guests twice, on the seeds' topology (soft InfiniBand, IPoIB):
#
#  1. demo_ha: bond0 (active-backup) over IPoIB ib0/ib1 on both guests, an
#     RC connection through the RDMA CM kept busy between them; for the HA
#     modes notify (the stock behaviour), align and fail-fast, an
#     administrative failover with both links up and a cut of the active
#     link: the table says what each side saw, whether the peer was told,
#     what became of the connection, and the longest traffic gap; an SVG
#     timeline shows the client's connection in every phase;
#  2. demo_ipoib_ka: a peer's link cut under idle IPoIB connected-mode
#     connections, keepalives off (the stock driver's behaviour) and on:
#     how long the dead peer's connections stay.
#
# Output: the tables on stdout, out/demo/timeline.svg, the consoles in
# out/demo/{ha,ipoib}/.  Exits non-zero when a run failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$RDMA_HA_ROOT/dev/check.sh" --setup-only
"$RDMA_HA_ROOT/dev/build-kernel.sh" patched debug
make -s -C "$RDMA_HA_ROOT/tools/rdma" O="$OUT/tools"
"$RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/build-initramfs.sh" \
	"$OUT/initramfs.cpio"

dir=$OUT/demo
rm -rf "$dir"
mkdir -p "$dir"
rc=0
for t in ha ipoib; do
	case $t in ha) test=demo_ha timeout=900 ;; ipoib) test=demo_ipoib_ka timeout=400 ;; esac
	log "running $test (two guests, a few minutes under TCG)"
	"$RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/vm.sh" run \
		--kernel "$OUT/patched/build-debug/arch/x86/boot/bzImage" \
		--initrd "$OUT/initramfs.cpio" --test "$test" \
		--guests 2 --timeout "$timeout" --outdir "$dir/$t" \
		>"$dir/$t.log" 2>&1 || { rc=$?; tail -n 20 "$dir/$t.log"; }
done

echo
python3 "$RDMA_HA_ROOT/dev/demo-report.py" "$dir/ha" "$dir/ipoib" \
	"$dir/timeline.svg" || rc=1
echo
echo "consoles: $dir/{ha,ipoib}/{a,b}.console"
exit $rc
