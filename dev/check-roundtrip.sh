#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check-roundtrip.sh [--repo REPO]
#
# Proves that the edit round trip is lossless: export(import(x)) == x.
# Imports the repository's new files and patches/series into a scratch
# tree (out/roundtrip/tree), exports it into a scratch copy of those files
# (out/roundtrip/repo) and compares the copy with the repository byte for
# byte (contents and executable bits).  Also checks:
#   - every patch in patches/series exists, every patches/*.patch is in it;
#   - every file in patches/new-files exists, every new file is listed
#     there (once, or once per patch that grows it: patches/grow/), and
#     each owner is a patch of the series (or '-');
#   - git am (the tree) and patch -p1 -F0 (dev/prepare-src.sh) give the
#     same result for every file the series touches.
# Never writes outside out/.  Exit status 0 only if all holds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tree-lib.sh"

repo=$RDMA_HA_ROOT
while [ $# -gt 0 ]; do
	case "$1" in
	--repo) [ $# -ge 2 ] || die "--repo needs a directory"; repo=$2; shift ;;
	--repo=*) repo=${1#--repo=} ;;
	*) sed -n '3p' "$0" | sed 's/^# /usage: /' >&2; exit 2 ;;
	esac
	shift
done
repo=$(cd "$repo" && pwd)
work=$OUT/roundtrip
mkdir -p "$work"
exec 9>"$work/.lock"
flock -n 9 || { log "waiting for another round-trip check"; flock 9; }

fail=0
problem() { echo "FAIL: $*" >&2; fail=1; }

# 1. Consistency of patches/ and the new files.
[ -f "$repo/patches/series" ] || die "$repo/patches/series does not exist"
mapfile -t series < <(rh_series "$repo")
mapfile -t files < <(rh_overlay_files "$repo")
declare -A in_series=() is_new=() owned=()
for p in "${series[@]}"; do
	[ -z "${in_series[$p]:-}" ] || problem "patches/series lists $p twice"
	in_series[$p]=1
	[ -f "$repo/patches/$p" ] || problem "patches/series lists $p, which does not exist"
