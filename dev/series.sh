#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# series.sh [--prefix PREFIX] [-v N] [--draft] [--whoami] [--no-checkpatch]
#           [--build-steps] [--check-build] [--allow-unowned] [--repo REPO]
#           [--topic NAME | --topics] [OUTDIR]
#
# Emits the whole work as a git format-patch series against the base, for
# the linux-rdma list, into OUTDIR (default out/series):
#   0000-cover-letter.patch   [PREFIX 0/N], body from patches/cover-letter.txt
#   NNNN-*.patch              one per patch of patches/series, each with the
#                             new files patches/new-files assigns to it, as
#                             far as it has grown them (patches/grow/)
# Threaded (--thread), subject prefix "PATCH rdma-next" unless --prefix.
#
# The work is posted as several series, one per topic (patches/topics):
# --topic NAME emits the series of topic NAME alone, numbered from 1,
# with the cover letter patches/cover-letter-NAME.txt, against the base
# with the series of the topics NAME needs already applied (not emitted:
# the cover letter says what it is based on).  --topics emits every
# topic's series into OUTDIR/N-NAME/, in posting order.  Without either,
# the whole work is one series (what the test kernels are built from).
#
# The patches are authored and signed off by whoever runs this: git's
# user.name and user.email for REPO.  A patch whose author is the
# project's placeholder (rdma-ha developers <rdma-ha@example.invalid>)
# gets that identity as its author, and every placeholder Signed-off-by
# becomes its sign-off (which is appended where there is none).  A
# missing identity, the placeholder or an address under a reserved domain
# (.invalid, .example, example.com, ...) is refused: nothing is written.
# --draft accepts any identity (or none: the patches keep their own),
# puts DRAFT in the subject prefix and says in the cover letter that the
# series is not for mailing.  --whoami: print the identity and stop.
#
# Runs checkpatch.pl --strict on every patch (--no-checkpatch: not).  Its
# question whether MAINTAINERS needs updating (FILE_PATH_CHANGES) for a
# patch that adds files is answered here: every added file must have an
# entry with a maintainer and a list in the base's MAINTAINERS
# (scripts/get_maintainer.pl of the base; printed per file), and a patch
# that changes MAINTAINERS although the base covers every file it adds
# is a finding: upstream wants no entries of its own for them.  Every
# other finding counts.
#
# --build-steps builds, at every step of the series, what the series can
# break in the test kernel (drivers/infiniband/ with the patched debug
# configuration, newest step first, incrementally); --check-build builds
# the whole kernel (allnoconfig + the test fragment) at every step (slow).
#
# New files owned by '-' in patches/new-files are project files and are
# not emitted.  A new file with no entry is an error (--allow-unowned:
# leave it out with a warning).
#
# Exit status: 0 clean; 1 error or refusal (nothing or a partial series
# written); 2 series written but checkpatch, the MAINTAINERS coverage, a
# placeholder left in a mailable series or a build step reported problems.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tree-lib.sh"

prefix="PATCH rdma-next"
reroll=
check_build=0
build_steps=0
draft=0
whoami=0
checkpatch=1
allow_unowned=0
repo=$RDMA_HA_ROOT
outdir=
topic=
topics=0
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix=$2; shift ;;
	--prefix=*) prefix=${1#--prefix=} ;;
	-v) [ $# -ge 2 ] || die "-v needs a number"; reroll=$2; shift ;;
	-v*) reroll=${1#-v} ;;
	--check-build) check_build=1 ;;
	--build-steps) build_steps=1 ;;
	--draft) draft=1 ;;
	--whoami) whoami=1 ;;
	--no-checkpatch) checkpatch=0 ;;
	--allow-unowned) allow_unowned=1 ;;
	--repo) [ $# -ge 2 ] || die "--repo needs a directory"; repo=$2; shift ;;
	--repo=*) repo=${1#--repo=} ;;
	--topic) [ $# -ge 2 ] || die "--topic needs a name"; topic=$2; shift ;;
	--topic=*) topic=${1#--topic=} ;;
	--topics) topics=1 ;;
	-h|--help) sed -n '3,50s/^# \{0,1\}//p' "$0" | sed '/^set /,$d'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [ -z "$outdir" ] || die "only one OUTDIR"; outdir=$1 ;;
	esac
	shift
