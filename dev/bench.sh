#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh [--variant release|debug] [--only NAME] [--no-build] [--out DIR]:
# benchmarks, not tests.
# Runs every vm/bench_*.sh on the stock and the
# patched kernel in the same run and reports distributions (median, p90,
# p99, max) and patched/stock ratios of the medians, in
# out/bench/report.txt (or DIR/report.txt), plus an SVG picture per benchmark
# (out/bench/NAME.svg).  Absolute times under TCG mean little; the ratios
# and event counts hold.
#
# The release variant (no lockdep, kmemleak, ...) is the default: the debug
# options cost more than the code being measured.  --no-build uses the
# kernels, tools and initramfs already in out/ as they are (Debian's
# kernel included: the replacement modules and their initramfs are not
# rebuilt either).
#
# A benchmark's header line says what it needs:
#	# rdma-ha-bench: guests=N timeout=SEC kernel=stock,patched [mem=MIB] [tsc=host] [initrd=nvme]
# tsc=host gives the guests the host's TSC frequency (tsc_early_khz=, from
# /proc/cpuinfo; TCG's guest TSC is the host's) and the TSC as clocksource:
# without it they calibrate nothing, run on jiffies (4 ms steps) and
# programs that time with cycles, such as perftest, divide by zero.
# initrd=nvme boots the initramfs with nvme-cli and fio (NVME_TOOLS=1,
# out/initramfs-nvme.cpio), as the check's scenarios that ask for it.
# Host variables RDMA_HA_BENCH_KEY=VALUE (commas for lists: "1,16,128") reach
# the guests' scenarios as the same variables (lists stay comma-separated;
# the scripts accept commas or spaces), so runs can be kept short while
# developing: RDMA_HA_BENCH_ROUNDS=3 dev/bench.sh --only bench_failover_ids
#
# A benchmark whose header lists the kernel kind "debian" also runs on
# Debian's own kernel with the replacement modules (dev/dkms.sh); the
# variant does not apply to it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=release
only=
build=1
dir=$OUT/bench
while [ $# -gt 0 ]; do
	case $1 in
	--variant) variant=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--out) dir=$2; shift 2 ;;
	*) die "usage: bench.sh [--variant release|debug] [--only NAME] [--no-build] [--out DIR]" ;;
	esac
done
sel=$RDMA_HA_ROOT/vm
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# meta BENCH KEY: KEY= of BENCH's header line.
meta() {
	sed -n 's/^# rdma-ha-bench:\(.*\)/\1/p' "$1" | tr ' ' '\n' |
		sed -n "s/^$2=//p" | head -n1
}

if [ $build = 1 ]; then
	"$RDMA_HA_ROOT/dev/check.sh" --setup-only
	for t in patched stock; do
		"$RDMA_HA_ROOT/dev/build-kernel.sh" "$t" "$variant"
	done
	make -s -C "$RDMA_HA_ROOT/tools/rdma" O="$OUT/tools"
	"$sel/qemu/build-initramfs.sh" "$OUT/initramfs.cpio"
	for s in "$sel"/bench_*.sh; do
		name=$(basename "$s" .sh)
		[ -z "$only" ] || [ "$only" = "$name" ] || continue
		[ "$(meta "$s" initrd)" = nvme ] || continue
		NVME_TOOLS=1 "$sel/qemu/build-initramfs.sh" "$OUT/initramfs-nvme.cpio"
		break
	done
fi

# The RDMA_HA_BENCH_* knobs, as kernel command line arguments for init.sh.
knobs=
while IFS='=' read -r k v; do
	case $k in RDMA_HA_BENCH_*) ;; *) continue ;; esac
	[[ $v =~ ^[A-Za-z0-9.,:_-]*$ ]] || die "$k: only [A-Za-z0-9.,:_-] please"
	k=${k#RDMA_HA_}
	knobs="$knobs rdma_ha.${k,,}=$v"
done < <(env)

# tsc_append: kernel arguments for tsc=host.
tsc_append() {
	local khz
	grep -qw constant_tsc /proc/cpuinfo ||
		die "tsc=host: the host's TSC has no constant rate"
	khz=$(awk -F: '/^cpu MHz/ { printf "%d\n", $2 * 1000; exit }' /proc/cpuinfo)
	[ -n "$khz" ] || die "tsc=host: no cpu MHz in /proc/cpuinfo"
	echo "tsc_early_khz=$khz tsc=reliable"
}

# Debian's kernel, for the benchmarks that list it.
for s in "$sel"/bench_*.sh; do
	[ $build = 1 ] || break
	name=$(basename "$s" .sh)
	[ -z "$only" ] || [ "$only" = "$name" ] || continue
	case ",$(meta "$s" kernel)," in *,debian,*) ;; *) continue ;; esac
	"$RDMA_HA_ROOT/dev/dkms.sh" all
	KMOD_ROOT="$OUT/dkms/modroot" EXTRA_ROOT="$OUT/dkms/guest" \
		"$sel/qemu/build-initramfs.sh" "$OUT/initramfs-debian.cpio"
	break
done

# kernel KIND / initrd KIND [BENCH]: what a guest of kernel KIND boots.
kernel() {
	case $1 in
	debian) echo "$DEB_VMLINUZ" ;;
	*) echo "$OUT/$1/build-$variant/arch/x86/boot/bzImage" ;;
	esac
}
initrd() {
	case $1 in
	debian) echo "$OUT/initramfs-debian.cpio" ;;
	*)	if [ -n "${2:-}" ] && [ "$(meta "$2" initrd)" = nvme ]; then
			echo "$OUT/initramfs-nvme.cpio"
		else
			echo "$OUT/initramfs.cpio"
		fi ;;
	esac
}

: >"$dir/samples.txt"
for s in "$sel"/bench_*.sh; do
	name=$(basename "$s" .sh)
	[ -z "$only" ] || [ "$only" = "$name" ] || continue
	extra=$knobs
	[ "$(meta "$s" tsc)" != host ] || extra="$extra $(tsc_append)"
	for k in $(meta "$s" kernel | tr ',' ' '); do
		log "$name on $k ($variant)"
		out=$dir/$name-$k
		"$sel/qemu/vm.sh" run \
			--kernel "$(kernel "$k")" --initrd "$(initrd "$k" "$s")" --test "$name" \
			--guests "$(meta "$s" guests)" --timeout "$(meta "$s" timeout)" \
			--mem "$(meta "$s" mem | grep . || echo 1024)" --append "${extra# }" \
			--outdir "$out" >"$out.log" 2>&1 ||
			die "$name on $k failed: $out.log"
		cat "$out"/*.console | tr -d '\r' |
			sed -n "s/^.*RDMA-HA-BENCH: /kernel=$k variant=$variant /p" \
			>>"$dir/samples.txt"
	done
done
python3 "$RDMA_HA_ROOT/dev/bench-report.py" "$dir/samples.txt" "$dir" |
	tee "$dir/report.txt"
