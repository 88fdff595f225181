// SPDX-License-Identifier: GPL-2.0-only
/*
 * The readers of another process's /proc entries (lib/vmm.c,
 * lib/qemu_cmdline.c, lib/tap_holders.c): the input as a /proc/PID/cmdline
 * image (NUL-separated arguments) for the -device property of a tap, the
 * netdev and QMP socket lookups, the -smp count and "-ARG VALUE"; as
 * fdinfo text for the "iff:" line; each argument as a Proxmox tap name.
 */
#include "fuzz/fuzz_input.h"
#include "lib/qemu_cmdline.h"
#include "lib/tap_holders.h"
#include "lib/vmm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const taps[] = { "tap0", "tap100i0", "" };
	static const char *const props[] = { "host_gso_max_size", "host_gso_auto", "x" };
	static const int fds[] = { 3, 24, 35 };
	struct vmm_info v = { 0 };
	char val[64], name[16], *text;
	size_t i, j, off;
	unsigned int vmid;

	if (qemu_args_parse((const char *)data, size, &v.args))
		return 0;
	for (i = 0; i < sizeof(taps) / sizeof(taps[0]); i++) {
		for (j = 0; j < sizeof(props) / sizeof(props[0]); j++)
			if (vmm_tap_device_prop(&v.args, taps[i], NULL, 0, props[j], val, sizeof(val)))
				fuzz_assert(strlen(val) < sizeof(val));
		if (qemu_cmdline_tap_netdev(&v.args, taps[i], fds, 3, true, val, sizeof(val)))
			(void)qemu_cmdline_netdev_device(&v.args, val, name, sizeof(name), val,
							 sizeof(val));
	}
	(void)qemu_cmdline_qmp_socket(&v.args, val, sizeof(val));
	(void)qemu_cmdline_libvirt_domain(&v.args, val, sizeof(val));
	(void)qemu_cmdline_proxmox_vmid(&v.args, &vmid);
	if (vmm_cmdline_arg(&v, "-smp", val, sizeof(val)))
		fuzz_assert(vmm_parse_smp(val) <= VMM_MAX_VCPUS);
	qemu_args_free(&v.args);

	text = fuzz_cstring(data, size);
	if (tap_fdinfo_iff(text, name, sizeof(name)))
		fuzz_assert(strlen(name) < sizeof(name));
	for (off = 0; off <= size; off += strlen(text + off) + 1) {
		unsigned int net;

		fuzz_assert(vmm_parse_smp(text + off) <= VMM_MAX_VCPUS);
		(void)qemu_proxmox_tap_name(text + off, &vmid, &net);
	}
	free(text);
	return 0;
}
