#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Print the path of a verified pinned base tarball: linux, qemu or spec.
#
#   scripts/bases.sh linux|qemu|spec
#
# Looked for in BASES_DIR (default ../shared/bases), then in the cache.
# When absent from both, the Debian archive is tried (qemu: the source
# package, linux: linux-source-7.2); whatever is found is checked against
# the checksums pinned in configs/bases.sha256 before it is used.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 linux|qemu|spec" >&2; exit 2; }
[ $# -eq 1 ] || usage

case "$1" in
linux) file=linux-7.2.13-trimmed.tar.xz ;;
qemu)  file=qemu_10.2.2+ds.orig.tar.xz ;;
spec)  file=virtio-spec-15f488c.tar.xz ;;
*) usage ;;
esac
want=$(base_sum "$file")
[ -n "$want" ] || die "no pinned checksum for $file in configs/bases.sha256"

dl="$GSO_CACHE/bases"
mkdir -p "$dl"

# Verifying 140 MB costs half a second; remember a verified file by its
# size and mtime so repeated calls stay instant.
verified() {
	local f=$1 stamp="$dl/.ok-${1##*/}" id
	[ -f "$f" ] || return 1
	id=$(stat -c '%s %Y' "$f")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(realpath "$f") $id" ]; then
		return 0
	fi
	if [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$want" ]; then
		echo "$(realpath "$f") $id" > "$stamp"
		return 0
	fi
	warn "$f does not match the pinned sha256 $want: ignored"
	return 1
}

for cand in "$BASES_DIR/$file" "$dl/$file"; do
	if verified "$cand"; then
		realpath "$cand"
		exit 0
	fi
done

# Fallback: Debian's archive.  Works while Debian still carries the exact
# versions (see ../shared/bases/README.md); checked against the same pins.
fetch_linux() {
	local tmp deb inner
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	log "fetching linux-source-7.2=7.2.13-1 from Debian"
	(cd "$tmp" && apt-get download -q linux-source-7.2=7.2.13-1) >&2 ||
		return 1
	deb=$(ls "$tmp"/linux-source-7.2_7.2.13-1_all.deb)
	[ "$(sha256sum "$deb" | cut -d' ' -f1)" = \
	  30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d ] ||
		{ warn "downloaded .deb has an unexpected checksum"; return 1; }
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO ./usr/src/linux-source-7.2.tar.xz > "$tmp/inner.tar.xz"
	inner=$(sha256sum "$tmp/inner.tar.xz" | cut -d' ' -f1)
	[ "$inner" = ecb3877b9988c936dcc64c63af8a54c2fa6df7f717d4e5ee429d0f4c4859e68b ] ||
		{ warn "linux-source-7.2.tar.xz has an unexpected checksum"; return 1; }
	# The untrimmed tree: the series apply to it equally.  Its top folder
	# is linux-source-7.2; tree.sh accepts any single top folder.
	mv "$tmp/inner.tar.xz" "$dl/linux-source-7.2.tar.xz"
	realpath "$dl/linux-source-7.2.tar.xz"
}

fetch_qemu() {
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	log "fetching the qemu 1:10.2.2+ds-1 source package from Debian"
	(cd "$tmp" && apt-get source -q --download-only qemu=1:10.2.2+ds-1) >&2 ||
		return 1
	cp "$tmp/$file" "$dl/$file"
	verified "$dl/$file" && realpath "$dl/$file"
}

case "$1" in
linux)
	if [ -f "$dl/linux-source-7.2.tar.xz" ]; then
		realpath "$dl/linux-source-7.2.tar.xz"; exit 0
	fi
	fetch_linux && exit 0 ;;
qemu) fetch_qemu && exit 0 ;;
esac

die "base $file not found: put it in BASES_DIR ($BASES_DIR) or in $dl;" \
    "expected sha256 $want (see ../shared/bases/README.md for where it comes from)"
