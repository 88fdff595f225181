#!/usr/bin/env bash
# Build the guest's base initramfs and print its path.
#
#   scripts/build-initramfs.sh [--nested]
#
# Contents: busybox-static, tests/guest/init as /init, the project's tools
# (tools/build/*) and iperf3, each dynamic program with the libraries ldd
# names.  Written in userspace with cpio (owner 0:0, mtime 0, sorted), so
# no root is needed and the image is reproducible.  A test adds its own
# /test.sh by concatenating a second small archive (tests/harness/vm.sh):
# the kernel unpacks concatenated cpio archives in order.
#
# --nested: the initramfs of a guest nested in a tier-2 host VM (TCG inside
# TCG, tests/t61-vhost-qemu.sh, tests/harness/splitvm.sh): only what those
# guests run (busybox, gso-stream, gso-linkinfo), stripped, and not
# compressed.  The full image is 7 MB of gzip (17 MB unpacked: iperf3's
# libcrypto, gso-limitsd's libsystemd, ...), and unpacking it took 22 s of
# a nested guest's boot ("Unpacking initramfs" 13.6 s, "Freeing initrd
# memory" 35.3 s in its log, the host VM otherwise idle).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

nested=0
case "${1:-}" in
'') ;;
--nested) nested=1 ;;
*) echo "usage: $0 [--nested]" >&2; exit 2 ;;
esac

busybox=/bin/busybox
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	busybox=$(command -v busybox) || die "busybox-static is not installed (scripts/setup-deps.sh)"

make -s -C "$GSO_TOP/tools" >&2 || die "building tools/ failed"

progs=()
if [ $nested = 1 ]; then
	progs=("$GSO_TOP/tools/build/gso-stream" "$GSO_TOP/tools/build/gso-linkinfo")
	for p in "${progs[@]}"; do
		[ -x "$p" ] || die "$p was not built"
	done
else
	for p in "$GSO_TOP"/tools/build/gso-*; do
		[ -f "$p" ] && [ -x "$p" ] && progs+=("$p")
	done
	for p in iperf3 ethtool; do
		if command -v "$p" >/dev/null; then progs+=("$(command -v "$p")"); fi
	done
fi

key=$(files_hash "$busybox" "$GSO_TOP/tests/guest/init" "$GSO_TOP/tests/guest/lib.sh" "$0" "$GSO_TOP/scripts/lib.sh" "${progs[@]}")
out=$GSO_CACHE/initramfs/base-$key.cpio.gz
[ $nested = 0 ] || out=$GSO_CACHE/initramfs/nested-$key.cpio
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,lib,lib64,proc,sys,dev,tmp,run,etc,root}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$GSO_TOP/tests/guest/init" "$root/init"
install -m 0644 "$GSO_TOP/tests/guest/lib.sh" "$root/etc/gso-guest.sh"
for p in "${progs[@]}"; do
	if [ $nested = 1 ]; then
		strip --strip-unneeded -o "$root/usr/local/bin/${p##*/}" "$p"
	else
		cp "$p" "$root/usr/local/bin/"
	fi
	prog_libs "$p" | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$root/etc/hosts"

if [ $nested = 1 ]; then write_cpio "$root" "$out" none; else write_cpio "$root" "$out"; fi
log "initramfs $out ($(du -h "$out" | cut -f1))"
echo "$out"
