#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched net=switch
# rdma-ha-opt-in: its rules do not know a switched fabric yet: the first run (session 34) had 344 rows ok, 22 unjudged, 18 failed, all explained (README) and none a misjudging CM (issue 17)
#
# The lifecycle matrix (cma_ha_matrix_lib.sh) on the IPoIB bond of
# cma_ha_matrix_ib.sh, watched by bonding's ARP monitor (arp_interval 100,
# the peer as arp_ip_target) instead of miimon, on a switched segment
# (vm.sh net=switch): the four NICs on one learning switch, so that each
# backup slave hears the peer's probes and replies and stays up, as the
# ports of a fabric's hosts do.  Same columns and sequences, same rules.
. "$(dirname "$0")/lib.sh"
MX_MON=arp
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
