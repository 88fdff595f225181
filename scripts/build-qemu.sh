#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the project's qemu-system-x86_64 and print its path (nothing else
# goes to stdout; progress and errors go to stderr).
#
#   scripts/build-qemu.sh [--unpatched | --tree DIR] [-- NINJA_TARGET...]
#
# Default: the pinned QEMU 10.2.2 base with qemu-patches/ applied, then
# the harness's test-only devices of qemu-test-patches/ (scripts/tree.sh
# qemu-test).  --unpatched: the base alone.  --tree DIR: a
# developer tree as it is, uncommitted changes included.  Extra ninja
# targets after "--" are built too (tests/qemu-qtest.sh uses this for the
# qtest binaries); the build directory is the printed binary's directory.
#
# Configure options: configs/qemu-configure.txt (x86_64-softmmu only,
# --without-default-features plus kvm, tcg, vhost-net, vhost-kernel,
# slirp, fdt; no docs, no tools, no GUI).  Devices: configs/qemu-devices.mak
# (--without-default-devices; pc and q35, microvm for its virtio-mmio,
# virtio-net/serial/rng-pci, e1000e, isa-serial).  There is one build directory per kind of tree
# (patched, unpatched, each dev tree); the last tree state and the hash of
# both files are recorded there, a change of either rebuilds or
# reconfigures in place, the compiler runs through ccache
# (CCACHE_DIR=$GSO_CACHE/ccache), and rebuilds are incremental.
#
# Firmware: the binary is configured with
#   --firmwarepath=/usr/share/seabios:/usr/lib/ipxe/qemu:/usr/share/qemu
# (Debian's seabios, ipxe-qemu and qemu-system-data), and run from the
# build directory it looks for them under build/qemu-bundle/, where this
# script links them: it finds bios-256k.bin, the NIC option ROMs,
# qboot.rom, linuxboot_dma.bin and kvmvapic.bin by itself, pass no -L.  (For another QEMU binary, the
# equivalent is "-L /usr/share/seabios -L /usr/lib/ipxe/qemu
# -L /usr/share/qemu".)  Fast TCG boots: -bios qboot.rom -vga none.
#
# The Debian "+ds" tarball ships no firmware blobs, and meson still wants
# to unpack the edk2 images (pc-bios/edk2-*.fd.bz2) and install the dtb
# files (pc-bios/dtb/*.dtb) that are not there.  Debian's packaging skips
# both with two one-line meson changes; this script does the same in its
# build copy of the sources ($bdir/src, a copy of the tree without .git),
# never in the tree itself, so no patch of the series carries them:
#   meson.build:             unpack_edk2_blobs = bzip2.found() -> false
#   pc-bios/dtb/meson.build: the install_data(dtbs, ...) fallback is dropped
# The copy also gets configs/qemu-devices.mak as
# configs/devices/x86_64-softmmu/gso.mak (configure's --with-devices-*
# only looks in the source tree), without the devices the tree does not
# define (the test-only ones are not in --unpatched or a bare qemu tree).
#
# Layout: $GSO_CACHE/build/qemu-{patched,unpatched,dev-NAME}/
# {src,build,build.log,configure.log}.
# First build: ~1420 ninja steps, 10-11 min on 2 shared cores.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 [--unpatched | --tree DIR] [-- NINJA_TARGET...]" >&2; exit 2; }

mode=patched tree=
while [ $# -gt 0 ]; do
	case "$1" in
	--unpatched) mode=unpatched; shift ;;
	--tree) [ $# -ge 2 ] || usage; mode=dev; tree=$(realpath "$2"); shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
extra_targets=("$@")

cfg_opts=$GSO_TOP/configs/qemu-configure.txt
cfg_devs=$GSO_TOP/configs/qemu-devices.mak
case $mode in
patched)   tree=$("$GSO_TOP/scripts/tree.sh" qemu-test) ;;
unpatched) tree=$("$GSO_TOP/scripts/tree.sh" qemu --unpatched) ;;
esac
[ -f "$tree/hw/net/virtio-net.c" ] || die "$tree is not a QEMU tree"
cfgkey=$(files_hash "$cfg_opts" "$cfg_devs")
# One build directory per kind of tree, whatever the series and the
# config: a new series rebuilds only the files it changes, a new config
# reconfigures in place (and ccache, with CCACHE_BASEDIR, makes the
# recompiles of unchanged files cheap, in any directory).
case $mode in
dev) bdir=$GSO_CACHE/build/qemu-dev-$(basename "$tree") ;;
*)   bdir=$GSO_CACHE/build/qemu-$mode ;;
esac
src=$bdir/src obj=$bdir/build blog=$bdir/build.log
binary=$obj/qemu-system-x86_64
stamp=$bdir/.gso-built synced=$bdir/.gso-synced

