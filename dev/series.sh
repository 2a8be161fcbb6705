#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# series.sh [--prefix PREFIX] [-v N] [--check-build] [--allow-unowned]
#           [--repo REPO] [OUTDIR]
#
# Emits the whole work as a git format-patch series against the base, for
# the linux-rdma list, into OUTDIR (default out/series):
#   0000-cover-letter.patch   [PREFIX 0/N], body from patches/cover-letter.txt
#   NNNN-*.patch              one per patch of patches/series, each with the
#                             new files patches/new-files assigns to it
# Threaded (--thread), subject prefix "PATCH rdma-next" unless --prefix.
# Runs checkpatch.pl --strict on every patch and reports; with
# --check-build, also builds the kernel (allnoconfig + the test fragment)
# at every step, to prove the series bisectable (slow).
#
# New files owned by '-' in patches/new-files are project files and are
# not emitted.  A new file with no entry is an error (--allow-unowned:
# leave it out with a warning).
#
# Exit status: 0 clean; 1 error (nothing or a partial series written);
# 2 series written but checkpatch or a build step reported problems.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tree-lib.sh"

prefix="PATCH rdma-next"
reroll=
check_build=0
allow_unowned=0
repo=$RDMA_HA_ROOT
outdir=
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix=$2; shift ;;
	--prefix=*) prefix=${1#--prefix=} ;;
	-v) [ $# -ge 2 ] || die "-v needs a number"; reroll=$2; shift ;;
	-v*) reroll=${1#-v} ;;
	--check-build) check_build=1 ;;
	--allow-unowned) allow_unowned=1 ;;
	--repo) [ $# -ge 2 ] || die "--repo needs a directory"; repo=$2; shift ;;
	--repo=*) repo=${1#--repo=} ;;
	-h|--help) sed -n '3,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [ -z "$outdir" ] || die "only one OUTDIR"; outdir=$1 ;;
	esac
	shift
done
case "$reroll" in ''|[1-9]|[1-9][0-9]) ;; *) die "-v takes a number" ;; esac
repo=$(cd "$repo" && pwd)
outdir=$(rh_abspath "${outdir:-$OUT/series}")
work=$OUT/series-work
wgit() { git --git-dir="$work" "$@"; }

base=$(rh_ensure_base_git)
mapfile -t series < <(rh_series "$repo")
mapfile -t files < <(rh_overlay_files "$repo")
[ ${#series[@]} -gt 0 ] || die "patches/series is empty: there is no series to emit"

# Which new files go into which patch.
declare -A in_series=() owner=() is_new=()
for p in "${series[@]}"; do
	[ -f "$repo/patches/$p" ] || die "patches/series names $p, which does not exist"
	in_series[$p]=1
done
for f in "${files[@]}"; do is_new[$f]=1; done
while read -r f p; do
	[ -n "${is_new[$f]:-}" ] || die "patches/new-files lists $f, which is not a new file"
	[ "$p" = "$RH_NEW_FILES_OWNER_LOCAL" ] || [ -n "${in_series[$p]:-}" ] ||
		die "patches/new-files: $f belongs to $p, which is not in patches/series"
	owner[$f]=$p
done < <(rh_new_files "$repo")
local_files=() unowned=()
for f in "${files[@]}"; do
	case "${owner[$f]:-}" in
	"") unowned+=("$f") ;;
	"$RH_NEW_FILES_OWNER_LOCAL") local_files+=("$f") ;;
	esac
