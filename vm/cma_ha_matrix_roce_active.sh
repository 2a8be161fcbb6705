#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched
# rdma-ha-opt-in: no whole run has passed yet; a run of the full matrix on a quiet host is not measured (issue 17)
#
# cma_ha_matrix_roce.sh with fail_over_mac=active.
MX_FOM=active
. "$(dirname "$0")/cma_ha_matrix_roce.sh"
