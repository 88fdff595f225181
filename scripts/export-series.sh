#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate a series folder from the commits of a working tree, with
# 'git format-patch' and a cover letter.  The patch files are the product:
# never edit them by hand, edit the commits and run this.
#
# A series of one patch has no cover letter (netdev's rule, and git
# send-email's habit: "[PATCH net-next]", not "[PATCH net-next 1/1]" and a
# 0/1): what a reviewer needs is in its commit message, and the notes a
# cover letter would carry (how it was tested, the related series, the
# changes since an earlier posting) are its commit message's part after a
# "---" line, which format-patch writes below the patch's "---" where git
# am drops it (scripts/devtree.sh keeps it in the working tree).
#
#   scripts/export-series.sh [--signoff "Name <addr>"] [--output DIR] [--drop-notes] \
#       linux|linux-event|linux-split|qemu|qemu-test|spec [TREE]
#
# TREE defaults to the developer tree from scripts/devtree.sh.  The
# commits exported are base..HEAD (qemu-test: the commits after those of
# qemu-patches/, which its tree has first); the cover letter's subject and text
# come from configs/cover-NAME.txt (first line subject, then the body),
# which a one-patch series does not have.
#
# Recipients: the Linux and QEMU series get To:/Cc: headers from the
# tree's own scripts/get_maintainer.pl, per patch, and the cover letter
# the union of them, as a submitter would pass to git send-email; the
# spec goes to virtio-comment.
#
# base-commit: only where the base is a real upstream commit (the spec).
# The Linux and QEMU bases are release tarballs imported as one local
# commit, whose id means nothing upstream: their cover letters name the
# release instead ("based on v7.2.13").  A one-patch series carries it at
# the end of its patch, where format-patch --base puts it.
#
# --signoff "Name <addr>": a submitter re-signs the whole series in one
# step: every patch gets their Signed-off-by (after the project's, as
# 'git rebase --signoff' would add it).  --output DIR writes the series
# there instead of the project's folder (a submitter's copy).
#
# Notes are not dropped silently: if the folder about to be overwritten
# has a patch with notes (lines between its message's first "---" and the
# "---" before the diffstat) whose new export, the patch of the same title
# (its file name after the number), has none, nothing is written and the
# export fails naming the patch: the tree's commit lacks its "---" part,
# as a tree not made by scripts/devtree.sh does.  A patch whose title
# changed is not compared.  --drop-notes exports anyway, for when
# dropping them is intended.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [--signoff \"Name <addr>\"] [--output DIR] [--drop-notes] linux|linux-event|linux-split|qemu|qemu-test|spec [TREE]" >&2
	exit 2
}
signoff='' out='' drop_notes=''
while [ $# -gt 0 ]; do
	case "$1" in
	--signoff) [ $# -ge 2 ] || usage; signoff=$2; shift 2 ;;
	--output) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--drop-notes) drop_notes=1; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
if [ -n "$signoff" ] && ! [[ $signoff =~ ^[^\<\>]+\ \<[^\<\>@\ ]+@[^\<\>\ ]+\>$ ]]; then
	die "--signoff wants \"Full Name <user@example.org>\", got '$signoff'"
fi
name=$1
tree=${2:-$GSO_CACHE/dev/$name}
# folder, subject prefix, upstream base commit (empty: a release tarball).
# The version is in the prefix, not format-patch -v, which would rename the
# files (v2-0001-...) out of tree.sh's reach.  RFC while the specification
# change is a proposal; the series with a v1->v2 changelog say v2.
case "$name" in
linux)
	folder=$GSO_TOP/kernel-patches; prefix="RFC PATCH net-next v3"; upstream_base= ;;
linux-event)
	folder=$GSO_TOP/kernel-event-patches; prefix="PATCH net-next"; upstream_base= ;;
linux-split)
	folder=$GSO_TOP/kernel-split-patches; prefix="RFC PATCH net-next v3"; upstream_base= ;;
qemu)
	folder=$GSO_TOP/qemu-patches; prefix="RFC PATCH v3"; upstream_base= ;;
