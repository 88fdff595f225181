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

#include "parse.h"
#include "qemu_cmdline.h"
#include "sysfs.h"
#include "tap_holders.h"
#include "vmm.h"

/* Whether /proc/PID/fdinfo/FD names tap @ifname ("iff:\tNAME"). */
static bool fd_is_tap(const char *pid, const char *fd, const char *ifname)
{
	char path[PATH_MAX], target[64], info[4096], name[IF_NAMESIZE];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	if (strcmp(target, "/dev/net/tun"))
		return false;
	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	return !sysfs_read(path, info, sizeof(info)) && tap_fdinfo_iff(info, name, sizeof(name)) &&
	       !strcmp(name, ifname);
}

/* How many of @pid's descriptors are tap @ifname; the first numbers in @v. */
static unsigned int count_tap_fds(const char *pid, const char *ifname, struct vmm_info *v)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned int n = 0;
	DIR *dir;

	v->ntap_fd = 0;
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		if (parse_all_digits(de->d_name) && fd_is_tap(pid, de->d_name, ifname)) {
			n++;
			if (v->ntap_fd < VMM_MAX_TAP_FDS && strlen(de->d_name) < 10)
				v->tap_fd[v->ntap_fd++] = (int)strtol(de->d_name, NULL, 10);
		}
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

		if (!parse_all_digits(de->d_name))
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

/* /proc/PID/cmdline into v->args, and joined by spaces into v->cmdline. */
static void read_cmdline(struct vmm_info *v)
{
	size_t i, len = 0;

	if (qemu_args_read(v->pid, &v->args))
		return;
	for (i = 0; i < v->args.argc; i++)
		len += strlen(v->args.argv[i]) + 1;
	v->cmdline = malloc(len + 1);
	if (!v->cmdline)
		return;
	v->cmdline[0] = '\0';
	for (i = 0, len = 0; i < v->args.argc; i++)
		len += (size_t)sprintf(v->cmdline + len, "%s%s", i ? " " : "", v->args.argv[i]);
}

/* A decimal count, 1..VMM_MAX_VCPUS, filling the item [p, end) exactly; else 0. */
static unsigned int vcpu_count(const char *p, const char *end)
{
	unsigned long n = 0;

	if (p == end)
		return 0;
	for (; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > VMM_MAX_VCPUS)
			return 0;
	}
	return (unsigned int)n;
}

unsigned int vmm_parse_smp(const char *smp)
{
	const char *p = smp;

	while (*p) {
		const char *end = p + strcspn(p, ",");

		/* "-smp 4,..." (the implied cpus=) or "cpus=4" anywhere in the list. */
		if (p == smp && isdigit((unsigned char)*p))
			return vcpu_count(p, end);
		if (!strncmp(p, "cpus=", 5) && p + 5 <= end)
			return vcpu_count(p + 5, end);
		p = *end ? end + 1 : end;
	}
	return 0;
}

const char *vmm_cmdline_arg(const struct vmm_info *v, const char *arg, char *buf, size_t len)
{
	const char *val;
	size_t pos = 0;

	/* "-smp" and "--smp" are the same option to QEMU. */
	while (*arg == '-')
		arg++;
	val = qemu_args_next(&v->args, arg, &pos);
	if (!val)
		return NULL;
	snprintf(buf, len, "%s", val);
	return buf;
}

bool vmm_tap_device_prop(const struct qemu_args *args, const char *tap, const int *fds,
			 size_t nfds, const char *prop, char *buf, size_t len)
{
	char id[QEMU_OPT_MAX], netdev[QEMU_OPT_MAX];
	const char *dev;
	size_t pos = 0;

	if (!qemu_cmdline_tap_netdev(args, tap, fds, nfds, false, id, sizeof(id)))
		return false;
	while ((dev = qemu_args_next(args, "device", &pos)))
		if (qemu_opt_get(dev, "driver", "netdev", netdev, sizeof(netdev)) &&
		    !strcmp(netdev, id))
			return qemu_opt_get(dev, "driver", prop, buf, len);
	return false;
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

		if (!parse_all_digits(de->d_name) || !same_netns(de->d_name, &self))
			continue;
		n = count_tap_fds(de->d_name, ifname, out);
		if (!n)
			continue;
		out->pid = (pid_t)strtol(de->d_name, NULL, 10);	/* parse_all_digits() checked it */
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
	read_cmdline(out);
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
	qemu_args_free(&v->args);
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
