// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether a tap's virtio-net device offers VIRTIO_NET_F_GSO_LIMITS when
 * its command line names no limit (qemu-patches v3, docs/qemu.md): the
 * feature property host_gso_limits is on by default for machine types
 * 11.0 and newer and off in hw_compat_10_2 (10.2 and older), so a device
 * with no arguments on pc-q35-11.0 offers the feature with no limit
 * (management sets one at run time: gso-limitsd), and the same device on
 * pc-q35-10.2 does not offer it at all.
 *
 * Read from what the doctor can see without talking to QEMU:
 *   - whether the QEMU binary carries the series: its executable
 *     (/proc/PID/exe) contains the property name "host_gso_limits" (a
 *     string every build with the series has, and no QEMU without it);
 *   - host_gso_limits= on the tap's -device, a -global for its type
 *     (either spelling) or for its virtio-net-device backend, a -set
 *     device.ID.host_gso_limits=, in QEMU's order (doctor_offer_prop());
 *   - the machine type (-machine/-M, its type= or leading value): a
 *     versioned one ("pc-q35-10.2", "virt-11.0") by its version, an
 *     unversioned alias ("pc", "q35", "virt") or none at all is the
 *     binary's newest.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "lib/vmm.h"

#define SERIES_MARK	"host_gso_limits"

/* 1: @pid's executable has the series' property, 0: not, -1: cannot tell. */
static int exe_has_series(pid_t pid)
{
	char path[64];
	struct stat st;
	void *map;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			ret = memmem(map, (size_t)st.st_size, SERIES_MARK, strlen(SERIES_MARK)) != NULL;
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return ret;
}

/* QEMU's boolean parser (qapi_bool_parse()): 1, 0, or -1 for anything else. */
static int bool_value(const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "y"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "n"))
		return 0;
	return -1;
}

/*
 * Key @key of option value @optstr, its last occurrence: QEMU keeps every
 * "key=value" of a QemuOpts list and takes the last (qemu_opt_get() reads
 * backwards, qemu_opts_to_qdict() overwrites).  qemu_opt_get() gives the
 * first, so it is asked item by item.  JSON rejects a repeated key.
 */
static bool opt_last(const char *optstr, const char *implied, const char *key,
		     char *buf, size_t len)
{
	char item[QEMU_OPT_MAX + 64];
	const char *p = optstr, *end;
	bool found = false;

	if (optstr[0] == '{')
		return qemu_opt_get(optstr, implied, key, buf, len);
	for (;;) {
		/* An item ends at a comma that is not doubled (",," is a comma). */
		for (end = p; *end; end++) {
			if (*end != ',')
				continue;
			if (end[1] != ',')
				break;
			end++;
		}
		if ((size_t)(end - p) < sizeof(item)) {
			memcpy(item, p, (size_t)(end - p));
			item[end - p] = '\0';
			if (qemu_opt_get(item, p == optstr ? implied : NULL, key, buf, len))
				found = true;
		}
		if (!*end)
			return found;
		p = end + 1;
	}
}

/*
 * One -global as qemu_global_option() reads it: DRIVER.PROPERTY=VALUE
 * (when a '.' comes before the first '=', DRIVER and PROPERTY 1 to 63
 * characters; VALUE is the rest, commas included) or else the QemuOpts
 * list driver=D,property=P,value=V.
 */
static bool global_parse(const char *g, char *driver, char *prop, char *value, size_t len)
{
	size_t d = strcspn(g, ".="), e;

	if (g[d] == '.' && d >= 1 && d <= 63) {
		e = strcspn(g + d + 1, "=");
		if (g[d + 1 + e] == '=' && e >= 1 && e <= 63) {
			snprintf(driver, len, "%.*s", (int)d, g);
			snprintf(prop, len, "%.*s", (int)e, g + d + 1);
			snprintf(value, len, "%s", g + d + 1 + e + 1);
			return true;
		}
	}
	return opt_last(g, NULL, "driver", driver, len) &&
	       opt_last(g, NULL, "property", prop, len) && opt_last(g, NULL, "value", value, len);
}

/* -set device.ID.PROPERTY=VALUE (qemu_set_option()): ID's PROPERTY, or false. */
static bool set_parse(const char *s, const char *id, const char *prop, char *value, size_t len)
{
	size_t g = strcspn(s, "."), i, p;

	if (g != strlen("device") || strncmp(s, "device.", g + 1))
		return false;
	s += g + 1;
	i = strcspn(s, ".");
	if (!i || i > 63 || s[i] != '.' || strlen(id) != i || strncmp(s, id, i))
		return false;
	s += i + 1;
	p = strcspn(s, "=");
	if (!p || p > 63 || s[p] != '=' || strlen(prop) != p || strncmp(s, prop, p))
		return false;
	snprintf(value, len, "%s", s + p + 1);
	return true;
}

/* The virtio-net PCI types; their common parent is virtio-net-pci-base. */
static bool is_net_pci(const char *type)
{
	return !strcmp(type, "virtio-net-pci") || !strcmp(type, "virtio-net-pci-transitional") ||
	       !strcmp(type, "virtio-net-pci-non-transitional");
}

