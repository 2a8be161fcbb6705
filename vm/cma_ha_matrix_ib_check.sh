#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=900 kernel=patched
#
# The part of the IPoIB lifecycle matrix (cma_ha_matrix_ib.sh) that fits
# make check's time budget (issue 17): its sequences both-down (cut of
# the active link, cut of the backup with the active one restored, the
# backup restored) and release (the active slave released from the bond,
# then enslaved again), the two lifecycles the review found the policy
# misjudging (fail-fast tearing down a healthy connection when the bond
# recovers; the release of the active slave invisible in every mode),
# with all twelve columns (every HA mode, wildcard and bound listener)
# judged on both sides by the rules of the library, as in the whole
# matrix.  The other sequences (switch, cut, slaves-down), the RoCE and
# LAG kinds and the ARP monitor stay opt-in (cma_ha_matrix_*.sh);
# rdma_ha.matrix_seqs= chooses others here too.
MX_SEQS=${MX_SEQS:-both-down release}
. "$(dirname "$0")/cma_ha_matrix_ib.sh"
