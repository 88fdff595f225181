#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetch a distribution's source tree named in configs/distro-trees.tsv,
# verify it against the checksum pinned there, unpack it under the cache
# and print the unpacked tree's path.
#
#   scripts/fetch-distro-source.sh NAME      e.g. linux-6.12.117, qemu-10.0.13
#   scripts/fetch-distro-source.sh --list    the names the table knows
#
# Downloads go through apt with a configuration of its own under
# $GSO_CACHE/apt (Debian 13 "trixie", trixie-backports and sid, binary
# and source indices), so the machine's apt sources are left alone and a
# Debian 12 host can fetch Debian 13's trees.  A "deb" entry is a binary
# linux-source-X package: the tree is its /usr/src tarball, Debian's
# patches already applied.  A "dsc" entry is a source package: the .dsc's
# pinned checksum vouches for the files it lists, which dpkg-source -x
# verifies while it unpacks and applies Debian's patches (debian/ and the
# quilt state .pc/ stay in the tree, as a packager has them).
#
# Nothing is written beside the clone: everything lives in
# $GSO_CACHE/distro-src/NAME (downloads in dl/, the tree in tree/).  One
# lock per name: parallel callers wait, and a tree is only used once the
# stamp that ends a complete unpack exists.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

table=$GSO_TOP/configs/distro-trees.tsv
usage() { echo "usage: $0 NAME|--list  (names: configs/distro-trees.tsv)" >&2; exit 2; }
[ $# -eq 1 ] || usage
if [ "$1" = --list ]; then
	awk -F'\t' '!/^#/ && NF >= 6 { print $1 }' "$table"
	exit 0
fi
name=$1
row=$(awk -F'\t' -v n="$name" '!/^#/ && $1 == n' "$table")
[ -n "$row" ] || die "no tree '$name' in ${table#"$GSO_TOP"/} (known: $("$0" --list | tr '\n' ' '))"
IFS=$'\t' read -r _ kind pkg version file want <<< "$row"
[[ $want =~ ^[0-9a-f]{64}$ ]] || die "bad sha256 for $name in $table"

top=$GSO_CACHE/distro-src/$name
tree=$top/tree
mkdir -p "$top/dl"
exec 9> "$top/.lock"
flock 9
# The stamp holds the pinned checksum: a changed table entry re-fetches.
if [ -f "$top/.ok" ] && [ "$(cat "$top/.ok")" = "$want" ] && [ -d "$tree" ]; then
	echo "$tree"
	exit 0
fi

# apt with our own sources and state; as root, apt's download sandbox user
# cannot write under a root-owned cache, so downloads run as the caller.
A=$GSO_CACHE/apt
mkdir -p "$A/etc" "$A/lists/partial" "$A/archives/partial"
deb_line() {
	printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' "$@"
}
{
	deb_line deb trixie; deb_line deb-src trixie
	deb_line deb trixie-backports; deb_line deb-src trixie-backports
	deb_line deb-src sid
} > "$A/etc/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$A/etc/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$A/lists" -o "Dir::Cache::Archives=$A/archives"
	-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Architecture=amd64
	-o APT::Sandbox::User="$(id -un)" -q)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	die "no /usr/share/keyrings/debian-archive-keyring.gpg (apt-get install debian-archive-keyring)"

sum_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

if ! sum_ok "$top/dl/$file" "$want"; then
	# Indices older than a day are refreshed; Debian's archive moves on.
	if [ -z "$(find "$A/lists" -maxdepth 1 -name '*Sources*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		log "apt-get update (trixie, trixie-backports, sid indices: ~35 MB, into $A)"
		apt-get "${APT_OPTS[@]}" update >&2 || die "apt-get update for $A failed"
	fi
	rm -f "$top/dl/"*
	log "downloading $pkg $version ($kind)"
	case "$kind" in
	deb) (cd "$top/dl" && apt-get "${APT_OPTS[@]}" download "$pkg=$version") >&2 ||
		die "$pkg=$version: download failed; Debian's archive may have dropped it (check with: apt-get source --print-uris / apt-get download --print-uris; then update configs/distro-trees.tsv)" ;;
	dsc) (cd "$top/dl" && apt-get "${APT_OPTS[@]}" source --download-only "$pkg=$version") >&2 ||
		die "$pkg=$version: source download failed; Debian's archive may have dropped it (update configs/distro-trees.tsv)" ;;
	*) die "unknown kind '$kind' for $name" ;;
	esac
	[ -f "$top/dl/$file" ] || die "the download gave no $file (have: $(cd "$top/dl" && echo *))"
	sum_ok "$top/dl/$file" "$want" ||
		die "$file: sha256 $(sha256sum "$top/dl/$file" | cut -d' ' -f1), pinned $want: refusing it"
fi

rm -rf "$tree" "$top/.ok" "$top/unpack"
mkdir -p "$top/unpack"
log "unpacking $file"
case "$kind" in
deb)
	inner=./usr/src/$pkg.tar.xz
	dpkg-deb --fsys-tarfile "$top/dl/$file" | tar -xO "$inner" |
		tar -xJ -C "$top/unpack" --strip-components=1 ||
		die "$file holds no $inner"
	mv "$top/unpack" "$tree"
	;;
dsc)
	# Without --require-valid-signature (Debian's developer keyring is not
	# needed): the pinned .dsc checksum is the trust anchor, and dpkg-source
	# still checks the checksums the .dsc lists.
	(cd "$top/unpack" && dpkg-source -x "$top/dl/$file" src) >&2 ||
		die "dpkg-source -x $file failed"
	mv "$top/unpack/src" "$tree"
	rm -rf "$top/unpack"
	;;
esac
echo "$want" > "$top/.ok"
log "$name ($pkg $version) in $tree"
echo "$tree"
