#!/usr/bin/env bash
# Issue 12 item 9: each patch of the Linux series (kernel-patches/, then
# kernel-split-patches/ stacked on it) compiles on its own, and `make W=1
# C=1` (sparse) adds no warning to the objects it touches.
#
# The walk happens in a worktree of its own, commit by commit, with one
# configuration that builds every object the series touches (the project
# kernel's plus configs/perpatch.config).  Per commit it compiles, with
# W=1 C=1, the .c files the commit changes and, when it changes a header
# of a driver's own directory, the series' .c files next to it.  (A shared
# header in include/ is checked through the .c files of the same patch; the
# whole image is built from the series by scripts/build-kernel.sh.)  A
# patch fails on a warning (file and message, line numbers left out) that
# the same object does not have on the base, which is compiled only for
# the objects that warn.  The result is cached by the hash of the patches,
# the fragments and this script, so a warm run costs nothing (only a clean
# walk is cached).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$GSO_TOP"

command -v sparse >/dev/null ||
	{ log_test "perpatch: sparse is installed (scripts/setup-deps.sh)" FAIL; tests_exit; }

series_dirs=("$GSO_TOP/kernel-patches")
[ -n "$(find "$GSO_TOP/kernel-split-patches" -maxdepth 1 -name '0001-*.patch' 2>/dev/null)" ] &&
	series_dirs+=("$GSO_TOP/kernel-split-patches")
mapfile -t patches < <(for d in "${series_dirs[@]}"; do
	find "$d" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*'; done)
fragments=("$GSO_TOP/configs/kernel.config" "$GSO_TOP/configs/perpatch.config")
key=$(files_hash "${patches[@]}" "${fragments[@]}" "$0")
cache=$GSO_CACHE/perpatch
result=$cache/result-$key.txt
mkdir -p "$cache"

if [ -f "$result" ]; then
	cat "$result"
	grep -q '\[FAIL\]' "$result" && exit $ksft_fail
	exit $ksft_pass
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
mapfile -t commits < <(git -C "$applied" rev-list --reverse base.."$head")

export CCACHE_DIR=$GSO_CACHE/ccache CCACHE_BASEDIR=$wt CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=gso KBUILD_BUILD_HOST=gso
kmake() { nice -n 5 make -C "$wt" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
out=$TEST_LOG_DIR/perpatch
mkdir -p "$out"
rm -f "$result.tmp"

# record_test NAME: log_test, and keep the line for the cached result.
record_test() {
	local res=OK
	[ "$RET" -eq 0 ] || res=FAIL
	if [ $res = OK ]; then
		printf 'TEST: %-60s [ OK ]\n' "$1" >> "$result.tmp"
	else
		printf 'TEST: %-60s [FAIL]\n' "$1" >> "$result.tmp"
	fi
	log_test "$1"
}

# The configuration: made once at the series' last commit, where every
# option the series adds exists, and restored before each commit's build
# (olddefconfig then drops what that commit does not know yet).
git -C "$wt" checkout -q --detach "$head"
kmake -s tinyconfig >/dev/null
"$wt/scripts/kconfig/merge_config.sh" -m -O "$wt" "$wt/.config" \
	"$wt/kernel/configs/kvm_guest.config" "${fragments[@]}" >/dev/null
kmake -s olddefconfig >/dev/null
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=[ym]) ;; *) continue ;; esac
	grep -qx "$line" "$wt/.config" || { printf '    %s did not survive olddefconfig\n' "$line"; bad=1; }
done < <(cat "${fragments[@]}")
cp "$wt/.config" "$cache/config-$key"
check_err $bad "the per-patch configuration lacks options"
record_test "perpatch: one configuration builds every object the series touches"

# objects_of COMMIT: the .c files to compile at COMMIT, one per line.
series_c=()
mapfile -t series_c < <(git -C "$applied" diff --name-only base "$head" -- '*.c')
objects_of() {
	local c=$1 f h
	{
		git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" -- '*.c'
		while IFS= read -r h; do
			[[ $h == include/* ]] && continue
			for f in "${series_c[@]}"; do
				[ "$(dirname "$h")" = "$(dirname "$f")" ] && echo "$f"
			done
		done < <(git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" -- '*.h')
	} | sort -u | while IFS= read -r f; do
		# Only objects of a kernel Makefile (not selftests, not a .c
		# file #included by another).
		[ -f "$wt/$f" ] || continue
		grep -qsw "$(basename "${f%.c}").o" "$wt/$(dirname "$f")/Makefile" \
			"$wt/$(dirname "$f")/Kbuild" && echo "$f"
	done
}

# build_object FILE.c LOG: compile it with W=1 C=1 (sparse), output in LOG.
build_object() {
	local f=$1 log=$2
	rm -f "$wt/${f%.c}.o"
	kmake W=1 C=1 "${f%.c}.o" > "$log" 2>&1
}
# warnings_of LOG: the warnings and errors in LOG as "file: message", with
# line numbers left out (they move from patch to patch), sorted.
warnings_of() {
	{ grep -E '^[^ :]+:[0-9]+:([0-9]+:)? (warning|error): ' "$1" || true; } |
		sed -E 's/^([^ :]+):[0-9]+:([0-9]+:)? /\1: /' | sort
}

restore_config() {
	cp "$cache/config-$key" "$wt/.config"
	kmake -s olddefconfig >/dev/null
}

# make prepare once, on the base.
git -C "$wt" checkout -q --detach base
restore_config
kmake -s prepare > "$out/prepare.log" 2>&1 || {
	tail -n 20 "$out/prepare.log"
	log_test "perpatch: make prepare on the base" FAIL
	rm -f "$result.tmp"
	tests_exit
}

# base_warnings FILE.c: the object's warnings on the base (cached by file;
# none for a file the base does not have).  The walk's worktree goes back to
# the base for it and returns to its commit.
base_warnings() {
	local f=$1 w=$cache/base-${1//\//_}.warnings
	if [ ! -f "$w" ]; then
		git -C "$wt" show "base:$f" > /dev/null 2>&1 || { : > "$w"; cat "$w"; return; }
		local cur
		cur=$(git -C "$wt" rev-parse HEAD)
		git -C "$wt" checkout -q --detach base
		restore_config
		build_object "$f" "$out/base-${f//\//_}.log" || true
		warnings_of "$out/base-${f//\//_}.log" > "$w"
		git -C "$wt" checkout -q --detach "$cur"
		restore_config
	fi
	cat "$w"
}

n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$(git -C "$wt" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	restore_config
	mapfile -t objs < <(objects_of "$c")
	for f in "${objs[@]}"; do
		log=$out/$n-${f//\//_}.log
		if ! build_object "$f" "$log"; then
			check_err 1 "$f does not compile: $(grep -m 3 -E 'error' "$log")"
		fi
		warnings_of "$log" > "$log.warnings"
		[ -s "$log.warnings" ] || continue
		new=$(comm -13 <(base_warnings "$f") "$log.warnings")
		[ -z "$new" ] || check_err 1 "new W=1/sparse warnings:
$new"
	done
	record_test "$(printf 'perpatch: %02d %s (%d objects)' "$n" "$subject" "${#objs[@]}")"
done

# Only a clean walk is cached: a failure is looked at again next time.
if [ "$TESTS_FAILED" -eq 0 ]; then mv "$result.tmp" "$result"; else rm -f "$result.tmp"; fi
tests_exit
