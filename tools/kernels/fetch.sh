#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Download one of Debian's kernel packages and keep what a qemu guest needs.
#
#   tools/kernels/fetch.sh SERIES     SERIES: 6.1 or 6.12 (the newest package
#                                     of that series apt knows), or a package
#                                     name (linux-image-6.1.0-57-amd64)
#
# Prints the cache folder on stdout: boot/vmlinuz-KVER, boot/config-KVER, and
# modules/*.ko (decompressed: busybox insmod reads no .ko.xz), in
# $BCTK_CACHE (default ${XDG_CACHE_HOME:-/var/cache}/bpf_cubic/kernels)/PKG_VERSION/.
# A complete folder is reused: nothing is downloaded twice.
set -euo pipefail

CACHE=${BCTK_CACHE:-${XDG_CACHE_HOME:-/var/cache}/bpf_cubic/kernels}
# What the guest loads (tools/kernels/init, in its order): virtio and 9p for
# the host's root filesystem, overlay for a writable one on top, veth and
# sch_netem for the suite's lossy path, inet_diag and tcp_diag for ss and
# tcpwatch (TCP_INFO over sock_diag), tun for tools/difftest. A cached folder
# made for another list is made again.
MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache"
MODULES+=" 9pnet 9pnet_virtio 9p overlay veth sch_netem inet_diag tcp_diag tun"

die() {
	echo "fetch.sh: $*" >&2
	exit 1
}

# newest PATTERN: the newest package apt knows whose name matches PATTERN
newest() {
	apt-cache search --names-only "$1" | awk '{ print $1 }' | sort -V | tail -n 1
}

[ $# -eq 1 ] || die "usage: tools/kernels/fetch.sh 6.1|6.12|PACKAGE"
case $1 in
6.1) pattern='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.12) pattern='^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
linux-image-*) pattern="^$(sed 's/[.+]/\\&/g' <<<"$1")\$" ;;
*) die "'$1' is not 6.1, 6.12 or a linux-image package" ;;
esac
pkg=$(newest "$pattern")
if [ -z "$pkg" ]; then
	# a fresh machine's package lists may predate the package
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(newest "$pattern")
fi
[ -n "$pkg" ] || die "apt knows no package matching $pattern (is bookworm-backports in the sources, for 6.12?)"
ver=$(apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' | head -n 1)
dir=$CACHE/${pkg}_$ver
if [ -e "$dir/.complete" ] && [ "$(cat "$dir/modules.list" 2>/dev/null)" = "$MODULES" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$CACHE"
tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "fetch.sh: downloading $pkg $ver" >&2
# apt's sandbox user may not write here; it then downloads as root (and says so)
(cd "$tmp" && apt-get download -q "$pkg=$ver" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) ||
	die "apt-get download $pkg=$ver failed"
deb=$(ls "$tmp"/*.deb)
mkdir -p "$tmp/x" "$tmp/out/boot" "$tmp/out/modules"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/vmlinuz-*' './boot/config-*' \
	'./lib/modules/*/kernel/*' 2>/dev/null ||
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/vmlinuz-*' './boot/config-*' \
		'./usr/lib/modules/*/kernel/*'
rm -f "$deb"
mv "$tmp"/x/boot/vmlinuz-* "$tmp"/x/boot/config-* "$tmp/out/boot/"
kver=$(find "$tmp/out/boot" -name 'vmlinuz-*' -printf '%f\n' | sed -n 's/^vmlinuz-//p')
[ -n "$kver" ] || die "$pkg has no /boot/vmlinuz-*"
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$tmp/out/boot/config-$kver" || die "$kver has no BTF (CONFIG_DEBUG_INFO_BTF)"
for m in $MODULES; do
	f=$(find "$tmp/x" -name "$m.ko" -o -name "$m.ko.xz" | head -n 1)
	# built in (6.12 builds in virtio_pci and fscache): nothing to load
	[ -n "$f" ] || continue
	case $f in
	*.xz) xz -dc "$f" >"$tmp/out/modules/$m.ko" ;;
	*) cp "$f" "$tmp/out/modules/$m.ko" ;;
	esac
done
echo "$pkg $ver $kver" >"$tmp/out/package"
echo "$MODULES" >"$tmp/out/modules.list"
touch "$tmp/out/.complete"
rm -rf "$dir"
mv "$tmp/out" "$dir"
echo "$dir"
