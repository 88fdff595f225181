#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The QEMU series backported to QEMU releases without the 11.0 machine
# types, and its exports for distribution packagers.  One backport, three
# folders, all generated from one git tree:
#
#   backports/qemu-10.2.2/         git format-patch output against the
#                                  pinned QEMU 10.2.2 (git am)
#   backports/qemu-debian-10.2.2/  the same patches as a Debian quilt
#                                  series (DEP-3 headers) for Debian's
#                                  qemu 1:10.2.2+ds-1, applied after
#                                  Debian's own patches (quilt push -a)
#   backports/pve-qemu/            the same patches in pve-qemu's layout
#                                  (debian/patches/extra/00NN-*.patch,
#                                  pve's format-patch habits)
#
#   scripts/export-backport-qemu.sh tree          print the path of a tree
#                                                 with backports/qemu-10.2.2
#                                                 applied (cached)
#   scripts/export-backport-qemu.sh devtree DIR   a developer's tree (a
#                                                 branch in DIR) to edit
#   scripts/export-backport-qemu.sh export [--output DIR] [TREE]
#                                                 regenerate the three
#                                                 folders from TREE's
#                                                 commits base..HEAD (default:
#                                                 the cached tree), into DIR
#                                                 (default: backports/)
#   scripts/export-backport-qemu.sh ports         print, per backport patch,
#                                                 the main patch it ports and
#                                                 whether it is stale
#
# Each backport commit carries the main patch it ports as a trailer,
# "Backport-of: qemu-patches/NNNN-name.patch (patch-id ID)", which the
# export writes from the main patch of the same subject ('git patch-id
# --stable').  A backport whose main patch changed is stale: 'ports' says
# so, and the export of an unchanged tree then differs from the committed
# files, which tests/t08-backports-qemu.sh reports.  Main's patches that
# are not ported are listed in NOT_PORTED below with the reason.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/dep3.sh
. "$(dirname "$0")/dep3.sh"

# Main's patches that no backport carries, and why (one per line:
# "file reason").
NOT_PORTED="\
0002-hw-add-compat-machines-for-11.0.patch the backport targets releases without the 11.0 machine types: adding them would name machine types that upstream 11.0 defines differently"

BP_DIR=backports/qemu-10.2.2
DEB_DIR=backports/qemu-debian-10.2.2
PVE_DIR=backports/pve-qemu
# Debian's quilt folder for the series (DEP-3 headers: scripts/dep3.sh).
DEB_SUB=gso-limits
# pve-qemu numbers debian/patches/extra/ in one sequence; pve-qemu
# 10.2.1-2 (ed7782b, the last 10.2 release) ends at extra/0031.
PVE_FIRST=32

usage() {
	sed -n 's/^#   scripts/scripts/p' "$0" >&2
	exit 2
}

main_patches() {
	find "$GSO_TOP/qemu-patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | sort
}
# subject FILE: a patch file's subject, without its [PATCH ...] prefix.
subject() {
	git mailinfo /dev/null /dev/null < "$1" | sed -n 's/^Subject: //p'
}
patch_id() {
	git patch-id --stable < "$1" | cut -d' ' -f1
}

cmd_tree() {
	"$GSO_TOP/scripts/tree.sh" qemu "$GSO_TOP/$BP_DIR"
}

cmd_devtree() {
	local dir=$1 applied repo
	applied=$(cmd_tree)
	if [ -e "$dir/.git" ]; then
		log "$dir exists; leaving it as it is"
		echo "$dir"
		return
	fi
	mkdir -p "$(dirname "$dir")"
	repo=$(git -C "$applied" rev-parse --git-common-dir)
	git -C "$repo" worktree add -q -b "dev-qemu-backport-$(date +%s)" "$dir" \
		"$(git -C "$applied" rev-parse HEAD)"
	git -C "$dir" config user.name "virtio-net GSO limits project"
	git -C "$dir" config user.email "gso-limits@project.invalid"
	echo "$dir"
}

