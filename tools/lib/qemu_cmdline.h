/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Readers of a QEMU command line, as management layers write it: which
 * -netdev is a given tap, which -device uses that netdev, where QEMU's
 * QMP server socket is, and who started it (Proxmox's -id, libvirt's
 * -name guest=).  Both option syntaxes are read: QemuOpts key=value lists
 * ("tap,id=net0,ifname=tap100i0"; ",," is an escaped comma; a leading
 * value without a key is the option's implied key) and the JSON form
 * libvirt writes ({"type":"tap","fd":"24","id":"hostnet0"}).
 *
 * Pure: the arguments come in an argv array (qemu_args_read() fills one
 * from /proc/PID/cmdline), so the QMP stand-in of the tests and fuzzers
 * use the same code.  Another process's command line is untrusted input.
 */
#ifndef GSO_TOOLS_QEMU_CMDLINE_H
#define GSO_TOOLS_QEMU_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define QEMU_OPT_MAX	256	/* longest option value read; longer ones do not match */

struct qemu_args {
	char *buf;		/* the NUL-separated arguments */
	char **argv;
	size_t argc;
};

/* The command line of process @pid.  0 or -errno; free with qemu_args_free(). */
int qemu_args_read(pid_t pid, struct qemu_args *out);
/* @len bytes of NUL-separated arguments (a /proc/PID/cmdline image), copied. */
int qemu_args_parse(const char *buf, size_t len, struct qemu_args *out);
void qemu_args_free(struct qemu_args *a);

/*
 * The value of option @opt (without dashes: "netdev") at or after argv
 * index *pos; "-opt VALUE" and "--opt VALUE" both count.  Advances *pos
 * past it.  NULL when there is no further one.
 */
const char *qemu_args_next(const struct qemu_args *a, const char *opt, size_t *pos);

/*
 * Key @key of one option value @optstr, into @buf.  @implied: the key a
 * leading bare value stands for ("type" for -netdev, "driver" for
 * -device, "backend" for -chardev, "guest" for -name), or NULL.  A bare
 * "flag" is "on", a bare "noflag" is flag "off" (QEMU's legacy booleans).
 * JSON values: strings as they are, integers in decimal, true/false as
 * on/off.  False when absent or longer than @len.
 */
bool qemu_opt_get(const char *optstr, const char *implied, const char *key,
		  char *buf, size_t len);
/*
 * Key @key of an option QEMU parses with keyval (util/keyval.c; used for
 * -machine, keyval_parse_into() in QEMU 10.2's vl.c, whereas -accel goes
 * through QemuOpts, qemu_opt_get()), its last occurrence (keyval replaces
 * a repeated key): KEY=VALUE items, ",," an escaped comma, @implied for a leading
 * value without '='.  No JSON, no bare "flag" booleans (keyval refuses
 * them).  False when absent; an item longer than QEMU_OPT_MAX + 63 bytes
 * or a value of @len bytes or more does not count.
 */
bool qemu_keyval_get_last(const char *optstr, const char *implied, const char *key,
			  char *buf, size_t len);

/*
 * The id of the -netdev that is tap @ifname: type tap with ifname=@ifname,
 * or with fd=N / fds=N:M:... where one N is in @fds (the holder's file
 * descriptor numbers of that tap: libvirt passes taps by fd).  Failing
 * both, the only tap (or bridge-helper) netdev, if @only_tap is set and
 * the command line has exactly one.
 */
bool qemu_cmdline_tap_netdev(const struct qemu_args *a, const char *ifname,
			     const int *fds, size_t nfds, bool only_tap,
			     char *id, size_t len);

/* The virtio-net -device whose netdev= is @netdev: its driver and its id ("" if none). */
bool qemu_cmdline_netdev_device(const struct qemu_args *a, const char *netdev,
				char *driver, size_t driver_len, char *id, size_t id_len);

/*
 * The path of a QMP server socket QEMU listens on: "-qmp unix:PATH,server..."
 * or "-chardev socket,id=X,path=PATH,server=on" with "-mon chardev=X,
 * mode=control".  Client-mode sockets (Proxmox's qmeventd link) and
 * sockets passed by fd (libvirt's monitor) do not count.
 */
bool qemu_cmdline_qmp_socket(const struct qemu_args *a, char *path, size_t len);

/* libvirt starts QEMU with -name guest=DOMAIN,...: the domain. */
bool qemu_cmdline_libvirt_domain(const struct qemu_args *a, char *name, size_t len);

/* Proxmox starts QEMU with -id VMID. */
bool qemu_cmdline_proxmox_vmid(const struct qemu_args *a, unsigned int *vmid);

/* Proxmox's tap name tap<VMID>i<N> (its VM's netN): true and both numbers. */
bool qemu_proxmox_tap_name(const char *ifname, unsigned int *vmid, unsigned int *net);

#endif
