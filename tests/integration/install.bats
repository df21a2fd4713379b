#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Installed like a system tool: make install / uninstall into throw-away trees
# (never /), the man page, bash completion, the systemd unit template, and
# 'load --config', the file the unit loads an instance with.

load lib

setup() {
	ensure_fs
	NAME=$(test_name)
	NS=
	ROOT=$BATS_TEST_TMPDIR/root
	mkdir -p "$ROOT"
}

teardown() {
	[ -z "$NS" ] || ip netns del "$NS" 2>/dev/null || true
	instance_teardown "$NAME"
}

# make install/uninstall ARGS... from the checkout, without rebuilding
# cubicctl (another suite may be running it)
mk() {
	make -s -C "$REPO" -o cubicctl "$@"
}

# COMP_WORDS from the arguments, the last one being completed; COMPREPLY
# sorted, one a line, in $out
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_cubicctl
	out=$(printf '%s\n' "${COMPREPLY[@]}" | sort)
}

@test "make install DESTDIR PREFIX=/usr puts every file where stated, and the binary runs" {
	run mk install DESTDIR="$ROOT" PREFIX=/usr
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cd "$ROOT" && find . -type f | sort)" = "$(printf '%s\n' \
		./etc/cubicctl/example.conf \
		./usr/lib/systemd/system/cubicctl-metrics.service \
		./usr/lib/systemd/system/cubicctl-metrics.timer \
		./usr/lib/systemd/system/cubicctl@.service \
		./usr/sbin/cubicctl \
		./usr/share/bash-completion/completions/cubicctl \
		./usr/share/cubicctl/installed \
		./usr/share/man/man8/cubicctl.8)" ]
	[ "$(stat -c %a "$ROOT/usr/sbin/cubicctl")" = 755 ]
	for f in usr/share/man/man8/cubicctl.8 usr/lib/systemd/system/cubicctl@.service \
		usr/lib/systemd/system/cubicctl-metrics.service usr/lib/systemd/system/cubicctl-metrics.timer \
		usr/share/bash-completion/completions/cubicctl etc/cubicctl/example.conf; do
		[ "$(stat -c %a "$ROOT/$f")" = 644 ]
	done
	# the BPF object is inside the binary: the installed copy is the built one
	cmp "$ROOT/usr/sbin/cubicctl" "$CUBICCTL"
	run "$ROOT/usr/sbin/cubicctl" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: cubicctl "* ]]
	run "$ROOT/usr/sbin/cubicctl" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "cubicctl "*", ABI "* ]]
	# and it works from there (status reads the pins, as root)
	run "$ROOT/usr/sbin/cubicctl" -j status --name "$NAME"
	[ "$status" -eq 3 ]
}

@test "the installed man page renders without warnings, man finds it, and it matches cubicctl" {
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	page=$ROOT/usr/share/man/man8/cubicctl.8
	run groff -man -ww -z "$page"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(man -M "$ROOT/usr/share/man" -w cubicctl)" = "$page" ]
	MANWIDTH=80 man -M "$ROOT/usr/share/man" 8 cubicctl 2>/dev/null >"$BATS_TEST_TMPDIR/page.txt"
	grep -q '^NAME' "$BATS_TEST_TMPDIR/page.txt"
	grep -q -- '--config-optional FILE' "$BATS_TEST_TMPDIR/page.txt"
	grep -q '/sys/fs/bpf/cubicctl/NAME/tunables' "$BATS_TEST_TMPDIR/page.txt"
	# every command, option, key, preset and exit code of the installed binary
	run "$REPO/tools/doc/manpage.py" --cubicctl "$ROOT/usr/sbin/cubicctl" check "$page"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the man page check fails when a generated part or an option drifts" {
	cp "$REPO/docs/man/cubicctl.8" "$BATS_TEST_TMPDIR/a.8"
	sed -i 's/^\\fBbeta\\fR (default 717,/\\fBbeta\\fR (default 716,/' "$BATS_TEST_TMPDIR/a.8"
	run "$REPO/tools/doc/manpage.py" --cubicctl "$CUBICCTL" check "$BATS_TEST_TMPDIR/a.8"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a generated part differs from cubicctl"* ]]
	# 'make man' (update) repairs it
	"$REPO/tools/doc/manpage.py" --cubicctl "$CUBICCTL" update "$BATS_TEST_TMPDIR/a.8"
	cmp "$BATS_TEST_TMPDIR/a.8" "$REPO/docs/man/cubicctl.8"
	# an option of 'unload --help' taken out of unload's subsection
	awk '/^\.SS "cubicctl unload"/ { u = 1 } /^\.SS "cubicctl status"/ { u = 0 }
		u && /^\.B \\-\\-force$/ { print ".B \\-\\-strong"; next } { print }' \
		"$REPO/docs/man/cubicctl.8" >"$BATS_TEST_TMPDIR/b.8"
	! cmp -s "$BATS_TEST_TMPDIR/b.8" "$REPO/docs/man/cubicctl.8"
	run "$REPO/tools/doc/manpage.py" --cubicctl "$CUBICCTL" check "$BATS_TEST_TMPDIR/b.8"
	[ "$status" -eq 1 ]
	[[ "$output" == *"option --force of 'cubicctl unload --help' is not in its subsection"* ]]
}

