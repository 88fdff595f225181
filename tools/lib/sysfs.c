// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "sysfs.h"

int sysfs_read(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fd, ret = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Read up to one byte past the room: a longer file is an error, never a cut value. */
	for (;;) {
		char extra;

		if (used < len - 1)
			n = read(fd, buf + used, len - 1 - used);
		else
			n = read(fd, &extra, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		if (used == len - 1) {
			ret = -EFBIG;
			break;
		}
		used += (size_t)n;
	}
	close(fd);
	buf[ret ? 0 : used] = '\0';
	if (ret)
		return ret;
	while (used && (buf[used - 1] == '\n' || buf[used - 1] == ' '))
		buf[--used] = '\0';
	return 0;
}

int sysfs_parse_u64(const char *text, uint64_t *val)
{
	/* Decimal only: "010" is ten, "0x10" is not a number (strtoull base 0 would say 8, 16). */
	return parse_u64(text, 0, UINT64_MAX, val) ? 0 : -EINVAL;
}

int sysfs_read_u64(const char *path, uint64_t *val)
{
	char buf[64];
	int ret = sysfs_read(path, buf, sizeof(buf));

	return ret ? ret : sysfs_parse_u64(buf, val);
}

static int netdev_path(char *path, size_t len, const char *ifname, const char *attr)
{
	if (!ifname[0] || strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -EINVAL;
	if ((size_t)snprintf(path, len, "/sys/class/net/%s/%s", ifname, attr) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int sysfs_netdev_read(const char *ifname, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret = netdev_path(path, sizeof(path), ifname, attr);

	return ret ? ret : sysfs_read(path, buf, len);
}

int sysfs_netdev_u64(const char *ifname, const char *attr, uint64_t *val)
{
	char path[PATH_MAX];
	int ret = netdev_path(path, sizeof(path), ifname, attr);

	return ret ? ret : sysfs_read_u64(path, val);
}

int sysfs_netdev_queues(const char *ifname, unsigned int *rx, unsigned int *tx)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int ret = netdev_path(path, sizeof(path), ifname, "queues");

	if (ret)
		return ret;
	dir = opendir(path);
	if (!dir)
		return -errno;
	*rx = *tx = 0;
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, "rx-", 3))
			(*rx)++;
		else if (!strncmp(de->d_name, "tx-", 3))
			(*tx)++;
	}
	closedir(dir);
	return 0;
}

bool sysfs_netdev_has_device(const char *ifname)
{
	char path[PATH_MAX];

	return !netdev_path(path, sizeof(path), ifname, "device") && !access(path, F_OK);
}

int sysfs_netdev_driver(const char *ifname, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;
	int ret = netdev_path(path, sizeof(path), ifname, "device/driver");

	if (ret)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

int sysfs_cpumask_any(const char *mask)
{
	const char *p;
	bool digits = false, any = false;

	for (p = mask; *p; p++) {
		if (*p == ',')
			continue;
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
		digits = true;
		if (*p != '0')
			any = true;
	}
	return digits ? any : -EINVAL;
}

/* A CPU number of a list: decimal, at most SYSFS_MAX_CPU.  Advances *p. */
static bool cpulist_number(const char **p, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno || *out > SYSFS_MAX_CPU)
		return false;
	*p = end;
	return true;
}

int sysfs_cpulist_count(const char *list)
{
	const char *p = list;
	unsigned long count = 0;

	while (*p) {
		unsigned long a, b;

		if (!cpulist_number(&p, &a))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (!cpulist_number(&p, &b))
				return -EINVAL;
		}
		if (b < a)
			return -EINVAL;
		/* Both are at most SYSFS_MAX_CPU: neither this nor the sum can wrap. */
		count += b - a + 1;
		if (count > SYSFS_MAX_CPU + 1)
			return -EINVAL;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	return (int)count;
}

unsigned int sysfs_online_cpus(void)
{
	char buf[4096];
	int n;

	if (sysfs_read("/sys/devices/system/cpu/online", buf, sizeof(buf)))
		return 0;
	n = sysfs_cpulist_count(buf);
	return n > 0 ? (unsigned int)n : 0;
}
