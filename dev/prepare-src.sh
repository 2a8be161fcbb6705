#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# prepare-src.sh base|stock|patched
#
#   base     unpack the pinned Debian linux-source-6.12 into out/base/linux
#   stock    out/stock/src: the pristine base (hard-linked copy)
#   patched  out/patched/src: base + new files + patches/series (zero fuzz)
#
# Trees are regenerated only when their inputs change, so kernel rebuilds
# stay incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

prepare_base() {
	local stamp=$OUT/base/.stamp have
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$BASE_VERSION" ]; then
		return 0
	fi
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	if [ "$have" != "$BASE_VERSION" ]; then
		log "installing $BASE_PKG=$BASE_VERSION (have: ${have:-none})"
		[ -e /var/lib/apt/lists/lock ] || apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends --allow-downgrades \
			"$BASE_PKG=$BASE_VERSION" >&2 ||
		{ apt-get update -q >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends --allow-downgrades \
			"$BASE_PKG=$BASE_VERSION" >&2; } ||
		die "cannot install $BASE_PKG=$BASE_VERSION; the base is pinned in dev/lib.sh (BASE_VERSION)"
	fi
	log "unpacking $BASE_TARBALL ($BASE_VERSION)"
	rm -rf "$OUT/base"
	mkdir -p "$OUT/base"
	tar -C "$OUT/base" -xJf "$BASE_TARBALL"
	mv "$OUT/base/linux-source-6.12" "$BASE_DIR"
	# The base is read-only by convention: the trees are copies of it.
	echo "$BASE_VERSION" >"$stamp"
}

# apply_series DIR: apply patches/series to DIR with zero fuzz, naming the
# patch and hunk that fails.
apply_series() {
	local dir=$1 p f out
	for p in $(series_patches); do
		f=$RDMA_HA_ROOT/patches/$p
		[ -f "$f" ] || die "patches/series names $p, which does not exist"
		# Break hard links to the base before patching in place.
		for t in $(patch_targets "$f"); do
			if [ -f "$dir/$t" ]; then
				cp -p "$dir/$t" "$dir/$t.rdma-ha-tmp"
				mv "$dir/$t.rdma-ha-tmp" "$dir/$t"
			fi
		done
		if ! out=$(cd "$dir" && patch -p1 -F0 -N -s --no-backup-if-mismatch \
				-r - <"$f" 2>&1); then
			echo "$out" | sed 's/^/    /' >&2
			die "patch $p does not apply with zero fuzz to $BASE_PKG $BASE_VERSION (failing file and hunk above)"
		fi
		[ -z "$out" ] || { echo "$out" >&2; die "patch $p: unexpected output from patch"; }
	done
}

inputs_hash() {
	(cd "$RDMA_HA_ROOT" && { echo "$BASE_VERSION"; overlay_files |
	  while read -r f; do sha1sum "$f"; done; cat patches/series;
	  for p in $(series_patches); do sha1sum "patches/$p"; done; }) |
		sha1sum | cut -d' ' -f1
}

prepare_tree() {
	local tree=$1 dst=$OUT/$1/src stamp=$OUT/$1/.src-stamp want
	if [ "$tree" = stock ]; then
		want=$BASE_VERSION
	else
		want=$(inputs_hash)
	fi
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dst" ]; then
		return 0
	fi
	log "preparing $tree source tree"
	rm -rf "$dst.new"
	mkdir -p "$OUT/$tree"
	cp -al "$BASE_DIR" "$dst.new"
	if [ "$tree" = patched ]; then
		overlay_files | while read -r f; do
			if [ -e "$BASE_DIR/$f" ]; then
				die "new file $f exists upstream: change it through patches/ instead"
			fi
			mkdir -p "$dst.new/$(dirname "$f")"
			cp -p "$RDMA_HA_ROOT/$f" "$dst.new/$f"
		done
		apply_series "$dst.new"
	fi
	rm -rf "$dst"
	mv "$dst.new" "$dst"
	echo "$want" >"$stamp"
}

case "${1:-}" in
base)	prepare_base ;;
stock|patched)
	prepare_base
	prepare_tree "$1" ;;
*)	die "usage: $0 base|stock|patched" ;;
esac
