#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 28, the packagers' tooling that needs no tree and no build (t07
# and t08 apply and compile the exports; their per-patch results are
# cached under a key that includes their own script):
#   - every quilt patch under backports/ (the kernel series' and QEMU's
#     Debian series) has a DEP-3 header as scripts/dep3.sh writes it:
#     Description, Author, Origin "KEYWORD, URL", Forwarded, Last-Update;
#   - every repository path docs/packaging*.md gives a packager exists
#     (also in the blocks no check can run here: pve-kernel's steps);
#   - scripts/fetch-distro-source.sh falls back to snapshot.debian.org
#     when Debian's archive does not serve a pinned file, for a source
#     package (.dsc and its tarball, epoch in the version) and for a
#     binary one; a file whose sha256 is not the pinned one, and a version
#     neither source has, and a .dsc whose tarball is not the one it lists
#     end in a message, a non-zero exit and nothing left behind.  The script runs in a network namespace of its own
#     (loopback only: nothing outside is reached), where both Debian's
#     archive and snapshot.debian.org are a STAND-IN: python3's
#     http.server on 127.0.0.1, whose archive (GSO_DEBIAN_MIRROR) has no
#     indices, as an archive that dropped the version answers 404, and whose
#     snapshot (GSO_SNAPSHOT_URL) serves
#     the API's JSON (/mr/package/PKG/VER/srcfiles,
#     /mr/binary/PKG/VER/binfiles, with fileinfo) and /file/HASH for three
#     tiny packages built here with dpkg-source and dpkg-deb.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/dep3.sh
. "$(dirname "$0")/../scripts/dep3.sh"
cd "$GSO_TOP"

for c in jq curl dpkg-source dpkg-deb; do
	require_command "$c" "packaging: $c is installed"
done

