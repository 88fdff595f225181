#!/usr/bin/env bash
# Issue 12 item 9: each patch of the Linux series (kernel-event-patches/,
# kernel-patches/, then kernel-split-patches/, stacked) builds on its own, and `make W=1
# C=1` (sparse) adds no warning to the objects it touches.
#
# What "builds on its own" covers here: at every commit of the series, in
# one configuration that enables every object the series touches (the
# project kernel's plus configs/perpatch.config), `make prepare` state and
# these objects compiled with W=1 C=1:
#   - the .c files the commit changes (those a kernel Makefile builds);
#   - for a header it changes outside include/ (a driver's own header),
#     the series' .c files in the same directory;
#   - for a header under include/, the .c files that include it directly,
#     when they are a handful (PERPATCH_HANDFUL, 8) and a Makefile builds
#     them.  For a wider header (netdevice.h: over a thousand includers,
#     gso.h, the virtio_net uapi header), those of its direct includers
#     that the series itself changes (virtio_net.c for the uapi header),
#     or, when the series changes none, the first PERPATCH_HANDFUL of them
#     in path order; the whole image is built from the whole series by
#     scripts/build-kernel.sh.
#   - selftest programs (.c under tools/testing/selftests/): compiled as
#     t62 builds gso_split, -std=gnu11 -O2 -Wall -Wextra -Werror against
#     the commit's exported uapi headers (make headers).
# A commit that changes kernel C (.c or .h outside tools/ and
# Documentation/) and compiles no object fails: "0 objects" proves
# nothing.  A commit that changes no C says what was checked instead:
# each selftest script it changes parses (bash -n) and is named in the
# Makefile next to it (else kselftest never runs it), each CONFIG_ line
# it adds to a selftest's config names a symbol some Kconfig defines, and
# a Kconfig change goes through olddefconfig (the configuration is
# restored at that commit).  Anything else it changes (documentation) is
# named in the check's line as not checked here.
# It does not link vmlinux per commit.
#
# Sparse: the kernel (scripts/checker-valid.sh) rejects Debian 12's sparse
# 0.6.4, which does not know __typeof_unqual__, and then silently turns
# C=1 off.  Sparse is run as CHECK="sparse -D__typeof_unqual__=__typeof__":
# every check but the unqualifying of that one typeof (whose qualifiers
# then show as warnings the base has too).  The test fails if kbuild still
# reports that the checker is not usable.  One false positive of that
# sparse is dropped (see split_warnings).
#
# A warning ("file: message", line numbers left out, as a multiset) that
# the same object does not have on the base fails the patch; the base is
# compiled only for the objects that warn, all in one make.
#
# One worktree, the commits checked out one after another, one make per
# commit for all its objects, ccache.  Each commit's result is cached by
# the base checksum, the patches up to it, the config fragments and this
# script: a warm run re-checks nothing, and a change to patch N re-walks
# from N on.  Only a clean result is cached.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/perpatch.sh
. "$(dirname "$0")/harness/perpatch.sh"
cd "$GSO_TOP"

PERPATCH_HANDFUL=${PERPATCH_HANDFUL:-8}
SPARSE_CHECK='sparse -D__typeof_unqual__=__typeof__'

command -v sparse >/dev/null ||
	{ log_test "perpatch: sparse is installed (scripts/setup-deps.sh)" FAIL; tests_exit; }

# The series in the order scripts/tree.sh linux-stack stacks them: the
# event (it applies alone, so its commit builds on the base alone), the
# guest series, the net core split.
series_dirs=()
for d in kernel-event-patches kernel-patches kernel-split-patches; do
	if [ -n "$(find "$GSO_TOP/$d" -maxdepth 1 -name '0001-*.patch' 2>/dev/null)" ]; then
		series_dirs+=("$GSO_TOP/$d")
	fi
