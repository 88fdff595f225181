# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# DEP-3 headers (https://dep-team.pages.debian.net/deps/dep3/) for the
# quilt series the project exports: one writer for the kernel
# (scripts/export-backport.sh) and QEMU (scripts/export-backport-qemu.sh)
# exports, and the check tests/t07 and t08 run on every written patch.
# Source it; do not run it.

# The project's public repository.  The host is under .invalid (RFC 2606),
# as the identity's address is, until the project has a public one:
# change it here and re-export, and every Origin follows.
DEP3_REPO_URL=https://gso-limits.project.invalid/virtio-gso-limits
DEP3_IDENT='virtio-net GSO limits project <gso-limits@project.invalid>'

# dep3_origin PATH: the Origin value for a patch whose git format-patch
# form is the file PATH of this repository.  "other": the patch is not
# (yet) upstream's, and the project is not a distribution vendor; the
# URL names the file the quilt patch is made from.
dep3_origin() {
	printf 'other, %s/blob/main/%s\n' "$DEP3_REPO_URL" "$1"
}

# dep3_write PATCH OUT ORIGIN_PATH [PORTS]: PATCH (git format-patch
# output) as a quilt patch with a DEP-3 header, written to OUT.  PORTS:
# the main-series patch it ports, for a message without a Backport-of
# trailer of its own.
#   Description  the subject (without its [PATCH ...] prefix), then the
#                message up to its first Signed-off-by, one space in,
#                "." for an empty line
#   Author       the project identity
#   Origin       dep3_origin ORIGIN_PATH
#   Forwarded    no (the main series is the upstream submission, not yet
#                posted)
#   Last-Update  the commit's date
# then the message's trailers (Signed-off-by, Backport-of; not the Cc:
# lines, which route the upstream mail), "Backport-of: PORTS" if given,
# a "---" line and the diff as
# format-patch wrote it (diffstat first, no mail signature).
dep3_write() {
	local p=$1 out=$2 origin=$3 ports=${4:-} tmpd subj date
	tmpd=$(mktemp -d)
	git mailinfo -k "$tmpd/msg" "$tmpd/diff" < "$p" > "$tmpd/info"
	subj=$(sed -n 's/^Subject: //p' "$tmpd/info" | sed 's/^\[[^]]*\] *//')
	date=$(date -u -d "$(sed -n 's/^Date: //p' "$tmpd/info")" +%F)
	{
		printf 'Description: %s\n' "$subj"
		awk '/^Signed-off-by:/ { exit } { print }' "$tmpd/msg" |
			sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' |
			sed -e 's/^$/./' -e 's/^/ /'
		printf 'Author: %s\n' "$DEP3_IDENT"
		printf 'Origin: %s\n' "$(dep3_origin "$origin")"
		printf 'Forwarded: no\n'
		printf 'Last-Update: %s\n' "$date"
		awk '/^Signed-off-by:/ { t = 1 } t && !/^Cc:/ && NF' "$tmpd/msg"
		if [ -n "$ports" ] && ! grep -q '^Backport-of: ' "$tmpd/msg"; then
			printf 'Backport-of: %s\n' "$ports"
		fi
		printf -- '---\n'
		sed -n '/^---$/,$p' "$p" | sed '1d' | sed '/^-- $/,$d'
	} > "$out"
	rm -rf "$tmpd"
}

# dep3_check FILE: print one line per DEP-3 problem of FILE's header (the
# lines before its first "---"); status 1 if there is one.  Required
# here: Description, Author (the project identity), Origin (a DEP-3
# keyword and a URL), Forwarded (no, not-needed or a URL), Last-Update
# (YYYY-MM-DD).
dep3_check() {
	local f=$1 hdr rc=0 v field
	hdr=$(sed '/^---$/,$d' "$f")
	for field in Description Author Origin Forwarded Last-Update; do
		grep -q "^$field: ." <<< "$hdr" || { echo "${f##*/}: no DEP-3 $field"; rc=1; }
	done
	v=$(sed -n 's/^Author: //p' <<< "$hdr")
	if [ -n "$v" ] && [ "$v" != "$DEP3_IDENT" ]; then
		echo "${f##*/}: DEP-3 Author is '$v', not the project identity"; rc=1
	fi
	v=$(sed -n 's/^Origin: //p' <<< "$hdr")
	if [ -n "$v" ] && ! grep -qE '^(upstream|backport|vendor|other), https?://[^ ]+$' <<< "$v"; then
		echo "${f##*/}: DEP-3 Origin '$v' is not 'KEYWORD, URL' (upstream, backport, vendor or other)"; rc=1
	fi
	v=$(sed -n 's/^Forwarded: //p' <<< "$hdr")
	if [ -n "$v" ] && ! grep -qE '^(no|not-needed|https?://[^ ]+)$' <<< "$v"; then
		echo "${f##*/}: DEP-3 Forwarded '$v' is not no, not-needed or a URL"; rc=1
	fi
	v=$(sed -n 's/^Last-Update: //p' <<< "$hdr")
	if [ -n "$v" ] && ! grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' <<< "$v"; then
		echo "${f##*/}: DEP-3 Last-Update '$v' is not YYYY-MM-DD"; rc=1
	fi
	return $rc
}
