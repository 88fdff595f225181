#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The spec series builds to PDF with the spec's own makepdf.sh (xelatex),
# with no LaTeX error and no undefined reference; the new section, its
# labels and its conformance entries are in the PDF with the v2 and v3 rules;
# and a spec with an undefined reference fails the build.  Both builds
# are cached by series hash (scripts/build-spec-pdf.sh): warm, this takes
# about 10 s; cold, two xelatex builds of 45 s (on an idle machine).
#
#   tests/t02-spec.sh [SERIES_DIR]     (default: spec/; another folder,
#                                       e.g. an older revision, to compare)
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
series=$(realpath "${1:-$GSO_TOP/spec}")
cd "$GSO_TOP"

for cmd in xelatex pdftotext; do
	command -v "$cmd" >/dev/null || {
		log_test "spec: PDF tools present" FAIL "$cmd missing: run scripts/setup-deps.sh"
		tests_exit
	}
done

sec='sec:Device Types / Network Device / Device Operation / GSO Limits'
dev='devicenormative:Device Types / Network Device / Device Operation / GSO Limits'
drv='drivernormative:Device Types / Network Device / Device Operation / GSO Limits'

# 1. The series' PDF: makepdf.sh, no LaTeX error, no undefined reference.
pdf=$(scripts/build-spec-pdf.sh "$series" 2>"$TEST_LOG_DIR/spec-pdf.err") ||
	check_err $? "$(tail -n 20 "$TEST_LOG_DIR/spec-pdf.err")"
log_test "spec: PDF builds with makepdf.sh, no LaTeX error or undefined reference"
if [ -z "${pdf:-}" ] || [ ! -s "$pdf" ]; then
	log_test "spec: PDF checks" FAIL "no PDF to check"
	tests_exit
fi
dir=$(dirname "$pdf")
logf=${pdf%.pdf}.log
aux=${pdf%.pdf}.aux

# The build's verdict, checked again from its own log: nothing undefined.
if grep -nE '^! |undefined' "$logf" >"$TEST_LOG_DIR/spec-undefined.txt"; then
	check_err 1 "$logf: $(head -n 5 "$TEST_LOG_DIR/spec-undefined.txt")"
fi
log_test "spec: xelatex log has no error and no undefined reference"

# 2. The labels exist (in the final pass's .aux) and the conformance
# clauses list the two normative sections by the numbers they got.
nums=()
for l in "$sec" "$dev" "$drv"; do
	n=$(grep -F "\\newlabel{$l}{" "$aux" | sed -E 's/^\\newlabel\{[^}]*\}\{\{([^}]*)\}.*/\1/') || true
	[ -n "$n" ] || check_err 1 "label '$l' not in $aux"
	nums+=("$n")
done
log_test "spec: the GSO Limits labels are defined (${nums[*]})"

text=$TEST_LOG_DIR/spec.txt
pdftotext -enc UTF-8 "$pdf" "$text"
# Page footers out, then one line.  Hyphens are dropped on both sides of
# a comparison (here and in has()), as a line break can fall after any
# hyphen: "virtio-" "net", "gso_-" "max_size", "configura-" "tion".
footer='^(virtio-v\S+|\d+ \w+ \d{4}|Standards Track Work Product|Copyright .*Reserved\.|Page \d+ of \d+)\n'
flat=$(perl -CSD -0777 -pe "s/$footer//mg;"' s/\f//g; s/-\n//g; s/-//g; s/\s+/ /g' "$text")
has() { grep -qF -- "${2//-/}" <<< "$1"; }

# The clause's list: one "• N" line per normative section it names.
clause() {
	perl -CSD -ne 'if (/^A network \Q'"$1"'\E MUST conform to the following normative statements:/) { $on = 1; next }
		s/^\f//; next if $on && (/^\s*$/ || /'"$footer"'/);
		if ($on) { last unless /^\x{2022} ([\d.]+)\s*$/; print "$1\n" }' "$text"
}
clause device | grep -qxF "${nums[1]}" ||
	check_err 1 "the network device conformance clause does not list ${nums[1]} ($dev)"
