// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-doctor's reading of a virtio-net device's boolean property from a
 * VM's command line (lib/qemu_net_prop.c): the input as a /proc/PID/cmdline
 * image (NUL-separated arguments), read for Proxmox's and any tap, by
 * name and by descriptor (libvirt's -netdev tap,fd=N), for the project's
 * property and a one-letter one (a bare "x" and "nox" are booleans too).
 * Checked: 1, 0 or -1; and a value comes from the command line's text, so
 * with no JSON argument (whose strings may escape letters) the property's
 * name is in the input.
 */
#include "fuzz/fuzz_input.h"
#include "lib/qemu_cmdline.h"
#include "lib/qemu_net_prop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const taps[] = { "tap0", "tap100i0", "" };
	static const char *const props[] = { "host_gso_limits", "x" };
	static const int fds[] = { 24, 35 };
	bool json = memchr(data, '{', size) != NULL;
	struct qemu_args a;
	size_t i, j, n;
	int r;

	if (qemu_args_parse((const char *)data, size, &a))
		return 0;
	for (i = 0; i < sizeof(taps) / sizeof(taps[0]); i++)
		for (j = 0; j < sizeof(props) / sizeof(props[0]); j++)
			for (n = 0; n <= 2; n += 2) {
				r = qemu_net_bool_prop(&a, taps[i], n ? fds : NULL, n, props[j]);
				fuzz_assert(r >= -1 && r <= 1);
				if (r != -1 && !json)
					fuzz_assert(memmem(data, size, props[j], strlen(props[j])));
			}
	qemu_args_free(&a);
	return 0;
}
