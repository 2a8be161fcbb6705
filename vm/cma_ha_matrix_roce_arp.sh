#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=1800 kernel=patched net=switch
# rdma-ha-opt-in: one whole run passed, on a quiet host (session 38: 384 rows, 0 failed, 6 unjudged, 208 s, 277 CPU-s); never run under a full check's load, and the check's time budget has no room for it (issue 17)
#
# The lifecycle matrix (cma_ha_matrix_lib.sh) on the RoCE bond of
# cma_ha_matrix_roce.sh (one rxe per slave, fail_over_mac=none), watched
# by bonding's ARP monitor (arp_interval 100, the peer as arp_ip_target)
# instead of miimon, on a switched segment (vm.sh net=switch), as
# cma_ha_matrix_ib_arp.sh runs the IPoIB bond.  The RoCE CM judges a path
# by its port, its netdevice and where the bond's GIDs are, not by
# bonding's record of the slave: the ARP monitor changes when the bonds
# fail over, and the switch which of the peer's ports a client reaches.
MX_MON=arp
MX_FABRIC=switch
MX_FOM=none
. "$(dirname "$0")/cma_ha_matrix_roce.sh"