qemu-test)
	folder=$GSO_TOP/qemu-test-patches; prefix="TEST PATCH"; upstream_base= ;;
spec)
	folder=$GSO_TOP/spec; prefix="PATCH v3"
	upstream_base=15f488c162107f7b52fb2e4d0f36a2349fe9d3a9 ;;
*) die "unknown series $name" ;;
esac
out=${out:-$folder}
mkdir -p "$out"
cover=$GSO_TOP/configs/cover-$name.txt
[ -d "$tree" ] || die "no working tree $tree (create it with scripts/devtree.sh $name)"
git -C "$tree" rev-parse -q --verify base >/dev/null || die "$tree has no 'base' tag"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"
from=base
if [ "$name" = qemu-test ]; then
	# The test devices stack on qemu-patches/: export only what follows it.
	nq=$(find "$GSO_TOP/qemu-patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | wc -l)
	from=$(git -C "$tree" rev-list --reverse base..HEAD | sed -n "${nq}p")
	[ "$nq" -eq 0 ] && from=base
	[ -n "$from" ] || die "$tree has fewer commits than qemu-patches/"
fi
n=$(git -C "$tree" rev-list --count "$from..HEAD")
[ "$n" -gt 0 ] || die "$tree has no commits on top of $from"
if [ "$n" -eq 1 ]; then
	[ ! -f "$cover" ] || die "$name is one patch, sent without a cover letter: \
move what ${cover#"$GSO_TOP"/} says into the commit message (why) or \
below its '---' (notes), and delete the file"
else
	[ -f "$cover" ] || die "no cover letter text $cover"
fi

tmp=$(mktemp -d)
# A branch of our own: linux and linux-split trees share one repository,
# and two exports may run at once.
tmpbranch=gso-export-$name-$$
trap 'rm -rf "$tmp"; git -C "$tree" config --unset "branch.$tmpbranch.description" 2>/dev/null || true
	git -C "$tree" branch -q -D "$tmpbranch" 2>/dev/null || true' EXIT
git -C "$tree" branch -q -f "$tmpbranch" HEAD
coveropts=() coverfile=''
if [ "$n" -gt 1 ]; then
	git -C "$tree" config "branch.$tmpbranch.description" "$(cat "$cover")"
	coveropts=(--cover-letter --cover-from-description=subject)
fi
git -C "$tree" -c core.abbrev=12 format-patch -q "${coveropts[@]}" \
	--subject-prefix="$prefix" --zero-commit --no-signature \
	-o "$tmp" "$from..$tmpbranch"
if [ "$n" -gt 1 ]; then
	coverfile=$(find "$tmp" -name '0000-cover-letter.patch')
	[ -n "$coverfile" ] || die "format-patch wrote no cover letter"
fi

if [ -n "$upstream_base" ]; then
	# The cover letter's end; a lone patch's (format-patch --base's place).
	printf '\nbase-commit: %s\n' "$upstream_base" >> "${coverfile:-$(find "$tmp" -name '0001-*.patch')}"
fi

# add_headers FILE HEADER-LINES: put mail headers (To:, Cc:) at the end of
# FILE's header block, before the blank line that ends it.
add_headers() {
	local f=$1 hdrs=$2
	[ -n "$hdrs" ] || return 0
	awk -v h="$hdrs" '!done && /^$/ { print h; done = 1 } { print }' "$f" > "$f.new"
	mv "$f.new" "$f"
}

# recipients FILE: get_maintainer.pl's addresses for one patch, one a line:
# maintainers and reviewers first, then the lists.  No git history (the
# base is a tarball) and no role annotations, as in a mail header.
recipients() {
	local opts=(--no-rolestats --no-git --no-git-fallback)
	# The kernel's version also checks for a kernel tree; QEMU's has no --tree.
	case "$name" in linux*) opts+=(--no-tree) ;; esac
	# A fixed hash seed: get_maintainer.pl lists entries of equal rank in
	# Perl's hash order, and a series that changes with every export
	# would invalidate every cache keyed by its files.
	(cd "$tree" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
		perl scripts/get_maintainer.pl "${opts[@]}" "$1") | sed '/^$/d'
}

