/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small read-only helpers for sysfs and procfs files.  Run the tools with
 * `ip netns exec NS` to see a namespace's /sys/class/net: it mounts a
 * sysfs of that namespace.  Nothing here writes.
 */
#ifndef GSO_TOOLS_SYSFS_H
#define GSO_TOOLS_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Read a whole (small) file into @buf, NUL-terminated, trailing newline
 * cut.  0 or -errno; -EFBIG when the file does not fit in @len - 1 bytes
 * (a cut value would be a wrong value).
 */
int sysfs_read(const char *path, char *buf, size_t len);
/*
 * A decimal number, as sysfs and procfs print their counters: no sign,
 * no spaces, no 0x; a leading 0 does not mean octal.  0 or -EINVAL.
 */
int sysfs_parse_u64(const char *text, uint64_t *val);
/* A decimal number from a file.  0 or -errno (-EINVAL: not a number). */
int sysfs_read_u64(const char *path, uint64_t *val);

/* /sys/class/net/IFNAME/ATTR as text or number. */
int sysfs_netdev_read(const char *ifname, const char *attr, char *buf, size_t len);
int sysfs_netdev_u64(const char *ifname, const char *attr, uint64_t *val);

/* Number of rx-N and tx-N entries in /sys/class/net/IFNAME/queues.  0 or -errno. */
int sysfs_netdev_queues(const char *ifname, unsigned int *rx, unsigned int *tx);

/* Whether /sys/class/net/IFNAME/device exists: a bus device (PCI NIC, virtio), not a virtual one. */
bool sysfs_netdev_has_device(const char *ifname);

/* The driver bound to the bus device ("virtio_net", "r8169"), from the driver symlink. */
int sysfs_netdev_driver(const char *ifname, char *buf, size_t len);

/*
 * Whether a CPU bit mask as sysfs prints it ("00000000,00000003", hex
 * groups) has any bit set; -EINVAL on a malformed mask.
 */
int sysfs_cpumask_any(const char *mask);

/* The largest CPU number a list may hold (the kernel's NR_CPUS is at most 8192 today). */
#define SYSFS_MAX_CPU	65535ul

/* Number of online CPUs from /sys/devices/system/cpu/online ("0-3,5"); 0 if unreadable. */
unsigned int sysfs_online_cpus(void);
/*
 * Parse a CPU list ("0-3,5") into a count; -EINVAL on malformed input, a
 * CPU number above SYSFS_MAX_CPU, or a count above SYSFS_MAX_CPU + 1.
 */
int sysfs_cpulist_count(const char *list);

#endif
