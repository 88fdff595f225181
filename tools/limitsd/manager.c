// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which VM a tap belongs to, in the management layer's own records, never
 * in what the tap's holder says about itself: any process that holds a
 * tap (an unprivileged one given its descriptor, say) writes its own
 * command line, and the daemon runs as root.
 *
 *   libvirt   RUN_DIR/DOMAIN.xml (/run/libvirt/qemu), the status file
 *             libvirtd keeps for each running domain: <domstatus pid=...>
 *             is its QEMU, each <interface> its <target dev=.../> (a tap,
 *             or a macvtap for type='direct') and <alias name=.../> (the
 *             device's id; its netdev is "host" + alias).  Hot-plugged
 *             interfaces are there too.
 *   Proxmox   RUN_DIR/VMID.pid (/var/run/qemu-server), written by QEMU for
 *             qemu-server (-pidfile); taps are named tap<VMID>i<N> and
 *             their device has id net<N> (qemu-server's naming).
 *
 * A record that names the tap but another pid is not this VM's QEMU (an
 * impostor, or libvirt still between opening the tap and exec'ing QEMU):
 * not acted on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limitsd.h"

#define STATUS_MAX	(4 << 20)

/* The whole of a small file, NUL-terminated; NULL if it cannot be read. */
static char *read_small(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 8192;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		ssize_t n;

		if (len + 1 == cap) {
			char *nb = cap < max ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The value of attribute @name in the tag starting at @tag (up to its '>'), into @out. */
static bool xml_attr(const char *tag, const char *name, char *out, size_t len)
{
	const char *end = strchr(tag, '>'), *p = tag;
	size_t nlen = strlen(name);

	if (!end)
		return false;
	while ((p = strstr(p, name)) && p < end) {
		if (p[-1] == ' ' && p[nlen] == '=' && (p[nlen + 1] == '\'' || p[nlen + 1] == '"')) {
			char q = p[nlen + 1];
			const char *v = p + nlen + 2, *ve = strchr(v, q);
			size_t n;

			if (!ve || ve > end)
				return false;
			n = (size_t)(ve - v);
			if (n >= len)
				return false;
			memcpy(out, v, n);
			out[n] = '\0';
			return true;
		}
		p += nlen;
	}
	return false;
}

/*
 * In libvirt status text @xml: the <interface> whose target is @ifname.
 * Fills @alias; false if none.
 */
static bool libvirt_iface(const char *xml, const char *ifname, char *alias, size_t len)
{
	const char *p = xml;

	while ((p = strstr(p, "<interface "))) {
		const char *end = strstr(p, "</interface>"), *q;
		char dev[IF_NAMESIZE + 1];

		if (!end)
			return false;
		for (q = p; (q = strstr(q, "<target ")) && q < end; q++) {
			if (!xml_attr(q, "dev", dev, sizeof(dev)) || strcmp(dev, ifname))
				continue;
			q = strstr(p, "<alias ");
			return q && q < end && xml_attr(q, "name", alias, len);
		}
		p = end;
	}
	return false;
}

int manager_libvirt(const char *dir, const char *ifname, pid_t pid, struct endpoint *ep,
		    char *note, size_t nlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (found <= 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096], alias[QEMU_OPT_MAX - 8], spid[32], name[QEMU_OPT_MAX];
		const char *st, *dom, *ne;
		char *xml;

		if (n < 5 || strcmp(de->d_name + n - 4, ".xml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		xml = read_small(path, STATUS_MAX);
		if (!xml)
			continue;
		st = strstr(xml, "<domstatus ");
		dom = st ? strstr(st, "<domain ") : NULL;
		ne = dom ? strstr(dom, "<name>") : NULL;
		if (!ne || !xml_attr(st, "pid", spid, sizeof(spid)) ||
		    !libvirt_iface(dom, ifname, alias, sizeof(alias)) ||
		    sscanf(ne, "<name>%255[^<]</name>", name) != 1) {
			free(xml);
			continue;
		}
		if (strtol(spid, NULL, 10) != (long)pid) {
			snprintf(note, nlen, "libvirt domain %s has the tap but its QEMU is pid %s, "
				 "not the holder %d", name, spid, (int)pid);
			found = -1;
		} else {
			ep->kind = EP_LIBVIRT;
			snprintf(ep->domain, sizeof(ep->domain), "%s", name);
			snprintf(ep->device_id, sizeof(ep->device_id), "%s", alias);
			snprintf(ep->netdev, sizeof(ep->netdev), "host%s", alias);
			snprintf(ep->qom, sizeof(ep->qom), "/machine/peripheral/%s", alias);
			found = 1;
		}
		free(xml);
	}
	closedir(d);
	return found;
}

int manager_proxmox_pid(const char *dir, unsigned int vmid, pid_t pid, char *note, size_t nlen)
{
	char path[4096], *text;
	long p;

	snprintf(path, sizeof(path), "%s/%u.pid", dir, vmid);
	text = read_small(path, 64);
	if (!text) {
		snprintf(note, nlen, "no %s: VM %u is not running under qemu-server", path, vmid);
		return 0;
	}
	p = strtol(text, NULL, 10);
	free(text);
	if (p != (long)pid) {
		snprintf(note, nlen, "%s names pid %ld, not the holder %d", path, p, (int)pid);
		return -1;
	}
	return 1;
}
