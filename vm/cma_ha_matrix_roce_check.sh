#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=900 kernel=patched
#
# The part of the RoCE lifecycle matrix that fits make check's time
# budget (issue 17), beside cma_ha_matrix_ib_check.sh: the RoCE bond with
# one rxe per slave under fail_over_mac=active
# (cma_ha_matrix_roce_active.sh), where the stock CM tells of the
# release of the active slave (the bond's hardware address changes), and
# the sequences release and both-down, all twelve columns judged on both
# sides.  The other sequences and fail_over_mac none and follow stay
# opt-in; rdma_ha.matrix_seqs= chooses others here too.
MX_SEQS=${MX_SEQS:-release both-down}
. "$(dirname "$0")/cma_ha_matrix_roce_active.sh"