@test "the unit gets the install's paths, and systemd-analyze verify accepts it" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze (Debian package systemd)"
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	unit=$ROOT/usr/lib/systemd/system/cubicctl@.service
	grep -qx 'ExecStart=/usr/sbin/cubicctl load --name %i --config-optional /etc/cubicctl/%i.conf' "$unit"
	grep -qx 'ExecStop=/usr/sbin/cubicctl unload --name %i --force' "$unit"
	! grep -n '@[A-Z]*@' "$unit" || false
	# in the tree: ExecStart's binary and the man page of Documentation= are
	# looked up under --root; any warning fails it, not only the exit status
	run env MANPATH="$ROOT/usr/share/man" systemd-analyze verify --root="$ROOT" "cubicctl@$NAME.service"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# against this system's own targets (ordering cycles with network-pre.target,
	# shutdown.target): the same unit with the tree's binary path
	mkdir "$BATS_TEST_TMPDIR/v"
	sed "s|=/usr/sbin/cubicctl |=$ROOT/usr/sbin/cubicctl |" "$unit" >"$BATS_TEST_TMPDIR/v/cubicctl@.service"
	ln -s cubicctl@.service "$BATS_TEST_TMPDIR/v/cubicctl@$NAME.service"
	run env MANPATH="$ROOT/usr/share/man" systemd-analyze verify "$BATS_TEST_TMPDIR/v/cubicctl@$NAME.service"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# and a broken unit is caught, so the two checks above can fail
	sed -i 's/^Before=network-pre.target/After=network-pre.target\n&/' "$BATS_TEST_TMPDIR/v/cubicctl@.service"
	run env MANPATH="$ROOT/usr/share/man" systemd-analyze verify "$BATS_TEST_TMPDIR/v/cubicctl@$NAME.service"
	[[ "$output" == *"ordering cycle"* ]]

	# another PREFIX and SYSCONFDIR: the unit says so
	mk install DESTDIR="$ROOT/b" PREFIX=/usr/local SYSCONFDIR=/etc/x >/dev/null
	grep -qx 'ExecStart=/usr/local/sbin/cubicctl load --name %i --config-optional /etc/x/cubicctl/%i.conf' \
		"$ROOT/b/usr/local/lib/systemd/system/cubicctl@.service"
	[ -f "$ROOT/b/etc/x/cubicctl/example.conf" ]
}

