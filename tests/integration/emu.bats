#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Path emulator: a short self-test with generous bounds, plus input checks and
# a check that stop leaves nothing behind.  Needs root and build/delayq
# (make -f tools/emu/emu.mk OUT=build).

REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
PATHEMU="$REPO/tools/emu/pathemu"

setup() {
	[[ $EUID -eq 0 ]] || skip "needs root"
	[[ -x ${PATHEMU_DELAYQ:-$REPO/build/delayq} ]] || skip "build/delayq not built"
	NAME="bt$$${BATS_TEST_NUMBER}"
}

teardown() {
	[[ -n ${NAME:-} ]] && "$PATHEMU" stop --name "$NAME" >/dev/null 2>&1 || true
}

assert_clean() {
	if ip netns list | grep -q "^$NAME-"; then
		echo "namespace left: $(ip netns list | grep "^$NAME-")"
		return 1
	fi
	[[ ! -e /run/pathemu/$NAME ]]
}

@test "emu: bad input exits 2 with one line on stderr and creates nothing" {
	run "$PATHEMU" start --name "$NAME" --rate fast --rtt 20ms --buffer 10
	[ "$status" -eq 2 ]
	[[ $output == *"bad rate"* ]]
	run "$PATHEMU" start --name "$NAME" --rate 10mbit --rtt 20ms --buffer 1xbdp
	[ "$status" -eq 2 ]
	run "$PATHEMU" start --name "$NAME" --rate 10mbit --rtt 20ms --buffer 10 --loss 100
	[ "$status" -eq 2 ]
	assert_clean
}

@test "emu: start, duplicate name, show, stop leaves nothing behind" {
	"$PATHEMU" start --name "$NAME" --rate 50mbit --rtt 10ms --buffer 0.5bdp
	run "$PATHEMU" start --name "$NAME" --rate 50mbit --rtt 10ms --buffer 10
	[ "$status" -eq 1 ]
	run "$PATHEMU" show --name "$NAME"
	[ "$status" -eq 0 ]
	# 50 Mbit/s x 10 ms / 1500 B = 41.7 packets
	[[ $output == *"bdp_pkts=42"* ]]
	[[ $output == *"buffer_pkts=21"* ]]
	[[ $output == *"buffer_bytes=31500"* ]]
	pid=$(cat "/run/pathemu/$NAME/delayq.pid")
	kill -0 "$pid"
	"$PATHEMU" stop --name "$NAME"
	"$PATHEMU" stop --name "$NAME"
	# gone, or a zombie waiting for init to reap it
	[[ ! -e /proc/$pid ]] || [[ $(awk '{ print $3 }' "/proc/$pid/stat") == Z ]]
	assert_clean
}

@test "emu: selftest --quick meets rtt, goodput and no delay-queue drops" {
	run "$REPO/tools/emu/selftest" --quick
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"ceiling_mbit="* ]]
	run bash -c "ip netns list | grep '^pest'"
	[ "$status" -ne 0 ]
}
