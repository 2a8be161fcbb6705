# SPDX-License-Identifier: GPL-2.0-only
# Shared settings for the rdma-ha build machinery.  Sourced, not run.

RDMA_HA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$RDMA_HA_ROOT/out}

# The base: Debian's linux-source-6.12, pinned.  Moving the base is a
# deliberate change of its own (see README.md, "Moving the base").
BASE_PKG=linux-source-6.12
BASE_VERSION=6.12.117-1~deb12u1
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_DIR=$OUT/base/linux
# The upstream kernel version of the base (6.12.117).
BASE_KERNEL=${BASE_VERSION%%-*}

# The distribution kernel of the same version, for the replacement-module
# (DKMS) flavour: Debian's linux-image and linux-headers packages, fetched
# with apt-get download and unpacked under out/debian (never installed).
DEB_ABINAME=$BASE_KERNEL+deb12
DEB_KREL=$DEB_ABINAME-amd64
DEB_PKGVERSION=$BASE_VERSION
DEB_ROOT=$OUT/debian/root
DEB_HEADERS=$DEB_ROOT/usr/src/linux-headers-$DEB_KREL
DEB_VMLINUZ=$DEB_ROOT/boot/vmlinuz-$DEB_KREL

# Directories of the repository that hold new files at their kernel paths.
OVERLAY_DIRS="drivers include Documentation tools"

die() { echo "error: $*" >&2; exit 1; }
log() { echo "==> $*" >&2; }

# need_pkgs PKG...: install Debian packages that are missing (as root).
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	if [ ! -e /var/lib/apt/lists/lock ] ||
	   [ -z "$(ls /var/lib/apt/lists/*Packages 2>/dev/null)" ]; then
		apt-get update -q >&2 || die "apt-get update failed"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >&2 ||
		{ apt-get update -q >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "${missing[@]}" >&2; } ||
		die "apt-get install ${missing[*]} failed"
}

# overlay_files: list of new files (relative paths) tracked by git in the
# overlay directories, or found on disk when not in a git checkout.
overlay_files() {
	(cd "$RDMA_HA_ROOT" &&
	 if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$RDMA_HA_ROOT" ]; then
		git ls-files -co --exclude-standard -- $OVERLAY_DIRS
	 else
		for d in $OVERLAY_DIRS; do
			[ ! -d "$d" ] || find "$d" -type f
		done
	 fi) | sort
}

# ccache_env: the environment every kernel build of the project runs in.
# base_dir=out/ makes the paths ccache hashes relative, so the stock and
# the patched tree share objects; the build stamp is fixed for the same
# reason.
ccache_env() {
	export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
	export CCACHE_BASEDIR=$OUT
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	# On a miss, compile the preprocessed output ccache has already made
	# instead of preprocessing a second time: the cold patched debug build
	# took 15m13s instead of 17m01s.  Diagnostics may then point into macro
	# expansions differently, so the static checks compile without
	# ccache (dev/check.sh, tree_warnings).
	export CCACHE_NOCPP2=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
	export KBUILD_BUILD_USER=rdma-ha KBUILD_BUILD_HOST=rdma-ha
	export KBUILD_BUILD_VERSION=1
}

# patch_targets PATCH: the upstream files a patch touches.
patch_targets() {
	sed -n -e 's,^+++ b/\([^[:space:]]*\).*,\1,p' \
	       -e 's,^--- a/\([^[:space:]]*\).*,\1,p' "$1" | sort -u
}

series_patches() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$RDMA_HA_ROOT/patches/series" |
		awk '{print $1}'
}
