#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 28: the backports under backports/TARGET/ are what packagers take.
# For each TARGET (a distribution tree of configs/distro-trees.tsv):
#   - the format-patch series (split/, and guest/ where there is one)
#     applies with git am to the distribution's tree
#     (scripts/backport-tree.sh);
#   - linux-7.3.4 (the rebase nearest to what upstream sees): the
#     tree's checkpatch.pl --strict is clean on every patch (t01's rule);
#   - scripts/export-backport.sh regenerates every committed file
#     byte for byte (split/, split.ports, debian/);
#   - no backport is stale: every patch of main's series has a port, and
#     the patch-id each port recorded of its original is still main's
#     (else: what to refresh, with which commands);
#   - the DEP-3 quilt series applies with `quilt push -a` as
#     docs/packaging.md tells a packager (copied into the tree's
#     debian/patches/, its lines appended to the series file; in a
#     source package's tree after Debian's own patches), and gives the
#     same tree as git am;
#   - every patch compiles on its own: at each commit, the .c files it
#     touches (for a header outside include/, the series' .c files
#     beside it) with W=1, no warning the base does not have for the same
#     object.  One small configuration (tinyconfig, kvm_guest.config and
#     configs/kernel.config: it enables every object the split touches),
#     one `make prepare` per tree, ccache.  Each commit's clean result is
#     cached by the tree's checksum, the patches up to it, the config
#     fragments and this script, so a warm run compiles nothing.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/perpatch.sh
. "$(dirname "$0")/harness/perpatch.sh"
cd "$GSO_TOP"

cache=$GSO_CACHE/backports-check
mkdir -p "$cache/results"
fragments=("$GSO_TOP/configs/kernel.config")
cfgkey=$(files_hash "${fragments[@]}" "$0" "$GSO_TOP/tests/harness/perpatch.sh")

targets=()
for d in backports/linux-*/; do
	[ -d "$d/split" ] && targets+=("$(basename "$d")")
