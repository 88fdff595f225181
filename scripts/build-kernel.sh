#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the project's one x86_64 kernel image (guest and host VMs) and
# print the path of its bzImage.
#
#   scripts/build-kernel.sh [--unpatched | --tree DIR]
#
# Default: the pinned Linux base with the project's three Linux series
# stacked, as scripts/tree.sh linux-stack makes it: kernel-event-patches/,
# kernel-patches/, then kernel-split-patches/ (each also applies alone).
# --unpatched: the base alone.  --tree DIR: a developer tree as it is.
# Config: tinyconfig + kernel/configs/kvm_guest.config + configs/kernel.config
# (+ GSO_KERNEL_EXTRA_CONFIG, a fragment merged last: make check-debug's
# configs/kernel-debug.config, with --tree on a tree of its own).
# The build is in the tree itself (each tree is already keyed by base
# checksum and series hash, see tree.sh), so the compiler sees the same
# relative paths in every tree and ccache hits across series versions;
# a change of the config fragment reconfigures the tree in place.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=patched tree=
case "${1:-}" in
"") ;;
--unpatched) mode=unpatched ;;
--tree) [ $# -eq 2 ] || die "--tree needs a directory"; mode=dev; tree=$(realpath "$2") ;;
*) echo "usage: $0 [--unpatched | --tree DIR]" >&2; exit 2 ;;
esac

fragment=$GSO_TOP/configs/kernel.config
case $mode in
patched)   tree=$("$GSO_TOP/scripts/tree.sh" linux-stack) ;;
unpatched) tree=$("$GSO_TOP/scripts/tree.sh" linux --unpatched) ;;
esac
[ -f "$tree/Makefile" ] || die "$tree is not a kernel tree"
extra=${GSO_KERNEL_EXTRA_CONFIG:-}
[ -z "$extra" ] || [ -f "$extra" ] || die "GSO_KERNEL_EXTRA_CONFIG: no file $extra"
cfgkey=$(files_hash "$fragment" ${extra:+"$extra"})
bdir=$tree
image=$bdir/arch/x86/boot/bzImage
# Bookkeeping lives in the worktree's git dir, not among the sources.
meta=$(git -C "$tree" rev-parse --absolute-git-dir)
stamp=$meta/gso-built

# One build per tree at a time: two tests (or a test and a developer)
# asking for the same kernel wait for each other instead of running two
# makes in one tree.
exec 9> "$meta/build.lock"
flock 9

