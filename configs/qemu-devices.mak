# Device set of the project's qemu-system-x86_64 (scripts/build-qemu.sh).
#
# Built with --without-default-devices: minikconf starts from nothing and
# enables only what is listed here plus what these select.  Keep it to
# what the tests use:
#   machines pc (i440fx) and q35, -accel kvm|tcg|qtest (not Kconfig);
#   microvm, only for its virtio-mmio transport (the qtest of the GSO
#   limits refused on a transport without feature bits above 63);
#   virtio-net-pci, virtio-serial-pci + virtconsole, virtio-rng-pci;
#   e1000e (tier 2's "physical" NIC), isa-serial (selected by PC);
#   e1000 and VGA only because they are the pc machine's defaults
#   (-nic/-vga when nothing is said), so that a plain command line works.

CONFIG_I440FX=y
CONFIG_Q35=y
CONFIG_MICROVM=y

CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_SERIAL=y
CONFIG_VIRTIO_RNG=y

CONFIG_E1000E_PCI_EXPRESS=y
CONFIG_E1000_PCI=y
CONFIG_SERIAL_ISA=y
CONFIG_VGA_PCI=y

# The PC machines' ACPI code (ACPI_X86) always selects ACPI_CXL, whose
# hw/acpi/cxl.c calls into hw/cxl, which is only built with CXL (which
# depends on PXB), and hw/cxl calls into hw/mem/cxl_type3.c: without these,
# QEMU 10.2.2 fails to link (cxl_fmws_get_all_sorted, ct3_*) or aborts at
# start (cxl-rp's parent pcie-root-port-base comes with PCIE_PORT).
CONFIG_PXB=y
CONFIG_CXL=y
CONFIG_CXL_MEM_DEVICE=y
CONFIG_PCIE_PORT=y

# Test-only (qemu-test-patches/): the Realtek RTL8125B/RTL8168evl model
# that the r8169 driver drives, tier 2's egress NIC.
CONFIG_RTL8168_PCI_EXPRESS=y
