#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms.sh - the replacement-module (DKMS) flavour of the series: the
# modules the series changes, built from the base plus the series against
# the headers of Debian's kernel of the same version, never a full kernel.
#
#   dkms.sh fetch       apt-get download Debian's linux-image, linux-headers
#                       (+ -common, linux-kbuild) of $DEB_KREL and unpack them
#                       under out/debian/root (nothing is installed)
#   dkms.sh source      out/dkms/src/rdma-ha-VERSION: the DKMS source package
#                       (dkms.conf, Makefile, Kbuild files, patched sources),
#                       from out/patched/src
#   dkms.sh build [KDIR [DIR [MODULES]]]
#                       build it against KDIR (default: the unpacked Debian
#                       headers) in DIR (default out/dkms/build)
#   dkms.sh modroot     out/dkms/modroot: Debian's /lib/modules plus the
#                       replacements in updates/dkms, depmod'ed, for the
#                       test machine's initramfs; out/dkms/guest: extra files
#                       for the guest (expected versions, a mismatched module,
#                       the distribution's own copies of the replaced modules)
#   dkms.sh all         fetch, source, build, modroot (make dkms)
#   dkms.sh dkms-tool   build the package with Debian's dkms (private trees)
#
#   dkms.sh check-scope     every file the series changes belongs to a
#                           replaced module (or is docs/build glue/headers)
#   dkms.sh check-exports   the replacements export every symbol the
#                           distribution's modules do, with the same CRC
#   dkms.sh check-shared    objects of the distribution's modules that include
#                           a private header the series changes compile to the
#                           same code from the stock and the patched header
#   dkms.sh check-version   headers of another version are refused, naming
#                           both versions; a module built for another release
#                           is stamped for the guest's refusal test
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DKMS_CFG=$RDMA_HA_ROOT/dkms
DKMS_OUT=$OUT/dkms
SRC=$OUT/patched/src
MISMATCH_KREL=$BASE_KERNEL+deb12-rdmaha-mismatch

# ---- fetch --------------------------------------------------------------

fetch() {
	local stamp=$OUT/debian/.stamp want p f
	local pkgs="linux-image-$DEB_KREL linux-headers-$DEB_KREL
		    linux-headers-$DEB_ABINAME-common linux-kbuild-$DEB_ABINAME"
	want="$DEB_KREL $DEB_PKGVERSION"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	need_pkgs gcc-12 make bc flex bison libelf-dev libssl-dev kmod xz-utils \
		zstd dwarves
	rm -rf "$DEB_ROOT"
	mkdir -p "$OUT/debian/debs"
	for p in $pkgs; do
		f=$(echo "$OUT/debian/debs/${p}_${DEB_PKGVERSION/:/%3a}_"*.deb)
		[ ! -f "$f" ] || continue
		log "downloading $p=$DEB_PKGVERSION"
		(cd "$OUT/debian/debs" && apt-get download -q "$p=$DEB_PKGVERSION" >&2) ||
		{ apt-get update -q >&2 &&
		  (cd "$OUT/debian/debs" && apt-get download -q "$p=$DEB_PKGVERSION" >&2); } ||
		die "apt-get download $p=$DEB_PKGVERSION failed"
	done
	for p in $pkgs; do
		dpkg-deb -x "$OUT/debian/debs/${p}_${DEB_PKGVERSION/:/%3a}_"*.deb "$DEB_ROOT"
	done
	# The headers' Makefile includes the -common package by absolute path.
	sed -i "s|^include /usr/src/|include $DEB_ROOT/usr/src/|" "$DEB_HEADERS/Makefile"
	[ -f "$DEB_VMLINUZ" ] || die "no $DEB_VMLINUZ in the linux-image package"
	[ -f "$DEB_HEADERS/Module.symvers" ] || die "no Module.symvers in $DEB_HEADERS"
	echo "$want" >"$stamp"
}

# ---- what the series changes --------------------------------------------

# changed_files: upstream files the series changes and the new files its
# patches add (relative paths).
changed_files() {
	local p
	for p in $(series_patches); do
		patch_targets "$RDMA_HA_ROOT/patches/$p"
	done
	sed -e 's/#.*//' "$RDMA_HA_ROOT/patches/new-files" |
		awk 'NF == 2 && $2 != "-" && !seen[$1]++ { print $1 }'
}