/*
 * Whether a -global for @gdriver reaches the virtio-net device of type
 * @type ("" if unknown: any virtio-net type) in @phase: 0, the backend
 * virtio-net-device (every proxy has one, and its own globals are applied
 * when it is created, inside the proxy's instance_init); 1, the proxy,
 * by its type or an ancestor of it (object_dynamic_cast()).
 */
static bool global_reaches(const char *gdriver, const char *type, int phase)
{
	if (!phase)
		return !strcmp(gdriver, "virtio-net-device");
	if (!strcmp(type, "virtio-net-device"))
		return false;
	if (!*type)
		return is_net_pci(gdriver) || !strcmp(gdriver, "virtio-net-pci-base");
	return !strcmp(gdriver, type) || (is_net_pci(type) && !strcmp(gdriver, "virtio-net-pci-base"));
}

int doctor_offer_prop(const struct qemu_args *a, const char *tap, const int *fds, size_t nfds)
{
	char netdev[QEMU_OPT_MAX], v[QEMU_OPT_MAX], type[64] = "", id[64] = "";
	char gdriver[QEMU_OPT_MAX], gprop[QEMU_OPT_MAX];
	const char *dev = NULL, *d;
	size_t pos = 0;
	int phase, b, prop = -1;

	if (qemu_cmdline_tap_netdev(a, tap, fds, nfds, false, netdev, sizeof(netdev)))
		while (!dev && (d = qemu_args_next(a, "device", &pos)))
			if (opt_last(d, "driver", "netdev", v, sizeof(v)) && !strcmp(v, netdev))
				dev = d;
	if (dev) {
		opt_last(dev, "driver", "driver", type, sizeof(type));
		opt_last(dev, "driver", "id", id, sizeof(id));
		/* -device's alias on PCI machines (qdev_alias_table); -global takes no alias. */
		if (!strcmp(type, "virtio-net"))
			snprintf(type, sizeof(type), "virtio-net-pci");
	}
	/*
	 * The order in which QEMU sets the property, the last one wins: the
	 * machine type's compat value (doctor_offer()), the -globals of the
	 * backend, those of the proxy (each in command-line order), the
	 * -device's own value, then -set device.ID.
	 */
	for (phase = 0; phase < 2; phase++) {
		pos = 0;
		while ((d = qemu_args_next(a, "global", &pos)))
			if (global_parse(d, gdriver, gprop, v, sizeof(v)) &&
			    !strcmp(gprop, SERIES_MARK) && global_reaches(gdriver, type, phase) &&
			    (b = bool_value(v)) >= 0)
				prop = b;
	}
	if (dev && opt_last(dev, "driver", SERIES_MARK, v, sizeof(v)) && (b = bool_value(v)) >= 0)
		prop = b;
	pos = 0;
	while (dev && *id && (d = qemu_args_next(a, "set", &pos)))
		if (set_parse(d, id, SERIES_MARK, v, sizeof(v)) && (b = bool_value(v)) >= 0)
			prop = b;
	return prop;
}

int doctor_machine_version(const char *type, unsigned int *major, unsigned int *minor)
{
	const char *dash = strrchr(type, '-');
	char *end;
	unsigned long ma, mi;

	if (!dash || dash[1] < '0' || dash[1] > '9')
		return 0;
	ma = strtoul(dash + 1, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return 0;
	mi = strtoul(end + 1, &end, 10);
	/*
	 * A distribution's own revision of a machine type: Proxmox VE names
	 * its compat fixes pc-q35-10.2+pve1.  The revision does not move the
	 * type past the release it is based on.
	 */
	if (*end == '+') {
		const char *r = end + 1;

		if (!*r)
			return 0;
		for (; *r; r++)
			if (!((*r >= 'a' && *r <= 'z') || (*r >= '0' && *r <= '9')))
				return 0;
		end = (char *)r;
	}
	if (*end || ma > 1000 || mi > 1000)
		return 0;
	*major = (unsigned int)ma;
	*minor = (unsigned int)mi;
	return 1;
}

void doctor_offer(const struct vmm_info *v, const char *tap, struct doctor_offer *o)
{
	const char *m;
	char type[sizeof(o->machine)];
	size_t pos = 0;
	unsigned int major, minor;

	memset(o, 0, sizeof(o[0]));
	o->series = exe_has_series(v->pid);
	o->prop = doctor_offer_prop(&v->args, tap, v->tap_fd, v->ntap_fd);
	while ((m = qemu_args_next(&v->args, "machine", &pos)))
		if (qemu_opt_get(m, "type", "type", type, sizeof(type)))
			memcpy(o->machine, type, sizeof(type));
	pos = 0;
	while ((m = qemu_args_next(&v->args, "M", &pos)))
		if (qemu_opt_get(m, "type", "type", type, sizeof(type)))
			memcpy(o->machine, type, sizeof(type));
	if (o->series != 1)
		o->state = o->series ? DOCTOR_OFFER_UNKNOWN : DOCTOR_OFFER_NO_SERIES;
	else if (o->prop == 0)
		o->state = DOCTOR_OFFER_PROP_OFF;
	else if (o->prop == 1 || !o->machine[0] ||
		 !doctor_machine_version(o->machine, &major, &minor))
		o->state = DOCTOR_OFFER_ON;	/* on, or the newest machine type or an alias of it */
	else
		o->state = major > 10 || (major == 10 && minor > 2) ? DOCTOR_OFFER_ON :
			   DOCTOR_OFFER_MACHINE_OFF;
}