@test "what the unit runs loads %i from its NAME.conf and unloads it, even as a default" {
	# a tree of its own, no DESTDIR: the unit's paths are real ones in it
	mk install PREFIX="$ROOT/usr" SYSCONFDIR="$ROOT/etc" >"$BATS_TEST_TMPDIR/log" 2>&1
	grep -q "systemd does not read units from $ROOT/usr/lib/systemd/system" "$BATS_TEST_TMPDIR/log"
	unit=$ROOT/usr/lib/systemd/system/cubicctl@.service
	start=$(sed -n 's/^ExecStart=//p' "$unit" | sed "s/%i/$NAME/g")
	stop=$(sed -n 's/^ExecStop=//p' "$unit" | sed "s/%i/$NAME/g")
	# no NAME.conf: the defaults, said on stderr
	run $start
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no $ROOT/etc/cubicctl/$NAME.conf: the defaults apply"* ]]
	[ "$("$CUBICCTL" -j get --name "$NAME" | jq .tunables.ack_train_shift)" -eq 4 ]
	run $stop
	[ "$status" -eq 0 ]
	assert_gone "$NAME"
	# with NAME.conf
	printf 'preset=hystart++\ndatapath=fast\nack_train_shift=2\n' >"$ROOT/etc/cubicctl/$NAME.conf"
	run $start
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "loaded $NAME, fast datapath, settings of $ROOT/etc/cubicctl/$NAME.conf "* ]]
	[ "$("$CUBICCTL" -j get --name "$NAME" | jq -c '.tunables | [.hystart, .ack_train_shift]')" = "[2,2]" ]
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].datapath')" = fast ]
	# ExecStop unloads it even while it is a namespace's default (from
	# inside that namespace, as the host's default would be for the unit)
	NS=bcti$(( $$ % 100000 ))$(( RANDOM % 1000 ))
	ip netns add "$NS"
	ip netns exec "$NS" sysctl -qw net.ipv4.tcp_congestion_control="$NAME"
	run nsenter --net="/run/netns/$NS" $stop
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unloaded $NAME"* ]]
	assert_gone "$NAME"
	[ "$(ip netns exec "$NS" sysctl -n net.ipv4.tcp_congestion_control)" = reno ]
	# stopped again, or unloaded by hand before: exit 3, which the unit counts as success
	run $stop
	[ "$status" -eq 3 ]
	grep -qx 'SuccessExitStatus=3' "$unit"
	mk uninstall PREFIX="$ROOT/usr" SYSCONFDIR="$ROOT/etc" >/dev/null
}

@test "make uninstall removes what install put and the folders it made, and nothing else" {
	# folders that were there before, and a user's config
	mkdir -p "$ROOT/usr/sbin" "$ROOT/usr/share/man" "$ROOT/etc"
	before=$(cd "$ROOT" && find . | sort)
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null # twice: the first one's record is kept
	run mk uninstall DESTDIR="$ROOT" PREFIX=/usr
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cd "$ROOT" && find . | sort)" = "$before" ]

	# a user's NAME.conf and a changed example stay, and so does their folder
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	echo 'beta=800' >"$ROOT/etc/cubicctl/mine.conf"
	echo '#ack_train_shift=3' >>"$ROOT/etc/cubicctl/example.conf"
	cp "$ROOT/etc/cubicctl/example.conf" "$BATS_TEST_TMPDIR/changed"
	run mk install DESTDIR="$ROOT" PREFIX=/usr
	[[ "$output" == *"KEEP     /etc/cubicctl/example.conf (changed since it was installed"* ]]
	cmp "$ROOT/etc/cubicctl/example.conf" "$BATS_TEST_TMPDIR/changed"
	run mk uninstall DESTDIR="$ROOT" PREFIX=/usr
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$ROOT/etc/cubicctl/mine.conf")" = beta=800 ]
	cmp "$ROOT/etc/cubicctl/example.conf" "$BATS_TEST_TMPDIR/changed"
	[ "$(cd "$ROOT" && find . -type f | sort)" = "$(printf '%s\n' ./etc/cubicctl/example.conf ./etc/cubicctl/mine.conf)" ]
	[ ! -e "$ROOT/usr/share/cubicctl" ] && [ ! -e "$ROOT/usr/lib" ]

	# a fresh tree is empty again
	mk install DESTDIR="$BATS_TEST_TMPDIR/fresh" PREFIX=/usr >/dev/null
	mk uninstall DESTDIR="$BATS_TEST_TMPDIR/fresh" PREFIX=/usr >/dev/null
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/fresh")" ]
}

@test "make install refuses a relative PREFIX and writes nothing" {
	run mk install DESTDIR="$ROOT" PREFIX=usr
	[ "$status" -ne 0 ]
	[[ "$output" == *"PREFIX='usr' is not an absolute path"* ]]
	[ -z "$(ls -A "$ROOT")" ]
}

