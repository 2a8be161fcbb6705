#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=2 timeout=720 kernel=patched,kasan
#
# IPoIB-CM keepalives on RC connections (see ka_scenario in
# ipoib_cm_lib.sh): idle cost; link cut, re-add of the peer's soft IB
# device and a power cut and reboot of the peer guest detected within
# interval x probes; traffic resumes.  Then, with the rebooted peer:
# keepalives towards a peer that grants no remote write
# (ka_foreign_peer), such a peer closing the connection before the NAK
# of a's RDMA WRITE gets back (ka_foreign_close_first), the RDMA WRITE
# tried towards such a peer not holding up the CM of the host while it
# is unanswered (ka_write_check_cm), ib0 brought down with sends
# outstanding to a peer that went silent (ka_down_outstanding), and
# keepalives that agree with the stale-connection task and the peer's
# DREQ (ka_stale_idle), and a send-side QP that fails under its idle
# connection (ka_qp_fatal), and a receive side out of receive buffers
# for a moment (ka_rnr).  Each phase leaves nothing running behind it;
# ka_stale_idle checks that its connections are idle and probed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipoib_cm_lib.sh"

ka_scenario rc
ka_foreign_peer
ka_foreign_close_first
ka_write_check_cm
ka_down_outstanding
ka_stale_idle
ka_qp_fatal
ka_rnr
exit $res
