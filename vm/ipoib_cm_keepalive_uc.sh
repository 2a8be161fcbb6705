#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=400 kernel=patched,kasan
#
# IPoIB-CM keepalives on UC connections (see ka_scenario in
# ipoib_cm_lib.sh): idle cost; link cut, re-add of the peer's soft IB
# device and a power cut and reboot of the peer guest detected within
# interval x probes; traffic resumes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

ka_scenario uc