cmd_export() {
	local out=$GSO_TOP/backports tree='' tmp n p f subj mp id fname m
	while [ $# -gt 0 ]; do
		case "$1" in
		--output) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
		-*) usage ;;
		*) tree=$1; shift ;;
		esac
	done
	[ -n "$tree" ] || tree=$(cmd_tree)
	git -C "$tree" rev-parse -q --verify base >/dev/null || die "$tree has no 'base' tag"
	git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"
	n=$(git -C "$tree" rev-list --count base..HEAD)
	[ "$n" -gt 0 ] || die "$tree has no commits on top of base"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN

	# 1. git format-patch, with the Backport-of trailers.
	mkdir -p "$tmp/bp"
	git -C "$tree" -c core.abbrev=12 format-patch -q --zero-commit --no-signature \
		--subject-prefix="PATCH qemu-10.2 backport" -o "$tmp/bp" base..HEAD
	for p in "$tmp"/bp/*.patch; do
		subj=$(subject "$p")
		mp=''
		while IFS= read -r m; do
			if [ "$(subject "$m")" = "$subj" ]; then mp=$m; break; fi
		done < <(main_patches)
		[ -n "$mp" ] || die "${p##*/}: no patch in qemu-patches/ has the subject '$subj'"
		id=$(patch_id "$mp")
		git interpret-trailers --in-place --if-exists replace \
			--trailer "Backport-of: qemu-patches/${mp##*/} (patch-id $id)" "$p"
	done

	# 2. Debian quilt series.
	mkdir -p "$tmp/deb/debian/patches/$DEB_SUB"
	for p in "$tmp"/bp/*.patch; do
		fname=${p##*/}
		dep3_write "$p" "$tmp/deb/debian/patches/$DEB_SUB/$fname" "$BP_DIR/$fname"
		echo "$DEB_SUB/$fname" >> "$tmp/deb/debian/patches/$DEB_SUB/series"
	done

	# 3. pve-qemu: format-patch as pve-qemu keeps its patches (zero
	# commit, "[PATCH]", no signature, abbreviated ids of 10), numbered
	# on from pve-qemu's last extra/ patch.
	mkdir -p "$tmp/pve/debian/patches/extra"
	git -C "$tree" -c core.abbrev=10 format-patch -q --zero-commit --no-signature \
		--no-numbered --start-number "$PVE_FIRST" \
		-o "$tmp/pve/debian/patches/extra" base..HEAD
	# The same trailers as the backport's (pve-qemu keeps a patch's
	# provenance in its message, as with "(cherry picked from ...)").
	paste -d' ' <(ls "$tmp"/bp/*.patch) <(ls "$tmp"/pve/debian/patches/extra/*.patch) |
	while read -r p f; do
		git interpret-trailers --in-place --if-exists replace \
			--trailer "$(grep -m1 '^Backport-of: ' "$p")" "$f"
		echo "extra/${f##*/}" >> "$tmp/pve/debian/patches/series.gso-limits"
	done

	mkdir -p "$out/${BP_DIR#backports/}" "$out/${DEB_DIR#backports/}" "$out/${PVE_DIR#backports/}"
	find "$out/${BP_DIR#backports/}" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	cp "$tmp"/bp/*.patch "$out/${BP_DIR#backports/}/"
	rm -rf "$out/${DEB_DIR#backports/}/debian" "$out/${PVE_DIR#backports/}/debian"
	cp -R "$tmp/deb/debian" "$out/${DEB_DIR#backports/}/"
	cp -R "$tmp/pve/debian" "$out/${PVE_DIR#backports/}/"
	log "exported $n backport patches to $out/{${BP_DIR#backports/},${DEB_DIR#backports/},${PVE_DIR#backports/}}"
}

# ports: one line per backport patch: its main patch, and "ok" or
# "STALE"; then one line per main patch not ported.  Exit 1 when a
# backport is stale, names a main patch that is gone, or a main patch is
# neither ported nor listed in NOT_PORTED.
cmd_ports() {
	local p line mfile mid rc=0 m ported=' '
	for p in "$GSO_TOP/$BP_DIR"/[0-9][0-9][0-9][0-9]-*.patch; do
		line=$(grep -m1 '^Backport-of: ' "$p") ||
			{ echo "${p##*/}: no Backport-of trailer"; rc=1; continue; }
		mfile=$(sed -E 's/^Backport-of: (qemu-patches\/[^ ]+) .*/\1/' <<<"$line")
		mid=$(sed -E 's/.*\(patch-id ([0-9a-f]+)\)$/\1/' <<<"$line")
		ported+="${mfile##*/} "
		if [ ! -f "$GSO_TOP/$mfile" ]; then
			echo "${p##*/}: STALE: ports $mfile, which main no longer has"; rc=1
		elif [ "$(patch_id "$GSO_TOP/$mfile")" != "$mid" ]; then
			echo "${p##*/}: STALE: ports $mfile, whose patch-id is now $(patch_id "$GSO_TOP/$mfile"), not $mid"; rc=1
		else
			echo "${p##*/}: ok: ports $mfile (patch-id $mid)"
		fi
	done
	while IFS= read -r m; do
		m=${m##*/}
		case "$ported" in *" $m "*) continue ;; esac
		if grep -q "^$m " <<<"$NOT_PORTED"; then
			echo "$m: not ported: $(grep "^$m " <<<"$NOT_PORTED" | cut -d' ' -f2-)"
		else
			echo "$m: NOT PORTED and not listed in NOT_PORTED"; rc=1
		fi
	done < <(main_patches)
	return $rc
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
tree) [ $# -eq 0 ] || usage; cmd_tree ;;
devtree) [ $# -eq 1 ] || usage; cmd_devtree "$1" ;;
export) cmd_export "$@" ;;
ports) [ $# -eq 0 ] || usage; cmd_ports ;;
*) usage ;;
esac