done
case "$reroll" in ''|[1-9]|[1-9][0-9]) ;; *) die "-v takes a number" ;; esac
[ -z "$topic" ] || [ "$topics" = 0 ] || die "--topic and --topics exclude each other"
repo=$(cd "$repo" && pwd)
outdir=$(rh_abspath "${outdir:-$OUT/series}")

# topics_parse: read patches/topics into TOPIC_NAMES (posting order),
# TOPIC_NEEDS[name], TOPIC_OF[patch]; every patch of patches/series is in
# exactly one topic, every topic needs only topics posted before it.
topics_parse() {
	local f=$repo/patches/topics line t= n p
	local -A known=()
	[ -f "$f" ] || die "no patches/topics: the work has no topics"
	TOPIC_NAMES=()
	declare -gA TOPIC_NEEDS=() TOPIC_OF=()
	while IFS= read -r line; do
		case "$line" in
		'#'*|'') continue ;;
		topic\ *)
			read -r _ t n p <<<"$line"
			[ -n "$t" ] && [ -z "${known[$t]:-}" ] ||
				die "patches/topics: topic '$t' empty or named twice"
			TOPIC_NEEDS[$t]=
			if [ -n "$n" ]; then
				[ "$n" = needs ] || die "patches/topics: '$line': expected 'topic NAME [needs TOPIC...]'"
				for n in $p; do
					[ -n "${known[$n]:-}" ] ||
						die "patches/topics: $t needs $n, which is not a topic posted before it"
					TOPIC_NEEDS[$t]+=" $n"
				done
			fi
			known[$t]=1
			TOPIC_NAMES+=("$t") ;;
		[[:space:]]*)
			p=$(topic_slug "$(echo "$line" | tr -d '[:space:]')")
			[ -n "$t" ] || die "patches/topics: $p before any topic"
			[ -z "${TOPIC_OF[$p]:-}" ] || die "patches/topics: $p is in ${TOPIC_OF[$p]} and $t"
			TOPIC_OF[$p]=$t ;;
		*) die "patches/topics: cannot read '$line'" ;;
		esac
	done <"$f"
	local -A slugs=()
	for p in $(rh_series "$repo"); do
		n=$(topic_slug "$p")
		[ -n "${TOPIC_OF[$n]:-}" ] || die "patches/topics: $p (patches/series) is in no topic"
		slugs[$n]=1
	done
	for p in "${!TOPIC_OF[@]}"; do
		[ -n "${slugs[$p]:-}" ] || die "patches/topics: $p is not in patches/series"
	done
}

# topic_slug PATCH: a patch as patches/topics names it, without its number
# and .patch, so that renumbering the series leaves the topics alone.
topic_slug() {
	local n=${1%.patch}
	case "$n" in [0-9][0-9][0-9][0-9]-*) n=${n#????-} ;; esac
	echo "$n"
}

# topic_closure NAME: NAME's needed topics, recursively, then NAME.
topic_closure() {
	local n
	for n in ${TOPIC_NEEDS[$1]}; do topic_closure "$n"; done
	echo "$1"
}

