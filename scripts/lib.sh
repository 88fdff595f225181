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
