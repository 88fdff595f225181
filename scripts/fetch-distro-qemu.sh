#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetch a Debian QEMU source package the QEMU backports target, check it
# against the checksums pinned below, and print the directory holding its
# three files (.dsc, .orig.tar.xz, .debian.tar.xz).
#
#   scripts/fetch-distro-qemu.sh VERSION
#
# VERSION is a Debian version of the source package "qemu":
#   1:10.2.2+ds-1            the pinned base's own package (Debian's 10.2.2)
#   1:10.0.13+ds-0+deb13u1   Debian 13 (trixie)
# The files come from Debian's archive (deb.debian.org/debian/pool), as
# dget fetches them: the machines here have no deb-src lines for
# 'apt-get source'.  The pinned base's .orig is taken from BASES_DIR first
# (scripts/bases.sh).  Cached under $GSO_CACHE/distro/qemu_VERSION.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

POOL=${DEBIAN_POOL:-http://deb.debian.org/debian/pool/main/q/qemu}

# version  file  sha256 (from the package's .dsc, checked 2026-12-02)
PINS="\
1:10.2.2+ds-1 qemu_10.2.2+ds-1.dsc f1684b3aa5ec500c3389d346c6501dee45041ea91656c6556d4da9023b7987dd
1:10.2.2+ds-1 qemu_10.2.2+ds.orig.tar.xz be05230fe47a6937cd29f28f562932c8125f9c93c2a82c625198f7a4aa601dfb
1:10.2.2+ds-1 qemu_10.2.2+ds-1.debian.tar.xz ddf75aceab4f8f77374f3cb34fc97b41514895aeb293ce8b2ddd5e072bb0f5c0
1:10.0.13+ds-0+deb13u1 qemu_10.0.13+ds-0+deb13u1.dsc a426c892e5369058c3423816c8625bc8010bb5a58ece57261f62b64ee4d765ad
1:10.0.13+ds-0+deb13u1 qemu_10.0.13+ds.orig.tar.xz 6a0888e806c2ffc0c5f0733e974f9aea55491950d3c47c98669c8b236dde59ae
1:10.0.13+ds-0+deb13u1 qemu_10.0.13+ds-0+deb13u1.debian.tar.xz da73c092f5684c551b0334d675eb16a3dec91e1edea94759cfb1102fa4a0364e"

[ $# -eq 1 ] || { echo "usage: $0 VERSION (one of: $(awk '{ print $1 }' <<<"$PINS" | sort -u | tr '\n' ' '))" >&2; exit 2; }
version=$1
files=$(awk -v v="$version" '$1 == v { print $2 " " $3 }' <<<"$PINS")
[ -n "$files" ] || die "no pinned files for qemu $version"
out=$GSO_CACHE/distro/qemu_${version#*:}
mkdir -p "$out"
exec 9> "$GSO_CACHE/distro/.lock-qemu"
flock 9

ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
while read -r f sum; do
	[ -f "$out/.ok-$f" ] && [ -f "$out/$f" ] && continue
	if [ "$f" = qemu_10.2.2+ds.orig.tar.xz ] && base=$("$GSO_TOP/scripts/bases.sh" qemu 2>/dev/null); then
		ln -sfn "$base" "$out/$f"
	else
		log "downloading $f"
		curl -fsS -o "$out/$f.tmp" "$POOL/$f" || die "download of $POOL/$f failed"
		mv "$out/$f.tmp" "$out/$f"
	fi
	ok "$out/$f" "$sum" || { rm -f "$out/$f"; die "$f does not match its pinned sha256 $sum"; }
	touch "$out/.ok-$f"
done <<<"$files"
echo "$out"
