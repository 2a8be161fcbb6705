#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Driving sib_apm (sib_apm.c) from a scenario: sourced by sib_apm.sh and
# sib_apm_ports.sh after lib.sh.  apm_start runs one sib_apm with its
# commands on fd 3 and its output in OUT; the helpers below talk to it.

# apm_start NAME ARGS...: run sib_apm ARGS with its commands from
# /tmp/NAME.in (fd 3) and its output in OUT=/tmp/NAME.out; its pid in pid
apm_start() {
	local name=$1
	shift
	OUT=/tmp/$name.out
	mkfifo /tmp/$name.in
	sib_apm "$@" </tmp/$name.in >$OUT 2>&1 &
	pid=$!
	exec 3>/tmp/$name.in
	_apm_from=1
	wait_for 10 grep -q '^qpn ' $OUT || fail "sib_apm: $(cat $OUT)"
	QPN=$(grep -m 1 '^qpn ' $OUT | cut -d' ' -f2)
}

# apm_stop: quit sib_apm, which must exit 0
apm_stop() {
	echo quit >&3
	wait $pid || fail "sib_apm exited $?: $(cat $OUT)"
	exec 3>&-
}

# _apm_bad: the program failed (a completion in error, a failed verb, a
# message out of sequence) or died.
_apm_bad() {
	grep -q '^wc error\|^error' $OUT || ! kill -0 $pid 2>/dev/null
}

_apm_has() {
	_apm_bad && return 0
	tail -n +$_apm_from $OUT | grep -q "$1"
}

# apm_wait PATTERN [TIMEOUT_S]: wait for an output line matching PATTERN
# since the last command, left in REPLY; fail on an error.
apm_wait() {
	wait_for "${2:-30}" _apm_has "$1" ||
		fail "sib_apm: no '$1' in: $(cat $OUT)"
	! _apm_bad || fail "sib_apm: $(cat $OUT)"
	REPLY=$(tail -n +$_apm_from $OUT | grep -m 1 "$1")
}

# apm CMD [PATTERN [TIMEOUT_S]]: send CMD to sib_apm, wait for its answer.
apm() {
	_apm_from=$(($(wc -l <$OUT) + 1))
	echo "$1" >&3
	[ -z "$2" ] || apm_wait "$2" "$3"
}

# expect_events N: N IBV_EVENT_PATH_MIG so far (within 30 s), no
# IBV_EVENT_PATH_MIG_ERR.
_events_are() {
	apm events '^events '
	[ "$REPLY" = "events mig $1 migerr 0" ]
}
expect_events() {
	wait_for 30 _events_are "$1" ||
		fail "events: '$REPLY', expected mig $1 migerr 0"
	log "$REPLY"
}

# apm_streamed METRIC TIMEOUT_S [EXTRA]: wait for the end of a "stream"
# (sib_apm: "streamed TOTAL gap_ms MS"), report MS as RDMA-HA-MEASURE
# METRIC (with EXTRA), fail when it exceeds GAP_MAX_MS; TOTAL in sent
apm_streamed() {
	local gap
	apm_wait '^streamed ' "$2"
	set -- "$1" "$2" "${3:-}" $REPLY
	sent=$5 gap=$7
	echo "RDMA-HA-MEASURE: $1 $gap bound=$GAP_MAX_MS${3:+ $3}"
	[ "$gap" -le "$GAP_MAX_MS" ] ||
		fail "longest gap between send completions $gap ms > $GAP_MAX_MS ms"
	log "$REPLY"
}
