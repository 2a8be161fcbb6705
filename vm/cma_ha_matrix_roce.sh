#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched
# rdma-ha-opt-in: passed on a quiet host (session 33: 384 rows ok, 4 unjudged, 211 s, 304 CPU-s) and beside a full check (session 39: 384 rows, 0 failed, 0 unjudged, 1181 s, 878 CPU-s), and with the 100 ms port hold-off and the driver-state judgement on a quiet host (session 41: 384 rows, 0 failed, 18 unjudged, 254 s, 376 CPU-s); too long for the check's budget (issue 17)
#
# The lifecycle matrix (cma_ha_matrix_lib.sh) on the RoCE bond of
# cma_ha_roce.sh: bond0 (active-backup, miimon 100) over eth0/eth1 with
# one rxe device per slave (rxe0 on eth0, rxe1 on eth1), with bonding's
# default fail_over_mac=none (cma_ha_matrix_roce_active.sh and
# cma_ha_matrix_roce_follow.sh: the same under active and follow).
# Twelve connections at once, one per HA mode with a wildcard and with a
# bound listener.  (The stock kernel cannot run it: its rxe drops what a
# bond's slave receives, see cma_ha_matrix_lag.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cma_ha_matrix_lib.sh"
MX_KIND=roce
MX_FOM=${MX_FOM:-none}

need_cmd rdma mono_watch $PP
mx_trace_init
mx_columns
mx_setup
barrier ready 120
mx_sequences
mx_finish
