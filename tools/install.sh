#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install / make uninstall (README.md "Install"):
#   tools/install.sh install     cubicctl, its man page, bash completion,
#                                systemd unit template and example config
#   tools/install.sh uninstall   takes exactly those away again
# The Makefile passes DESTDIR PREFIX SBINDIR MANDIR BASHCOMPDIR SYSTEMDUNITDIR
# SYSCONFDIR; uninstall needs the same ones install had.
#
# install records what it put in place in $PREFIX/share/cubicctl/installed:
# each file, the folders that did not exist before it, and the checksum of the
# example config it wrote. uninstall removes those files, the example config
# only if it is unchanged, and then those folders if they are empty: never a
# folder that was there before (/usr/local/sbin), never a user's file in
# $SYSCONFDIR/cubicctl.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${DESTDIR=}" "${PREFIX:=/usr/local}" "${SYSCONFDIR:=/etc}"
: "${SBINDIR:=$PREFIX/sbin}" "${MANDIR:=$PREFIX/share/man}"
: "${BASHCOMPDIR:=$PREFIX/share/bash-completion/completions}"
: "${SYSTEMDUNITDIR:=$PREFIX/lib/systemd/system}"

BIN=$SBINDIR/cubicctl
MAN=$MANDIR/man8/cubicctl.8
COMP=$BASHCOMPDIR/cubicctl
UNIT=$SYSTEMDUNITDIR/cubicctl@.service
MUNIT=$SYSTEMDUNITDIR/cubicctl-metrics.service
MTIMER=$SYSTEMDUNITDIR/cubicctl-metrics.timer
# where Debian's prometheus-node-exporter reads *.prom files
: "${TEXTFILEDIR:=/var/lib/prometheus/node-exporter}"
CONF=$SYSCONFDIR/cubicctl/example.conf
MANIFEST=$PREFIX/share/cubicctl/installed

die() {
	echo "install.sh: $*" >&2
	exit "${rc:-1}"
}