@test "bash completion: commands, options, keys, presets, datapaths, a loaded instance, a namespace" {
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	comp=$ROOT/usr/share/bash-completion/completions/cubicctl
	bash -n "$comp"
	source "$comp"
	[[ "$(complete -p cubicctl)" == *"-F _cubicctl cubicctl" ]]
	bin=$ROOT/usr/sbin/cubicctl

	complete_words "$bin" ""
	[ "$out" = "$(printf '%s\n' attach detach flows get help load policers set status trace unload upgrade)" ]
	complete_words "$bin" -j st
	[ "$out" = status ]
	complete_words "$bin" --ver
	[ "$out" = "$(printf '%s\n' --verbose --version)" ]
	complete_words "$bin" unload --
	[ "$out" = "$(printf '%s\n' --force --help --json --name --verbose)" ]
	complete_words "$bin" upgrade --
	[ "$out" = "$(printf '%s\n' --help --json --name --verbose)" ]
	# help COMMAND; load's datapath= as a config file's line
	complete_words "$bin" help st
	[ "$out" = status ]
	complete_words "$bin" load datapath=f
	[ "$out" = datapath=fast ]
	complete_words "$bin" load --con
	[ "$out" = "$(printf '%s\n' --config --config-optional)" ]
	complete_words "$bin" status --name x --p
	[ "$out" = --prometheus ]
	# keys as KEY= (bash split at '=' or not), and get's bare keys
	complete_words "$bin" set hystart_l
	[ "$out" = hystart_low_window= ]
	complete_words "$bin" load --name x ack
	[ "$out" = ack_train_shift= ]
	complete_words "$bin" get css
	[ "$out" = "$(printf '%s\n' css_growth_divisor css_rounds)" ]
	[ "$(complete_words "$bin" set ''; echo "$out" | wc -l)" -eq "$(("$("$bin" help --markdown | grep -c '^| `')" + 1))" ]
	# presets: after --preset, after preset= (as bash splits it: preset = hy)
	complete_words "$bin" load --preset ""
	[ "$out" = "$(printf '%s\n' hystart++ linux nussbaum-2011 off predict predict-jump search)" ]
	complete_words "$bin" set preset = hy
	[ "$out" = hystart++ ]
	complete_words "$bin" set preset =
	[ "$out" = "$(printf '%s\n' hystart++ linux nussbaum-2011 off predict predict-jump search)" ]
	complete_words "$bin" set preset=nu
	[ "$out" = preset=nussbaum-2011 ]
	complete_words "$bin" load --preset = o
	[ "$out" = off ]
	# datapaths
	complete_words "$bin" load --datapath ""
	[ "$out" = "$(printf '%s\n' exact fast)" ]
	complete_words "$bin" load --ring-size ""
	[ -z "$out" ]
	# a loaded instance, after --name of any command but load
	"$CUBICCTL" load --name "$NAME"
	complete_words "$bin" status --name "${NAME:0:6}"
	grep -qx "$NAME" <<<"$out"
	! grep -v "^${NAME:0:6}" <<<"$out"
	complete_words "$bin" set --name = "${NAME:0:6}"
	grep -qx "$NAME" <<<"$out"
	complete_words "$bin" upgrade --name "${NAME:0:6}"
	grep -qx "$NAME" <<<"$out"
	complete_words "$bin" load --name "${NAME:0:6}"
	[ -z "$out" ]
	# flows: its options, and a named network namespace after --netns
	complete_words "$bin" flows --
	[ "$out" = "$(printf '%s\n' --help --json --name --netns --verbose)" ]
	NS=${NAME}n
	ip netns add "$NS"
	complete_words "$bin" flows --netns "${NS:0:6}"
	grep -qx "$NS" <<<"$out"
	! grep -v "^${NS:0:6}" <<<"$out"
	# through PATH, as an installed command is typed
	PATH="$ROOT/usr/sbin:$PATH" complete_words cubicctl trace --d
	[ "$out" = --duration ]
}

