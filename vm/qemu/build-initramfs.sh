#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-initramfs.sh OUT.cpio
#
# Builds the initramfs of the rdma-ha QEMU test machine from the host's
# Debian packages: busybox (static), iproute2 (ip, rdma, tc), ethtool, rdma-core
# (libibverbs with only the rxe provider, librdmacm), rdmacm-utils,
# ibverbs-utils (ibv_asyncwatch too), perftest, infiniband-diags (ibstat,
# saquery, smpquery, ibnetdiscover, sminfo, perfquery), opensm (unpacked, not installed), with
# NVME_TOOLS=1 nvme-cli and fio (NVMe over Fabrics with verified I/O),
# with PYVERBS=1 python3 and rdma-core's own test suite (python3-pyverbs),
# plus the project's programs (every executable in $TOOLS_DIR, default
# out/tools), the scenarios of vm/*.sh (into /selftests) and the kselftests
# of tools/testing/selftests/rdma (into /kselftest).
#
# Layout: merged /usr (/bin, /sbin, /lib, /lib64 are symlinks into /usr).
# Real tools keep their Debian paths; a busybox applet link is made only
# where no real binary of that name exists, so nothing is shadowed.
#
# KMOD_ROOT=DIR (an unpacked linux-image .deb, or dev/dkms.sh's module root
# with the replacement modules in updates/dkms) adds the modules in KMODS
# and their dependencies, for booting a modular (distribution) kernel;
# KMODS_EXTRA=LIST adds modules to the default list.
# EXTRA_ROOT=DIR: a tree copied as is into the initramfs root.
#
# The archive is reproducible: sorted newc entries, fixed mtimes and owners.
# It is not compressed: a guest under TCG took longer to gunzip it (about
# 1.5 s of each boot of the debug kernel) than QEMU takes to load the
# larger file.  Nothing is cached; the staging tree lives next to OUT.
set -euo pipefail

out=${1:?usage: $0 OUT.cpio}
here=$(cd "$(dirname "$0")" && pwd)
sel=$(cd "$here/.." && pwd)
root=$(cd "$sel/.." && pwd)
TOOLS_DIR=${TOOLS_DIR:-$root/out/tools}
MULTIARCH=x86_64-linux-gnu

die() { echo "build-initramfs: error: $*" >&2; exit 1; }

# Debian packages we take files from (and rsync, which the kselftest
# install uses); installed when missing (as root).
pkgs="busybox-static iproute2 rdma-core ibverbs-providers libibverbs1
      librdmacm1 rdmacm-utils ibverbs-utils perftest infiniband-diags cpio
      gcc libc6-dev librdmacm-dev ethtool nvme-cli fio python3-pyverbs
      rsync"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (need root to install)"
	echo "build-initramfs: installing$missing" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >&2 ||
	{ apt-get update -q >&2 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >&2; } ||
	die "apt-get install$missing failed"
fi

out=$(realpath -m "$out")
mkdir -p "$(dirname "$out")"
stage=$out.d
rm -rf "$stage"
mkdir -p "$stage"/usr/{bin,sbin,lib/$MULTIARCH,lib64} \
	"$stage"/{dev,proc,sys,tmp,run,root,etc/libibverbs.d,selftests}
ln -s usr/bin "$stage/bin"
ln -s usr/sbin "$stage/sbin"
ln -s usr/lib "$stage/lib"
ln -s usr/lib64 "$stage/lib64"

declare -A libs=()