mkdir -p "$bdir"
# One build per directory at a time (the harness and a test may both ask).
exec 8> "$bdir/.lock"
flock 8

opts=()
while IFS= read -r line; do
	line=${line%%#*}
	line=${line%"${line##*[![:space:]]}"}
	[ -n "$line" ] && opts+=("$line")
done < "$cfg_opts"
opts+=(--with-devices-x86_64=gso "--cc=ccache gcc" "--host-cc=ccache gcc")
optsig=$(printf '%s\n' "$cfgkey" "${opts[@]}" | sha256sum | cut -c1-12)

# Run from its build directory, QEMU looks for every configured path
# inside build/qemu-bundle (it relocates them as for an installed tree):
# point the firmware directories there at Debian's.
link_firmware() {
	local fwpath d fwdirs
	fwpath=$(printf '%s\n' "${opts[@]}" | sed -n 's/^--firmwarepath=//p')
	IFS=: read -r -a fwdirs <<<"$fwpath"
	for d in "${fwdirs[@]}"; do
		[ -d "$d" ] || die "firmware directory $d is missing (scripts/setup-deps.sh installs it)"
		mkdir -p "$obj/qemu-bundle$(dirname "$d")"
		ln -sfn "$d" "$obj/qemu-bundle$d"
	done
}

gitt() { git -C "$tree" -c core.quotePath=false "$@"; }
# Built already from this exact tree state?  Dev trees change under us:
# compare HEAD, the diff against it and the untracked files' names too.
state=$(echo "$tree $cfgkey"
	gitt rev-parse HEAD
	gitt diff HEAD | sha256sum
	gitt ls-files --others --exclude-standard | sha256sum
	printf '%s\n' "${extra_targets[@]}")
if [ -f "$stamp" ] && [ -x "$binary" ] && [ "$(cat "$stamp")" = "$state" ]; then
	link_firmware
	echo "$binary"
	exit 0
fi

# --- the build copy of the sources -------------------------------------
# $src is a copy of the tree without .git (configure must not touch the
# tree's repository from there).  After the first full copy, only the
# files that differ from the commit last copied (plus the files that were
# uncommitted then) are compared and copied, with a new mtime, so ninja
# rebuilds exactly what changed, whichever tree of the same repository
# comes next.  The two meson files that get edited are written only when
# their edited content changes (put_file), so meson does not reconfigure
# on every call.
edited='meson.build pc-bios/dtb/meson.build'
sync_full() {
	log "copying $tree -> $src"
	rm -rf "$src"
	mkdir -p "$src"
	cp -R -P --preserve=mode "$tree/." "$src/"
	rm -f "$src/.git"
}
sync_changed() {
	local old=$1 f n=0
	log "syncing $tree -> $src (changes since ${old:0:12})"
	while IFS= read -r f; do
		case " $edited " in *" $f "*) continue ;; esac
		if [ -e "$tree/$f" ] || [ -L "$tree/$f" ]; then
			cmp -s "$tree/$f" "$src/$f" && continue
			mkdir -p "$(dirname "$src/$f")"
			rm -f "$src/$f"
			cp -P --preserve=mode "$tree/$f" "$src/$f"
		else
			rm -f "$src/$f"
		fi
		n=$((n + 1))
	done < <({ gitt diff --name-only --no-renames "$old" --
		gitt ls-files --others --exclude-standard
		sed -n '3,$p' "$synced"; } | sort -u)
	log "$n files changed"
}
old=
[ -f "$synced" ] && [ -d "$src" ] && old=$(sed -n 2p "$synced")
if [ -n "$old" ] && gitt cat-file -e "$old^{commit}" 2>/dev/null; then
	sync_changed "$old"
