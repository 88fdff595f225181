// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"
#include "vmm.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Whether /proc/PID/fdinfo/FD names tap @ifname ("iff:\tNAME"). */
static bool fd_is_tap(const char *pid, const char *fd, const char *ifname)
{
	char path[PATH_MAX], target[64], info[1024];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	if (strcmp(target, "/dev/net/tun"))
		return false;
	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	if (sysfs_read(path, info, sizeof(info)))
		return false;
	for (p = info; (p = strstr(p, "iff:")); p += 4) {
		const char *name = p + 4;
		size_t len;

		if (p != info && p[-1] != '\n')
			continue;
		while (*name == '\t' || *name == ' ')
			name++;
		len = strcspn(name, "\n");
		if (len == strlen(ifname) && !strncmp(name, ifname, len))
			return true;
	}
	return false;
}

static unsigned int count_tap_fds(const char *pid, const char *ifname)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		if (all_digits(de->d_name) && fd_is_tap(pid, de->d_name, ifname))
			n++;
	closedir(dir);
	return n;
}

/* Threads named like QEMU's vCPU threads: "CPU <n>/<accel>". */
static unsigned int count_vcpu_threads(pid_t pid)
{
	char path[PATH_MAX], comm[64];
	struct dirent *de;
	unsigned int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		const char *p;

		if (!all_digits(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, de->d_name);
		if (sysfs_read(path, comm, sizeof(comm)) || strncmp(comm, "CPU ", 4))
			continue;
		p = comm + 4;
		if (!isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '/')
			n++;
	}
	closedir(dir);
	return n;
}

static char *read_cmdline(pid_t pid)
{
	char path[64], *buf;
	size_t cap = 4096, len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (len < cap - 1)
			break;
		cap *= 2;
		char *nbuf = realloc(buf, cap);

		if (!nbuf) {
			free(buf);
			buf = NULL;
		}
		buf = nbuf;
	}
	fclose(f);
	if (!buf)
		return NULL;
	while (len && buf[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[len] = '\0';
	return buf;
}

unsigned int vmm_parse_smp(const char *smp)
{
	const char *p = smp;

	while (p && *p) {
		if (isdigit((unsigned char)*p) && (p == smp))
			return (unsigned int)strtoul(p, NULL, 10);
		if (!strncmp(p, "cpus=", 5) && isdigit((unsigned char)p[5]))
			return (unsigned int)strtoul(p + 5, NULL, 10);
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

const char *vmm_cmdline_arg(const struct vmm_info *v, const char *arg, char *buf, size_t len)
{
	const char *p = v->cmdline;
	size_t alen = strlen(arg);

	while (p && (p = strstr(p, arg))) {
		if ((p == v->cmdline || p[-1] == ' ') && p[alen] == ' ') {
			const char *val = p + alen + 1;
			size_t vlen = strcspn(val, " ");

			snprintf(buf, len, "%.*s", (int)vlen, val);
			return buf;
		}
		p += alen;
	}
	return NULL;
}

/*
 * Whether process @pid is in the network namespace @self.  Tap names are
 * per namespace (every test namespace may have a tap0), and fdinfo gives
 * only the name: a tun fd attaches to a tap of the namespace its opener
 * was in (tun_set_iff()), which is where a VMM runs.
 */
static bool same_netns(const char *pid, const struct stat *self)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/net", pid);
	return !stat(path, &st) && st.st_ino == self->st_ino && st.st_dev == self->st_dev;
}

int vmm_find_by_tap(const char *ifname, struct vmm_info *out)
{
	struct stat self;
	struct dirent *de;
	DIR *proc;
	char smp[128];

	memset(out, 0, sizeof(*out));
	if (stat("/proc/self/ns/net", &self))
		return -errno;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((de = readdir(proc))) {
		unsigned int n;

		if (!all_digits(de->d_name) || !same_netns(de->d_name, &self))
			continue;
		n = count_tap_fds(de->d_name, ifname);
		if (!n)
			continue;
		out->pid = (pid_t)atoi(de->d_name);
		out->tap_fds = n;
		break;
	}
	closedir(proc);
	if (!out->pid)
		return 0;

	{
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)out->pid);
		if (sysfs_read(path, out->comm, sizeof(out->comm)))
			out->comm[0] = '\0';
	}
	out->cmdline = read_cmdline(out->pid);
	out->vcpus = count_vcpu_threads(out->pid);
	if (out->vcpus) {
		out->vcpu_source = VMM_VCPUS_THREADS;
	} else if (vmm_cmdline_arg(out, "-smp", smp, sizeof(smp))) {
		out->vcpus = vmm_parse_smp(smp);
		if (out->vcpus)
			out->vcpu_source = VMM_VCPUS_SMP;
	}
	return 0;
}

void vmm_info_free(struct vmm_info *v)
{
	free(v->cmdline);
	v->cmdline = NULL;
}

const char *vmm_vcpu_source_name(enum vmm_vcpu_source s)
{
	switch (s) {
	case VMM_VCPUS_THREADS:
		return "threads";
	case VMM_VCPUS_SMP:
		return "smp";
	case VMM_VCPUS_UNKNOWN:
		break;
	}
	return "unknown";
}
