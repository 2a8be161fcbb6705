#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA_OPTION_ID_HA_MODE through librdmacm's unmodified rdma_set_option(),
# on the soft RoCE driver: an rxe device on one end of a veth pair, then
# ucma_ha_setopt (TAP): every valid and invalid call in every state of an
# ID (idle, bound, listening, resolved, both ends of a connection before
# and after it is disconnected), a randomized loop of calls checked
# against a model of ucma_set_option() (HA_ITERATIONS, default 20000;
# HA_SEED to replay a run, whose seed it prints), and, where the kernel
# has fault injection (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS),
# a sweep that fails every slab allocation of create, set, bind, listen
# and resolve in turn.  Bad input must get its documented errno and
# nothing else; the kernel log must stay free of splats (the caller
# checks it).
#
# The addresses are from 198.18.0.0/15 (RFC 2544) and never leave the
# veth pair.

ksft_skip=4
dir=$(dirname "$0")
addr=198.18.251.1
veth=ksft_rdma_ha
rxe=ksft_rxe_ha
failslab=/sys/kernel/debug/failslab
saved_wait=
saved_verbose=

cleanup()
{
	rdma link delete "$rxe" 2>/dev/null
	ip link delete "${veth}0" 2>/dev/null
	[ -z "$saved_wait" ] || echo "$saved_wait" >"$failslab/ignore-gfp-wait"
	[ -z "$saved_verbose" ] || echo "$saved_verbose" >"$failslab/verbose"
}

skip()
{
	echo "SKIP: $*"
	exit $ksft_skip
}

[ "$(id -u)" = 0 ] || skip "must be run as root"
command -v rdma >/dev/null 2>&1 || skip "no rdma tool (iproute2)"
[ -x "$dir/ucma_ha_setopt" ] || skip "ucma_ha_setopt not built"
modprobe -q rdma_rxe 2>/dev/null
modprobe -q rdma_ucm 2>/dev/null
[ -e /dev/infiniband/rdma_cm ] || skip "no /dev/infiniband/rdma_cm"

trap cleanup EXIT
ip link add "${veth}0" type veth peer name "${veth}1" ||
	skip "cannot create a veth pair"
ip addr add "$addr/24" dev "${veth}0" || exit 1
ip link set "${veth}0" up && ip link set "${veth}1" up || exit 1
rdma link add "$rxe" type rxe netdev "${veth}0" ||
	skip "cannot add an rxe device on ${veth}0"

set -- --addr "$addr" --require --iterations "${HA_ITERATIONS:-20000}"
[ -z "$HA_SEED" ] || set -- "$@" --seed "$HA_SEED"
if [ -w /proc/thread-self/fail-nth ] && [ -w "$failslab/ignore-gfp-wait" ]; then
	# GFP_KERNEL allocations fail too; no stack dump per failure
	saved_wait=$(cat "$failslab/ignore-gfp-wait")
	saved_verbose=$(cat "$failslab/verbose")
	echo N >"$failslab/ignore-gfp-wait" || exit 1
	echo 0 >"$failslab/verbose" || exit 1
	set -- "$@" --fail-nth
else
	echo "# no fault injection in this kernel: no fail-nth sweep"
fi
"$dir/ucma_ha_setopt" "$@"