# makefile_joined FILE: FILE with continuation lines joined.
makefile_joined() { sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba}' "$1"; }

# module_objs DIR MODULE: the objects a directory's Makefile lists for a
# composite module (every MODULE-y / MODULE-$(CONFIG_...) line).
module_objs() {
	makefile_joined "$SRC/$1/Makefile" |
		sed -n "s/^$2-[^[:space:]:+]*[[:space:]]*[:+]\\{0,1\\}=//p" |
		tr ' \t' '\n\n' | grep '\.o$' | sort -u
}

# modules_table: "module dir" lines of dkms/modules.
modules_table() { sed -e 's/#.*//' "$DKMS_CFG/modules" | awk 'NF == 2'; }

# selected_modules: "module dir" of the modules the series changes.
selected_modules() {
	local changed m d o hit
	changed=$(changed_files | sort -u)
	modules_table | while read -r m d; do
		hit=
		for o in $(module_objs "$d" "$m"); do
			if grep -qxF "$d/${o%.o}.c" <<<"$changed"; then
				hit=1
				break
			fi
		done
		grep -q "^$d/[^/]*\.h$" <<<"$changed" && hit=1
		[ -z "$hit" ] || echo "$m $d"
	done
}

# new_options: "CONFIG_X=y|n" for every Kconfig option the series adds.
new_options() {
	local p
	for p in $(series_patches); do
		awk '/^\+config / { o = $2; next }
		     o && /^\+[[:space:]]+(bool|tristate)/ {
			sub(/^\+[[:space:]]+/, ""); print o, $1; o = "" }' \
			"$RDMA_HA_ROOT/patches/$p"
	done | while read -r o type; do
		v=$(sed -n "s/^CONFIG_$o=//p" "$DKMS_CFG/config" | tail -n1)
		if [ -z "$v" ]; then
			case "$o:$type" in
			*KUNIT*) v=n ;;
			*:bool) v=y ;;
			*) v=n ;;
			esac
		fi
		echo "CONFIG_$o=$v"
	done
}

# ---- source -------------------------------------------------------------

