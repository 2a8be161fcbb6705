#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh: the main job, shown.  Builds the patched kernel and boots two
# QEMU guests, on the seeds' topology (soft InfiniBand, IPoIB), under the
# patched kernel and under Debian's stock kernel:
#
#  1. demo_ha: bond0 (active-backup) over IPoIB ib0/ib1 on both guests, an
#     RC connection through the RDMA CM kept busy between them; an
#     administrative failover with both links up and a cut of the active
#     link, under the stock kernel and under the patched kernel in the HA
#     modes notify (the default), align and fail-fast: the table says what
#     each side saw, whether the peer was told, what became of the
#     connection, and the longest traffic gap; an SVG timeline shows the
#     client's connection in every phase;
#  2. demo_ipoib_ka: a peer's link cut under idle IPoIB connected-mode
#     connections, under the stock driver and under the patched one with
#     keepalives off and on: how long the dead peer's connections stay.
#
# "Stock" is Debian's own kernel of the base version with its own rdma_cm,
# rdma_ucm and ib_ipoib; only the soft InfiniBand device (rdma_rxe) is ours,
# built against Debian's headers (the replacement-module flavour, `make
# dkms`), since the stock kernel has no InfiniBand device without hardware.
# Its modules build beside the patched guests.
#
# Output: the tables on stdout, out/demo/timeline.svg, the consoles in
# out/demo/{ha,ipoib,ha-stock,ipoib-stock}/.  Exits non-zero when a run
# failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SEL=$RDMA_HA_ROOT/vm

"$RDMA_HA_ROOT/dev/check.sh" --setup-only
"$RDMA_HA_ROOT/dev/build-kernel.sh" patched debug
make -s -C "$RDMA_HA_ROOT/tools/rdma" O="$OUT/tools"
"$SEL/qemu/build-initramfs.sh" "$OUT/initramfs.cpio"

dir=$OUT/demo
rm -rf "$dir"
mkdir -p "$dir"

# The stock side's modules and initramfs, beside the patched guests.
(
	nice -n 10 "$RDMA_HA_ROOT/dev/dkms.sh" all &&
	rm -f "$OUT/initramfs-debian.cpio" &&
	KMOD_ROOT="$OUT/dkms/modroot" EXTRA_ROOT="$OUT/dkms/guest" \
		nice -n 10 "$SEL/qemu/build-initramfs.sh" "$OUT/initramfs-debian.cpio"
) >"$dir/stock-build.log" 2>&1 &
stock_build=$!
trap 'kill $stock_build 2>/dev/null || true' EXIT

rc=0
# run NAME TEST TIMEOUT KERNEL INITRD [APPEND]
run() {
	local args=(--kernel "$4" --initrd "$5" --test "$2" --guests 2
		    --timeout "$3" --outdir "$dir/$1")
	[ -z "${6:-}" ] || args+=(--append "$6")
	log "running $2 on $1 (two guests, a few minutes under TCG)"
	"$SEL/qemu/vm.sh" run "${args[@]}" >"$dir/$1.log" 2>&1 ||
		{ rc=1; tail -n 20 "$dir/$1.log"; }
}

bz=$OUT/patched/build-debug/arch/x86/boot/bzImage
run ha demo_ha 900 "$bz" "$OUT/initramfs.cpio"
run ipoib demo_ipoib_ka 400 "$bz" "$OUT/initramfs.cpio"
if wait $stock_build; then
	run ha-stock demo_ha 400 "$DEB_VMLINUZ" "$OUT/initramfs-debian.cpio" \
		rdma_ha.demo_modes=stock
	run ipoib-stock demo_ipoib_ka 300 "$DEB_VMLINUZ" \
		"$OUT/initramfs-debian.cpio" rdma_ha.demo_ka=stock
else
	rc=1
	log "the stock side's modules did not build: $dir/stock-build.log"
	tail -n 20 "$dir/stock-build.log"
fi
trap - EXIT

echo
python3 "$RDMA_HA_ROOT/dev/demo-report.py" "$dir" "$dir/timeline.svg" || rc=1
echo
echo "consoles: $dir/{ha,ipoib,ha-stock,ipoib-stock}/{a,b}.console"
exit $rc
