#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Prepare a git tree of a pinned base with a patch series applied, and
# print its path.
#
#   scripts/tree.sh linux|linux-event|linux-split|linux-stack|qemu|qemu-test|spec
#                   [SERIES_DIR... | --unpatched]
#
# More than one SERIES_DIR stacks them in that order.  linux-stack is the
# project's kernel, the one the tests boot: the three Linux series, each of
# which also applies alone, stacked as kernel-event-patches/ (the host's
# rtnetlink event), kernel-patches/ (the guest series), then
# kernel-split-patches/ (the net core split); qemu-test, the
# harness's own QEMU, is qemu-patches/ then the test-only devices of
# qemu-test-patches/); the tree's key
# is the hash of all their patches, so each combination is its own tree.
# The base tarball is imported once as a single commit ("base") into a
# repository under $GSO_CACHE/git; each (base, series) pair gets its own
# worktree under $GSO_CACHE/trees, named by the base checksum and the
# series hash, where the series is applied with 'git am' as a maintainer
# would.  A patch that does not apply stops everything with its name.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 linux|linux-event|linux-split|linux-stack|qemu|qemu-test|spec [SERIES_DIR...|--unpatched]" >&2; exit 2; }
if [ $# -lt 1 ]; then usage; fi
name=$1
shift
mapfile -t series_dirs < <(series_dirs "$name")
if [ ${#series_dirs[@]} -eq 0 ]; then usage; fi
if [ $# -eq 1 ] && [ "$1" = --unpatched ]; then
	series_dirs=()
elif [ $# -gt 0 ]; then
	series_dirs=()
	for d in "$@"; do
		[ "$d" != --unpatched ] || usage
		dir=$(realpath "$d") || die "no series folder $d"
		series_dirs+=("$dir")
	done
fi

# A series folder names its base tree: the second kernel series applies to
# the same Linux base (and the same git repository) as the first.
base=${name%%-*}
tarball=$("$GSO_TOP/scripts/bases.sh" "$base")
bsum=$(awk -v f="${tarball##*/}" '$2 == f { print substr($1, 1, 12) }' \
	"$GSO_TOP/configs/bases.sha256")
[ -n "$bsum" ] || bsum=$(sha256sum "$tarball" | cut -c1-12)

patches=()
for series in "${series_dirs[@]}"; do
	[ -d "$series" ] || die "no series folder $series"
	mapfile -t -O ${#patches[@]} patches < <(series_patches "$series")
done
if [ ${#patches[@]} -eq 0 ]; then
	key=$bsum-base
else
	key=$bsum-$(files_hash "${patches[@]}")
fi

repo=$GSO_CACHE/git/$base-$bsum
tree=$GSO_CACHE/trees/$name-$key
stamp=$GSO_CACHE/trees/.ok-$name-$key
mkdir -p "$GSO_CACHE/git" "$GSO_CACHE/trees"

# Serialise concurrent callers (parallel make, two tests) on one lock.
exec 9> "$GSO_CACHE/git/.lock-$base"
flock 9

if [ -f "$stamp" ]; then
	echo "$tree"
	exit 0
fi

gitq() { git -C "$repo" -c advice.detachedHead=false "$@"; }

if ! gitq rev-parse -q --verify base >/dev/null 2>&1; then
	log "importing ${tarball##*/} into $repo (once per base)"
	rm -rf "$repo"
	mkdir -p "$repo"
	tar -xJf "$tarball" -C "$repo" --strip-components=1
	git -C "$repo" init -q -b upstream
	gitq config core.autocrlf false
	gitq config gc.auto 0
	gitq add -A -f
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	gitq -c user.name=base-import -c user.email=base-import@project.invalid \
		commit -q -m "Import ${tarball##*/}" -m "sha256 $(sha256sum "$tarball" | cut -d' ' -f1)"
	gitq tag -f base >/dev/null
	# The import's own files are not needed once the worktrees exist.
	gitq rm -r -q --cached . >/dev/null
	find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
	gitq reset -q
fi

rm -f "$stamp"
if [ -e "$tree" ]; then
	gitq worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
	gitq worktree prune
fi
log "checking out $name-$key"
gitq worktree add -q --detach "$tree" base
git -C "$tree" config user.name "virtio-net GSO limits project"
git -C "$tree" config user.email "gso-limits@project.invalid"
for p in "${patches[@]}"; do
	if ! out=$(git -C "$tree" am -q --keep-cr "$p" 2>&1); then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		gitq worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
		gitq worktree prune
		printf '%s\n' "$out" >&2
		die "patch ${p##*/} of $(dirname "$p") does not apply to $name base ${tarball##*/}"
	fi
done
[ ${#patches[@]} -eq 0 ] || log "applied ${#patches[@]} patches from ${series_dirs[*]}"
git -C "$tree" tag -f series >/dev/null
touch "$stamp"
echo "$tree"
