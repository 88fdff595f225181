#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages the project needs to build and test.
#
# Idempotent: packages already at a good version are left alone and apt is
# not even called.  QEMU 10.2 needs meson >= 1.5 and pycotap, and the tests
# iproute2 >= 6.3, which Debian 12 only has in bookworm-backports; that
# suite is added (pinned low, so nothing else is upgraded from it) only on
# Debian 12.
#
# Run as non-root, it prints the command to run and exits non-zero.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# Build: kernel and QEMU.
PKGS_BUILD=(build-essential git make flex bison bc libelf-dev libssl-dev
	cpio xz-utils ccache pkg-config ninja-build python3 python3-venv
	python3-distlib python3-tomli libglib2.0-dev libpixman-1-dev zlib1g-dev
	libslirp-dev libfdt-dev perl)
# Run time: firmware and the option ROMs QEMU loads for -kernel boots
# (qemu-system-data carries qboot.rom, linuxboot_dma.bin, kvmvapic.bin; it
# installs data only, no emulator).
PKGS_RUN=(seabios ipxe-qemu qemu-system-data busybox-static iproute2 kmod)
# Tests and tools.
PKGS_TEST=(iperf3 tcpdump ethtool libmnl-dev libpcap-dev gnuplot-nox
	shellcheck jq procps util-linux socat file nftables)
# t64's team port: teamnl sets a team's mode (a generic netlink option).
PKGS_TEST+=(libteam-utils)
# tests/tools-package.sh: the tools' .deb (dpkg-buildpackage, lintian) and
# their man pages (man --warnings, groff -ww).
PKGS_TEST+=(debhelper dpkg-dev lintian man-db groff-base)
# The backports (tests/t07-backports.sh): Debian's trees fetched with apt
# (scripts/fetch-distro-source.sh), the DEP-3 series applied with quilt
# (t07, and t08 for the QEMU exports); curl for its snapshot.debian.org
# fallback (t09).
PKGS_TEST+=(quilt debian-archive-keyring curl)
# Static analysis and fuzzing of the tools (clang with libFuzzer and the
# sanitizer runtimes), sparse for the kernel series' C=1 builds.
PKGS_ANALYSIS=(clang libclang-rt-14-dev clang-tidy cppcheck sparse)
# The spec's PDF (its own makepdf.sh: xelatex; the spec falls back from
# Arial/Courier New to Liberation Sans/Mono).
PKGS_SPEC=(texlive-xetex texlive-latex-extra texlive-fonts-recommended
	lmodern fonts-liberation poppler-utils)
# From bookworm-backports on Debian 12.  iproute2: Debian 12's 6.1 cannot
# set gso_ipv4_max_size (BIG TCP's IPv4 limit; iproute2 6.3).
PKGS_BPO=(meson python3-pycotap iproute2)
# gso-limitsd's tests against real libvirt (tools-daemon-libvirt.sh): libvirt
# 11.3 (monolithic libvirtd), run in the test's own namespaces.
PKGS_BPO+=(libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients)
# t66: Debian's own QEMU, the hypervisor of the e1000e passthrough (intel-iommu,
# vfio-pci; the project's build has neither).
PKGS_BPO+=(qemu-system-x86)

need_meson=1.5
need_iproute2=6.3

missing=()
for p in "${PKGS_BUILD[@]}" "${PKGS_RUN[@]}" "${PKGS_TEST[@]}" \
	"${PKGS_ANALYSIS[@]}" "${PKGS_SPEC[@]}" "${PKGS_BPO[@]}"; do
	if ! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done
meson_ok=0
if command -v meson >/dev/null 2>&1; then
	v=$(meson --version 2>/dev/null || echo 0)
	if [ "$(printf '%s\n%s\n' "$need_meson" "$v" | sort -V | head -n1)" = "$need_meson" ]; then
		meson_ok=1
	fi
fi

iproute2_ok=0
v=$(ip -V 2>/dev/null | sed -n 's/.*iproute2-\([0-9.]*\).*/\1/p')
v=${v%.}
if [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$need_iproute2" "$v" | sort -V | head -n1)" = "$need_iproute2" ]; then
	iproute2_ok=1
fi

if [ ${#missing[@]} -eq 0 ] && [ $meson_ok = 1 ] && [ $iproute2_ok = 1 ]; then
	log "all packages present"
	exit 0
fi

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
bpo_list=/etc/apt/sources.list.d/gso-limits-backports.list

if [ "$(id -u)" != 0 ]; then
	{
		echo "missing packages: ${missing[*]:-(meson >= $need_meson, iproute2 >= $need_iproute2)}"
		echo "run as root:  sudo $0"
		if [ "$codename" = bookworm ]; then
			echo "(it adds bookworm-backports for: ${PKGS_BPO[*]})"
		fi
	} >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ "$codename" = bookworm ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	log "adding bookworm-backports ($bpo_list)"
	echo 'deb http://deb.debian.org/debian bookworm-backports main' > "$bpo_list"
fi
log "apt-get update"
apt-get update -q >/dev/null
log "installing: ${missing[*]:-meson iproute2}"
apt-get install -y -q --no-install-recommends "${PKGS_BUILD[@]}" "${PKGS_RUN[@]}" \
	"${PKGS_TEST[@]}" "${PKGS_ANALYSIS[@]}" "${PKGS_SPEC[@]}" >/dev/null
if [ "$codename" = bookworm ]; then
	apt-get install -y -q --no-install-recommends -t bookworm-backports "${PKGS_BPO[@]}" >/dev/null
else
	apt-get install -y -q --no-install-recommends "${PKGS_BPO[@]}" >/dev/null
fi
v=$(meson --version)
[ "$(printf '%s\n%s\n' "$need_meson" "$v" | sort -V | head -n1)" = "$need_meson" ] ||
	die "meson $v is older than $need_meson after install"
ipv=$(ip -V | sed -n 's/.*iproute2-\([0-9.]*\).*/\1/p')
ipv=${ipv%.}
[ "$(printf '%s\n%s\n' "$need_iproute2" "$ipv" | sort -V | head -n1)" = "$need_iproute2" ] ||
	die "iproute2 $ipv is older than $need_iproute2 after install"
log "done (meson $v, iproute2 $ipv)"