done
if [ ${#unowned[@]} -gt 0 ]; then
	printf '    %s\n' "${unowned[@]}" >&2
	[ "$allow_unowned" = 1 ] ||
		die "new files above have no patch in patches/new-files ('<path> <patch>', or '<path> -' for project files); --allow-unowned leaves them out"
	log "warning: leaving out the new files above (no entry in patches/new-files)"
fi

# Build the commits without a checkout: a private index per step.
if [ ! -d "$work" ]; then
	git init -q --bare "$work"
fi
mkdir -p "$work/objects/info"
grep -qxF "$RH_BASE_GIT/objects" "$work/objects/info/alternates" 2>/dev/null ||
	echo "$RH_BASE_GIT/objects" >>"$work/objects/info/alternates"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdma-ha-series.XXXXXX")
trap 'rm -rf "${tmp:-}"' EXIT
export GIT_INDEX_FILE=$tmp/index
wgit read-tree "$base"
parent=$base
first_author=
for p in "${series[@]}"; do
	wgit mailinfo "$tmp/msg" "$tmp/patch" <"$repo/patches/$p" >"$tmp/info" ||
		die "patches/$p: not a patch with a mail header (run dev/tree.sh export)"
	a_name=$(sed -n 's/^Author: //p' "$tmp/info")
	a_mail=$(sed -n 's/^Email: //p' "$tmp/info")
	a_date=$(sed -n 's/^Date: //p' "$tmp/info")
	subj=$(sed -n 's/^Subject: //p' "$tmp/info")
	[ -n "$a_name" ] && [ -n "$subj" ] || die "patches/$p: no author or subject"
	[ -n "$first_author" ] || first_author="$a_name <$a_mail>"
	if [ -s "$tmp/patch" ] && ! out=$(wgit apply --cached "$tmp/patch" 2>&1); then
		echo "$out" | sed 's/^/    /' >&2
		die "patches/$p does not apply on top of the previous ones"
	fi
	for f in "${files[@]}"; do
		[ "${owner[$f]:-}" = "$p" ] || continue
		if [ -L "$repo/$f" ]; then
			sha=$(readlink "$repo/$f" | tr -d '\n' | wgit hash-object -w --stdin)
			mode=120000
		else
			sha=$(wgit hash-object -w --no-filters "$repo/$f")
			if [ -x "$repo/$f" ]; then mode=100755; else mode=100644; fi
		fi
		wgit update-index --add --cacheinfo "$mode,$sha,$f"
	done
	{ echo "$subj"; if [ -s "$tmp/msg" ]; then echo; cat "$tmp/msg"; fi; } >"$tmp/message"
	tree=$(wgit write-tree)
	parent=$(GIT_AUTHOR_NAME=$a_name GIT_AUTHOR_EMAIL=$a_mail GIT_AUTHOR_DATE=$a_date \
		GIT_COMMITTER_NAME=$a_name GIT_COMMITTER_EMAIL=$a_mail GIT_COMMITTER_DATE=$a_date \
		wgit commit-tree "$tree" -p "$parent" -F "$tmp/message")
done
unset GIT_INDEX_FILE
wgit update-ref refs/heads/series "$parent"
wgit update-ref refs/tags/base "$base"

# The cover letter's text.
tmpl=$repo/patches/cover-letter.txt
kver=$(rh_kernel_version)
if [ -f "$tmpl" ]; then
	grep -v '^#' "$tmpl" >"$tmp/cover"
else
	printf 'rdma-ha\n\nBased on Linux @KERNEL_VERSION@.\n' >"$tmp/cover"
fi
local_list=$(printf '  %s\n' "${local_files[@]}")
[ ${#local_files[@]} -gt 0 ] || local_list="  (none)"
awk -v kv="$kver" -v pkg="$BASE_PKG" -v pv="$BASE_VERSION" -v n="${#series[@]}" \
    -v loc="$local_list" '
	{ gsub(/@KERNEL_VERSION@/, kv); gsub(/@BASE_PKG@/, pkg);
	  gsub(/@BASE_VERSION@/, pv); gsub(/@NR_PATCHES@/, n);
	  if ($0 == "@LOCAL_FILES@") { print loc; next } print }' "$tmp/cover" |
	awk 'NF{s=1} s' >"$tmp/cover.txt"
cover_subject=$(head -n1 "$tmp/cover.txt")
tail -n +2 "$tmp/cover.txt" | awk 'NF{s=1} s' >"$tmp/cover.body"

# Emit.
mkdir -p "$outdir"
find "$outdir" -maxdepth 1 -type f -name '*.patch' -delete
GIT_COMMITTER_NAME=${first_author% <*} GIT_COMMITTER_EMAIL=$(echo "$first_author" | sed 's/.*<\(.*\)>/\1/') \
	wgit format-patch -q -M --abbrev=12 --cover-letter --thread --subject-prefix="$prefix" \
	${reroll:+-v "$reroll"} --encode-email-headers -o "$outdir" "$base..series"
cover=$(ls "$outdir"/*0000-cover-letter.patch)
awk -v subj="$cover_subject" -v body="$tmp/cover.body" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < body) > 0) print l; next }
	{ print }' "$cover" >"$tmp/cover.patch"
mv "$tmp/cover.patch" "$cover"
log "wrote $((${#series[@]} + 1)) files to $outdir (base: Linux $kver, $BASE_PKG $BASE_VERSION)"
if [ ${#local_files[@]} -gt 0 ]; then
	log "not in the series (project files, owner '-'): ${#local_files[@]} file(s)"
fi

status=0

# checkpatch --strict on every patch.
cp_log=$OUT/series-checkpatch.log
: >"$cp_log"
bad=0
for f in "$outdir"/*.patch; do
	case "$f" in *0000-cover-letter.patch) continue ;; esac
	# UNKNOWN_COMMIT_ID: the base has no git history for Fixes: tags
	if out=$(perl "$BASE_DIR/scripts/checkpatch.pl" --strict --color=never \
			--ignore UNKNOWN_COMMIT_ID --root="$BASE_DIR" "$f" 2>&1); then :; fi
	{ echo "=== $(basename "$f")"; echo "$out"; } >>"$cp_log"
	sum=$(echo "$out" | grep -E '^total: ' | tail -n1)
	if echo "$sum" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		echo "checkpatch: $(basename "$f"): clean"
	else
		bad=$((bad + 1))
		echo "checkpatch: $(basename "$f"): ${sum:-no verdict}"
		echo "$out" | grep -E '^(ERROR|WARNING|CHECK):' | sed 's/^/    /'
	fi
done
if [ "$bad" -gt 0 ]; then
	echo "checkpatch: $bad patch(es) with findings; full output in $cp_log"
	status=2
else
	echo "checkpatch: all ${#series[@]} patch(es) clean"
fi

# Optional: build the kernel at every step.
if [ "$check_build" = 1 ]; then
	need_pkgs gcc make bc flex bison libelf-dev libssl-dev ccache
	# Laid out like out/patched/{src,build-release}, so that ccache (base
	# dir out/) shares the objects of the patched build.
	bsrc=$OUT/series-build/src
	bobj=$OUT/series-build/build-release
	frags="$repo/tools/testing/selftests/rdma/qemu/kernel.config"
	[ -f "$frags" ] || die "no config fragment $frags"
	if [ ! -d "$bsrc/.git" ]; then
		log "check-build: checking out the base in $bsrc (once)"
		mkdir -p "$bsrc"
		git init -q "$bsrc"
	fi
	printf '%s\n%s\n' "$work/objects" "$RH_BASE_GIT/objects" >"$bsrc/.git/objects/info/alternates"
	ccache_env
	kmake() {
		nice -n 10 make -C "$bsrc" O="$bobj" ARCH=x86_64 CC="ccache gcc" \
			HOSTCC="ccache gcc" -j"$(nproc)" "$@"
	}
	mkdir -p "$bobj"
	i=0
	for c in $(wgit rev-list --reverse "$base..series"); do
		i=$((i + 1))
		subj=$(wgit log -1 --format=%s "$c")
		git -C "$bsrc" checkout -q -f --detach "$c"
		blog=$OUT/series-build/step-$i.log
		if { kmake -s allnoconfig &&
		     (cd "$bobj" && "$bsrc/scripts/kconfig/merge_config.sh" -m -O "$bobj" \
			"$bobj/.config" $frags) &&
		     kmake -s olddefconfig &&
		     kmake bzImage; } >"$blog" 2>&1; then
			echo "build: $i/${#series[@]} $subj: ok"
		else
			echo "build: $i/${#series[@]} $subj: FAILED (log: $blog)"
			grep -E 'error|Error' "$blog" | head -n 10 | sed 's/^/    /'
			status=2
		fi
	done
fi
exit "$status"
