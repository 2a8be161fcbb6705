#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched
# rdma-ha-opt-in: one whole run passed, on a quiet host (session 38: 384 rows, 0 failed, 0 unjudged, 205 s, 274 CPU-s); never run under a full check's load, and the check's time budget has no room for it (issue 17)
#
# cma_ha_matrix_roce.sh with fail_over_mac=active.
MX_FOM=active
. "$(dirname "$0")/cma_ha_matrix_roce.sh"