# --whoami: one identity, not one per topic
if [ "$topics" = 1 ] && [ "$whoami" = 0 ]; then
	topics_parse
	opts=(--prefix "$prefix" --repo "$repo")
	[ -z "$reroll" ] || opts+=(-v "$reroll")
	[ "$check_build" = 0 ] || opts+=(--check-build)
	[ "$build_steps" = 0 ] || opts+=(--build-steps)
	[ "$draft" = 0 ] || opts+=(--draft)
	[ "$checkpatch" = 1 ] || opts+=(--no-checkpatch)
	[ "$allow_unowned" = 0 ] || opts+=(--allow-unowned)
	status=0 i=0
	for t in "${TOPIC_NAMES[@]}"; do
		i=$((i + 1))
		log "topic $i: $t"
		"$0" "${opts[@]}" --topic "$t" "$outdir/$i-$t" || {
			rc=$?; [ "$rc" -gt "$status" ] && status=$rc; }
	done
	exit "$status"
fi

# Who signs the series off: git's identity for REPO, with the runner's
# own configuration.  Checked before anything is done.
r_name=$(rh_user_git -C "$repo" config --get user.name || true)
r_email=$(rh_user_git -C "$repo" config --get user.email || true)
ident=
if why=$(rh_ident_problem "$r_name" "$r_email"); then
	if [ "$draft" = 0 ]; then
		cat >&2 <<-EOF
		error: refusing to emit a mailable series: $why.
		    The patches are authored and signed off (Developer Certificate of
		    Origin) by whoever emits them, under a real name and address:
		        git config user.name "Your Name"
		        git config user.email "your address"
		    (in this repository, or with --global).  --draft emits a series
		    with any identity, marked as not for mailing.
		EOF
		exit 1
	fi
	log "draft: $why; the series is not for mailing"
	[ -z "$r_name" ] || [ -z "$r_email" ] || ident="$r_name <$r_email>"
else
	ident="$r_name <$r_email>"
fi
if [ "$whoami" = 1 ]; then
	echo "${ident:-(none: each patch keeps its own author and sign-off)}"
	exit 0
fi
if [ "$draft" = 1 ]; then
	case " $prefix " in *" DRAFT "*) ;; *) prefix="DRAFT $prefix" ;; esac
fi
work=$OUT/series-work
wgit() { git --git-dir="$work" "$@"; }