# --- DEP-3 headers ------------------------------------------------------------
n=0
while IFS= read -r series; do
	dir=${series%/series}
	# A series file's lines are relative to debian/patches/.
	pdir=${series%/debian/patches/*}/debian/patches
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		n=$((n + 1))
		if [ ! -f "$pdir/$l" ]; then
			check_err 1 "$series names $l, which does not exist"
		elif ! out=$(dep3_check "$pdir/$l"); then
			check_err 1 "$dir: $out"
		fi
	done < "$series"
done < <(find backports -path '*/debian/patches/*' -name series -type f | sort)
[ "$n" -gt 0 ] || check_err 1 "no quilt series under backports/*/debian/patches"
log_test "packaging: DEP-3 header on all $n quilt patches (Origin a URL)"

# --- the packaging pages' paths -----------------------------------------------
# Every path of this repository that docs/packaging*.md tells a packager to
# take ("$CLONE"/..., "$REPO"/...; $TARGET each kernel target) exists, so a
# renamed folder cannot leave a page's commands pointing at nothing, the
# ones no check here can run (pve-kernel's) included.
# shellcheck disable=SC2016 # the pages' literal "$CLONE"/...
path_re='"?\$(CLONE|REPO)"?/[^ `")]+'
mapfile -t kernel_targets < <(find backports -maxdepth 1 -name 'linux-*' -printf '%f\n' | sort)
n=0
while IFS= read -r ref; do
	path=${ref#\"} path=${path#\$CLONE} path=${path#\$REPO} path=${path#\"} path=${path#/}
	for t in "${kernel_targets[@]}"; do
		p=${path//\$TARGET/$t}
		n=$((n + 1))
		compgen -G "$p" >/dev/null || check_err 1 "docs/packaging*.md names \$CLONE/$path, and $p does not exist"
		[ "$p" != "$path" ] || break
	done
done < <(grep -ohE "$path_re" docs/packaging*.md | sort -u)
[ "$n" -gt 0 ] || check_err 1 "no \$CLONE/ or \$REPO/ path in docs/packaging*.md"
log_test "packaging: the $n repository paths docs/packaging*.md names exist"

# --- fetch-distro-source.sh: snapshot.debian.org fallback -----------------------
work=$(mktemp -d)
defer rm -rf "$work"
setup_ns NS

# Two packages as Debian's archive would have had them: a native source
# package with an epoch (1:1.0, files without it, as Debian names them),
# and a binary package carrying /usr/src/NAME.tar.xz (linux-source's form).
src=$work/build/gsotest-1.0
mkdir -p "$src/debian/source"
echo '3.0 (native)' > "$src/debian/source/format"
printf 'Source: gsotest\nMaintainer: t09 <t09@project.invalid>\n\nPackage: gsotest\nArchitecture: all\nDescription: t09 stand-in\n' \
	> "$src/debian/control"
printf 'gsotest (1:1.0) unstable; urgency=medium\n\n  * t09.\n\n -- t09 <t09@project.invalid>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
	> "$src/debian/changelog"
echo 'the stand-in source tree' > "$src/hello.txt"
(cd "$work/build" && dpkg-source -q -b gsotest-1.0) > "$work/dpkg-source.log" 2>&1
# A third, whose tarball the stand-in serves altered: its .dsc (the pinned
# file) is right, the file the .dsc lists is not.
tamp=$work/build/gsotamp-2.0
mkdir -p "$tamp/debian/source"
cp "$src/debian/source/format" "$tamp/debian/source/"
sed 's/gsotest/gsotamp/' "$src/debian/control" > "$tamp/debian/control"
printf 'gsotamp (2.0) unstable; urgency=medium\n\n  * t09.\n\n -- t09 <t09@project.invalid>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
	> "$tamp/debian/changelog"
echo 'a tree that will be altered' > "$tamp/hello.txt"
(cd "$work/build" && dpkg-source -q -b gsotamp-2.0) >> "$work/dpkg-source.log" 2>&1
mkdir -p "$work/build/altered"
echo 'not the tarball the .dsc lists' | xz > "$work/build/altered/gsotamp_2.0.tar.xz"
bin=$work/build/deb
mkdir -p "$bin/DEBIAN" "$bin/usr/src" "$work/build/st/gsotest-source"
echo 'the stand-in binary tree' > "$work/build/st/gsotest-source/hello.txt"
tar -cJf "$bin/usr/src/gsotest-source.tar.xz" -C "$work/build/st" gsotest-source
printf 'Package: gsotest-source\nVersion: 1.0-1\nArchitecture: all\nMaintainer: t09 <t09@project.invalid>\nDescription: t09 stand-in\n' \
	> "$bin/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$bin" "$work/build/gsotest-source_1.0-1_all.deb" >/dev/null

# The stand-in snapshot: JSON as snapshot.debian.org's API gives it, files by
# sha1 under /file/.
m=$work/snapshot
mkdir -p "$m/file"
# listing DIR FILE...: DIR/LISTING with every FILE's hash and name.
listing() {
	local out=$1 f h entries='' sep=''
	shift
	for f in "$@"; do
		h=$(sha1sum "$f" | cut -d' ' -f1)
		cp "$f" "$m/file/$h"
		entries+="$sep\"$h\": [{\"name\": \"${f##*/}\", \"archive_name\": \"debian\", \"path\": \"/pool/main/g/gsotest\", \"size\": $(stat -c %s "$f")}]"
		sep=', '
	done
	mkdir -p "$(dirname "$out")"
	jq -n --argjson info "{$entries}" '{result: ($info | keys | map({hash: .})), fileinfo: $info}' > "$out"
}
listing "$m/mr/package/gsotest/1:1.0/srcfiles" "$work/build/gsotest_1.0.dsc" "$work/build/gsotest_1.0.tar.xz"
listing "$m/mr/binary/gsotest-source/1.0-1/binfiles" "$work/build/gsotest-source_1.0-1_all.deb"
listing "$m/mr/package/gsotamp/2.0/srcfiles" "$work/build/gsotamp_2.0.dsc" "$work/build/altered/gsotamp_2.0.tar.xz"

port=8709
start_ready "$work/http.log" "Serving HTTP" \
	ip netns exec "$NS" /usr/bin/python3 -u -m http.server --bind 127.0.0.1 --directory "$m" "$port"

dsc_sum=$(sha256sum "$work/build/gsotest_1.0.dsc" | cut -d' ' -f1)
deb_sum=$(sha256sum "$work/build/gsotest-source_1.0-1_all.deb" | cut -d' ' -f1)
bad_sum=$(printf '0%.0s' $(seq 64))
{
	printf 'st-dsc\tdsc\tgsotest\t1:1.0\tgsotest_1.0.dsc\t%s\n' "$dsc_sum"
	printf 'st-deb\tdeb\tgsotest-source\t1.0-1\tgsotest-source_1.0-1_all.deb\t%s\n' "$deb_sum"
	printf 'st-bad\tdsc\tgsotest\t1:1.0\tgsotest_1.0.dsc\t%s\n' "$bad_sum"
	printf 'st-none\tdsc\tgsonone\t2.0\tgsonone_2.0.dsc\t%s\n' "$dsc_sum"
	printf 'st-tamper\tdsc\tgsotamp\t2.0\tgsotamp_2.0.dsc\t%s\n' "$(sha256sum "$work/build/gsotamp_2.0.dsc" | cut -d' ' -f1)"
} > "$work/table.tsv"

# fetch NAME: the script in the namespace, against the stand-in; its
# stdout in $work/NAME.out, stderr in $work/NAME.err, status in rc.
fetch() {
	rc=0
	ip netns exec "$NS" env GSO_CACHE="$work/cache" GSO_DISTRO_TREES="$work/table.tsv" \
		GSO_SNAPSHOT_URL="http://127.0.0.1:$port" GSO_DEBIAN_MIRROR="http://127.0.0.1:$port/debian" \
		timeout 300 scripts/fetch-distro-source.sh "$1" > "$work/$1.out" 2> "$work/$1.err" || rc=$?
}
# nothing_left NAME: no tree, stamp or download of NAME in the cache.
nothing_left() {
	local top=$work/cache/distro-src/$1 f
	for f in tree .ok dl dl.tmp unpack; do
		[ ! -e "$top/$f" ] || check_err 1 "$1: $top/$f was left behind"
	done
}

for t in st-dsc st-deb; do
	fetch "$t"
	check_err $rc "$t: exit $rc: $(tail -n 3 "$work/$t.err")"
	grep -q "warning: Debian's archive (http://127.0.0.1:$port/debian)" "$work/$t.err" ||
		check_err 1 "$t: the archive was not tried first (or did not fail): $(head -n 3 "$work/$t.err")"
	grep -q "verified (sha256, from http://127.0.0.1:$port)" "$work/$t.err" ||
		check_err 1 "$t: not verified from the stand-in snapshot: $(tail -n 3 "$work/$t.err")"
	tree=$(tail -n 1 "$work/$t.out")
	want="the stand-in source tree"
	[ "$t" = st-deb ] && want="the stand-in binary tree"
	[ "$(cat "$tree/hello.txt" 2>/dev/null)" = "$want" ] ||
		check_err 1 "$t: the printed tree '$tree' does not hold the package's files"
	[ ! -e "$work/cache/distro-src/$t/dl.tmp" ] || check_err 1 "$t: dl.tmp left behind"
	log_test "packaging: fetch-distro-source.sh $t: archive 404, snapshot stand-in used, sha256 checked"
done

# Refused, each with its message, a non-zero exit and nothing kept:
#   st-bad     control: the same files as st-dsc against a wrong pinned
#              sha256;
#   st-none    a version neither source has;
#   st-tamper  the pinned .dsc with a tarball that is not the one it lists:
#              dpkg-source refuses it, and the download goes too (a next
#              run fetches again instead of failing on the same files).
while IFS='|' read -r t msg what; do
	fetch "$t"
	[ "$rc" -ne 0 ] || check_err 1 "$t: exit 0: $what was accepted"
	grep -qF "$msg" "$work/$t.err" ||
		check_err 1 "$t: no message '$msg': $(tail -n 2 "$work/$t.err")"
	nothing_left "$t"
	log_test "packaging: fetch-distro-source.sh $t: refused ($what), exit $rc, nothing kept"
done <<EOF
st-bad|refusing it|a file with another sha256 than the pinned one
st-none|neither Debian's archive nor http://127.0.0.1:$port serves it|a version no source has
st-tamper|dpkg-source -x gsotamp_2.0.dsc failed|a tarball the .dsc does not list
EOF

tests_exit