# A build or a seeding (below) of this tree that a killed run cut short:
# its marker is still there (scripts/lib.sh, tree_build_begin).  A seeding
# leaves any number of files half copied: the tree's build products go
# and it is seeded again; a build, tools/objtool's (tree_enter).  The
# cache's trees are the project's (keyed ones, and the --tree ones that
# tests and check-debug seed under $GSO_CACHE/trees/): cleaned.  A
# developer's tree elsewhere is not: it may hold files of theirs.
if [ "$(cat "$meta/gso-building" 2>/dev/null)" = seed ]; then
	case "$mode/$tree/" in
	dev/"$GSO_CACHE"/trees/*) ;;
	dev/*) die "seeding $tree from a sibling was cut short: its build products are half copied; remove them (git -C $tree clean -fdX) and build again" ;;
	esac
	log "seeding $tree was cut short: removing its build products, seeding again"
	git -C "$tree" clean -q -fdx
	rm -f "$meta/gso-building" "$meta/gso-config-src" "$stamp"
fi
tree_enter "$tree" || die "cannot repair $tree"

# Built already from this exact tree state?  (dev trees change under us:
# compare HEAD and the worktree's diff too; the last line names the build
# recipe, so a change of it below rebuilds what it affects.)
recipe=2
state=$(git -C "$tree" rev-parse HEAD; git -C "$tree" diff HEAD | sha256sum; echo "$cfgkey"
	echo "recipe $recipe")
if [ -f "$stamp" ] && [ -f "$image" ] && [ "$(cat "$stamp")" = "$state" ]; then
	echo "$image"
	exit 0
fi

# --- seeding a first build from a built sibling tree ---------------------
# The unpatched base and the tree with the series differ in a handful of
# files, but two of them are headers included by a quarter of the kernel
# (netdevice.h, virtio_net.h) and the series adds Kconfig symbols, so
# autoconf.h differs: ccache then misses on every includer and has to
# preprocess every other file again (measured: 618 s for the base after
# the series' tree, against 994 s from nothing).  kbuild itself does
# better, as after a `git checkout` in a built tree: it rebuilds exactly
# the objects whose sources, headers, commands or CONFIG_ symbols changed.
# So a tree that was never built starts from a copy of the build products
# of a built sibling of the same base repository (same config fragment,
# clean worktree, last build complete), with the timestamps a checkout
# would leave: every tracked file old, the files that differ between the
# two commits new.  Same correctness argument as any incremental build.
# Keyed trees only (a dev tree is rebuilt in place anyway):
# GSO_KERNEL_SEED=0 turns it off, GSO_KERNEL_SEED=all extends it to
# --tree DIR (to compare a seeded build with a build from nothing), and
# GSO_KERNEL_SEED_FROM=TREE names the donor.
seed_from_sibling() {
	local t donor='' best='' n dstamp f mt candidates=("$GSO_CACHE"/trees/linux-*)
	[ -z "${GSO_KERNEL_SEED_FROM:-}" ] || candidates=("$GSO_KERNEL_SEED_FROM")
	for t in "${candidates[@]}"; do
		if [ "$t" = "$tree" ] || [ ! -f "$t/arch/x86/boot/bzImage" ]; then
			continue
		fi
		dstamp=$(git -C "$t" rev-parse --absolute-git-dir 2>/dev/null)/gso-built || continue
		if [ ! -f "$dstamp" ] || [ "$(sed -n 3p "$dstamp")" != "$cfgkey" ] ||
			[ "$(sed -n 4p "$dstamp")" != "recipe $recipe" ]; then
			continue
		fi
		# The same repository (its commits are reachable from here).
		git -C "$tree" cat-file -e "$(git -C "$t" rev-parse HEAD)^{commit}" 2>/dev/null || continue
		n=$(git -C "$tree" diff --name-only "$(git -C "$t" rev-parse HEAD)" HEAD | wc -l)
		if [ -z "$best" ] || [ "$n" -lt "$best" ]; then
			donor=$t best=$n
		fi
	done
	[ -n "$donor" ] || return 0
	# Hold the donor's build lock while copying: no build runs there.
	exec 7> "$(git -C "$donor" rev-parse --absolute-git-dir)/build.lock"
	flock 7
	if ! git -C "$donor" diff --quiet HEAD; then
		exec 7>&-
		return 0
	fi
	log "seeding $bdir from the build of ${donor##*/} ($best files differ)"
	# From here until the end of the copy and its fix-ups, a kill leaves
	# the tree half seeded: marked (the repair above, next time).
	tree_build_begin "$tree" seed
	# Every untracked file of the donor is a build product (trees are
	# checked out by tree.sh and never edited): copy them, mtimes kept.
	(cd "$donor" && git ls-files -z --others) |
		(cd "$donor" && tar --null -T - -cf -) | tar -xf - -C "$tree"
	exec 7>&-
	# tools/objtool is built with absolute paths: its dependency files
	# name the donor's.  Left so, every one of them is "missing", objtool
	# is relinked and, as every object depends on objtool, the whole
	# kernel recompiles.  Point them here, keeping their mtimes.
	while IFS= read -r -d '' f; do
		mt=$(stat -c %Y "$tree/$f")
		sed -i "s|$donor/|$tree/|g" "$tree/$f"
		touch -h -d "@$mt" "$tree/$f"
	done < <(cd "$tree" && git ls-files -z --others -- '*.cmd' '*.d' |
		xargs -0 -r grep -lZF "$donor/" --)
	(cd "$tree" && git ls-files -z | xargs -0 touch -h -d @946684800)
	while IFS= read -r -d '' f; do
		[ ! -e "$tree/$f" ] || touch -h "$tree/$f"
	done < <(git -C "$tree" diff -z --name-only "$(git -C "$donor" rev-parse HEAD)" HEAD)
	git -C "$tree" update-index -q --refresh >/dev/null || true
	# The donor's configuration stamp does not apply here: configure anew.
	rm -f "$meta/gso-config-src"
	tree_build_end "$tree"
}
case "${GSO_KERNEL_SEED:-1}/$mode" in
0/*|1/dev) ;;
*) [ -f "$bdir/.config" ] || [ -f "$stamp" ] || seed_from_sibling ;;
esac

mkdir -p "$GSO_CACHE/ccache"
use_ccache "$tree"
# Fixed build identity: ccache hits across trees, reproducible images.
export KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=gso KBUILD_BUILD_HOST=gso
export KBUILD_BUILD_VERSION=1
kmake() { make -C "$tree" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

tree_build_begin "$tree"
if [ ! -f "$bdir/.config" ] || [ "$(cat "$meta/gso-config-src" 2>/dev/null)" != "$cfgkey" ]; then
	log "configuring $bdir"
	kmake -s tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$bdir" "$bdir/.config" \
		"$tree/kernel/configs/kvm_guest.config" "$fragment" ${extra:+"$extra"} >/dev/null
	kmake -s olddefconfig >/dev/null
	# Every option the fragment asks for must have survived olddefconfig:
	# a silently dropped option means a test later fails for no clear reason.
	bad=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$bdir/.config" && { warn "$opt is set, fragment says n"; bad=1; }
		elif ! grep -qx "$opt=$val" "$bdir/.config"; then
			# An option this tree does not define (a test the series
			# adds, built from the unpatched base) is not an error.
			if ! grep -rqsx --include='Kconfig*' "config ${opt#CONFIG_}" "$tree"; then
				log "$opt is not defined in this tree: skipped"
				continue
			fi
			warn "$opt=$val did not survive olddefconfig (got: $(grep "^$opt=" "$bdir/.config" || echo unset))"
			bad=1
		fi
	done < <(cat "$fragment" ${extra:+"$extra"})
	[ $bad = 0 ] || die "kernel config fragment does not apply cleanly"
	echo "$cfgkey" > "$meta/gso-config-src"
fi

log "building bzImage in $bdir ($(jobs_count) jobs; ~10 min the first time on 2 cores)"
start=$(date +%s)
# No stamp while building: an interrupted build must not look complete
# (a sibling's seed takes only trees whose last build completed).
rm -f "$stamp"
kmake -j"$(jobs_count)" bzImage > "$meta/build.log" 2>&1 &
make_pid=$!
progress_while "$make_pid" "$meta/build.log" '^  (CC|AS|LD|AR)'
wait "$make_pid" || {
	tree_build_end "$tree"
	tail -n 40 "$meta/build.log" >&2
	die "kernel build failed; full log: $meta/build.log"
}
tree_build_end "$tree"
log "kernel built in $(( $(date +%s) - start )) s"
printf '%s\n' "$state" > "$stamp"
echo "$image"
