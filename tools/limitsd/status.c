// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's state as JSON, for `gso-limitsd --once --json` and for
 * `gso-limitsd status`, which reads it from the daemon's control socket
 * (a unix socket in the daemon's RuntimeDirectory, root only).  The
 * per-tap keys follow gso-probe's (gso_max_size, gso_max_segs, size_from,
 * segs_from); docs/daemon.md lists them all.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/json.h"
#include "lib/unix_socket.h"
#include "limitsd.h"

static void print_str_or_null(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	if (s && s[0])
		json_print_string(f, s);
	else
		fputs("null", f);
}

static void print_tap(FILE *f, const struct tap *t)
{
	fputs("{\"ifname\":", f);
	json_print_string(f, t->ifname);
	fprintf(f, ",\"ifindex\":%d,\"path\":\"%s\"", t->ifindex, path_status_name(t->status));
	if (t->status == PATH_OK)
		fprintf(f, ",\"gso_max_size\":%u,\"gso_max_segs\":%u", t->size, t->segs);
	else
		fputs(",\"gso_max_size\":null,\"gso_max_segs\":null", f);
	print_str_or_null(f, "size_from", t->size_from);
	print_str_or_null(f, "segs_from", t->segs_from);
	print_str_or_null(f, "size_rule", path_rule_name(t->size_rule));
	print_str_or_null(f, "segs_rule", path_rule_name(t->segs_rule));
	fprintf(f, ",\"incomplete\":%s", t->incomplete ? "true" : "false");
	fprintf(f, ",\"state\":\"%s\"", tap_state_name(t->state));
	if (t->applied)
		fprintf(f, ",\"set\":{\"size\":%u,\"segs\":%u}", t->applied_size, t->applied_segs);
	else
		fputs(",\"set\":null", f);
	print_str_or_null(f, "error", t->error[0] ? t->error : t->vmm_note);
	fprintf(f, ",\"negotiated\":%s",
		t->negotiated > 0 ? "true" : t->negotiated == 0 ? "false" : "null");
	fprintf(f, ",\"qmp_commands\":%lu,\"vmm\":", t->commands);
	if (!t->pid) {
		fputs("null}", f);
		return;
	}
	fprintf(f, "{\"pid\":%d,\"kind\":\"%s\"", (int)t->pid, endpoint_kind_name(t->ep.kind));
	print_str_or_null(f, "qmp", t->ep.socket);
	print_str_or_null(f, "domain", t->ep.domain);
	print_str_or_null(f, "uuid", t->ep.uuid);
	print_str_or_null(f, "netdev", t->ep.netdev);
	print_str_or_null(f, "device", t->ep.qom);
	fputs("}}", f);
}

void status_print(FILE *f, struct netns *const *nss, size_t count)
{
	size_t i, k;

	fprintf(f, "{\"counters\":{\"events\":%lu,\"overruns\":%lu,\"bursts\":%lu,\"rescans\":%lu,\"dumps\":%lu,"
		"\"proc_scans\":%lu,\"recomputes\":%lu,\"qmp_connects\":%lu,"
		"\"qmp_commands\":%lu,\"sets\":%lu,\"failures\":%lu},\"dry_run\":%s,"
		"\"namespaces\":[",
		ld_count.events, ld_count.overruns, ld_count.bursts, ld_count.rescans, ld_count.dumps,
		ld_count.proc_scans, ld_count.recomputes, ld_count.qmp_connects,
		ld_count.qmp_commands, ld_count.sets, ld_count.failures,
		ld_cfg.dry_run ? "true" : "false");
	for (i = 0; i < count; i++) {
		const struct netns *ns = nss[i];

		fputs(i ? ",{\"netns\":" : "{\"netns\":", f);
		if (ns->name[0])
			json_print_string(f, ns->name);
		else
			fputs("null", f);
		fputs(",\"taps\":[", f);
		for (k = 0; k < ns->ntaps; k++) {
			if (k)
				fputc(',', f);
			print_tap(f, ns->taps[k]);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}

int control_listen(const char *path)
{
	char dir[108], lock[120];
	char *slash;
	int fd, lfd;

	/* Started by hand, not by systemd (RuntimeDirectory=): make /run/gso-limitsd. */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
	}
	/*
	 * One daemon per socket: a second instance must neither take the
	 * socket over nor remove it on its way out.  The lock is held (its
	 * descriptor left open) for the daemon's life.
	 */
	snprintf(lock, sizeof(lock), "%s.lock", path);
	lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lfd < 0)
		return -1;
	if (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
		close(lfd);
		fail_msg("another gso-limitsd runs with control socket %s (it holds %s): not started",
			 path, lock);
	}
	/* Root only: the status names every VM's QEMU and sockets. */
	fd = unix_socket_listen(path, 8, 0600, 1);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

void control_serve(int lfd, struct netns *const *nss, size_t count)
{
	struct timeval tv = { .tv_sec = 1 };
	char *buf = NULL;
	size_t len = 0, off;
	FILE *f;
	int cfd;

	while ((cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		f = open_memstream(&buf, &len);
		if (!f)
			fail_errno("open_memstream");
		status_print(f, nss, count);
		fclose(f);
		/* A client that does not read gets a second, not the daemon. */
		setsockopt(cfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		for (off = 0; off < len;) {
			ssize_t n = send(cfd, buf + off, len - off, MSG_NOSIGNAL);

			if (n <= 0)
				break;
			off += (size_t)n;
		}
		close(cfd);
		free(buf);
		buf = NULL;
	}
}

int control_client(const char *path, double timeout_s)
{
	double deadline = clock_now_s() + timeout_s;
	char buf[65536];
	char *doc = NULL;
	size_t len = 0;
	ssize_t n;
	int fd = unix_socket_connect(path, 1);
	FILE *f;

	if (fd < 0)
		fail_msg("cannot reach the daemon at %s: %s (is gso-limitsd running? "
			 "--control PATH names another socket)", path, strerror(-fd));
	/* A hook must never hang on a stuck daemon: the answer whole, or nothing. */
	f = open_memstream(&doc, &len);
	if (!f)
		fail_errno("open_memstream");
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - clock_now_s();

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) == 0)
			fail_msg("no answer from the daemon at %s within %.1f s (--timeout MS)", path,
				 timeout_s);
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			fail_errno("read");
		if (!n)
			break;
		fwrite(buf, 1, (size_t)n, f);
	}
	fclose(f);
	close(fd);
	if (fwrite(doc, 1, len, stdout) != len)
		fail_errno("stdout");
	free(doc);
	if (fflush(stdout))
		fail_errno("stdout");
	return EXIT_SUCCESS;
}
