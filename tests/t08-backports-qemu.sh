#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The QEMU backports for packagers (scripts/export-backport-qemu.sh,
# docs/packaging-qemu.md), checked as a packager would use them:
#   - every backport ports main's current patch (its Backport-of
#     patch-id), every main patch is ported or listed as not ported, and
#     each backport whose content differs from main's patch says why;
#   - the three exports regenerate from the committed backport unchanged;
#   - backports/qemu-10.2.2 applies with git am on the pinned QEMU 10.2.2
#     and is QEMU checkpatch clean;
#   - backports/qemu-debian-10.2.2 applies with quilt push -a (no fuzz)
#     after Debian's own patches on Debian's qemu 1:10.2.2+ds-1
#     (scripts/fetch-distro-source.sh qemu-10.2.2), and each patch has a
#     DEP-3 header (scripts/dep3.sh's dep3_check: the fields, Origin a
#     URL);
#   - backports/pve-qemu applies with quilt push -a on QEMU 10.2.2 in
#     pve-qemu's layout and gives the same files as git am;
#   - the objects each patch touches compile in the Debian tree (configure
#     once, x86_64-softmmu, the project's minimal options; then ninja on
#     those objects only);
#   - Debian 13's QEMU 10.0.13 still lacks what the series needs (feature
#     bits above 63), the documented reason it gets no backport.
# The apply-and-compile part is cached by the content hash of every input
# (the exports, Debian's files, the configure options and this script):
# a warm run prints the cached results.  The compile step has a key of its
# own (what it compiles, how, and its own code): a change elsewhere (DEP-3
# headers, the pve layout, another check) re-runs the quilt checks only.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/dep3.sh
. "$(dirname "$0")/../scripts/dep3.sh"
cd "$GSO_TOP"

ident='virtio-net GSO limits project <gso-limits@project.invalid>'
BP=backports/qemu-10.2.2
DEB=backports/qemu-debian-10.2.2
PVE=backports/pve-qemu
log_dir=$TEST_LOG_DIR/t08
mkdir -p "$log_dir"

for c in quilt ninja dpkg-source; do
	command -v "$c" >/dev/null ||
		{ log_test "backport qemu: $c is installed (scripts/setup-deps.sh)" FAIL; tests_exit; }
done