package_version() {
	local h
	h=$( (cd "$RDMA_HA_ROOT" && cat patches/series &&
	      for p in $(series_patches); do cat "patches/$p"; done &&
	      for f in $(changed_files | sort -u); do
		[ ! -f "$f" ] || cat "$f"
	      done && cat dkms/*) | sha1sum | cut -c1-10)
	echo "$BASE_KERNEL+rdmaha.$h"
}

subst() {
	sed -e "s|@VERSION@|$VERSION|g" -e "s|@KERNEL@|$BASE_KERNEL|g" \
	    -e "s|@KERNEL_RE@|${BASE_KERNEL//./\\\\.}|g" \
	    -e "s|@BASE@|$BASE_PKG $BASE_VERSION|g" \
	    -e "s|@MODULES@|$MODULE_NAMES|g" "$@"
}

# genksyms_hide PKG: the enumeration constants dkms/genksyms lists, hidden
# from genksyms in PKG's copy of their header: the constant, the last of
# its enumeration, moves under #ifndef __GENKSYMS__ with the comma before
# it, so that genksyms reads the enumeration as Debian's header has it.
genksyms_hide() {
	local pkg=$1 h c
	while read -r h c _; do
		[ -n "$h" ] || continue
		[ -f "$pkg/$h" ] || die "dkms/genksyms: $h is not in the package"
		C=$c perl -0pi -e '
			my $c = $ENV{C};
			s/,([ \t]*\n)[ \t]*\Q$c\E[ \t]*\n\};/$1#ifndef __GENKSYMS__\n\t, $c\n#endif\n};/
				or die "dkms/genksyms: $c is not the last constant of an enumeration\n";
		' "$pkg/$h" || die "dkms/genksyms: $h: $c not hidden"
	done < <(grep -v '^#' "$DKMS_CFG/genksyms")
}

source_pkg() {
	local sel dirs d m f o i pkg init objs conf
	"$RDMA_HA_ROOT/dev/prepare-src.sh" patched
	sel=$(selected_modules)
	[ -n "$sel" ] || die "the series changes none of the modules in dkms/modules"
	VERSION=$(package_version)
	MODULE_NAMES=$(awk '{ printf "%s%s", sep, $1; sep = " " }' <<<"$sel")
	pkg=$DKMS_OUT/src/rdma-ha-$VERSION
	rm -rf "$DKMS_OUT/src"
	mkdir -p "$pkg"
	log "DKMS source package rdma-ha $VERSION: $MODULE_NAMES"

	# Module directories: their C files and headers, and a Kbuild file made
	# from the patched Makefile (its obj- lines replaced by ours).
	dirs=$(awk '{ print $2 }' <<<"$sel" | sort -u)
	for d in $dirs; do
		mkdir -p "$pkg/$d"
		find "$SRC/$d" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) \
			! -name '*_kunit.c' -exec cp -t "$pkg/$d" {} +
		{
			echo "# SPDX-License-Identifier: GPL-2.0"
			echo "# Generated by dev/dkms.sh from $d/Makefile of base + series."
			echo 'include $(KBUILD_EXTMOD)/rdma-ha.mk'
			# The Makefile without its obj- lines and the composite
			# objects of other modules; flags and our modules' stay.
			makefile_joined "$SRC/$d/Makefile" |
				awk -v mods=" $(awk -v d="$d" '$2 == d { printf "%s ", $1 }' <<<"$sel")" '
				/^obj-|^# SPDX/ { next }
				match($0, /^[a-z0-9_]+-(y|m|objs|\$\(CONFIG_[A-Z0-9_]+\))[ \t]*[:+]?=/) {
					n = $0; sub(/-.*/, "", n)
					if (n !~ /flags$/ && index(mods, " " n " ") == 0)
						next
				}
				{ print }' | cat -s
			for m in $(awk -v d="$d" '$2 == d { print $1 }' <<<"$sel"); do
				echo "obj-\$(call rdma_ha_want,$m) += $m.o"
				# The file that calls module_init() gets the guard.
				init=
				for o in $(module_objs "$d" "$m"); do
					f=$SRC/$d/${o%.o}.c
					if grep -qE '^[[:space:]]*(module_init|late_initcall)\(' "$f"; then
						init="$init $o"
					fi
				done
				[ "$(wc -w <<<"$init")" = 1 ] ||
					die "$m: expected one file with module_init(), found:${init:- none}"
				echo "CFLAGS_${init# } += \$(rdma_ha_guard)"
				echo "$m-y += rdma_ha_guard_$m.o"
				subst "$DKMS_CFG/rdma-ha-guard.c.in" \
					>"$pkg/$d/rdma_ha_guard_$m.c"
			done
		} >"$pkg/$d/Kbuild"
	done

	# Headers outside the module directories that the series changes.
	for f in $(changed_files | sort -u | grep '^include/.*\.h$' || true); do
		mkdir -p "$pkg/$(dirname "$f")"
		cp "$SRC/$f" "$pkg/$f"
	done
	genksyms_hide "$pkg"

	conf=$(new_options | awk -F= '$2 == "y" {
		printf "%s := y\nccflags-y += -D%s=1\n", $1, $1 }')
	subst "$DKMS_CFG/rdma-ha.mk.in" |
		awk -v conf="$conf" '$0 == "@CONFIG@" { print conf; next } { print }' \
		>"$pkg/rdma-ha.mk"
	subst "$DKMS_CFG/rdma-ha-guard.h.in" >"$pkg/rdma-ha-guard.h"
	cp "$DKMS_CFG/Makefile" "$pkg/Makefile"
	{
		echo "# SPDX-License-Identifier: GPL-2.0-only"
		echo "# Generated by dev/dkms.sh."
		echo 'include $(KBUILD_EXTMOD)/rdma-ha.mk'
		for d in $dirs; do
			echo "obj-m += $d/"
		done
	} >"$pkg/Kbuild"
	i=0
	subst "$DKMS_CFG/dkms.conf.in" |
	while IFS= read -r f; do
		if [ "$f" != "@MODULES_BLOCK@" ]; then
			printf '%s\n' "$f"
			continue
		fi
		while read -r m d; do
			echo "BUILT_MODULE_NAME[$i]=\"$m\""
			echo "BUILT_MODULE_LOCATION[$i]=\"$d/\""
			echo "DEST_MODULE_LOCATION[$i]=\"/updates/dkms\""
			i=$((i + 1))
		done <<<"$sel"
	done >"$pkg/dkms.conf"
	echo "$VERSION" >"$DKMS_OUT/src/version"
	echo "$sel" >"$DKMS_OUT/src/modules"
}

