#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched,stock
# rdma-ha-opt-in: one whole run passed on the patched kernel, on a quiet host (session 38: 128 rows, 0 failed, 0 unjudged, 259 s, 176 CPU-s), the stock kernel's not measured; never run under a full check's load, and the check's time budget has no room for it (issue 17)
#
# The notify column of the lifecycle matrix (cma_ha_matrix_lib.sh) on the
# one RoCE bond the stock kernel carries: rxe0 on bond0 itself (a device
# that follows the bond, as device-level LAG does), fail_over_mac active
# and none (rdma_ha.matrix_foms=).  The stock kernel's rows and the
# patched kernel's notify rows are each the rules' (the CM before HA
# modes: ADDR_CHANGE status 0 when the bond's hardware address changed;
# the neighbour update's UNREACHABLE -ETIMEDOUT to the active side), so
# they are the same row for row; the RDMA-HA-MATRIX lines of the two runs
# compare directly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_matrix_lib.sh"
MX_KIND=lag
MX_MODES=${MX_MODES:-notify}

need_cmd rdma mono_watch $PP
mx_trace_init
mx_columns
for MX_FOM in $(echo "${RDMA_HA_MATRIX_FOMS:-active,none}" | tr , ' '); do
	if [ -e /sys/class/net/bond0 ]; then
		# (barriers run over bond0)
		barrier "fom-$MX_FOM" 120
		rdma link del rxe0 || fail "rdma link del rxe0"
		ip link del bond0 || fail "cannot delete bond0"
	fi
	mx_setup
	barrier "ready-$MX_FOM" 120
	mx_sequences
done
mx_finish
