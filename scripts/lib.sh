# shellcheck shell=bash
# Common helpers for the project's scripts.  Source it; do not run it.
#
# Every path the scripts write outside the clone lives under one cache
# directory, GSO_CACHE, so a user can see, size and delete it in one place.

GSO_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GSO_CACHE=${GSO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/virtio-gso-limits}
export GSO_TOP GSO_CACHE

# Where the pinned upstream tarballs are looked for first.
BASES_DIR=${BASES_DIR:-$GSO_TOP/../shared/bases}

log()  { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
warn() { printf '[%s] warning: %s\n' "${0##*/}" "$*" >&2; }
die()  { printf '[%s] error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Short content key of a list of files (sorted by name): used to key
# cached build trees by the series that produced them.
files_hash() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || continue
		printf '%s\n' "${f##*/}"
		cat "$f"
	done | sha256sum | cut -c1-12
}

# series_dirs NAME: the series folders scripts/tree.sh applies for NAME,
# in the order it stacks them, one a line; false for an unknown NAME.
series_dirs() {
	case "$1" in
	linux) echo "$GSO_TOP/kernel-patches" ;;
	linux-event) echo "$GSO_TOP/kernel-event-patches" ;;
	linux-split) echo "$GSO_TOP/kernel-split-patches" ;;
	linux-stack) printf '%s\n' "$GSO_TOP/kernel-event-patches" "$GSO_TOP/kernel-patches" \
		"$GSO_TOP/kernel-split-patches" ;;
	qemu) echo "$GSO_TOP/qemu-patches" ;;
	qemu-test) printf '%s\n' "$GSO_TOP/qemu-patches" "$GSO_TOP/qemu-test-patches" ;;
	spec) echo "$GSO_TOP/spec" ;;
	*) return 1 ;;
	esac
}

# series_patches DIR...: the patch files of these series folders in the
# order git am applies them (each folder's by name, no cover letter), one
# a line.
series_patches() {
	local d
	for d in "$@"; do
		find "$d" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
			! -name '0000-cover-letter.patch' | sort
	done
}

# patch_notes FILE: the notes of a format-patch file, the lines between the
# first "---" line of its message and the "---" line format-patch puts
# before the diffstat (the last one before the diff); nothing if the
# message had none (scripts/devtree.sh puts them back into the commits,
# scripts/export-series.sh refuses to drop them).
patch_notes() {
	awk '!body { if ($0 == "") body = 1; next }
		/^diff --git / { exit }
		$0 == "---" { if (!first) first = n + 1; last = n + 1 }
		{ line[++n] = $0 }
		END { for (i = first + 1; i < last; i++) print line[i] }' "$1"
}

# The project's pinned checksum of a base file, from the SHA256SUMS file
# that is kept in the repo (configs/bases.sha256), so a BASES_DIR that
# is not ours cannot change what we accept.
base_sum() {
	awk -v f="$1" '$2 == f { print $1 }' "$GSO_TOP/configs/bases.sha256"
}

# ccache for every compiler the builds run (kernel, QEMU, t03), one cache
# under GSO_CACHE.  Depend mode: on a miss ccache takes the dependencies
# from the compiler's own -MD output instead of running the preprocessor
# a second time.  Measured on 16 net/core objects from an empty cache
# (CPU seconds): 40 without ccache, 56 in ccache's default mode, 46 in
# depend mode; a hit costs the same.  What it gives up (a hit for a file
# whose headers changed while its preprocessed text did not, such as
# every file after a change of autoconf.h) is what build-kernel.sh's
# seeding from a built sibling tree does better.
use_ccache() {
	export CCACHE_DIR=$GSO_CACHE/ccache CCACHE_BASEDIR=$1 CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G} CCACHE_DEPEND=1
}

# --- shared trees after a killed run ---------------------------------------
# The trees under $GSO_CACHE are shared by every run on the machine.  A
# script that moves one between commits (t07's per-patch builds) or builds
# in one (t03, t07, build-kernel.sh) does so holding the tree's lock; killed
# there (SIGKILL, or a TERM to a parent that never reaches the traps), it
# leaves the tree at another commit (t07's next export: "no commits on top
# of base"), a stale index.lock, or a build cut short.  A link cut short
# left a 0-byte tools/objtool/objtool, newer than its sources: make never
# relinked it, every later build failed ("objtool: Permission denied").
# kbuild's own targets are rebuilt after a first build cut short (a target
# without its .cmd file, written after the command succeeded, is made
# again); objtool is built by tools/build, outside that scheme.  So each
# of those scripts, holding the lock:
#   tree_enter TREE [REV [PATH...]]  first: repairs what a killed run left
#   tree_build_begin TREE [seed]     before each make (a marker file)
#   tree_build_end TREE              when the make returned, failed or not
# The marker and the lock live in TREE's git directory (tree_meta), not
# among the sources.

# tree_meta TREE: TREE's own git directory (a worktree's, under its
# repository's .git/worktrees/).
tree_meta() { git -C "$1" rev-parse --absolute-git-dir; }

# tree_lock_file TREE: the lock a script holds while it moves TREE between
# commits or repairs it (t07, scripts/backport-tree.sh; t03 has a lock of
# its own around its worktree).
tree_lock_file() {
	local meta
	meta=$(tree_meta "$1") || return 1
	echo "$meta/gso-tree.lock"
}

tree_build_begin() {
	local meta
	meta=$(tree_meta "$1") || return 1
	echo "${2:-build}" > "$meta/gso-building"
}
tree_build_end() {
	local meta
	meta=$(tree_meta "$1") || return 1
	rm -f "$meta/gso-building"
}

