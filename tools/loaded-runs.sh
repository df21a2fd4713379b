#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test under load, as CI runs it, several times in a row (issue 23: the
# suite decides every time, also on a busy machine). Not part of make test.
#
#   sudo tools/loaded-runs.sh [-n RUNS] [-o DIR] [-l 'LOAD COMMAND'] [-t TARGET]
#
# Starts LOAD (default: stress-ng --cpu 2, both CPUs of these machines busy),
# then RUNS times (default 5), one after another: a fresh clone of this
# checkout's HEAD, make, tools/ci-guard.sh before (a user's bpf_cubic loaded as
# `sudo make load` loads it), make test (make TARGET: -t test-quick checks the
# setup in minutes), tools/ci-guard.sh after. LOAD runs from
# before the first clone to after the last guard. One line per run goes to
# DIR/summary (default /tmp/loaded-runs) and stdout: exit status, seconds of
# make test, its total, the difftest scenarios the guest decided and those
# left inconclusive, and the suite times; each run's log is DIR/run-N.log,
# what LOAD printed DIR/load.log.
#
# Exit 0 if every run passed (make test and the guard) with no difftest
# scenario inconclusive, 1 if one did not, 2 for bad usage (not root, no
# stress-ng, bad RUNS).
set -u
cd "$(dirname "$0")/.."
repo=$PWD
runs=5
out=/tmp/loaded-runs
load='stress-ng --cpu 2 --quiet'
target=test

usage() {
	echo "usage: sudo tools/loaded-runs.sh [-n RUNS] [-o DIR] [-l 'LOAD COMMAND'] [-t TARGET]" >&2
	exit 2
}

while getopts n:o:l:t:h opt; do
	case $opt in
	n) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	l) load=$OPTARG ;;
	t) target=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "loaded-runs: -n wants a number of runs, 1 or more, not '$runs'" >&2; exit 2; }
[[ $target =~ ^test(-[a-z]+)?$ ]] && make -s -n "$target" >/dev/null 2>&1 ||
	{ echo "loaded-runs: -t wants a test target of the Makefile (test, test-quick), not '$target'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "loaded-runs: make test needs root: run it with sudo" >&2; exit 2; }
read -ra argv <<<"$load"
command -v "${argv[0]:-}" >/dev/null ||
	{ echo "loaded-runs: '${argv[0]:-}' is not installed (apt-get install stress-ng, or name another load with -l)" >&2; exit 2; }
mkdir -p "$out" || exit 2

clone=$(mktemp -d /tmp/loaded-runs.XXXXXX)
state=
lp=
stop() {
	[ -z "$lp" ] || { kill -- "-$lp" 2>/dev/null || kill "$lp" 2>/dev/null; wait "$lp" 2>/dev/null; }
	[ -z "$state" ] || { (cd "$clone/src" 2>/dev/null && tools/ci-guard.sh after "$state"); rm -rf "$state"; }
	rm -rf "$clone"
}
trap 'stop; exit 130' INT TERM
trap stop EXIT

setsid "${argv[@]}" >"$out/load.log" 2>&1 &
lp=$!
echo "loaded-runs: $runs run(s) of make $target on $(git -C "$repo" rev-parse --short HEAD) beside '$load'; logs in $out" >&2
bad=0
for i in $(seq "$runs"); do
	log=$out/run-$i.log
	rm -rf "$clone/src"
	if ! git clone -q "$repo" "$clone/src" || ! make -s -C "$clone/src" >"$log" 2>&1; then
		echo "run $i: the clone or make failed ($log)" | tee -a "$out/summary"
		bad=1
		continue
	fi
	state=$(mktemp -d)
	(cd "$clone/src" && tools/ci-guard.sh before "$state") >>"$log" 2>&1
	t0=$SECONDS
	(cd "$clone/src" && make "$target") >>"$log" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
	(cd "$clone/src" && tools/ci-guard.sh after "$state") >>"$log" 2>&1 || rc=1
	rm -rf "$state"
	state=
	inc=$(grep -c 'inconclusive, counted' "$log")
	[ "$rc" -eq 0 ] && [ "$inc" -eq 0 ] || bad=1
	echo "run $i ($(git -C "$clone/src" rev-parse --short HEAD), ended $(date -u +%H:%M)): exit $rc, $secs s;" \
		"$(grep '^total:' "$log" | tail -n 1); guest: $(grep -o '[0-9]* of [0-9]* played again in the guest' "$log");" \
		"inconclusive: $inc; $(grep -o 'suite times.*' "$log" | tail -n 1)" | tee -a "$out/summary"
done
exit $bad
