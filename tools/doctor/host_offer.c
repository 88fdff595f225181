// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether a tap's virtio-net device offers VIRTIO_NET_F_GSO_LIMITS when
 * its command line names no limit (qemu-patches v3, docs/qemu.md): the
 * feature property host_gso_limits is on by default for machine types
 * 11.0 and newer and off in hw_compat_10_2 (10.2 and older), so a device
 * with no arguments on pc-q35-11.0 offers the feature with no limit
 * (management sets one at run time: gso-limitsd), and the same device on
 * pc-q35-10.2 does not offer it at all.
 *
 * Read from what the doctor can see without talking to QEMU:
 *   - whether the QEMU binary carries the series: its executable
 *     (/proc/PID/exe) contains the property name "host_gso_limits" (a
 *     string every build with the series has, and no QEMU without it);
 *   - host_gso_limits= on the tap's -device, a -global for its type
 *     (either spelling) or for its virtio-net-device backend, a -set
 *     device.ID.host_gso_limits=, in QEMU's order (lib/qemu_net_prop.c);
 *   - the machine type (-machine/-M, the last type= or leading value,
 *     lib/qemu_machine.c): a versioned one ("pc-q35-10.2", "virt-11.0")
 *     by its version, an unversioned alias ("pc", "q35", "virt") or none
 *     at all is the binary's newest.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "lib/qemu_machine.h"
#include "lib/qemu_net_prop.h"
#include "lib/vmm.h"

#define SERIES_MARK	"host_gso_limits"

/* 1: @pid's executable has the series' property, 0: not, -1: cannot tell. */
static int exe_has_series(pid_t pid)
{
	char path[64];
	struct stat st;
	void *map;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			ret = memmem(map, (size_t)st.st_size, SERIES_MARK, strlen(SERIES_MARK)) != NULL;
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return ret;
}

void doctor_offer(const struct vmm_info *v, const char *tap, struct doctor_offer *o)
{
	unsigned int major, minor;

	memset(o, 0, sizeof(o[0]));
	o->series = exe_has_series(v->pid);
	o->prop = qemu_net_bool_prop(&v->args, tap, v->tap_fd, v->ntap_fd, SERIES_MARK);
	qemu_machine_type(&v->args, o->machine, sizeof(o->machine));
	if (o->series != 1)
		o->state = o->series ? DOCTOR_OFFER_UNKNOWN : DOCTOR_OFFER_NO_SERIES;
	else if (o->prop == 0)
		o->state = DOCTOR_OFFER_PROP_OFF;
	else if (o->prop == 1 || !o->machine[0] ||
		 !qemu_machine_version(o->machine, &major, &minor))
		o->state = DOCTOR_OFFER_ON;	/* on, or the newest machine type or an alias of it */
	else
		o->state = major > 10 || (major == 10 && minor > 2) ? DOCTOR_OFFER_ON :
			   DOCTOR_OFFER_MACHINE_OFF;
}
