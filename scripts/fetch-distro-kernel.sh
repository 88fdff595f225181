#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Debian's own kernel (the linux-image-amd64 metapackage's current
# image, from the package registry) for the compatibility tests: a guest
# nobody in this project wrote.  Prints a directory holding
#   vmlinuz          the distribution's kernel
#   modules.cpio.gz  virtio_net and what it needs, plus /etc/gso-modules,
#                    the insmod order the guest's /init follows
#   version          the package name and version
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# virtio_net and its dependencies in load order (modinfo -F depends).
MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
failover net_failover virtio_net virtio_console"

pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$pkg" ] || die "cannot resolve linux-image-amd64 (run apt-get update, or scripts/setup-deps.sh)"
out=$GSO_CACHE/distro/$pkg
# One download at a time (scripts/prebuild.sh may run beside a test).
mkdir -p "$GSO_CACHE/distro"
exec 9> "$GSO_CACHE/distro/.lock"
flock 9
if [ -f "$out/modules.cpio.gz" ] && [ -f "$out/vmlinuz" ]; then
	echo "$out"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log "downloading $pkg (Debian's kernel, ~70 MB)"
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
	die "apt-get download $pkg failed"
deb=$(ls "$tmp"/*.deb)
dpkg-deb -x "$deb" "$tmp/x"
kver=$(ls "$tmp/x/lib/modules")
mkdir -p "$tmp/root/etc" "$out"
for m in $MODULES; do
	f=$(find "$tmp/x/lib/modules/$kver" -name "$m.ko*" | head -n 1)
	[ -n "$f" ] || { log "$m is built in"; continue; }
	case "$f" in
	*.ko.xz) xz -dc "$f" > "$tmp/root/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" > "$tmp/root/$m.ko" ;;
	*) cp "$f" "$tmp/root/$m.ko" ;;
	esac
	# Each module's dependencies must already be in the list above it.
	for dep in $(modinfo -F depends "$tmp/root/$m.ko" | tr ',' ' '); do
		grep -qx "/lib/modules/$dep.ko" "$tmp/root/etc/gso-modules" 2>/dev/null ||
			die "$m needs $dep loaded first: fix MODULES in $0"
	done
	mkdir -p "$tmp/root/lib/modules"
	mv "$tmp/root/$m.ko" "$tmp/root/lib/modules/"
	echo "/lib/modules/$m.ko" >> "$tmp/root/etc/gso-modules"
done
(cd "$tmp/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -9n > "$tmp/modules.cpio.gz"
cp "$tmp/x/boot/vmlinuz-$kver" "$out/vmlinuz"
dpkg-deb -f "$deb" Package Version | tr '\n' ' ' > "$out/version"
# Last, and whole: the check at the top takes its presence as "done".
mv "$tmp/modules.cpio.gz" "$out/modules.cpio.gz"
log "Debian kernel $kver in $out"
echo "$out"
