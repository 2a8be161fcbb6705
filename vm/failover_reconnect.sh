#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=240 kernel=stock,patched,debian
# rdma-ha-opt-in-on: debian: notify on the DKMS modules is the stock CM's behaviour, which the stock kernel's run shows; the modules' CM runs in cma_ha_default@debian and nvme_failover@debian (the check's budget, README)
#
# Phase 2 of the failover baseline on a fresh boot: the same topology as
# failover_baseline.sh, the client runs with --reconnect.  See there.
FAILOVER_PHASES=2
. "$(dirname "$0")/failover_baseline.sh"