# stage_file SRC [DST]: copy a host file into the tree (at its own path, or
# DST), following symlinks, and record the ELF's shared libraries.
stage_file() {
	local src=$1 dst=${2:-$1} lib
	[ -e "$src" ] || die "$src not found on the host"
	dst=${dst#/}
	dst=${dst/#bin\//usr/bin/}
	dst=${dst/#sbin\//usr/sbin/}
	dst=${dst/#lib\//usr/lib/}
	dst=${dst/#lib64\//usr/lib64/}
	mkdir -p "$stage/$(dirname "$dst")"
	cp -L "$src" "$stage/$dst"
	if head -c4 "$src" | grep -q 'ELF'; then
		while read -r lib; do
			libs[$lib]=1
		done < <(ldd "$src" 2>/dev/null |
			 sed -n -e 's/.*=> \(\/[^ ]*\).*/\1/p' \
				-e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
	fi
}

# Real tools, at their Debian paths.
for f in /usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy /usr/bin/mckey \
	 /usr/bin/rdma_server /usr/bin/rdma_client /usr/bin/riostream \
	 /usr/bin/rstream \
	 /usr/bin/ib_send_bw /usr/bin/ib_send_lat /usr/bin/ib_write_bw \
	 /usr/bin/ib_write_lat /usr/bin/ib_read_lat \
	 /usr/bin/ibv_devinfo /usr/bin/ibv_devices /usr/bin/ibv_rc_pingpong \
	 /usr/bin/ibv_ud_pingpong /usr/bin/ibv_uc_pingpong \
	 /usr/bin/ibv_srq_pingpong /usr/bin/ibv_asyncwatch \
	 /usr/sbin/ibstat /usr/sbin/saquery \
	 /usr/sbin/smpquery /usr/sbin/ibnetdiscover /usr/sbin/sminfo \
	 /usr/sbin/perfquery \
	 /usr/bin/rdma; do
	# every one is in a package installed above: a missing one is an
	# error here, not a scenario that skips (or passes) without it
	stage_file "$f"
done
# OpenSM (sib_opensm): Debian's opensm and its libraries, unpacked from
# their packages, not installed: installing the package would start a
# subnet manager service on the host.
osm=$root/out/debian/opensm
if [ ! -x "$osm/root/usr/sbin/opensm" ]; then
	rm -rf "$osm"
	mkdir -p "$osm"
	(cd "$osm" && apt-get download opensm libopensm9 libosmcomp5 \
		libosmvendor5) >&2 || die "apt-get download of opensm failed"
	for d in "$osm"/*.deb; do
		dpkg-deb -x "$d" "$osm/root" || die "unpacking $d failed"
	done
fi
for f in "$osm"/root/usr/lib/$MULTIARCH/lib*.so.*; do
	stage_file "$f" "/usr/lib/$MULTIARCH/$(basename "$f")"
done
stage_file "$osm/root/usr/sbin/opensm" /usr/sbin/opensm
# iproute2's ip: Debian installs it as /bin/ip and /sbin/ip.
stage_file /usr/sbin/ip /usr/sbin/ip
ln -s ../sbin/ip "$stage/usr/bin/ip"
stage_file /usr/sbin/bridge
# tc (netem packet loss) and ethtool (-S counters) for the IPoIB scenarios.
stage_file /usr/sbin/tc
stage_file /usr/sbin/ethtool
# coreutils' timeout: the kselftest runner (run_kselftest.sh) runs each
# test under timeout --foreground, which busybox's timeout lacks.
stage_file /usr/bin/timeout
# bash: the kselftests are bash scripts, as on a developer's machine
# (Debian's static busybox runs its own applets, such as ip, before any
# PATH lookup, and its ip has no veth peers).
stage_file /usr/bin/bash
# NVMe over Fabrics (NVME_TOOLS=1, for nvme_failover): nvme-cli connects
# the host, fio writes and verifies.  Debian's fio links librbd, librados,
# libgfapi and their libraries (about 80 MB, BIND_NOW: they cannot be left
# out), which took a guest 4-5 s more to unpack at each boot: only the
# scenarios that ask for them (initrd=nvme in the header) get them.
if [ "${NVME_TOOLS:-}" = 1 ]; then
	stage_file /usr/sbin/nvme
	stage_file /usr/bin/fio
fi

# rdma-core's own tests (PYVERBS=1, for rdma_core_tests): the python3
# interpreter and its standard library (without what the tests never
# import), pyverbs, the suite as python3-pyverbs ships it (gunzipped), its
# version, and the runner rdma_core_tests.py.  About 55 MB: only the
# scenarios that ask for it (initrd=pyverbs) get it.
if [ "${PYVERBS:-}" = 1 ]; then
	py=$(readlink -f /usr/bin/python3)
	pyv=$(basename "$py")
	stage_file "$py" "/usr/bin/$pyv"
	ln -s "$pyv" "$stage/usr/bin/python3"
	mkdir -p "$stage/usr/lib/$pyv"
	(cd "/usr/lib/$pyv" && tar cf - --exclude=./test --exclude=./idlelib \
		--exclude=./tkinter --exclude=./ensurepip --exclude=./lib2to3 \
		--exclude=./pydoc_data --exclude=./turtledemo \
		--exclude="./config-*" --exclude=./site-packages \
		--exclude=./dist-packages .) | tar xf - -C "$stage/usr/lib/$pyv"
	for f in "/usr/lib/$pyv"/lib-dynload/*.so; do
		stage_file "$f"
	done
	mkdir -p "$stage/usr/lib/python3/dist-packages"
	cp -a /usr/lib/python3/dist-packages/pyverbs \
		"$stage/usr/lib/python3/dist-packages/"
	while IFS= read -r f; do
		stage_file "$f"
	done < <(find /usr/lib/python3/dist-packages/pyverbs -name '*.so' | sort)
	mkdir -p "$stage/usr/share/rdma-core/tests"
	cp -a /usr/share/doc/rdma-core/tests/. "$stage/usr/share/rdma-core/tests/"
	find "$stage/usr/share/rdma-core/tests" -name '*.gz' -exec gunzip -f {} +
	dpkg-query -W -f='${Version}\n' python3-pyverbs \
		>"$stage/usr/share/rdma-core/VERSION"
	install -m 755 "$sel/rdma_core_tests.py" "$stage/usr/bin/rdma_core_tests"
fi

# libibverbs with the rxe provider only (others would only slow probing).
for f in /usr/lib/$MULTIARCH/libibverbs/librxe-rdmav*.so; do
	stage_file "$f"
done
cp /etc/libibverbs.d/rxe.driver "$stage/etc/libibverbs.d/"
# glibc dlopen()s libgcc_s for pthread_cancel/exit unwinding.
stage_file /usr/lib/$MULTIARCH/libgcc_s.so.1

# The project's own programs, and its libraries (lib*.so: LD_PRELOAD
# shims) in the library directory.
if [ -d "$TOOLS_DIR" ]; then
	while IFS= read -r f; do
		case $(basename "$f") in
		lib*.so) stage_file "$f" "/usr/lib/$MULTIARCH/$(basename "$f")" ;;
		*) stage_file "$f" "/usr/bin/$(basename "$f")" ;;
		esac
	done < <(find "$TOOLS_DIR" -maxdepth 2 -type f -perm -u+x | sort)
else
	die "no $TOOLS_DIR, so none of the project's programs (rdma_ha_pingpong...): make tools, or TOOLS_DIR="
fi
gcc -static -O2 -Wall -o "$stage/usr/bin/mono_watch" "$sel/mono_watch.c"
gcc -static -O2 -Wall -I"$root/tools/testing/selftests/rdma" \
	-o "$stage/usr/bin/fail_nth" "$sel/fail_nth.c"
# Selftest programs on librdmacm or libibverbs: dynamic, their libraries
# staged below.
ksel=$root/tools/testing/selftests/rdma
for p in ucma_ha_setopt:rdmacm rxe_ud_sqe:ibverbs rxe_srq_flush:ibverbs \
	 sib_apm:ibverbs; do
	src=$sel/${p%:*}.c
	[ -f "$src" ] || src=$ksel/${p%:*}.c
	gcc -O2 -Wall -o "$stage.${p%:*}" "$src" "-l${p#*:}"
	stage_file "$stage.${p%:*}" "/usr/bin/${p%:*}"
	rm -f "$stage.${p%:*}"
done

# Shared libraries (and theirs).
declare -A done_libs=()
while :; do
	new=0
	for l in "${!libs[@]}"; do
		[ -n "${done_libs[$l]:-}" ] && continue
		done_libs[$l]=1
		new=1
		stage_file "$l"
	done
	[ $new = 0 ] && break
done

# busybox and its applets, where no real binary has the name.
cp /bin/busybox "$stage/usr/bin/busybox"
while IFS= read -r a; do
	name=$(basename "$a")
	case "$name" in busybox|linuxrc|init) continue ;; esac
	if [ -e "$stage/usr/bin/$name" ] || [ -e "$stage/usr/sbin/$name" ] ||
	   [ -L "$stage/usr/bin/$name" ] || [ -L "$stage/usr/sbin/$name" ]; then
		continue
	fi
	case "$a" in
	*/sbin/*) ln -s ../bin/busybox "$stage/usr/sbin/$name" ;;
	*)	  ln -s busybox "$stage/usr/bin/$name" ;;
	esac
done < <(/bin/busybox --list-full | sort)

# PID 1, the helpers and the scenarios.
cp "$here/init.sh" "$stage/init"
chmod 755 "$stage/init"
for f in "$sel"/*.sh "$sel"/*.expected; do
	cp "$f" "$stage/selftests/"
done
chmod 755 "$stage"/selftests/*.sh

# The kselftests of tools/testing/selftests/rdma (those that run in one
# kernel, posted with the series), built and installed by the kernel's
# own kselftest Makefile from the patched tree into /kselftest, where
# vm/kselftest_rdma.sh runs them with run_kselftest.sh.  Not in the
# initramfs of Debian's kernel (KMOD_ROOT), whose runs never use them.
if [ -z "${KMOD_ROOT:-}" ]; then
	ksrc=${KSELFTEST_SRC:-${OUT:-$root/out}/patched/src}
	[ -f "$ksrc/tools/testing/selftests/rdma/Makefile" ] ||
		die "no patched tree with tools/testing/selftests/rdma at $ksrc (dev/prepare-src.sh patched; or KSELFTEST_SRC=)"
	kobj=$(mktemp -d)
	make -s -C "$ksrc/tools/testing/selftests" TARGETS=rdma O="$kobj" \
		INSTALL_PATH="$stage/kselftest" install >&2 ||
		die "the rdma kselftests did not build or install"
	rm -rf "$kobj"
	[ -x "$stage/kselftest/rdma/ucma_ha_setopt" ] ||
		die "the rdma kselftests installed no ucma_ha_setopt"
fi

cat >"$stage/etc/passwd" <<EOF
root:x:0:0:root:/root:/bin/sh
EOF
cat >"$stage/etc/group" <<EOF
root:x:0:
EOF
printf '127.0.0.1 localhost\n' >"$stage/etc/hosts"
printf 'hosts: files\n' >"$stage/etc/nsswitch.conf"
: >"$stage/etc/ld.so.conf"

# Kernel modules, for a modular kernel such as Debian's own (only when
# KMOD_ROOT names an unpacked linux-image package: its root directory).
# The modules in KMODS and their dependencies go into /usr/lib/modules,
# uncompressed, and /etc/rdma-ha.modules lists them in load order for init.
if [ -n "${KMOD_ROOT:-}" ]; then
	KMOD_ROOT=$(realpath "$KMOD_ROOT")
	# rxe needs a "crc32" shash: crc32_generic is a module there.
	KMODS=${KMODS:-"virtio_net bonding veth crc32_generic rdma_rxe rdma_cm rdma_ucm ib_uverbs ib_umad ib_ipoib"}
	KMODS="$KMODS ${KMODS_EXTRA:-}"
	kver=$(ls "$KMOD_ROOT/lib/modules" | head -1)
	[ -n "$kver" ] || die "no modules in $KMOD_ROOT/lib/modules"
	[ -f "$KMOD_ROOT/lib/modules/$kver/modules.dep" ] ||
		depmod -b "$KMOD_ROOT" "$kver" || die "depmod failed"
	: >"$stage/etc/rdma-ha.modules"
	for m in $KMODS; do
		modprobe -d "$KMOD_ROOT" -S "$kver" --show-depends "$m" ||
			die "module $m not found"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
	while read -r ko; do
		rel=${ko#"$KMOD_ROOT"}
		rel=${rel#/usr}
		dst=/usr${rel%.xz}
		dst=${dst%.zst}
		mkdir -p "$stage$(dirname "$dst")"
		case "$ko" in
		*.xz)	xz -dc "$ko" >"$stage$dst" ;;
		*.zst)	zstd -qdc "$ko" >"$stage$dst" ;;
		*)	cp "$ko" "$stage$dst" ;;
		esac
		echo "$dst" >>"$stage/etc/rdma-ha.modules"
	done
fi

if [ -n "${EXTRA_ROOT:-}" ]; then
	[ -d "$EXTRA_ROOT" ] || die "no directory $EXTRA_ROOT (EXTRA_ROOT)"
	cp -a "$EXTRA_ROOT/." "$stage/"
fi

# Reproducible archive.
find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$stage"
echo "build-initramfs: $out ($(du -h "$out" | cut -f1))" >&2
