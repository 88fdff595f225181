#!/usr/bin/env bash
# Build the project's one x86_64 kernel image (guest and host VMs) and
# print the path of its bzImage.
#
#   scripts/build-kernel.sh [--unpatched | --tree DIR]
#
# Default: the pinned Linux base with kernel-patches/ applied, then
# kernel-split-patches/ (the net core series, which also applies alone).
# --unpatched: the base alone.  --tree DIR: a developer tree as it is.
# Config: tinyconfig + kernel/configs/kvm_guest.config + configs/kernel.config.
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
patched)   tree=$("$GSO_TOP/scripts/tree.sh" linux "$GSO_TOP/kernel-patches" \
		"$GSO_TOP/kernel-split-patches") ;;
unpatched) tree=$("$GSO_TOP/scripts/tree.sh" linux --unpatched) ;;
esac
[ -f "$tree/Makefile" ] || die "$tree is not a kernel tree"
cfgkey=$(files_hash "$fragment")
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

# Built already from this exact tree state?  (dev trees change under us:
# compare HEAD and the worktree's diff too.)
state=$(git -C "$tree" rev-parse HEAD; git -C "$tree" diff HEAD | sha256sum; echo "$cfgkey")
if [ -f "$stamp" ] && [ -f "$image" ] && [ "$(cat "$stamp")" = "$state" ]; then
	echo "$image"
	exit 0
fi

mkdir -p "$GSO_CACHE/ccache"
export CCACHE_DIR=$GSO_CACHE/ccache CCACHE_BASEDIR=$tree CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Fixed build identity: ccache hits across trees, reproducible images.
export KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=gso KBUILD_BUILD_HOST=gso
kmake() { make -C "$tree" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

if [ ! -f "$bdir/.config" ] || [ "$(cat "$meta/gso-config-src" 2>/dev/null)" != "$cfgkey" ]; then
	log "configuring $bdir"
	kmake -s tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$bdir" "$bdir/.config" \
		"$tree/kernel/configs/kvm_guest.config" "$fragment" >/dev/null
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
	done < "$fragment"
	[ $bad = 0 ] || die "kernel config fragment does not apply cleanly"
	echo "$cfgkey" > "$meta/gso-config-src"
fi

log "building bzImage in $bdir ($(jobs_count) jobs; ~10 min the first time on 2 cores)"
start=$(date +%s)
kmake -j"$(jobs_count)" bzImage > "$meta/build.log" 2>&1 &
make_pid=$!
progress_while "$make_pid" "$meta/build.log" '^  (CC|AS|LD|AR)'
wait "$make_pid" || {
	tail -n 40 "$meta/build.log" >&2
	die "kernel build failed; full log: $meta/build.log"
}
log "kernel built in $(( $(date +%s) - start )) s"
printf '%s\n' "$state" > "$stamp"
echo "$image"