done
patches=()
for d in "${series_dirs[@]}"; do
	mapfile -t -O ${#patches[@]} patches < <(find "$d" -maxdepth 1 \
		-name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
done
fragments=("$GSO_TOP/configs/kernel.config" "$GSO_TOP/configs/perpatch.config")
bsum=$(awk '$2 ~ /^linux-/ { print substr($1, 1, 12); exit }' "$GSO_TOP/configs/bases.sha256")
cfgkey=$(files_hash "${fragments[@]}" "$0" "$(dirname "$0")/harness/perpatch.sh")
cache=$GSO_CACHE/perpatch
mkdir -p "$cache/results"
# keys[i]: the cache key of the series' commit i+1.
keys=()
for i in "${!patches[@]}"; do
	keys+=("$( { echo "$bsum $cfgkey"; files_hash "${patches[@]:0:i+1}"; } | sha256sum | cut -c1-16)")
done
result_of() { echo "$cache/results/$1.txt"; }

# print_cached: every commit's cached line; false if one is missing.
all_cached() {
	local k
	for k in "${keys[@]}"; do [ -f "$(result_of "$k")" ] || return 1; done
}
# config_kept CONFIG: every =y/=m option of the fragments survived
# olddefconfig in CONFIG (the per-patch configuration), else a failure.
config_kept() {
	local line bad=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=[ym]) ;; *) continue ;; esac
		grep -qx "$line" "$1" || { printf '    %s did not survive olddefconfig\n' "$line"; bad=1; }
	done < <(cat "${fragments[@]}")
	check_err $bad "the per-patch configuration lacks options"
	log_test "perpatch: one configuration builds every object the series touches"
}
# Warm: the configuration the results were built with is checked again
# (the same check as a cold run's, so both report the same lines).
if all_cached && [ -f "$cache/config-$cfgkey" ]; then
	config_kept "$cache/config-$cfgkey"
	for k in "${keys[@]}"; do cat "$(result_of "$k")"; done
	tests_exit
fi

applied=$(scripts/tree.sh linux "${series_dirs[@]}")
repo=$(git -C "$applied" rev-parse --git-common-dir)
wt=$cache/worktree
exec 9> "$cache/.lock"
flock 9
if [ ! -e "$wt/.git" ]; then
	git -C "$repo" worktree add -q --detach "$wt" base
fi
head=$(git -C "$applied" rev-parse HEAD)
# The worktree is shared by every run's t03 (this lock): one that was
# killed left it at another commit, or with a build cut short (a
# truncated objtool), repaired first (scripts/lib.sh, tree_enter).
tree_enter "$wt" "$head" ||
	{ log_test "perpatch: $wt usable after a killed run" FAIL; tests_exit; }
mapfile -t commits < <(git -C "$applied" rev-list --reverse base.."$head")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	{ log_test "perpatch: one commit per patch (${#commits[@]} commits, ${#patches[@]} patches)" FAIL; tests_exit; }

use_ccache "$wt"
export KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=gso KBUILD_BUILD_HOST=gso
# Each make marked in the worktree's git dir while it runs (tree_kmake).
kmake() { tree_kmake "$wt" "$@"; }
out=$TEST_LOG_DIR/perpatch
mkdir -p "$out"

# The configuration: made once at the series' last commit, where every
# option the series adds exists, and restored (olddefconfig then drops
# what a commit does not know yet) at the first commit built and at every
# commit that changes a Kconfig file.  Restoring at every commit would
# re-sync the configuration and remake the prepare stage each time.
git -C "$wt" checkout -q --detach "$head"
kmake -s tinyconfig >/dev/null
"$wt/scripts/kconfig/merge_config.sh" -m -O "$wt" "$wt/.config" \
	"$wt/kernel/configs/kvm_guest.config" "${fragments[@]}" >/dev/null
kmake -s olddefconfig >/dev/null
cp "$wt/.config" "$cache/config-$cfgkey"
config_kept "$wt/.config"
restore_config() {
	cp "$cache/config-$cfgkey" "$wt/.config"
	kmake -s olddefconfig >/dev/null
}

