#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=5400 kernel=stock,patched initrd=nvme
#
# Benchmark (dev/bench.sh runs it; make check does not): NVMe over
# Fabrics on RDMA across bond failovers, stock against patched in the same
# run.  It is nvme_failover.sh in its benchmark mode: guest a the nvmet
# target (a RAM disk), guest b nvme-rdma and fio (crc32c-verified 4 KiB
# writes at 100 IOPS, O_DIRECT, depth 4); per mode the events of that
# scenario (administrative switch, fail-back, cut of the active link, 50 ms
# flap of the active link), repeated RDMA_HA_BENCH_ROUNDS times (default
# 3), with its assertions recorded and not enforced.
#
# Topology (RDMA_HA_BENCH_TOPO): roce by default, on both kernels, so that
# they compare like with like: rxe on an active-backup Ethernet bond
# (fail_over_mac=active), made anew on both guests after every run (a cut
# leaves the stock kernel's QP1 in the error state: nvme_failover.sh's
# header); ib: the seeds' IPoIB bond over soft InfiniBand (the patched
# kernel only; the stock kernel then runs roce anyway).  Modes: the stock
# kernel "stock"; the patched kernel RDMA_HA_BENCH_MODES (default
# notify,align,fail-fast), set as the ports' default_ha_mode, as an
# administrator sets it for nvme-rdma and nvmet-rdma, which set none.
#
#	RDMA-HA-BENCH: bench=nvme_failover topo=T mode=M event=E round=R
#		io_gap_ms=G io_gap_running_ms=N error_recoveries_count=C
#		reconnects_count=C not_live_again_count=0|1 before_iops=X after_iops=Y
#	RDMA-HA-BENCH: bench=nvme_failover_timeline topo=T mode=M event=cut
#		round=R series=MS:IOPS,...
#
# io_gap_ms: the longest time without an I/O completion in the event's
# window; io_gap_running_ms: the same less the times the guest did not
# run (a loaded host stops TCG guests); error_recoveries_count and
# reconnects_count: nvme-rdma's resets and successful reconnections;
# not_live_again_count: 1 when the controller was not live again within
# 40 s; before_iops: the I/O rate in the 3 s before the act; after_iops:
# in the last 2 s of the window.  The timeline: the rate in 250 ms bins
# from 2 s before a cut to 10 s after it (dev/bench-report.py draws its
# median per kernel and mode: nvme_failover.svg).
export RDMA_HA_NVME_BENCH=1 RDMA_HA_LOSS=0
export RDMA_HA_TOPO="${RDMA_HA_BENCH_TOPO:-roce}"
if [ -d /sys/kernel/debug/rxe ]; then
	RDMA_HA_MODES=$(echo "${RDMA_HA_BENCH_MODES:-notify align fail-fast}" | tr , ' ')
else
	RDMA_HA_MODES=stock
fi
export RDMA_HA_MODES
exec "$(dirname "$0")/nvme_failover.sh" "$@"
