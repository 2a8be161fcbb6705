#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=240 kernel=stock,patched,debian
#
# Phase 2 of the failover baseline on a fresh boot: the same topology as
# failover_baseline.sh, the client runs with --reconnect.  See there.
FAILOVER_PHASES=2
. "$(dirname "$0")/failover_baseline.sh"
