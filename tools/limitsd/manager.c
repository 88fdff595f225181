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
 * not acted on.  The files are other programs' output: their text is read
 * by lib/libvirt_status.c and parse_pid_text() (lib/parse.c), pure and
 * fuzzed; here only the files and what the daemon concludes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/libvirt_status.h"
#include "lib/parse.h"
#include "limitsd.h"

#define STATUS_MAX	(4 << 20)

/*
 * The whole of a small file, NUL-terminated, its length in *@size if
 * given; NULL if it cannot be read or outgrows @max.
 */
static char *read_small(const char *path, size_t max, size_t *size)
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
	if (size)
		*size = len;
	return buf;
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
		struct libvirt_status st;
		char path[4096];
		bool named;
		char *xml;

		if (n < 5 || strcmp(de->d_name + n - 4, ".xml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		xml = read_small(path, STATUS_MAX, &n);
		if (!xml)
			continue;
		named = libvirt_status_find(xml, n, ifname, &st);
		free(xml);
		if (!named)
			continue;
		if (st.pid != pid) {
			snprintf(note, nlen, "libvirt domain %s has the tap but its QEMU is pid %d, "
				 "not the holder %d", st.name, (int)st.pid, (int)pid);
			found = -1;
		} else {
			ep->kind = EP_LIBVIRT;
			snprintf(ep->domain, sizeof(ep->domain), "%s", st.name);
			snprintf(ep->uuid, sizeof(ep->uuid), "%s", st.uuid);
			snprintf(ep->device_id, sizeof(ep->device_id), "%s", st.alias);
			snprintf(ep->netdev, sizeof(ep->netdev), "host%s", st.alias);
			snprintf(ep->qom, sizeof(ep->qom), "/machine/peripheral/%s", st.alias);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

int manager_proxmox_pid(const char *dir, unsigned int vmid, pid_t pid, char *note, size_t nlen)
{
	char path[4096], *text;
	pid_t p;
	bool ok;

	snprintf(path, sizeof(path), "%s/%u.pid", dir, vmid);
	text = read_small(path, 64, NULL);
	if (!text) {
		snprintf(note, nlen, "no %s: VM %u is not running under qemu-server", path, vmid);
		return 0;
	}
	ok = parse_pid_text(text, &p);
	free(text);
	if (!ok) {
		snprintf(note, nlen, "%s holds no pid", path);
		return -1;
	}
	if (p != pid) {
		snprintf(note, nlen, "%s names pid %d, not the holder %d", path, (int)p, (int)pid);
		return -1;
	}
	return 1;
}
