# SPDX-License-Identifier: GPL-2.0-only
# Helpers shared by dev/tree.sh, dev/series.sh and dev/check-roundtrip.sh.
# Sourced after dev/lib.sh, not run.

# Every git command of these scripts runs without the host's global and
# system configuration, so that diff.noprefix, format.*, commit.gpgSign,
# core.autocrlf and the like cannot change what is generated.  Only the
# identity of whoever runs them is read from that configuration
# (rh_user_git).
# Saved once: a script that runs another (series.sh --topics runs itself
# per topic) passes the runner's configuration on, not /dev/null.
if [ -z "${RH_USER_GIT_SAVED:-}" ]; then
	export RH_USER_GIT_SAVED=1
	export RH_USER_GIT_CONFIG_GLOBAL=${GIT_CONFIG_GLOBAL-}
	export RH_USER_GIT_CONFIG_NOSYSTEM=${GIT_CONFIG_NOSYSTEM-}
fi
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=/dev/null
export GIT_TERMINAL_PROMPT=0
export LC_ALL=C
export OUT
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES 2>/dev/null || true

# Fixed identity and date of the commits the scripts make themselves.
RH_IDENT_NAME="rdma-ha"
RH_IDENT_EMAIL="rdma-ha@invalid"
RH_BASE_NAME="rdma-ha base"
RH_FIXED_DATE="2026-01-01T00:00:00+0000"
RH_OVERLAY_SUBJECT="rdma-ha: new files"
RH_BASE_GIT=$OUT/base.git
RH_NEW_FILES_OWNER_LOCAL="-"
# The identity the stored patches carry: a placeholder, never mailed
# (dev/series.sh replaces it with the identity of whoever runs it).
RH_PLACEHOLDER_NAME="rdma-ha developers"
RH_PLACEHOLDER_EMAIL="rdma-ha@example.invalid"

# The stored form of a patch: exactly these options, always.  Changing
# them changes every file in patches/, so do it in a commit of its own.
RH_FORMAT_PATCH_OPTS=(
	--no-signature --zero-commit --no-numbered --subject-prefix=PATCH
	--no-renames --abbrev=12 --binary --no-thread --no-cover-letter
	--no-notes --filename-max-length=64 --encode-email-headers
	--diff-algorithm=myers -U3 --src-prefix=a/ --dst-prefix=b/
	--stat=72 --no-base
)

# Identity for commits made by the scripts (git am's committer, etc.).
rh_ident_env() {
	export GIT_AUTHOR_NAME=$RH_IDENT_NAME GIT_AUTHOR_EMAIL=$RH_IDENT_EMAIL
	export GIT_COMMITTER_NAME=$RH_IDENT_NAME GIT_COMMITTER_EMAIL=$RH_IDENT_EMAIL
}

# rh_base_ref: the tag of the pinned base in out/base.git (refs cannot
# hold '~' or ':').
rh_base_ref() {
	echo "refs/tags/base-$(echo "$BASE_VERSION" | tr '~:' '__')"
}

# rh_kernel_version: upstream version of the unpacked base (e.g. 6.12.117).
rh_kernel_version() {
	awk -F' *= *' '/^VERSION =/{v=$2} /^PATCHLEVEL =/{p=$2}
		/^SUBLEVEL =/{s=$2} END{print v "." p "." s}' "$BASE_DIR/Makefile"
}

