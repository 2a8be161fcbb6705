#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha-bench: guests=2 timeout=1500 kernel=patched tsc=host
#
# Benchmark (dev/bench.sh runs it; make check does not): the HA mode must
# not change the data path.  perftest's ib_send_bw and ib_send_lat between
# two guests over rxe on eth0, connected through the RDMA CM (-R), with the
# HA mode set on every ID (librdma_ha_mode.so, RDMA_HA_MODE=SETMODE, on both
# sides; the accepted IDs inherit it from the listener) and unset (no
# shim), in alternating order per round so that drift cancels.  Patched
# kernel only: the stock kernel has no mode to set.  perftest times with
# the TSC: the guests need its frequency (tsc=host in the header).
#
#	RDMA-HA-BENCH: bench=datapath test=send_bw ha=set|unset round=R bw_avg_mbps=B
#	RDMA-HA-BENCH: bench=datapath test=send_lat ha=set|unset round=R lat_typ_us=T lat_avg_us=A lat_p99_us=P
#
# Knobs: RDMA_HA_BENCH_ROUNDS (default 10), RDMA_HA_BENCH_SETMODE (default
# align), RDMA_HA_BENCH_BW_SECONDS (default 5), RDMA_HA_BENCH_LAT_ITERS
# (default 300; a 64-byte round trip takes about 10 ms under TCG).
. "$(dirname "$0")/lib.sh"

ROUNDS=${RDMA_HA_BENCH_ROUNDS:-10}
SETMODE=${RDMA_HA_BENCH_SETMODE:-align}
BW_SECONDS=${RDMA_HA_BENCH_BW_SECONDS:-5}
LAT_ITERS=${RDMA_HA_BENCH_LAT_ITERS:-300}
SHIM=/usr/lib/x86_64-linux-gnu/librdma_ha_mode.so
BW=/usr/bin/ib_send_bw
LAT=/usr/bin/ib_send_lat

need_cmd rdma mono_watch $BW $LAT
[ -f $SHIM ] || skip "$SHIM not in the initramfs"
grep -q tsc /sys/devices/system/clocksource/clocksource0/current_clocksource ||
	fail "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), not tsc: perftest cannot time (boot with tsc_early_khz=)"
nic_setup eth0 "$MY_IP"
wait_carrier eth0 1 30
rxe_add rxe0 eth0
wait_ping "$PEER_IP" 60
barrier ready 120

seq=0
# run_one TEST HA ARGS...: one perftest run, server on a, client on b; the
# client's output is left in /tmp/perf.out.
run_one() {
	local prog="$1" ha="$2" pid
	shift 2
	seq=$((seq + 1))
	if [ "$ha" = set ]; then
		set -- env RDMA_HA_MODE="$SETMODE" RDMA_HA_MODE_STRICT=1 \
			RDMA_HA_MODE_VERBOSE=1 LD_PRELOAD=$SHIM "$prog" "$@"
	else
		set -- "$prog" "$@"
	fi
	if [ "$ROLE" = a ]; then
		"$@" -d rxe0 -R -F -p $((18600 + seq)) >/tmp/perf.out 2>&1 &
		pid=$!
		sleep 1
		barrier "srv$seq"
		wait $pid || log "server $prog $ha exit $?: $(tail -n 5 /tmp/perf.out)"
	else
		barrier "srv$seq"
		"$@" -d rxe0 -R -F -p $((18600 + seq)) "$PEER_IP" >/tmp/perf.out 2>&1 ||
			fail "$prog $ha: $(tail -n 20 /tmp/perf.out)"
	fi
	if [ "$ha" = set ]; then
		grep -q "librdma_ha_mode: id .* mode " /tmp/perf.out ||
			fail "$prog: the shim set no mode: $(tail -n 20 /tmp/perf.out)"
	else
		! grep -q librdma_ha_mode /tmp/perf.out || fail "$prog: shim loaded in the unset run"
	fi
	barrier "done$seq" 60
}

# data_line: the first line of perftest's result table (starts with the
# message size).
data_line() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' /tmp/perf.out; }

r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	if [ $((r % 2)) = 1 ]; then order="unset set"; else order="set unset"; fi
	for ha in $order; do
		# #bytes #iterations BW-peak BW-average MsgRate
		run_one $BW "$ha" -D "$BW_SECONDS"
		# shellcheck disable=SC2046
		set -- $(data_line)
		[ "$ROLE" = a ] || [ $# -ge 5 ] || fail "send_bw: no result: $(tail -n 20 /tmp/perf.out)"
		[ "$ROLE" = a ] ||
			echo "RDMA-HA-BENCH: bench=datapath test=send_bw ha=$ha round=$r bw_avg_mbps=$4"
		# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
		run_one $LAT "$ha" -s 64 -n "$LAT_ITERS"
		# shellcheck disable=SC2046
		set -- $(data_line)
		[ "$ROLE" = a ] || [ $# -ge 8 ] || fail "send_lat: no result: $(tail -n 20 /tmp/perf.out)"
		[ "$ROLE" = a ] ||
			echo "RDMA-HA-BENCH: bench=datapath test=send_lat ha=$ha round=$r lat_typ_us=$5 lat_avg_us=$6 lat_p99_us=$8"
	done
done
exit 0