base=$(rh_ensure_base_git)
mapfile -t series < <(rh_series "$repo")
mapfile -t files < <(rh_overlay_files "$repo")
[ ${#series[@]} -gt 0 ] || die "patches/series is empty: there is no series to emit"
all_series=("${series[@]}")

# --topic: the topic's patches are the series; those of the topics it
# needs (pre) are applied to the base first.
pre=()
if [ -n "$topic" ]; then
	topics_parse
	[ -n "${TOPIC_NEEDS[$topic]+x}" ] || die "patches/topics has no topic $topic"
	needed=$(topic_closure "$topic" | grep -vxF "$topic" | sort -u || true)
	series=()
	for p in "${all_series[@]}"; do
		t=${TOPIC_OF[$(topic_slug "$p")]}
		if [ "$t" = "$topic" ]; then
			series+=("$p")
		elif grep -qxF "$t" <<<"$needed"; then
			pre+=("$p")
		fi
	done
	[ ${#series[@]} -gt 0 ] || die "topic $topic has no patches"
fi

# Which new files go into which patch.
declare -A in_series=() owner=() is_new=()
for p in "${all_series[@]}"; do
	[ -f "$repo/patches/$p" ] || die "patches/series names $p, which does not exist"
	in_series[$p]=1
done
for f in "${files[@]}"; do is_new[$f]=1; done
declare -A stages=()
while read -r f p; do
	[ -n "${is_new[$f]:-}" ] || die "patches/new-files lists $f, which is not a new file"
	[ "$p" = "$RH_NEW_FILES_OWNER_LOCAL" ] || [ -n "${in_series[$p]:-}" ] ||
		die "patches/new-files: $f belongs to $p, which is not in patches/series"
	if [ -n "${owner[$f]:-}" ]; then
		[ "$p" != "$RH_NEW_FILES_OWNER_LOCAL" ] && [ "${owner[$f]}" != "$RH_NEW_FILES_OWNER_LOCAL" ] ||
			die "patches/new-files: $f is a project file ('-') and in the series"
	else
		owner[$f]=$p
	fi
	# the patches that add or grow $f: each stages the file as it leaves it
	[ "$p" = "$RH_NEW_FILES_OWNER_LOCAL" ] || stages[$p]+=" $f"
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
# Every new file as each patch that adds or grows it leaves it.
rh_new_file_stages "$repo" "$tmp/stages"
export GIT_INDEX_FILE=$tmp/index
wgit read-tree "$base"
parent=$base
first_author=
declare -A placeholders=([$RH_PLACEHOLDER_EMAIL]=1)

# stage_patch P: apply patches/P and its new files to the index.
stage_patch() {
	local p=$1 f sha mode out
	wgit mailinfo "$tmp/msg" "$tmp/patch" <"$repo/patches/$p" >"$tmp/info" ||
		die "patches/$p: not a patch with a mail header (run dev/tree.sh export)"
	if [ -s "$tmp/patch" ] && ! out=$(wgit apply --cached "$tmp/patch" 2>&1); then
		echo "$out" | sed 's/^/    /' >&2
		if [ -n "$topic" ]; then
			die "patches/$p does not apply on top of the previous ones of topic $topic and the topics it needs (${needed:-none}): does it belong to another topic, or does $topic need one more?"
		fi
		die "patches/$p does not apply on top of the previous ones"
	fi
	for f in ${stages[$p]:-}; do
		if [ -L "$repo/$f" ]; then
			sha=$(readlink "$repo/$f" | tr -d '\n' | wgit hash-object -w --stdin)
			mode=120000
		else
			sha=$(wgit hash-object -w --no-filters "$tmp/stages/$p/$f")
			if [ -x "$repo/$f" ]; then mode=100755; else mode=100644; fi
		fi
		wgit update-index --add --cacheinfo "$mode,$sha,$f"
	done
}

# The series a topic needs, as one commit on the base that is not emitted.
if [ ${#pre[@]} -gt 0 ]; then
	for p in "${pre[@]}"; do stage_patch "$p"; done
	base=$(GIT_AUTHOR_NAME=rdma-ha GIT_AUTHOR_EMAIL=$RH_PLACEHOLDER_EMAIL \
		GIT_COMMITTER_NAME=rdma-ha GIT_COMMITTER_EMAIL=$RH_PLACEHOLDER_EMAIL \
		GIT_AUTHOR_DATE="$RH_FIXED_DATE" GIT_COMMITTER_DATE="$RH_FIXED_DATE" \
		wgit commit-tree "$(wgit write-tree)" -p "$base" \
		-m "base + the series of $(echo $needed)")
	parent=$base
fi
for p in "${series[@]}"; do
	stage_patch "$p"
	a_name=$(sed -n 's/^Author: //p' "$tmp/info")
	a_mail=$(sed -n 's/^Email: //p' "$tmp/info")
	a_date=$(sed -n 's/^Date: //p' "$tmp/info")
	subj=$(sed -n 's/^Subject: //p' "$tmp/info")
	[ -n "$a_name" ] && [ -n "$subj" ] || die "patches/$p: no author or subject"
	if [ -n "$ident" ] && rh_ident_problem "$a_name" "$a_mail" >/dev/null; then
		placeholders[$a_mail]=1
		a_name=$r_name a_mail=$r_email
	fi
	[ -n "$first_author" ] || first_author="$a_name <$a_mail>"
	{ echo "$subj"; if [ -s "$tmp/msg" ]; then echo; cat "$tmp/msg"; fi; } >"$tmp/message"
	if [ -n "$ident" ]; then
		rh_signoff "$ident" <"$tmp/message" >"$tmp/message.signed"
		mv "$tmp/message.signed" "$tmp/message"
	fi
	tree=$(wgit write-tree)
	parent=$(GIT_AUTHOR_NAME=$a_name GIT_AUTHOR_EMAIL=$a_mail GIT_AUTHOR_DATE=$a_date \
		GIT_COMMITTER_NAME=$a_name GIT_COMMITTER_EMAIL=$a_mail GIT_COMMITTER_DATE=$a_date \
		wgit commit-tree "$tree" -p "$parent" -F "$tmp/message")
done
unset GIT_INDEX_FILE
# refs: series and base, or series-TOPIC and base-TOPIC
ref_sfx=${topic:+-$topic}
wgit update-ref "refs/heads/series$ref_sfx" "$parent"
wgit update-ref "refs/tags/base$ref_sfx" "$base"

# The cover letter's text.
tmpl=$repo/patches/cover-letter${topic:+-$topic}.txt
[ -z "$topic" ] || [ -f "$tmpl" ] || die "topic $topic has no cover letter ${tmpl#$repo/}"
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
{
	if [ "$draft" = 1 ]; then
		echo "DRAFT, NOT FOR MAILING (dev/series.sh --draft).  Author and"
		echo "Signed-off-by, not accepted for mailing:"
		echo "  ${ident:-those of the stored patches}"
		echo
	fi
	tail -n +2 "$tmp/cover.txt" | awk 'NF{s=1} s'
} >"$tmp/cover.body"

# Emit.
mkdir -p "$outdir"
find "$outdir" -maxdepth 1 -type f -name '*.patch' -delete
committer=${ident:-$first_author}
GIT_COMMITTER_NAME=${committer% <*} GIT_COMMITTER_EMAIL=$(echo "$committer" | sed 's/.*<\(.*\)>/\1/') \
	wgit format-patch -q -M --abbrev=12 --cover-letter --thread --subject-prefix="$prefix" \
	${reroll:+-v "$reroll"} --encode-email-headers -o "$outdir" "$base..series$ref_sfx"
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
mapfile -t commits < <(wgit rev-list --reverse "$base..series$ref_sfx")
mapfile -t emitted < <(ls "$outdir"/*.patch | grep -v -- '-cover-letter\.patch$')
[ ${#commits[@]} = ${#series[@]} ] && [ ${#emitted[@]} = ${#series[@]} ] ||
	die "${#series[@]} patches, but ${#commits[@]} commits and ${#emitted[@]} files emitted"

# A mailable series carries no placeholder identity anywhere (a patch
# may still have one in its text, e.g. in a MAINTAINERS entry).
if [ "$draft" = 0 ]; then
	ph_args=()
	for e in "${!placeholders[@]}"; do ph_args+=(-e "$e"); done
	if left=$(grep -nF "${ph_args[@]}" "$outdir"/*.patch); then
		echo "identity: the series still carries a placeholder identity:"
		echo "$left" | sed "s|^$outdir/||; s/^/    /"
		status=2
	fi
fi

# maint_entries FILE [MAINTAINERS]: the entries of the base's MAINTAINERS
# (or of the file MAINTAINERS), other than THE REST, that give FILE a
# maintainer (M:) and a list (L:), one a line, most specific first
# (scripts/get_maintainer.pl of the base, asked about a patch that adds
# FILE: it needs no such file in the tree).
maint_entries() {
	printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+\n' \
		"$1" "$1" "$1" >"$tmp/maint.patch"
	(cd "$BASE_DIR" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --sections --mpath "${2:-$BASE_DIR/MAINTAINERS}" "$tmp/maint.patch") |
	awk 'BEGIN { RS = ""; FS = "\n" }
	     $1 != "THE REST" && !seen[$1]++ {
		m = l = 0
		for (i = 2; i <= NF; i++) { if ($i ~ /^M:/) m = 1; if ($i ~ /^L:/) l = 1 }
		if (m && l) print $1 }'
}

# maint_check COMMIT: MAINT_LINES (per added file, who covers it),
# MAINT_ADDED (files COMMIT adds), MAINT_UNCOVERED (those the base does
# not cover, and files it deletes), MAINT_TOUCHED (1: it changes
# MAINTAINERS).
maint_check() {
	local c=$1 f e
	MAINT_LINES=() MAINT_UNCOVERED=() MAINT_NOW_UNCOVERED=() MAINT_TOUCHED=0
	mapfile -t MAINT_ADDED < <(wgit diff-tree -r --no-commit-id --name-only \
		--diff-filter=A "$c^" "$c")
	for f in "${MAINT_ADDED[@]}"; do
		e=$(maint_entries "$f" | paste -sd, - | sed 's/,/, /g')
		if [ -n "$e" ]; then
			MAINT_LINES+=("$f: $e")
		else
			MAINT_LINES+=("$f: no entry with a maintainer and a list in the base's MAINTAINERS")
			MAINT_UNCOVERED+=("$f")
		fi
	done
	while IFS= read -r f; do
		MAINT_LINES+=("$f: deleted")
		MAINT_UNCOVERED+=("$f")
	done < <(wgit diff-tree -r --no-commit-id --name-only --diff-filter=D "$c^" "$c")
	! wgit diff-tree -r --no-commit-id --name-only "$c^" "$c" | grep -qx MAINTAINERS ||
		MAINT_TOUCHED=1
	# A patch that changes MAINTAINERS must cover what the base does not.
	[ "$MAINT_TOUCHED" = 1 ] && [ ${#MAINT_UNCOVERED[@]} -gt 0 ] || return 0
	wgit show "$c:MAINTAINERS" >"$tmp/MAINTAINERS.step"
	MAINT_NOW_UNCOVERED=()
	for f in "${MAINT_ADDED[@]}"; do
		case " ${MAINT_UNCOVERED[*]} " in *" $f "*) ;; *) continue ;; esac
		e=$(maint_entries "$f" "$tmp/MAINTAINERS.step" | paste -sd, - | sed 's/,/, /g')
		if [ -n "$e" ]; then
			MAINT_LINES+=("$f: $e, with this patch's MAINTAINERS change")
		else
			MAINT_NOW_UNCOVERED+=("$f")
		fi
	done
}

# checkpatch --strict on every patch; FILE_PATH_CHANGES answered by the
# base's MAINTAINERS (maint_check).
cp_log=$OUT/series-checkpatch.log
: >"$cp_log"
bad=0
for ((i = 0; i < ${#emitted[@]} && checkpatch; i++)); do
	f=${emitted[i]} c=${commits[i]}
	name=$(basename "$f")
	# UNKNOWN_COMMIT_ID: the base has no git history for Fixes: tags
	if out=$(perl "$BASE_DIR/scripts/checkpatch.pl" --strict --show-types --color=never \
			--ignore UNKNOWN_COMMIT_ID --root="$BASE_DIR" "$f" 2>&1); then :; fi
	{ echo "=== $name"; echo "$out"; } >>"$cp_log"
	sum=$(echo "$out" | grep -E '^total: ' | tail -n1 || true)
	findings=$(echo "$out" | grep -E '^(ERROR|WARNING|CHECK):' || true)
	maint_check "$c"
	note=
	if echo "$findings" | grep -q '^WARNING:FILE_PATH_CHANGES:' &&
	   [ ${#MAINT_ADDED[@]} -gt 0 ] && [ ${#MAINT_UNCOVERED[@]} -eq 0 ]; then
		findings=$(echo "$findings" | grep -v '^WARNING:FILE_PATH_CHANGES:' || true)
		note=" (FILE_PATH_CHANGES: the base's MAINTAINERS covers every new file)"
	elif [ ${#MAINT_UNCOVERED[@]} -gt 0 ] && [ "$MAINT_TOUCHED" = 0 ]; then
		findings=$(printf '%s\n%s' "$findings" \
			"MAINTAINERS: no entry of the base's MAINTAINERS covers ${MAINT_UNCOVERED[*]}: add it (F:) to the entry of the code it belongs to" |
			sed '/^$/d')
	fi
	# ENOSYS: checkpatch flags every line that names it, but a selftest
	# must name the errno the kernel returns (ucma: an unknown option)
	if echo "$findings" | grep -q '^WARNING:ENOSYS:' &&
	   ! grep '^+++ b/' "$f" | grep -qv '^+++ b/tools/testing/selftests/'; then
		findings=$(echo "$findings" | grep -v '^WARNING:ENOSYS:' || true)
		note="$note (ENOSYS: a selftest checking the errno the kernel returns)"
	fi
	if [ "$MAINT_TOUCHED" = 1 ] && [ ${#MAINT_ADDED[@]} -gt 0 ] &&
	   [ ${#MAINT_UNCOVERED[@]} -eq 0 ]; then
		findings=$(printf '%s\n%s' "$findings" \
			"MAINTAINERS: the patch changes MAINTAINERS, but the base's entries already cover every file it adds: upstream wants no entry of their own for them" |
			sed '/^$/d')
	elif [ ${#MAINT_NOW_UNCOVERED[@]} -gt 0 ]; then
		findings=$(printf '%s\n%s' "$findings" \
			"MAINTAINERS: the patch changes MAINTAINERS, but no entry with a maintainer and a list covers ${MAINT_NOW_UNCOVERED[*]} even then" |
			sed '/^$/d')
	fi
	if [ -n "$sum" ] && [ -z "$findings" ]; then
		echo "checkpatch: $name: clean$note"
	else
		bad=$((bad + 1))
		echo "checkpatch: $name: ${sum:-no verdict}"
		[ -z "$findings" ] || echo "$findings" | sed 's/^/    /'
	fi
	[ ${#MAINT_LINES[@]} -eq 0 ] || printf '    maintainers: %s\n' "${MAINT_LINES[@]}"
done
if [ "$checkpatch" = 0 ]; then
	:
elif [ "$bad" -gt 0 ]; then
	echo "checkpatch: $bad patch(es) with findings; full output in $cp_log"
	status=2
else
	echo "checkpatch: all ${#series[@]} patch(es) clean"
fi

# --build-steps: at every step, what the series can break in the test
# kernel.  The patches change drivers/infiniband/ and the headers of
# include/rdma/ and include/uapi/rdma/, which in that configuration only
# drivers/infiniband/ and NVMe over Fabrics' RDMA transports
# (drivers/nvme/host/rdma.c, drivers/nvme/target/rdma.c) include, so
# building drivers/infiniband/ and drivers/nvme/ (with what they need:
# Kbuild's prepare stage) is enough.  The newest step is compiled for real
# (through ccache: the patched build's objects); every older one only
# checked, gcc -fsyntax-only with the step's own flags (dev/cc-steps.sh:
# cma.c 0.97 CPU-s against 2.51, a step that recompiles rxe's 30 small
# files 28.7 against 33.7; what only the optimiser reports is checked on
# the whole series, by the patched build).  The configuration is
# the patched debug kernel's (kernel.config, debug.config, patched.config:
# the options of the new code are on from the step that adds them), and
# the tree is laid out like out/patched/{src,build-debug}, so that ccache
# (base dir out/) has the objects of the newest step from the patched
# build.  Newest step first, then backwards: every step after that
# recompiles only what its diff to the one before changes (make's own
# dependencies; Kconfig is run again only when a Kconfig file changed).
if [ "$build_steps" = 1 ]; then
	need_pkgs gcc make bc flex bison libelf-dev libssl-dev ccache
	ssrc=$OUT/series-steps/src
	sobj=$OUT/series-steps/build-debug
	q=$repo/vm/qemu
	sfrags="$q/kernel.config $q/debug.config $q/patched.config"
	for f in $sfrags; do [ -f "$f" ] || die "no config fragment $f"; done
	if [ ! -d "$ssrc/.git" ]; then
		log "build-steps: checking out the series in $ssrc (once)"
		mkdir -p "$ssrc"
		git init -q "$ssrc"
	fi
	printf '%s\n%s\n' "$work/objects" "$RH_BASE_GIT/objects" >"$ssrc/.git/objects/info/alternates"
	ccache_env
	# One compiler name for every step (dev/cc-steps.sh), so that
	# Kbuild's saved command lines match from step to step; the mode
	# (real or syntax) is in the environment.
	export RDMA_HA_STEPS_DIRS="drivers/infiniband/ drivers/nvme/"
	smake() {
		nice -n 10 make -C "$ssrc" O="$sobj" ARCH=x86_64 \
			CC="$RDMA_HA_ROOT/dev/cc-steps.sh" \
			HOSTCC="ccache gcc" -j"$(nproc)" "$@"
	}
	step_configure() {
		rm -f "$sobj/.rdma-ha-cfg"
		smake -s allnoconfig &&
		(cd "$sobj" && "$ssrc/scripts/kconfig/merge_config.sh" -m -O "$sobj" \
			"$sobj/.config" $sfrags) &&
		smake -s olddefconfig &&
		echo "$frag_sum" >"$sobj/.rdma-ha-cfg"
	}
	mkdir -p "$sobj"
	frag_sum=$(cat $sfrags | sha1sum | cut -d' ' -f1)
	prev=
	declare -A step_result=() step_cost=()
	t0=$(date +%s)
	TIMEFORMAT='%R %U %S'
	for ((i = ${#commits[@]}; i >= 1; i--)); do
		c=${commits[i-1]}
		git -C "$ssrc" checkout -q -f --detach "$c"
		blog=$OUT/series-steps/step-$i.log
		reconf=0
		if [ -z "$prev" ] || [ ! -f "$sobj/.config" ] ||
		   [ "$(cat "$sobj/.rdma-ha-cfg" 2>/dev/null)" != "$frag_sum" ] ||
		   git -C "$ssrc" diff --name-only "$prev" "$c" | grep -q 'Kconfig'; then
			reconf=1
		fi
		if [ "$i" = "${#commits[@]}" ]; then
			export RDMA_HA_STEPS_CC=real
		else
			export RDMA_HA_STEPS_CC=syntax
		fi
		# what each step cost (wall, user + system of its make), for
		# the check's budget
		if { time { { [ "$reconf" = 0 ] || step_configure; } >"$blog" 2>&1 &&
		   smake $RDMA_HA_STEPS_DIRS >>"$blog" 2>&1; }; } 2>"$blog.time"; then
			step_result[$i]=ok
		else
			step_result[$i]="FAILED (log: $blog)"
			status=2
		fi
		step_cost[$i]=$(awk 'NF == 3 { printf "%.1f s, %.1f CPU-s", $1, $2 + $3 }' "$blog.time")
		rm -f "$blog.time"
		prev=$c
	done
	for ((i = 1; i <= ${#commits[@]}; i++)); do
		echo "build-steps: $i/${#commits[@]} $(wgit log -1 --format=%s "${commits[i-1]}"): ${step_result[$i]}${step_cost[$i]:+ (${step_cost[$i]})}"
		case "${step_result[$i]}" in
		ok) ;;
		*) grep -E 'error|Error' "$OUT/series-steps/step-$i.log" | head -n 10 | sed 's/^/    /' ;;
		esac
	done
	echo "build-steps: ${#commits[@]} steps in $(( $(date +%s) - t0 )) s"
fi

# --check-build: the whole kernel at every step.
if [ "$check_build" = 1 ]; then
	need_pkgs gcc make bc flex bison libelf-dev libssl-dev ccache
	# Laid out like out/patched/{src,build-release}, so that ccache (base
	# dir out/) shares the objects of the patched build.
	bsrc=$OUT/series-build/src
	bobj=$OUT/series-build/build-release
	frags="$repo/vm/qemu/kernel.config"
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
	for c in $(wgit rev-list --reverse "$base..series$ref_sfx"); do
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