done
if [ ${#targets[@]} -eq 0 ]; then
	log_test "backports: backports/linux-*/split exist" FAIL
	tests_exit
fi

# checkpatch_clean TREE PATCH: the tree's checkpatch.pl --strict, with
# t01's one exception: the MAINTAINERS question for a new file that an
# entry already covers (get_maintainer.pl names a maintainer for it).
CHECKPATCH_TARGET=linux-7.3.4
checkpatch_clean() {
	local tree=$1 p=$2 out rc=0
	out=$(cd "$tree" && scripts/checkpatch.pl --strict --no-signoff -q "$GSO_TOP/$p" 2>&1) || rc=$?
	if out=$(checkpatch_excused "$tree" "$GSO_TOP/$p" "$out"); then
		grep -qE '^(ERROR|WARNING|CHECK)' <<< "$out" || rc=0
	fi
	if [ $rc -ne 0 ] || grep -qE '^(ERROR|WARNING|CHECK)' <<< "$out"; then
		check_err 1 "checkpatch on ${p##*/}:
$out"
	fi
}

# record FILE NAME: log_test NAME, and keep a passing line in FILE (the
# cache a warm run replays).
record() {
	if [ "$RET" -eq 0 ]; then printf 'TEST: %-60s [ OK ]\n' "$2" > "$1"; fi
	log_test "$2"
}
# The packager's quilt commands, as docs/packaging.md gives them (the
# block between its t07:quilt markers), run as written.
quilt_cmds=$(awk '/<!-- t07:quilt -->/ { f = 1; next } /<!-- \/t07:quilt -->/ { f = 0 }
	f && !/^```/' docs/packaging.md)
if [ -z "$quilt_cmds" ]; then
	log_test "backports: docs/packaging.md has the t07:quilt block" FAIL
	tests_exit
fi
patch_id() { git patch-id --stable < "$1" | cut -d' ' -f1; }
patches_of() {
	find "$1" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort
}

# stale TARGET SERIES MAIN: every main patch ported, every port current.
stale_check() {
	local t=$1 s=$2 main=$3 f mfile mid how m
	local ports=backports/$t/$s.ports
	[ -f "$ports" ] || { check_err 1 "$ports missing"; return; }
	while IFS=$'\t' read -r f mfile mid how; do
		if [ ! -f "$mfile" ]; then
			check_err 1 "backports/$t/$s/$f ports $mfile, which main no longer has"
		elif [ "$(patch_id "$mfile")" != "$mid" ]; then
			check_err 1 "backports/$t/$s/$f is stale: $mfile changed since it was ported ($how)"
		fi
	done < "$ports"
	for d in $main; do
		while IFS= read -r m; do
			grep -qF "	$m	" "$ports" || check_err 1 "$m has no port in backports/$t/$s"
		done < <(patches_of "$d")
	done
	if [ "$RET" -ne 0 ]; then
		printf '    refresh: scripts/backport-tree.sh --dev DIR %s%s\n' "$t" \
			"$([ "$s" = split ] || echo " backports/$t/$s")"
		printf '             (or from main: scripts/backport-tree.sh --dev DIR %s %s)\n' "$t" "${main// / + }"
		printf '             port the change into DIR'"'"'s commits, then\n'
		printf '             scripts/export-backport.sh%s %s DIR\n' \
			"$([ "$s" = split ] || echo " --series $s")" "$t"
	fi
}

# The split tree is moved between commits below (the quilt check, the
# per-patch builds), holding its lock (scripts/lib.sh, tree_lock_file) from
# the moment scripts/backport-tree.sh hands it out to the end of its
# builds, so that another run's t07 neither moves it under this one's
# export nor finds it elsewhere than at its series' commit.  On entry what
# a killed run left is repaired (tree_enter: its series' commit, a build
# cut short); release_tree, also at exit (defer), leaves it at its series'
# commit and lets the lock go.
moving='' moving_tag=''
release_tree() {
	[ -n "$moving" ] || return 0
	git -C "$moving" checkout -q -f --detach "$moving_tag"
	git -C "$moving" clean -q -fdx -- .pc debian
	moving=''
	flock -u 9
}
defer release_tree

for t in "${targets[@]}"; do
	split_tree='' split_ps=()
	want=$(awk -F'\t' -v n="$t" '!/^#/ && $1 == n { print $6 }' configs/distro-trees.tsv)
	kind=$(awk -F'\t' -v n="$t" '!/^#/ && $1 == n { print $2 }' configs/distro-trees.tsv)
	if [ -z "$want" ]; then
		log_test "backport $t: named in configs/distro-trees.tsv" FAIL
		continue
	fi
	for s in split guest; do
		[ -d "backports/$t/$s" ] || continue
		main=kernel-split-patches
		[ "$s" = split ] || main="kernel-event-patches kernel-patches"
		mapfile -t ps < <(patches_of "backports/$t/$s")
		tree=$(scripts/backport-tree.sh "$t" "backports/$t/$s" 2>"$TEST_LOG_DIR/t07-$t-$s.err") ||
			check_err $? "$(tail -n 5 "$TEST_LOG_DIR/t07-$t-$s.err")"
		log_test "backport $t $s: ${#ps[@]} patches apply with git am"
		[ -n "${tree:-}" ] || continue
		if [ "$s" = split ]; then
			exec 9> "$(tree_lock_file "$tree")" || { log_test "backport $t split: $tree usable" FAIL "no lock file"; continue; }
			flock 9
			moving=$tree moving_tag=series-${tree##*/"$t"-}
			if ! tree_enter "$tree" "$moving_tag" .pc debian 2>"$TEST_LOG_DIR/t07-$t-enter.err"; then
				log_test "backport $t split: $tree usable" FAIL "$(tail -n 3 "$TEST_LOG_DIR/t07-$t-enter.err")"
				moving=''
				flock -u 9
				continue
			fi
			cat "$TEST_LOG_DIR/t07-$t-enter.err" >&2
			split_tree=$tree split_ps=("${ps[@]}")
		fi

		x=$(mktemp -d)
		if scripts/export-backport.sh --series "$s" --output "$x" "$t" "$tree" \
			2>"$TEST_LOG_DIR/t07-$t-$s-export.err"; then
			for f in "$s" "$s.ports" debian; do
				[ -e "$x/$f" ] || continue
				out=$(diff -r "backports/$t/$f" "$x/$f" 2>&1 | head -n 20) ||
					check_err 1 "backports/$t/$f differs from the export:
$out"
			done
		else
			check_err 1 "$(tail -n 5 "$TEST_LOG_DIR/t07-$t-$s-export.err")"
		fi
		rm -rf "$x"
		log_test "backport $t $s: committed export = scripts/export-backport.sh"

		# The rebase for upstream (the newest stable tree) is held to the
		# main series' rule: checkpatch --strict clean in its own tree.
		if [ "$t" = "$CHECKPATCH_TARGET" ]; then
			for p in "${ps[@]}"; do
				checkpatch_clean "$tree" "$p"
			done
			log_test "backport $t $s: checkpatch --strict clean on every patch"
		fi

		stale_check "$t" "$s" "$main"
		log_test "backport $t $s: every port current against ${main// /, }"
	done
	[ -n "${split_tree:-}" ] || continue

	# The quilt check, then the per-patch builds, in the git am tree
	# itself (one checkout per target, not two): it is moved between
	# commits and left at its series' last commit again (release_tree,
	# at exit too), build products aside, which are .gitignore'd.  Its
	# lock is held since the export above.
	wt=$split_tree
	reset_wt() {
		git -C "$wt" checkout -q -f --detach "$1"
		git -C "$wt" clean -q -fdx -- .pc debian
	}
	mapfile -t commits < <(git -C "$wt" rev-list --reverse "base..$moving_tag")

	# quilt, as docs/packaging.md says (cached by the folder's content).
	qkey=$( { echo "$want $quilt_cmds"; find "backports/$t/debian" -type f | sort | xargs cat; } |
		sha256sum | cut -c1-16)
	if [ -f "$cache/results/quilt-$qkey" ]; then
		cat "$cache/results/quilt-$qkey"
	else
		reset_wt base
		if (cd "$wt" && CLONE=$GSO_TOP TARGET=$t bash -euo pipefail -c "$quilt_cmds") \
			> "$TEST_LOG_DIR/t07-$t-quilt.log" 2>&1; then
			# The files the series changes, forced in: Debian's linux-source
			# trees ignore every top-level path in their .gitignore.
			mapfile -t touched < <(git -C "$wt" diff --name-only base "${commits[-1]}")
			git -C "$wt" add -f -- "${touched[@]}" >/dev/null 2>&1 ||
				check_err 1 "the quilt series did not create every file git am does"
			git -C "$wt" diff --cached --quiet "${commits[-1]}" -- "${touched[@]}" ||
				check_err 1 "the quilt series gives another tree than git am: $(git -C "$wt" diff --cached --stat "${commits[-1]}" -- "${touched[@]}" | tail -n 3)"
		else
			check_err 1 "quilt push -a failed: $(tail -n 5 "$TEST_LOG_DIR/t07-$t-quilt.log")"
		fi
		git -C "$wt" reset -q
		reset_wt "${commits[-1]}"
		record "$cache/results/quilt-$qkey" "backport $t: debian/patches applies with quilt push -a ($kind tree)"
	fi

	# Per-patch builds.
	keys=()
	for i in "${!split_ps[@]}"; do
		keys+=("$( { echo "$want $cfgkey"; files_hash "${split_ps[@]:0:i+1}"; } | sha256sum | cut -c1-16)")
	done
	mapfile -t series_c < <(git -C "$wt" diff --name-only base "${commits[-1]}" -- '*.c')
	objects_of() {
		{
			git -C "$wt" diff-tree --no-commit-id --name-only -r "$1" -- '*.c'
			git -C "$wt" diff-tree --no-commit-id --name-only -r "$1" -- '*.h' |
				while IFS= read -r h; do
					[[ $h == include/* ]] && continue
					for f in "${series_c[@]}"; do
						[ "$(dirname "$h")" = "$(dirname "$f")" ] && echo "$f"
					done
				done
		} | sort -u | while IFS= read -r f; do
			if [ -z "$f" ] || [ ! -f "$wt/$f" ]; then continue; fi
			grep -qsw "$(basename "${f%.c}").o" "$wt/$(dirname "$f")/Makefile" && echo "$f"
		done
	}
	# warnings LOG: "file: message" lines, line numbers left out, sorted.
	warnings() {
		sed -nE 's/^([^ :]+):[0-9]+:([0-9]+:)? (warning|error): /\1: \3: /p' "$1" | sort
	}
	# The tree is prepared only when a commit's result is not cached.  A
	# commit that compiles no kernel object (the selftest) is checked as
	# t03 checks it (tests/harness/perpatch.sh): its selftest programs
	# compiled against the tree's `make headers`, its scripts parsed and
	# named in their Makefile; one that changes kernel C and compiles
	# nothing fails.
	todo=0
	for i in "${!commits[@]}"; do
		[ -f "$cache/results/${keys[i]}" ] || todo=1
	done
	if [ $todo = 0 ]; then
		for k in "${keys[@]}"; do cat "$cache/results/$k"; done
		release_tree
		continue
	fi
	use_ccache "$wt"
	export KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=gso KBUILD_BUILD_HOST=gso
	# Each make marked in the tree's git dir while it runs (tree_kmake).
	kmake() { tree_kmake "$wt" "$@"; }
	reset_wt "${commits[-1]}"
	if [ ! -f "$wt/.config-$cfgkey" ]; then
		kmake -s tinyconfig >/dev/null
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$wt" "$wt/.config" \
			"$wt/kernel/configs/kvm_guest.config" "${fragments[@]}" >/dev/null
		kmake -s olddefconfig >/dev/null
		cp "$wt/.config" "$wt/.config-$cfgkey"
	fi
	cp "$wt/.config-$cfgkey" "$wt/.config"
	reset_wt base
	if ! kmake -s -j"$(jobs_count)" olddefconfig prepare > "$TEST_LOG_DIR/t07-$t-prepare.log" 2>&1; then
		log_test "backport $t: make prepare on the base" FAIL "$(tail -n 5 "$TEST_LOG_DIR/t07-$t-prepare.log")"
		release_tree
		continue
	fi
	for i in "${!commits[@]}"; do
		c=${commits[i]} k=${keys[i]}
		name="backport $t: patch $((i + 1))/${#commits[@]} builds (W=1)"
		if [ -f "$cache/results/$k" ]; then cat "$cache/results/$k"; continue; fi
		git -C "$wt" checkout -q -f --detach "$c"
		mapfile -t objs < <(objects_of "$c")
		if [ ${#objs[@]} -eq 0 ]; then
			out=$TEST_LOG_DIR/t07-$t-other
			mkdir -p "$out"
			rm -f "$out/$i.other"
			other_checks "$i" "$c"
			[ "${kc_at[$i]}" -eq 0 ] ||
				check_err 1 "changes ${kc_at[$i]} kernel .c/.h file(s) but compiles 0 objects"
			[ ! -s "$out/$i.other" ] || check_err 1 "$(cat "$out/$i.other")"
			[ -n "${what_at[$i]}" ] || check_err 1 "changes nothing t07 can check"
			record "$cache/results/$k" "$name (no kernel object; ${what_at[$i]})"
			continue
		fi
		for f in "${objs[@]}"; do rm -f "$wt/${f%.c}.o"; done
		blog=$TEST_LOG_DIR/t07-$t-$((i + 1)).log
		rc=0
		kmake -j"$(jobs_count)" W=1 olddefconfig "${objs[@]/%.c/.o}" > "$blog" 2>&1 || rc=$?
		check_err $rc "make ${objs[*]/%.c/.o} failed: $(grep -m3 -E 'error' "$blog")"
		for f in "${objs[@]}"; do
			[ -f "$wt/${f%.c}.o" ] || check_err 1 "${f%.c}.o was not built (not in this config?)"
		done
		warnings "$blog" > "$blog.w"
		if [ -s "$blog.w" ]; then
			git -C "$wt" checkout -q -f --detach base
			bobjs=()
			for f in "${objs[@]}"; do [ -f "$wt/$f" ] && rm -f "$wt/${f%.c}.o" && bobjs+=("${f%.c}.o"); done
			kmake -j"$(jobs_count)" -k W=1 "${bobjs[@]}" > "$blog.base" 2>&1 || true
			warnings "$blog.base" > "$blog.base.w"
			new=$(comm -23 "$blog.w" "$blog.base.w")
			[ -z "$new" ] || check_err 1 "new warnings:
$new"
		fi
		record "$cache/results/$k" "$name"
	done
	release_tree
done

tests_exit
