// SPDX-License-Identifier: GPL-2.0-only
/*
 * What gso-limitsd says about a tap, so that the doctor and the daemon
 * agree: a tap the daemon has set to its path's limits at run time
 * (qom-set) carries no limit on QEMU's command line, and the doctor would
 * otherwise warn about it while the daemon reports it synced.
 *
 * Read from the daemon's control socket (its `status` JSON,
 * docs/daemon.md), once per run, with a one-second timeout: no daemon, no
 * answer, or no entry for the tap is simply "not known".
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "lib/clock.h"
#include "lib/json_value.h"
#include "lib/unix_socket.h"

#define LIMITSD_STATUS_MAX	(16 << 20)

static struct jv *read_status(const char *path)
{
	double deadline = clock_now_s() + 1.0;
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	struct jv *doc = NULL;
	int fd = unix_socket_connect(path, 1);

	if (fd < 0 || !buf)
		goto out;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - clock_now_s();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			goto out;
		if (len == cap) {
			char *nb = cap < LIMITSD_STATUS_MAX ? realloc(buf, cap * 2) : NULL;

			if (!nb)
				goto out;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			goto out;
		if (!n)
			break;
		len += (size_t)n;
	}
	doc = jv_parse(buf, len);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return doc;
}

bool doctor_limitsd_tap(struct doctor_ctx *ctx, const struct link_info *tap,
			struct doctor_limitsd_tap *out)
{
	const struct jv *nss;
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (!ctx->limitsd_read) {
		ctx->limitsd_read = true;
		if (ctx->limitsd_control && strcmp(ctx->limitsd_control, "none"))
			ctx->limitsd = read_status(ctx->limitsd_control);
	}
	nss = ctx->limitsd ? jv_get(ctx->limitsd, "namespaces") : NULL;
	if (!nss || nss->type != JV_ARRAY)
		return false;
	for (i = 0; i < nss->count; i++) {
		const struct jv *taps = jv_get(&nss->items[i], "taps");

		if (!taps || taps->type != JV_ARRAY)
			continue;
		for (k = 0; k < taps->count; k++) {
			const struct jv *t = &taps->items[k], *set = jv_get(t, "set");
			const char *name = jv_get_string(t, "ifname"), *state = jv_get_string(t, "state");
			int64_t ifindex, size, segs;

			if (!name || strcmp(name, tap->name) || !jv_get_int(t, "ifindex", &ifindex) ||
			    ifindex != tap->ifindex || !state)
				continue;
			snprintf(out->state, sizeof(out->state), "%s", state);
			if (set && set->type == JV_OBJECT && jv_get_int(set, "size", &size) &&
			    jv_get_int(set, "segs", &segs)) {
				out->set = true;
				out->size = (uint64_t)size;
				out->segs = (uint64_t)segs;
			}
			{
				const struct jv *neg = jv_get(t, "negotiated");

				out->negotiated = !neg || neg->type != JV_BOOL ? "" :
						  neg->boolean ? "true" : "false";
			}
			snprintf(out->error, sizeof(out->error), "%s",
				 jv_get_string(t, "error") ? jv_get_string(t, "error") : "");
			return true;
		}
	}
	return false;
}
