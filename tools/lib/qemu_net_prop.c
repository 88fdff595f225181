// SPDX-License-Identifier: GPL-2.0-only
/*
 * A boolean property of a tap's virtio-net device as QEMU sets it from
 * its command line (lib/qemu_net_prop.h).  Pure: the arguments come in a
 * struct qemu_args, another process's /proc/PID/cmdline (untrusted), so
 * the unit test (test/test-doctor-machine.c) and the fuzzer
 * (fuzz/fuzz-qemu-net-prop.c) run the code gso-doctor runs.
 */
#include <stdio.h>
#include <string.h>

#include "qemu_net_prop.h"

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

int qemu_net_bool_prop(const struct qemu_args *a, const char *tap, const int *fds, size_t nfds,
		       const char *prop_name)
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
	 * machine type's compat value (the caller's), the -globals of the
	 * backend, those of the proxy (each in command-line order), the
	 * -device's own value, then -set device.ID.
	 */
	for (phase = 0; phase < 2; phase++) {
		pos = 0;
		while ((d = qemu_args_next(a, "global", &pos)))
			if (global_parse(d, gdriver, gprop, v, sizeof(v)) &&
			    !strcmp(gprop, prop_name) && global_reaches(gdriver, type, phase) &&
			    (b = bool_value(v)) >= 0)
				prop = b;
	}
	if (dev && opt_last(dev, "driver", prop_name, v, sizeof(v)) && (b = bool_value(v)) >= 0)
		prop = b;
	pos = 0;
	while (dev && *id && (d = qemu_args_next(a, "set", &pos)))
		if (set_parse(d, id, prop_name, v, sizeof(v)) && (b = bool_value(v)) >= 0)
			prop = b;
	return prop;
}
