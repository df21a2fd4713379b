#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build, tests and evaluation need, if missing.
# Usage: tools/deps.sh [build|test|eval|kernels]
#   test includes build, eval includes test; kernels (qemu, busybox and cpio to
#   boot Debian's kernels in a VM: make test-kernels, and make test's difftest,
#   which plays a scenario the host could not decide in one) is part of test.
set -euo pipefail

build_pkgs="clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libnetfilter-queue-dev pkg-config make gcc libc6-dev"
test_pkgs="iperf3 ethtool iproute2 bats nftables iptables iputils-ping jq procps util-linux python3 python3-matplotlib python3-prometheus-client curl groff-base man-db"
eval_pkgs=""
kernels_pkgs="qemu-system-x86 busybox-static cpio xz-utils"

want=$build_pkgs
case "${1:-build}" in
build) ;;
test|kernels) want="$want $test_pkgs $kernels_pkgs" ;;
eval) want="$want $test_pkgs $kernels_pkgs $eval_pkgs" ;;
*) echo "deps.sh: unknown level '$1' (build, test, eval or kernels)" >&2; exit 2 ;;
esac

missing=()
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}; run 'sudo make deps' once" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
