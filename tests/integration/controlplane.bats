#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The control plane is safe by construction: cubicctl touches only an instance
# it can prove is the one named, takes only names the kernel takes, refuses to
# read maps of another ABI, and the suite's guard catches a disturbed instance.

load lib

PINS=/sys/fs/bpf/cubicctl

setup() {
	ensure_fs
	NAME=$(test_name)
	# names ending in the kernel's own "cubic" and "reno" (at most 15 characters)
	SHORT="bct$(( $$ % 1000 ))$(( RANDOM % 100 ))"
	CUB=${SHORT}cubic
	RENO=${SHORT}reno
	OTHER=${NAME}x
	EXTRA=()
}

teardown() {
	# a test that moved a pin folder puts it back first
	if [ -n "${MOVED:-}" ] && [ -d "$PINS/$MOVED" ] && [ ! -e "$PINS/$NAME" ]; then
		mv "$PINS/$MOVED" "$PINS/$NAME"
	fi
	instance_teardown "$NAME" "$CUB" "$RENO" "$OTHER" "${EXTRA[@]}"
	other_bpffs_cleanup
}

ops_id() {
	bpftool -j map show pinned "$PINS/$1/ops" | jq .id
}

# Every pin of instance $1 with its inode and map id, one a line.
pins_of() {
	local p
	for p in "$PINS/$1"/*; do
		echo "$p $(stat -c %i "$p") $(bpftool -j map show pinned "$p" | jq .id)"
	done
}

@test "unload --name cubic or reno leaves instances whose names end in cubic or reno alone" {
	"$CUBICCTL" load --name "$CUB"
	"$CUBICCTL" load --name "$RENO"
	pins_cub=$(pins_of "$CUB")
	pins_reno=$(pins_of "$RENO")
	for kernel_ca in cubic reno; do
		run "$CUBICCTL" unload --name "$kernel_ca"
		echo "$output"
		[ "$status" -eq 3 ]
		[ "$output" = "cubicctl: unload: $kernel_ca is registered, but not by cubicctl; not touching it" ]
		registered "$kernel_ca"
	done
	registered "$CUB"
	registered "$RENO"
	[ "$(pins_of "$CUB")" = "$pins_cub" ]
	[ "$(pins_of "$RENO")" = "$pins_reno" ]
	# and status still reads them as registered through the kernel's BTF
	[ "$("$CUBICCTL" -j status --name "$CUB" | jq -r '.instances[0].state')" = registered ]
	[ "$("$CUBICCTL" -j status --name "$RENO" | jq -r '.instances[0].state')" = registered ]
}

@test "a registration without pins is matched by its exact name only" {
	# registered through a struct_ops link (Linux 6.4+) and in map mode
	for link in $(link_modes); do
		export CUBICCTL_LINK=$link
		"$CUBICCTL" load --name "$CUB"
		id=$(ops_id "$CUB")
		# the pins are lost: only a scan of the kernel's maps (and links) can
		# find it now (in link mode another bpffs keeps its link: lose_pins)
		lose_pins "$CUB"
		run "$CUBICCTL" unload --name "${CUB%cubic}"
		[ "$status" -eq 3 ]
		run "$CUBICCTL" unload --name cubic
		[ "$status" -eq 3 ]
		registered "$CUB"
		[ "$(bpftool -j map show id "$id" | jq -r .id)" = "$id" ]
		run "$CUBICCTL" unload --name "$CUB"
		[ "$status" -eq 0 ]
		assert_gone "$CUB"
		other_bpffs_cleanup
	done
}

@test "pins holding another instance's ops map are never unregistered or removed" {
	"$CUBICCTL" load --name "$NAME"
	id=$(ops_id "$NAME")
	# as if someone renamed the pin folder: OTHER's pins hold NAME's registration
	mv "$PINS/$NAME" "$PINS/$OTHER"
	MOVED=$OTHER
	run "$CUBICCTL" unload --name "$OTHER"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: unload: the ops map pinned in $PINS/$OTHER is registered as '$NAME', not $OTHER; not touching it" ]
	run "$CUBICCTL" load --name "$OTHER"
	[ "$status" -eq 1 ]
	[[ "$output" == *"registered as '$NAME', not $OTHER"* ]]
	registered "$NAME"
	run registered "$OTHER"
	[ "$status" -ne 0 ]
	[ "$(ops_id "$OTHER")" = "$id" ]
	run "$CUBICCTL" -j status --name "$OTHER"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.instances[0].state' <<<"$output")" = foreign ]
	[ "$(jq -r '.instances[0].ops_registered_as' <<<"$output")" = "$NAME" ]
	run "$CUBICCTL" status --name "$OTHER"
	[ "$output" = "$OTHER: its ops pin is registered as '$NAME'; cubicctl leaves it alone" ]
	run "$CUBICCTL" set --name "$OTHER" beta=700
	[ "$status" -eq 3 ]
	mv "$PINS/$OTHER" "$PINS/$NAME"
	MOVED=
	run "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 0 ]
	assert_gone "$NAME"
}

@test "instance names: what the kernel and bpffs take (ASCII), the rest exits 2 before anything is made" {
	# the kernel refuses these ("can't register: Invalid argument"); bpffs refuses '.'
	for bad in -x a-b a+b a.b a:b "a b" a~b "$(printf 'bct\xe9')" "$(printf 'bct\xc3\xa9')" \
		"" this_is_far_too_long "a/b"; do
		for cmd in load unload status set get trace flows; do
			extra=
			[ "$cmd" = set ] && extra=beta=700
			run "$CUBICCTL" "$cmd" --name "$bad" $extra
			[ "$status" -eq 2 ] || { echo "$cmd --name '$bad': exit $status: $output"; false; }
			[ "$(echo "$output" | wc -l)" -eq 1 ]
			[[ "$output" == "cubicctl: $cmd: instance name '$bad' "* ]]
		done
		[ -z "$bad" ] || [ ! -e "$PINS/$bad" ]
		run registered "$bad"
		[ "$status" -ne 0 ] || [ -z "$bad" ]
	done
	run "$CUBICCTL" load --name -x
	[ "$output" = "cubicctl: load: instance name '-x' may hold only letters a-z and A-Z, digits and '_'" ]
	# and what the kernel takes is taken: capitals, a leading digit, '_', 15 characters
	for good in "${NAME}AZ" "9${NAME}" "${NAME}_b" "${NAME:0:12}xyz"; do
		EXTRA+=("$good")
		run "$CUBICCTL" load --name "$good"
		[ "$status" -eq 0 ] || { echo "load --name '$good': $output"; false; }
		registered "$good"
		run "$CUBICCTL" unload --name "$good"
		[ "$status" -eq 0 ]
		assert_gone "$good"
	done
}

# Writes abi_version $2 into instance $1's info map, keeping the rest.
set_abi() {
	local info=$PINS/$1/info v
	v=$(bpftool -j map lookup pinned "$info" key 0 0 0 0 | jq -r '.value[4:] | join(" ")')
	bpftool map update pinned "$info" key 0 0 0 0 value $(printf '0x%02x 0 0 0' "$2") $v
}

@test "an instance of another ABI: status says to reload, set/get/trace refuse, unload works" {
	"$CUBICCTL" load --name "$NAME"
	abi=$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].abi_version')
	[ "$abi" -ge 1 ] && [ "$abi" -ne 99 ]
	set_abi "$NAME" 99
	tun=$(bpftool -j map lookup pinned "$PINS/$NAME/tunables" key 0 0 0 0 | jq -c .value)
	run "$CUBICCTL" status --name "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$NAME: registered"* ]]
	[[ "$output" == *"abi       99, this cubicctl reads $abi: reload it"*"'cubicctl unload --name $NAME', then 'cubicctl load --name $NAME'"* ]]
	[[ "$output" != *"tunables  beta="* ]]
	run "$CUBICCTL" -j status --name "$NAME"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.instances[0].abi_version' <<<"$output")" = 99 ]
	[ "$(jq -r '.instances[0].abi_ok' <<<"$output")" = false ]
	[[ "$(jq -r '.instances[0].hint' <<<"$output")" == "reload it"* ]]
	[ "$(jq -r '.instances[0] | has("tunables")' <<<"$output")" = false ]
	for cmd in "set beta=700" "set preset=nussbaum-2011" "get" "get beta" "trace --count 1 --duration 1"; do
		run "$CUBICCTL" $cmd --name "$NAME"
		[ "$status" -eq 1 ] || { echo "$cmd: exit $status: $output"; false; }
		[ "$output" = "cubicctl: ${cmd%% *}: $NAME was loaded with ABI version 99 and this cubicctl reads version $abi, so it leaves its maps alone: reload it ('cubicctl unload --name $NAME', then 'cubicctl load --name $NAME')" ]
	done
	run "$CUBICCTL" -j get --name "$NAME"
	[ "$status" -eq 1 ]
	# nothing was written
	[ "$(bpftool -j map lookup pinned "$PINS/$NAME/tunables" key 0 0 0 0 | jq -c .value)" = "$tun" ]
	registered "$NAME"
	run "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 0 ]
	[ "$output" = "unloaded $NAME" ]
	assert_gone "$NAME"
}

@test "the CI guard fails when the tests unregister, retune or re-pin an instance" {
	guard="$REPO/tools/ci-guard.sh"
	state=$BATS_TEST_TMPDIR/guard
	"$CUBICCTL" load --name "$NAME"
	# untouched: passes, and leaves an instance it did not load loaded
	"$guard" before "$state" "$NAME"
	run "$guard" after "$state" "$NAME"
	[ "$status" -eq 0 ]
	registered "$NAME"
	# retuned
	"$guard" before "$state" "$NAME"
	"$CUBICCTL" set --name "$NAME" beta=700 >/dev/null
	run "$guard" after "$state" "$NAME"
	[ "$status" -eq 1 ]
	[[ "$output" == *"disturbed $NAME"* ]]
	[[ "$output" == *'+get: {"beta":700'* ]]
	[[ "$output" == *'+tunables: 0xbc 0x02 '* ]]
	# unloaded and loaded again: same name and tunables, new pins and maps
	"$CUBICCTL" set --name "$NAME" beta=717 >/dev/null
	"$guard" before "$state" "$NAME"
	"$CUBICCTL" unload --name "$NAME" >/dev/null
	"$CUBICCTL" load --name "$NAME" >/dev/null
	run "$guard" after "$state" "$NAME"
	[ "$status" -eq 1 ]
	[[ "$output" == *"+pin: $PINS/$NAME/ops inode"* ]]
	# unregistered
	"$guard" before "$state" "$NAME"
	"$CUBICCTL" unload --name "$NAME" >/dev/null
	run "$guard" after "$state" "$NAME"
	[ "$status" -eq 1 ]
	[[ "$output" == *"+registered: no"* ]]
	# it loads only bpf_cubic, as make load does
	run "$guard" before "$state" "$NAME"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$NAME is not loaded"* ]]
}
