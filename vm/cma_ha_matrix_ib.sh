#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched
# rdma-ha-opt-in: passed on a quiet host (session 25, about 200 s) and beside a full check (session 39: 384 rows, 0 failed, 24 unjudged, 572 s, 466 CPU-s), and with the 100 ms port hold-off and the driver-state judgement on a quiet host (session 41: 384 rows, 0 failed, 30 unjudged, 250 s, 276 CPU-s); too long for the check's budget (issue 17)
#
# The lifecycle matrix (cma_ha_matrix_lib.sh) on the IPoIB bond of
# cma_ha_ib.sh: sib0 on eth0, sib1 on eth1 (soft InfiniBand), ib0 and ib1
# in an active-backup bond0 (miimon 100; bonding forces fail_over_mac
# active on IPoIB slaves).  Twelve connections at once, one per HA mode
# with a wildcard and with a bound listener, through the sequences
# switch, cut, both-down and release; every row is the rules' (see the
# library's header).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_matrix_lib.sh"
MX_KIND=ib
MX_FOM=active

need_cmd rdma mono_watch $PP
mx_trace_init
mx_setup
barrier ready 120
mx_columns
mx_sequences
mx_finish