# tree_enter TREE [REV [PATH...]]: with TREE's lock held, before using it:
#   - when its last build did not end (the marker of tree_build_begin is
#     there): tools/objtool's build products are removed, and the next
#     make rebuilds them (kbuild redoes the rest by itself); a cut-short
#     seeding (build-kernel.sh's "seed" marker) is the caller's to handle
#     before, and is refused here;
#   - with REV (a tree of the cache that only the project's scripts write,
#     each under this lock: t07's, t03's): a git index.lock left by a
#     killed git command is removed (in a developer's tree it may be a
#     git of theirs at work), TREE is back at REV (checkout -f, detached)
#     when HEAD is another commit or a tracked file differs, and the
#     untracked files under each PATH are removed (t07's quilt state: .pc,
#     debian).
tree_enter() {
	local tree=$1 rev=${2:-} meta want head lock
	shift $(( $# < 2 ? $# : 2 ))
	meta=$(tree_meta "$tree") || return 1
	if [ -n "$rev" ]; then
		for lock in index.lock HEAD.lock; do
			[ -f "$meta/$lock" ] || continue
			log "${tree##*/}: removing $meta/$lock, left by a killed git"
			rm -f "$meta/$lock"
		done
	fi
	if [ -f "$meta/gso-building" ]; then
		if [ "$(cat "$meta/gso-building")" = seed ]; then
			warn "${tree##*/}: its seeding was cut short (tree_enter cannot repair it)"
			return 1
		fi
		log "${tree##*/}: its last build was cut short: removing tools/objtool's build products"
		# -X: only what .gitignore calls a build product (a
		# developer's new file in tools/objtool stays).
		git -C "$tree" clean -q -fdX -- tools/objtool || return 1
		rm -f "$meta/gso-building"
	fi
	[ -n "$rev" ] || return 0
	want=$(git -C "$tree" rev-parse -q --verify "$rev^{commit}") ||
		{ warn "${tree##*/}: no commit $rev"; return 1; }
	head=$(git -C "$tree" rev-parse -q --verify HEAD) || head=''
	if [ "$head" != "$want" ] || ! git -C "$tree" diff --quiet HEAD --; then
		log "${tree##*/}: left at ${head:0:12} or changed (a killed run): checked out $rev again"
		git -C "$tree" -c advice.detachedHead=false checkout -q -f --detach "$want" || return 1
	fi
	[ $# -eq 0 ] || git -C "$tree" clean -q -fdx -- "$@"
}

# tree_kmake TREE MAKEARGS...: the per-patch checks' kernel make in TREE
# (t03, t07), at nice 5, through ccache, marked in TREE's git dir while it
# runs (tree_build_begin/end): one killed half-way (a truncated objtool)
# is repaired by the next tree_enter.
tree_kmake() {
	local tree=$1 rc=0
	shift
	tree_build_begin "$tree"
	nice -n 5 make -C "$tree" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@" || rc=$?
	tree_build_end "$tree"
	return $rc
}

jobs_count() {
	nproc 2>/dev/null || echo 2
}

# Time a step and print its wall time; used for the build records in docs/.
# series_kernel SERIES_DIR...: the project's kernel built from the Linux
# base with exactly these series stacked (scripts/tree.sh linux ...); its
# first build seeds from a built sibling (GSO_KERNEL_SEED=2, also for
# --tree), so it costs the objects its patches change.  Prints the
# bzImage.  t36's guest kernels (kernel-patches/ without the split, and a
# control), which scripts/prebuild.sh builds ahead of it.
series_kernel() {
	local tree
	tree=$("$GSO_TOP/scripts/tree.sh" linux "$@") || return 1
	GSO_KERNEL_SEED=2 "$GSO_TOP/scripts/build-kernel.sh" --tree "$tree"
}

timed() {
	local start end rc=0
	start=$(date +%s)
	"$@" || rc=$?
	end=$(date +%s)
	log "step '$*' took $((end - start)) s (rc=$rc)"
	return $rc
}

# progress_while PID LOG REGEX: while PID runs, print every 30 s how many
# lines of LOG match REGEX (build steps done), so long builds show life.
progress_while() {
	local pid=$1 logf=$2 re=$3 n=0 t=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		if [ $((t % 30)) -eq 0 ]; then
			n=$(grep -cE "$re" "$logf" 2>/dev/null || true)
			log "... ${t} s, $n steps done"
		fi
	done
}

# prog_libs PROG: the absolute paths of the shared libraries ldd names for
# PROG (none for a static program), one per line.  Copied to the same
# paths in an initramfs, the dynamic loader finds them without a config.
prog_libs() {
	{ ldd "$1" 2>/dev/null || true; } |
		awk '/=> \// { print $3 } /^[ \t]*\/lib/ { print $1 }'
}

# write_cpio ROOT OUT [COMPRESS]: ROOT as a newc archive at OUT (through
# OUT.tmp, so an interrupted run leaves no archive), reproducible: sorted,
# owner 0:0, mtime 0, no inode numbers.  Userspace only: no root needed.
# COMPRESS: "gzip" (the default) or "none".
write_cpio() {
	local root=$1 out=$2 compress=${3:-gzip} tmp
	mkdir -p "$(dirname "$out")"
	# A temporary file of this writer's own: two runs sharing the cache
	# may build the same (reproducible) archive at once, and the second
	# mv of a shared "$out.tmp" failed.
	tmp=$(mktemp "$out.XXXXXX")
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		xargs -0 touch -h -d @0 &&
		find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --reproducible --quiet) |
		if [ "$compress" = none ]; then cat; else gzip -9n; fi > "$tmp" || { rm -f "$tmp"; return 1; }
	chmod 644 "$tmp"
	mv -f "$tmp" "$out"
}
