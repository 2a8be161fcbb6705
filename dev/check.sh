#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh [--quick] [--only static|kunit|dkms|vm|series] [--scenario NAME[,NAME...]]
#          [--kernel stock|patched|debian|kasan]
#
# The whole test suite: the series applies and round-trips, static checks
# on everything the project adds or changes (checkpatch --strict, sparse,
# W=1, kernel-doc; no new warnings compared with the stock tree), the
# patched and the stock debug kernels build, KUnit suites built into the
# patched kernel, the replacement modules (DKMS flavour) build against
# Debian's headers with the distribution's ABI, and the QEMU scenarios on
# the stock, the patched and Debian's own kernel.  Every check prints
# "TEST name: PASS|FAIL|SKIP"; the run ends with "N passed, N failed,
# N skipped" and exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ONLY=
SCENARIO=
KERNEL_KIND=
SETUP_ONLY=
while [ $# -gt 0 ]; do
	case "$1" in
	--only) ONLY=$2; shift ;;
	--scenario) SCENARIO=$2; ONLY=vm; shift ;;
	--kernel) KERNEL_KIND=$2; shift ;;
	--setup-only) SETUP_ONLY=1 ;;
	*) die "unknown argument $1" ;;
	esac
	shift
done

SELFTESTS=$RDMA_HA_ROOT/vm
LOGDIR=$OUT/check
# The KASAN lane's default (see kasan_lane): off, for the cold check's
# 45-minute budget (README); KASAN=1 or K=kasan asks for it.
KASAN_DEFAULT=0
PASSED=0 FAILED=0 SKIPPED=0
FAILED_NAMES=()

# result NAME PASS|FAIL|SKIP [detail]
result() {
	echo "TEST $1: $2${3:+ ($3)}"
	case "$2" in
	PASS) PASSED=$((PASSED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	*) FAILED=$((FAILED + 1)); FAILED_NAMES+=("$1") ;;
	esac
}

# run_check NAME CMD...: run CMD with its output in a log; on failure show
# the log's tail.  What took 10 s or more says how long, and how much CPU
# (user and system, its children's included) it took: the check's budget.
run_check() {
	local name=$1 log rc t TIMEFORMAT='%R %U %S'
	shift
	log=$LOGDIR/$(echo "$name" | tr '/: ' '___').log
	{ time "$@" >"$log" 2>&1; } 2>"$log.time"
	rc=$?
	t=$(tail -n 1 "$log.time" | awk 'NF == 3 && $1 >= 10 { printf "%d s, %d CPU-s", $1, $2 + $3 }')
	rm -f "$log.time"
	if [ "$rc" = 0 ]; then
		result "$name" PASS "$t"
	else
		result "$name" FAIL "${t:+$t, }log: $log"
		tail -n 40 "$log" | sed 's/^/    | /'
		DIGEST+=("TEST $name: FAIL" "$(tail -n 12 "$log" | sed 's/^/  /')")
		return 1
	fi
}

want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

setup() {
	need_pkgs gcc make bc flex bison libelf-dev libssl-dev ccache cpio \
		xz-utils patch git python3 perl sparse qemu-system-x86 \
		busybox-static iproute2 rdma-core ibverbs-providers \
		ibverbs-utils rdmacm-utils perftest librdmacm-dev \
		libibverbs-dev infiniband-diags socat vde-switch kmod gcc-12 zstd dwarves \
		groff-base man-db nvme-cli fio python3-pyverbs
}

# ---- series, round trip -------------------------------------------------

check_series() {
	run_check series/apply "$RDMA_HA_ROOT/dev/prepare-src.sh" patched
	if [ -x "$RDMA_HA_ROOT/dev/check-roundtrip.sh" ]; then
		run_check series/roundtrip "$RDMA_HA_ROOT/dev/check-roundtrip.sh"
	fi
}

# ---- the mailable series ------------------------------------------------
#
# What make series would mail, checked as such: dev/series.sh --draft (a
# check signs nothing off, so any identity, marked DRAFT) must exit 0:
# checkpatch --strict clean on every emitted patch, new files included,
# and every new file covered by the base's MAINTAINERS.  series/bisect:
# every step of it builds what it can break (drivers/infiniband/ in the
# test kernel's configuration; dev/series.sh --build-steps).

# series_checks [bisect]: the series' checks; with "bisect", the per-step
# build too.
series_checks() {
	run_check check/series-ident series_ident_selftest
	run_check series/mailable series_mailable
	run_check series/topics series_topics
	[ "${1:-}" != bisect ] ||
		run_check series/bisect "$RDMA_HA_ROOT/dev/series.sh" --draft \
			--no-checkpatch --build-steps "$LOGDIR/series-steps"
}

# series_mailable: the draft series is clean, and every author and
# sign-off in it is the runner's identity (when there is one), as the
# commits series.sh emitted (out/series-work) say: the mail headers may
# be folded or RFC 2047-encoded.
series_mailable() {
	local s=$RDMA_HA_ROOT/dev/series.sh who bad
	"$s" --draft "$LOGDIR/series" || return
	who=$("$s" --draft --whoami 2>/dev/null) || return
	case "$who" in "(none"*) return 0 ;; esac
	bad=$(git --git-dir="$OUT/series-work" log \
		--format='%h %s%x09author: %an <%ae>%n%(trailers:key=Signed-off-by)' base..series |
		awk -F '\t' -v who="$who" '
			NF == 2 { c = $1; if ($2 != "author: " who) print c ": " $2; next }
			/^Signed-off-by: / && $0 != "Signed-off-by: " who { print c ": " $0 }')
	[ -z "$bad" ] || { echo "not the runner's identity ($who):"; echo "$bad"; return 1; }
	echo "every author and sign-off: $who"
}

# series_topics: the work as its topic series (make series): each applies
# to the base with the series it needs, and the topics posted in order
# make exactly the whole series (series/mailable checked the patches
# themselves).
series_topics() {
	local s=$RDMA_HA_ROOT/dev/series.sh d=$LOGDIR/series-topics w=$OUT/series-work
	local idx t n=0 whole got
	"$s" --draft --no-checkpatch --topics "$d" || return
	idx=$(mktemp)
	whole=$(git --git-dir="$w" rev-parse "series^{tree}") || { rm -f "$idx"; return 1; }
	GIT_INDEX_FILE=$idx git --git-dir="$w" read-tree base
	for t in $(ls -d "$d"/*/ | sort -V); do
		for f in "$t"*.patch; do
			case "$f" in *-cover-letter.patch) continue ;; esac
			n=$((n + 1))
			GIT_INDEX_FILE=$idx git --git-dir="$w" apply --cached "$f" ||
				{ echo "$f does not apply after the topics before it"; rm -f "$idx"; return 1; }
		done
	done
	got=$(GIT_INDEX_FILE=$idx git --git-dir="$w" write-tree)
	rm -f "$idx"
	[ "$got" = "$whole" ] || {
		echo "the topic series applied in order ($n patches) differ from the whole series:"
		git --git-dir="$w" diff --stat "$whole" "$got"; return 1; }
	echo "$(ls -d "$d"/*/ | wc -l) topic series, $n patches, applied in posting order: the whole series"
}

