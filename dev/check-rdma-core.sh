#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check-rdma-core.sh: the rdma-core side of the HA mode
# (tools/rdma/rdma-core/*.patch) fits the librdmacm that Debian installs.
# rdma-core's source package is not at hand, but librdmacm-dev installs
# the files the patch changes: librdmacm/rdma_cma.h as
# /usr/include/rdma/rdma_cma.h and librdmacm/man/rdma_set_option.3 as
# /usr/share/man/man3/rdma_set_option.3.gz.  On copies of them:
#
#  - the patches apply with no fuzz, at rdma-core's paths;
#  - a program that sets the mode by name (RDMA_OPTION_ID_HA_MODE,
#    RDMA_CM_HA_MODE_FAIL_FAST) compiles and links against the patched
#    header and librdmacm, and not against the unpatched one (the test can
#    fail);
#  - the values it names are the kernel's: those of enum rdma_cm_ha_mode,
#    enum rdma_cm_ha_path_status (the status of ADDR_CHANGE) and
#    RDMA_OPTION_ID_HA_MODE in the uapi header the series patches;
#  - the man page renders with no warning (man -l and groff at 80
#    columns) and documents the option and every mode.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

HDR=/usr/include/rdma/rdma_cma.h
MAN=/usr/share/man/man3/rdma_set_option.3.gz
PATCHES=("$RDMA_HA_ROOT"/tools/rdma/rdma-core/*.patch)
[ -f "${PATCHES[0]}" ] || die "no patch under tools/rdma/rdma-core"

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# Images that leave out documentation (dpkg path-exclude) have the header
# but not the man page: take both from the package then.
if [ ! -f "$HDR" ] || [ ! -f "$MAN" ]; then
	log "librdmacm-dev's files are not all installed; unpacking the package"
	(cd "$d" && apt-get download -q librdmacm-dev >&2) ||
		die "apt-get download librdmacm-dev failed"
	dpkg-deb -x "$d"/librdmacm-dev_*.deb "$d/pkg"
	HDR=$d/pkg$HDR
	MAN=$d/pkg$MAN
fi
echo "librdmacm-dev $(dpkg-query -W -f='${Version}' librdmacm-dev 2>/dev/null || echo '(unpacked)')"

mkdir -p "$d/rdma-core/librdmacm/man" "$d/orig/rdma"
cp "$HDR" "$d/rdma-core/librdmacm/rdma_cma.h"
cp "$HDR" "$d/orig/rdma/rdma_cma.h"
zcat "$MAN" >"$d/rdma-core/librdmacm/man/rdma_set_option.3"

for p in "${PATCHES[@]}"; do
	echo "applying $(basename "$p")"
	patch -d "$d/rdma-core" -p1 --fuzz=0 --no-backup-if-mismatch <"$p" ||
		die "$(basename "$p") does not apply to librdmacm-dev's files"
done

# The program: sets the mode by name; prints the values it names.
mkdir -p "$d/inc/rdma"
cp "$d/rdma-core/librdmacm/rdma_cma.h" "$d/inc/rdma/rdma_cma.h"
cat >"$d/ha.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>

int set_fail_fast(struct rdma_cm_id *id)
{
	uint8_t mode = RDMA_CM_HA_MODE_FAIL_FAST;

	return rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_HA_MODE,
			       &mode, sizeof(mode));
}

/* With an argument: set the mode on an ID (needs an RDMA CM device) */
int main(int argc, char **argv)
{
	enum rdma_cm_ha_mode m = RDMA_CM_HA_MODE_NOTIFY;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	(void)argv;
	if (argc > 1) {
		ch = rdma_create_event_channel();
		if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			return 2;
		return set_fail_fast(id) ? 3 : 0;
	}

	printf("RDMA_OPTION_ID_HA_MODE=%d\n", RDMA_OPTION_ID_HA_MODE);
	printf("RDMA_CM_HA_MODE_NOTIFY=%d\n", m);
	printf("RDMA_CM_HA_MODE_IGNORE=%d\n", RDMA_CM_HA_MODE_IGNORE);
	printf("RDMA_CM_HA_MODE_ALIGN=%d\n", RDMA_CM_HA_MODE_ALIGN);
	printf("RDMA_CM_HA_MODE_FAIL_FAST=%d\n", RDMA_CM_HA_MODE_FAIL_FAST);
	printf("RDMA_CM_HA_MODE_MIGRATE=%d\n", RDMA_CM_HA_MODE_MIGRATE);
	printf("RDMA_CM_HA_MODE_REPORT=%d\n", RDMA_CM_HA_MODE_REPORT);
	printf("RDMA_CM_HA_PATH_ALIGNED=%d\n", RDMA_CM_HA_PATH_ALIGNED);
	printf("RDMA_CM_HA_PATH_MISALIGNED=%d\n", RDMA_CM_HA_PATH_MISALIGNED);
	printf("RDMA_CM_HA_PATH_DEAD=%d\n", RDMA_CM_HA_PATH_DEAD);
	return 0;
}
EOF
if gcc -Wall -Werror -I"$d/orig" -c "$d/ha.c" -o "$d/orig.o" 2>"$d/orig.err"; then
	die "the program compiles against the unpatched header: the check cannot fail"
fi
echo "against the unpatched header, as expected: $(grep -m1 error: "$d/orig.err")"
gcc -Wall -Wextra -Werror -I"$d/inc" "$d/ha.c" -o "$d/ha" -lrdmacm ||
	die "the program does not build against the patched header"
"$d/ha" | tee "$d/values"

# The kernel's values, from the uapi header as the series leaves it.
uapi=$OUT/patched/src/include/uapi/rdma/rdma_user_cm.h
if [ ! -f "$uapi" ]; then
	"$RDMA_HA_ROOT/dev/prepare-src.sh" patched >&2
fi
awk '
	/^enum rdma_cm_ha_(mode|path_status)/ { e = 1 }
	e && /RDMA_CM_HA_(MODE|PATH)_[A-Z_]+[ \t]*=/ {
		gsub(/[,\t ]/, ""); sub(/\/\*.*/, ""); print
	}
	e && /^};/ { e = 0 }
	/RDMA_OPTION_ID_HA_MODE[ \t]*=/ {
		gsub(/[,\t ]/, ""); sub(/\/\*.*/, ""); print
	}' "$uapi" | sort >"$d/kernel"
