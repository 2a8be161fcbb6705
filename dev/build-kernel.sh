#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-kernel.sh stock|patched release|debug|kasan [extra make args]
#
# Builds out/TREE/build-VARIANT/arch/x86/boot/bzImage out of tree (O=), from
# allnoconfig plus the test machine's config fragment(s), through ccache.
# The object directory sits next to the source (out/TREE/{src,build-*}) so
# that ccache, with base_dir set to out/, sees the same relative paths for
# the stock and the patched tree and shares every unchanged object.
set -Eeuo pipefail
. "$(dirname "$0")/lib.sh"
# set -e ends the script on a failed command: say which.
trap 'echo "build-kernel.sh: line $LINENO: exit status $?" >&2' ERR

tree=${1:?usage: $0 stock|patched release|debug}
variant=${2:?usage: $0 stock|patched release|debug}
shift 2
case "$tree" in stock|patched) ;; *) die "unknown tree $tree" ;; esac
case "$variant" in release|debug|kasan) ;; *) die "unknown variant $variant" ;; esac

need_pkgs gcc make bc flex bison libelf-dev libssl-dev ccache cpio xz-utils patch
"$(dirname "$0")/prepare-src.sh" "$tree"

src=$OUT/$tree/src
obj=$OUT/$tree/build-$variant
frags="$RDMA_HA_ROOT/vm/qemu/kernel.config"
[ "$variant" = release ] ||
	frags="$frags $RDMA_HA_ROOT/vm/qemu/debug.config"
# kasan: the debug variant with KASAN
[ "$variant" != kasan ] ||
	frags="$frags $RDMA_HA_ROOT/vm/qemu/kasan.config"
# Options of the series itself (KUnit suites, test devices) exist only in
# the patched tree.
[ "$tree" = patched ] &&
	frags="$frags $RDMA_HA_ROOT/vm/qemu/patched.config"

ccache_env

kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(nproc)" "$@"
}

cfg_hash=$(cat $frags | sha1sum | cut -d' ' -f1)
# What this tree's objects are made from: its sources and its fragments.
inputs="$(cat "$OUT/$tree/.src-stamp") $cfg_hash"