clause driver | grep -qxF "${nums[2]}" ||
	check_err 1 "the network driver conformance clause does not list ${nums[2]} ($drv)"
log_test "spec: conformance clauses list both GSO Limits requirements"

# 3. The new section's text, with the rules of v2, is in the PDF.
section=$(perl -ne 'print $1 if /\d GSO Limits (If VIRTIO_NET_F_GSO_LIMITS has been negotiated.*?)\d+(\.\d+)+ Setting Up Receive Buffers/' <<< "$flat")
[ -n "$section" ] || check_err 1 "the GSO Limits section is not in the PDF text"
for phrase in \
	'gso_max_size is an exclusive bound' \
	'gso_max_segs is an inclusive bound' \
	'the virtio-net header in use' \
	'reports 0xffffffff in gso_max_size' \
	'reports 65535 in gso_max_segs' \
	'Values of gso_max_size above 65536 are valid' \
	'the device reports 65536, not 0xffffffff' \
	'is valid even if it is too small for a GSO packet of two segments' \
	'keeps it as its size limit' \
	'count against the limits of the path' \
	'MUST NOT change gso_max_size or gso_max_segs while the device is suspended' \
	'length is equal to or greater than its size limit' \
	'it segments the packet, or otherwise processes it, as it does without the feature'; do
	has "$section" "$phrase" ||
		check_err 1 "not in the PDF's GSO Limits section: '$phrase'"
done
log_test "spec: the GSO Limits section states the v2 rules"

# v3: the review's points (issue 25), each by its own words.
for phrase in \
	'If VIRTIO_NET_F_GSO_LIMITS has been negotiated, after changing either of them the device MUST send a configuration change notification' \
	'receives no notification for them' \
	'When a device is migrated with the device parts' \
	'can differ from the ones in the device parts taken on the source' \
	'IPv4 and IPv6 alike' \
	'gso_ipv4_max_size' \
	'A driver that accepts VIRTIO_NET_F_HOST_TSO4, VIRTIO_NET_F_HOST_TSO6 or VIRTIO_NET_F_HOST_USO SHOULD accept VIRTIO_NET_F_GSO_LIMITS' \
	'These two values are not bounds' \
	'a gso_max_size of 0xffffffff means that the driver has no size limit' \
	'between 1280 and 0xfffffffe, it MUST use that value as its size limit' \
	'a gso_max_size below 1295 admits no GSO packet' \
	'Which fields the virtio-net header has, and thus its size'; do
	has "$section" "$phrase" ||
		check_err 1 "not in the PDF's GSO Limits section: '$phrase'"
done
has "$flat" 'A field added after it starts at offset 36' ||
	check_err 1 "the configuration layout does not say where the next field starts"
log_test "spec: the GSO Limits section states the v3 rules (D5 when negotiated, device parts, IPv4/IPv6, no-limit values)"

# v2 wording the review asked to drop: R1 against the dependency, R5
# against its note, restated general rules.
for phrase in 'A driver SHOULD negotiate VIRTIO_NET_F_GSO_LIMITS if the device offers it' \
	'including a value above 65536 or above the length of any GSO packet' \
	'configuration generation count' \
	'including before the driver sets FEATURES_OK'; do
	if has "$flat" "$phrase"; then
		check_err 1 "the spec still says '$phrase'"
	fi
done
log_test "spec: no v2 contradiction or restated general rule left"

# Neutral for hardware and vDPA devices: the section never says where a
# packet is segmented ("in software"); v1's inclusive wording is gone.
for phrase in 'in software' 'largest length' 'struct virtio_net_hdr' \
	'reports 65536 in gso_max_size' 'reserved for future'; do
	if has "$section" "$phrase"; then
		check_err 1 "the GSO Limits section still says '$phrase'"
	fi
