# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# A second initramfs (VM_EXTRA_INITRD, tests/harness/vm.sh) with programs
# the busybox guest lacks: bash for a kernel selftest's lib.sh, GNU date
# for its millisecond waits, iproute2's ip for veth, netns and
# gso_max_size, and files of the test itself.
#
# Source after tests/lib.sh.
#
# extra_initrd OUT SRC:DEST...
#   Each SRC (a file) goes to DEST in the archive, mode kept; a program
#   brings the libraries ldd names, at their own paths (the guest's
#   dynamic loader finds them there).  DEST directories are created.
extra_initrd() {
	local out=$1 root spec src dest l
	shift
	root=$(mktemp -d)
	for spec in "$@"; do
		src=${spec%%:*} dest=${spec#*:}
		mkdir -p "$root$(dirname "$dest")"
		cp -L "$src" "$root$dest"
		while IFS= read -r l; do
			mkdir -p "$root$(dirname "$l")"
			cp -L "$l" "$root$l"
		done < <(prog_libs "$src")
	done
	chmod -R u+rwX,go+rX "$root"
	write_cpio "$root" "$out"
	rm -rf "$root"
}
