# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Per-commit checks shared by t03 (the project's series on the pinned base)
# and t07 (the backports on the distributions' trees), for what a commit
# changes besides kernel objects.  Sourced; the caller provides:
#   wt     the kernel worktree, the commit checked out and `make prepare`d
#   out    a directory for logs and the N.other failure lists
#   kmake  its make wrapper for $wt (used for `make headers`)

# other_checks N COMMIT (checked out): what a commit changes besides
# kernel C.  Selftest programs are compiled, selftest scripts parsed and
# looked up in their Makefile, CONFIG_ lines added to a selftest config
# looked up in the Kconfig files.  Sets kc_at[N] (the kernel .c/.h files
# it changes, a count) and what_at[N] (what was checked besides kernel
# objects, for the check's name); each failure, one line, to $out/N.other.
declare -gA kc_at=() what_at=()
# wt and out are the caller's; kc_at and what_at are read by the caller.
# shellcheck disable=SC2154,SC2034
other_checks() {
	local n=$1 c=$2 f sym what=() nprog=0 nscript=0 nsym=0 rest=()
	local -a files
	mapfile -t files < <(git -C "$wt" diff-tree --no-commit-id --name-only -r --diff-filter=d "$c")
	kc_at[$n]=0
	for f in "${files[@]}"; do
		case "$f" in
		Documentation/*|tools/*) ;;
		*.c|*.h) kc_at[$n]=$((kc_at[$n] + 1)); continue ;;
		esac
		case "$f" in
		tools/testing/selftests/*.c)
			if [ $nprog = 0 ]; then
				kmake -s headers > "$out/$n.headers.log" 2>&1 ||
					echo "make headers failed: $(tail -n 3 "$out/$n.headers.log")" >> "$out/$n.other"
			fi
			nprog=$((nprog + 1))
			gcc -std=gnu11 -O2 -Wall -Wextra -Werror -c -isystem "$wt/usr/include" \
				-I"$wt/tools/testing/selftests" -o "$out/$n.prog$nprog.o" "$wt/$f" \
				> "$out/$n.prog$nprog.log" 2>&1 ||
				echo "selftest program $f does not compile: $(grep -m 3 -E 'error|warning' "$out/$n.prog$nprog.log")" >> "$out/$n.other"
			;;
		tools/testing/selftests/*.sh)
			nscript=$((nscript + 1))
			bash -n "$wt/$f" 2> "$out/$n.sh$nscript.log" ||
				echo "selftest script $f does not parse: $(head -n 3 "$out/$n.sh$nscript.log")" >> "$out/$n.other"
			grep -qsw -F "${f##*/}" "$wt/$(dirname "$f")/Makefile" ||
				echo "selftest script $f is not named in $(dirname "$f")/Makefile: kselftest never runs it" >> "$out/$n.other"
			;;
		tools/testing/selftests/*/config)
			while read -r sym; do
				nsym=$((nsym + 1))
				git -C "$wt" grep -q -E "^[[:space:]]*(menu)?config[[:space:]]+$sym\$" "$c" -- '*Kconfig*' ||
					echo "$f: CONFIG_$sym is defined by no Kconfig" >> "$out/$n.other"
			done < <(git -C "$wt" diff-tree -p --no-commit-id "$c" -- "$f" |
				sed -n 's/^+CONFIG_\([A-Za-z0-9_]*\)=.*/\1/p')
			;;
		*Kconfig*) what+=("Kconfig through olddefconfig") ;;
		tools/testing/selftests/*/Makefile|tools/testing/selftests/*/.gitignore) ;;
		*) rest+=("$f") ;;
		esac
	done
	[ $nprog = 0 ] || what+=("$nprog selftest program(s) compiled")
	[ $nscript = 0 ] || what+=("$nscript selftest script(s) parse and are in their Makefile")
	[ $nsym = 0 ] || what+=("$nsym selftest config option(s) exist")
	[ ${#rest[@]} = 0 ] || what+=("not checked here: ${rest[*]}")
	f=$(printf '%s; ' "${what[@]}")
	what_at[$n]=${f%; }
}