# series_ident_selftest: dev/series.sh refuses, without --draft, a
# missing identity, the placeholder and addresses under reserved domains,
# writing nothing, and accepts them with --draft; it accepts a real-
# looking identity, also from the runner's global configuration; the
# placeholder's sign-off becomes the runner's.
series_ident_selftest() (
	local d s=$RDMA_HA_ROOT/dev/series.sh x n e out got
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	export HOME=$d GIT_CONFIG_NOSYSTEM=1
	unset GIT_CONFIG_GLOBAL GIT_CONFIG_COUNT
	git init -q "$d/repo"
	for x in "rdma-ha developers|rdma-ha@example.invalid" "Jane Doe|jane@example.com" \
		 "Jane Doe|jane@users.noreply.a-seed.example" "Jane Doe|jane@host.test" \
		 "Jane Doe|jane" "Jane Doe|" "|jane@kernel.org"; do
		n=${x%%|*} e=${x#*|}
		git -C "$d/repo" config --unset-all user.name || true
		git -C "$d/repo" config --unset-all user.email || true
		[ -z "$n" ] || git -C "$d/repo" config user.name "$n"
		[ -z "$e" ] || git -C "$d/repo" config user.email "$e"
		# (--whoami: an identity wrongly accepted emits nothing either)
		if out=$("$s" --repo "$d/repo" --whoami "$d/series" 2>&1) || [ -e "$d/series" ]; then
			echo "'$n <$e>' accepted for a mailable series: $out"; exit 1
		fi
		grep -q '^error: refusing to emit a mailable series: ' <<<"$out" ||
			{ echo "'$n <$e>' refused without a clear message: $out"; exit 1; }
		"$s" --repo "$d/repo" --draft --whoami >/dev/null 2>&1 ||
			{ echo "'$n <$e>' refused with --draft"; exit 1; }
	done
	git -C "$d/repo" config --unset-all user.name
	git -C "$d/repo" config --unset-all user.email
	git config --global user.name "Jane Doe"
	git config --global user.email "jane.doe@kernel.org"
	got=$("$s" --repo "$d/repo" --whoami 2>&1) &&
		[ "$got" = "Jane Doe <jane.doe@kernel.org>" ] ||
		{ echo "the runner's global identity not taken: $got"; exit 1; }
	# as series.sh --topics runs itself per topic: after tree-lib.sh has
	# turned the global configuration off for its own git commands
	got=$(GIT_CONFIG_GLOBAL=$d/.gitconfig bash -c '. "$1/dev/lib.sh"; . "$1/dev/tree-lib.sh"; exec "$2" --repo "$3" --whoami' - "$RDMA_HA_ROOT" "$s" "$d/repo" 2>&1) &&
		[ "$got" = "Jane Doe <jane.doe@kernel.org>" ] ||
		{ echo "the runner's identity lost where series.sh runs itself (--topics): $got"; exit 1; }
	git -C "$d/repo" config user.email "jane@rdma.dev"
	got=$("$s" --repo "$d/repo" --whoami 2>&1) &&
		[ "$got" = "Jane Doe <jane@rdma.dev>" ] ||
		{ echo "the repository's identity not taken: $got"; exit 1; }
	got=$(printf '%s\n' "RDMA/x: Subject" "" "Body." "" \
		"Signed-off-by: rdma-ha developers <rdma-ha@example.invalid>" \
		"Signed-off-by: Jane Doe <jane@rdma.dev>" |
		bash -c '. "$1/dev/lib.sh"; . "$1/dev/tree-lib.sh"; rh_signoff "Jane Doe <jane@rdma.dev>"' - "$RDMA_HA_ROOT" |
		grep -i 'signed-off-by')
	[ "$got" = "Signed-off-by: Jane Doe <jane@rdma.dev>" ] ||
		{ echo "the placeholder's sign-off became: $got"; exit 1; }
	echo "identity: 7 refused (accepted with --draft), real ones taken from the repository and ~/.gitconfig, sign-off replaced"
)

# ---- kernels ------------------------------------------------------------

build_kernels() {
	local t kernels="patched stock"
	# only scenarios to run: only the kernels they run on (KUnit and the
	# static checks need both)
	if [ "$ONLY" = vm ]; then
		kernels=$(selected_kernels | grep -xE 'patched|stock|kasan')
	elif want kunit && kasan_lane; then
		kernels="$kernels kasan"	# run_kunit_kasan
	fi
	for t in $kernels; do
		if [ "$t" = kasan ]; then
			run_check build/patched-kasan "$RDMA_HA_ROOT/dev/build-kernel.sh" patched kasan
			continue
		fi
		run_check "build/$t-debug" "$RDMA_HA_ROOT/dev/build-kernel.sh" "$t" debug ||
			continue
		if [ "$t" = stock ]; then
			run_check build/stock-pristine stock_pristine
		fi
	done
}

# stock_pristine: the stock kernel holds nothing of the series.  A cold
# stock build starts from a copy of the patched one (dev/build-kernel.sh,
# seed_stock; dev/check-seed.sh proves the result byte for byte), so
# check on every build that its configuration has none of the series'
# options and that its link has none of the objects of the series' new
# files, nor any global symbol they define.
stock_pristine() {
	local b=$OUT/stock/build-debug p=$OUT/patched/build-debug
	local opt f o syms members bad=0
	[ -f "$b/vmlinux.a" ] && [ -f "$b/System.map" ] ||
		{ echo "no stock kernel in $b"; return 1; }
	for opt in $(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' \
			"$SELFTESTS/qemu/patched.config"); do
		if grep -q "^$opt=" "$b/.config"; then
			echo "stock .config sets $opt"; bad=1
		fi
	done
	# (ar prints a thin archive's members relative to the working directory)
	members=$(cd "$b" && ar t vmlinux.a)
	for f in $(overlay_files | grep -E '^drivers/.*\.c$'); do
		o=${f%.c}.o
		if grep -qx "$o" <<<"$members"; then
			echo "stock vmlinux.a links $o"; bad=1
		fi
		[ -f "$p/$o" ] || continue
		syms=$(nm -g --defined-only "$p/$o" | awk 'NR == FNR { s[$3]; next }
			$3 in s { print $3 }' - "$b/System.map")
		if [ -n "$syms" ]; then
			echo "stock System.map has symbols of $o:" $syms; bad=1
		fi
	done
	[ "$bad" = 0 ] && echo "stock kernel: no option, object or symbol of the series"
}

# ---- static checks ------------------------------------------------------

# Files the series changes (upstream files) and adds (new files).
changed_files() {
	local p
	for p in $(series_patches); do
		patch_targets "$RDMA_HA_ROOT/patches/$p"
	done | sort -u
}

static_checks() {
	local src=$OUT/patched/src f p objs=() built=()

	# The rdma-core patch against Debian's librdmacm-dev: it applies, a
	# program sets the mode by name, the man page renders.
	run_check rdma-core/patch "$RDMA_HA_ROOT/dev/check-rdma-core.sh"

	# The patches themselves: series/mailable, which runs wherever
	# these checks do, runs checkpatch --strict on every patch as it is
	# mailed (new files included, in tree mode): a run here on the
	# stored patches (upstream files only) found nothing that one does
	# not and cost about 85 CPU-s.  The new C files whole, in file mode:
	for f in $(overlay_files | grep -E '^(drivers|include)/.*\.[ch]$'); do
		run_check "checkpatch/$f" perl "$src/scripts/checkpatch.pl" \
			--strict --no-tree --quiet -f "$src/$f"
	done

	# kernel-doc: no new warnings on any C file the series adds or changes.
	for f in $( { changed_files; overlay_files; } | grep -E '\.[ch]$' |
		    grep -E '^(drivers|include)/' | sort -u); do
		run_check "kernel-doc/$f" kdoc_compare "$f"
	done

	# sparse and W=1 on the objects built from C files the project adds
	# or changes, and only those the test kernel's configuration builds.
	for f in $( { changed_files; overlay_files; } | grep -E '^drivers/.*\.c$' | sort -u); do
		objs+=("${f%.c}.o")
	done
	for o in "${objs[@]}"; do
		if [ -f "$OUT/patched/build-debug/$o" ]; then
			built+=("$o")
		else
			result "sparse/$o" SKIP "not built by this configuration"
			result "W=1/$o" SKIP "not built by this configuration"
		fi
	done
	[ ${#built[@]} -eq 0 ] && return
	warn_checks sparse "${built[@]}"
	warn_checks W=1 "${built[@]}"

	run_check build/rxe-roce-only rxe_roce_only
}

# rxe_roce_only: rxe in a kernel without CONFIG_RDMA_RXE_IB (the test
# kernel's configuration with soft InfiniBand off) compiles with W=1 and
# no warning, has no soft IB code, and keeps what is not soft IB's: the
# test knobs of every rxe device (debugfs rxe/DEVICE/: qp_fatal, rnr,
# lag).  Until session 43 the knobs' directory was made only with soft
# IB, and a RoCE-only kernel had none.  Its own objects and log under
# out/patched/build-roce-only.
rxe_roce_only() {
	local src=$OUT/patched/src b=$OUT/patched/build-roce-only sym syms
	local rxe=drivers/infiniband/sw/rxe
	mkdir -p "$b"
	cp "$OUT/patched/build-debug/.config" "$b/.config"
	"$src/scripts/config" --file "$b/.config" -d RDMA_RXE_IB \
		-d RDMA_RXE_IB_KUNIT_TEST
	ccache_env
	rr_make() {
		make -C "$src" O="$b" ARCH=x86_64 CC="ccache gcc" \
			HOSTCC="ccache gcc" -j"$(nproc)" "$@"
	}
	rr_make -s olddefconfig
	grep -qx 'CONFIG_RDMA_RXE=y' "$b/.config" &&
	grep -qx '# CONFIG_RDMA_RXE_IB is not set' "$b/.config" ||
		{ echo "the configuration is not RoCE-only rxe"; return 1; }
	rr_make W=1 "$rxe/" >"$b/make.log" 2>&1 ||
		{ tail -n 30 "$b/make.log"; return 1; }
	if grep -E 'warning:|error:' "$b/make.log"; then
		return 1
	fi
	syms=$(nm "$b/$rxe/built-in.a")
	for sym in rxe_debugfs_add rxe_debugfs_remove rxe_rnr_inject \
		   rxe_lag_debugfs_add; do
		printf '%s\n' "$syms" | grep -qE " T $sym\$" ||
			{ echo "FAIL: no $sym in a RoCE-only rxe"; return 1; }
	done
	if printf '%s\n' "$syms" |
	   grep -E ' T (rxe_ib_init|rxe_ib_send|rxe_ib_debugfs_add|rxe_sa_module_init)$'; then
		echo "FAIL: soft IB code in a RoCE-only rxe"
		return 1
	fi
	echo "RoCE-only rxe: built, W=1 clean, knobs present, no soft IB code"
}

kdoc_warnings() {
	perl "$OUT/$1/src/scripts/kernel-doc" -none -Wall "$OUT/$1/src/$2" 2>&1 |
		grep -i warn
}

# kdoc_compare FILE: kernel-doc warnings in the patched file must not
# outnumber those of the stock file.
kdoc_compare() {
	local f=$1 new old= n o
	new=$(kdoc_warnings patched "$f")
	[ ! -f "$OUT/stock/src/$f" ] || old=$(kdoc_warnings stock "$f")
	n=$(printf '%s' "$new" | grep -c .)
	o=$(printf '%s' "$old" | grep -c .)
	printf '%s\n' "$new"
	echo "kernel-doc warnings: patched $n, stock $o"
	[ "$n" -le "$o" ]
}

# tree_warnings TREE sparse|W=1 OBJ...: the warnings that compiling the
# OBJs (those whose source exists in TREE) in TREE's debug build prints,
# as "path: warning: ..." lines without line numbers, so that the stock
# and the patched tree compare.  One make run per tree.
tree_warnings() {
	local tree=$1 kind=$2 src=$OUT/$1/src o objs=() args=(W=1) out rc=0
	shift 2
	[ "$kind" = sparse ] && args=(C=2 CHECK=sparse)
	for o in "$@"; do
		[ ! -f "$src/${o%.o}.c" ] || objs+=("$o")
	done
	[ ${#objs[@]} -gt 0 ] || return 0
	ccache_env
	# HOSTCC as in build-kernel.sh: another one rebuilds objtool, and
	# every object depends on the objtool binary, so the next kernel
	# build would compile everything again.  The objects themselves are
	# compiled past ccache (CCACHE_DISABLE), so that the warnings are the
	# compiler's own on the source (see CCACHE_NOCPP2 in lib.sh).  The
	# whole output is kept ($LOGDIR/KIND-TREE.out): a make that failed
	# (a checker that crashed, say) prints fewer warnings, which must not
	# read as a tree with fewer warnings.
	# A make that fails is run once more, alone (-j1), before it counts:
	# the checker runs beside the guests and the series' builds, and a
	# checker killed for memory under that load says nothing of the
	# code.  The first attempt's output stays in the log.
	out=$LOGDIR/$kind-$tree.out
	CCACHE_DISABLE=1 make -C "$src" O="$OUT/$tree/build-debug" ARCH=x86_64 \
		CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" "${args[@]}" "${objs[@]}" \
		>"$out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		mv "$out" "$out.first"
		echo "$kind on the $tree tree: make failed (status $rc), once more alone; first attempt in $out.first" >&2
		rc=0
		CCACHE_DISABLE=1 make -C "$src" O="$OUT/$tree/build-debug" ARCH=x86_64 \
			CC="ccache gcc" HOSTCC="ccache gcc" -j1 "${args[@]}" "${objs[@]}" \
			>"$out" 2>&1 || rc=$?
	fi
	grep -E 'warning:|error:' "$out" |
		sed -E -e "s|$src/||g" -e "s|\.\./src/||g" \
			-e 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort
	return "$rc"
}

# warn_checks sparse|W=1 OBJ...: one result per object, failing on a
# warning in its source file that the stock tree does not print; a new
# warning in a header fails "KIND/headers".
warn_checks() {
	local kind=$1 log new old extra rest o f stock_objs
	shift
	log=$LOGDIR/$kind.log
	if ! new=$(tree_warnings patched "$kind" "$@"); then
		result "$kind/patched" FAIL "make failed, log: $LOGDIR/$kind-patched.out"
		tail -n 20 "$LOGDIR/$kind-patched.out" | sed 's/^/    | /'
		return
	fi
	# The stock tree only matters where the patched tree warns: a
	# warning in X.c comes from compiling X.o, one in a header from any
	# object.  So compile in the stock tree the objects whose source
	# warns, all of them if a header does, none if nothing warns.
	if printf '%s\n' "$new" | grep -v '^$' | grep -qvE '^[^:]+\.c:'; then
		stock_objs=("$@")
	else
		stock_objs=()
		for o in "$@"; do
			! printf '%s\n' "$new" | grep -qF "${o%.o}.c:" || stock_objs+=("$o")
		done
	fi
	old=
	if [ ${#stock_objs[@]} -gt 0 ] && ! old=$(tree_warnings stock "$kind" "${stock_objs[@]}"); then
		result "$kind/stock" FAIL "make failed, log: $LOGDIR/$kind-stock.out"
		tail -n 20 "$LOGDIR/$kind-stock.out" | sed 's/^/    | /'
		return
	fi
	extra=$(comm -23 <(echo "$new") <(echo "$old") | sed '/^$/d')
	printf 'patched:\n%s\nstock (%s):\n%s\n' "$new" "${stock_objs[*]:-nothing compiled}" "$old" >"$log"
	rest=$extra
	for o in "$@"; do
		f=${o%.o}.c
		if printf '%s\n' "$extra" | grep -qF "$f:"; then
			result "$kind/$o" FAIL "log: $log"
			printf '%s\n' "$extra" | grep -F "$f:" | sed 's/^/    | /'
		else
			result "$kind/$o" PASS
		fi
		rest=$(printf '%s\n' "$rest" | grep -vF "$f:")
	done
	if [ -n "$rest" ]; then
		result "$kind/headers" FAIL "log: $log"
		printf '%s\n' "$rest" | sed 's/^/    | /'
	fi
}

# warn_selftest: a warning only the patched tree prints fails its object;
# one both print does not; a make that failed in the stock tree (fewer
# warnings, because the checker crashed) is a failure of its own, never a
# "new" warning of the patched tree; one that failed once is run again.
warn_selftest() (
	local d got
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	OUT=$d LOGDIR=$d/log PASSED=0 FAILED=0 SKIPPED=0 FAILED_NAMES=()
	mkdir -p "$d/log" "$d/patched/src/drivers" "$d/stock/src/drivers"
	touch "$d/patched/src/drivers/x.c" "$d/stock/src/drivers/x.c"
	ccache_env() { :; }
	# make: the tree's warnings from $d/TREE.warn, its status from $d/TREE.rc
	# (TREE.rc: one status per call, the last one repeated)
	make() {
		local t=${2#"$d"/} rc
		t=${t%%/*}
		cat "$d/$t.warn"
		set -- $(cat "$d/$t.rc")
		rc=$1
		[ $# -lt 2 ] || { shift; echo "$*" >"$d/$t.rc"; }
		return "$rc"
	}
	echo "$d/patched/src/drivers/x.c:3:4: warning: new one" >"$d/patched.warn"
	echo 0 >"$d/patched.rc" && : >"$d/stock.warn" && echo 0 >"$d/stock.rc"
	got=$(warn_checks sparse drivers/x.o | grep '^TEST')
	[ "$got" = "TEST sparse/drivers/x.o: FAIL (log: $d/log/sparse.log)" ] ||
		{ echo "new warning: $got"; exit 1; }
	cp "$d/patched.warn" "$d/stock.warn"
	sed -i "s|/patched/|/stock/|" "$d/stock.warn"
	got=$(warn_checks sparse drivers/x.o | grep '^TEST')
	[ "$got" = "TEST sparse/drivers/x.o: PASS" ] || { echo "old warning: $got"; exit 1; }
	: >"$d/stock.warn" && echo 2 >"$d/stock.rc"
	got=$(warn_checks sparse drivers/x.o 2>/dev/null | grep '^TEST')
	[ "$got" = "TEST sparse/stock: FAIL (make failed, log: $d/log/sparse-stock.out)" ] ||
		{ echo "stock make failed: $got"; exit 1; }
	echo 0 >"$d/stock.rc" && echo 2 >"$d/patched.rc"
	got=$(warn_checks sparse drivers/x.o 2>/dev/null | grep '^TEST')
	[ "$got" = "TEST sparse/patched: FAIL (make failed, log: $d/log/sparse-patched.out)" ] ||
		{ echo "patched make failed: $got"; exit 1; }
	# a make that failed once (a checker killed under load) is run once
	# more; its second run decides
	echo 0 >"$d/patched.rc" && echo "2 0" >"$d/stock.rc"
	got=$(warn_checks sparse drivers/x.o 2>"$d/err" | grep '^TEST')
	[ "$got" = "TEST sparse/drivers/x.o: FAIL (log: $d/log/sparse.log)" ] ||
		{ echo "stock make failed once: $got"; exit 1; }
	grep -q 'make failed (status 2), once more alone' "$d/err" ||
		{ echo "the second attempt went unsaid"; exit 1; }
	echo "warnings: new ones fail their object, a make that fails twice fails as such"
)

# ---- replacement modules (DKMS) -----------------------------------------

# dkms_checks [all]: Debian's kernel packages, the DKMS source package and
# its build against Debian's headers, the module root of the "debian"
# guests; with "all", the checks that the replacements keep the
# distribution's ABI and refuse other kernel versions.
dkms_checks() {
	local d=$RDMA_HA_ROOT/dev/dkms.sh
	rm -rf "$OUT/dkms/modroot"
	run_check dkms/fetch "$d" fetch || return
	run_check dkms/source "$d" source || return
	[ "${1:-}" != all ] || run_check dkms/scope "$d" check-scope
	run_check dkms/build "$d" build || return
	if [ "${1:-}" = all ]; then
		run_check dkms/exports "$d" check-exports
		run_check dkms/shared "$d" check-shared
		run_check dkms/version "$d" check-version
	fi
	run_check dkms/modroot "$d" modroot
}

# ---- QEMU ---------------------------------------------------------------

build_initramfs() {
	run_check tools/build make -C "$RDMA_HA_ROOT/tools/rdma" O="$OUT/tools"
	run_check initramfs "$SELFTESTS/qemu/build-initramfs.sh" "$OUT/initramfs.cpio"
	run_check initramfs/nvme env NVME_TOOLS=1 \
		"$SELFTESTS/qemu/build-initramfs.sh" "$OUT/initramfs-nvme.cpio"
	run_check initramfs/pyverbs env PYVERBS=1 \
		"$SELFTESTS/qemu/build-initramfs.sh" "$OUT/initramfs-pyverbs.cpio"
}

# The "debian" guests: Debian's modules plus the replacements; with
# nvme-cli, fio and Debian's own brd, nvme-rdma and nvmet-rdma (over the
# replacement RDMA modules) for a selected scenario that asks for both
# (initrd=nvme, kernel=...debian...); with python3 and rdma-core's test
# suite for one that asks for initrd=pyverbs on Debian's kernel.
build_initramfs_debian() {
	local s i built=
	rm -f "$OUT/initramfs-debian.cpio" "$OUT/initramfs-debian-nvme.cpio" \
		"$OUT/initramfs-debian-pyverbs.cpio"
	[ -d "$OUT/dkms/modroot" ] || return 0
	run_check initramfs/debian env KMOD_ROOT="$OUT/dkms/modroot" \
		EXTRA_ROOT="$OUT/dkms/guest" \
		"$SELFTESTS/qemu/build-initramfs.sh" "$OUT/initramfs-debian.cpio"
	for s in "$SELFTESTS"/*.sh; do
		grep -q '^# rdma-ha:' "$s" || continue
		selected "$(basename "$s" .sh)" || continue
		i=$(scenario_meta "$s" initrd "")
		case "$i" in nvme|pyverbs) ;; *) continue ;; esac
		case " $built " in *" $i "*) continue ;; esac
		case ",$(check_kinds "$(basename "$s" .sh)" "$s" | paste -sd, -)," in
		*,debian,*) ;;
		*) continue ;;
		esac
		built="$built $i"
		case $i in
		nvme)
			run_check initramfs/debian-nvme env KMOD_ROOT="$OUT/dkms/modroot" \
				EXTRA_ROOT="$OUT/dkms/guest" NVME_TOOLS=1 \
				KMODS_EXTRA="brd nvme_rdma nvmet_rdma" \
				"$SELFTESTS/qemu/build-initramfs.sh" "$OUT/initramfs-debian-nvme.cpio" ;;
		pyverbs)
			run_check initramfs/debian-pyverbs env KMOD_ROOT="$OUT/dkms/modroot" \
				EXTRA_ROOT="$OUT/dkms/guest" PYVERBS=1 \
				"$SELFTESTS/qemu/build-initramfs.sh" "$OUT/initramfs-debian-pyverbs.cpio" ;;
		esac
	done
}

# kernel_image KIND / initrd KIND [NAME]: what a guest of kernel KIND
# boots (for scenario NAME: a header's initrd=nvme asks for the initramfs
# with nvme-cli and fio, which is seven times the size of the other and
# takes seconds longer to unpack at every boot; initrd=pyverbs for the one
# with python3 and rdma-core's test suite).
kernel_image() {
	case "$1" in
	debian) echo "$DEB_VMLINUZ" ;;
	kasan) echo "$OUT/patched/build-kasan/arch/x86/boot/bzImage" ;;
	*) echo "$OUT/$1/build-debug/arch/x86/boot/bzImage" ;;
	esac
}
initrd() {
	case "$1" in
	debian)	case "${2:+$(scenario_meta "$SELFTESTS/$2.sh" initrd "")}" in
		nvme) echo "$OUT/initramfs-debian-nvme.cpio" ;;
		pyverbs) echo "$OUT/initramfs-debian-pyverbs.cpio" ;;
		*) echo "$OUT/initramfs-debian.cpio" ;;
		esac ;;
	*)	case "${2:+$(scenario_meta "$SELFTESTS/$2.sh" initrd "")}" in
		nvme) echo "$OUT/initramfs-nvme.cpio" ;;
		pyverbs) echo "$OUT/initramfs-pyverbs.cpio" ;;
		*) echo "$OUT/initramfs.cpio" ;;
		esac ;;
	esac
}

# kasan_lane: the guest runs and the KUnit boot of the KASAN kernel are on.
# They are on KASAN=1 or K=kasan: the debug kernel
# cannot see an out-of-bounds access or a use after free unless it
# happens to corrupt a list or trip SLUB's poisoning.  A scenario that
# names both patched and kasan
# (kernel=patched,kasan) then runs on the KASAN kernel instead of the
# patched debug one, which KASAN extends (kasan.config over debug.config),
# so that the lane costs the build and KASAN's slowdown of those runs,
# not a second run of each.
kasan_lane() {
	[ "${RDMA_HA_KASAN:-$KASAN_DEFAULT}" = 1 ] || [ "$KERNEL_KIND" = kasan ]
}

# kasan_replaces KINDS: the scenario whose kernel= list is KINDS runs on
# the KASAN kernel instead of the patched one (see kasan_lane).
kasan_replaces() {
	[ -z "$KERNEL_KIND" ] && kasan_lane &&
		case ",$1," in *,kasan,*) true ;; *) false ;; esac
}

# selected_kernels: the kernel kinds the selected scenarios run on (both
# kinds of a mixed pair A+B).
# selected NAME: scenario NAME is one of --scenario's (without it: every
# scenario that is not opt-in).
selected() {
	if [ -z "$SCENARIO" ]; then
		[ -z "$(opt_in "$1")" ]
	else
		case ",$SCENARIO," in *",$1,"*) ;; *) false ;; esac
	fi
}

# opt_in NAME: scenario NAME runs only when named (make vmtest T=NAME,
# --scenario NAME), never in a full check ("# rdma-ha-opt-in: REASON",
# e.g. a run too long for the check's budget); prints REASON.  The full
# check lists the opt-in scenarios it leaves out, with their reasons.
opt_in() {
	sed -n 's/^# rdma-ha-opt-in: *//p' "$SELFTESTS/$1.sh" 2>/dev/null | head -n1
}

# opt_in_on NAME KIND: scenario NAME runs on kernel kind KIND only when
# named ("# rdma-ha-opt-in-on: KIND: REASON"): a run a full check leaves
# out because another kind's run of the same scenario covers its code
# (the check's budget); prints REASON.
opt_in_on() {
	sed -n "s/^# rdma-ha-opt-in-on: *$2: *//p" "$SELFTESTS/$1.sh" 2>/dev/null |
		head -n1
}

# check_kinds NAME SCRIPT: the kernel kinds of NAME's runs in this check,
# one per line (a full check leaves out the kinds NAME opts in on).
check_kinds() {
	local k
	for k in $(scenario_meta "$2" kernel patched | tr ',' ' '); do
		[ -n "$SCENARIO" ] || [ -z "$(opt_in_on "$1" "$k")" ] || continue
		echo "$k"
	done
}

selected_kernels() {
	local s name
	for s in "$SELFTESTS"/*.sh; do
		grep -q '^# rdma-ha:' "$s" || continue
		name=$(basename "$s" .sh)
		selected "$name" || continue
		check_kinds "$name" "$s" |
			grep -x "${KERNEL_KIND:-.*}" | tr '+' '\n'
	done | sort -u | { if kasan_lane; then cat; else grep -vx kasan; fi; }
}

# may_skip NAME: scenario NAME declares why it may skip in a check
# ("# rdma-ha-may-skip: REASON"); prints REASON.  Without that line a
# scenario that skips fails the check: a missing tool, module or kernel
# option is a defect of the test machine, not a pass.
may_skip() {
	local why
	why=$(sed -n 's/^# rdma-ha-may-skip: *//p' "$SELFTESTS/$1.sh" | head -n1)
	[ -n "$why" ] && echo "$why"
}

# skip_reason OUTDIR: the guests' own words for a skip.
skip_reason() {
	cat "$1"/*.console 2>/dev/null | tr -d '\r' | grep -ao 'SKIP: .*' |
		head -n1 | cut -c1-160
}

# scenario_meta SCRIPT KEY DEFAULT: read "# rdma-ha: key=value ..." headers
# (vm.sh reads guests= and timeout= itself; kernel= is the check's).
scenario_meta() {
	local v
	v=$(sed -n 's/^# rdma-ha:\(.*\)/\1/p' "$1" | tr ' ' '\n' |
		sed -n "s/^$2=//p" | head -n1)
	echo "${v:-$3}"
}

# vm_record PREFIX LOG: turn the runner's "TEST x: VERDICT" lines into
# results; sets VM_RECORDED to their number.
VM_RECORDED=0
vm_record() {
	local prefix=$1 log=$2 line name verdict
	VM_RECORDED=0
	while IFS= read -r line; do
		name=${line#TEST }; name=${name%%: *}
		verdict=${line##*: }; verdict=${verdict%% *}
		result "$prefix$name" "$verdict"
		VM_RECORDED=$((VM_RECORDED + 1))
	done < <(grep -E '^TEST [^ ]+: (PASS|FAIL|SKIP)' "$log")
}

# digest vm/NAME LOG OUTDIR: keep why scenario NAME failed (the runner's
# reasons, the guests' failed assertions) for the end of the output,
# which is what a CI log shows.
DIGEST=()
digest() {
	DIGEST+=("$1:" "$(grep -a "^# ${1#vm/}: " "$2" | head -n 8)")
	DIGEST+=("$(cat "$3"/*.console 2>/dev/null | tr -d '\r' |
		grep -aE 'assert=FAILED|FAIL: |not ok |^\[ *[0-9.]+\] (BUG|WARNING):' |
		head -n 12 | cut -c1-240)")
}

# ---- verdict cache ------------------------------------------------------
#
# A guest run whose inputs are byte for byte those of an earlier passing
# run is not repeated: the kernel images and initramfs images it boots
# (the initramfs carries the scenarios, the programs and the libraries
# and is built reproducibly), the test machine and the kselftests (every
# file under vm/ and tools/testing/selftests/rdma/), QEMU's version and
# the run's name.  The
# verdict is reported as "PASS (cached ...)" with the earlier run's log.
# Only passes are kept.  RDMA_HA_FRESH=1 (make check FRESH=1) runs
# everything; CI, on a fresh clone, has nothing cached.
VERDICTS=$OUT/verdicts
CACHED=0
GUEST_CPU=0 GUEST_RUNS=0

# run_cpu LOG: the host CPU seconds a guest run took, from vm.sh's last
# "TEST NAME: VERDICT (WALLs, N CPU-s)" line in LOG (empty if none);
# adds them to GUEST_CPU.
RUN_CPU=
run_cpu() {
	RUN_CPU=$(sed -n 's/^TEST [^ ]*: [A-Z]* ([0-9]*s, \([0-9]*\) CPU-s)$/\1/p' "$1" | tail -n1)
	[ -z "$RUN_CPU" ] || { GUEST_CPU=$((GUEST_CPU + RUN_CPU)); GUEST_RUNS=$((GUEST_RUNS + 1)); }
}

# verdict_key NAME FILE...: the cache key of run NAME booting FILEs.
verdict_key() {
	local name=$1
	shift
	{
		echo "rdma-ha verdict v1 $name"
		qemu-system-x86_64 --version | head -n1
		sha1sum "$@" | cut -d' ' -f1
		(cd "$RDMA_HA_ROOT" && find vm tools/testing/selftests/rdma \
			-type f ! -name '*.pyc' -print0 2>/dev/null |
		 LC_ALL=C sort -z | xargs -0 sha1sum)
	} | sha1sum | cut -d' ' -f1
}

# verdict_cached KEY LOG: KEY passed before; its log is copied to LOG.
verdict_cached() {
	[ -z "${RDMA_HA_FRESH:-}" ] && [ -f "$VERDICTS/$1.pass" ] &&
		cp "$VERDICTS/$1.log" "$2" 2>/dev/null
}

# verdict_note KEY: "cached: passed in N s on DATE".
verdict_note() {
	echo "cached: passed in $(cut -d' ' -f1 "$VERDICTS/$1.pass") s on $(cut -d' ' -f2- "$VERDICTS/$1.pass"), identical inputs"
}

# verdict_store KEY LOG SECONDS | verdict_drop KEY
verdict_store() {
	mkdir -p "$VERDICTS"
	cp "$2" "$VERDICTS/$1.log"
	echo "$3 $(date -u '+%Y-%m-%d %H:%M UTC')" >"$VERDICTS/$1.pass"
}
verdict_drop() { rm -f "$VERDICTS/$1.pass" "$VERDICTS/$1.log"; }

# verdict_selftest: the cache reuses a pass only for the same name and
# byte-identical images, forgets a failure, and FRESH=1 bypasses it.
verdict_selftest() (
	local d k1 k2 k3 k4
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	VERDICTS=$d/verdicts
	# the check's own FRESH=1 would make every reuse below a miss
	unset RDMA_HA_FRESH
	echo kernel >"$d/k" && echo initrd >"$d/i" && echo log >"$d/log"
	k1=$(verdict_key vm/x@patched "$d/k" "$d/i")
	k2=$(verdict_key vm/x@stock "$d/k" "$d/i")
	echo kernel2 >"$d/k"
	k3=$(verdict_key vm/x@patched "$d/k" "$d/i")
	echo kernel >"$d/k"
	k4=$(verdict_key vm/x@patched "$d/k" "$d/i")
	[ "$k1" != "$k2" ] || { echo "other name, same key"; exit 1; }
	[ "$k1" != "$k3" ] || { echo "other kernel image, same key"; exit 1; }
	[ "$k1" = "$k4" ] || { echo "same inputs, other key"; exit 1; }
	! verdict_cached "$k1" "$d/out" || { echo "empty cache hit"; exit 1; }
	verdict_store "$k1" "$d/log" 42
	verdict_cached "$k1" "$d/out" && cmp -s "$d/log" "$d/out" ||
		{ echo "a stored pass is not reused with its log"; exit 1; }
	! RDMA_HA_FRESH=1 verdict_cached "$k1" "$d/out" ||
		{ echo "FRESH=1 reused a pass"; exit 1; }
	verdict_drop "$k1"
	! verdict_cached "$k1" "$d/out" || { echo "a dropped pass is reused"; exit 1; }
	echo "verdict cache: keys and reuse as documented"
)

# kunit_suites: the KUnit suites the project adds: the name of every
# struct kunit_suite in its *_kunit.c files.
kunit_suites() {
	find "$RDMA_HA_ROOT/drivers" -name '*_kunit.c' -print0 | sort -z |
		xargs -0 awk '
			/struct kunit_suite [a-z0-9_]+ = / { on = 1 }
			on && /\.name *= *"/ {
				match($0, /"[^"]*"/)
				print substr($0, RSTART + 1, RLENGTH - 2)
				on = 0
			}'
}

# kunit_suites_ran LOG: every suite of kunit_suites ran at least one case
# in the KUnit boot whose results are LOG, and none of its cases skipped
# (a suite left out of the kernel's configuration, or one that skips
# because what it tests is missing, proves nothing).
kunit_suites_ran() {
	local suite n bad=0 all p=${2:-kunit}
	all=$(kunit_suites)
	[ -n "$all" ] || { echo "no KUnit suite found in the sources"; return 1; }
	for suite in $all; do
		n=$(grep -c "^TEST $p:$suite\.[^ ]*: PASS" "$1")
		if [ "$n" -eq 0 ]; then
			echo "suite $suite: no case passed (not built in, or not run)"
			bad=1
		elif grep -q "^TEST $p:$suite\.[^ ]*: SKIP" "$1"; then
			echo "suite $suite: cases skipped:"
			grep "^TEST $p:$suite\.[^ ]*: SKIP" "$1"
			bad=1
		else
			echo "suite $suite: $n cases passed"
		fi
	done
	return $bad
}

# run_kunit [KIND]: the KUnit boot of the patched kernel, or of KIND
# (kasan), whose results are named kunit@KIND:SUITE.CASE.
run_kunit() {
	local kind=${1:-patched} at= log rc=0 key t0
	[ "$kind" = patched ] || at=@$kind
	log=$LOGDIR/kunit$at.log
	[ -n "$at" ] ||
		run_check kunit/ktap-parser python3 "$SELFTESTS/qemu/ktap.py" --self-test
	if [ ! -f "$(kernel_image "$kind")" ]; then
		result "kunit$at/run" FAIL "no $kind kernel (see its build check)"
		return
	fi
	key=$(verdict_key "kunit$at" "$(kernel_image "$kind")" "$(initrd "$kind")")
	if verdict_cached "$key" "$log"; then
		CACHED=$((CACHED + 1))
		echo "kunit$at: $(verdict_note "$key")"
	else
		t0=$(date +%s)
		# KASAN's slowdown under TCG and a loaded host: a longer limit
		"$SELFTESTS/qemu/vm.sh" kunit --kernel "$(kernel_image "$kind")" \
			--initrd "$(initrd "$kind")" ${at:+--timeout 600} \
			--outdir "$LOGDIR/kunit$at" >"$log.raw" 2>&1 || rc=$?
		sed "s/^TEST kunit:/TEST kunit$at:/" "$log.raw" >"$log"
		rm -f "$log.raw"
		run_cpu "$log"
		if [ "$rc" -eq 0 ] && ! grep -qE '^TEST [^ ]+: FAIL' "$log"; then
			verdict_store "$key" "$log" "$(( $(date +%s) - t0 ))"
		else
			verdict_drop "$key"
		fi
	fi
	vm_record "" "$log"
	run_check "kunit$at/suites" kunit_suites_ran "$log" "kunit$at"
	if { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; } || [ "$VM_RECORDED" -eq 0 ]; then
		result "kunit$at/run" FAIL "rc=$rc, $VM_RECORDED cases; log: $log"
		tail -n 60 "$log" | sed 's/^/    | /'
	fi
}

# run_kunit_kasan: the KUnit boot of the KASAN kernel, when its lane is
# on, once the background has built it (a full check) or at once.
run_kunit_kasan() {
	kasan_lane || return 0
	while [ -n "$BG_PID" ] && [ ! -e "$BG_READY.kasan" ] &&
	      kill -0 "$BG_PID" 2>/dev/null; do
		sleep 2
	done
	run_kunit kasan
}

# vm_run NAME KIND_A KIND_B OUTDIR LOG: one run of scenario NAME.
vm_run() {
	"$SELFTESTS/qemu/vm.sh" run --kernel "$(kernel_image "$2")" \
		--initrd "$(initrd "$2" "$1")" --kernel-b "$(kernel_image "$3")" \
		--initrd-b "$(initrd "$3" "$1")" --test "$1" --outdir "$4" >"$5" 2>&1
}

# debian_boot_panic OUTDIR KIND_A KIND_B: a guest booting Debian's own
# kernel died before it started init.  Debian's kernel patches its code
# at run time (jump labels; ours are built without), and under TCG a
# vCPU now and then executes a stale int3 while another patches: "Oops:
# int3" in sched_clock_cpu() right after "sched_clock: Marking stable".
# Nothing of the project has run then (the replacement modules load from
# init), so such a run is booted once more instead of failing.  The same
# for a warning before init: "WARNING: ... exc_debug_kernel" (a #DB in
# kthreadd's kmalloc, with reserved EFLAGS bits set: bfb42f22), seen in a
# LANES=3 check with two kernel builds beside it.  Prints what happened.
debian_boot_panic() {
	local g line
	for g in "a:$2" "b:$3"; do
		[ "${g#*:}" = debian ] || continue
		line=$(before_init_panic "$1/${g%%:*}.console") || continue
		echo "guest ${g%%:*} (Debian's kernel) died before init: ${line#*] }"
		return 0
	done
	return 1
}

# before_init_panic CONSOLE: the first Oops, panic or warning line, if it came
# before "Run /init".
before_init_panic() {
	[ -f "$1" ] && tr -d '\r' <"$1" | awk '
		/Run \/init as init process/ { exit 1 }
		/\] (Oops: |Kernel panic - |WARNING: )/ { print; found = 1; exit 0 }
		END { if (!found) exit 1 }'
}

# boot_panic_selftest: before_init_panic tells a boot that died before
# init from one that died later, and from a clean one.
boot_panic_selftest() (
	local d
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	printf '%s\n' "[    3.692669] sched_clock: Marking stable" \
		"[    3.704514] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" \
		"[    3.713139] Kernel panic - not syncing: Fatal exception" >"$d/early"
	printf '%s\n' "[    3.616900] Run /init as init process" \
		"[   30.221829] Oops: general protection fault" >"$d/late"
	printf '%s\n' "[    3.616900] Run /init as init process" "RDMA-HA-DONE" >"$d/clean"
	printf '%s\n' "[    8.508545] WARNING: CPU: 0 PID: 2 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160" \
		"[   11.702213] Run /init as init process" >"$d/warn"
	printf '%s\n' "[   11.702213] Run /init as init process" \
		"[   30.221829] WARNING: CPU: 0 PID: 9 at drivers/infiniband/core/cma.c:1 x" >"$d/warn-late"
	[ "$(before_init_panic "$d/early")" = "[    3.704514] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ] ||
		{ echo "an Oops before init not found"; exit 1; }
	! before_init_panic "$d/late" >/dev/null ||
		{ echo "an Oops after init taken for a boot failure"; exit 1; }
	! before_init_panic "$d/clean" >/dev/null ||
		{ echo "a clean boot taken for a boot failure"; exit 1; }
	[ "$(before_init_panic "$d/warn")" = "[    8.508545] WARNING: CPU: 0 PID: 2 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160" ] ||
		{ echo "a warning before init not found"; exit 1; }
	! before_init_panic "$d/warn-late" >/dev/null ||
		{ echo "a warning after init taken for a boot failure"; exit 1; }
	! before_init_panic "$d/none" >/dev/null ||
		{ echo "a missing console taken for a boot failure"; exit 1; }
	echo "boot panics before init: found only there"
)

# load_slack_selftest: vm.sh's deadline moves on by the time a guest
# waited for a CPU: nothing on a host with no more runnable tasks than
# CPUs, half of the interval at twice as many, and never more than it.
load_slack_selftest() (
	local vm=$RDMA_HA_ROOT/vm/qemu/vm.sh got args want
	for args in "5000 0.5 2:0" "5000 2 2:0" "5000 4 2:2500" \
		    "5000 11 2:4090" "5000 1000 2:4990" "5000 8 0:0"; do
		want=${args#*:}
		# shellcheck disable=SC2086
		got=$("$vm" --load-slack-ms ${args%:*})
		[ "$got" = "$want" ] ||
			{ echo "load_slack_ms ${args%:*}: $got, expected $want"; exit 1; }
	done
	echo "deadline slack for host load: 0 up to NPROC, DT x (1 - NPROC / LOAD) above"
)

# kind_group KIND: when a full check can boot KIND (see the main part):
# 1 with the patched kernel alone, 2 with Debian's kernel and the DKMS
# modules too, 3 with the stock kernel, 4 with the patched KASAN kernel.
kind_group() {
	case "+$1+" in
	*+kasan+*) echo 4 ;;
	*+stock+*) echo 3 ;;
	*+debian+*) echo 2 ;;
	*) echo 1 ;;
	esac
}

# ---- lanes --------------------------------------------------------------
#
# Guest runs go LANES at a time (RDMA_HA_LANES, make check LANES=N;
# default 2).  A run alone leaves part of the two cores idle (its guests
# wait for timers, links, peers); two at once keep them busy, but each
# run then takes longer and more host CPU (a cold check spent 87
# core-minutes either way), so the gain is the idle time only.  A lane
# is the vCPUs of a usual run, two guests of one vCPU: the runs at once
# boot at most 2 x LANES vCPUs between them, and a run of more (smp=2:
# four vCPUs) waits for room, or runs alone where it needs more than all
# of it.  Counting runs instead put three two-vCPU KASAN pairs, twelve
# vCPUs, on two cores in a LANES=3 check, whose timing-sensitive
# keepalive phases then failed (session 25).  Each run
# keeps its own ports, monitor sockets and output directory (qemu/vm.sh).
# Results are printed as runs end, with the host CPU each took; the
# check ends with their sum.  In a full check a run of group 2 or 3 (see
# kind_group) starts only when the background has made what it boots.
LANES=${RDMA_HA_LANES:-2}
case "$LANES" in
''|*[!0-9]*|0*) die "RDMA_HA_LANES (make check LANES=) must be a number from 1, not '$LANES'" ;;
esac
VM_RUNNER=vm_run
declare -A LANE=()	# pid -> "NAME KIND T0 KEY RETRIED VCPUS"
BG_PID=

# run_vcpus NAME: the vCPUs a run of scenario NAME boots, guests=N times
# smp=N of its header (1 and 1 without, as qemu/vm.sh reads them).
run_vcpus() {
	local s=$SELFTESTS/$1.sh
	echo $(( $(scenario_meta "$s" guests 1) * $(scenario_meta "$s" smp 1) ))
}

# lanes_vcpus: the vCPUs of the runs in the lanes now.
lanes_vcpus() {
	local pid v n=0
	for pid in "${!LANE[@]}"; do
		v=${LANE[$pid]##* }
		n=$((n + v))
	done
	echo "$n"
}

# lane_room VCPUS: a run of VCPUS may start now: nothing runs, or it fits
# beside what runs in 2 x LANES vCPUs.
lane_room() {
	[ ${#LANE[@]} -eq 0 ] || [ $(( $(lanes_vcpus) + $1 )) -le $((2 * LANES)) ]
}

# run_ready KIND: a guest run of KIND can start now.
run_ready() {
	[ -n "$BG_PID" ] || return 0
	case $(kind_group "$1") in
	2) [ -e "$BG_READY.debian" ] || ! kill -0 "$BG_PID" 2>/dev/null ;;
	3) [ -e "$BG_READY.stock" ] || ! kill -0 "$BG_PID" 2>/dev/null ;;
	4) [ -e "$BG_READY.kasan" ] || ! kill -0 "$BG_PID" 2>/dev/null ;;
	*) true ;;
	esac
}

# lane_start NAME KIND KEY [RETRIED]: start guest run NAME@KIND (verdict
# cache key KEY; RETRIED=1 for a second boot) in a lane.
# Its exit status goes to OUTDIR.rc, which is how lane_reap sees it end.
lane_start() {
	local name=$1 k=$2 out=$LOGDIR/vm-$1-$2
	rm -f "$out.rc"
	# The run goes in the background of the lane's subshell, which
	# waits for it: a signal to the subshell itself (pkill -f check.sh
	# reaches every check.sh process, not only this one) then runs
	# lane_end at once, instead of killing the subshell and leaving its
	# guests to run until their timeout.
	( trap lane_end INT TERM HUP
	  "$VM_RUNNER" "$name" "${k%+*}" "${k#*+}" "$out" "$LOGDIR/vm-$name-$k.log" &
	  wait $!
	  echo $? >"$out.rc.tmp" && mv "$out.rc.tmp" "$out.rc" ) &
	LANE[$!]="$name $k $(date +%s) $3 ${4:-0} $(run_vcpus "$name")"
}

# guarded CMD...: CMD in the background of a subshell that waits for it,
# so that a signal to the subshell itself (pkill -f check.sh) ends CMD's
# whole process tree with it (lane_end), as a lane's does, instead of
# killing only the subshell while the builds under it run on.  The
# background work and the DKMS builds beside the patched kernel go
# through it.  Call it with &: the trap is the background subshell's.
guarded() {
	trap lane_end INT TERM HUP
	"$@" &
	wait $!
}

# lane_end: a lane's subshell was signalled: end its run's process tree,
# then the subshell.
lane_end() {
	local c me=$BASHPID
	trap - INT TERM HUP
	# (me: inside $(...) BASHPID is the substitution's own subshell)
	for c in $(ps -o pid= --ppid "$me" 2>/dev/null); do
		kill_tree "$c"
	done
	exit 143
}

# lane_reap: wait until a run ends and record it.
lane_reap() {
	local pid name k t0 key retried rc took log out why
	while :; do
		for pid in "${!LANE[@]}"; do
			read -r name k t0 key retried _ <<<"${LANE[$pid]}"
			out=$LOGDIR/vm-$name-$k
			[ -f "$out.rc" ] || continue
			wait "$pid"
			unset "LANE[$pid]"
			rc=$(cat "$out.rc")
			log=$LOGDIR/vm-$name-$k.log
			if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$retried" = 0 ] &&
			   why=$(debian_boot_panic "$out" "${k%+*}" "${k#*+}"); then
				echo "vm/$name@$k: $why; booting again"
				mv "$log" "$log.first-boot"
				rm -rf "$out.first-boot"
				mv "$out" "$out.first-boot"
				lane_start "$name" "$k" "$key" 1
				return 0
			fi
			took=$(( $(date +%s) - t0 ))
			if [ "$rc" -eq 0 ]; then
				verdict_store "$key" "$log" "$took"
			else
				verdict_drop "$key"
			fi
			run_cpu "$log"
			took="$took s${RUN_CPU:+, $RUN_CPU CPU-s}"
			case $rc in
			0) result "vm/$name@$k" PASS "$took" ;;
			4) if why=$(may_skip "$name"); then
				result "vm/$name@$k" SKIP "$took; may skip: $why"
			   else
				result "vm/$name@$k" FAIL "$took, skipped ($(skip_reason "$LOGDIR/vm-$name-$k")), and the scenario does not declare that it may (# rdma-ha-may-skip: REASON); log: $log"
			   fi ;;
			*) result "vm/$name@$k" FAIL "$took, rc=$rc, log: $log"
			   tail -n 80 "$log" | sed 's/^/    | /'
			   digest "vm/$name" "$log" "$out" ;;
			esac
			return 0
		done
		sleep 1
	done
}

# lanes_run RUN...: the guest runs "NAME KIND", in this order, in the
# lanes (lane_room).
lanes_run() {
	local i=1 name k ka kb key
	while [ "$i" -le $# ] || [ ${#LANE[@]} -gt 0 ]; do
		if [ "$i" -le $# ] && lane_room "$(run_vcpus "${!i%% *}")" &&
		   run_ready "${!i#* }"; then
			read -r name k <<<"${!i}"
			i=$((i + 1))
			ka=${k%+*} kb=${k#*+}
			if [ ! -f "$(kernel_image "$ka")" ] || [ ! -f "$(initrd "$ka" "$name")" ] ||
			   [ ! -f "$(kernel_image "$kb")" ] || [ ! -f "$(initrd "$kb" "$name")" ]; then
				result "vm/$name@$k" FAIL "no kernel or initramfs for $k (see the build, dkms and initramfs checks)"
				continue
			fi
			key=$(verdict_key "vm/$name@$k" \
				"$(kernel_image "$ka")" "$(initrd "$ka" "$name")" \
				"$(kernel_image "$kb")" "$(initrd "$kb" "$name")")
			if verdict_cached "$key" "$LOGDIR/vm-$name-$k.log"; then
				CACHED=$((CACHED + 1))
				result "vm/$name@$k" PASS "$(verdict_note "$key")"
				continue
			fi
			lane_start "$name" "$k" "$key"
		elif [ ${#LANE[@]} -gt 0 ]; then
			lane_reap
		else
			sleep 2	# the next run waits for the background
		fi
	done
}

# lanes_selftest: no more than LANES runs at once, and that many when
# there is work; a run of four vCPUs alone with LANES=2; each result
# recorded once; a run of the stock kernel starts only after the
# background has built it.
lanes_selftest() (
	local d runs=() i max
	d=$(mktemp -d)
	trap 'rm -rf "$d"; kill $(jobs -p) 2>/dev/null' EXIT
	LOGDIR=$d VERDICTS=$d/verdicts BG_READY=$d/.ready LANES=2
	PASSED=0 FAILED=0 SKIPPED=0 FAILED_NAMES=() DIGEST=()
	echo image >"$d/img"
	kernel_image() { echo "$d/img"; }
	initrd() { echo "$d/img"; }
	# two guests of one vCPU each, but "big": two of two
	run_vcpus() { if [ "$1" = big ]; then echo 4; else echo 2; fi; }
	# the fake guest run: counts who runs beside it, passes but for "bad"
	fake_run() {
		mkdir -p "$d/running" "$4"
		echo "$(date +%s.%N) start $1" >>"$d/order"
		touch "$d/running/$1"
		ls "$d/running" >"$d/beside-$1"
		sleep 1.5
		ls "$d/running" | wc -l >>"$d/width"
		rm -f "$d/running/$1"
		echo "TEST $1: done" >"$5"
		[ "$1" != bad ]
	}
	VM_RUNNER=fake_run
	sleep 300 &
	BG_PID=$!
	for i in r1 r2 bad big r4; do runs+=("$i patched"); done
	runs+=("r5 stock")
	( sleep 9; echo "$(date +%s.%N) ready" >>"$d/order"; touch "$BG_READY.stock" ) &
	lanes_run "${runs[@]}" >"$d/out" 2>&1
	max=$(sort -n "$d/width" | tail -n 1)
	[ "$max" = 2 ] || { echo "$max runs at once with LANES=2"; exit 1; }
	[ "$(cat "$d/beside-big")" = big ] ||
		{ echo "the four-vCPU run started beside: $(cat "$d/beside-big")"; exit 1; }
	! grep -qx big "$d"/beside-r* "$d/beside-bad" ||
		{ echo "a run started beside the four-vCPU one"; exit 1; }
	[ "$PASSED $FAILED" = "5 1" ] ||
		{ echo "counted $PASSED passed, $FAILED failed"; cat "$d/out"; exit 1; }
	[ "${FAILED_NAMES[*]}" = vm/bad@patched ] ||
		{ echo "failed: ${FAILED_NAMES[*]}"; exit 1; }
	[ "$(grep -c 'TEST vm/' "$d/out")" = 6 ] ||
		{ echo "not one result per run:"; cat "$d/out"; exit 1; }
	# (the stock run after the mark; the patched runs may start on either
	# side of it: on a loaded host the last of them has started after 9 s)
	sort -n "$d/order" | awk '/ ready$/ { r = $1 } / start r5$/ { s = $1 }
		END { exit !(r != "" && s != "" && s >= r) }' ||
		{ echo "the stock run started before the stock kernel was ready:"; sort -n "$d/order"; exit 1; }
	echo "lanes: at most $LANES runs at once, a four-vCPU run alone, one result each, stock after ready"
)

# A scenario's kernel= header lists kernel kinds, or mixed pairs A+B of
# two-guest scenarios: guest a boots kind A, guest b kind B (vm/NAME@A+B).
run_scenarios() {
	local s name kernels k why runs=()
	for s in "$SELFTESTS"/*.sh; do
		grep -q '^# rdma-ha:' "$s" || continue
		name=$(basename "$s" .sh)
		selected "$name" || continue
		kernels=$(check_kinds "$name" "$s" | paste -sd' ' -)
		for k in $kernels; do
			[ -z "$KERNEL_KIND" ] || [ "$KERNEL_KIND" = "$k" ] || continue
			[ "$k" != kasan ] || kasan_lane || continue
			[ "$k" != patched ] || ! kasan_replaces "${kernels// /,}" || continue
			runs+=("$(kind_group "$k") $name $k")
		done
	done
	[ -z "$SCENARIO" ] || [ ${#runs[@]} -gt 0 ] ||
		result "vm/$SCENARIO${KERNEL_KIND:+@$KERNEL_KIND}" FAIL "the selection runs nothing"
	if [ -z "$SCENARIO" ]; then
		for s in "$SELFTESTS"/*.sh; do
			grep -q '^# rdma-ha:' "$s" || continue
			name=$(basename "$s" .sh)
			why=$(opt_in "$name")
			if [ -n "$why" ]; then
				echo "note: vm/$name is opt-in, not in this check (make vmtest T=$name): $why" >&2
				continue
			fi
			for k in $(scenario_meta "$s" kernel patched | tr ',' ' '); do
				why=$(opt_in_on "$name" "$k")
				[ -z "$why" ] ||
					echo "note: vm/$name@$k is opt-in, not in this check (make vmtest T=$name K=$k): $why" >&2
			done
		done
	fi
	[ ${#runs[@]} -gt 0 ] || return 0
	# by what they boot (a full check has Debian's kernel, then the
	# stock kernel, later), in file order within a group
	mapfile -t runs < <(printf '%s\n' "${runs[@]}" | sort -s -n -k1,1 | cut -d' ' -f2-)
	lanes_run "${runs[@]}"
}

# ---- the work that overlaps the guest runs ------------------------------
#
# A full check (no --only, no --scenario) is bound by two cores.  Once the
# patched kernel is built, KUnit and the guest runs go in the foreground
# (in lanes, above) and the rest beside them: first what the guests of
# Debian's and of the stock kernel boot (the DKMS modules and Debian's
# initramfs, then the stock kernel), at the guests' own priority, so that
# those runs can start while the lanes are busy; then what no guest needs,
# the static checks, the round trip and the series checks, beside
# each other under SCHED_IDLE, which gets a CPU only when no guest wants one.  The
# background's results are counted when it has ended, in its order.
BG_READY=$LOGDIR/.ready

# The DKMS modules are built against Debian's kernel headers from the
# patched source alone, so in a full check they build beside the patched
# kernel, whose serial steps (make's walks, the links, objtool) leave
# about a third of the two cores idle, instead of beside the guests.
# Their results go to DKMS_OUT and count with the background's.
DKMS_OUT=$LOGDIR/.dkms.out
DKMS_PID=

# dkms_early: dkms_checks all, its output in DKMS_OUT; DKMS_OUT.done once
# it has ended.
dkms_early() {
	dkms_checks all >"$DKMS_OUT" 2>&1
	touch "$DKMS_OUT.done"
}

# background_work: what runs beside the guests.
background_work() {
	local rt=$LOGDIR/.roundtrip.out
	if [ -n "$DKMS_PID" ]; then
		# started beside the patched kernel (dkms_early): not a child
		# of this subshell, so wait for its mark
		while [ ! -e "$DKMS_OUT.done" ] && kill -0 "$DKMS_PID" 2>/dev/null; do
			sleep 1
		done
		cat "$DKMS_OUT"
		[ -e "$DKMS_OUT.done" ] ||
			echo "TEST dkms/build: FAIL (the DKMS work ended early, log: $DKMS_OUT)"
	else
		dkms_checks all
	fi
	build_initramfs_debian
	touch "$BG_READY.debian"
	run_check build/stock-debug "$RDMA_HA_ROOT/dev/build-kernel.sh" stock debug &&
		run_check build/stock-pristine stock_pristine
	touch "$BG_READY.stock"
	if kasan_lane; then
		run_check build/patched-kasan "$RDMA_HA_ROOT/dev/build-kernel.sh" patched kasan
	fi
	touch "$BG_READY.kasan"
	chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 ||
		renice -n 19 -p "$BASHPID" >/dev/null
	# The round trip and the series checks both need the base recorded
	# in out/base.git: record it once, then run them side by side, so
	# that the per-step builds of series/bisect (the longest of them)
	# take the CPU the guests leave from the start, not after the round
	# trip.  A failure to record it shows in both checks.
	bash -c '. "$1/dev/lib.sh"; . "$1/dev/tree-lib.sh"; rh_ensure_base_git' \
		- "$RDMA_HA_ROOT" >/dev/null 2>"$rt" || true
	if [ -x "$RDMA_HA_ROOT/dev/check-roundtrip.sh" ]; then
		run_check series/roundtrip "$RDMA_HA_ROOT/dev/check-roundtrip.sh" >>"$rt" 2>&1 &
	fi
	series_checks bisect >"$LOGDIR/.series.out" 2>&1 &
	static_checks
	wait
	cat "$rt" "$LOGDIR/.series.out"
}

# record_background OUT: count the results background_work printed.
# A failure's own lines (the "    | " lines after it) go to the digest
# at the end of the output, which is what a CI log shows.
record_background() {
	local line name verdict detail= n=0
	cat "$1"
	while IFS= read -r line; do
		if [ -n "$detail" ]; then
			case "$line" in
			"    | "*)
				[ "$n" -ge 12 ] || DIGEST+=("  ${line#    | }")
				n=$((n + 1))
				continue ;;
			esac
			detail=
		fi
		[[ "$line" =~ ^TEST\ [^\ ]+:\ [A-Z]+ ]] || continue
		name=${line#TEST }; name=${name%%: *}
		verdict=${line#TEST "$name": }; verdict=${verdict%% *}
		case "$verdict" in
		PASS) PASSED=$((PASSED + 1)) ;;
		SKIP) SKIPPED=$((SKIPPED + 1)) ;;
		*) FAILED=$((FAILED + 1)); FAILED_NAMES+=("$name")
		   DIGEST+=("$line"); detail=1 n=0 ;;
		esac
	done <"$1"
}

# record_selftest: background results are counted like foreground ones,
# a failure among them fails the check.
record_selftest() (
	local d
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	PASSED=0 FAILED=0 SKIPPED=0 FAILED_NAMES=() DIGEST=()
	printf '%s\n' "TEST dkms/build: PASS" "TEST build/stock-debug: FAIL (log: x)" \
		"    | TEST not/a-result: PASS" "TEST sparse/a.o: SKIP (not built)" \
		"TEST W=1/a.o: PASS" >"$d/out"
	record_background "$d/out" >/dev/null
	[ "$PASSED $FAILED $SKIPPED" = "2 1 1" ] ||
		{ echo "counted $PASSED passed, $FAILED failed, $SKIPPED skipped"; exit 1; }
	[ "${FAILED_NAMES[*]}" = build/stock-debug ] ||
		{ echo "failed names: ${FAILED_NAMES[*]}"; exit 1; }
	[ "${DIGEST[*]}" = "TEST build/stock-debug: FAIL (log: x)   TEST not/a-result: PASS" ] ||
		{ echo "digest: ${DIGEST[*]}"; exit 1; }
	echo "background results: counted as printed, a failure's lines kept for the end"
)

# ---- an interrupted check ----------------------------------------------
#
# The background work (kernel and DKMS builds, static checks) and the
# guest runs in the lanes are children of this shell: an interrupted
# check stops them all, instead of leaving builds and QEMUs running.

# kill_tree PID: stop PID, then its descendants, then end them all.
kill_tree() {
	local c
	kill -STOP "$1" 2>/dev/null || return 0
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null
	kill -CONT "$1" 2>/dev/null
}

# on_interrupt: end the background and the lanes, then the check.
on_interrupt() {
	local pid
	trap - INT TERM HUP
	echo "check.sh: interrupted: ending the background work and the guest runs" >&2
	[ -z "$BG_PID" ] || kill_tree "$BG_PID"
	[ -z "$DKMS_PID" ] || kill_tree "$DKMS_PID"
	for pid in "${!LANE[@]}"; do
		kill_tree "$pid"
	done
	exit 130
}

# interrupt_selftest: on_interrupt leaves none of the background's or
# the lanes' processes, however deep, running.
interrupt_selftest() (
	local pids p st alive=
	# (its own background only: not the real DKMS work beside it)
	DKMS_PID=
	# a build's shape: a shell, make, the compilers under it
	( ( sleep 300 & sleep 300 & wait ) & sleep 300 & wait ) &
	BG_PID=$!
	( sleep 300 & wait ) &
	declare -A LANE=([$!]="x patched 0 k 0")
	sleep 0.5
	pids=$(ps -o pid= --ppid "$BG_PID"; ps -o pid= --ppid "${!LANE[*]}")
	for p in $pids; do
		pids="$pids $(ps -o pid= --ppid "$p")"
	done
	pids="$BG_PID ${!LANE[*]} $pids"
	( on_interrupt ) 2>/dev/null
	[ $? = 130 ] || { echo "on_interrupt did not end the check with 130"; exit 1; }
	sleep 0.5
	for p in $pids; do
		# reaped, or a zombie of this shell waiting to be, or gone
		# between the two looks (seen under load: "9654()")
		st=$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)
		if kill -0 "$p" 2>/dev/null && [ -n "$st" ] && [ "$st" != Z ]; then
			alive="$alive $p($(ps -o comm= -p "$p"))"
		fi
	done
	wait
	[ -z "$alive" ] || { echo "still running after the interrupt:$alive"; exit 1; }
	echo "interrupt: $(echo $pids | wc -w) processes of the background and a lane ended"

	# A signal to a lane's subshell alone (pkill -f check.sh): its run
	# (here a shell with a sleep under it, as vm.sh with its QEMUs)
	# ends with it, orphaned to nobody.
	local d lane
	d=$(mktemp -d)
	LOGDIR=$d
	run_vcpus() { echo 2; }
	fake_guest() { sh -c 'echo $$ >"$1"; sleep 300; :' - "$d/guest.pid"; }
	VM_RUNNER=fake_guest
	declare -A LANE=()
	lane_start x patched k
	lane=${!LANE[*]}
	signal_ends "$lane" "$d/guest.pid" "a lane's run" || exit 1
	echo "interrupt: a signalled lane ended its run"

	# The same for the background work: a signal to its subshell alone
	# ends the builds under it.
	d=$(mktemp -d)
	fake_background() { ( ( sleep 300 & echo $! >"$d/bg.pid"; wait ) & wait ); }
	guarded fake_background &
	signal_ends $! "$d/bg.pid" "a build" || exit 1
	echo "interrupt: a signalled background subshell ended its builds"
)

# signal_ends SUBSHELL PIDFILE WHAT: once PIDFILE names a process under
# SUBSHELL, a TERM to SUBSHELL alone ends that process too; removes
# PIDFILE's directory.  Says why not (WHAT: the process, in words).
signal_ends() {
	local p st i dir=${2%/*}
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -s "$2" ] && break
		sleep 0.2
	done
	p=$(cat "$2" 2>/dev/null)
	[ -n "$p" ] || { rm -rf "$dir"; echo "$3 never started"; return 1; }
	kill -TERM "$1"
	wait "$1" 2>/dev/null
	sleep 0.5
	st=$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)
	rm -rf "$dir"
	if kill -0 "$p" 2>/dev/null && [ -n "$st" ] && [ "$st" != Z ]; then
		kill "$p"
		echo "$3 outlived its signalled subshell: $p($(ps -o comm= -p "$p" 2>/dev/null))"
		return 1
	fi
}

# check_selftests: the check's own machinery (all guest runs go through
# it).
check_selftests() {
	run_check check/verdict-cache verdict_selftest
	run_check check/background-record record_selftest
	run_check check/warnings warn_selftest
	run_check check/boot-panic boot_panic_selftest
	run_check check/lanes lanes_selftest
	run_check check/load-slack load_slack_selftest
	run_check check/interrupt interrupt_selftest
	run_check check/kasan-lane kasan_selftest
	run_check check/opt-in opt_in_selftest
	run_check check/cc-steps cc_steps_selftest
	run_check check/shell-errors shell_err_selftest
	run_check check/lock lock_selftest
}

# kasan_selftest: which kernels run_scenarios boots a scenario on, with
# the KASAN lane on (a full check), off (KASAN=0) and asked (--kernel).
kasan_selftest() (
	local d got
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	SELFTESTS=$d SCENARIO= KERNEL_KIND=
	printf '# rdma-ha: kernel=%s\n' patched,kasan >"$d/a.sh"
	printf '# rdma-ha: kernel=%s\n' patched,debian,kasan >"$d/b.sh"
	printf '# rdma-ha: kernel=%s\n' patched,stock >"$d/c.sh"
	lanes_run() { echo "$*"; }
	got=$(KASAN_DEFAULT=1 RDMA_HA_KASAN= run_scenarios)
	[ "$got" = "c patched b debian c stock a kasan b kasan" ] ||
		{ echo "full check: $got"; exit 1; }
	got=$(KASAN_DEFAULT=1 RDMA_HA_KASAN=0 run_scenarios)
	[ "$got" = "a patched b patched c patched b debian c stock" ] ||
		{ echo "KASAN=0: $got"; exit 1; }
	got=$(KASAN_DEFAULT=0 RDMA_HA_KASAN= run_scenarios)
	[ "$got" = "a patched b patched c patched b debian c stock" ] ||
		{ echo "partial check: $got"; exit 1; }
	got=$(KASAN_DEFAULT=0 RDMA_HA_KASAN= KERNEL_KIND=kasan run_scenarios)
	[ "$got" = "a kasan b kasan" ] || { echo "--kernel kasan: $got"; exit 1; }
	got=$(KASAN_DEFAULT=0 RDMA_HA_KASAN=1 KERNEL_KIND=patched run_scenarios)
	[ "$got" = "a patched b patched c patched" ] ||
		{ echo "--kernel patched KASAN=1: $got"; exit 1; }
	echo "KASAN lane: replaces patched in a full check, not with KASAN=0, not in a partial check, on request"
)

# cc_steps_selftest: series/bisect's compiler (dev/cc-steps.sh) in syntax
# mode fails a step on what a real compile fails (an error), writes the
# dependency list Kbuild reads and an object the step's tools accept, and
# compiles for real what lies outside its directories.
cc_steps_selftest() (
	local d cc=$RDMA_HA_ROOT/dev/cc-steps.sh
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	cd "$d" || exit 1
	mkdir -p drivers/x other
	printf '#include "h.h"\nint f(void) { return X; }\n' >drivers/x/good.c
	printf 'int g(void) { return undeclared; }\n' >drivers/x/bad.c
	printf '#define X 1\n' >drivers/x/h.h
	cp drivers/x/good.c other/good.c
	cp drivers/x/h.h other/h.h
	export RDMA_HA_STEPS_CC=syntax RDMA_HA_STEPS_DIRS="drivers/x/" CCACHE_DISABLE=1
	if "$cc" -Wp,-MMD,drivers/x/.bad.o.d -c -o drivers/x/bad.o drivers/x/bad.c 2>"$d/err"; then
		echo "syntax mode passed a C error"; exit 1
	fi
	grep -q undeclared "$d/err" || { echo "no diagnostic: $(cat "$d/err")"; exit 1; }
	[ ! -e drivers/x/bad.o ] || { echo "an object for a failed check"; exit 1; }
	"$cc" -Wp,-MMD,drivers/x/.good.o.d -c -o drivers/x/good.o drivers/x/good.c ||
		{ echo "syntax mode failed a good file"; exit 1; }
	grep -q 'h\.h' drivers/x/.good.o.d || { echo "no dependency list"; exit 1; }
	[ -z "$(nm drivers/x/good.o)" ] || { echo "syntax mode compiled for real"; exit 1; }
	"$cc" -c -o other/good.o other/good.c || { echo "outside: failed"; exit 1; }
	nm other/good.o | grep -q ' T f$' || { echo "outside: not compiled for real"; exit 1; }
	RDMA_HA_STEPS_CC=real "$cc" -c -o drivers/x/real.o drivers/x/good.c ||
		{ echo "real mode failed"; exit 1; }
	nm drivers/x/real.o | grep -q ' T f$' || { echo "real mode: no code"; exit 1; }
	echo "cc-steps: errors fail a checked step; deps written; empty object; real elsewhere"
)

# opt_in_selftest: an opt-in scenario is left out of a full check (and
# said so), and runs when named.
opt_in_selftest() (
	local d got
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	SELFTESTS=$d SCENARIO= KERNEL_KIND= KASAN_DEFAULT=0 RDMA_HA_KASAN=0
	printf '# rdma-ha: kernel=patched\n' >"$d/a.sh"
	printf '# rdma-ha: kernel=patched,stock\n# rdma-ha-opt-in: too long\n' >"$d/b.sh"
	lanes_run() { echo "$*"; }
	got=$(run_scenarios 2>"$d/err")
	[ "$got" = "a patched" ] || { echo "full check: $got"; exit 1; }
	grep -q 'vm/b is opt-in.*: too long' "$d/err" ||
		{ echo "full check: no word of vm/b"; exit 1; }
	got=$(SCENARIO=b run_scenarios 2>/dev/null)
	[ "$got" = "b patched b stock" ] || { echo "--scenario b: $got"; exit 1; }
	got=$(SCENARIO=b selected_kernels | paste -sd, -)
	[ "$got" = "patched,stock" ] || { echo "--scenario b kernels: $got"; exit 1; }
	got=$(selected_kernels | paste -sd, -)
	[ "$got" = "patched" ] || { echo "full check kernels: $got"; exit 1; }
	# opt-in on one kind: the other kinds run; that one when named
	printf '# rdma-ha: kernel=patched,debian\n# rdma-ha-opt-in-on: debian: covered\n' >"$d/c.sh"
	got=$(run_scenarios 2>"$d/err")
	[ "$got" = "a patched c patched" ] || { echo "full check, c: $got"; exit 1; }
	grep -q 'vm/c@debian is opt-in.*K=debian.*: covered' "$d/err" ||
		{ echo "full check: no word of vm/c@debian"; exit 1; }
	got=$(selected_kernels | paste -sd, -)
	[ "$got" = "patched" ] || { echo "full check kernels, c: $got"; exit 1; }
	got=$(SCENARIO=c run_scenarios 2>/dev/null)
	[ "$got" = "c patched c debian" ] || { echo "--scenario c: $got"; exit 1; }
	got=$(SCENARIO=c KERNEL_KIND=debian run_scenarios 2>/dev/null)
	[ "$got" = "c debian" ] || { echo "--scenario c --kernel debian: $got"; exit 1; }
	echo "opt-in: left out of a full check, with its reason; run when named; per kernel kind too"
)

# shell_err_selftest: vm.sh's SHELL_ERR_RE finds the shells' errors in a
# console, and not what scenarios print.
shell_err_selftest() (
	local re l
	re=$(sed -n "s/^SHELL_ERR_RE='\(.*\)'$/\1/p" "$SELFTESTS/qemu/vm.sh")
	[ -n "$re" ] || { echo "no SHELL_ERR_RE in vm.sh"; exit 1; }
	for l in "sh: bad number" "sh: syntax error: unexpected \"fi\"" \
		"sh: arithmetic syntax error" "/init.sh: line 3: x: unbound variable" \
		"./lib.sh: line 12: [: : integer expression expected"; do
		echo "$l" | grep -qE "$re" || { echo "not found: $l"; exit 1; }
	done
	for l in "12.3 a: ok: cm_tx_failed = 0 (-eq 0)" "SKIP: no netem" \
		"a: FAIL: bad number of probes" "RDMA-HA-RESULT: x a PASS rc=0"; do
		! echo "$l" | grep -qE "$re" || { echo "taken for a shell error: $l"; exit 1; }
	done
	echo "shell errors: found on a console, scenario output left alone"
)

# take_lock FD: the check's lock on FD (open on out/.check.lock), or say
# that another check holds it.
take_lock() {
	flock -n "$1" && return 0
	echo "check.sh: another check is running in $OUT (it holds $OUT/.check.lock); wait for it, or stop it" >&2
	return 1
}

# lock_selftest: a second check is refused while the first holds the lock,
# and gets it once the first has ended.
lock_selftest() (
	local d
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	( exec 8>>"$d/lock"; take_lock 8 && sleep 3 ) &
	sleep 0.5
	( exec 8>>"$d/lock"; take_lock 8 ) 2>"$d/err" &&
		{ echo "a second check got the lock"; exit 1; }
	grep -q 'another check is running' "$d/err" || { echo "refused without a word"; exit 1; }
	wait
	( exec 8>>"$d/lock"; take_lock 8 ) ||
		{ echo "the lock stayed taken after the first check ended"; exit 1; }
	echo "lock: a second check is refused while the first runs"
)

# ---- main ---------------------------------------------------------------

# check_selection: every --scenario name is a scenario; before anything
# is built, so that a typo fails at once.
check_selection() {
	local name bad=0
	for name in ${SCENARIO//,/ }; do
		grep -qs '^# rdma-ha:' "$SELFTESTS/$name.sh" && continue
		result "vm/$name" FAIL "no such scenario (vm/$name.sh with a '# rdma-ha:' header)"
		bad=1
	done
	[ "$bad" = 0 ] && return
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	exit 1
}

start=$(date +%s)
trap on_interrupt INT TERM HUP
check_selection
setup
[ -z "$SETUP_ONLY" ] || exit 0
# One check at a time in one out/: each starts by removing out/check,
# and two would share the guests' ports, builds and logs.  The lock is
# held by this shell and everything it starts, until the last of them
# has ended.
mkdir -p "$OUT"
exec 9>>"$OUT/.check.lock"
take_lock 9 || exit 1
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
if [ -z "$ONLY" ] && [ -z "$KERNEL_KIND" ]; then
	run_check series/apply "$RDMA_HA_ROOT/dev/prepare-src.sh" patched &&
		{ guarded dkms_early & DKMS_PID=$!; }
	run_check build/patched-debug "$RDMA_HA_ROOT/dev/build-kernel.sh" patched debug
	build_initramfs
	check_selftests
	echo "(DKMS, the stock kernel, static checks, the round trip and the series checks run beside the guests; their results follow the guests')"
	guarded background_work >"$LOGDIR/background.out" 2>&1 &
	bg=$!
	BG_PID=$bg
	run_kunit
	run_scenarios
	run_kunit_kasan
	wait "$bg"
	record_background "$LOGDIR/background.out"
else
	check_series
	# --only series: the round trip and the series' checks, bisect included
	[ "$ONLY" != series ] || series_checks bisect
	if want static || want kunit || want vm; then
		build_kernels
	fi
	want static && static_checks
	want static && series_checks bisect
	if want dkms; then
		dkms_checks all
	elif want vm && selected_kernels | grep -qx debian; then
		dkms_checks
	fi
	if want kunit || want vm; then
		build_initramfs
	fi
	if want vm && selected_kernels | grep -qx debian; then
		build_initramfs_debian
	fi
	if want kunit || want vm; then
		check_selftests
	fi
	want kunit && run_kunit
	want vm && run_scenarios
	want kunit && run_kunit_kasan
fi

echo
echo "check took $(( $(date +%s) - start )) s; logs in $LOGDIR"
[ "$GUEST_RUNS" -eq 0 ] ||
	echo "$GUEST_RUNS guest runs took $GUEST_CPU s of host CPU (user and system)"
[ "$CACHED" -eq 0 ] ||
	echo "$CACHED guest runs reused from earlier passes with identical inputs (FRESH=1 repeats them)"
if [ ${#DIGEST[@]} -gt 0 ]; then
	echo "---- why the checks failed ----"
	printf '%s\n' "${DIGEST[@]}" | sed '/^$/d; s/^/  /'
fi
[ ${#FAILED_NAMES[@]} -eq 0 ] || echo "failed: ${FAILED_NAMES[*]}"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
