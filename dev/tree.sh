#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tree.sh import [--force] [--repo REPO] [TREE]
# tree.sh export [--force] [--repo REPO] [TREE]
# tree.sh status [TREE]
#
# The edit round trip between this repository (new files at their kernel
# paths + patches/series) and a git work tree of the whole kernel.
#
#   import  TREE (default out/tree) becomes a git work tree on branch
#           rdma-ha: commit 1 = the pristine base (tag rdma-ha-base),
#           commit 2 = every new file ("rdma-ha: new files"), then one
#           commit per patch of patches/series (git am: author, date and
#           message kept).  Refuses to replace a tree holding unexported
#           commits or uncommitted changes unless --force (the old HEAD
#           is then kept as refs/rdma-ha/backup/*).
#   export  writes the tree back: every file of HEAD that is not in the
#           base becomes a new file of the repository (files no longer in
#           HEAD are deleted), every commit after the base that changes
#           upstream files becomes patches/NNNN-subject.patch (only its
#           upstream files), patches/series is rewritten in order, stale
#           patches are removed, patches/new-files is updated.
#   status  what the tree holds compared with its last import/export.
#
# REPO defaults to the checkout holding this script.  The stored patches
# are exactly what export writes, so export(import(x)) == x byte for byte
# (dev/check-roundtrip.sh proves it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tree-lib.sh"

