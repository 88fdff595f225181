# SPDX-License-Identifier: GPL-2.0-only
# virtio-net host-path GSO limits: top-level entry points.
#
#   make demo     build what is needed and show the seed's before/after
#   make check    run every test; ends with "N passed, N failed, N skipped"
#   make check-debug  the VM tests on a KASAN + lockdep kernel (opt-in, hours under TCG)
#   make check-distro-kernel  the split backported to Debian's 6.12.117 and 7.1.8, built and
#                 booted as t63's host VM against the same release unpatched (opt-in, long)
#   make check-distro-qemu  build the QEMU backport for packagers fully and run its qtests (opt-in)
#   make check-distro  both of the above (opt-in)
#
# Everything is cached under $(GSO_CACHE) (default ~/.cache/virtio-gso-limits).

SHELL := /bin/bash
export GSO_CACHE ?= $(HOME)/.cache/virtio-gso-limits

.PHONY: all deps bases kernel qemu initramfs tools demo check check-debug check-static \
	export-series clean-cache help check-distro check-distro-kernel check-distro-qemu

all: kernel qemu initramfs

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@scripts/setup-deps.sh

bases: deps
	@scripts/tree.sh linux >/dev/null
	@scripts/tree.sh qemu >/dev/null
	@scripts/tree.sh spec >/dev/null

kernel: deps
	@scripts/build-kernel.sh

qemu: deps
	@scripts/build-qemu.sh

tools: deps
	@$(MAKE) -s -C tools

initramfs: tools
	@scripts/build-initramfs.sh

demo: deps
	@tests/demo.sh

check: deps
	@tests/run.sh

check-debug: deps
	@tests/check-debug.sh

check-distro-kernel: deps
	@tests/check-distro-kernel.sh

check-distro-qemu: deps
	@tests/check-distro-qemu.sh

check-distro: check-distro-qemu check-distro-kernel

check-static: deps
	@tests/run.sh tests/t00-static.sh tests/t01-series.sh

clean-cache:
	rm -rf "$(GSO_CACHE)"
