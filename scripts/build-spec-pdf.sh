#!/usr/bin/env bash
# Build the virtio-spec PDF of a series with the spec's own makepdf.sh
# (three xelatex passes) and print the PDF's path.  The build fails, with
# the offending log lines, on any LaTeX error or undefined reference.
#
#   scripts/build-spec-pdf.sh [SERIES_DIR]     (default: spec/)
#
# The tree comes from scripts/tree.sh spec, so the result is keyed by the
# base checksum and the series hash: $GSO_CACHE/spec-pdf/KEY/.  The build
# runs on a copy of the tree (makepdf.sh writes its output files beside
# the sources), so neither the shared tree nor the clone gets build files.
# A verdict is kept: a second run for the same series is instant, and a
# series that failed fails again with the same message without a rebuild.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -gt 1 ]; then { echo "usage: $0 [SERIES_DIR]" >&2; exit 2; }; fi

for cmd in xelatex fc-list; do
	command -v "$cmd" >/dev/null ||
		die "$cmd is missing: run scripts/setup-deps.sh (as root)"
done
# Without Liberation fonts the spec's font fallback stops xelatex at once;
# say so here rather than cache a "LaTeX error" that is only a missing
# package.
[ -n "$(fc-list 'Liberation Sans' family)" ] ||
	die "fonts-liberation is missing: run scripts/setup-deps.sh (as root)"

tree=$("$GSO_TOP/scripts/tree.sh" spec "$@")
# The tree's key (base checksum, series hash) and this script's own hash:
# a changed check must not reuse an old verdict.
key=${tree##*/spec-}-$(files_hash "$0")
out=$GSO_CACHE/spec-pdf/$key
specdoc=$(cat "$tree/REVISION")
pdf=$out/$specdoc.pdf
mkdir -p "$GSO_CACHE/spec-pdf"

# A cached verdict: the PDF, or the reason the build failed.
cached() {
	if [ -f "$out/FAILED" ]; then
		cat "$out/FAILED" >&2
		die "spec PDF of $key does not build (cached verdict; log: $out/$specdoc.log)"
	fi
	if [ -f "$pdf" ]; then
		echo "$pdf"
		exit 0
	fi
}
cached

exec 9> "$GSO_CACHE/spec-pdf/.lock-$key"
flock 9
cached

work=$GSO_CACHE/spec-pdf/.work-$key
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
# The committed files only: git archive leaves out .git and anything a
# developer left lying in the tree.
git -C "$tree" archive HEAD | tar -x -C "$work"

log "building the spec PDF of $key (makepdf.sh: three xelatex passes, 1-3 min)"
start=$(date +%s)
rc=0
# stdin from /dev/null: on a LaTeX error xelatex stops at its prompt
# instead of waiting for a terminal.  makepdf.sh ignores its passes' exit
# codes, so the verdict comes from the final pass's log below.
# Long log lines (TeX wraps at 79 columns by default) keep each
# undefined reference's label on one line for the message below.
(cd "$work" && SPECDOC=$specdoc max_print_line=1000 ./makepdf.sh) \
	</dev/null >"$work/makepdf.out" 2>&1 || rc=$?
log "makepdf.sh took $(($(date +%s) - start)) s (rc=$rc)"

logf=$work/$specdoc.log
rm -rf "$out"
mkdir -p "$out"
# The log for the verdict, the .aux for the labels (tests/t02-spec.sh).
[ -f "$logf" ] && cp "$logf" "$out/"
[ -f "${logf%.log}.aux" ] && cp "${logf%.log}.aux" "$out/"
cp "$work/makepdf.out" "$out/"

problems=
if [ ! -f "$logf" ]; then
	problems="no xelatex log: see $out/makepdf.out"
else
	# LaTeX errors start with "! " (TeX's error format); undefined
	# references and citations are warnings that the last pass repeats.
	problems=$(grep -n -A2 -E '^! ' "$logf" || true)
	problems+=$(grep -n -E 'undefined|Undefined control sequence' "$logf" || true)
fi
if [ -z "$problems" ] && [ ! -s "$work/$specdoc.pdf" ]; then
	problems="makepdf.sh wrote no $specdoc.pdf (rc=$rc): see $out/makepdf.out"
fi
if [ -n "$problems" ]; then
	printf '%s\n' "$problems" | head -n 40 > "$out/FAILED.tmp"
	mv "$out/FAILED.tmp" "$out/FAILED"
	cat "$out/FAILED" >&2
	die "spec PDF of $key does not build: LaTeX errors or undefined references (log: $out/$specdoc.log)"
fi
mv "$work/$specdoc.pdf" "$pdf"
log "spec PDF: $(du -h "$pdf" | cut -f1)"
echo "$pdf"