usage() {
	sed -n '3,6s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# tgit ARGS: git in the tree.
tgit() { git -C "$tree" "$@"; }

is_rdma_ha_tree() {
	[ -d "$1/.git" ] && [ -n "$(git -C "$1" config rdma-ha.base 2>/dev/null || true)" ]
}

# tree_problems: print why replacing the tree would lose work (nothing if
# it is safe).
tree_problems() {
	local gd exported head n
	gd=$(tgit rev-parse --absolute-git-dir)
	[ ! -d "$gd/rebase-apply" ] || echo "a git am or rebase is in progress"
	[ ! -d "$gd/rebase-merge" ] || echo "a rebase is in progress"
	[ ! -f "$gd/MERGE_HEAD" ] || echo "a merge is in progress"
	[ ! -f "$gd/CHERRY_PICK_HEAD" ] || echo "a cherry-pick is in progress"
	n=$(tgit status --porcelain --untracked-files=normal | wc -l)
	[ "$n" = 0 ] || echo "$n uncommitted change(s) or untracked file(s) (git status)"
	exported=$(tgit config rdma-ha.exported || true)
	head=$(tgit rev-parse -q --verify HEAD || true)
	if [ -n "$head" ] && [ "$head" != "$exported" ]; then
		if [ -n "$exported" ] && tgit merge-base --is-ancestor "$exported" HEAD 2>/dev/null; then
			echo "$(tgit rev-list --count "$exported..HEAD") commit(s) not exported"
		else
			echo "HEAD ${head:0:12} is not what was last imported or exported (${exported:0:12}): history was rewritten"
		fi
	fi
}

# has_mail_header PATCH: true if PATCH has From:/Subject: headers (a
# git format-patch or mail file) rather than being a bare diff.
has_mail_header() {
	awk '/^(diff |--- |\+\+\+ |Index: )/{exit} /^From: /{f=1} /^Subject: /{s=1}
		END{exit !(f && s)}' "$1"
}

# unhide_top_level: Debian's linux-source adds "/*" (and "!/debian/") to
# the top-level .gitignore, which hides every new file from git status and
# git add.  Drop those two lines in the work tree only; the base commit
# stays pristine and git ignores the local edit (skip-worktree).
unhide_top_level() {
	if grep -qx '/\*' "$tree/.gitignore" 2>/dev/null; then
		tgit update-index --skip-worktree .gitignore
		awk '$0 != "/*" && $0 != "!/debian/"' "$tree/.gitignore" >"$tree/.gitignore.tmp"
		mv "$tree/.gitignore.tmp" "$tree/.gitignore"
	fi
}

cmd_import() {
	local base files=() series=() p f bad out gd now stages
	base=$(rh_ensure_base_git)

	# Check the inputs before touching the tree.
	[ -f "$repo/patches/series" ] || die "$repo/patches/series does not exist"
	mapfile -t series < <(rh_series "$repo")
	for p in "${series[@]}"; do
		[ -f "$repo/patches/$p" ] || die "patches/series names $p, which does not exist in $repo/patches"
	done
	mapfile -t files < <(rh_overlay_files "$repo")
	bad=$(for f in "${files[@]}"; do echo "$base:$f $f"; done |
		git --git-dir="$RH_BASE_GIT" cat-file --batch-check='%(objecttype) %(rest)' |
		awk '$NF != "missing" {print "    " $2}')
	[ -z "$bad" ] || die "new files that exist upstream (change them through patches/ instead):
$bad"

	if [ -e "$tree" ] && [ ! -d "$tree" ]; then
		die "$tree exists and is not a directory"
	fi
	if [ -d "$tree" ] && is_rdma_ha_tree "$tree"; then
		out=$(tree_problems)
		if [ -n "$out" ]; then
			if [ "$force" != 1 ]; then
				die "$tree holds work that was not exported:
$(echo "$out" | sed 's/^/    /')
run '$0 export${tree_arg:+ $tree_arg}' first, or import --force (the old HEAD is kept as a backup ref)"
			fi
			now=$(date -u +%Y%m%dT%H%M%SZ)
			if tgit rev-parse -q --verify HEAD >/dev/null; then
				tgit update-ref "refs/rdma-ha/backup/$now" HEAD
				log "--force: old HEAD kept as refs/rdma-ha/backup/$now; uncommitted changes are discarded"
			fi
		fi
		gd=$(tgit rev-parse --absolute-git-dir)
		[ ! -d "$gd/rebase-apply" ] || tgit am --abort >/dev/null 2>&1 || rm -rf "$gd/rebase-apply"
		[ ! -d "$gd/rebase-merge" ] || tgit rebase --abort >/dev/null 2>&1 || rm -rf "$gd/rebase-merge"
		[ ! -f "$gd/MERGE_HEAD" ] || tgit merge --abort >/dev/null 2>&1 || true
		[ ! -f "$gd/CHERRY_PICK_HEAD" ] || tgit cherry-pick --abort >/dev/null 2>&1 || true
		log "resetting $tree to the base"
	elif [ -d "$tree" ] && [ -n "$(ls -A "$tree")" ]; then
		die "$tree exists and is not an rdma-ha tree (not replacing it; pick another directory or remove it)"
	else
		log "creating $tree (checking out about 90k files, once)"
		mkdir -p "$tree"
		git init -q -b rdma-ha "$tree"
	fi

	gd=$(tgit rev-parse --absolute-git-dir)
	mkdir -p "$gd/objects/info"
	grep -qxF "$RH_BASE_GIT/objects" "$gd/objects/info/alternates" 2>/dev/null ||
		echo "$RH_BASE_GIT/objects" >>"$gd/objects/info/alternates"
	tgit config rdma-ha.base "$base"
	tgit config rdma-ha.baseVersion "$BASE_VERSION"
	tgit config rdma-ha.repo "$repo"
	tgit config --unset rdma-ha.exported || true
	tgit update-ref refs/tags/rdma-ha-base "$base"
	tgit config core.untrackedCache true
	tgit update-index --no-skip-worktree .gitignore 2>/dev/null || true
	tgit checkout -q -f -B rdma-ha "$base"
	unhide_top_level
	tgit clean -q -f -d

	# Commit 2: the new files, those of the series as the patch that adds
	# them has them (patches/new-files); each patch that grows one adds
	# the rest in its own commit.
	stages=$(mktemp -d "${TMPDIR:-/tmp}/rdma-ha-stages.XXXXXX")
	trap 'rm -rf "${stages:-}"' EXIT
	rh_new_file_stages "$repo" "$stages"
	declare -A first=() grows=()
	while read -r f p; do
		[ "$p" != "$RH_NEW_FILES_OWNER_LOCAL" ] && [ -d "$stages/$p" ] || continue
		if [ -z "${first[$f]:-}" ]; then first[$f]=$p; else grows[$p]+=" $f"; fi
	done < <(rh_new_files "$repo")
	rh_ident_env
	for f in "${files[@]}"; do
		mkdir -p "$tree/$(dirname "$f")"
		rm -f "$tree/$f"
		cp -P --preserve=mode "$repo/$f" "$tree/$f"
		if [ -n "${first[$f]:-}" ] && [ ! -L "$repo/$f" ]; then
			cat "$stages/${first[$f]}/$f" >"$tree/$f"
		fi
	done
	if [ ${#files[@]} -gt 0 ]; then
		printf '%s\0' "${files[@]}" |
			tgit add -f --pathspec-from-file=- --pathspec-file-nul
	fi
	GIT_AUTHOR_DATE=$RH_FIXED_DATE GIT_COMMITTER_DATE=$RH_FIXED_DATE \
		tgit commit -q --no-verify --allow-empty -m "$RH_OVERLAY_SUBJECT" \
		-m "Every new file of rdma-ha at its kernel path.  tree.sh export writes
files that are not in the base back to the repository whichever commit
adds them; patches/new-files says which patch of the series adds each."

	# One commit per patch.
	for p in "${series[@]}"; do
		f=$repo/patches/$p
		if has_mail_header "$f"; then
			if ! out=$(tgit am -q --committer-date-is-author-date --no-3way \
					--whitespace=nowarn "$f" 2>&1); then
				tgit am --abort >/dev/null 2>&1 || true
				echo "$out" | sed 's/^/    /' >&2
				die "patches/$p does not apply on top of the previous ones (see above)"
			fi
		else
			log "patches/$p has no mail header (From:/Subject:); applied as a bare diff, export will rewrite it"
			if ! out=$(tgit apply --index "$f" 2>&1); then
				echo "$out" | sed 's/^/    /' >&2
				die "patches/$p does not apply on top of the previous ones (see above)"
			fi
			GIT_AUTHOR_DATE=$RH_FIXED_DATE GIT_COMMITTER_DATE=$RH_FIXED_DATE \
				tgit commit -q --no-verify -m "${p%.patch}"
		fi
		# what the patch adds to the new files it grows
		[ -n "${grows[$p]:-}" ] || continue
		for f in ${grows[$p]}; do
			cat "$stages/$p/$f" >"$tree/$f"
			tgit add -f -- "$f"
		done
		GIT_COMMITTER_DATE=$(tgit log -1 --format=%aD) \
			tgit commit -q --no-verify --amend --no-edit --allow-empty
	done
	tgit config rdma-ha.exported "$(tgit rev-parse HEAD)"
	tgit config rdma-ha.repoState "$(rh_repo_state "$repo")"
	log "imported ${#files[@]} new file(s) and ${#series[@]} patch(es) into $tree"
	log "edit and commit there (git log rdma-ha-base..), then: $0 export${tree_arg:+ $tree_arg}"
}

# slug NAME: a patch name without its NNNN- number.
slug() { echo "${1#[0-9][0-9][0-9][0-9]-}"; }

cmd_export() {
	local base head out c subj n=0 name paths added errs=() warns=() notes=()
	local p f mode sha st

	is_rdma_ha_tree "$tree" || die "$tree is not a tree made by '$0 import'"
	base=$(tgit config rdma-ha.base)
	[ "$(tgit config rdma-ha.baseVersion)" = "$BASE_VERSION" ] ||
		warns+=("the tree's base is $(tgit config rdma-ha.baseVersion), dev/lib.sh pins $BASE_VERSION")
	gd=$(tgit rev-parse --absolute-git-dir)
	for st in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD; do
		[ ! -e "$gd/$st" ] || die "finish or abort the operation in progress in $tree ($st) first"
	done
	head=$(tgit rev-parse HEAD)
	tgit merge-base --is-ancestor "$base" HEAD ||
		die "HEAD of $tree does not descend from the base (rdma-ha-base); rebase onto it"
	[ -z "$(tgit rev-list --merges "$base..HEAD")" ] ||
		die "merge commits between rdma-ha-base and HEAD: the series must be linear (git rebase rdma-ha-base)"
	if [ -n "$(tgit status --porcelain --untracked-files=normal)" ]; then
		[ "$force" = 1 ] ||
			die "uncommitted changes or untracked files in $tree (they would not be exported): commit them, or export --force to export the committed state only
$(tgit status --short | head -20 | sed 's/^/    /')"
		warns+=("uncommitted changes in $tree were not exported")
	fi
	if [ "$(rh_repo_state "$repo")" != "$(tgit config rdma-ha.repoState || true)" ] &&
	   [ "$force" != 1 ]; then
		die "$repo changed since $tree was imported or last exported (new files or patches/ were edited there); export would overwrite that.
    Either bring those changes into the tree and export --force, or export
    elsewhere first (--repo DIR) and re-import."
	fi

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdma-ha-export.XXXXXX")
	trap 'rm -rf "${tmp:-}"' EXIT
	mkdir "$tmp/patches"
	git --git-dir="$gd" ls-tree -r -z --name-only "$base" | tr '\0' '\n' >"$tmp/base-files"

	# New files: in HEAD, not in the base.
	tgit -c core.quotePath=false diff --raw --no-renames --no-abbrev -z \
		--diff-filter=A "$base" HEAD | tr '\0' '\n' |
		awk '/^:/{m=$2; s=$4; getline; print m, s, $0}' >"$tmp/new"
	while read -r mode sha f; do
		case "$f" in
		*[[:space:]]*) errs+=("new file name with white space: '$f'") ;;
		esac
		case " $OVERLAY_DIRS " in
		*" ${f%%/*} "*) ;;
		*) errs+=("new file $f is outside the overlay directories ($OVERLAY_DIRS): move it there, or drop it") ;;
		esac
		case "$mode" in
		100644|100755|120000) ;;
		*) errs+=("new file $f has git mode $mode (not a file or symlink)") ;;
		esac
	done <"$tmp/new"

	# Patches: one per commit that changes upstream files.
	declare -A owner_auto=() pcommit=()
	: >"$tmp/series"
	while read -r c; do
		subj=$(tgit log -1 --format=%s "$c")
		tgit -c core.quotePath=false diff-tree -r -z --no-renames --no-commit-id \
			--name-only "$c" | tr '\0' '\n' >"$tmp/changed"
		mapfile -t paths < <(awk 'NR==FNR{b[$0]=1; next} ($0 in b)' \
			"$tmp/base-files" "$tmp/changed")
		mapfile -t added < <(tgit -c core.quotePath=false diff-tree -r -z --no-renames \
			--no-commit-id --name-only --diff-filter=A "$c" | tr '\0' '\n' |
			awk 'NR==FNR{b[$0]=1; next} !($0 in b)' "$tmp/base-files" -)
		if [ ${#paths[@]} -eq 0 ]; then
			if [ "$subj" != "$RH_OVERLAY_SUBJECT" ]; then
				notes+=("commit ${c:0:12} \"$subj\" changes only new files: no patch (its message is not kept)")
			fi
			continue
		fi
		if [ "$subj" = "$RH_OVERLAY_SUBJECT" ]; then
			errs+=("commit ${c:0:12} \"$RH_OVERLAY_SUBJECT\" changes upstream files (${paths[*]:0:3}...): move those changes into a commit of their own")
			continue
		fi
		n=$((n + 1))
		name=$(tgit format-patch "${RH_FORMAT_PATCH_OPTS[@]}" --start-number="$n" \
			-o "$tmp/patches" "$c^..$c" -- "${paths[@]}")
		[ -n "$name" ] && [ -f "$name" ] || die "git format-patch produced nothing for commit $c"
		name=$(basename "$name")
		echo "$name" >>"$tmp/series"
		pcommit[$name]=$c
		if grep -q '^GIT binary patch' "$tmp/patches/$name"; then
			warns+=("$name holds a binary diff, which patch(1) (dev/prepare-src.sh) cannot apply")
		fi
		for f in "${added[@]}"; do
			owner_auto[$f]=$name
		done
	done < <(tgit rev-list --reverse "$base..HEAD")

	if [ ${#errs[@]} -gt 0 ]; then
		printf 'error: %s\n' "${errs[@]}" >&2
		die "nothing exported"
	fi

	# patches/new-files: keep owners of files that still exist (following a
	# patch to its new number), take the patch of the commit that added a
	# file as its owner when it has none.
	declare -A in_series=() by_slug=() owner=() is_new=()
	while read -r p; do
		in_series[$p]=1
		if [ -n "${by_slug[$(slug "$p")]:-}" ]; then
			by_slug[$(slug "$p")]="?"
		else
			by_slug[$(slug "$p")]=$p
		fi
	done <"$tmp/series"
	while read -r mode sha f; do is_new[$f]=1; done <"$tmp/new"
	while read -r f p; do
		# the first row: the patch that adds it (the growing ones follow
		# from the tree below)
		[ -z "${owner[$f]:-}" ] || continue
		if [ -z "${is_new[$f]:-}" ]; then
			notes+=("patches/new-files: dropped $f (no longer exists)")
			continue
		fi
		if [ "$p" != "$RH_NEW_FILES_OWNER_LOCAL" ] && [ -z "${in_series[$p]:-}" ]; then
			local s=${by_slug[$(slug "$p")]:-}
			if [ -n "$s" ] && [ "$s" != "?" ]; then
				notes+=("patches/new-files: $f now belongs to $s (was $p)")
				p=$s
			else
				warns+=("patches/new-files: $f belongs to $p, which is not in the series: fix its entry")
			fi
		fi
		owner[$f]=$p
	done < <(rh_new_files "$repo")
	local unowned=()
	while read -r mode sha f; do
		[ -z "${owner[$f]:-}" ] || continue
		if [ -n "${owner_auto[$f]:-}" ]; then
			owner[$f]=${owner_auto[$f]}
			notes+=("patches/new-files: $f added by ${owner_auto[$f]}")
		else
			unowned+=("$f")
		fi
	done <"$tmp/new"
	# Growing new files: a new file of the series that a later patch's
	# commit changes (compared with the commit of the patch before it)
	# gets a row for that patch, and the change goes to the patch's grow
	# diff.  A change made after the last patch (or between the patches)
	# goes to the next patch that grows the file, or to the last one.
	declare -A gdiff=()
	local -a porder=() gl
	local gi gj cur prev last_g blob_head
	mapfile -t porder <"$tmp/series"
	mkdir -p "$tmp/grow" "$tmp/stage"
	: >"$tmp/grow-rows"
	for f in $(for f in "${!owner[@]}"; do echo "$f"; done | sort); do
		p=${owner[$f]}
		[ -n "${pcommit[$p]:-}" ] || continue
		[ "$(tgit cat-file -t "${pcommit[$p]}:$f" 2>/dev/null)" = blob ] || continue
		[ "$(tgit ls-tree "${pcommit[$p]}" -- "$f" | cut -c1-6)" != 120000 ] || continue
		gl=() prev=$(tgit rev-parse "${pcommit[$p]}:$f") gj=
		for gi in "${!porder[@]}"; do
			[ "${porder[gi]}" = "$p" ] && { gj=$gi; continue; }
			[ -n "$gj" ] || continue
			cur=$(tgit rev-parse -q --verify "${pcommit[${porder[gi]}]}:$f" || true)
			[ -n "$cur" ] || { errs+=("$f: deleted by ${porder[gi]}, after $p added it"); break; }
			[ "$cur" = "$prev" ] || gl+=("$gi:$cur")
			prev=$cur
		done
		blob_head=$(tgit rev-parse "HEAD:$f")
		[ ${#gl[@]} -gt 0 ] || continue
		# the last stage is the file as the repository keeps it
		last_g=${gl[-1]}
		gl[-1]=${last_g%%:*}:$blob_head
		prev=$(tgit rev-parse "${pcommit[$p]}:$f")
		for cur in "${gl[@]}"; do
			gi=${cur%%:*} cur=${cur#*:}
			tgit cat-file blob "$prev" >"$tmp/stage/a"
			tgit cat-file blob "$cur" >"$tmp/stage/b"
			diff -u --label "a/$f" --label "b/$f" "$tmp/stage/a" "$tmp/stage/b" \
				>>"$tmp/grow/${porder[gi]}" || true
			echo "$f ${porder[gi]}" >>"$tmp/grow-rows"
			prev=$cur
		done
	done
	[ ${#errs[@]} -eq 0 ] || { printf 'error: %s\n' "${errs[@]}" >&2; die "nothing exported"; }
	{
		if [ -f "$repo/patches/new-files" ]; then
			awk '/^#/{print; next} {exit}' "$repo/patches/new-files"
		else
			echo "# New file -> the patch of patches/series that introduces it"
			echo "# ('-': a project file that is not part of the upstream series)."
		fi
		# In series order, then by path; files without a patch last.
		{
			awk '{print NR, $1}' "$tmp/series"
			echo "999999 $RH_NEW_FILES_OWNER_LOCAL"
		} >"$tmp/order"
		{ for f in "${!owner[@]}"; do echo "$f ${owner[$f]}"; done
		  cat "$tmp/grow-rows"; } |
			awk 'NR==FNR{o[$2]=$1; next} {k=($2 in o) ? o[$2] : 999998; print k, $0}' \
				"$tmp/order" - | sort -k1,1n -k2,2 | cut -d' ' -f2-
	} >"$tmp/new-files"

	# Write the repository: new files first, then patches/.
	local wrote=0 deleted=0 cur
	declare -A keep=()
	while read -r mode sha f; do
		keep[$f]=1
		mkdir -p "$repo/$(dirname "$f")"
		if [ "$mode" = 120000 ]; then
			cur=$(git --git-dir="$gd" cat-file blob "$sha")
			if [ ! -L "$repo/$f" ] || [ "$(readlink "$repo/$f")" != "$cur" ]; then
				rm -f "$repo/$f"
				ln -s "$cur" "$repo/$f"
				wrote=$((wrote + 1))
			fi
			continue
		fi
		git --git-dir="$gd" cat-file blob "$sha" >"$tmp/blob"
		if [ -L "$repo/$f" ] || ! cmp -s "$tmp/blob" "$repo/$f"; then
			rm -f "$repo/$f"
			cp "$tmp/blob" "$repo/$f"
			wrote=$((wrote + 1))
		fi
		if [ "$mode" = 100755 ]; then chmod a+x "$repo/$f"; else chmod a-x "$repo/$f"; fi
	done <"$tmp/new"
	while IFS= read -r f; do
		[ -z "${keep[$f]:-}" ] || continue
		rm -f "$repo/$f"
		deleted=$((deleted + 1))
		cur=$(dirname "$f")
		while [ "$cur" != . ] && rmdir "$repo/$cur" 2>/dev/null; do
			cur=$(dirname "$cur")
		done
	done < <(rh_overlay_files "$repo")

	mkdir -p "$repo/patches"
	for f in "$repo"/patches/*.patch; do
		[ -e "$f" ] || continue
		grep -qxF "$(basename "$f")" "$tmp/series" || rm -f "$f"
	done
	while read -r p; do
		cmp -s "$tmp/patches/$p" "$repo/patches/$p" ||
			cp "$tmp/patches/$p" "$repo/patches/$p"
	done <"$tmp/series"
	{
		if [ -f "$repo/patches/series" ]; then
			awk '/^#/{print; next} {exit}' "$repo/patches/series"
		fi
		cat "$tmp/series"
	} >"$tmp/series.full"
	cmp -s "$tmp/series.full" "$repo/patches/series" || cp "$tmp/series.full" "$repo/patches/series"
	# grow diffs: one per growing patch, named by its slug
	for f in "$repo/$RH_GROW_DIR"/*.diff; do
		[ -e "$f" ] || continue
		p=$(basename "$f" .diff)
		[ -f "$tmp/grow/$(grep -m1 -- "^[0-9]\{4\}-$p\.patch\$" "$tmp/series" || echo none)" ] ||
			rm -f "$f"
	done
	for p in $(ls "$tmp/grow"); do
		f=$(rh_grow_diff "$repo" "$p")
		mkdir -p "$(dirname "$f")"
		{
			echo "# What $(basename "$f" .diff) adds to the new files it grows"
			echo "# (patches/new-files): written by dev/tree.sh export, never by hand."
			cat "$tmp/grow/$p"
		} >"$tmp/grow.diff"
		cmp -s "$tmp/grow.diff" "$f" || cp "$tmp/grow.diff" "$f"
	done
	rmdir "$repo/$RH_GROW_DIR" 2>/dev/null || true
	cmp -s "$tmp/new-files" "$repo/patches/new-files" || cp "$tmp/new-files" "$repo/patches/new-files"

	# What the repository now lists must be what was exported.
	comm -3 <(awk '{print $3}' "$tmp/new" | sort) <(rh_overlay_files "$repo") >"$tmp/diff" || true
	if [ -s "$tmp/diff" ]; then
		warns+=("these new files are hidden from the repository (its .gitignore?), so import and the builds will not see them: $(tr -s '\t\n' '  ' <"$tmp/diff")")
	fi

	tgit config rdma-ha.exported "$head"
	tgit config rdma-ha.repoState "$(rh_repo_state "$repo")"
	[ ${#notes[@]} -eq 0 ] || printf 'note: %s\n' "${notes[@]}" >&2
	[ ${#warns[@]} -eq 0 ] || printf 'warning: %s\n' "${warns[@]}" >&2
	if [ ${#unowned[@]} -gt 0 ]; then
		printf 'warning: new file without a patch in patches/new-files: %s\n' "${unowned[@]}" >&2
		echo "warning: add a line '<path> <patch-file-name>' (or '<path> -' for a file that is not part of the upstream series) for each to $repo/patches/new-files" >&2
	fi
	log "exported $(wc -l <"$tmp/new") new file(s) ($wrote written, $deleted deleted) and $n patch(es) to $repo"
}

cmd_status() {
	local base exported out
	is_rdma_ha_tree "$tree" || die "$tree is not a tree made by '$0 import'"
	base=$(tgit config rdma-ha.base)
	exported=$(tgit config rdma-ha.exported || true)
	echo "tree:      $tree"
	echo "repo:      $(tgit config rdma-ha.repo)"
	echo "base:      ${base:0:12} ($(tgit config rdma-ha.baseVersion))"
	echo "exported:  ${exported:0:12}"
	echo "commits:   $(tgit rev-list --count "$base..HEAD") after the base"
	out=$(tree_problems)
	if [ -n "$out" ]; then
		echo "$out" | sed 's/^/pending:   /'
	else
		echo "pending:   nothing (the repository holds what the tree holds)"
	fi
	if [ "$(rh_repo_state "$(tgit config rdma-ha.repo)")" != "$(tgit config rdma-ha.repoState || true)" ]; then
		echo "repo:      changed since the last import/export"
	fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
force=0
repo=$RDMA_HA_ROOT
tree_arg=
while [ $# -gt 0 ]; do
	case "$1" in
	--force|-f) force=1 ;;
	--repo) [ $# -ge 2 ] || usage; repo=$2; shift ;;
	--repo=*) repo=${1#--repo=} ;;
	-h|--help) usage ;;
	-*) die "unknown option $1" ;;
	*) [ -z "$tree_arg" ] || usage; tree_arg=$1 ;;
	esac
	shift
done
[ -d "$repo" ] || die "repository $repo does not exist"
repo=$(cd "$repo" && pwd)
tree=$(rh_abspath "${tree_arg:-$OUT/tree}")
tree=${tree%/}

case "$cmd" in
import) cmd_import ;;
export) cmd_export ;;
status) cmd_status ;;
*) usage ;;
esac
