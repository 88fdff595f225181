/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine type of a QEMU command line and the release it belongs to:
 * -machine and -M are one option (system/vl.c: QEMU_OPTION_M and
 * QEMU_OPTION_machine share a case), each parsed by keyval with the
 * implied key "type" into one dictionary, so the last type= given wins,
 * across options and within one.  gso-doctor reads the type a tap's QEMU
 * runs to tell whether its device offers VIRTIO_NET_F_GSO_LIMITS by
 * default (doctor/host_offer.c decides that).
 */
#ifndef GSO_TOOLS_QEMU_MACHINE_H
#define GSO_TOOLS_QEMU_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

#include "qemu_cmdline.h"

/*
 * The machine type command line @a gives (-machine/-M/--machine/--M: the
 * last type= or leading value), into @type; false and "" when none is
 * given.  A value of @len bytes or more does not count.
 */
bool qemu_machine_type(const struct qemu_args *a, char *type, size_t len);

/*
 * The version of a versioned machine type ("pc-q35-10.2", "virt-11.0",
 * Proxmox VE's revision "pc-q35-10.2+pve1" as its release 10.2): 1 and
 * both numbers (at most 1000 each); else 0, and @major/@minor untouched
 * (an alias such as "q35" or "pc", "none", a malformed name).
 */
int qemu_machine_version(const char *type, unsigned int *major, unsigned int *minor);

#endif