for v in PREFIX SYSCONFDIR SBINDIR MANDIR BASHCOMPDIR SYSTEMDUNITDIR; do
	[[ ${!v} == /* ]] || rc=2 die "$v='${!v}' is not an absolute path"
done
[ -z "$DESTDIR" ] || [[ $DESTDIR == /* ]] || DESTDIR=$(pwd)/$DESTDIR

tmp=
trap '[ -z "$tmp" ] || rm -f "$tmp"' EXIT

sum() {
	sha256sum "$1" | cut -d' ' -f1
}

# mkdir -p DESTDIR/$1, adding each folder it made to the array made[]
made=()
make_dir() {
	local d=$1 missing=()
	while [ "$d" != / ] && [ ! -d "$DESTDIR$d" ]; do
		missing=("$d" "${missing[@]}")
		d=$(dirname "$d")
	done
	for d in "${missing[@]}"; do
		mkdir -m 755 "$DESTDIR$d"
		made+=("$d")
	done
}

# Whether systemd reads unit files from $1 (its unit search path).
systemd_reads() {
	local paths
	paths=$(systemd-analyze unit-paths 2>/dev/null) ||
		paths=$(printf '%s\n' /etc/systemd/system /usr/local/lib/systemd/system \
			/lib/systemd/system /usr/lib/systemd/system)
	grep -qxF "${1%/}" <<<"$paths"
}

do_install() {
	local f kind rest old_dirs=() old_conf="" conf_sum line
	for f in cubicctl docs/man/cubicctl.8 tools/completion/cubicctl.bash \
		tools/systemd/cubicctl@.service.in tools/systemd/example.conf \
		tools/systemd/cubicctl-metrics.service.in tools/systemd/cubicctl-metrics.timer; do
		[ -f "$f" ] || die "$f is missing (run 'make' first)"
	done
	# a second install keeps the first one's record of the folders it made
	if [ -f "$DESTDIR$MANIFEST" ]; then
		while read -r kind rest; do
			case $kind in
			dir) old_dirs+=("$rest") ;;
			conf) [ "${rest#* }" != "$CONF" ] || old_conf=${rest%% *} ;;
			esac
		done <"$DESTDIR$MANIFEST"
	fi
	[ -z "$DESTDIR" ] || mkdir -p "$DESTDIR"
	for f in "$BIN" "$MAN" "$COMP" "$UNIT" "$CONF" "$MANIFEST"; do
		make_dir "$(dirname "$f")"
	done

	install -m 755 cubicctl "$DESTDIR$BIN"
	install -m 644 docs/man/cubicctl.8 "$DESTDIR$MAN"
	install -m 644 tools/completion/cubicctl.bash "$DESTDIR$COMP"
	tmp=$(mktemp)
	line=$(<tools/systemd/cubicctl@.service.in)
	line=${line//@SBINDIR@/$SBINDIR}
	line=${line//@SYSCONFDIR@/$SYSCONFDIR}
	printf '%s\n' "$line" >"$tmp"
	install -m 644 "$tmp" "$DESTDIR$UNIT"
	line=$(<tools/systemd/cubicctl-metrics.service.in)
	line=${line//@SBINDIR@/$SBINDIR}
	line=${line//@TEXTFILEDIR@/$TEXTFILEDIR}
	printf '%s\n' "$line" >"$tmp"
	install -m 644 "$tmp" "$DESTDIR$MUNIT"
	install -m 644 tools/systemd/cubicctl-metrics.timer "$DESTDIR$MTIMER"
	for f in "$BIN" "$MAN" "$COMP" "$UNIT" "$MUNIT" "$MTIMER"; do
		echo "  INSTALL  $f"
	done

	# The example config: written if absent or if it is the one we wrote
	# before; a file the user has changed is kept as it is.
	if [ -e "$DESTDIR$CONF" ] && ! cmp -s tools/systemd/example.conf "$DESTDIR$CONF" &&
		[ "$(sum "$DESTDIR$CONF")" != "$old_conf" ]; then
		echo "  KEEP     $CONF (changed since it was installed;" \
			"the new example is tools/systemd/example.conf)"
		conf_sum=
	else
		install -m 644 tools/systemd/example.conf "$DESTDIR$CONF"
		echo "  INSTALL  $CONF"
		conf_sum=$(sum "$DESTDIR$CONF")
	fi

	{
		echo "# what 'make install' put here, for 'make uninstall' (tools/install.sh)"
		for f in "$BIN" "$MAN" "$COMP" "$UNIT" "$MUNIT" "$MTIMER"; do
			echo "file $f"
		done
		[ -z "$conf_sum" ] || echo "conf $conf_sum $CONF"
		for f in "${old_dirs[@]}" "${made[@]}"; do
			echo "dir $f"
		done | sort -u
	} >"$tmp"
	install -m 644 "$tmp" "$DESTDIR$MANIFEST"

	if ! systemd_reads "$SYSTEMDUNITDIR"; then
		echo "install.sh: note: systemd does not read units from $SYSTEMDUNITDIR;" \
			"install with SYSTEMDUNITDIR=/etc/systemd/system for cubicctl@.service" >&2
	fi
	if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
		echo "install.sh: 'systemctl daemon-reload' makes systemd see cubicctl@.service" >&2
	fi
}

do_uninstall() {
	local f kind rest files=() dirs=() conf="" conf_sum="" d
	if [ -f "$DESTDIR$MANIFEST" ]; then
		while read -r kind rest; do
			case $kind in
			file) files+=("$rest") ;;
			conf) conf_sum=${rest%% *} conf=${rest#* } ;;
			dir) dirs+=("$rest") ;;
			esac
		done <"$DESTDIR$MANIFEST"
	else
		# no record (another PREFIX or DESTDIR, or it was deleted): the
		# files by name, the example config if it is ours, no folder
		echo "install.sh: no $DESTDIR$MANIFEST: removing the installed files by name" >&2
		files=("$BIN" "$MAN" "$COMP" "$UNIT" "$MUNIT" "$MTIMER")
		conf=$CONF
		[ ! -f "$DESTDIR$CONF" ] || ! cmp -s tools/systemd/example.conf "$DESTDIR$CONF" ||
			conf_sum=$(sum "$DESTDIR$CONF")
	fi
	for f in "${files[@]}"; do
		if [ -e "$DESTDIR$f" ] || [ -L "$DESTDIR$f" ]; then
			rm -f "$DESTDIR$f"
			echo "  REMOVE   $f"
		fi
	done
	[ -n "$conf" ] || conf=$CONF # install kept a changed one: say so below
	if [ -f "$DESTDIR$conf" ]; then
		if [ -n "$conf_sum" ] && [ "$(sum "$DESTDIR$conf")" = "$conf_sum" ]; then
			rm -f "$DESTDIR$conf"
			echo "  REMOVE   $conf"
		else
			echo "  KEEP     $conf (changed since it was installed)"
		fi
	fi
	rm -f "$DESTDIR$MANIFEST"
	# the folders install made, deepest first, if nothing else is in them
	while IFS= read -r d; do
		[ -n "$d" ] && [ -d "$DESTDIR$d" ] || continue
		if rmdir "$DESTDIR$d" 2>/dev/null; then
			echo "  RMDIR    $d"
		else
			echo "  KEEP     $d (not empty)"
		fi
	done < <(printf '%s\n' "${dirs[@]}" | awk '{ print length($0) "\t" $0 }' | sort -rn |
		cut -f2-)
}

case "${1:-}" in
install) do_install ;;
uninstall) do_uninstall ;;
*) rc=2 die "usage: tools/install.sh install|uninstall (see the Makefile)" ;;
esac
