#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-kernel.sh stock|patched release|debug [extra make args]
#
# Builds out/TREE/build-VARIANT/arch/x86/boot/bzImage out of tree (O=), from
# allnoconfig plus the test machine's config fragment(s), through ccache.
# The object directory sits next to the source (out/TREE/{src,build-*}) so
# that ccache, with base_dir set to out/, sees the same relative paths for
# the stock and the patched tree and shares every unchanged object.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=${1:?usage: $0 stock|patched release|debug}
variant=${2:?usage: $0 stock|patched release|debug}
shift 2
case "$tree" in stock|patched) ;; *) die "unknown tree $tree" ;; esac
case "$variant" in release|debug) ;; *) die "unknown variant $variant" ;; esac

need_pkgs gcc make bc flex bison libelf-dev libssl-dev ccache cpio xz-utils patch
"$(dirname "$0")/prepare-src.sh" "$tree"

src=$OUT/$tree/src
obj=$OUT/$tree/build-$variant
frags="$RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/kernel.config"
[ "$variant" = debug ] &&
	frags="$frags $RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/debug.config"
# Options of the series itself (KUnit suites, test devices) exist only in
# the patched tree.
[ "$tree" = patched ] &&
	frags="$frags $RDMA_HA_ROOT/tools/testing/selftests/rdma/qemu/patched.config"

ccache_env

kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(nproc)" "$@"
}

mkdir -p "$obj"
# Reconfigure when the fragments change.
cfg_hash=$(cat $frags | sha1sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.rdma-ha-cfg" 2>/dev/null)" != "$cfg_hash" ]; then
	log "configuring $tree-$variant"
	kmake -s allnoconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" $frags >/dev/null)
	kmake -s olddefconfig >/dev/null
	# Every option asked for must have survived Kconfig's dependencies.
	bad=$(cat $frags | grep -E '^CONFIG_[A-Z0-9_]+=' | while IFS= read -r l; do
		opt=${l%%=*}; val=${l#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$obj/.config" && echo "$l"
		else
			grep -qx "$l" "$obj/.config" || echo "$l"
		fi
	done)
	[ -z "$bad" ] || die "config options not set as requested (missing dependency?): $bad"
	echo "$cfg_hash" >"$obj/.rdma-ha-cfg"
fi

log "building $tree-$variant kernel"
kmake bzImage "$@"
log "kernel: $obj/arch/x86/boot/bzImage"
