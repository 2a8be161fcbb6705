#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# cc-steps.sh GCC-ARGS...: the C compiler of dev/series.sh --build-steps.
#
# Kbuild runs it as CC, always by this name, so that a step's saved command
# lines match the step before and make rebuilds only what a step changed.
# What it does depends on RDMA_HA_STEPS_CC in the environment:
#   real (or unset)  ccache gcc ARGS: a real object;
#   syntax           a C file compiled into an object under one of the
#                    directories in RDMA_HA_STEPS_DIRS (space-separated,
#                    relative to the object tree, e.g. "drivers/infiniband/")
#                    is only checked: gcc -fsyntax-only with the same
#                    flags (warnings and errors as in a real compile, the
#                    dependency list for Kbuild written as usual), and the
#                    object is an empty one, which the step's other tools
#                    (objtool, ar) accept.  Everything else (Kbuild's
#                    prepare stage, host programs) is compiled for real.
# A step in syntax mode does not see what only the optimiser reports
# (BUILD_BUG_ON's error attribute, -Wmaybe-uninitialized, frame sizes):
# the patched kernel's own build checks that on the whole series.
set -u

[ "${RDMA_HA_STEPS_CC:-real}" = syntax ] || exec ccache gcc "$@"

obj=
src=
compile=0
prev=
for a in "$@"; do
	case "$prev" in -o) obj=$a ;; esac
	case "$a" in
	-c) compile=1 ;;
	*.c) src=$a ;;
	esac
	prev=$a
done
mine=0
if [ "$compile" = 1 ] && [ -n "$src" ]; then
	for d in ${RDMA_HA_STEPS_DIRS:-}; do
		case "$obj" in "$d"*) mine=1 ;; esac
	done
fi
[ "$mine" = 1 ] || exec ccache gcc "$@"

# The same command without "-c" and "-o OBJ", checked only.
n=$#
i=0
skip=0
while [ "$i" -lt "$n" ]; do
	a=$1
	shift
	i=$((i + 1))
	if [ "$skip" = 1 ]; then
		skip=0
	elif [ "$a" = -o ]; then
		skip=1
	elif [ "$a" != -c ]; then
		set -- "$@" "$a"
	fi
done
gcc "$@" -fsyntax-only || exit
exec gcc -c -x c /dev/null -o "$obj"