pkg_dir() {
	[ -f "$DKMS_OUT/src/version" ] || die "no DKMS source package: run dev/dkms.sh source"
	echo "$DKMS_OUT/src/rdma-ha-$(cat "$DKMS_OUT/src/version")"
}

# ---- build --------------------------------------------------------------

# build [KDIR [DIR [MODULES]]]: copy the package to DIR (as DKMS does) and
# build it against KDIR.
build() {
	local kdir=${1:-$DEB_HEADERS} dir=${2:-$DKMS_OUT/build} mods=${3:-} pkg
	pkg=$(pkg_dir)
	[ -f "$kdir/Makefile" ] || die "no kernel headers in $kdir"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -a "$pkg" "$dir"
	ccache_env
	# Debian's headers build with gcc-12, through ccache when asked to.
	export DEBIAN_KERNEL_USE_CCACHE=1
	log "building rdma-ha $(cat "$DKMS_OUT/src/version") against $kdir"
	# A subset takes the others' exports from the full build.
	nice -n 5 make -C "$dir" KDIR="$kdir" -j"$(nproc)" \
		${mods:+RDMA_HA_MODULES="$mods"} \
		${mods:+KBUILD_EXTRA_SYMBOLS="$DKMS_OUT/build/Module.symvers"} modules
}

# ---- the test machine ---------------------------------------------------

# mismatch_module: rdma_ucm built against headers that claim another
# release of the same version (they build; the module must refuse to load).
mismatch_module() {
	local kdir
	kdir=$(fake_headers "$MISMATCH_KREL")
	build "$kdir" "$DKMS_OUT/mismatch" rdma_ucm >"$DKMS_OUT/mismatch.log" 2>&1 ||
		{ tail -n 20 "$DKMS_OUT/mismatch.log"; die "building rdma_ucm for $MISMATCH_KREL failed"; }
	rm -rf "$kdir"
}

# distribution_module NAME: Debian's own NAME.ko, uncompressed, on stdout.
distribution_module() {
	local f
	f=$(find "$DEB_ROOT/lib/modules/$DEB_KREL/kernel" -name "$1.ko*" | head -n1)
	[ -n "$f" ] || die "no $1.ko in $DEB_ROOT/lib/modules/$DEB_KREL/kernel"
	case "$f" in
	*.xz)	xz -dc "$f" ;;
	*.zst)	zstd -qdc "$f" ;;
	*)	cat "$f" ;;
	esac
}

modroot() {
	local mr=$DKMS_OUT/modroot g=$DKMS_OUT/guest ko m d n
	mismatch_module
	rm -rf "$mr" "$g"
	mkdir -p "$mr/lib/modules" "$g/etc" "$g/usr/lib/rdma-ha/mismatch" \
		"$g/usr/lib/rdma-ha/distribution"
	cp -al "$DEB_ROOT/lib/modules/$DEB_KREL" "$mr/lib/modules/"
	mkdir -p "$mr/lib/modules/$DEB_KREL/updates/dkms"
	: >"$g/etc/rdma-ha.dkms"
	while read -r m d; do
		ko=$DKMS_OUT/build/$d/$m.ko
		[ -f "$ko" ] || die "$ko was not built"
		cp "$ko" "$mr/lib/modules/$DEB_KREL/updates/dkms/"
		echo "$m $(modinfo -F version "$ko")" >>"$g/etc/rdma-ha.dkms"
		# the distribution's own module, for scenarios that run the
		# stock code next to the replacements (ipoib_cm_interop)
		distribution_module "$m" >"$g/usr/lib/rdma-ha/distribution/$m.ko"
	done <"$DKMS_OUT/src/modules"
	depmod -b "$mr" "$DEB_KREL"
	# The replacements must be the ones modprobe (and the initramfs) takes.
	while read -r m d; do
		n=$(modprobe -d "$mr" -S "$DEB_KREL" --show-depends "$m" |
			grep -c "updates/dkms/$m.ko") || true
		[ "$n" = 1 ] || die "depmod does not prefer updates/dkms/$m.ko"
	done <"$DKMS_OUT/src/modules"
	cp "$DKMS_OUT/mismatch/drivers/infiniband/core/rdma_ucm.ko" \
		"$g/usr/lib/rdma-ha/mismatch/"
	echo "$MISMATCH_KREL" >"$g/usr/lib/rdma-ha/mismatch/release"
	log "module root $mr; replacements: $(awk '{ printf "%s ", $1 }' "$DKMS_OUT/src/modules")"
}

