// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of doctor_machine_version() (doctor/host_offer.c): the release
 * a machine type name belongs to decides whether a device with no
 * arguments offers VIRTIO_NET_F_GSO_LIMITS (on from the 11.0 types).
 * Proxmox VE's own revisions (pc-q35-10.2+pve1) belong to their release;
 * an alias (q35, pc) or a malformed name is not a version.
 */
#include <stdbool.h>
#include <stddef.h>

#include "doctor/doctor.h"
#include "test/check.h"

static void version(const char *type, int ok, unsigned int ma, unsigned int mi)
{
	unsigned int major = 0, minor = 0;
	int r = doctor_machine_version(type, &major, &minor);

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

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		version(cases[i].type, cases[i].ok, cases[i].major, cases[i].minor);
	return check_exit_status();
}
