#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Create (or show) a developer's working tree for a series: the pinned base
# with the current series applied as commits on branch dev-NAME.  Edit and
# commit there, then run scripts/export-series.sh NAME to regenerate the
# series folder.
#
#   scripts/devtree.sh linux|linux-event|linux-split|qemu|spec [DIR]
#
# A patch's notes for reviewers (its changes since the last version, how
# it was tested, the related series) are the part of its commit message
# after a line "---": format-patch writes the whole message, so they come
# out below the patch's "---", where git am drops them again.  This tree
# gets its commits from scripts/tree.sh's git am, and puts each patch's
# notes back into its commit's message, so that an export of the tree
# unchanged reproduces the series folder byte for byte.  To edit a
# commit's notes, amend its message below its "---" line; a commit
# without notes has no "---" line.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then { echo "usage: $0 linux|linux-event|linux-split|qemu|spec [DIR]" >&2; exit 2; }; fi
name=$1
dir=${2:-$GSO_CACHE/dev/$name}
applied=$("$GSO_TOP/scripts/tree.sh" "$name")

if [ -e "$dir/.git" ]; then
	log "$dir exists; leaving it as it is"
	echo "$dir"
	exit 0
fi

repo=$(git -C "$applied" rev-parse --git-common-dir)

# The notes back into the messages, before anything is made at DIR: each
# commit again, as objects in the applied tree's repository, same tree,
# author and committer, its message with "---" and the patch's notes
# appended.  DIR becomes a worktree on the last of them only once all are
# made, so a failure here leaves no tree without notes behind for the
# next call to hand back as it is (and an export of it to drop every
# patch's notes).
mapfile -t series_dirs < <(series_dirs "$name")
mapfile -t patches < <(series_patches "${series_dirs[@]}")
mapfile -t commits < <(git -C "$applied" rev-list --reverse base..HEAD)
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "$applied has ${#commits[@]} commits on base for ${#patches[@]} patches"
new=$(git -C "$applied" rev-parse base)
changed=0
for i in "${!commits[@]}"; do
	c=${commits[i]}
	notes=$(patch_notes "${patches[i]}")
	msg=$(git -C "$applied" log -1 --format=%B "$c")
	[ -z "$notes" ] || { msg+=$'\n---\n'"$notes"; changed=$((changed + 1)); }
	{ read -r an; read -r ae; read -r ad; read -r cn; read -r ce; read -r cd; } < <(
		git -C "$applied" log -1 --date=raw --format='%an%n%ae%n%ad%n%cn%n%ce%n%cd' "$c")
	new=$(printf '%s\n' "$msg" | GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE=$ad \
		GIT_COMMITTER_NAME=$cn GIT_COMMITTER_EMAIL=$ce GIT_COMMITTER_DATE=$cd \
		git -C "$applied" commit-tree "$c^{tree}" -p "$new" -F -)
done

# The identity is the repository's (its worktrees share one config).
git -C "$repo" config user.name "virtio-net GSO limits project"
git -C "$repo" config user.email "gso-limits@project.invalid"
branch=dev-$name-$(date +%s)
mkdir -p "$(dirname "$dir")"
git -C "$repo" branch "$branch" "$new"
if ! git -C "$repo" worktree add -q "$dir" "$branch"; then
	git -C "$repo" branch -q -D "$branch" || true
	die "could not create the working tree $dir"
fi
log "working tree $dir on branch $branch (base: tag 'base'; $changed of ${#commits[@]} commits with notes after '---')"
echo "$dir"
