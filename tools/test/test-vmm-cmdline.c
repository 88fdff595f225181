// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the readers of a VMM's /proc entries (lib/vmm.c,
 * lib/qemu_cmdline.c, lib/tap_holders.c): QEMU's -smp argument, the
 * properties of the -device bound to a tap's -netdev, the tun fdinfo
 * "iff:" line, and Proxmox's tap names.
 */
#include <stdio.h>
#include <string.h>

#include "lib/qemu_cmdline.h"
#include "lib/tap_holders.h"
#include "lib/vmm.h"
#include "test/check.h"

static void test_smp(void)
{
	check(vmm_parse_smp("4") == 4, "smp: 4");
	check(vmm_parse_smp("6,sockets=1,cores=6,maxcpus=6") == 6, "smp: Proxmox form");
	check(vmm_parse_smp("sockets=1,cpus=8,cores=8") == 8, "smp: cpus=8 later in the list");
	check(vmm_parse_smp("sockets=2,cores=2") == 0, "smp: no count given");
	check(vmm_parse_smp("maxcpus=8") == 0, "smp: maxcpus= is not cpus=");
	check(vmm_parse_smp("") == 0, "smp: empty");
	check(vmm_parse_smp("99999999999999999999") == 0, "smp: beyond any count");
	check(vmm_parse_smp("4x") == 0 && vmm_parse_smp("cpus=4x") == 0, "smp: trailing junk");
}

/* A command line as /proc/PID/cmdline holds it: each argument NUL-terminated. */
static size_t args(char *buf, size_t len, const char *const *argv)
{
	size_t used = 0;

	for (; *argv; argv++) {
		size_t n = strlen(*argv) + 1;

		if (used + n > len)
			break;
		memcpy(buf + used, *argv, n);
		used += n;
	}
	return used;
}

static void test_device_prop(void)
{
	static const char *const two_nics[] = {
		"qemu-system-x86_64", "-name", "vm100,debug-threads=on",
		"-netdev", "type=tap,id=net0,ifname=tap100i0,script=no",
		"-device", "virtio-net-pci,mac=02:00:00:00:00:01,netdev=net0,host_gso_max_size=64000",
		"-netdev", "tap,id=net1,ifname=tap100i1",
		"--device", "virtio-net-pci,netdev=net1,host_gso_max_segs=64,host_gso_auto=on",
		"-device", "e1000,netdev=net9,host_gso_max_size=1",
		NULL,
	};
	static const char *const escaped[] = {
		"-netdev", "tap,id=a,,b,ifname=tap0", "-device", "virtio-net-pci,netdev=a,,b,x=1",
		NULL,
	};
	static const char *const trailing[] = { "-netdev", NULL };
	char buf[4096], val[32];
	struct qemu_args a;
	size_t len = args(buf, sizeof(buf), two_nics);

	if (qemu_args_parse(buf, len, &a)) {
		check(false, "device prop: qemu_args_parse");
		return;
	}

	check(vmm_tap_device_prop(&a, "tap100i0", NULL, 0, "host_gso_max_size", val, sizeof(val)) &&
	      !strcmp(val, "64000"), "device prop: the tap's own -device");
	check(!vmm_tap_device_prop(&a, "tap100i0", NULL, 0, "host_gso_max_segs", val, sizeof(val)),
	      "device prop: another NIC's property does not count");
	check(vmm_tap_device_prop(&a, "tap100i1", NULL, 0, "host_gso_max_segs", val, sizeof(val)) &&
	      !strcmp(val, "64"), "device prop: second NIC, --device");
	check(vmm_tap_device_prop(&a, "tap100i1", NULL, 0, "host_gso_auto", val, sizeof(val)) &&
	      !strcmp(val, "on"), "device prop: a bool");
	check(!vmm_tap_device_prop(&a, "tap100i", NULL, 0, "host_gso_max_size", val, sizeof(val)),
	      "device prop: a tap name prefix is not the tap");
	qemu_args_free(&a);
	len = args(buf, sizeof(buf), escaped);
	qemu_args_parse(buf, len, &a);
	check(vmm_tap_device_prop(&a, "tap0", NULL, 0, "x", val, sizeof(val)) && !strcmp(val, "1"),
	      "device prop: ',,' escapes a comma in an id");
	qemu_args_free(&a);
	len = args(buf, sizeof(buf), trailing);
	qemu_args_parse(buf, len, &a);
	check(!vmm_tap_device_prop(&a, "tap0", NULL, 0, "x", val, sizeof(val)),
	      "device prop: -netdev without a value");
	qemu_args_free(&a);
	qemu_args_parse("-netdev", 7, &a);
	check(!vmm_tap_device_prop(&a, "tap0", NULL, 0, "x", val, sizeof(val)),
	      "device prop: no terminating NUL");
	qemu_args_free(&a);
}

static void test_fdinfo(void)
{
	static const char info[] = "pos:\t0\nflags:\t0104002\nmnt_id:\t15\nino:\t1057\n"
				   "iff:\ttap100i0\n";
	char name[16];

	check(tap_fdinfo_iff(info, name, sizeof(name)) && !strcmp(name, "tap100i0"),
	      "fdinfo: iff: names the tap");
	check(!tap_fdinfo_iff("xiff:\ttap0\n", name, sizeof(name)), "fdinfo: iff: starts a line");
}

static void test_proxmox(void)
{
	static const char *const not_proxmox[] = {
		"tap+1i0", "tap-1i0", "tap 1i0", "tap1i0x", "tapi0", "tap1i", "fwpr1p0",
	};
	unsigned int vmid = 0, net = 0;
	size_t i;

	check(qemu_proxmox_tap_name("tap100i0", &vmid, &net) && vmid == 100 && net == 0,
	      "proxmox: tap100i0");
	check(qemu_proxmox_tap_name("tap4294967295i31", &vmid, &net) && vmid == 4294967295u &&
	      net == 31, "proxmox: the largest VMID");
	check(!qemu_proxmox_tap_name("tap4294967296i0", &vmid, &net), "proxmox: VMID beyond 32 bits");
	for (i = 0; i < sizeof(not_proxmox) / sizeof(not_proxmox[0]); i++)
		check(!qemu_proxmox_tap_name(not_proxmox[i], &vmid, &net),
		      "proxmox: %s is not tap<VMID>i<N>", not_proxmox[i]);
}

int main(void)
{
	test_smp();
	test_device_prop();
	test_fdinfo();
	test_proxmox();
	return check_exit_status();
}
