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

#include "sysfs.h"

int sysfs_read(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used < len - 1) {
		n = read(fd, buf + used, len - 1 - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	while (used && (buf[used - 1] == '\n' || buf[used - 1] == ' '))
		buf[--used] = '\0';
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int ret = sysfs_read(path, buf, sizeof(buf));

	if (ret)
		return ret;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
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

int sysfs_cpulist_count(const char *list)
{
	const char *p = list;
	long count = 0;

	while (*p) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (b < a)
			return -EINVAL;
		count += b - a + 1;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return count > INT_MAX ? -EINVAL : (int)count;
}

unsigned int sysfs_online_cpus(void)
{
	char buf[256];
	int n;

	if (sysfs_read("/sys/devices/system/cpu/online", buf, sizeof(buf)))
		return 0;
	n = sysfs_cpulist_count(buf);
	return n > 0 ? (unsigned int)n : 0;
}
