#!/usr/bin/env bash
# Regenerate a series folder from the commits of a working tree, with
# 'git format-patch' and a cover letter.  The patch files are the product:
# never edit them by hand, edit the commits and run this.
#
#   scripts/export-series.sh linux|linux-split|qemu|spec [TREE]
#
# TREE defaults to the developer tree from scripts/devtree.sh.  The
# commits exported are base..HEAD; the cover letter's subject and text
# come from configs/cover-NAME.txt (first line subject, then the body).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then { echo "usage: $0 linux|linux-split|qemu|spec [TREE]" >&2; exit 2; }; fi
name=$1
tree=${2:-$GSO_CACHE/dev/$name}
case "$name" in
linux) out=$GSO_TOP/kernel-patches; prefix="PATCH net-next" ;;
linux-split) out=$GSO_TOP/kernel-split-patches; prefix="RFC PATCH net-next" ;;
qemu)  out=$GSO_TOP/qemu-patches; prefix=PATCH ;;
spec)  out=$GSO_TOP/spec; prefix=PATCH ;;
*) die "unknown series $name" ;;
esac
cover=$GSO_TOP/configs/cover-$name.txt
[ -d "$tree" ] || die "no working tree $tree (create it with scripts/devtree.sh $name)"
[ -f "$cover" ] || die "no cover letter text $cover"
git -C "$tree" rev-parse -q --verify base >/dev/null || die "$tree has no 'base' tag"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"
n=$(git -C "$tree" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "$tree has no commits on top of base"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git -C "$tree" branch -q -D gso-export-tmp 2>/dev/null || true' EXIT
git -C "$tree" branch -q -f gso-export-tmp HEAD
git -C "$tree" config branch.gso-export-tmp.description "$(cat "$cover")"
git -C "$tree" -c core.abbrev=12 format-patch -q --cover-letter \
	--cover-from-description=subject --subject-prefix="$prefix" \
	--zero-commit --no-signature --base=base \
	-o "$tmp" base..gso-export-tmp
git -C "$tree" config --unset branch.gso-export-tmp.description || true

find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
cp "$tmp"/*.patch "$out"/
log "exported $n patches and a cover letter to ${out#"$GSO_TOP"/}"