# rh_ensure_base_git: make sure out/base.git holds the pinned base as one
# commit (author "rdma-ha base", fixed date, so its id is reproducible)
# and print its id.  Built once per base version, in about a minute;
# trees share its objects (alternates), so re-imports take seconds.
# Old bases are kept: trees made from them still need their objects.
rh_ensure_base_git() {
	local ref sha tree idx
	ref=$(rh_base_ref)
	"$RDMA_HA_ROOT/dev/prepare-src.sh" base
	if [ -d "$RH_BASE_GIT" ] &&
	   sha=$(git --git-dir="$RH_BASE_GIT" rev-parse -q --verify "$ref^{commit}"); then
		echo "$sha"
		return 0
	fi
	log "recording the base ($BASE_PKG $BASE_VERSION) in $RH_BASE_GIT (once per base version)"
	[ -d "$RH_BASE_GIT" ] || git init -q --bare "$RH_BASE_GIT"
	git --git-dir="$RH_BASE_GIT" config core.bigFileThreshold 16m
	idx=$RH_BASE_GIT/index.rdma-ha.$$
	rm -f "$idx"
	# -f: the tarball's own .gitignore files must not hide any of its files.
	GIT_INDEX_FILE=$idx git --git-dir="$RH_BASE_GIT" --work-tree="$BASE_DIR" \
		add -A -f . || { rm -f "$idx"; die "cannot record $BASE_DIR in $RH_BASE_GIT"; }
	tree=$(GIT_INDEX_FILE=$idx git --git-dir="$RH_BASE_GIT" write-tree)
	rm -f "$idx"
	sha=$(GIT_AUTHOR_NAME="$RH_BASE_NAME" GIT_AUTHOR_EMAIL="$RH_IDENT_EMAIL" \
	      GIT_COMMITTER_NAME="$RH_BASE_NAME" GIT_COMMITTER_EMAIL="$RH_IDENT_EMAIL" \
	      GIT_AUTHOR_DATE="$RH_FIXED_DATE" GIT_COMMITTER_DATE="$RH_FIXED_DATE" \
	      git --git-dir="$RH_BASE_GIT" commit-tree "$tree" \
		-m "rdma-ha base: Linux $(rh_kernel_version) from Debian $BASE_PKG $BASE_VERSION" \
		-m "Pristine $BASE_TARBALL of $BASE_PKG=$BASE_VERSION, unpacked unchanged.")
	git --git-dir="$RH_BASE_GIT" update-ref "$ref" "$sha"
	echo "$sha"
}

# rh_overlay_files REPO: new files of REPO, as lib.sh's overlay_files
# lists them, for any repository root: files git tracks or would track
# when REPO is the top of a git work tree, every file otherwise (a copy
# under out/ sits inside the main checkout but is ignored there).
rh_overlay_files() {
	local repo=$1 top
	(cd "$repo" &&
	 top=$(git rev-parse --show-toplevel 2>/dev/null || true)
	 if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
		git ls-files -co --exclude-standard -- $OVERLAY_DIRS
	 else
		# Some overlay directories may not exist: find then fails.
		find $OVERLAY_DIRS \( -type f -o -type l \) 2>/dev/null || true
	 fi | while IFS= read -r f; do
		if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi
	 done) | sort -u
}

# rh_series REPO: patch names in REPO/patches/series, in order.
rh_series() {
	[ -f "$1/patches/series" ] || return 0
	RDMA_HA_ROOT=$1 series_patches
}