else
	sync_full
fi
{ echo "$tree"; gitt rev-parse HEAD
  gitt diff --name-only --no-renames HEAD --
  gitt ls-files --others --exclude-standard; } > "$synced.new"
mv "$synced.new" "$synced"
# put_file CONTENT DEST: write DEST only when its content differs.
put_file() {
	local content=$1 dest=$2
	if ! printf '%s\n' "$content" | cmp -s - "$dest"; then
		printf '%s\n' "$content" > "$dest"
	fi
}
m=$(sed 's/^\( *unpack_edk2_blobs = \)bzip2\.found()$/\1false/' "$tree/meson.build")
grep -q '^ *unpack_edk2_blobs = false$' <<<"$m" ||
	die "meson.build: could not disable the edk2 unpacking (has the line changed?)"
put_file "$m" "$src/meson.build"
m=$(sed 's/^\( *\)install_data(dtbs, .*$/\1# no prebuilt dtbs in the +ds tarball (build-qemu.sh)/' \
	"$tree/pc-bios/dtb/meson.build")
grep -q 'install_data(dtbs' <<<"$m" &&
	die "pc-bios/dtb/meson.build: could not drop the dtb install (has the line changed?)"
put_file "$m" "$src/pc-bios/dtb/meson.build"
known=$(find "$tree" -name 'Kconfig*' -exec sed -n 's/^config \([A-Z0-9_]*\)$/\1/p' {} + |
	sort -u)
put_file "$(awk -v known="$known" 'BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) ok[k[i]] = 1 }
	/^CONFIG_[A-Z0-9_]+=/ { sym = substr($0, 8, index($0, "=") - 8); if (!(sym in ok)) next }
	{ print }' "$cfg_devs")" "$src/configs/devices/x86_64-softmmu/gso.mak"

# --- configure ----------------------------------------------------------
mkdir -p "$GSO_CACHE/ccache"
use_ccache "$bdir"


if [ ! -f "$obj/build.ninja" ] || [ "$(cat "$bdir/.gso-configured" 2>/dev/null)" != "$optsig" ]; then
	log "configuring $obj (config $cfgkey)"
	rm -rf "$obj"
	mkdir -p "$obj"
	(cd "$obj" && "$src/configure" "${opts[@]}") > "$bdir/configure.log" 2>&1 || {
		tail -n 30 "$bdir/configure.log" >&2
		die "QEMU configure failed; full log: $bdir/configure.log"
	}
	echo "$optsig" > "$bdir/.gso-configured"
fi

# --- build --------------------------------------------------------------
targets=(qemu-system-x86_64 "${extra_targets[@]}")
jobs=$(jobs_count)
[ "$jobs" -le 2 ] || jobs=2
log "building ${targets[*]} in $obj ($jobs jobs; ~1420 steps the first time)"
log "full log: $blog"
start=$(date +%s)
# Progress: one line on stderr every 100 steps, the rest in the log.
rc=0
NINJA_STATUS='[%f/%t] ' ninja -C "$obj" -j"$jobs" "${targets[@]}" 2>&1 |
	tee "$blog" |
	awk -v me="${0##*/}" 'match($0, /^\[[0-9]+\/[0-9]+\]/) {
			split(substr($0, 2, RLENGTH - 2), f, "/")
			if (f[1] - last >= 100 || (f[1] == f[2] && f[1] != last)) {
				printf "[%s] %s/%s steps\n", me, f[1], f[2] > "/dev/stderr"
				last = f[1]
			}
		}' || rc=$?
if [ $rc -ne 0 ] || [ ! -x "$binary" ]; then
	grep -E -B2 -A12 'error|FAILED' "$blog" | tail -n 40 >&2 || tail -n 40 "$blog" >&2
	die "QEMU build failed; full log: $blog"
fi
log "QEMU built in $(( $(date +%s) - start )) s"
link_firmware
printf '%s\n' "$state" > "$stamp"
echo "$binary"
