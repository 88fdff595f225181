// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of what doctor/host_offer.c reads.  qemu_machine_type() and
 * qemu_machine_version() (lib/qemu_machine.c): the machine type QEMU runs
 * (-machine and -M in command-line order, the last type= winning) and the
 * release it belongs to decide whether a device with no arguments offers
 * VIRTIO_NET_F_GSO_LIMITS (on from the 11.0 types).  Proxmox VE's own
 * revisions (pc-q35-10.2+pve1) belong to their release; an alias (q35,
 * pc) or a malformed name is not a version.
 * qemu_net_bool_prop() (lib/qemu_net_prop.c), the doctor's reading of
 * host_gso_limits: the property as QEMU 10.2 sets it from a command
 * line, every spelling its parsers take (system/qdev-monitor.c
 * qemu_global_option(), system/vl.c qemu_set_option(), qapi_bool_parse(),
 * QemuOpts' last-wins) and the order it applies them in (a proxy's
 * -global after its virtio-net-device backend's, then -device, then -set).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/qemu_cmdline.h"
#include "lib/qemu_machine.h"
#include "lib/qemu_net_prop.h"
#include "test/check.h"

static void version(const char *type, int ok, unsigned int ma, unsigned int mi)
{
	unsigned int major = 0, minor = 0;
	int r = qemu_machine_version(type, &major, &minor);

	if (ok)
		check(r == 1 && major == ma && minor == mi, "%s is %u.%u (got %d, %u.%u)",
		      type, ma, mi, r, major, minor);
	else
		check(r == 0, "%s is not a versioned machine type (got %d)", type, r);
}

static const struct {
	const char *type;
	int ok;
	unsigned int major, minor;
} cases[] = {
	{ "pc-i440fx-11.0", 1, 11, 0 },
	{ "pc-q35-10.2", 1, 10, 2 },
	{ "pc-q35-10.2+pve1", 1, 10, 2 },
	{ "pc-i440fx-11.0+pve0", 1, 11, 0 },
	{ "pc-q35-9.2+pve12", 1, 9, 2 },
	{ "q35", 0, 0, 0 },
	{ "pc", 0, 0, 0 },
	{ "pc-q35-10.2+", 0, 0, 0 },
	{ "pc-q35-10.2+PVE1", 0, 0, 0 },
	{ "pc-q35-10.2+pve-1", 0, 0, 0 },
	{ "pc-q35-10.2x", 0, 0, 0 },
	{ "pc-q35-10", 0, 0, 0 },
	{ "pc-q35-1001.0", 0, 0, 0 },
};

/* Each command line: the arguments separated by '|'; want: the type, "" for none. */
static const struct {
	const char *why, *cmdline, *want;
} machines[] = {
	{ "Proxmox: type=", "/usr/bin/kvm|-id|100|-machine|type=pc-q35-10.2+pve1", "pc-q35-10.2+pve1" },
	{ "libvirt: the leading value", "-machine|pc-q35-9.2,usb=off,dump-guest-core=off,"
	  "memory-backend=pc.ram,hpet=off,acpi=on", "pc-q35-9.2" },
	{ "-M", "-M|pc-i440fx-11.0", "pc-i440fx-11.0" },
	{ "--machine", "--machine|q35", "q35" },
	{ "no type", "-machine|accel=kvm", "" },
	{ "no -machine", "-name|guest=vm1|-smp|2", "" },
	{ "-machine without a value", "-smp|2|-machine", "" },
	{ "-M, then -machine: the last", "-M|pc-q35-11.0|-machine|pc-q35-10.2", "pc-q35-10.2" },
	{ "-machine, then -M: the last", "-machine|pc-q35-10.2|--M|pc-q35-11.0", "pc-q35-11.0" },
	{ "a later -machine without type keeps it", "-machine|pc-q35-10.2|-machine|accel=kvm",
	  "pc-q35-10.2" },
	{ "type= after the leading value replaces it", "-machine|pc-q35-10.2,type=pc-q35-11.0",
	  "pc-q35-11.0" },
	{ "a bare type is no value (keyval refuses it)", "-machine|pc-q35-10.2|-machine|accel=kvm,type",
	  "pc-q35-10.2" },
	{ "no JSON: keyval takes it as a name", "-machine|{\"type\":\"pc-q35-10.2\"}",
	  "{\"type\":\"pc-q35-10.2\"}" },
	{ "an escaped comma is part of a value", "-machine|accel=kvm,type=pc-q35-10.2,,x", "pc-q35-10.2,x" },
	{ "a type too long for the buffer does not count", "-machine|pc-q35-10.2|-machine|"
	  "pc-q35-10.2-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "pc-q35-10.2" },
};

/* @cmdline with '|' for each NUL, into @a: true, or a failed check. */
static bool args(const char *why, const char *cmdline, struct qemu_args *a)
{
	char buf[1024];
	size_t n = strlen(cmdline) + 1, i;

	if (n > sizeof(buf)) {
		check(false, "%s: command line too long", why);
		return false;
	}
	for (i = 0; i < n; i++)
		buf[i] = cmdline[i] == '|' ? '\0' : cmdline[i];
	if (qemu_args_parse(buf, n, a)) {
		check(false, "%s: qemu_args_parse", why);
		return false;
	}
	return true;
}

static void machine(const char *why, const char *cmdline, const char *want)
{
	char type[64] = "x";
	struct qemu_args a;
	bool found;

	if (!args(why, cmdline, &a))
		return;
	found = qemu_machine_type(&a, type, sizeof(type));
	check(found == !!*want && !strcmp(type, want), "machine type, %s: '%s' (got %d '%s')",
	      why, want, found, type);
	qemu_args_free(&a);
}

#define TAP	"-netdev|tap,id=n0,ifname=tap0,script=no|"
#define PCI	"-device|virtio-net-pci,netdev=n0,id=net0"

/*
 * Each command line: the arguments separated by '|'; the tap is tap0.
 * qemu: the case runs as it is on QEMU (tests/tools-daemon-qemu.sh runs
 * it, `--qemu-cases`, and compares with QEMU's own qom-get); not the
 * ones QEMU refuses to start (a bad value, -set for no device), a
 * virtio-net-device (no virtio-mmio bus on a PC) and a tap without a device.
 */
static const struct {
	const char *why, *cmdline;
	int want;
	bool qemu;
} props[] = {
	{ "nothing given", TAP PCI, -1, true },
	{ "-device off", TAP PCI ",host_gso_limits=off", 0, true },
	{ "-device y (qapi_bool_parse)", TAP PCI ",host_gso_limits=y", 1, true },
	{ "-device n", TAP PCI ",host_gso_limits=n", 0, true },
	{ "-device: the last of two", TAP PCI ",host_gso_limits=on,host_gso_limits=off", 0, true },
	{ "-device: an escaped comma is part of a value", TAP PCI ",romfile=a,,host_gso_limits=off",
	  -1, false },
	{ "-device JSON false", TAP "-device|{\"driver\":\"virtio-net-pci\",\"netdev\":\"n0\","
	  "\"id\":\"net0\",\"host_gso_limits\":false}", 0, true },
	{ "-global DRIVER.PROP=V", TAP PCI "|-global|virtio-net-pci.host_gso_limits=off", 0, true },
	{ "--global", TAP PCI "|--global|virtio-net-pci.host_gso_limits=no", 0, true },
	{ "-global driver=,property=,value=", TAP PCI
	  "|-global|driver=virtio-net-pci,property=host_gso_limits,value=off", 0, true },
	{ "-global keys in any order", TAP PCI
	  "|-global|value=false,property=host_gso_limits,driver=virtio-net-pci", 0, true },
	{ "-global long form, another property", TAP PCI
	  "|-global|driver=virtio-net-pci,property=mq,value=off", -1, true },
	{ "-global for the backend virtio-net-device", TAP PCI
	  "|-global|virtio-net-device.host_gso_limits=off", 0, true },
	{ "-global for the parent virtio-net-pci-base", TAP PCI
	  "|-global|virtio-net-pci-base.host_gso_limits=off", 0, true },
	{ "-global for another type", TAP PCI
	  "|-global|virtio-net-pci-non-transitional.host_gso_limits=off", -1, true },
	{ "-global for the alias virtio-net (not a type)", TAP PCI
	  "|-global|virtio-net.host_gso_limits=off", -1, true },
	{ "-global for the proxy beats the backend's, in any order", TAP PCI
	  "|-global|virtio-net-pci.host_gso_limits=on|-global|virtio-net-device.host_gso_limits=off",
	  1, true },
	{ "-global: the last of two", TAP PCI "|-global|virtio-net-pci.host_gso_limits=on"
	  "|-global|driver=virtio-net-pci,property=host_gso_limits,value=off", 0, true },
	{ "-global: not a boolean (QEMU would not start)", TAP PCI
	  "|-global|virtio-net-pci.host_gso_limits=maybe", -1, false },
	{ "-device beats -global", TAP PCI ",host_gso_limits=on"
	  "|-global|virtio-net-pci.host_gso_limits=off", 1, true },
	{ "-set device.ID", TAP PCI "|-set|device.net0.host_gso_limits=off", 0, true },
	{ "-set beats -device", TAP PCI ",host_gso_limits=on|-set|device.net0.host_gso_limits=off",
	  0, true },
	{ "-set for another device", TAP PCI "|-set|device.net1.host_gso_limits=off", -1, false },
	{ "virtio-net-device: its own -global", TAP "-device|virtio-net-device,netdev=n0"
	  "|-global|virtio-net-device.host_gso_limits=off", 0, false },
	{ "virtio-net-device: a PCI type's -global", TAP "-device|virtio-net-device,netdev=n0"
	  "|-global|virtio-net-pci.host_gso_limits=off", -1, false },
	{ "-device by its alias virtio-net", TAP "-device|virtio-net,netdev=n0,id=net0"
	  "|-global|virtio-net-pci.host_gso_limits=off", 0, true },
	{ "no device on the tap: any virtio-net -global", TAP
	  "-global|virtio-net-pci.host_gso_limits=off", 0, false },
};

static void prop(const char *why, const char *cmdline, int want)
{
	struct qemu_args a;
	int got;

	if (!args(why, cmdline, &a))
		return;
	got = qemu_net_bool_prop(&a, "tap0", NULL, 0, "host_gso_limits");
	check(got == want, "host_gso_limits, %s: %d (got %d)", why, want, got);
	qemu_args_free(&a);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--qemu-cases")) {
		for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++)
			if (props[i].qemu)
				printf("%d|%s|%s\n", props[i].want, props[i].why, props[i].cmdline);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		version(cases[i].type, cases[i].ok, cases[i].major, cases[i].minor);
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		machine(machines[i].why, machines[i].cmdline, machines[i].want);
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++)
		prop(props[i].why, props[i].cmdline, props[i].want);
	return check_exit_status();
}