mapfile -t bp_patches < <(find "$BP" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort)
if [ ${#bp_patches[@]} -eq 0 ]; then
	log_test "backport qemu: $BP has patches" FAIL
	tests_exit
fi

# --- provenance ------------------------------------------------------------
if ! scripts/export-backport-qemu.sh ports > "$log_dir/ports.txt" 2>&1; then
	check_err 1 "$(grep -E 'STALE|NOT PORTED|no Backport-of' "$log_dir/ports.txt" | head -n 5)"
fi
log_test "backport qemu: each backport ports main's current patch (patch-id)"

# A backport whose diff is not main's says why, in a "[ Backport" note.
for p in "${bp_patches[@]}"; do
	want=$(sed -nE 's/^Backport-of: .*\(patch-id ([0-9a-f]+)\)$/\1/p' "$p")
	got=$(git patch-id --stable < "$p" | cut -d' ' -f1)
	if [ "$got" != "$want" ] && ! grep -q '^\[ Backport' "$p"; then
		check_err 1 "${p##*/} differs from the patch it ports and does not say why"
	fi
	grep -qF "From: $ident" "$p" || check_err 1 "${p##*/} is not authored by the project identity"
	grep -qF "Signed-off-by: $ident" "$p" || check_err 1 "${p##*/} lacks the project's sign-off"
done
log_test "backport qemu: a patch that differs from main's says why"

# --- regeneration ------------------------------------------------------------
tree=$(scripts/export-backport-qemu.sh tree 2> "$log_dir/tree.err") || {
	log_test "backport qemu-10.2.2: ${#bp_patches[@]} patches apply with git am on QEMU 10.2.2" \
		FAIL "$(tail -n 3 "$log_dir/tree.err")"
	tests_exit
}
log_test "backport qemu-10.2.2: ${#bp_patches[@]} patches apply with git am on QEMU 10.2.2"

regen=$(mktemp -d)
defer rm -rf "$regen"
if scripts/export-backport-qemu.sh export --output "$regen" "$tree" 2> "$log_dir/export.err"; then
	for d in "$BP" "$DEB" "$PVE"; do
		if ! diff -r "$regen/${d#backports/}" "$d" > "$log_dir/regen-${d##*/}.diff"; then
			check_err 1 "$d differs from what scripts/export-backport-qemu.sh export generates (see $log_dir/regen-${d##*/}.diff)"
		fi
	done
else
	check_err 1 "export failed: $(tail -n 3 "$log_dir/export.err")"
fi
log_test "backport qemu: the committed exports are what the script generates"

for p in "${bp_patches[@]}"; do
	(cd "$tree" && scripts/checkpatch.pl -q "$GSO_TOP/$p") > "$log_dir/checkpatch-${p##*/}.txt" 2>&1 ||
		check_err 1 "${p##*/}: $(head -n 3 "$log_dir/checkpatch-${p##*/}.txt")"
done
log_test "backport qemu-10.2.2: QEMU checkpatch clean"

# DEP-3 and pve-qemu's layout: static, cheap.
mapfile -t deb_patches < <(sed 's|^|'"$DEB"'/debian/patches/|' "$DEB/debian/patches/gso-limits/series")
check_eq "Debian quilt patches" "${#deb_patches[@]}" "${#bp_patches[@]}"
for p in "${deb_patches[@]}"; do
	[ -f "$p" ] || { check_err 1 "series names $p, which does not exist"; continue; }
	out=$(dep3_check "$p") || check_err 1 "$out"
done
log_test "backport qemu-debian-10.2.2: DEP-3 header on every patch (Origin a URL)"

mapfile -t pve_lines < "$PVE/debian/patches/series.gso-limits"
check_eq "pve-qemu patches" "${#pve_lines[@]}" "${#bp_patches[@]}"
for l in "${pve_lines[@]}"; do
	[[ $l =~ ^extra/[0-9]{4}-.*\.patch$ ]] || check_err 1 "series line '$l' is not extra/NNNN-name.patch"
	p=$PVE/debian/patches/$l
	[ -f "$p" ] || { check_err 1 "series names $l, which does not exist"; continue; }
	head -n 1 "$p" | grep -qx 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001' ||
		check_err 1 "$l is not a zero-commit format-patch file, as pve-qemu keeps them"
	grep -q '^Subject: \[PATCH\] ' "$p" || check_err 1 "$l: subject is not '[PATCH] ...'"
done
log_test "backport pve-qemu: extra/NNNN-*.patch files and series lines"

# --- apply to the packaged trees, compile the touched objects (cached) -------
# Debian's packaged trees (configs/distro-trees.tsv; dpkg-source -x of the
# pinned .dsc, Debian's patches applied, .pc/ kept).
debsrc=$(scripts/fetch-distro-source.sh qemu-10.2.2 2> "$log_dir/fetch.err") || {
	log_test "backport qemu: Debian's qemu 1:10.2.2+ds-1 fetched and verified" FAIL \
		"$(tail -n 2 "$log_dir/fetch.err")"
	tests_exit
}
t13=$(scripts/fetch-distro-source.sh qemu-10.0.13 2>> "$log_dir/fetch.err") || {
	log_test "backport qemu: Debian's qemu 1:10.0.13+ds-0+deb13u1 fetched and verified" FAIL \
		"$(tail -n 2 "$log_dir/fetch.err")"
	tests_exit
}
mapfile -t inputs < <(find "$BP" "$DEB" "$PVE" -type f | sort)
key=$( { files_hash "${inputs[@]}" "$0" configs/qemu-configure.txt configs/qemu-devices.mak
	grep -E '^qemu-(10\.2\.2|10\.0\.13)\s' configs/distro-trees.tsv; } |
	sha256sum | cut -c1-16)
cache=$GSO_CACHE/backport-qemu
result=$cache/results/$key.txt
mkdir -p "$cache/results"
exec 9> "$cache/.lock"
flock 9
if [ -f "$result" ]; then
	cat "$result"
	tests_exit
fi

work=$cache/work
rm -rf "$work"
mkdir -p "$work"
out=$work/results.txt
: > "$out"
# record NAME [RES [WHY]]: log_test, and keep the line for the cache.
record() {
	log_test "$@" > "$work/line"
	cat "$work/line"
	cat "$work/line" >> "$out"
}

quilt_push() { (cd "$1" && QUILT_PATCHES=debian/patches QUILT_PC=.pc quilt push -a --fuzz=0); }

# Debian: the packaged tree (Debian's patches applied), with the series
# after them, by the commands of docs/packaging-qemu.md.
debtree=$work/qemu-debian
cp -a "$debsrc" "$debtree"
cp -R "$GSO_TOP/$DEB/debian/." "$debtree/debian/"
(cd "$debtree" && cat debian/patches/gso-limits/series >> debian/patches/series)
deb_ok=0
quilt_push "$debtree" > "$log_dir/quilt-debian.log" 2>&1 || deb_ok=1
check_err $deb_ok "$(grep -E -m3 'FAILED|does not apply|fuzz' "$log_dir/quilt-debian.log")"
record "backport qemu-debian-10.2.2: quilt push -a on Debian's 1:10.2.2+ds-1 (after its patches)"

# pve-qemu: the extra/ patches on QEMU 10.2.2 (pve-qemu's own patches are
# not reachable here), as dpkg-source would apply them.
pvetree=$work/qemu-pve
mkdir -p "$pvetree"
git -C "$tree" archive base | tar -x -C "$pvetree"
# A stand-in for pve-qemu's own series (named so: its patches are not
# reachable here): one extra/ patch and one after it, each adding a file.
# The series lines go in by the commands of docs/packaging-qemu.md.
pvep=$pvetree/debian/patches
mkdir -p "$pvep/extra" "$pvep/bitmap-mirror"
for sp in extra/0031-stand-in bitmap-mirror/0001-stand-in; do
	printf '%s\n' '--- /dev/null' "+++ b/${sp%%/*}-stand-in.txt" '@@ -0,0 +1 @@' "+$sp" \
		> "$pvep/$sp.patch"
	echo "$sp.patch" >> "$pvep/series"
done
(
	cd "$pvetree"
	REPO=$GSO_TOP
	cp "$REPO"/backports/pve-qemu/debian/patches/extra/*.patch debian/patches/extra/
	awk 'NR == FNR { add = add $0 "\n"; next }
	     { line[++n] = $0; if ($0 ~ /^extra\//) last = n }
	     END { for (i = 1; i <= n; i++) { print line[i]; if (i == last) printf "%s", add } }' \
	    "$REPO"/backports/pve-qemu/debian/patches/series.gso-limits debian/patches/series > series.new
	mv series.new debian/patches/series
)
check_eq "pve-qemu series after the commands" "$(tr '\n' ' ' < "$pvep/series")" \
	"extra/0031-stand-in.patch $(tr '\n' ' ' < "$PVE/debian/patches/series.gso-limits")bitmap-mirror/0001-stand-in.patch "
quilt_push "$pvetree" > "$log_dir/quilt-pve.log" 2>&1 ||
	check_err 1 "$(grep -E -m3 'FAILED|does not apply|fuzz' "$log_dir/quilt-pve.log")"
# The same files as git am gives.
mapfile -t touched < <(git -C "$tree" diff --name-only base HEAD)
for f in "${touched[@]}"; do
	cmp -s "$tree/$f" "$pvetree/$f" || check_err 1 "$f differs between git am and the pve-qemu series"
	cmp -s "$tree/$f" "$debtree/$f" || check_err 1 "$f differs between git am and the Debian series"
done
record "backport pve-qemu: series lines after extra/, quilt push -a on QEMU 10.2.2, same files as git am"

# Compile the objects the series touches, in the Debian tree (Debian's own
# patches skip the firmware the +ds tarball lacks).  Its result has a key
# of its own: what is compiled (the backport's patches: the Debian and
# pve series give the same files, checked above), how (the configure
# options, the device set, Debian's tree) and this step's code (between
# the compile markers).  The whole key above covers all of these, so a
# change to the DEP-3 headers, the pve layout or another check re-runs
# the quilt checks but not configure and ninja.
ckey=$( { files_hash "${bp_patches[@]}" configs/qemu-configure.txt configs/qemu-devices.mak
	grep -E '^qemu-10\.2\.2\s' configs/distro-trees.tsv
	sed -n '/^# >>> compile/,/^# <<< compile/p' "$0"; } | sha256sum | cut -c1-16)
cresult=$cache/results/compile-$ckey.txt
# >>> compile
if [ "$deb_ok" -eq 0 ] && [ -f "$cresult" ]; then
	cat "$cresult"
	cat "$cresult" >> "$out"
elif [ "$deb_ok" -eq 0 ]; then
	opts=()
	while IFS= read -r line; do
		line=${line%%#*}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "$line" ] && opts+=("$line")
	done < configs/qemu-configure.txt
	# The project's device set, without the test-only devices this tree
	# does not define (as scripts/build-qemu.sh writes it).
	known=$(find "$debtree" -name 'Kconfig*' -exec sed -n 's/^config \([A-Z0-9_]*\)$/\1/p' {} + |
		sort -u)
	awk -v known="$known" 'BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) ok[k[i]] = 1 }
		/^CONFIG_[A-Z0-9_]+=/ { sym = substr($0, 8, index($0, "=") - 8); if (!(sym in ok)) next }
		{ print }' configs/qemu-devices.mak > "$debtree/configs/devices/x86_64-softmmu/gso.mak"
	objs=()
	mkdir -p "$debtree/build"
	use_ccache "$debtree"
	if (cd "$debtree/build" && nice -n 5 ../configure "${opts[@]}" \
			--with-devices-x86_64=gso "--cc=ccache gcc" "--host-cc=ccache gcc") \
			> "$log_dir/configure.log" 2>&1; then
		mapfile -t objs < <(python3 - "$debtree/build/compile_commands.json" "${touched[@]}" <<-'EOF'
		import json, os, sys
		db = json.load(open(sys.argv[1]))
		want = {f for f in sys.argv[2:] if f.endswith(".c")}
		for e in db:
		    src = os.path.relpath(os.path.join(e["directory"], e["file"]),
		                          os.path.dirname(e["directory"]))
		    if src in want:
		        print(e["output"])
		EOF
		)
		# Patch by patch, as a bisecting packager meets them: the series
		# popped off Debian's stack, then pushed one at a time; after each
		# push ninja builds the series' objects whose sources exist by
		# then, and rebuilds exactly those the patch changed (its .c
		# files and every includer of a header it touched).  The last
		# push is the whole series.
		nbp=$(grep -c '^gso-limits/' "$debtree/debian/patches/series")
		(cd "$debtree" && QUILT_PATCHES=debian/patches QUILT_PC=.pc quilt pop "$nbp") \
			> "$log_dir/quilt-pop.log" 2>&1 || check_err 1 "quilt pop $nbp: $(tail -n 2 "$log_dir/quilt-pop.log")"
		if [ ${#objs[@]} -eq 0 ]; then
			check_err 1 "no object of the touched files is configured"
		fi
		declare -A src_of=()
		while IFS=$'\t' read -r o src; do
			src_of[$o]=$src
		done < <(python3 - "$debtree/build/compile_commands.json" "${objs[@]}" <<-'EOF'
		import json, os, sys
		want = set(sys.argv[2:])
		for e in json.load(open(sys.argv[1])):
		    if e["output"] in want:
		        print(e["output"] + "\t" + os.path.join(e["directory"], e["file"]))
		EOF
		)
		for ((i = 1; i <= nbp && RET == 0; i++)); do
			(cd "$debtree" && QUILT_PATCHES=debian/patches QUILT_PC=.pc quilt push) \
				> "$log_dir/quilt-push-$i.log" 2>&1 || { check_err 1 "quilt push of patch $i failed"; break; }
			now=()
			for o in "${objs[@]}"; do
				[ -f "${src_of[$o]:-/nonexistent}" ] && now+=("$o")
			done
			[ ${#now[@]} -gt 0 ] || continue
			if ! nice -n 5 ninja -C "$debtree/build" -j2 "${now[@]}" > "$log_dir/ninja-$i.log" 2>&1; then
				check_err 1 "patch $i of the series: $(grep -E -m5 'error|FAILED' "$log_dir/ninja-$i.log")"
			fi
		done
		printf '    %s\n' "${objs[@]}" > "$log_dir/objects.txt"
	else
		check_err 1 "configure failed: $(tail -n 3 "$log_dir/configure.log")"
	fi
	if [ "$RET" -eq 0 ]; then
		printf 'TEST: %-60s [ OK ]\n' "backport qemu-debian-10.2.2: the ${#objs[@]} objects it touches compile (-Werror) after each of its patches" \
			> "$cresult"
	fi
	record "backport qemu-debian-10.2.2: the ${#objs[@]} objects it touches compile (-Werror) after each of its patches"
else
	record "backport qemu-debian-10.2.2: the objects it touches compile" FAIL "the series did not apply"
fi
# <<< compile

# Debian 13: QEMU 10.0.13's virtio core has 64 feature bits (no
# virtio-features.h; virtio-pci's guest_features[2]), and the series'
# feature is bit 71: the backport builds on the extended-feature API of
# QEMU 10.2 (host_features_ex, virtio_has_feature_ex, ...), which 10.0.13
# lacks.  Should that change, this check says to revisit the decision.
[ ! -e "$t13/include/hw/virtio/virtio-features.h" ] ||
	check_err 1 "10.0.13 has include/hw/virtio/virtio-features.h: revisit the 10.0.13 backport"
grep -q 'uint32_t guest_features\[2\];' "$t13/include/hw/virtio/virtio-pci.h" ||
	check_err 1 "10.0.13's virtio-pci no longer has 64 feature bits: revisit the 10.0.13 backport"
for sym in VIRTIO_FEATURES_NU64S virtio_has_feature_ex virtio_add_feature_ex; do
	grep -q "^+.*\b$sym\b" "$BP"/*.patch ||
		check_err 1 "the backport no longer uses $sym: revisit the 10.0.13 check"
	grep -rqw "$sym" "$tree/include" ||
		check_err 1 "QEMU 10.2.2 has no $sym"
	if grep -rqw "$sym" "$t13/include" "$t13/hw/virtio"; then
		check_err 1 "10.0.13 has $sym: revisit the 10.0.13 backport"
	fi
done
record "backport qemu: Debian 13's QEMU 10.0.13 has no feature bits above 63 (no backport)"

# The work trees stay until the next cold run replaces them (removing
# three QEMU trees takes a minute on a loaded machine).
if [ "$TESTS_FAILED" -eq 0 ]; then
	mv "$out" "$result"
fi
tests_exit
