#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Create (or show) a developer's working tree for a series: the pinned base
# with the current series applied as commits on branch dev-NAME.  Edit and
# commit there, then run scripts/export-series.sh NAME to regenerate the
# series folder.
#
#   scripts/devtree.sh linux|linux-event|linux-split|qemu|spec [DIR]
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
mkdir -p "$(dirname "$dir")"
repo=$(git -C "$applied" rev-parse --git-common-dir)
branch=dev-$name-$(date +%s)
git -C "$repo" worktree add -q -b "$branch" "$dir" "$(git -C "$applied" rev-parse HEAD)"
git -C "$dir" config user.name "virtio-net GSO limits project"
git -C "$dir" config user.email "gso-limits@project.invalid"
log "working tree $dir on branch $branch (base: tag 'base')"
echo "$dir"