done
log_test "spec: no v1 wording left in the GSO Limits section"

# The ranges are device requirements of the configuration layout, next to
# mtu's.
layout=$(perl -ne 'print $1 if /Device Requirements: Device configuration layout (The device MUST set max_virtqueue_pairs.*?) Driver Requirements: Device configuration layout/' <<< "$flat")
for phrase in 'MUST set mtu to between 68 and 65535' \
	'MUST set gso_max_size to at least 1280 and gso_max_segs to between 1 and 65535 inclusive' \
	'MUST set gso_max_size to 0xffffffff' 'MUST set gso_max_segs to 65535'; do
	has "$layout" "$phrase" ||
		check_err 1 "not in Device Requirements: Device configuration layout: '$phrase'"
done
log_test "spec: value ranges are device requirements next to mtu's"

# 4. The cover letter: upstream base commit, no open question left.
cover=$series/0000-cover-letter.patch
short=$(awk '$2 ~ /^virtio-spec-.*\.tar/ { sub(/^virtio-spec-/, "", $2); sub(/\.tar.*/, "", $2); print $2 }' \
	configs/bases.sha256)
grep -qE "^base-commit: ${short:-none}[0-9a-f]{$((40 - ${#short}))}\$" "$cover" ||
	check_err 1 "$cover: base-commit is not the upstream commit $short...: $(grep '^base-commit' "$cover" || echo none)"
log_test "spec: cover letter's base-commit is the upstream commit ($short)"
if grep -q '^Open question' "$cover"; then
	check_err 1 "$cover still has v1's open question"
fi
grep -q '^Changes since v1' "$cover" || check_err 1 "$cover has no v1->v2 changelog"
grep -q '^Changes since v2' "$cover" || check_err 1 "$cover has no v2->v3 changelog"
log_test "spec: cover letter has the v1->v2 and v2->v3 changelogs and no open question"

# 5. Negative: a spec with an undefined reference does not build, and
# the message names the reference.
rc=0
err=$(scripts/build-spec-pdf.sh tests/fixtures/spec-undefined-ref 2>&1 >/dev/null) || rc=$?
[ "$rc" -ne 0 ] || check_err 1 "a spec with an undefined reference built"
grep -qF 'Device Operation / GSO Limit' <<< "$err" ||
	check_err 1 "the failure does not name the undefined reference: $err"
log_test "spec: an undefined reference fails the PDF build, naming it"

# 6. The GitHub issue the series fixes: its ready-to-file text is in the
# series folder and patch 1 names it with a Fixes: tag.
issue=$series/github-issue.md
if [ -f "$issue" ]; then
	if ! grep -q '^# Title' "$issue" || ! grep -q '^# Body' "$issue"; then
		check_err 1 "$issue has no Title and Body"
	fi
	grep -qi 'below 64' "$issue" || check_err 1 "$issue does not answer why not a bit below 64"
else
	check_err 1 "no $issue"
fi
p1=$(find "$series" -maxdepth 1 -name '0001-*.patch' | head -n 1)
grep -qE '^Fixes: https://github.com/oasis-tcs/virtio-spec/issues/' "${p1:-/dev/null}" ||
	check_err 1 "patch 1 has no Fixes: tag naming the virtio-spec issue"
log_test "spec: the GitHub issue text is ready and patch 1 names it (Fixes:)"