sort "$d/values" >"$d/lib"
[ "$(wc -l <"$d/kernel")" = 10 ] ||
	die "cannot read the option, the 6 modes and the 3 path states from $uapi: $(cat "$d/kernel")"
diff -u "$d/kernel" "$d/lib" ||
	die "the names or values differ from the kernel's uapi ($uapi)"
echo "names and values match $uapi"

# The man page.
page=$d/rdma-core/librdmacm/man/rdma_set_option.3
: >"$d/man.err"
MANWIDTH=80 man -l --warnings=w "$page" >"$d/man.txt" 2>>"$d/man.err"
groff -man -Tutf8 -ww -z "$page" 2>>"$d/man.err"
if [ -s "$d/man.err" ]; then
	cat "$d/man.err"
	die "the man page renders with warnings"
fi
for w in RDMA_OPTION_ID_HA_MODE RDMA_CM_HA_MODE_NOTIFY RDMA_CM_HA_MODE_IGNORE \
	 RDMA_CM_HA_MODE_ALIGN RDMA_CM_HA_MODE_FAIL_FAST RDMA_CM_HA_MODE_MIGRATE \
	 RDMA_CM_HA_MODE_REPORT RDMA_CM_HA_PATH_ALIGNED RDMA_CM_HA_PATH_MISALIGNED \
	 RDMA_CM_HA_PATH_DEAD default_ha_mode; do
	grep -q "$w" "$d/man.txt" || die "the rendered man page does not name $w"
done
echo "rdma_set_option(3) renders with no warning ($(wc -l <"$d/man.txt") lines) and names the option, every mode and every path state"