done
for f in "$repo"/patches/*.patch; do
	[ -e "$f" ] || continue
	[ -n "${in_series[$(basename "$f")]:-}" ] ||
		problem "patches/$(basename "$f") is not in patches/series (stale? run dev/tree.sh export)"
done
for f in "${files[@]}"; do is_new[$f]=1; done
declare -A rows=()
while read -r f p; do
	[ -z "${rows[$f $p]:-}" ] || problem "patches/new-files lists $f $p twice"
	rows[$f $p]=1
	# more rows: the patches that grow it (rh_new_file_stages checks them)
	[ -z "${owned[$f]:-}" ] || [ "$p" != "$RH_NEW_FILES_OWNER_LOCAL" ] ||
		problem "patches/new-files: $f is a project file ('-') and in the series"
	[ -n "${owned[$f]:-}" ] || owned[$f]=$p
	[ -n "${is_new[$f]:-}" ] || problem "patches/new-files lists $f, which is not a new file of the repository"
	[ -n "$p" ] || { problem "patches/new-files: $f has no patch"; continue; }
	[ "$p" = "$RH_NEW_FILES_OWNER_LOCAL" ] || [ -n "${in_series[$p]:-}" ] ||
		problem "patches/new-files: $f belongs to $p, which is not in patches/series"
done < <(rh_new_files "$repo")
for f in "${files[@]}"; do
	[ -n "${owned[$f]:-}" ] ||
		problem "new file $f has no entry in patches/new-files ('<path> <patch>', or '<path> -' if it is not part of the upstream series)"
done

# 2. The round trip, on copies.
log "round trip: copying ${#files[@]} new file(s) and patches/ to $work/repo"
rm -rf "$work/repo"
mkdir -p "$work/repo/patches"
(cd "$repo" && for f in "${files[@]}"; do
	cp -P --preserve=mode --parents -- "$f" "$work/repo/"
done)
find "$repo/patches" -maxdepth 1 -type f -exec cp --preserve=mode -t "$work/repo/patches" {} +
if [ -d "$repo/$RH_GROW_DIR" ]; then
	cp -r --preserve=mode "$repo/$RH_GROW_DIR" "$work/repo/$RH_GROW_DIR"
fi
# the grow diffs apply (reverse, no fuzz) and agree with patches/new-files
( rh_new_file_stages "$repo" "$work/stages" ) || problem "patches/new-files and patches/grow/ disagree (above)"
tree_sh=$(dirname "$0")/tree.sh
if ! "$tree_sh" import --force --repo "$work/repo" "$work/tree" 2>"$work/import.log"; then
	cat "$work/import.log" >&2
	die "import failed (above)"
fi
if ! "$tree_sh" export --repo "$work/repo" "$work/tree" 2>"$work/export.log"; then
	cat "$work/export.log" >&2
	die "export failed (above)"
fi
rh_manifest "$repo" >"$work/manifest.repo"
rh_manifest "$work/repo" >"$work/manifest.export"
if ! cmp -s "$work/manifest.repo" "$work/manifest.export"; then
	problem "export(import(x)) != x:"
	diff -u --label repository --label 'export(import(repository))' \
		"$work/manifest.repo" "$work/manifest.export" | tail -n +3 | grep '^[-+]' >&2 || true
	comm -3 <(awk '{print $3}' "$work/manifest.repo") <(awk '{print $3}' "$work/manifest.export") |
		sed 's/^\t/    only after the round trip: /; t; s/^/    only in the repository: /' >&2
	join -j 3 -o 1.1,1.2,2.1,2.2,0 <(sort -k3 "$work/manifest.repo") <(sort -k3 "$work/manifest.export") |
		awk '$1 != $3 || $2 != $4 {print $5}' | while IFS= read -r f; do
			diff -u --label "a/$f" --label "b/$f" "$repo/$f" "$work/repo/$f" >&2 ||
				[ "$(stat -c %A "$repo/$f")" != "$(stat -c %A "$work/repo/$f")" ] ||
				true
			[ "$(stat -c %a "$repo/$f")" = "$(stat -c %a "$work/repo/$f")" ] ||
				echo "mode of $f: $(stat -c %A "$repo/$f") -> $(stat -c %A "$work/repo/$f")" >&2
		done
fi
if grep -q '^warning:' "$work/export.log"; then
	grep '^warning:' "$work/export.log" >&2
fi

# 3. git am and patch -F0 agree on every touched file.
rm -rf "$work/patched"
mkdir -p "$work/patched"
targets=$(for p in "${series[@]}"; do
	sed -n -e 's,^+++ b/\([^[:space:]]*\).*,\1,p' -e 's,^--- a/\([^[:space:]]*\).*,\1,p' \
		"$repo/patches/$p"
done | sort -u)
for t in $targets; do
	if [ -f "$BASE_DIR/$t" ]; then
		mkdir -p "$work/patched/$(dirname "$t")"
		cp -p "$BASE_DIR/$t" "$work/patched/$t"
	fi
done
for p in "${series[@]}"; do
	if ! out=$(cd "$work/patched" && patch -p1 -F0 -N -s --no-backup-if-mismatch -r - \
			<"$repo/patches/$p" 2>&1); then
		echo "$out" | sed 's/^/    /' >&2
		problem "patches/$p does not apply with patch -p1 -F0"
	fi
done
for t in $targets; do
	if git -C "$work/tree" cat-file -e "HEAD:$t" 2>/dev/null; then
		if [ ! -f "$work/patched/$t" ]; then
			problem "$t: exists after git am, not after patch -F0"
		elif ! git -C "$work/tree" cat-file blob "HEAD:$t" | cmp -s - "$work/patched/$t"; then
			problem "$t: git am and patch -F0 give different results"
		fi
	elif [ -f "$work/patched/$t" ] && [ -s "$work/patched/$t" ]; then
		problem "$t: exists after patch -F0, not after git am"
	fi
done

if [ "$fail" != 0 ]; then
	echo "round trip: FAILED" >&2
	exit 1
fi
echo "round trip: OK (${#files[@]} new files, ${#series[@]} patches; export(import(x)) == x)"