# seed_stock: start a cold stock build from a copy of the patched build.
# The two trees differ in a few dozen files and four options, so Kbuild
# then rebuilds only what depends on them (and relinks), instead of
# compiling ~1300 objects (through ccache, still preprocessing each).
# Taken only when the patched object directory was created and completely
# built from the current series and fragments, so that every object in it
# was made from what out/patched/src holds now.  Then, in the copy:
#  - paths are moved from out/patched/ to out/stock/, as a stock build
#    would have written them (saved command lines, dependency lists);
#  - every target whose dependencies name a file that the series
#    changes or adds loses its object and its .cmd, so it is rebuilt.  A
#    file differs exactly when out/patched/src does not share its inode
#    with out/stock/src (prepare-src.sh hard-links both to the base and
#    gives every file the series changes or adds an inode of its own);
#  - the fragments are stamped as unknown, so the tree is reconfigured
#    from the stock Kconfig; Kconfig touches include/config/SYM for every
#    option that changed or vanished, which rebuilds what tests them.
# RDMA_HA_SEED=0 builds the stock kernel without it (dev/check-seed.sh
# compares the two).
seed_stock() {
	local from=$OUT/patched/build-$variant tmp=$obj.seed want lists diffs
	[ "${RDMA_HA_SEED:-1}" != 0 ] || return 0
	want="$(cat "$OUT/patched/.src-stamp" 2>/dev/null) $(cat "$from/.rdma-ha-cfg" 2>/dev/null)"
	[ -f "$from/.rdma-ha-origin" ] && [ -f "$from/.rdma-ha-built" ] || return 0
	[ "$(cat "$from/.rdma-ha-origin")" = "$want" ] &&
		[ "$(cat "$from/.rdma-ha-built")" = "$want" ] || return 0
	# Both trees as "PATH INODE" lines, listed once.
	lists=$(mktemp -d)
	(cd "$OUT/patched/src" && find . -type f -printf '%P %i\n' | sort) >"$lists/patched"
	(cd "$src" && find . -type f -printf '%P %i\n' | sort) >"$lists/stock"
	# A file the series deletes could have been shadowed in an include
	# path by one that stays: no dependency list would name it.
	if [ -n "$(comm -13 <(sed 's/ [0-9]*$//' "$lists/patched") \
			  <(sed 's/ [0-9]*$//' "$lists/stock") | head -1)" ]; then
		log "not seeding $tree-$variant: the series deletes files"
		rm -rf "$lists"
		return 0
	fi
	log "seeding $tree-$variant from patched-$variant"
	rm -rf "$tmp"
	cp -a "$from" "$tmp"
	rm -f "$tmp/.rdma-ha-origin" "$tmp/.rdma-ha-built" "$tmp/.rdma-ha-cfg"
	# The link's products are the patched kernel's: a stock build that
	# fails must not leave them behind for the stock guests to boot.
	rm -f "$tmp/vmlinux" "$tmp/vmlinux.o" "$tmp/vmlinux.a" "$tmp/System.map" \
		"$tmp/arch/x86/boot/bzImage" "$tmp/arch/x86/boot/compressed/vmlinux"
	ln -sfn "$src" "$tmp/source"
	{ grep -rlIZ -F "$OUT/patched/" "$tmp" || true; } |
	while IFS= read -r -d '' f; do
		sed "s,$OUT/patched/,$OUT/stock/,g" "$f" >"$f.rdma-ha-tmp"
		touch -r "$f" "$f.rdma-ha-tmp"
		mv "$f.rdma-ha-tmp" "$f"
	done
	diffs=$lists/differ
	# Dependency lists name sources as ../src/FILE (ccache makes the
	# paths relative to base_dir), command lines as $src/FILE: match both.
	comm -23 "$lists/patched" "$lists/stock" |
		sed 's,^\(.*\) [0-9]*$,/src/\1,' >"$diffs"
	if [ ! -s "$diffs" ]; then
		rm -rf "$lists"
		die "out/patched/src and out/stock/src share every file"
	fi
	{ grep -rlF --include='.*.cmd' -f "$diffs" "$tmp" || true; } |
	while IFS= read -r f; do
		rm -f "$f" "$(dirname "$f")/$(basename "$f" .cmd | sed 's/^\.//')"
	done
	rm -rf "$lists"
	mv "$tmp" "$obj"
}

if [ "$tree" = stock ] && [ ! -d "$obj" ]; then
	seed_stock
fi
if [ ! -d "$obj" ]; then
	mkdir -p "$obj"
	echo "$inputs" >"$obj/.rdma-ha-origin"
fi
rm -f "$obj/.rdma-ha-built"
# Reconfigure when the fragments change.
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.rdma-ha-cfg" 2>/dev/null)" != "$cfg_hash" ]; then
	log "configuring $tree-$variant"
	kmake -s allnoconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" $frags >/dev/null)
	kmake -s olddefconfig >/dev/null
	# Every option asked for must have survived Kconfig's dependencies.
	bad=$(cat $frags | grep -E '^CONFIG_[A-Z0-9_]+=' | while IFS= read -r l; do
		opt=${l%%=*}; val=${l#*=}
		# (every branch ends in success: the loop's status is that of
		# its last command, and set -e would end the script silently)
		if [ "$val" = n ]; then
			if grep -q "^$opt=" "$obj/.config"; then echo "$l"; fi
		else
			grep -qx "$l" "$obj/.config" || echo "$l"
		fi
	done)
	[ -z "$bad" ] || die "config options not set as requested (missing dependency?): $bad"
	echo "$cfg_hash" >"$obj/.rdma-ha-cfg"
fi

log "building $tree-$variant kernel"
kmake bzImage "$@"
[ $# -gt 0 ] || echo "$inputs" >"$obj/.rdma-ha-built"
log "kernel: $obj/arch/x86/boot/bzImage"