@test "bash completion in an interactive bash: what the line becomes after TAB" {
	mk install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
	"$CUBICCTL" load --name "$NAME"
	part=${NAME:0:$((${#NAME} - 1))}
	run env PATH="$ROOT/usr/sbin:$PATH" "$REPO/tests/integration/typetab.py" \
		"$ROOT/usr/share/bash-completion/completions/cubicctl" \
		'cubicctl st\t' \
		'cubicctl unload --f\t' \
		'cubicctl set hspp_ack\t16' \
		'cubicctl set preset=\th\t' \
		'cubicctl load --preset=n\t' \
		'cubicctl load --preset \tof\t' \
		'cubicctl load --datapath f\t' \
		"cubicctl status --name=$part\\t" \
		"cubicctl get --name $part\\t"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' \
		'cubicctl status' \
		'cubicctl unload --force' \
		'cubicctl set hspp_ack_limit=16' \
		'cubicctl set preset=hystart++' \
		'cubicctl load --preset=nussbaum-2011' \
		'cubicctl load --preset off' \
		'cubicctl load --datapath fast' \
		"cubicctl status --name=$NAME" \
		"cubicctl get --name $NAME")" ]
}

@test "bash completion needs no root for commands, options and keys" {
	script="source '$REPO/tools/completion/cubicctl.bash'
		COMP_WORDS=('$CUBICCTL' st); COMP_CWORD=1; _cubicctl; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=('$CUBICCTL' trace --c); COMP_CWORD=2; _cubicctl; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=('$CUBICCTL' set hspp_a); COMP_CWORD=2; _cubicctl; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=('$CUBICCTL' status --name ''); COMP_CWORD=3; _cubicctl; echo \"[\${COMPREPLY[*]}]\""
	run setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$script"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = status ]
	[ "${lines[1]}" = --count ]
	[[ "${lines[2]}" == *hspp_ack_limit=*hspp_after_idle=* ]]
	[ "${lines[3]}" = "[]" ] # the pin folders are root's
}

@test "load --config: a test instance gets the file's values, the command line overrides" {
	conf=$BATS_TEST_TMPDIR/$NAME.conf
	cat >"$conf" <<-EOF
		# settings for a test instance
		preset=nussbaum-2011

		  beta = 800
		hystart_low_window=32
		datapath=fast
	EOF
	run "$CUBICCTL" load --name "$NAME" --config "$conf" hystart_low_window=64
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "loaded $NAME, fast datapath, settings of $conf (pins in /sys/fs/bpf/cubicctl/$NAME)" ]]
	t=$("$CUBICCTL" get --name "$NAME" -j | jq -c .tunables)
	[ "$(jq .beta <<<"$t")" -eq 800 ]			# the file's key
	[ "$(jq .ack_train_shift <<<"$t")" -eq 2 ]		# the file's preset
	[ "$(jq .delay_thresh_shift <<<"$t")" -eq 0 ]
	[ "$(jq .hystart_low_window <<<"$t")" -eq 64 ]	# the command line over the file
	[ "$(jq .bic_scale <<<"$t")" -eq 41 ]		# the rest: defaults
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].datapath')" = fast ]
	"$CUBICCTL" unload --name "$NAME"

	# --datapath and --preset on the command line: the preset replaces the file's keys too
	run "$CUBICCTL" -j load --name "$NAME" --config "$conf" --datapath exact --preset off
	[ "$status" -eq 0 ]
	[ "$(jq -r .config <<<"$output")" = "$conf" ]
	t=$("$CUBICCTL" get --name "$NAME" -j | jq -c .tunables)
	[ "$(jq .hystart <<<"$t")" -eq 0 ]
	[ "$(jq .beta <<<"$t")" -eq 717 ]
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].datapath')" = exact ]
	"$CUBICCTL" unload --name "$NAME"

	# the installed example, uncommented, is a valid config (its attach= lines name
	# services this machine may not have: attach.bats loads such lines)
	sed '/^#attach=/!s/^#\([a-z_]*=\)/\1/' "$REPO/tools/systemd/example.conf" >"$BATS_TEST_TMPDIR/example.conf"
	grep -q '^preset=' "$BATS_TEST_TMPDIR/example.conf"
	run "$CUBICCTL" load --name "$NAME" --config "$BATS_TEST_TMPDIR/example.conf"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "load --config: a bad line or a missing file exits 2, naming it, and loads nothing" {
	conf=$BATS_TEST_TMPDIR/bad.conf
	for bad in "nosuch=1" "beta=1024" "beta=700 # comment" "preset=warp" "datapath=slow" \
		"beta" "beta=1=2"; do
		printf '# ok so far\nbeta=800\n%s\n' "$bad" >"$conf"
		run "$CUBICCTL" load --name "$NAME" --config "$conf"
		echo "$bad -> $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cubicctl: load: $conf:3: "* ]]
		assert_gone "$NAME"
	done
	printf 'beta=800\nbeta=801\n' >"$conf"
	run "$CUBICCTL" load --name "$NAME" --config "$conf"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$conf:2: key 'beta' given twice (first on line 1)"* ]]
	# a rule spanning keys, broken by the file alone
	printf 'delay_thresh_min_us=20000\n' >"$conf"
	run "$CUBICCTL" load --name "$NAME" --config "$conf"
	[ "$status" -eq 2 ]
	[[ "$output" == "cubicctl: load: $conf: delay_thresh_min_us (20000) must not exceed"* ]]
	assert_gone "$NAME"
	# ... and mended by the command line
	run "$CUBICCTL" load --name "$NAME" --config "$conf" delay_thresh_max_us=30000
	[ "$status" -eq 0 ]
	"$CUBICCTL" unload --name "$NAME"

	run "$CUBICCTL" load --name "$NAME" --config "$BATS_TEST_TMPDIR/none.conf"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--config: $BATS_TEST_TMPDIR/none.conf does not exist"* ]]
	run "$CUBICCTL" load --name "$NAME" --config "$BATS_TEST_TMPDIR"
	[ "$status" -eq 2 ]
	[[ "$output" == *"can't read $BATS_TEST_TMPDIR: Is a directory"* ]]
	run "$CUBICCTL" load --name "$NAME" --config "$conf" --config-optional "$conf"
	[ "$status" -eq 2 ]
	[ "$output" = "cubicctl: load: --config-optional: not together with --config (one or the other)" ]
	assert_gone "$NAME"
	# --config-optional: absent is the defaults, present is read
	run "$CUBICCTL" -j load --name "$NAME" --config-optional "$BATS_TEST_TMPDIR/none.conf"
	[ "$status" -eq 0 ]
	[ "$(jq -r .config <<<"${lines[-1]}")" = null ]
	"$CUBICCTL" unload --name "$NAME"
	printf 'beta=1024\n' >"$conf"
	run "$CUBICCTL" load --name "$NAME" --config-optional "$conf"
	[ "$status" -eq 2 ]
	assert_gone "$NAME"
}