# 7. The issue-number placeholder (docs/submitting.md).  The issue is not
# filed yet, so patch 1 says ".../issues/NNN": the one placeholder allowed
# is that Fixes: line (what docs/submitting.md's steps replace), anything
# else fails; with GSO_SUBMISSION=1 (the series is about to be posted) no
# placeholder may be left at all.  Not a SKIP: a skip in make check is for
# what the machine cannot run (KVM), and this check always runs.
# placeholders SERIES: "file:line: text" of every NNN left in the series.
placeholders() { (cd "$1" && grep -nw 'NNN' -- *.patch) || true; }
left=$(placeholders "$series")
allowed='^0001-[^:]*:[0-9]+:Fixes: https://github\.com/oasis-tcs/virtio-spec/issues/NNN$'
if [ "${GSO_SUBMISSION:-0}" = 1 ]; then
	[ -z "$left" ] ||
		check_err 1 "$(head -n 1 <<< "$left"): file the virtio-spec issue, put its number in patch 1 and regenerate spec/ (docs/submitting.md)"
	log_test "spec: no issue-number placeholder (NNN) left in the series (GSO_SUBMISSION=1)"
else
	stray=$(grep -vE "$allowed" <<< "$left" || true)
	[ -z "$stray" ] || check_err 1 "placeholder outside patch 1's Fixes: line: $stray"
	[ "$(grep -cE "$allowed" <<< "$left" || true)" -le 1 ] ||
		check_err 1 "more than one Fixes: placeholder: $left"
	if [ -n "$left" ]; then
		echo "    to do before posting: the virtio-spec issue is not filed ($(head -n 1 <<< "$left")); docs/submitting.md"
	fi
	log_test "spec: issue-number placeholders only in patch 1's Fixes: line (GSO_SUBMISSION=1 requires none)"
fi

# 8. docs/submitting.md's block, run as written (a made-up issue number, a
# scratch copy of the repository, a scratch tree), gives a series with the
# number in patch 1's Fixes: and no placeholder: the steps work, and the
# check above passes on their result.
submit_cmds=$(awk '/<!-- t02:submit -->/ { f = 1; next } /<!-- \/t02:submit -->/ { f = 0 }
	f && !/^ *```/' docs/submitting.md)
if [ -z "$submit_cmds" ]; then
	check_err 1 "docs/submitting.md has no t02:submit block"
else
	scratch=$(mktemp -d)
	defer rm -rf "$scratch"
	# The working copy's files (committed or not) in a scratch clone.
	files=()
	while IFS= read -r -d '' f; do
		[ -f "$f" ] && files+=("$f")
	done < <(git ls-files -z -co --exclude-standard)
	mkdir -p "$scratch/clone"
	cp --parents -t "$scratch/clone/" -- "${files[@]}"
	devdir=$scratch/dev
	spec_tree=$(scripts/tree.sh spec)
	repo=$(git -C "$spec_tree" rev-parse --git-common-dir)
	# The scratch tree is a worktree of the cached spec repository, on a
	# branch of its own: both go at exit.
	defer "b=\$(git -C '$devdir' symbolic-ref -q --short HEAD); git -C '$repo' worktree remove --force '$devdir'; git -C '$repo' worktree prune; [ -z \"\$b\" ] || git -C '$repo' branch -q -D \"\$b\""
	if (cd "$scratch/clone" && BASES_DIR=$(realpath "$BASES_DIR") N=99999 DIR=$devdir \
		bash -euo pipefail -c "$submit_cmds") \
		> "$TEST_LOG_DIR/t02-submit.log" 2>&1; then
		left=$(placeholders "$scratch/clone/spec")
		[ -z "$left" ] || check_err 1 "placeholder left after the steps: $left"
		grep -qx 'Fixes: https://github.com/oasis-tcs/virtio-spec/issues/99999' \
			"$scratch"/clone/spec/0001-*.patch ||
			check_err 1 "patch 1 has no Fixes: with the number after the steps"
		[ "$(git -C "$devdir" diff base HEAD)" = "$(git -C "$spec_tree" diff base HEAD)" ] ||
			check_err 1 "the steps changed the series' diff"
	else
		check_err 1 "the t02:submit block failed: $(tail -n 3 "$TEST_LOG_DIR/t02-submit.log")"
	fi
fi
log_test "spec: docs/submitting.md's steps put an issue number in place of NNN"

echo "spec PDF: $pdf (${dir##*/})"
tests_exit
