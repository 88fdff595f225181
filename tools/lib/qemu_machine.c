// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine type of a QEMU command line and its version
 * (lib/qemu_machine.h).  Pure: the arguments come in a struct qemu_args,
 * another process's /proc/PID/cmdline (untrusted), so the unit test
 * (test/test-doctor-machine.c) and the fuzzer (fuzz/fuzz-qemu-machine.c)
 * run the code gso-doctor runs.
 */
#include <stdlib.h>
#include <string.h>

#include "qemu_machine.h"

bool qemu_machine_type(const struct qemu_args *a, char *type, size_t len)
{
	size_t pm = 0, pM = 0;
	const char *m = qemu_args_next(a, "machine", &pm), *M = qemu_args_next(a, "M", &pM);
	char v[QEMU_OPT_MAX];
	bool found = false;

	if (len)
		type[0] = '\0';
	/* Both spellings, merged in command-line order (*pos is past each one found). */
	while (m || M) {
		const char *opt;

		if (m && (!M || pm < pM)) {
			opt = m;
			m = qemu_args_next(a, "machine", &pm);
		} else {
			opt = M;
			M = qemu_args_next(a, "M", &pM);
		}
		if (qemu_keyval_get_last(opt, "type", "type", v, sizeof(v)) && strlen(v) < len) {
			memcpy(type, v, strlen(v) + 1);
			found = true;
		}
	}
	return found;
}

int qemu_machine_version(const char *type, unsigned int *major, unsigned int *minor)
{
	const char *dash = strrchr(type, '-');
	char *end;
	unsigned long ma, mi;

	if (!dash || dash[1] < '0' || dash[1] > '9')
		return 0;
	ma = strtoul(dash + 1, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return 0;
	mi = strtoul(end + 1, &end, 10);
	/*
	 * A distribution's own revision of a machine type: Proxmox VE names
	 * its compat fixes pc-q35-10.2+pve1.  The revision does not move the
	 * type past the release it is based on.
	 */
	if (*end == '+') {
		const char *r = end + 1;

		if (!*r)
			return 0;
		for (; *r; r++)
			if (!((*r >= 'a' && *r <= 'z') || (*r >= '0' && *r <= '9')))
				return 0;
		end = (char *)r;
	}
	if (*end || ma > 1000 || mi > 1000)
		return 0;
	*major = (unsigned int)ma;
	*minor = (unsigned int)mi;
	return 1;
}