# rh_new_files REPO: "path owner" entries of REPO/patches/new-files.
rh_new_files() {
	[ -f "$1/patches/new-files" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1/patches/new-files" |
		awk '{print $1, $2}'
}

# New files that grow over the series.  patches/new-files names a file
# once per patch of the series that changes it: its first row is the
# patch that adds it, every later row a patch that grows it.  The
# repository holds the file as the last of them leaves it; what a
# growing patch adds to the new files it grows is stored as a unified
# diff in patches/grow/SLUG.diff (SLUG: the patch's name without its
# number and .patch, as patches/topics names it).  A file as patch P
# leaves it is the repository's file with the diffs of the later growing
# patches reverse-applied, newest first.  dev/tree.sh export writes the
# rows and the diffs from the tree, where each patch's commit carries
# what it adds; dev/tree.sh import and dev/series.sh read them.
RH_GROW_DIR=patches/grow

# rh_grow_diff REPO PATCH: the path of PATCH's grow diff in REPO.
rh_grow_diff() {
	local n=${2%.patch}
	case "$n" in [0-9][0-9][0-9][0-9]-*) n=${n#????-} ;; esac
	echo "$1/$RH_GROW_DIR/$n.diff"
}

# rh_diff_files DIFF: the files a unified diff changes (its +++ names).
rh_diff_files() {
	sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$1" | sort -u
}

# rh_new_file_stages REPO DIR: writes DIR/PATCH/PATH, the new file PATH
# as PATCH leaves it, for every row "PATH PATCH" of REPO's
# patches/new-files whose PATCH is in the series (the adding patch and
# every growing one).  Checks that a file's rows follow the order of
# patches/series, that every growing row has its hunks in the patch's
# grow diff and every grow diff belongs to growing rows, and that the
# diffs reverse-apply with no fuzz; dies naming the diff otherwise.
rh_new_file_stages() {
	local repo=$1 dir=$2 f p i d out
	local -a series
	local -A idx=() rows=() last=() grows=()
	mapfile -t series < <(rh_series "$repo")
	for i in "${!series[@]}"; do idx[${series[i]}]=$i; done
	rm -rf "$dir"
	mkdir -p "$dir/.cur"
	while read -r f p; do
		[ "$p" != "$RH_NEW_FILES_OWNER_LOCAL" ] || continue
		[ -n "${idx[$p]:-}" ] || continue
		if [ -n "${last[$f]:-}" ]; then
			[ "${idx[$p]}" -gt "${last[$f]}" ] ||
				die "patches/new-files: the rows of $f do not follow patches/series ($p)"
			grows[$p]+=" $f"
		else
			[ -f "$repo/$f" ] || [ -L "$repo/$f" ] ||
				die "patches/new-files lists $f, which is not a new file"
			mkdir -p "$dir/.cur/$(dirname "$f")"
			cp -P "$repo/$f" "$dir/.cur/$f"
		fi
		last[$f]=${idx[$p]}
		rows[$p]+=" $f"
	done < <(rh_new_files "$repo")
	# every grow diff belongs to a growing patch, and has its files
	for d in "$repo/$RH_GROW_DIR"/*.diff; do
		[ -e "$d" ] || continue
		p=
		for i in "${!series[@]}"; do
			[ "$(rh_grow_diff "$repo" "${series[i]}")" != "$d" ] || p=${series[i]}
		done
		[ -n "$p" ] || die "${d#$repo/}: no patch of patches/series has that name"
		[ "$(rh_diff_files "$d" | tr '\n' ' ')" = "$(printf '%s\n' ${grows[$p]:-} | sed '/^$/d' | sort -u | tr '\n' ' ')" ] ||
			die "${d#$repo/} changes $(rh_diff_files "$d" | tr '\n' ' '), but patches/new-files says $p grows: ${grows[$p]:-nothing}"
	done
	for ((i = ${#series[@]} - 1; i >= 0; i--)); do
		p=${series[i]}
		for f in ${rows[$p]:-}; do
			mkdir -p "$dir/$p/$(dirname "$f")"
			cp -P "$dir/.cur/$f" "$dir/$p/$f"
		done
		[ -n "${grows[$p]:-}" ] || continue
		d=$(rh_grow_diff "$repo" "$p")
		[ -f "$d" ] || die "patches/new-files says $p grows${grows[$p]}, but there is no ${d#$repo/}"
		if ! out=$(cd "$dir/.cur" && patch -p1 -R -F0 -f -s --no-backup-if-mismatch \
				-r - <"$d" 2>&1); then
			echo "$out" | sed 's/^/    /' >&2
			die "${d#$repo/} does not reverse-apply to the new files it grows: a change to them since it was written touches what $p adds.  Put that change into the tree on top of the commit that was exported with it (make tree on that commit, git apply, commit or rebase -i), then make export"
		fi
	done
}

# rh_manifest REPO: "TYPE SHA1 PATH" for everything export writes (new
# files, patches/series, patches/new-files, patches/*.patch,
# patches/grow/*.diff); TYPE is F
# (file), X (executable file) or L (symlink; SHA1 is then its target).
rh_manifest() {
	local repo=$1
	(cd "$repo" && {
		rh_overlay_files "$repo"
		ls -1 patches/*.patch 2>/dev/null || true
		ls -1 "$RH_GROW_DIR"/*.diff 2>/dev/null || true
		for f in patches/series patches/new-files; do
			if [ -e "$f" ]; then echo "$f"; fi
		done
	 } | sort -u | while IFS= read -r f; do
		if [ -L "$f" ]; then
			echo "L $(readlink "$f") $f"
		elif [ -x "$f" ]; then
			echo "X $(sha1sum <"$f" | cut -d' ' -f1) $f"
		else
			echo "F $(sha1sum <"$f" | cut -d' ' -f1) $f"
		fi
	 done)
}

# rh_repo_state REPO: one hash of rh_manifest, less patches/new-files
# (export merges the developer's edits of that file instead of
# overwriting them).
rh_repo_state() {
	rh_manifest "$1" | grep -v ' patches/new-files$' | sha1sum | cut -d' ' -f1
}

# rh_abspath PATH: absolute path (PATH need not exist).
rh_abspath() {
	case "$1" in
	/*) echo "$1" ;;
	*) echo "$PWD/$1" ;;
	esac
}

# rh_user_git ARGS: git with the configuration of whoever runs the script
# (global and system files as git would read them outside tree-lib.sh).
rh_user_git() {
	local env=(env -u GIT_CONFIG_GLOBAL -u GIT_CONFIG_NOSYSTEM)
	[ -z "$RH_USER_GIT_CONFIG_GLOBAL" ] ||
		env+=(GIT_CONFIG_GLOBAL="$RH_USER_GIT_CONFIG_GLOBAL")
	[ -z "$RH_USER_GIT_CONFIG_NOSYSTEM" ] ||
		env+=(GIT_CONFIG_NOSYSTEM="$RH_USER_GIT_CONFIG_NOSYSTEM")
	"${env[@]}" git "$@"
}

# rh_ident_problem NAME EMAIL: why NAME <EMAIL> cannot sign off a patch
# for mailing (printed; status 0), or status 1 if it can.  Refused: an
# empty name or address, the identities of the project's placeholders and
# scripts, an address without a domain, and addresses under the domains
# reserved for examples and tests (RFC 2606, RFC 6761: .invalid,
# .example, .test, .localhost, example.com/.net/.org) or local ones.
rh_ident_problem() {
	local name=$1 email=$2 domain r
	[ -n "$name" ] || { echo "git config user.name is not set"; return 0; }
	[ -n "$email" ] || { echo "git config user.email is not set"; return 0; }
	case "$name" in
	"$RH_PLACEHOLDER_NAME"|"$RH_IDENT_NAME"|"$RH_BASE_NAME")
		echo "user.name '$name' is the project's placeholder"; return 0 ;;
	esac
	case "$email" in
	*[[:space:]\<\>]*|*@*@*|@*|*@|*@.*|*.)
		echo "user.email '$email' is not an address"; return 0 ;;
	*@*.*) ;;
	*)	echo "user.email '$email' is not an address with a domain"; return 0 ;;
	esac
	domain=.$(echo "${email##*@}" | tr '[:upper:]' '[:lower:]')
	for r in .invalid .example .test .localhost .local .localdomain .internal \
		 .example.com .example.net .example.org; do
		case "$domain" in
		*"$r")
			echo "user.email '$email' is an address under $r, a domain reserved for examples, tests or local use"
			return 0 ;;
		esac
	done
	return 1
}

# rh_signoff IDENT <MESSAGE: the commit message with every Signed-off-by
# of a placeholder identity (rh_ident_problem) replaced by IDENT
# ("Name <address>"), IDENT's own sign-off kept once (where it first
# appears) and appended to the trailers if the message had none.
rh_signoff() {
	local ident=$1 line who n e seen=0 out=()
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		[Ss]igned-off-by:*)
			who=$(echo "${line#*:}" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
			n=${who% <*}; e=${who##*<}; e=${e%>}
			if [ "$who" = "$ident" ] || rh_ident_problem "$n" "$e" >/dev/null; then
				[ "$seen" = 1 ] && continue
				seen=1
				line="Signed-off-by: $ident"
			fi ;;
		esac
		out+=("$line")
	done
	# drop trailing empty lines
	while [ ${#out[@]} -gt 0 ] && [ -z "${out[-1]}" ]; do unset 'out[-1]'; done
	printf '%s\n' "${out[@]}"
	[ "$seen" = 0 ] || return 0
	# a trailer block ends the message: join it, else start one
	case "${out[-1]:-}" in
	[A-Za-z]*-by:*|Fixes:*|Link:*|Cc:*|Closes:*) ;;
	*) echo ;;
	esac
	echo "Signed-off-by: $ident"
}
