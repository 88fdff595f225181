#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The backports' scripts/tree.sh: a git tree of a distribution's source
# tree (configs/distro-trees.tsv, fetched by scripts/fetch-distro-source.sh)
# with a series applied by git am, and its path printed.
#
#   scripts/backport-tree.sh TARGET [SERIES_DIR | --unpatched]
#   scripts/backport-tree.sh --dev DIR TARGET [SERIES_DIR]
#
# TARGET is a name of the table (linux-6.12.117, linux-7.1.8,
# linux-7.3.4); the series defaults to backports/TARGET/split/, the
# committed backport.  --dev DIR makes a developer's tree at DIR: the base
# with the committed backport applied as commits (the same model as
# scripts/devtree.sh); edit and commit there, then regenerate the folders
# with scripts/export-backport.sh TARGET DIR.  Starting a new backport,
# pass main's series as SERIES_DIR: a patch that does not apply is left
# in progress in DIR (git am --show-current-patch; resolve, git am
# --continue) and the series' remaining patches are named.
#
# The distribution tree is imported once as one commit, tagged "base", into
# $GSO_CACHE/git/TARGET-<sha12> (its debian/ and quilt .pc/ state, when it
# is a source package, included: a packager's tree); each series gets a
# worktree $GSO_CACHE/trees/TARGET-<sha12>-<series hash>.
#
# Debian's linux-source trees carry a .gitignore that ignores every
# top-level path (Debian's packaging git): in a --dev tree, add a new
# file with git add -f.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 TARGET [SERIES_DIR|--unpatched] | --dev DIR TARGET" >&2; exit 2; }
dev=''
if [ "${1:-}" = --dev ]; then
	[ $# -ge 3 ] || usage
	dev=$2
	shift 2
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
target=$1
series=$GSO_TOP/backports/$target/split
if [ "${2:-}" = --unpatched ]; then
	series=''
elif [ $# -eq 2 ]; then
	series=$(realpath "$2") || die "no series folder $2"
fi

want=$(awk -F'\t' -v n="$target" '!/^#/ && $1 == n { print $6 }' \
	"$GSO_TOP/configs/distro-trees.tsv")
[ -n "$want" ] || die "no target '$target' in configs/distro-trees.tsv"
bsum=${want:0:12}
patches=()
if [ -n "$series" ]; then
	[ -d "$series" ] || die "no series folder $series"
	mapfile -t patches < <(find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | sort)
fi
if [ ${#patches[@]} -eq 0 ]; then key=$bsum-base; else key=$bsum-$(files_hash "${patches[@]}"); fi

repo=$GSO_CACHE/git/$target-$bsum
tree=$GSO_CACHE/trees/$target-$key
stamp=$GSO_CACHE/trees/.ok-$target-$key
mkdir -p "$GSO_CACHE/git" "$GSO_CACHE/trees"
gitq() { git -C "$repo" -c advice.detachedHead=false "$@"; }

exec 9> "$GSO_CACHE/git/.lock-$target"
flock 9

# A repository that borrows objects (below) is only as whole as the
# repositories it borrows from: import again when one is gone.
alt=$repo/.git/objects/info/alternates
if [ -f "$alt" ]; then
	while IFS= read -r a; do
		if [ ! -d "$a" ]; then
			log "$target: $a (borrowed objects) is gone: importing again"
			rm -rf "$repo"
			break
		fi
	done < "$alt"
fi

if ! gitq rev-parse -q --verify base >/dev/null 2>&1; then
	src=$("$GSO_TOP/scripts/fetch-distro-source.sh" "$target")
	log "importing $target into $repo (once per tree)"
	# Worktrees of an earlier import (if any) went with its repository.
	rm -rf "$repo" "$GSO_CACHE/trees/$target-$bsum"-* "$GSO_CACHE/trees/.ok-$target-$bsum"-*
	mkdir -p "$repo"
	git -C "$repo" init -q -b upstream
	# Most files of a distribution's Linux tree are byte-identical to
	# the pinned base's or to another imported release's (7.3.4: 65000 of
	# its 95000 blobs are 7.2.13's): borrow those repositories' objects
	# (git alternates) so that `git add` writes only the blobs no Linux
	# repository here has yet.  They are this cache's own, and nothing
	# prunes them (gc.auto is 0 in each); one that is gone makes this
	# tree import again (above).
	if [[ $target == linux-* ]]; then
		for o in "$GSO_CACHE"/git/linux-*/.git/objects; do
			if [ "$o" = "$repo/.git/objects" ] || [ ! -d "$o" ]; then continue; fi
			git --git-dir="${o%/objects}" rev-parse -q --verify base >/dev/null 2>&1 || continue
			echo "$o"
		done > "$alt"
	fi
	gitq config core.autocrlf false
	gitq config gc.auto 0
	# zlib level 1 for the import's 80000 loose objects: most of its CPU
	# time at the default level, for a larger repository.
	gitq config core.looseCompression 1
	# The tree's own .gitignore files must not hide its sources (the
	# kernel's ignores debian/ and .pc/).
	git --git-dir="$repo/.git" --work-tree="$src" add -A -f
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	git --git-dir="$repo/.git" --work-tree="$src" \
		-c user.name=base-import -c user.email=base-import@project.invalid \
		commit -q -m "Import $target" -m "configs/distro-trees.tsv sha256 $want"
	gitq tag -f base >/dev/null
	gitq rm -r -q --cached . >/dev/null
	gitq reset -q
	# The repository has it all now: 1.7 GB less in the cache.
	# fetch-distro-source.sh unpacks it again from its verified download
	# if asked.
	rm -rf "$src"
fi

checkout() { # DIR: a worktree at base, configured with the project identity
	gitq worktree add -q --detach "$1" base
	git -C "$1" config user.name "virtio-net GSO limits project"
	git -C "$1" config user.email "gso-limits@project.invalid"
}
failed=''
apply() { # DIR: git am every patch, or stop naming the one that fails ($failed)
	local p out
	for p in "${patches[@]}"; do
		failed=${p##*/}
		if ! out=$(git -C "$1" am -q --keep-cr "$p" 2>&1); then
			[ -n "$dev" ] || git -C "$1" am --abort >/dev/null 2>&1 || true
			printf '%s\n' "$out" >&2
			return 1
		fi
	done
}

if [ -n "$dev" ]; then
	if [ -e "$dev/.git" ]; then
		log "$dev exists; leaving it as it is"
		echo "$dev"
		exit 0
	fi
	mkdir -p "$(dirname "$dev")"
	checkout "$dev"
	git -C "$dev" switch -q -c "dev-$target-$(date +%s)"
	if ! apply "$dev"; then
		log "left in progress in $dev: $failed; then apply the rest:"
		printf '%s\n' "${patches[@]}" | sed -n "/$failed/,\$p" >&2
		die "patch $failed of $series does not apply to $target"
	fi
	log "working tree $dev (base: tag 'base'); export with scripts/export-backport.sh $target $dev"
	echo "$dev"
	exit 0
fi

# A stamp whose tree is gone (a cache cleaned by hand) is rebuilt.  A
# tree that is there is handed out at its series' commit: t07 moves the
# tree between commits, and a t07 that was killed left it elsewhere (or
# with a build cut short), which is repaired here, holding the tree's lock
# (scripts/lib.sh, tree_enter).  That lock is not taken while holding the
# repository's: a t07 holds one tree's lock for its per-patch builds and
# meanwhile asks for another tree of the same target.
if [ -f "$stamp" ] && [ -e "$tree/.git" ] &&
	git -C "$tree" rev-parse -q --verify "series-$key^{commit}" >/dev/null; then
	exec 9>&-
	lockf=$(tree_lock_file "$tree") || die "$tree: no git directory"
	exec 8> "$lockf"
	# A t07 holds it for its per-patch builds (up to ~30 min cold):
	# say so, and do not wait without bound.
	if ! flock -n 8; then
		log "waiting for $tree: another run's t07 is building in it"
		flock -w "${GSO_TREE_LOCK_WAIT:-3600}" 8 ||
			die "$tree still locked after ${GSO_TREE_LOCK_WAIT:-3600} s ($lockf)"
	fi
	tree_enter "$tree" "series-$key" .pc debian || die "cannot repair $tree"
	echo "$tree"
	exit 0
fi
rm -f "$stamp"
if [ -e "$tree" ]; then
	gitq worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
fi
gitq worktree prune
log "checking out $target-$key"
checkout "$tree"
if ! apply "$tree"; then
	gitq worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
	gitq worktree prune
	die "patch $failed of $series does not apply to $target"
fi
[ ${#patches[@]} -eq 0 ] || log "applied ${#patches[@]} patches from $series"
git -C "$tree" tag -f "series-$key" >/dev/null
touch "$stamp"
echo "$tree"
