// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parse.h"
#include "tap_holders.h"

#ifndef TUNGETDEVNETNS
#define TUNGETDEVNETNS	_IO('T', 227)
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

bool tap_fdinfo_iff(const char *info, char *name, size_t len)
{
	const char *p;

	for (p = info; (p = strstr(p, "iff:")); p += 4) {
		const char *v = p + 4;
		size_t n;

		if (p != info && p[-1] != '\n')
			continue;
		while (*v == '\t' || *v == ' ')
			v++;
		n = strcspn(v, "\n");
		if (!n || n >= len || n >= IF_NAMESIZE)
			return false;
		memcpy(name, v, n);
		name[n] = '\0';
		return true;
	}
	return false;
}

unsigned long long tap_holder_starttime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm (field 2) may hold spaces and ')': fields restart after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

static bool read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Per process: how to tell which namespace its tun descriptors' taps are in. */
struct proc_ns {
	int pidfd;		/* -1: pidfd_getfd not usable, use the process's namespace */
	bool proc_in_ns;	/* the process's own namespace is the one scanned */
};

/* Whether the tap behind descriptor @fd of the process is in (@dev, @ino). */
static bool tap_fd_in_ns(struct proc_ns *pn, int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	int copy, nsfd;
	bool in;

	if (pn->pidfd < 0)
		return pn->proc_in_ns;
	copy = (int)syscall(SYS_pidfd_getfd, pn->pidfd, fd, 0);
	if (copy < 0)
		goto fallback;
	nsfd = ioctl(copy, TUNGETDEVNETNS);
	close(copy);
	if (nsfd < 0)
		goto fallback;
	in = !fstat(nsfd, &st) && st.st_dev == dev && st.st_ino == ino;
	close(nsfd);
	return in;
fallback:
	/* Not allowed (no CAP_SYS_PTRACE, a kernel before 5.6): the holder's namespace. */
	close(pn->pidfd);
	pn->pidfd = -1;
	return pn->proc_in_ns;
}

static struct tap_holder *holder_entry(struct tap_holders *t, size_t *cap, pid_t pid,
				       const char *ifname)
{
	size_t i;

	for (i = t->count; i-- > 0;) {
		if (t->h[i].pid != pid)
			break;
		if (!strcmp(t->h[i].ifname, ifname))
			return &t->h[i];
	}
	if (t->count == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct tap_holder *nh = realloc(t->h, ncap * sizeof(*nh));

		if (!nh)
			return NULL;
		t->h = nh;
		*cap = ncap;
	}
	memset(&t->h[t->count], 0, sizeof(t->h[0]));
	snprintf(t->h[t->count].ifname, sizeof(t->h[0].ifname), "%s", ifname);
	t->h[t->count].pid = pid;
	t->h[t->count].starttime = tap_holder_starttime(pid);
	return &t->h[t->count++];
}

static int scan_process(const char *pid_s, dev_t dev, ino_t ino, struct tap_holders *t,
			size_t *cap)
{
	char path[PATH_MAX], target[32], info[512], ifname[IF_NAMESIZE];
	struct proc_ns pn = { .pidfd = -1 };
	pid_t pid = (pid_t)strtol(pid_s, NULL, 10);	/* all digits: the caller checked */
	struct dirent *de;
	struct stat st;
	bool opened = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid_s);
	dir = opendir(path);
	if (!dir)
		return 0;	/* gone, or not ours to see */
	while ((de = readdir(dir))) {
		struct tap_holder *h;
		bool macvtap;
		ssize_t n;
		int fd;

		if (!parse_all_digits(de->d_name))
			continue;
		t->fds_examined++;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid_s, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		macvtap = !strncmp(target, "/dev/tap", 8) && parse_all_digits(target + 8);
		if (macvtap) {
			tap_holder_macvtap_key((int)strtol(target + 8, NULL, 10), ifname,
					       sizeof(ifname));
		} else {
			if (strcmp(target, "/dev/net/tun"))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid_s, de->d_name);
			if (!read_small(path, info, sizeof(info)) ||
			    !tap_fdinfo_iff(info, ifname, sizeof(ifname)))
				continue;	/* a tun fd not attached to a device */
		}
		if (!opened) {
			opened = true;
			snprintf(path, sizeof(path), "/proc/%s/ns/net", pid_s);
			pn.proc_in_ns = !stat(path, &st) && st.st_dev == dev && st.st_ino == ino;
			pn.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		}
		fd = (int)strtol(de->d_name, NULL, 10);	/* parse_all_digits() above */
		if (macvtap ? !pn.proc_in_ns : !tap_fd_in_ns(&pn, fd, dev, ino))
			continue;
		h = holder_entry(t, cap, pid, ifname);
		if (!h) {
			closedir(dir);
			if (pn.pidfd >= 0)
				close(pn.pidfd);
			return -ENOMEM;
		}
		if (h->nfds < TAP_HOLDER_MAX_FDS)
			h->fds[h->nfds++] = fd;
	}
	closedir(dir);
	if (pn.pidfd >= 0)
		close(pn.pidfd);
	return 0;
}

int tap_holders_scan(dev_t ns_dev, ino_t ns_ino, struct tap_holders *out)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *proc;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!ret && (de = readdir(proc)))
		/* Not ourselves: our pidfd_getfd() copies would count as holders. */
		if (parse_all_digits(de->d_name) && strtol(de->d_name, NULL, 10) != getpid())
			ret = scan_process(de->d_name, ns_dev, ns_ino, out, &cap);
	closedir(proc);
	if (ret)
		tap_holders_free(out);
	return ret;
}

void tap_holder_macvtap_key(int ifindex, char *key, size_t len)
{
	snprintf(key, len, "/dev/tap%d", ifindex);
}

void tap_holders_free(struct tap_holders *t)
{
	free(t->h);
	memset(t, 0, sizeof(*t));
}

const struct tap_holder *tap_holders_find(const struct tap_holders *t, const char *ifname,
					  pid_t prefer)
{
	const struct tap_holder *first = NULL;
	size_t i;

	for (i = 0; i < t->count; i++) {
		if (strcmp(t->h[i].ifname, ifname))
			continue;
		if (!prefer || t->h[i].pid == prefer)
			return &t->h[i];
		if (!first)
			first = &t->h[i];
	}
	return first;
}
