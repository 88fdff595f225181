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

bool vmm_fdinfo_names_tap(const char *info, const char *ifname)
{
	size_t want = strlen(ifname);
	const char *p;

	for (p = info; (p = strstr(p, "iff:")); p += 4) {
		const char *name = p + 4;

		if (p != info && p[-1] != '\n')
			continue;
		while (*name == '\t' || *name == ' ')
			name++;
		if (strcspn(name, "\n") == want && !strncmp(name, ifname, want))
			return true;
	}
	return false;
}

/* Whether /proc/PID/fdinfo/FD names tap @ifname ("iff:\tNAME"). */
static bool fd_is_tap(const char *pid, const char *fd, const char *ifname)
{
	char path[PATH_MAX], target[64], info[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	if (strcmp(target, "/dev/net/tun"))
		return false;
	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	return !sysfs_read(path, info, sizeof(info)) && vmm_fdinfo_names_tap(info, ifname);
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

/* /proc/PID/cmdline: the arguments, each NUL-terminated, into v->args. */
static void read_cmdline(struct vmm_info *v)
{
	char path[64], *buf, *nbuf;
	size_t cap = 4096, len = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)v->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	buf = malloc(cap);
	while (buf) {
		len += fread(buf + len, 1, cap - len - 1, f);
		if (len < cap - 1)
			break;
		cap *= 2;
		nbuf = realloc(buf, cap);
		if (!nbuf)
			free(buf);
		buf = nbuf;
	}
	fclose(f);
	if (!buf)
		return;
	/* The last argument's NUL, even if the process rewrote its arguments without one. */
	if (len && buf[len - 1] != '\0')
		buf[len++] = '\0';
	v->args = buf;
	v->args_len = len;
	v->cmdline = malloc(len + 1);
	if (!v->cmdline)
		return;
	for (i = 0; i < len; i++)
		v->cmdline[i] = buf[i] ? buf[i] : ' ';
	while (len && v->cmdline[len - 1] == ' ')
		len--;
	v->cmdline[len] = '\0';
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

/* The next argument of a NUL-separated list, or NULL at its end; *len: its length. */
static const char *next_arg(const char *args, size_t args_len, size_t *off, size_t *len)
{
	const char *a, *nul;

	if (*off >= args_len)
		return NULL;
	a = args + *off;
	nul = memchr(a, '\0', args_len - *off);
	*len = nul ? (size_t)(nul - a) : args_len - *off;
	*off += *len + 1;
	return a;
}

/* "-OPT" or "--OPT" (QEMU takes both). */
static bool is_option(const char *a, size_t len, const char *opt)
{
	size_t olen = strlen(opt);

	if (len > 2 && a[0] == '-' && a[1] == '-') {
		a++;
		len--;
	}
	return len == olen + 1 && a[0] == '-' && !memcmp(a + 1, opt, olen);
}

/*
 * The value of @key in a QemuOpts string ("tap,id=n0,ifname=tap5": items
 * split at ',', ",," an escaped comma; a first item without '=' is the
 * value of @implied: -netdev's type, -device's driver).  Copied into @buf
 * unescaped; false if absent or longer than @buf.
 */
static bool opts_get(const char *opts, size_t opts_len, const char *key, const char *implied,
		     char *buf, size_t len)
{
	char item[VMM_OPT_MAX];
	size_t i = 0, n;
	bool first = true;

	while (i <= opts_len) {
		const char *eq, *val;

		/* One item, unescaped. */
		for (n = 0; i < opts_len; i++) {
			if (opts[i] == ',' && !(i + 1 < opts_len && opts[i + 1] == ','))
				break;
			if (opts[i] == ',')
				i++;		/* ",," */
			if (n == sizeof(item) - 1)
				return false;
			item[n++] = opts[i];
		}
		i++;
		item[n] = '\0';
		eq = memchr(item, '=', n);
		if (eq && (size_t)(eq - item) == strlen(key) && !strncmp(item, key, strlen(key)))
			val = eq + 1;
		else if (!eq && first && implied && !strcmp(key, implied))
			val = item;
		else
			val = NULL;
		first = false;
		if (val) {
			if (strlen(val) >= len)
				return false;
			strcpy(buf, val);
			return true;
		}
	}
	return false;
}

bool vmm_tap_device_prop(const char *args, size_t args_len, const char *tap,
			 const char *prop, char *buf, size_t len)
{
	char id[VMM_OPT_MAX] = "", val[VMM_OPT_MAX];
	const char *a, *opts;
	size_t off = 0, alen, olen;

	/* The -netdev of type tap whose ifname is @tap: its id. */
	while (!id[0] && (a = next_arg(args, args_len, &off, &alen))) {
		if (!is_option(a, alen, "netdev") || !(opts = next_arg(args, args_len, &off, &olen)))
			continue;
		if (opts_get(opts, olen, "type", "type", val, sizeof(val)) && !strcmp(val, "tap") &&
		    opts_get(opts, olen, "ifname", NULL, val, sizeof(val)) && !strcmp(val, tap) &&
		    !opts_get(opts, olen, "id", NULL, id, sizeof(id)))
			id[0] = '\0';
	}
	if (!id[0])
		return false;
	/* The -device whose netdev is that id: its @prop. */
	off = 0;
	while ((a = next_arg(args, args_len, &off, &alen))) {
		if (!is_option(a, alen, "device") || !(opts = next_arg(args, args_len, &off, &olen)))
			continue;
		if (opts_get(opts, olen, "netdev", NULL, val, sizeof(val)) && !strcmp(val, id))
			return opts_get(opts, olen, prop, NULL, buf, len);
	}
	return false;
}

bool vmm_proxmox_tap(const char *ifname, unsigned int *vmid, unsigned int *net)
{
	const char *i;
	char num[16];
	uint64_t v, n;

	/* tap<VMID>i<N>, digits only (sscanf's %u would take "+1", " 1" and wrap "-1"). */
	if (strncmp(ifname, "tap", 3) || !(i = strchr(ifname + 3, 'i')) ||
	    (size_t)(i - ifname - 3) >= sizeof(num))
		return false;
	snprintf(num, sizeof(num), "%.*s", (int)(i - ifname - 3), ifname + 3);
	if (!parse_u64(num, 0, UINT32_MAX, &v) || !parse_u64(i + 1, 0, UINT32_MAX, &n))
		return false;
	*vmid = (unsigned int)v;
	*net = (unsigned int)n;
	return true;
}

const char *vmm_cmdline_arg(const struct vmm_info *v, const char *arg, char *buf, size_t len)
{
	const char *a, *val;
	size_t off = 0, alen, vlen;

	while ((a = next_arg(v->args, v->args_len, &off, &alen)))
		if (alen == strlen(arg) && !memcmp(a, arg, alen) &&
		    (val = next_arg(v->args, v->args_len, &off, &vlen))) {
			snprintf(buf, len, "%.*s", (int)vlen, val);
			return buf;
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
	free(v->args);
	v->cmdline = NULL;
	v->args = NULL;
	v->args_len = 0;
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