# ---- checks -------------------------------------------------------------

# outside_reason FILE: the reason dkms/outside gives for FILE, a change
# the DKMS flavour goes without; fails if FILE is not listed (or has no
# reason).
outside_reason() {
	sed -e 's/#.*//' "$DKMS_CFG/outside" 2>/dev/null |
		awk -v f="$1" '$1 == f && NF > 1 { $1 = ""; sub(/^ +/, ""); print; found = 1 }
			END { exit !found }'
}

# check-scope: every upstream file the series changes must be part of a
# replaced module, a header, documentation or build glue, or be listed
# in dkms/outside with its reason.
check_scope() {
	local f d m o bad=0 owned why
	owned=$(modules_table | while read -r m d; do
		for o in $(module_objs "$d" "$m"); do
			echo "$d/${o%.o}.c"
		done
	done)
	for f in $(changed_files | sort -u); do
		case "$f" in
		Documentation/*|MAINTAINERS|*/Kconfig|*/Makefile|*/.kunitconfig)
			echo "ok (docs/build glue)  $f" ;;
		*_kunit.c)
			echo "ok (KUnit, full kernel only)  $f" ;;
		tools/testing/selftests/*)
			echo "ok (kselftest: user space, runs on either flavour)  $f" ;;
		include/uapi/*)
			echo "ok (uapi: values appended)  $f" ;;
		include/*)
			echo "ok (header; exported ABI: check-exports)  $f" ;;
		*.h)
			if modules_table | awk '{ print $2 }' | grep -qxF "$(dirname "$f")"; then
				echo "ok (private header; users outside: check-shared)  $f"
			else
				echo "OUTSIDE  $f"; bad=1
			fi ;;
		*)
			if grep -qxF "$f" <<<"$owned"; then
				echo "ok (replaced module)  $f"
			elif why=$(outside_reason "$f"); then
				echo "ok (full kernel only: $why)  $f"
			else
				echo "OUTSIDE  $f: not part of any module in dkms/modules"
				bad=1
			fi ;;
		esac
	done
	[ $bad = 0 ] || echo "the DKMS flavour cannot carry changes outside its modules: see README.md"
	return $bad
}

# check-exports: Debian's Module.symvers against ours, for every module
# we replace: same symbols, CRCs, export kinds and namespaces.
check_exports() {
	local theirs ours m d bad=0 n=0 line
	ours=$DKMS_OUT/build/Module.symvers
	[ -f "$ours" ] || die "no $ours: run dev/dkms.sh build"
	# Our Module.symvers names modules by absolute path.
	ours=$(sed "s|\t$DKMS_OUT/build/|\t|" "$DKMS_OUT/build/Module.symvers")
	while read -r m d; do
		theirs=$(awk -F'\t' -v mod="$d/$m" '$3 == mod' "$DEB_HEADERS/Module.symvers" | sort)
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			n=$((n + 1))
			if ! grep -qxF "$line" <<<"$ours"; then
				echo "MISMATCH $m: Debian: $line"
				echo "              ours:   $(awk -F'\t' -v s="$(cut -f2 <<<"$line")" '$2 == s' <<<"$ours")"
				bad=1
			fi
		done <<<"$theirs"
		echo "$m: $(grep -c . <<<"$theirs") Debian exports checked; new: $(
			awk -F'\t' -v mod="$d/$m" '$3 == mod { print $2 }' <<<"$ours" |
			grep -vxF -f <(cut -f2 <<<"$theirs") | tr '\n' ' ')"
	done <"$DKMS_OUT/src/modules"
	echo "$n exports compared"
	[ $n -gt 0 ] || { echo "no exports compared"; return 1; }
	return $bad
}

# check-shared: a header the series changes may also be compiled into
# modules we do not replace: a private header of a replaced module's
# directory (cma_priv.h into ib_core's restrack.c and nldev.c), or a public
# one (rdma/rdma_cm.h into ib_core's sa_query.c).  Compile those files
# against the Debian headers from the base and from the patched tree: the
# code (debug info aside) must be the same.
check_shared() {
	local changed d h c f dirs users=() bad=0 t obj owned w
	changed=$(changed_files | sort -u)
	owned=$(modules_table | while read -r m d; do
		for o in $(module_objs "$d" "$m"); do echo "$d/${o%.o}.c"; done
	done)
	dirs=$(modules_table | awk '{ print $2 }' | sort -u)
	for d in $dirs; do
		for h in $(grep "^$d/[^/]*\.h$" <<<"$changed" || true); do
			[ -f "$BASE_DIR/$h" ] || continue
			for c in "$BASE_DIR/$d"/*.c; do
				f=$d/$(basename "$c")
				grep -qxF "$f" <<<"$owned" && continue
				case "$f" in *_kunit.c) continue ;; esac
				grep -qE "^#include \"$(basename "$h")\"" "$c" && users+=("$f")
			done
		done
	done
	# Public headers (include/, uapi aside) the series changes: their users
	# in the distribution's RDMA core modules (ib_core, ib_cm, iw_cm,
	# ib_uverbs, ib_umad) and in the module directories.  (Exports of the
	# replaced modules are covered by check-exports.)
	for h in $(grep '^include/.*\.h$' <<<"$changed" | grep -v '^include/uapi/' || true); do
		[ -f "$BASE_DIR/$h" ] || continue
		for c in $(for d in drivers/infiniband/core $dirs; do
				echo "$BASE_DIR/$d"/*.c; done); do
			f=${c#"$BASE_DIR"/}
			grep -qxF "$f" <<<"$owned" && continue
			case "$f" in *_kunit.c) continue ;; esac
			grep -qE "^#include <${h#include/}>" "$c" && users+=("$f")
		done
	done
	if [ ${#users[@]} -eq 0 ]; then
		echo "no file outside the replaced modules includes a header the series changes"
		return 0
	fi
	users=($(printf '%s\n' "${users[@]}" | sort -u))
	# Both builds in the same directory: __FILE__ strings must not differ.
	ccache_env
	export DEBIAN_KERNEL_USE_CCACHE=1
	w=$DKMS_OUT/shared/tree
	for t in stock patched; do
		rm -rf "$w" "$DKMS_OUT/shared/$t"
		for f in "${users[@]}"; do
			d=$(dirname "$f")
			mkdir -p "$w/$d" "$DKMS_OUT/shared/$t/$d"
			if [ $t = stock ]; then
				cp "$BASE_DIR/$d"/*.[ch] "$w/$d/"
			else
				cp "$SRC/$d"/*.[ch] "$w/$d/"
				for h in $(grep '^include/.*\.h$' <<<"$changed" || true); do
					mkdir -p "$w/$(dirname "$h")"
					cp "$SRC/$h" "$w/$h"
				done
			fi
			makefile_joined "$BASE_DIR/$d/Makefile" | grep -v '^obj-' >"$w/$d/Kbuild"
		done
		# Trace headers name their path from include/trace (../../drivers/...).
		mkdir -p "$w/include/trace"
		echo 'NOSTDINC_FLAGS += -I$(KBUILD_EXTMOD)/include -I$(KBUILD_EXTMOD)/include/uapi -I$(KBUILD_EXTMOD)/include/trace' \
			>"$w/Kbuild"
		for f in "${users[@]}"; do
			nice -n 5 make -s -C "$DEB_HEADERS" M="$w" "${f%.c}.o" ||
				{ echo "cannot compile $f ($t)"; return 1; }
			objcopy --strip-debug "$w/${f%.c}.o" "$DKMS_OUT/shared/$t/${f%.c}.o"
		done
	done
	for f in "${users[@]}"; do
		obj=${f%.c}.o
		if cmp -s "$DKMS_OUT/shared/stock/$obj" "$DKMS_OUT/shared/patched/$obj"; then
			echo "same code: $f (not replaced; includes a header the series changes)"
		else
			echo "DIFFERENT: $f compiles to other code with the series' headers:"
			diff <(objdump -dr -s "$DKMS_OUT/shared/stock/$obj" | tail -n +4) \
			     <(objdump -dr -s "$DKMS_OUT/shared/patched/$obj" | tail -n +4) |
				head -n 20
			bad=1
		fi
	done
	return $bad
}

# fake_headers RELEASE: a copy of the Debian headers that claims RELEASE.
fake_headers() {
	local rel=$1 dir=$DKMS_OUT/fake-$1 e
	rm -rf "$dir"
	mkdir -p "$dir/include"
	for e in "$DEB_HEADERS"/* "$DEB_HEADERS"/.config; do
		case "$(basename "$e")" in
		include|Makefile) ;;
		*) ln -s "$e" "$dir/" ;;
		esac
	done
	cp "$DEB_HEADERS/Makefile" "$dir/"
	sed "s/^override KERNELRELEASE = .*/override KERNELRELEASE = $rel/" \
		"$DEB_HEADERS/.kernelvariables" >"$dir/.kernelvariables"
	cp -a "$DEB_HEADERS/include/." "$dir/include/"
	echo "$rel" >"$dir/include/config/kernel.release"
	echo "#define UTS_RELEASE \"$rel\"" >"$dir/include/generated/utsrelease.h"
	echo "$dir"
}

