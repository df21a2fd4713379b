#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the test suites and ends with one line "total: N passed, N failed".
#   tests/run.sh unit          host unit tests (build/unit/test_*, tests/unit/test_*.py), no root
#   tests/run.sh integration   bats suites in tests/integration, as root
#   tests/run.sh all           both
#   tests/run.sh quick         unit tests, the docs checks and one integration test per
#                              suite (tests/quick.list): make test-quick, a few minutes
# Set TESTS="name.bats ..." to run some integration suites only. difftest.bats
# plays in a side lane beside the others (below; TESTS_SERIAL=1: in turn).
set -u
cd "$(dirname "$0")/.."

pass=0
fail=0
skip=0
times=()	# each integration suite's run time, printed at the end
failed=()	# what failed, named again at the end (a CI log keeps only its tail)

run_unit() {
	local b out rc line
	# the C tests (built by make) and the tools' Python library (tests/unit/test_pylib.py)
	for b in build/unit/test_* tests/unit/test_*.py; do
		[ -x "$b" ] || continue
		out=$("$b" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		line=$(printf '%s\n' "$out" | grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
		if [ -n "$line" ]; then
			pass=$((pass + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
			fail=$((fail + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$line")))
		fi
		# a crash (sanitizer, signal) with no summary is one failure
		if [ $rc -ne 0 ] && [ -z "$line" ]; then
			fail=$((fail + 1))
		fi
		if [ $rc -ne 0 ]; then
			failed+=("$(basename "$b")")
		fi
	done
}

# docs/TUNABLES.md's tunables table is the one cubicctl prints from the tunables table.
# docs_verdict STATUS WHAT MESSAGE: one docs check counted; MESSAGE on stdout
# when STATUS is 0, else on stderr, and WHAT named among the failures
docs_verdict() {
	if [ "$1" -eq 0 ]; then
		echo "$3"
		pass=$((pass + 1))
	else
		echo "$3" >&2
		fail=$((fail + 1))
		failed+=("docs: $2")
	fi
}

run_docs() {
	local want got out= s bad=() rc
	/usr/bin/python3 tests/docs_check.py
	docs_verdict $? tests/docs_check.py "docs: tests/docs_check.py: links, code map and examples match the tree"
	want=$(./cubicctl help --markdown)
	got=$(sed -n '/<!-- tunables:begin -->/,/<!-- tunables:end -->/p' docs/TUNABLES.md | sed '1d;$d')
	if [ "$want" = "$got" ]; then
		docs_verdict 0 "" "docs: docs/TUNABLES.md tunables table matches 'cubicctl help --markdown'"
	else
		docs_verdict 1 "docs/TUNABLES.md tunables table" "docs: docs/TUNABLES.md tunables table differs from 'cubicctl help --markdown':"
		diff <(echo "$want") <(echo "$got") >&2
	fi
	# tests/quick.list names one test of every suite (make test-quick fails
	# otherwise; a renamed test once left it naming none, unseen by make test)
	for s in tests/integration/*.bats; do
		quick_filter "$(basename "$s")" >/dev/null || bad+=("$(basename "$s")")
	done
	if [ ${#bad[@]} -eq 0 ]; then
		docs_verdict 0 "" "docs: tests/quick.list names one test of every integration suite"
	else
		docs_verdict 1 tests/quick.list "docs: tests/quick.list names no test of ${bad[*]} (a test renamed? make test-quick would fail)"
	fi
	# docs/man/cubicctl.8: its generated parts, every command and option, and no
	# groff warning
	tools/doc/manpage.py check docs/man/cubicctl.8 &&
		out=$(groff -man -ww -z docs/man/cubicctl.8 2>&1) && [ -z "$out" ]
	rc=$?
	if [ $rc -eq 0 ]; then
		docs_verdict 0 "" "docs: docs/man/cubicctl.8 matches cubicctl and renders without warnings"
	else
		docs_verdict 1 docs/man/cubicctl.8 "docs: docs/man/cubicctl.8 differs from cubicctl or groff warns: ${out:-}"
	fi
}

# QUICK=1: the test tests/quick.list names for each suite, alone
quick_filter() { # SUITE -> a bats --filter regex matching exactly its quick test
	local name
	name=$(awk -F'\t' -v s="$1" '$1 == s { print $2 }' tests/quick.list)
	[ -n "$name" ] || return 1
	grep -qF "@test \"$name\"" "tests/integration/$1" || return 1
	printf '^%s$' "$(sed 's/[][\.*^$+?(){}|/]/\\&/g' <<<"$name")"
}

# count_suite SUITE OUT SECONDS: add a played suite's TAP (in OUT) to the totals
count_suite() {
	local s=$1 out=$2 line
	times+=("$(basename "$s" .bats)=$3")
	pass=$((pass + $(grep -cE '^ok [0-9]+ ' "$out" | tr -d ' ') - $(grep -cE '^ok [0-9]+ .*# skip' "$out")))
	skip=$((skip + $(grep -cE '^ok [0-9]+ .*# skip' "$out")))
	fail=$((fail + $(grep -cE '^not ok [0-9]+ ' "$out")))
	while IFS= read -r line; do
		failed+=("$(basename "$s"): ${line#not ok }")
	done < <(grep -E '^not ok [0-9]+ ' "$out")
	# a suite that died before its plan was met counts as a failure
	if ! grep -qE '^1\.\.[0-9]+' "$out"; then
		fail=$((fail + 1))
		failed+=("$(basename "$s"): died before its plan")
	fi
}

# The side lane: suites that play beside the others instead of after them, when
# a whole run (not QUICK, more than one suite) includes them, one after another
# in the order named here. difftest.bats waits on its peer's clock most of its
# 12-15 minutes and takes what the host's load makes it miss to a qemu guest
# (tools/difftest/README.md), so it shares the machine with the rest instead of
# adding its time to theirs, and plays first. After it come suites that run no
# emulated path (two paths at once would share the delay daemon's polled CPU,
# tools/emu) and need no quiet machine: they fill the lane's slack (the difftest
# lane took 806 s beside the others' 1176 s in a CI-like run) instead of the
# main lane's time. Each lane suite's TAP is kept in a file and printed, and
# counted, once the other suites are done. TESTS_SERIAL=1 plays every suite in
# turn; TESTS_SIDE_LANE="a.bats ..." names the side lane's suites instead.
read -ra SIDE_LANE <<<"${TESTS_SIDE_LANE-difftest.bats attach.bats controlplane.bats foundation.bats install.bats}"
lane_pid=
lane_dir=

lane_stop() { # an interrupted run: the side lane's bats gets the same signal
	[ -n "$lane_pid" ] || return 0
	pkill -INT -P "$lane_pid" 2>/dev/null
	wait "$lane_pid" 2>/dev/null
	lane_pid=
}

run_integration() {
	local suites=() main=() side=() s out line filter t0 n
	if [ "$(id -u)" -ne 0 ]; then
		echo "integration: these tests need root (network namespaces, BPF): run 'sudo make test'" >&2
		fail=$((fail + 1))
		return
	fi
	if [ -n "${TESTS:-}" ]; then
		for s in $TESTS; do suites+=("tests/integration/$s"); done
	else
		suites=(tests/integration/*.bats)
	fi
	# the side lane's suites, in SIDE_LANE's order (difftest.bats first); the
	# rest in the main lane
	if [ -z "${QUICK:-}" ] && [ -z "${TESTS_SERIAL:-}" ] && [ ${#suites[@]} -gt 1 ]; then
		for n in "${SIDE_LANE[@]}"; do
			for s in "${suites[@]}"; do
				[ -f "$s" ] && [ "$(basename "$s")" = "$n" ] && side+=("$s")
			done
		done
	fi
	for s in "${suites[@]}"; do
		[ -f "$s" ] && [[ " ${side[*]} " != *" $s "* ]] && main+=("$s")
	done
	if [ ${#side[@]} -gt 0 ]; then
		lane_dir=$(mktemp -d)
		trap 'lane_stop; rm -rf "$lane_dir"; exit 130' INT TERM
		echo "== side lane: ${side[*]##*/} play beside the other suites; their results follow (TESTS_SERIAL=1: in turn)"
		(
			for s in "${side[@]}"; do
				n=$(basename "$s")
				t0=$SECONDS
				# a background job ignores SIGINT; bats needs it for its teardown
				env --default-signal=INT bats --tap --timing "$s" >"$lane_dir/$n.out" 2>&1
				echo $((SECONDS - t0)) >"$lane_dir/$n.time"
			done
		) &
		lane_pid=$!
	fi
	for s in "${main[@]}"; do
		echo "== $s"
		filter=()
		if [ -n "${QUICK:-}" ]; then
			if ! line=$(quick_filter "$(basename "$s")"); then
				echo "quick: tests/quick.list names no test of $(basename "$s")" >&2
				fail=$((fail + 1))
				failed+=("$(basename "$s"): no test in tests/quick.list")
				continue
			fi
			filter=(--filter "$line")
		fi
		out=$(mktemp)
		t0=$SECONDS
		BCT_QUICK=${QUICK:-} bats --tap --timing "${filter[@]}" "$s" 2>&1 | tee "$out"
		echo "== $(basename "$s"): $((SECONDS - t0)) s"
		count_suite "$s" "$out" $((SECONDS - t0))
		rm -f "$out"
	done
	if [ -n "$lane_pid" ]; then
		[ ${#main[@]} -eq 0 ] || echo "== waiting for the side lane (${side[*]##*/})"
		wait "$lane_pid"
		lane_pid=
		trap - INT TERM
		for s in "${side[@]}"; do
			n=$(basename "$s")
			echo "== $s (side lane)"
			touch "$lane_dir/$n.out"
			cat "$lane_dir/$n.out"
			echo "== $n: $(cat "$lane_dir/$n.time" 2>/dev/null || echo '?') s, beside the others"
			count_suite "$s" "$lane_dir/$n.out" "$(cat "$lane_dir/$n.time" 2>/dev/null || echo 0)"
		done
		rm -rf "$lane_dir"
	fi
}

case "${1:-all}" in
unit) run_unit; run_docs ;;
integration) run_integration ;;
all) run_unit; run_docs; run_integration ;;
quick) QUICK=1; run_unit; run_docs; run_integration ;;
*) echo "usage: tests/run.sh [unit|integration|all|quick]" >&2; exit 2 ;;
esac

for f in "${failed[@]}"; do
	echo "FAILED: $f"
done
if [ ${#times[@]} -gt 0 ]; then
	printf 'suite times, s:'
	printf ' %s' "${times[@]}"
	printf '; tests/run.sh %s s\n' "$SECONDS"
fi
echo "total: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
