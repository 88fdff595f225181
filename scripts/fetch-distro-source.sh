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
# When Debian's archive no longer serves the pinned version (it keeps the
# current ones only), the files come from snapshot.debian.org instead, by
# package name and version (its machine-readable API: /mr/binary/PKG/VER/
# binfiles or /mr/package/PKG/VER/srcfiles, then /file/HASH), and the
# same pinned sha256 decides.  A bad checksum, or neither source serving
# the file, ends with a message and a non-zero exit, and leaves nothing
# behind: downloads go to dl.tmp/ and become dl/ only once verified.
#
# Nothing is written beside the clone: everything lives in
# $GSO_CACHE/distro-src/NAME (downloads in dl/, the tree in tree/).  One
# lock per name: parallel callers wait, and a tree is only used once the
# stamp that ends a complete unpack exists.
#
# Environment (for tests, which point them at stand-ins):
#   GSO_DISTRO_TREES   the table (default configs/distro-trees.tsv)
#   GSO_SNAPSHOT_URL   snapshot.debian.org's address (default
#                      https://snapshot.debian.org)
#   GSO_DEBIAN_MIRROR  Debian's archive (default http://deb.debian.org/debian;
#                      a local mirror works too)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

table=${GSO_DISTRO_TREES:-$GSO_TOP/configs/distro-trees.tsv}
snapshot=${GSO_SNAPSHOT_URL:-https://snapshot.debian.org}
mirror=${GSO_DEBIAN_MIRROR:-http://deb.debian.org/debian}
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
mkdir -p "$top"
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
	printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' "$1" "$mirror" "$2"
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

# from_archive DIR: the pinned files from Debian's archive, with apt, into
# DIR.  Status 1 (and why, on stderr) when the archive does not serve them.
from_archive() {
	local dir=$1
	# Indices older than a day are refreshed; Debian's archive moves on.
	if [ -z "$(find "$A/lists" -maxdepth 1 -name '*Sources*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		log "apt-get update (trixie, trixie-backports, sid indices: ~35 MB, into $A)"
		apt-get "${APT_OPTS[@]}" update >&2 ||
			{ warn "Debian's archive ($mirror): apt-get update into $A failed"; return 1; }
	fi
	log "downloading $pkg $version ($kind) from Debian's archive"
	case "$kind" in
	deb) (cd "$dir" && apt-get "${APT_OPTS[@]}" download "$pkg=$version") >&2 ;;
	dsc) (cd "$dir" && apt-get "${APT_OPTS[@]}" source --download-only "$pkg=$version") >&2 ;;
	esac || { warn "Debian's archive ($mirror) does not serve $pkg=$version ($kind)"; return 1; }
	[ -f "$dir/$file" ] || { warn "Debian's archive ($mirror): the download gave no $file"; return 1; }
}

# from_snapshot DIR: the same files from snapshot.debian.org, found by
# package and version, into DIR.  A binary package: its file named $file;
# a source package: every file of the version (.dsc, tarballs), as
# dpkg-source needs them.
from_snapshot() {
	local dir=$1 api list hash name n=0
	local v=${version//:/%3A}
	case "$kind" in
	deb) api="$snapshot/mr/binary/$pkg/$v/binfiles?fileinfo=1" ;;
	dsc) api="$snapshot/mr/package/$pkg/$v/srcfiles?fileinfo=1" ;;
	esac
	log "downloading $pkg $version ($kind) from $snapshot"
	list=$(curl -fsS --retry 2 --max-time 60 "$api") ||
		{ warn "$snapshot has no $pkg $version ($api)"; return 1; }
	# "hash name" lines: every file of a source version; the one named
	# $file of a binary version (other architectures' files share it).
	while read -r hash name; do
		if [ -z "$hash" ] || [ "$name" != "${name##*/}" ]; then
			warn "$snapshot: unexpected file entry '$hash $name'"; return 1
		fi
		if [ "$kind" = deb ] && [ "$name" != "$file" ]; then continue; fi
		curl -fsS --retry 2 --max-time 3600 -o "$dir/$name" "$snapshot/file/$hash" ||
			{ warn "$snapshot: $name ($hash) failed to download"; return 1; }
		n=$((n + 1))
	done < <(jq -r '.fileinfo | to_entries[] | "\(.key) \(.value[0].name)"' <<< "$list" 2>/dev/null)
	if [ "$n" -eq 0 ] || [ ! -f "$dir/$file" ]; then
		warn "$snapshot lists no $file for $pkg $version"; return 1
	fi
}

if ! sum_ok "$top/dl/$file" "$want"; then
	# Into dl.tmp/, which becomes dl/ only once its file is verified.
	rm -rf "$top/dl.tmp"
	mkdir -p "$top/dl.tmp"
	if from_archive "$top/dl.tmp"; then
		got="Debian's archive"
	else
		rm -rf "$top/dl.tmp"
		mkdir -p "$top/dl.tmp"
		if from_snapshot "$top/dl.tmp"; then
			got=$snapshot
		else
			rm -rf "$top/dl.tmp"
			die "$pkg=$version ($file): neither Debian's archive nor $snapshot serves it (see the warnings above); check the version (apt-get source --print-uris / apt-get download --print-uris) and update ${table#"$GSO_TOP"/}"
		fi
	fi
	if ! sum_ok "$top/dl.tmp/$file" "$want"; then
		bad=$(sha256sum "$top/dl.tmp/$file" | cut -d' ' -f1)
		rm -rf "$top/dl.tmp"
		die "$file from $got: sha256 $bad, pinned $want: refusing it (nothing kept)"
	fi
	rm -rf "$top/dl"
	mv "$top/dl.tmp" "$top/dl"
	log "$file verified (sha256, from $got)"
fi

# unpack_failed WHY: nothing half-unpacked stays, nor the download that
# gave it (a .dsc's other files are verified only here, by dpkg-source):
# the next run fetches it again.
unpack_failed() {
	rm -rf "$top/unpack" "$top/dl"
	die "$1 (download removed: the next run fetches it again)"
}
rm -rf "$tree" "$top/.ok" "$top/unpack"
mkdir -p "$top/unpack"
log "unpacking $file"
case "$kind" in
deb)
	inner=./usr/src/$pkg.tar.xz
	dpkg-deb --fsys-tarfile "$top/dl/$file" | tar -xO "$inner" |
		tar -xJ -C "$top/unpack" --strip-components=1 ||
		unpack_failed "$file holds no $inner"
	mv "$top/unpack" "$tree"
	;;
dsc)
	# Without --require-valid-signature (Debian's developer keyring is not
	# needed): the pinned .dsc checksum is the trust anchor, and dpkg-source
	# still checks the checksums the .dsc lists.
	(cd "$top/unpack" && dpkg-source -x "$top/dl/$file" src) >&2 ||
		unpack_failed "dpkg-source -x $file failed (a file the .dsc lists is missing or has another checksum?)"
	mv "$top/unpack/src" "$tree"
	rm -rf "$top/unpack"
	;;
esac
echo "$want" > "$top/.ok"
log "$name ($pkg $version) in $tree"
echo "$tree"