# check-version: headers of the next 6.12.y must be refused with a message
# that names both versions.  (The module built for another release of the
# same version, see mismatch_module, is refused by the guest: dkms_modules.)
check_version() {
	local other kdir out rc=0 sub
	sub=${BASE_KERNEL##*.}
	other=${BASE_KERNEL%.*}.$((sub + 1))+deb12-amd64
	kdir=$(fake_headers "$other")
	if out=$(build "$kdir" "$DKMS_OUT/build-$other" 2>&1); then
		echo "$out" | tail -n 20
		echo "FAIL: the build against $other headers succeeded"
		rc=1
	else
		echo "$out" | grep -E 'rdma-ha|Error' | head -n 5
		if grep -q "built from Linux $BASE_KERNEL .*headers of Linux $other" <<<"$out"; then
			echo "refused, naming $BASE_KERNEL and $other: OK"
		else
			echo "FAIL: no refusal naming Linux $BASE_KERNEL and $other"
			rc=1
		fi
	fi
	rm -rf "$DKMS_OUT/build-$other" "$kdir"
	return $rc
}

# dkms-tool: the package through Debian's own dkms (apt-get download,
# unpacked under out/debian, run with private trees; slow: a full build
# that ccache cannot serve).  Not part of make check.
dkms_tool() {
	local t=$OUT/debian/dkms-tool tree=$DKMS_OUT/dkmstree v m d out
	v=$(cat "$DKMS_OUT/src/version")
	if [ ! -x "$t/usr/sbin/dkms" ]; then
		(cd "$OUT/debian/debs" && apt-get download -q dkms >&2) ||
			die "apt-get download dkms failed"
		dpkg-deb -x "$OUT"/debian/debs/dkms_*.deb "$t"
	fi
	rm -rf "$tree"
	mkdir -p "$tree"
	set -- --sourcetree "$DKMS_OUT/src" --dkmstree "$tree"
	"$t/usr/sbin/dkms" add -m rdma-ha -v "$v" "$@"
	"$t/usr/sbin/dkms" build -m rdma-ha -v "$v" -k "$DEB_KREL" \
		--kernelsourcedir "$DEB_HEADERS" "$@"
	while read -r m d; do
		ls "$tree/rdma-ha/$v/$DEB_KREL/x86_64/module/$m.ko"* ||
			die "dkms built no $m.ko"
	done <"$DKMS_OUT/src/modules"
	out=$("$t/usr/sbin/dkms" build -m rdma-ha -v "$v" \
		-k "${BASE_KERNEL%.*}.$((${BASE_KERNEL##*.} + 1))+deb12-amd64" \
		--kernelsourcedir "$DEB_HEADERS" "$@" 2>&1) || true
	grep BUILD_EXCLUSIVE <<<"$out" ||
		{ echo "$out"; die "dkms did not refuse a kernel of another version"; }
}

case "${1:-}" in
fetch)		fetch ;;
dkms-tool)	dkms_tool ;;
source)		source_pkg ;;
build)		shift; build "$@" ;;
modroot)	modroot ;;
all)		fetch; source_pkg; build; modroot ;;
check-scope)	check_scope ;;
check-exports)	check_exports ;;
check-shared)	fetch; check_shared ;;
check-version)	check_version ;;
*)		sed -n '4,35p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
