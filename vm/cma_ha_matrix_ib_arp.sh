#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched net=switch
# rdma-ha-opt-in: one whole run passed, on a quiet host (session 38: 384 rows, 0 failed, 6 unjudged, 191 s, 255 CPU-s); never run under a full check's load, and the check's time budget has no room for it (issue 17)
#
# The lifecycle matrix (cma_ha_matrix_lib.sh) on the IPoIB bond of
# cma_ha_matrix_ib.sh, watched by bonding's ARP monitor (arp_interval 100,
# the peer as arp_ip_target) instead of miimon, on a switched segment
# (vm.sh net=switch): the four NICs on one learning switch, so that each
# backup slave hears the peer's probes and replies and stays up, as the
# ports of a fabric's hosts do.  Same columns and sequences; the rules
# know the switch (MX_FABRIC: a client reaches the peer's active port from
# either slave) and the ARP monitor (MX_MON: bonding's record of a running
# slave with carrier decides whether its path is dead).
MX_MON=arp
MX_FABRIC=switch
. "$(dirname "$0")/cma_ha_matrix_ib.sh"
