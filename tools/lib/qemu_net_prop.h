/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A boolean property of a tap's virtio-net device as QEMU sets it from a
 * command line: every spelling its parsers take (system/qdev-monitor.c
 * qemu_global_option(), system/vl.c qemu_set_option(), qapi_bool_parse(),
 * QemuOpts' last-wins) in the order QEMU applies them (the -globals of the
 * virtio-net-device backend, then those of the proxy, then -device, then
 * -set device.ID).  gso-doctor reads host_gso_limits with it.
 */
#ifndef GSO_TOOLS_QEMU_NET_PROP_H
#define GSO_TOOLS_QEMU_NET_PROP_H

#include <stddef.h>

#include "qemu_cmdline.h"

/*
 * Property @prop_name of tap @tap's device as QEMU sets it from command
 * line @a (-device, -global in both spellings, -set): 1, 0, -1 not given
 * (or not a boolean).  @fds: the holder's descriptors of the tap, for a
 * -netdev tap,fd=N (libvirt).  With no device on the tap, any virtio-net
 * -global counts.
 */
int qemu_net_bool_prop(const struct qemu_args *a, const char *tap, const int *fds, size_t nfds,
		       const char *prop_name);

#endif