# objects_of COMMIT: the .c files to compile at COMMIT, one per line.
series_c=()
mapfile -t series_c < <(git -C "$applied" diff --name-only base "$head" -- '*.c')
objects_of() {
	local c=$1 f h inc users
	{
		git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" -- '*.c'
		while IFS= read -r h; do
			if [[ $h == include/* ]]; then
				inc=${h#include/}
				inc=${inc#uapi/}
				mapfile -t users < <(git -C "$wt" grep -l -F "#include <$inc>" "$c" -- '*.c' |
					sed "s/^$c://")
				if [ ${#users[@]} -le "$PERPATCH_HANDFUL" ]; then
					printf '%s\n' "${users[@]}"
				elif ! printf '%s\n' "${users[@]}" | grep -Fx -f <(printf '%s\n' "${series_c[@]}"); then
					printf '%s\n' "${users[@]}" | sort | sed -n "1,${PERPATCH_HANDFUL}p"
				fi
				continue
			fi
			for f in "${series_c[@]}"; do
				[ "$(dirname "$h")" = "$(dirname "$f")" ] && echo "$f"
			done
		done < <(git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" -- '*.h')
	} | sort -u | while IFS= read -r f; do
		# Only objects of a kernel Makefile (not selftests, not a .c
		# file #included by another).
		if [ -z "$f" ] || [ ! -f "$wt/$f" ]; then continue; fi
		grep -qsw "$(basename "${f%.c}").o" "$wt/$(dirname "$f")/Makefile" \
			"$wt/$(dirname "$f")/Kbuild" && echo "$f"
	done
}

# build_objects LOG FILE.c...: compile them with W=1 C=1 in one make, each
# target's output kept together (-Otarget); the make's output in LOG.
build_objects() {
	local log=$1 f
	shift
	for f in "$@"; do rm -f "$wt/${f%.c}.o"; done
	kmake -j"$(jobs_count)" -Otarget W=1 C=1 CHECK="$SPARSE_CHECK" \
		"${@/%.c/.o}" > "$log" 2>&1
}
# split_warnings LOG DIR: for each object built in LOG, DIR/<file>.w with
# its warnings and errors as "file: message" (line numbers left out, they
# move from patch to patch), sorted.  A warning belongs to the object whose
# CC or CHECK line came last before it.  Read with the tree still at the
# commit built: one false positive of sparse 0.6.4 is left out, "bad
# constant expression" on a MODULE_*() or module_param*() line
# (MODULE_INFO's static_assert on __builtin_strlen(), which that sparse
# cannot evaluate), since every new module would otherwise fail.
split_warnings() {
	local log=$1 dir=$2
	mkdir -p "$dir"
	awk -v dir="$dir" -v wt="$wt" '
		function srcline(f, n,   l, i) {
			i = 0
			while ((getline l < (wt "/" f)) > 0) if (++i == n) break
			close(wt "/" f)
			return i == n ? l : ""
		}
		/^  (CC|CHECK) / { cur = $NF; sub(/\.o$/, ".c", cur); gsub(/\//, "_", cur); next }
		/^[^ :]+:[0-9]+:([0-9]+:)? (warning|error): / && cur != "" {
			split($0, at, ":")
			if ($0 ~ /: error: bad constant expression$/ && srcline(at[1], at[2]) ~ /^[ \t]*(MODULE_[A-Z0-9_]+|module_param[a-z_]*)\(/)
				next
			line = $0
			sub(/:[0-9]+:([0-9]+:)? /, ": ", line)
			print line > (dir "/" cur ".w")
		}' "$log"
	for f in "$dir"/*.w; do [ -f "$f" ] && sort -o "$f" "$f"; done
	return 0
}
checker_off() { grep -q 'specified, but .* is not available or not up to date' "$1"; }

# make prepare once, on the base.
git -C "$wt" checkout -q --detach base
restore_config
if ! kmake -s -j"$(jobs_count)" prepare > "$out/prepare.log" 2>&1; then
	tail -n 20 "$out/prepare.log"
	log_test "perpatch: make prepare on the base" FAIL
	tests_exit
fi

# other_checks N COMMIT: tests/harness/perpatch.sh.

# The walk: commits whose result is cached are checked out (the next
# ones build on their tree) but not compiled.
declare -A objs_at=()
first=1 n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	[ -f "$(result_of "${keys[n - 1]}")" ] && continue
	git -C "$wt" checkout -q --detach "$c"
	if [ $first = 1 ] || [ -n "$(git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" -- '*Kconfig*')" ]; then
		restore_config
	fi
	first=0
	mapfile -t objs < <(objects_of "$c")
	objs_at[$n]="${objs[*]}"
	other_checks "$n" "$c"
	[ ${#objs[@]} -gt 0 ] || continue
	log=$out/$n.log
	build_objects "$log" "${objs[@]}" || echo "make failed" >> "$log.failed"
	for f in "${objs[@]}"; do
		[ -f "$wt/${f%.c}.o" ] || echo "$f" >> "$out/$n.missing"
	done
	split_warnings "$log" "$out/$n"
done

# The base's warnings, for the objects that warn and exist on the base,
# in one make (cached by base and configuration).
basedir=$cache/base-$bsum-$cfgkey
mkdir -p "$basedir"
need=()
for w in "$out"/*/*.w; do
	[ -f "$w" ] || continue
	f=${w##*/}
	f=${f%.w}
	[ -f "$basedir/$f.w" ] || [ -f "$basedir/$f.none" ] && continue
	for c in "${series_c[@]}"; do
		[ "${c//\//_}" = "$f" ] || continue
		if git -C "$wt" cat-file -e "base:$c" 2>/dev/null; then
			need+=("$c")
		else
			: > "$basedir/$f.none"
		fi
	done
done
if [ ${#need[@]} -gt 0 ]; then
	mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
	git -C "$wt" checkout -q --detach base
	restore_config
	build_objects "$out/base.log" "${need[@]}" || true
	split_warnings "$out/base.log" "$out/base"
	for c in "${need[@]}"; do
		f=${c//\//_}
		if [ -f "$out/base/$f.w" ]; then cp "$out/base/$f.w" "$basedir/$f.w"; else : > "$basedir/$f.none"; fi
	done
fi

# The verdicts, in series order.
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	res=$(result_of "${keys[n - 1]}")
	if [ -f "$res" ]; then cat "$res"; continue; fi
	subject=$(git -C "$wt" log -1 --format=%s "$c")
	read -r -a objs <<< "${objs_at[$n]:-}"
	log=$out/$n.log
	if [ ${#objs[@]} -gt 0 ]; then
		checker_off "$log" && check_err 1 "kbuild turned C=1 off: sparse is not usable ($(sparse --version))"
		[ -f "$log.failed" ] && check_err 1 "make failed: $(grep -m 3 -E 'error|\*\*\*' "$log")"
		[ -f "$out/$n.missing" ] && check_err 1 "not compiled: $(tr '\n' ' ' < "$out/$n.missing")"
		for f in "${objs[@]}"; do
			w=$out/$n/${f//\//_}.w
			[ -s "$w" ] || continue
			basew=$basedir/${f//\//_}.w
			[ -f "$basew" ] || basew=/dev/null
			new=$(comm -13 "$basew" "$w")
			[ -z "$new" ] || check_err 1 "new W=1/sparse warnings in $f:
$new"
		done
	fi
	# Kernel C changed, nothing compiled: the check would be empty.
	[ ${#objs[@]} -gt 0 ] || [ "${kc_at[$n]:-0}" -eq 0 ] ||
		check_err 1 "changes ${kc_at[$n]} kernel .c/.h file(s) but compiles 0 objects"
	[ ! -f "$out/$n.other" ] || check_err 1 "$(cat "$out/$n.other")"
	checked="${#objs[@]} objects"
	[ ${#objs[@]} -gt 0 ] || [ "${kc_at[$n]:-0}" -gt 0 ] || checked="no kernel C"
	[ -z "${what_at[$n]:-}" ] || checked="$checked; ${what_at[$n]}"
	name=$(printf 'perpatch: %02d %s (%s)' "$n" "$subject" "$checked")
	if [ "$RET" -eq 0 ]; then
		printf 'TEST: %-60s [ OK ]\n' "$name" > "$res"
	fi
	log_test "$name"
done
tests_exit
