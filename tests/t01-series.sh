#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The series are the product: each applies with git am on its pinned
# base, every patch carries the project's sign-off, each tree's own
# checkpatch is clean (kernel: --strict), and a patch that does not apply
# stops the build naming the patch.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$GSO_TOP"

ident='virtio-net GSO limits project <gso-limits@project.invalid>'

for s in linux:kernel-patches linux-event:kernel-event-patches \
	linux-split:kernel-split-patches qemu:qemu-patches \
	qemu-test:qemu-test-patches spec:spec; do
	name=${s%%:*} dir=${s#*:}
	mapfile -t patches < <(find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | sort)
	if [ ${#patches[@]} -eq 0 ]; then
		log_test "series $name: applies with git am" FAIL "no patches in $dir"
		continue
	fi
	# A cover letter for a series, none for a lone patch (netdev's rule:
	# "[PATCH net-next] subject", its notes below its own "---").
	if [ ${#patches[@]} -eq 1 ]; then
		[ ! -f "$dir/0000-cover-letter.patch" ] ||
			check_err 1 "$dir is one patch and has a cover letter"
		grep -qE '^Subject: \[[^]]*[0-9]+/[0-9]+\]' "${patches[0]}" &&
			check_err 1 "${patches[0]##*/} is numbered: $(grep -m1 '^Subject:' "${patches[0]}")"
		log_test "series $name: one patch, no cover letter, not numbered"
	else
		[ -f "$dir/0000-cover-letter.patch" ] ||
			check_err 1 "$dir has no cover letter"
		log_test "series $name: a cover letter for its ${#patches[@]} patches"
	fi
	tree=$(scripts/tree.sh "$name" 2>"$TEST_LOG_DIR/tree-$name.err") ||
		check_err $? "$(cat "$TEST_LOG_DIR/tree-$name.err")"
	what="${#patches[@]} patches apply"
	[ ${#patches[@]} -gt 1 ] || what="1 patch applies"
	log_test "series $name: $what with git am"

	for p in "${patches[@]}"; do
		grep -qF "Signed-off-by: $ident" "$p" ||
			check_err $? "${p##*/} lacks 'Signed-off-by: $ident'"
		grep -qF "From: $ident" "$p" ||
			check_err $? "${p##*/} is not authored by the project identity"
	done
	log_test "series $name: author and Signed-off-by on every patch"

	case $name in
	linux|linux-event|linux-split) cp=(scripts/checkpatch.pl --strict --no-signoff -q) ;;
	qemu|qemu-test)  cp=(scripts/checkpatch.pl -q) ;;
	*) continue ;;
	esac
	[ -n "${tree:-}" ] || continue
	for p in "${patches[@]}"; do
		rc=0
		out=$(cd "$tree" && "${cp[@]}" "$GSO_TOP/$p" 2>&1) || rc=$?
		# The one warning QEMU's checkpatch gives every change under
		# include/standard-headers: upstream such a patch is the output of
		# scripts/update-linux-headers.sh once the kernel side is merged,
		# and it gets the same warning then.
		if [ "$name" = qemu ] && grep -q '^Subject: .*linux-headers:' "$p"; then
			out=$(grep -v -e 'are you using scripts/update-linux-headers.sh' <<< "$out")
			grep -qE '^ERROR' <<< "$out" || rc=0
		fi
		# The MAINTAINERS question for new files an entry already covers
		# (checkpatch_excused in tests/lib.sh); the Linux series and the
		# harness's QEMU test devices (hw/net/, tests/qtest/) only.
		if { [[ $name == linux* ]] || [ "$name" = qemu-test ]; } &&
			out=$(checkpatch_excused "$tree" "$p" "$out"); then
			grep -qE '^(ERROR|WARNING|CHECK)' <<< "$out" || rc=0
		fi
		if [ $rc -ne 0 ] || grep -qE '^(ERROR|WARNING|CHECK)' <<< "$out"; then
			check_err 1 "checkpatch on ${p##*/}:
$out"
		fi
	done
	log_test "series $name: checkpatch clean on every patch"
done

# The project's kernel: the three Linux series, each applied alone above,
# also apply stacked (scripts/tree.sh linux-stack, which
# scripts/build-kernel.sh builds): the event, the guest series, the net core
# split.  The event and the guest series are independent: they apply in
# the other order too.
for stack in "linux-stack" \
	"linux kernel-patches kernel-event-patches"; do
	read -r -a args <<< "$stack"
	what="linux-event + linux + linux-split"
	[ "$stack" = linux-stack ] || what="linux then linux-event"
	if scripts/tree.sh "${args[@]}" >/dev/null 2>"$TEST_LOG_DIR/tree-stacked.err"; then
		log_test "series $what: apply, stacked, with git am"
	else
		log_test "series $what: apply, stacked, with git am" FAIL \
			"$(tail -n 5 "$TEST_LOG_DIR/tree-stacked.err")"
	fi
done

# The kernel folders are what the scripts make of them: a developer's
# tree of each (scripts/devtree.sh: the series as commits, each patch's
# notes below its "---" back in its message) exported again
# (scripts/export-series.sh, over a copy of the folder, whose notes it
# must not drop) gives the committed files byte for byte, the notes
# included, and no cover letter for a lone patch.  Only a cover letter's
# Date (the time of the export) may differ.
#
# linux-event (one patch, with notes) also shows the two scripts keeping
# the notes when something goes wrong: a devtree.sh whose rewrite of the
# commits fails (made to: a git whose commit-tree fails, first on the PATH)
# leaves nothing at DIR, so the next call makes the tree anew instead of
# handing back one without notes; and an export from a tree whose commit
# lost its notes is refused, naming the patch, the folder left as it was,
# unless --drop-notes says so.
realgit=$(command -v git)
for s in linux-event:kernel-event-patches linux-split:kernel-split-patches \
	linux:kernel-patches; do
	name=${s%%:*} dir=${s#*:}
	scratch=$(mktemp -d)
	defer rm -rf "$scratch"
	dev=$scratch/dev
	if [ "$name" = linux-event ]; then
		mkdir "$scratch/failing-git"
		cat > "$scratch/failing-git/git" <<-EOF
		#!/bin/sh
		for a; do [ "\$a" != commit-tree ] || { echo "t01: commit-tree made to fail" >&2; exit 1; }; done
		exec '$realgit' "\$@"
		EOF
		chmod +x "$scratch/failing-git/git"
		if PATH=$scratch/failing-git:$PATH scripts/devtree.sh "$name" "$dev" >/dev/null \
			2>"$TEST_LOG_DIR/devtree-failing-$name.err"; then
			check_err 1 "scripts/devtree.sh succeeded with a git whose commit-tree fails"
		fi
		grep -q 'commit-tree made to fail' "$TEST_LOG_DIR/devtree-failing-$name.err" ||
			check_err 1 "scripts/devtree.sh did not fail at commit-tree: $(tail -n 3 "$TEST_LOG_DIR/devtree-failing-$name.err")"
		if [ -e "$dev" ]; then
			check_err 1 "a failed scripts/devtree.sh left $dev behind ($(find "$dev" -mindepth 1 -maxdepth 1 | wc -l) entries)"
			# The leftover worktree goes too (the round trip below takes it as is).
			r=$(git -C "$dev" rev-parse --git-common-dir 2>/dev/null) && b=$(git -C "$dev" symbolic-ref -q --short HEAD) &&
				defer "git -C '$r' worktree remove --force '$dev'; git -C '$r' worktree prune; git -C '$r' branch -q -D '$b'"
		fi
		log_test "series $name: a scripts/devtree.sh that fails rewriting the commits leaves nothing at DIR"
	fi
	cp -r "$dir" "$scratch/out"
	if scripts/devtree.sh "$name" "$dev" >/dev/null 2>"$TEST_LOG_DIR/devtree-$name.err"; then
		repo=$(git -C "$dev" rev-parse --git-common-dir)
		branch=$(git -C "$dev" symbolic-ref -q --short HEAD)
		defer "git -C '$repo' worktree remove --force '$dev'; git -C '$repo' worktree prune; git -C '$repo' branch -q -D '$branch'"
		if scripts/export-series.sh --output "$scratch/out" "$name" "$dev" \
			2>"$TEST_LOG_DIR/export-$name.err"; then
			c=$scratch/out/0000-cover-letter.patch
			if [ -f "$c" ] && [ -f "$dir/0000-cover-letter.patch" ]; then
				sed -i "0,/^Date: /s/^Date: .*/$(grep -m1 '^Date: ' "$dir/0000-cover-letter.patch")/" "$c"
			fi
			out=$(diff -r "$dir" "$scratch/out" 2>&1 | head -n 20) ||
				check_err 1 "$dir differs from its export:
$out"
		else
			check_err 1 "$(tail -n 5 "$TEST_LOG_DIR/export-$name.err")"
		fi
	else
		check_err 1 "$(tail -n 5 "$TEST_LOG_DIR/devtree-$name.err")"
	fi
	log_test "series $name: committed $dir = scripts/devtree.sh + scripts/export-series.sh"

	if [ "$name" != linux-event ] || ! [ -e "$dev/.git" ]; then continue; fi
	p=$(find "$dir" -maxdepth 1 -name '0001-*.patch')
	if [ -z "$(patch_notes "$p")" ]; then
		log_test "series $name: export-series.sh refuses to drop notes" FAIL "${p##*/} has no notes"
		continue
	fi
	# The commit without its notes: its message up to the first "---".
	bare=$(git -C "$dev" log -1 --format=%B HEAD | sed '/^---$/,$d')
	c=$(git -C "$dev" commit-tree 'HEAD^{tree}' -p HEAD^ -m "$bare")
	git -C "$dev" update-ref HEAD "$c"
	rm -rf "$scratch/old"
	cp -r "$dir" "$scratch/old"
	if scripts/export-series.sh --output "$scratch/old" "$name" "$dev" \
		2>"$TEST_LOG_DIR/export-bare-$name.err"; then
		check_err 1 "an export that drops ${p##*/}'s notes was not refused"
	fi
	grep -qF "${p##*/}" "$TEST_LOG_DIR/export-bare-$name.err" ||
		check_err 1 "the refusal does not name ${p##*/}: $(tail -n 3 "$TEST_LOG_DIR/export-bare-$name.err")"
	out=$(diff -r "$dir" "$scratch/old" 2>&1 | head -n 5) ||
		check_err 1 "the refused export changed the folder: $out"
	if scripts/export-series.sh --drop-notes --output "$scratch/old" "$name" "$dev" \
		2>"$TEST_LOG_DIR/export-drop-$name.err"; then
		[ -z "$(patch_notes "$scratch/old/${p##*/}")" ] ||
			check_err 1 "--drop-notes kept ${p##*/}'s notes"
	else
		check_err 1 "--drop-notes: $(tail -n 3 "$TEST_LOG_DIR/export-drop-$name.err")"
	fi
	log_test "series $name: export-series.sh refuses to drop a patch's notes, naming it (unless --drop-notes)"
done

# Broken-patch fixture: the tree step must fail and name the patch.
err=$(scripts/tree.sh spec tests/fixtures/broken-series 2>&1 >/dev/null) && rc=0 || rc=$?
[ "$rc" -ne 0 ] ||
	check_err 1 "a series that does not apply was accepted"
grep -q '0001-broken-on-purpose.patch' <<< "$err" ||
	check_err $? "the failure does not name the patch: $err"
log_test "series: a patch that does not apply fails the build, naming it"

tests_exit
