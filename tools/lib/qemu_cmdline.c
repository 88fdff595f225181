// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_value.h"
#include "parse.h"
#include "qemu_cmdline.h"

/* /proc/PID/cmdline is at most a few MiB (ARG_MAX); refuse anything larger. */
#define QEMU_ARGS_MAX	(16u << 20)

int qemu_args_parse(const char *buf, size_t len, struct qemu_args *out)
{
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	out->buf = malloc(len + 1);
	if (!out->buf)
		return -ENOMEM;
	memcpy(out->buf, buf, len);
	out->buf[len] = '\0';
	for (i = 0; i < len; i++)
		if (!out->buf[i])
			n++;
	if (len && out->buf[len - 1])
		n++;	/* last argument without its NUL */
	out->argv = calloc(n + 1, sizeof(*out->argv));
	if (!out->argv) {
		qemu_args_free(out);
		return -ENOMEM;
	}
	for (i = 0; i < len; i += strlen(out->buf + i) + 1)
		out->argv[out->argc++] = out->buf + i;
	return 0;
}

int qemu_args_read(pid_t pid, struct qemu_args *out)
{
	char path[64], *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nbuf;

			cap = cap ? 2 * cap : 4096;
			if (cap > QEMU_ARGS_MAX) {
				free(buf);
				fclose(f);
				return -E2BIG;
			}
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (!n)
			break;
	}
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!ret)
		ret = qemu_args_parse(buf ? buf : "", len, out);
	free(buf);
	return ret;
}

void qemu_args_free(struct qemu_args *a)
{
	free(a->argv);
	free(a->buf);
	memset(a, 0, sizeof(*a));
}

const char *qemu_args_next(const struct qemu_args *a, const char *opt, size_t *pos)
{
	size_t i;

	for (i = *pos; i + 1 < a->argc; i++) {
		const char *arg = a->argv[i];

		if (arg[0] != '-')
			continue;
		arg += arg[1] == '-' ? 2 : 1;
		if (!strcmp(arg, opt)) {
			*pos = i + 2;
			return a->argv[i + 1];
		}
	}
	*pos = a->argc;
	return NULL;
}

static bool copy_value(const char *s, size_t n, char *buf, size_t len)
{
	if (n >= len)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

static bool json_opt_get(const char *optstr, const char *key, char *buf, size_t len)
{
	struct jv *root = jv_parse(optstr, strlen(optstr));
	const struct jv *v = jv_get(root, key);
	bool ok = false;

	if (v && v->type == JV_STRING)
		ok = copy_value(v->string, strlen(v->string), buf, len);
	else if (v && v->type == JV_NUMBER && v->is_integer)
		ok = snprintf(buf, len, "%" PRId64, v->integer) < (int)len;
	else if (v && v->type == JV_BOOL)
		ok = copy_value(v->boolean ? "on" : "off", v->boolean ? 2 : 3, buf, len);
	jv_free(root);
	return ok;
}

/*
 * One item of a QemuOpts list at *p, unescaped (",," -> ",") into @item;
 * *p moves past it and its comma.  False at the end or when too long.
 */
static bool next_item(const char **p, char *item, size_t len, bool *too_long)
{
	const char *s = *p;
	size_t n = 0;

	*too_long = false;
	if (!*s)
		return false;
	while (*s) {
		if (*s == ',') {
			if (s[1] != ',')
				break;
			s++;	/* ",," is a literal comma */
		}
		if (n + 1 < len)
			item[n++] = *s;
		else
			*too_long = true;
		s++;
	}
	item[n] = '\0';
	*p = *s ? s + 1 : s;
	return true;
}

/*
 * What key @key is in @item, one unescaped item of a list (@first: its
 * first): the value of KEY=VALUE, a leading bare value for @implied, and
 * with @bools QemuOpts' bare "flag" ("on") and "noflag" ("off").  NULL if
 * @item does not set @key.  Cuts @item at its '='.
 */
static const char *item_value(char *item, bool first, const char *implied, const char *key,
			      bool bools)
{
	char *eq = strchr(item, '=');

	if (eq) {
		*eq = '\0';
		return strcmp(item, key) ? NULL : eq + 1;
	}
	if (first && implied)
		return strcmp(implied, key) ? NULL : item;
	if (!bools)
		return NULL;
	if (!strcmp(item, key))
		return "on";
	if (!strncmp(item, "no", 2) && !strcmp(item + 2, key))
		return "off";
	return NULL;
}

bool qemu_opt_get(const char *optstr, const char *implied, const char *key,
		  char *buf, size_t len)
{
	char item[QEMU_OPT_MAX + 64];
	const char *p = optstr, *v;
	bool first = true, too_long;

	if (optstr[0] == '{')
		return json_opt_get(optstr, key, buf, len);
	for (; next_item(&p, item, sizeof(item), &too_long); first = false)
		if (!too_long && (v = item_value(item, first, implied, key, true)))
			return copy_value(v, strlen(v), buf, len);
	return false;
}

bool qemu_keyval_get_last(const char *optstr, const char *implied, const char *key,
			  char *buf, size_t len)
{
	char item[QEMU_OPT_MAX + 64];
	const char *p = optstr, *v;
	bool first = true, too_long, found = false;

	for (; next_item(&p, item, sizeof(item), &too_long); first = false)
		if (!too_long && (v = item_value(item, first, implied, key, false)) &&
		    copy_value(v, strlen(v), buf, len))
			found = true;
	return found;
}

static bool opt_is(const char *optstr, const char *implied, const char *key, const char *want)
{
	char val[QEMU_OPT_MAX];

	return qemu_opt_get(optstr, implied, key, val, sizeof(val)) && !strcmp(val, want);
}

static bool is_on(const char *optstr, const char *implied, const char *key)
{
	char val[16];

	if (!qemu_opt_get(optstr, implied, key, val, sizeof(val)))
		return false;
	return !strcmp(val, "on") || !strcmp(val, "yes") || !strcmp(val, "true") ||
	       !strcmp(val, "y");
}

/* Whether decimal @num (a number in a fd= or fds= list) is one of @fds. */
static bool fd_listed(const char *list, const int *fds, size_t nfds)
{
	const char *p = list;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		size_t i;

		if (end == p || v < 0 || v > INT32_MAX)
			return false;
		for (i = 0; i < nfds; i++)
			if (fds[i] == (int)v)
				return true;
		if (*end != ':')
			return false;
		p = end + 1;
	}
	return false;
}