# header_lines ADDR...: one To: header with the mailing lists and one Cc:
# header with the people, folded one address a line as format-patch's own
# --to/--cc are (RFC 5322 allows one of each).
is_list() { [[ $1 =~ @(vger\.kernel\.org|lists\.|nongnu\.org) ]]; }
header_lines() {
	local a to=() cc=()
	for a in "$@"; do
		if is_list "$a"; then to+=("$a"); else cc+=("$a"); fi
	done
	fold_header To "${to[@]}"
	fold_header Cc "${cc[@]}"
}
fold_header() {
	local name=$1 i
	shift
	[ $# -gt 0 ] || return 0
	printf '%s: %s' "$name" "$1"
	shift
	for i in "$@"; do printf ',\n    %s' "$i"; done
	printf '\n'
}

case "$name" in
linux|linux-event|linux-split|qemu)
	[ -f "$tree/scripts/get_maintainer.pl" ] || die "$tree has no scripts/get_maintainer.pl"
	: > "$tmp/all-recipients"
	for p in "$tmp"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "$p" = "$coverfile" ] && continue
		mapfile -t rcpt < <(recipients "$p") ||
			die "get_maintainer.pl failed on ${p##*/}"
		[ ${#rcpt[@]} -gt 0 ] || die "get_maintainer.pl found nobody for ${p##*/}"
		printf '%s\n' "${rcpt[@]}" >> "$tmp/all-recipients"
		add_headers "$p" "$(header_lines "${rcpt[@]}")"
	done
	# The cover letter goes to everyone a patch goes to.
	if [ -n "$coverfile" ]; then
		mapfile -t rcpt < <(awk '!seen[$0]++' "$tmp/all-recipients")
		add_headers "$coverfile" "$(header_lines "${rcpt[@]}")"
	fi
	;;
spec)
	for p in "$tmp"/[0-9][0-9][0-9][0-9]-*.patch; do
		add_headers "$p" "To: virtio-comment@lists.linux.dev"
	done
	;;
esac

if [ -n "$signoff" ]; then
	for p in "$tmp"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "$p" = "$coverfile" ] && continue
		git interpret-trailers --in-place --if-exists addIfDifferent \
			--trailer "Signed-off-by: $signoff" "$p"
		grep -qF "Signed-off-by: $signoff" "$p" || die "could not sign ${p##*/}"
	done
fi

# The notes of the folder's patches, kept unless --drop-notes: the same
# title (the file name after its number) with notes before, none now.
if [ -z "$drop_notes" ]; then
	declare -A exported=()
	for p in "$tmp"/[0-9][0-9][0-9][0-9]-*.patch; do
		f=${p##*/}
		exported[${f#[0-9][0-9][0-9][0-9]-}]=$p
	done
	lost=()
	while IFS= read -r p; do
		f=${p##*/} t=${f#[0-9][0-9][0-9][0-9]-}
		if [ "$f" = 0000-cover-letter.patch ] || [ -z "${exported[$t]:-}" ]; then
			continue
		fi
		if [ -n "$(patch_notes "$p")" ] && [ -z "$(patch_notes "${exported[$t]}")" ]; then
			lost+=("${out#"$GSO_TOP"/}/$f")
		fi
	done < <(find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort)
	[ ${#lost[@]} -eq 0 ] || die "nothing exported: $tree would drop the notes (below \
the message's '---') of ${lost[*]}: no '---' part in the commit message \
(a tree not made by scripts/devtree.sh?); put the notes back below a '---' line of the \
message, or pass --drop-notes to drop them"
fi
find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
cp "$tmp"/*.patch "$out"/
what="$n patches and a cover letter"
[ "$n" -gt 1 ] || what="1 patch (no cover letter)"
log "exported $what to ${out#"$GSO_TOP"/}${signoff:+, signed off by $signoff}"
