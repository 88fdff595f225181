#!/usr/bin/env bash
# The figures the docs quote agree with their sources (docs/claims.tsv):
# each figure is read from its source (a run's output pasted into
# docs/results.md, a test's expected value) and must appear, as quoted, in
# every file the table names.  A new run pasted into results.md whose
# figures differ from what README and testing.md say fails here, as does a
# quote edited away from its source.  No build, no VM: a second.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$GSO_TOP"

CLAIMS=${CLAIMS_FILE:-docs/claims.tsv}
# flat FILE: the file with all whitespace (line breaks included) collapsed
# to single spaces, so that a quote may wrap.
flat() { tr -s ' \t\n' '   ' < "$1"; }

n=0
while IFS=$'\t' read -r key src re quotes; do
	case "$key" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	if [ ! -f "$src" ]; then
		log_test "doc claim $key" FAIL "source $src does not exist"
		continue
	fi
	fig=$(flat "$src" | grep -oE -m1 -- "$re" | head -n 1 | sed -E "s/^$re\$/\\1/") || fig=
	if [ -z "$fig" ]; then
		log_test "doc claim $key" FAIL "no figure in $src matches /$re/"
		continue
	fi
	mapfile -t qs <<< "${quotes// ;; /$'\n'}"
	for q in "${qs[@]}"; do
		q=${q# } q=${q% }
		file=${q%%=*} text=${q#*=}
		text=${text//\{\}/$fig}
		if [ ! -f "$file" ]; then
			check_err 1 "$file does not exist"
		elif ! flat "$file" | grep -qF -- "$text"; then
			check_err 1 "$file does not say '$text' ($key is $fig in $src)"
		fi
	done
	log_test "doc claim $key: $fig ($src) quoted as such in ${#qs[@]} places"
done < "$CLAIMS"
[ "$n" -gt 0 ] || log_test "doc claims" FAIL "no claim in $CLAIMS"
tests_exit