bool qemu_cmdline_tap_netdev(const struct qemu_args *a, const char *ifname,
			     const int *fds, size_t nfds, bool only_tap,
			     char *id, size_t len)
{
	char val[QEMU_OPT_MAX], only_id[QEMU_OPT_MAX] = "";
	unsigned int taps = 0;
	const char *nd;
	size_t pos = 0;

	while ((nd = qemu_args_next(a, "netdev", &pos))) {
		char type[32];

		if (!qemu_opt_get(nd, "type", "type", type, sizeof(type)))
			continue;
		if (strcmp(type, "tap") && strcmp(type, "bridge"))
			continue;
		if (!qemu_opt_get(nd, "type", "id", val, sizeof(val)))
			continue;
		taps++;
		snprintf(only_id, sizeof(only_id), "%s", val);
		if (opt_is(nd, "type", "ifname", ifname))
			return copy_value(val, strlen(val), id, len);
		{
			char list[QEMU_OPT_MAX];

			if ((qemu_opt_get(nd, "type", "fd", list, sizeof(list)) ||
			     qemu_opt_get(nd, "type", "fds", list, sizeof(list))) &&
			    fd_listed(list, fds, nfds))
				return copy_value(val, strlen(val), id, len);
		}
	}
	if (only_tap && taps == 1)
		return copy_value(only_id, strlen(only_id), id, len);
	return false;
}

bool qemu_cmdline_netdev_device(const struct qemu_args *a, const char *netdev,
				char *driver, size_t driver_len, char *id, size_t id_len)
{
	const char *dev;
	size_t pos = 0;

	while ((dev = qemu_args_next(a, "device", &pos))) {
		char drv[64];

		if (!qemu_opt_get(dev, "driver", "driver", drv, sizeof(drv)) ||
		    strncmp(drv, "virtio-net", 10) || !opt_is(dev, "driver", "netdev", netdev))
			continue;
		if (!copy_value(drv, strlen(drv), driver, driver_len))
			return false;
		if (!qemu_opt_get(dev, "driver", "id", id, id_len))
			id[0] = '\0';
		return true;
	}
	return false;
}

/* The path of the unix server socket in a "-qmp" legacy chardev string, e.g. "unix:P,server=on". */
static bool qmp_arg_socket(const char *spec, char *path, size_t len)
{
	const char *p, *rest;
	char item[QEMU_OPT_MAX];
	bool too_long;

	if (strncmp(spec, "unix:", 5))
		return false;
	p = spec + 5;
	if (!next_item(&p, item, sizeof(item), &too_long) || too_long || !item[0])
		return false;
	rest = p;
	/* The legacy syntax has the path first; "server" (or server=on) must follow. */
	if (!is_on(rest, NULL, "server"))
		return false;
	return copy_value(item, strlen(item), path, len);
}

bool qemu_cmdline_qmp_socket(const struct qemu_args *a, char *path, size_t len)
{
	const char *v, *mon;
	size_t pos = 0;

	while ((v = qemu_args_next(a, "qmp", &pos)))
		if (qmp_arg_socket(v, path, len))
			return true;
	pos = 0;
	while ((mon = qemu_args_next(a, "mon", &pos))) {
		char chr[QEMU_OPT_MAX];
		const char *cd;
		size_t cpos = 0;

		if (!opt_is(mon, "chardev", "mode", "control") ||
		    !qemu_opt_get(mon, "chardev", "chardev", chr, sizeof(chr)))
			continue;
		while ((cd = qemu_args_next(a, "chardev", &cpos))) {
			if (!opt_is(cd, "backend", "backend", "socket") ||
			    !opt_is(cd, "backend", "id", chr) || !is_on(cd, "backend", "server"))
				continue;
			if (qemu_opt_get(cd, "backend", "path", path, len))
				return true;
		}
	}
	return false;
}

bool qemu_cmdline_libvirt_domain(const struct qemu_args *a, char *name, size_t len)
{
	const char *v;
	size_t pos = 0;

	/* libvirt always writes the key: a bare "-name foo" is not libvirt's. */
	v = qemu_args_next(a, "name", &pos);
	if (!v || (strncmp(v, "guest=", 6) && v[0] != '{'))
		return false;
	return qemu_opt_get(v, NULL, "guest", name, len) && name[0];
}

bool qemu_cmdline_proxmox_vmid(const struct qemu_args *a, unsigned int *vmid)
{
	const char *v;
	size_t pos = 0;
	char *end;
	unsigned long n;

	v = qemu_args_next(a, "id", &pos);
	if (!v || v[0] < '0' || v[0] > '9')
		return false;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n > UINT32_MAX)
		return false;
	*vmid = (unsigned int)n;
	return true;
}

bool qemu_proxmox_tap_name(const char *ifname, unsigned int *vmid, unsigned int *net)
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
