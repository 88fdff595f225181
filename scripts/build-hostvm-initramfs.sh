#!/usr/bin/env bash
# Build the extra initramfs of a tier-2 "host VM" that runs QEMU itself,
# and print its path.
#
#   scripts/build-hostvm-initramfs.sh [--qemu QEMU] [--kernel BZIMAGE]
#
# Defaults: GSO_QEMU / GSO_KERNEL from the environment, else the project's
# builds (scripts/build-qemu.sh, scripts/build-kernel.sh).  The archive goes
# on top of the base initramfs (VM_EXTRA_INITRD, tests/harness/vm.sh) and
# holds:
#   /usr/local/bin/qemu-system-x86_64   QEMU, stripped, and every library
#                                       ldd names, at the same paths
#   /usr/share/qemu, /usr/share/seabios, /usr/lib/ipxe/qemu
#                                       the firmware a nested
#                                       "-M pc -bios qboot.rom -vga none
#                                       -nodefaults" guest needs, where the
#                                       build's --firmwarepath looks
#                                       (configs/qemu-configure.txt)
#   /opt/gso/bin/ip                     iproute2's ip (busybox's has no
#                                       tuntap, no gso_max_size), and its
#                                       libraries
#   /opt/gso/bin/tcpdump                the captures of the nested guest's
#                                       stream (tap and egress port)
#   /opt/gso/bzImage, /opt/gso/guest.cpio
#                                       the nested guest's kernel and
#                                       initramfs (scripts/build-initramfs.sh
#                                       --nested: uncompressed; a test
#                                       appends its /test.sh as a gzip'd
#                                       archive)
# Cached in $GSO_CACHE/initramfs/hostvm-KEY.cpio.gz, KEY the hash of every
# input; written in userspace like build-initramfs.sh (owner 0:0, mtime 0,
# sorted, inode numbers renumbered: cpio --reproducible), so it is
# reproducible.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 [--qemu QEMU] [--kernel BZIMAGE]" >&2; exit 2; }

qemu=${GSO_QEMU:-} kernel=${GSO_KERNEL:-}
while [ $# -gt 0 ]; do
	case "$1" in
	--qemu) [ $# -ge 2 ] || usage; qemu=$2; shift 2 ;;
	--kernel) [ $# -ge 2 ] || usage; kernel=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$qemu" ] || qemu=$("$GSO_TOP/scripts/build-qemu.sh") || die "QEMU build failed"
[ -n "$kernel" ] || kernel=$("$GSO_TOP/scripts/build-kernel.sh") || die "kernel build failed"
guest=$("$GSO_TOP/scripts/build-initramfs.sh" --nested) || die "initramfs build failed"
[ -x "$qemu" ] || die "$qemu is not an executable"
[ -f "$kernel" ] || die "$kernel is not a file"
ip=$(command -v ip) || die "iproute2 is not installed"
ldd "$ip" >/dev/null 2>&1 || die "$ip is not iproute2's ip (busybox?)"
tcpdump=$(command -v tcpdump) || die "tcpdump is not installed (scripts/setup-deps.sh)"

# The firmware a nested pc guest with -bios qboot.rom -kernel asks for
# (linuxboot_dma.bin: the -kernel loader; kvmvapic.bin: the TCG/KVM APIC
# helper ROM), plus SeaBIOS and virtio-net's default option ROM so that
# QEMU's defaults work too.
firmware=(
	/usr/share/qemu/qboot.rom
	/usr/share/qemu/linuxboot_dma.bin
	/usr/share/qemu/linuxboot.bin
	/usr/share/qemu/kvmvapic.bin
	/usr/share/seabios/bios-256k.bin
	/usr/lib/ipxe/qemu/efi-virtio.rom
)
for f in "${firmware[@]}"; do
	[ -f "$f" ] || die "$f is missing (scripts/setup-deps.sh installs it)"
done

mapfile -t qlibs < <(prog_libs "$qemu"; prog_libs "$ip"; prog_libs "$tcpdump")

key=$(files_hash "$0" "$GSO_TOP/scripts/lib.sh" "$qemu" "$kernel" "$guest" "$ip" "$tcpdump" "${firmware[@]}" "${qlibs[@]}")
out=$GSO_CACHE/initramfs/hostvm-$key.cpio.gz
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/local/bin" "$root/opt/gso/bin"
strip --strip-unneeded -o "$root/usr/local/bin/qemu-system-x86_64" "$qemu"
cp "$ip" "$root/opt/gso/bin/ip"
cp "$tcpdump" "$root/opt/gso/bin/tcpdump"
for f in "${qlibs[@]}" "${firmware[@]}"; do
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
done
cp "$kernel" "$root/opt/gso/bzImage"
cp "$guest" "$root/opt/gso/guest.cpio"
chmod -R u=rwX,go=rX "$root"
chmod 0755 "$root/usr/local/bin/qemu-system-x86_64" "$root/opt/gso/bin/ip" \
	"$root/opt/gso/bin/tcpdump"

write_cpio "$root" "$out"
log "host VM initramfs $out ($(du -h "$out" | cut -f1); $(du -sh "$root" | cut -f1) unpacked)"
echo "$out"
