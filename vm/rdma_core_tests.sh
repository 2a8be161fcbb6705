#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma-ha: guests=1 timeout=1500 kernel=patched,stock,debian initrd=pyverbs
# rdma-ha-opt-in-on: debian: the patched run checks the same source, and the check's budget has no room for it (76 s, 78 CPU-s, and its initramfs)
# rdma-ha-opt-in-on: stock: the stock kernel (6.12.117) and python3-pyverbs are pinned, so its results are a constant, which the RoCE column of rdma_core_tests.expected records and the patched run holds rxe0 to; the check's budget (87 s, 81 CPU-s in session 46's check)
#
# A third-party suite on the soft devices: rdma-core's own tests (pyverbs,
# shipped by Debian's python3-pyverbs under /usr/share/doc/rdma-core/tests,
# run unmodified through rdma_core_tests.py, one result line per test), on
# rxe RoCE (rxe0 on eth0) and, on a kernel with the series, on a soft
# InfiniBand port (sib0 on eth1, IPoIB ib0 for the RDMA CM tests; the
# built-in SA).  Each test runs in loopback on its device.
#
# Asserted: every test's result is the one rdma_core_tests.expected gives
# for its device kind (RoCE, IB): a test expected to pass passes, one
# expected to skip skips (a device that starts passing one is a change to
# record there), none fails or errors unless that file declares it racy,
# and the suite has exactly the tests listed (the file is for one version
# of python3-pyverbs: another version fails here until it is regenerated).
# On the stock kernel only rxe0 runs: the same RoCE column, so the series
# changes nothing rdma-core's suite sees on rxe (make vmtest
# T=rdma_core_tests K=stock: both its inputs are pinned, so a full check
# leaves it out).  On Debian's kernel (the
# replacement modules of make dkms, initramfs-debian-pyverbs.cpio) both
# devices run, with the same expectations as on the patched kernel.
# Printed: the pass/skip/fail counts of each device side by side
# (RDMA-HA-DATA: what=rdma-core-tests ...).
. "$(dirname "$0")/lib.sh"

need_cmd python3 rdma_core_tests rdma
TESTS=/usr/share/rdma-core/tests
EXPECTED=$(dirname "$0")/rdma_core_tests.expected
[ -f "$EXPECTED" ] || fail "no $EXPECTED"
want=$(sed -n 's/^# python3-pyverbs //p' "$EXPECTED")
have=$(cat /usr/share/rdma-core/VERSION 2>/dev/null)
[ "$want" = "$have" ] ||
	fail "rdma_core_tests.expected is for python3-pyverbs '$want', the initramfs has '$have': regenerate it (see its header)"

nic_setup eth0 "$MY_IP"
rxe_add rxe0 eth0
devs="rxe0:eth0:2"
# The series' soft InfiniBand (its rdma_rxe has the sib_builtin_sa
# parameter): a kernel that has the series must bring up sib0.
if [ -e /sys/module/rdma_rxe/parameters/sib_builtin_sa ]; then
	sib_add sib0 eth1
	ip link set ib0 up || fail "ib0 up"
	ip addr add 198.18.10.1/24 dev ib0 || fail "address on ib0"
	devs="$devs sib0:ib0:3"
else
	log "no soft InfiniBand in this kernel: RoCE only"
fi

res=0
summary=""
for d in $devs; do
	dev=${d%%:*}; rest=${d#*:}; nd=${rest%%:*}; col=${rest#*:}
	log "rdma-core tests on $dev (net interface $nd)"
	rdma_core_tests "$TESTS" --netdev "$nd" --dev "$dev" \
		>"/tmp/$dev.out" 2>"/tmp/$dev.err"
	rc=$?
	cat "/tmp/$dev.out"
	[ "$rc" = 0 ] || sed 's/^/  /' "/tmp/$dev.err" | tail -n 60
	line=$(grep '^RDMA-CORE-TESTS:' "/tmp/$dev.out")
	[ -n "$line" ] || { log "FAIL: $dev: the suite did not finish (exit $rc)"; res=1; continue; }
	summary="$summary ${line#RDMA-CORE-TESTS: }"
	# every result against its column of the expectations
	if ! awk -v col="$col" -v dev="$dev" '
		FNR == NR {
			if ($0 ~ /^#/ || NF < 3) next
			want[$1] = $col
			next
		}
		/^RDMA-CORE-TEST: / {
			r = $3; sub(/^result=/, "", r)
			id = $4; sub(/^id=/, "", id)
			seen[id] = 1
			if (!(id in want)) {
				printf "%s: %s: %s, not in the expectations\n", dev, id, r
				bad = 1
			} else if (("|" want[id] "|") !~ ("[|]" r "[|]")) {
				printf "%s: %s: %s, expected %s\n", dev, id, r, want[id]
				bad = 1
			}
		}
		END {
			for (id in want)
				if (want[id] != "-" && !(id in seen)) {
					printf "%s: %s: not run\n", dev, id
					bad = 1
				}
			exit bad
		}' "$EXPECTED" "/tmp/$dev.out" >"/tmp/$dev.diff"; then
		sed "s/^/$ROLE: FAIL: /" "/tmp/$dev.diff"
		res=1
	else
		log "$dev: every result as expected"
	fi
done
echo "RDMA-HA-DATA: what=rdma-core-tests kernel=$(uname -r)$summary"
[ "$res" = 0 ] || fail "rdma-core's tests differ from rdma_core_tests.expected"
log "PASS"