@test "cubicctl-metrics.timer: its service writes what node_exporter reads, and systemd-analyze accepts both" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze (Debian package systemd)"
	tf=$BATS_TEST_TMPDIR/textfile
	mkdir -p "$tf"
	mk install DESTDIR="$ROOT" PREFIX=/usr TEXTFILEDIR="$tf" >/dev/null
	svc=$ROOT/usr/lib/systemd/system/cubicctl-metrics.service
	grep -qx "ConditionPathIsDirectory=$tf" "$svc"
	! grep -n '@[A-Z]*@' "$svc" || false
	# against this system's targets (the pair has default dependencies:
	# sysinit.target, timers.target), as installed but for the binary's path
	mkdir "$BATS_TEST_TMPDIR/v"
	sed "s|/usr/sbin/cubicctl |$ROOT/usr/sbin/cubicctl |" "$svc" >"$BATS_TEST_TMPDIR/v/cubicctl-metrics.service"
	cp "$ROOT/usr/lib/systemd/system/cubicctl-metrics.timer" "$BATS_TEST_TMPDIR/v/"
	run env MANPATH="$ROOT/usr/share/man" systemd-analyze verify \
		"$BATS_TEST_TMPDIR/v/cubicctl-metrics.service" "$BATS_TEST_TMPDIR/v/cubicctl-metrics.timer"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# the service's command, run by hand with the tree's binary: a whole file
	# appears under its final name, with a loaded test instance up
	"$CUBICCTL" load --name "$NAME" >/dev/null
	cmd=$(sed -n "s|^ExecStart=/bin/sh -c '\(.*\)'$|\1|p" "$svc")
	[ -n "$cmd" ]
	/bin/sh -c "${cmd//\/usr\/sbin\/cubicctl/$ROOT/usr/sbin/cubicctl}"
	[ "$(ls "$tf")" = cubicctl.prom ]
	grep -q "^bpf_cubic_up{name=\"$NAME\"} 1$" "$tf/cubicctl.prom"
}
