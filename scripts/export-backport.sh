#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate a backport's folders from the commits of its tree: the
# scripts/export-series.sh of backports/.  The folders are the product;
# never edit them by hand, edit the commits (scripts/backport-tree.sh
# --dev DIR TARGET) and run this.
#
#   scripts/export-backport.sh [--series split|guest] [--output DIR] TARGET [TREE]
#
# TREE defaults to the tree scripts/backport-tree.sh builds from the
# committed folder (so a run without TREE must reproduce the folders:
# tests/t07-backports.sh relies on it).  Writes, under
# backports/TARGET/ (or DIR):
#   SERIES/NNNN-*.patch    git format-patch of base..HEAD, subject
#                          prefix "PATCH TARGET"
#   SERIES.ports           one line a patch: the backport's file, the
#                          main series' file it ports, that file's
#                          patch-id (git patch-id --stable) when exported,
#                          and "same" or "differs" (the backport's own
#                          patch-id against it).  t07 tells a stale
#                          backport by the patch-id.
#   debian/patches/gso-SERIES/NNNN-*.patch
#                          the same patches as a quilt series with DEP-3
#                          headers (scripts/dep3.sh: Description, Author,
#                          Origin, Forwarded, Last-Update), for a
#                          packaged tree
#   debian/patches/series  the quilt series lines (split only: the
#                          host-side fix is what packagers take)
# SERIES is split (main: kernel-split-patches/, the default) or guest
# (main: kernel-event-patches/ then kernel-patches/, stacked as in
# scripts/tree.sh's linux-stack).  A patch that differs from the one it ports
# must say why in its commit message, in a line starting "[ Backport".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/dep3.sh
. "$(dirname "$0")/dep3.sh"

usage() { echo "usage: $0 [--series split|guest] [--output DIR] TARGET [TREE]" >&2; exit 2; }
series=split out=''
while [ $# -gt 0 ]; do
	case "$1" in
	--series) [ $# -ge 2 ] || usage; series=$2; shift 2 ;;
	--output) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
target=$1
case "$series" in
split) main=kernel-split-patches ;;
guest) main="kernel-event-patches kernel-patches" ;;
*) usage ;;
esac
out=${out:-$GSO_TOP/backports/$target}
if [ $# -eq 2 ]; then
	tree=$2
else
	tree=$("$GSO_TOP/scripts/backport-tree.sh" "$target" "$GSO_TOP/backports/$target/$series")
fi
[ -d "$tree" ] || die "no tree $tree"
git -C "$tree" rev-parse -q --verify base >/dev/null || die "$tree has no 'base' tag"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"
n=$(git -C "$tree" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "$tree has no commits on top of base"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" -c core.abbrev=12 format-patch -q --subject-prefix="PATCH $target" \
	--zero-commit --no-signature -o "$tmp/fp" base..HEAD

# patch_id FILE: the stable patch-id of a patch file (line numbers and
# whitespace do not count; context and changed lines do).
patch_id() { git patch-id --stable < "$1" | cut -d' ' -f1; }
# subject FILE: the subject without its [PATCH ...] prefix.
subject() { git mailinfo -k /dev/null /dev/null < "$1" | sed -n 's/^Subject: //p' |
	sed 's/^\[[^]]*\] *//'; }

declare -A main_of=()
for d in $main; do
	for m in "$GSO_TOP/$d"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "${m##*/}" = 0000-cover-letter.patch ] && continue
		main_of[$(subject "$m")]=${m#"$GSO_TOP"/}
	done
done

mkdir -p "$tmp/deb/gso-$series"
: > "$tmp/ports"
for p in "$tmp"/fp/*.patch; do
	f=${p##*/}
	s=$(subject "$p")
	m=${main_of[$s]:-}
	[ -n "$m" ] || die "$f: no patch of $main has the subject '$s' (a backport keeps its original's subject)"
	mid=$(patch_id "$GSO_TOP/$m")
	if [ "$(patch_id "$p")" = "$mid" ]; then
		how=same
	else
		how=differs
		grep -q '^\[ Backport' "$p" ||
			die "$f differs from $m but its message has no '[ Backport ... ]' line saying why"
	fi
	printf '%s\t%s\t%s\t%s\n' "$f" "$m" "$mid" "$how" >> "$tmp/ports"

	# The quilt copy: scripts/dep3.sh's DEP-3 header, Origin the
	# format-patch file it is made from, Backport-of the main patch.
	dep3_write "$p" "$tmp/deb/gso-$series/$f" "backports/$target/$series/$f" "$m"
	echo "gso-$series/$f" >> "$tmp/series"
done

mkdir -p "$out/$series"
find "$out/$series" -maxdepth 1 -name '*.patch' -delete
cp "$tmp"/fp/*.patch "$out/$series/"
cp "$tmp/ports" "$out/$series.ports"
if [ "$series" = split ]; then
	rm -rf "$out/debian/patches/gso-$series"
	mkdir -p "$out/debian/patches"
	cp -r "$tmp/deb/gso-$series" "$out/debian/patches/"
	cp "$tmp/series" "$out/debian/patches/series"
fi
log "exported $n patches of $target ($series) to ${out#"$GSO_TOP"/}"
