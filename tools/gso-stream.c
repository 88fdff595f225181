// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-stream: one bulk TCP transfer whose every byte is checked.
 *
 *   gso-stream send [-6] HOST PORT BYTES [--seed N] [--timeout S]
 *   gso-stream recv [-6] [-l ADDR] PORT [--expect BYTES] [--seed N] [--timeout S]
 *
 * The GSO-limits tests must prove that the bytes that reach the wire peer
 * are exactly the bytes the guest sent, whatever the host path did to the
 * segments in between (software segmentation, GRO, a limit change in the
 * middle of a transfer).  So the sender writes a seeded pseudo-random
 * stream (lib/pattern.c) in 256 KiB writes, several full 64 KiB TSO
 * packets, and the receiver regenerates the same stream and compares every
 * byte.  Both sides count bytes and compute FNV-1a 64 over what they sent
 * or received, and print one line of key=value pairs at the end:
 *
 *   gso-stream: role=send bytes=N checksum=HEX16 seconds=S mbit_per_s=R status=ok
 *   gso-stream: role=recv bytes=N expect=N|any checksum=HEX16 content=ok|mismatch
 *               first_mismatch=OFFSET|none seconds=S mbit_per_s=R status=ok
 *
 * (the receiver's line is one line).  Exit status 0 only when status=ok.
 *
 * It runs in a busybox initramfs guest, so it is linked statically and
 * takes numeric addresses only (no getaddrinfo/NSS).  Every wait is
 * bounded by --timeout (default 60 s): a test must never hang on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/fail.h"
#include "lib/parse.h"
#include "lib/pattern.h"
#include "lib/sockaddr.h"

/*
 * Several full-size GSO packets per write: a write of exactly 64 KiB ends
 * with a push, and on a slow (TCG) guest TCP then sends each write as two
 * packets split wherever the copy was when the push came, so the guest
 * would rarely build the largest packets its limit allows.
 */
#define SEND_CHUNK		(256 * 1024)
#define RECV_CHUNK		(256 * 1024)
#define DEFAULT_TIMEOUT_S	60.0
#define MAX_TIMEOUT_S		86400.0
#define CONNECT_RETRY_S		0.1	/* receiver not listening yet: retry this often */

static const char usage[] =
	"usage: gso-stream send [-6] HOST PORT BYTES [--seed N] [--timeout S]\n"
	"       gso-stream recv [-6] [-l ADDR] PORT [--expect BYTES] [--seed N] [--timeout S]\n"
	"  HOST, ADDR: numeric IPv4 address, or IPv6 with -6\n"
	"  PORT: 0-65535 (recv: 0 picks a free port, printed on stderr)\n"
	"  BYTES: decimal byte count; N: decimal seed (default 0)\n"
	"  S: seconds bounding the whole run (default 60)\n";

struct stream_opts {
	bool send;
	int family;
	const char *host;	/* send: peer; recv: -l ADDR or NULL for any */
	uint16_t port;
	uint64_t bytes;		/* send: BYTES */
	bool have_expect;
	uint64_t expect;	/* recv: --expect */
	uint64_t seed;
	double timeout_s;
};

struct stream_result {
	uint64_t bytes;
	uint64_t checksum;
	bool content_ok;
	uint64_t first_mismatch;
	double seconds;
	const char *status;
};

static void parse_args(int argc, char **argv, struct stream_opts *o)
{
	const char *pos[3] = { NULL, NULL, NULL };
	int npos = 0, want, i;
	uint64_t val;

	if (argc < 2)
		fail_usage(usage, "missing mode: send or recv");
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			parse_help_exit(usage);
	if (!strcmp(argv[1], "send"))
		o->send = true;
	else if (strcmp(argv[1], "recv"))
		fail_usage(usage, "unknown mode '%s': expected send or recv", argv[1]);
	o->family = AF_INET;
	o->timeout_s = DEFAULT_TIMEOUT_S;
	want = o->send ? 3 : 1;

	for (i = 2; i < argc; i++) {
		const char *arg = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "-6")) {
			o->family = AF_INET6;
		} else if (!strcmp(arg, "-l") && !o->send) {
			if (!next)
				fail_usage(usage, "-l needs a numeric address");
			o->host = next;
			i++;
		} else if (!strcmp(arg, "--seed")) {
			if (!parse_u64(next, 0, UINT64_MAX, &o->seed))
				fail_usage(usage, "--seed needs a decimal number, got '%s'",
					   next ? next : "");
			i++;
		} else if (!strcmp(arg, "--expect") && !o->send) {
			if (!parse_u64(next, 0, UINT64_MAX, &o->expect))
				fail_usage(usage, "--expect needs a decimal byte count, got '%s'",
					   next ? next : "");
			o->have_expect = true;
			i++;
		} else if (!strcmp(arg, "--timeout")) {
			if (!parse_seconds(next, MAX_TIMEOUT_S, &o->timeout_s) ||
			    o->timeout_s <= 0)
				fail_usage(usage, "--timeout needs seconds in (0, %.0f], got '%s'",
					   MAX_TIMEOUT_S, next ? next : "");
			i++;
		} else if (arg[0] == '-' && arg[1] != '\0') {
			fail_usage(usage, "unknown option '%s' for %s", arg, argv[1]);
		} else {
			if (npos == want)
				fail_usage(usage, "unexpected argument '%s'", arg);
			pos[npos++] = arg;
		}
	}
	if (npos != want)
		fail_usage(usage, "%s needs %s", argv[1],
			   o->send ? "HOST PORT BYTES" : "PORT");

	if (o->send)
		o->host = pos[0];
	if (!parse_u64(pos[o->send ? 1 : 0], 0, 65535, &val) || (o->send && !val))
		fail_usage(usage, "PORT must be a decimal number in %s-65535, got '%s'",
			   o->send ? "1" : "0", pos[o->send ? 1 : 0]);
	o->port = (uint16_t)val;
	if (o->send && !parse_u64(pos[2], 0, UINT64_MAX, &o->bytes))
		fail_usage(usage, "BYTES must be a decimal byte count, got '%s'", pos[2]);
}

/*
 * Wait until @fd is ready for @events or @deadline (clock_now_s() time)
 * passes.  Returns false on timeout.
 */
static bool wait_fd(int fd, short events, double deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	double left;
	int ret;

	for (;;) {
		left = deadline - clock_now_s();
		if (left <= 0)
			return false;
		ret = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (ret > 0)
			return true;
		if (ret < 0 && errno != EINTR)
			fail_errno("poll");
	}
}

static void set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		fail_errno("fcntl(O_NONBLOCK)");
}

static void print_result(const struct stream_opts *o, const struct stream_result *r)
{
	double mbit = r->seconds > 0 ? r->bytes * 8 / r->seconds / 1e6 : 0;

	if (o->send) {
		printf("gso-stream: role=send bytes=%" PRIu64 " checksum=%016" PRIx64
		       " seconds=%.3f mbit_per_s=%.1f status=%s\n",
		       r->bytes, r->checksum, r->seconds, mbit, r->status);
	} else {
		char expect[24] = "any";
		char mismatch[24] = "none";

		if (o->have_expect)
			snprintf(expect, sizeof(expect), "%" PRIu64, o->expect);
		if (!r->content_ok)
			snprintf(mismatch, sizeof(mismatch), "%" PRIu64, r->first_mismatch);
		printf("gso-stream: role=recv bytes=%" PRIu64 " expect=%s checksum=%016" PRIx64
		       " content=%s first_mismatch=%s seconds=%.3f mbit_per_s=%.1f status=%s\n",
		       r->bytes, expect, r->checksum, r->content_ok ? "ok" : "mismatch",
		       mismatch, r->seconds, mbit, r->status);
	}
	fflush(stdout);
}

/* Connect, retrying while the receiver is not listening yet, until @deadline. */
static int connect_until(const struct stream_opts *o, const struct inet_addr *peer,
			 double deadline)
{
	char name[64];
	socklen_t len;
	int fd, err;

	inet_addr_format(peer, name, sizeof(name));
	for (;;) {
		fd = socket(o->family, SOCK_STREAM, 0);
		if (fd < 0)
			fail_errno("socket");
		set_nonblocking(fd);
		if (connect(fd, (const struct sockaddr *)&peer->ss, peer->len) == 0)
			return fd;
		if (errno != EINPROGRESS)
			fail_errno("connect");
		if (!wait_fd(fd, POLLOUT, deadline))
			fail_msg("connect to %s: no answer within %.1f s", name, o->timeout_s);
		len = sizeof(err);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
			fail_errno("getsockopt(SO_ERROR)");
		if (!err)
			return fd;
		close(fd);
		if (err != ECONNREFUSED) {
			errno = err;
			fail_errno("connect");
		}
		/* Refused: the receiver may still be starting; retry, bounded. */
		if (clock_now_s() + CONNECT_RETRY_S >= deadline)
			fail_msg("connect to %s: refused until the %.1f s timeout",
				 name, o->timeout_s);
		usleep(CONNECT_RETRY_S * 1e6);
	}
}

static int run_send(const struct stream_opts *o)
{
	struct stream_result r = { .checksum = FNV1A64_INIT, .content_ok = true };
	double start = clock_now_s(), deadline = start + o->timeout_s;
	static uint8_t buf[SEND_CHUNK];
	struct inet_addr peer;
	struct pattern pat;
	size_t chunk, off;
	ssize_t n;
	int fd;

	if (!inet_addr_parse(&peer, o->family, o->host, o->port))
		fail_usage(usage, "HOST '%s' is not a numeric %s", o->host,
			   o->family == AF_INET6 ? "IPv6 address" :
			   "IPv4 address (use -6 for IPv6)");
	fd = connect_until(o, &peer, deadline);
	/* Time the transfer, not the wait for the receiver to listen. */
	start = clock_now_s();
	pattern_init(&pat, o->seed);

	r.status = "ok";
	while (r.bytes < o->bytes) {
		chunk = o->bytes - r.bytes < SEND_CHUNK ? o->bytes - r.bytes : SEND_CHUNK;
		pattern_fill(&pat, buf, chunk);
		/* cppcheck 2.10 misses that n is set in the body: the loop does run. */
		// cppcheck-suppress knownConditionTrueFalse
		for (off = 0; off < chunk; off += n) {
			n = send(fd, buf + off, chunk - off, MSG_NOSIGNAL);
			if (n >= 0)
				continue;
			n = 0;
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				perror("send");
				r.status = "error";
				goto out;
			}
			if (!wait_fd(fd, POLLOUT, deadline)) {
				r.status = "timeout";
				goto out;
			}
		}
		r.checksum = fnv1a64(r.checksum, buf, chunk);
		r.bytes += chunk;
	}

	/*
	 * "All written" is not "all delivered": half-close, then wait for the
	 * receiver to close its side.  A clean EOF means it read everything;
	 * a reset means it went away with data unread.
	 */
	if (shutdown(fd, SHUT_WR)) {
		perror("shutdown");
		r.status = "error";
		goto out;
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0)
			break;
		if (n > 0 || errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			perror("recv (waiting for the receiver to close)");
			r.status = "error";
			break;
		}
		if (!wait_fd(fd, POLLIN, deadline)) {
			r.status = "timeout";
			break;
		}
	}
out:
	r.seconds = clock_now_s() - start;
	close(fd);
	print_result(o, &r);
	return strcmp(r.status, "ok") ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int listen_on(const struct stream_opts *o)
{
	struct inet_addr addr;
	char name[64];
	int fd, one = 1;

	if (!inet_addr_parse(&addr, o->family, o->host, o->port))
		fail_usage(usage, "-l ADDR '%s' is not a numeric %s", o->host,
			   o->family == AF_INET6 ? "IPv6 address" :
			   "IPv4 address (use -6 for IPv6)");
	fd = socket(o->family, SOCK_STREAM, 0);
	if (fd < 0)
		fail_errno("socket");
	/* Back-to-back test runs reuse the port while the old one is in TIME_WAIT. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		fail_errno("setsockopt(SO_REUSEADDR)");
	if (bind(fd, (const struct sockaddr *)&addr.ss, addr.len))
		fail_errno("bind");
	if (listen(fd, 1))
		fail_errno("listen");
	addr.len = sizeof(addr.ss);
	if (getsockname(fd, (struct sockaddr *)&addr.ss, &addr.len))
		fail_errno("getsockname");
	inet_addr_format(&addr, name, sizeof(name));
	/* On stderr, so stdout stays the one result line; scripts may wait for it. */
	fprintf(stderr, "gso-stream: role=recv listening=%s\n", name);
	set_nonblocking(fd);
	return fd;
}

/* Compare @len received bytes with the stream; note the first difference. */
static void check_content(struct stream_result *r, struct pattern *pat,
			  const uint8_t *got, uint8_t *want, size_t len)
{
	size_t i;

	pattern_fill(pat, want, len);
	if (!r->content_ok || !memcmp(got, want, len))
		return;
	for (i = 0; got[i] == want[i]; i++)
		;
	r->content_ok = false;
	r->first_mismatch = r->bytes + i;
}

static int run_recv(const struct stream_opts *o)
{
	struct stream_result r = { .checksum = FNV1A64_INIT, .content_ok = true };
	double start = clock_now_s(), deadline = start + o->timeout_s;
	static uint8_t got[RECV_CHUNK], want[RECV_CHUNK];
	struct pattern pat;
	int lfd, fd = -1;
	ssize_t n;

	lfd = listen_on(o);
	pattern_init(&pat, o->seed);
	r.status = "ok";

	/* One connection only: accept it, then stop listening. */
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			fail_errno("accept");
		if (!wait_fd(lfd, POLLIN, deadline)) {
			r.status = "timeout";
			goto out;
		}
	}
	close(lfd);
	lfd = -1;
	/* Time the transfer, not the wait for the sender to start. */
	start = clock_now_s();
	set_nonblocking(fd);

	for (;;) {
		n = recv(fd, got, sizeof(got), 0);
		if (n == 0)
			break;
		if (n > 0) {
			check_content(&r, &pat, got, want, n);
			r.checksum = fnv1a64(r.checksum, got, n);
			r.bytes += n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			perror("recv");
			r.status = "error";
			break;
		}
		if (!wait_fd(fd, POLLIN, deadline)) {
			r.status = "timeout";
			break;
		}
	}
	if (!strcmp(r.status, "ok")) {
		if (!r.content_ok)
			r.status = "mismatch";
		else if (o->have_expect && r.bytes < o->expect)
			r.status = "short";
		else if (o->have_expect && r.bytes > o->expect)
			r.status = "long";
	}
out:
	r.seconds = clock_now_s() - start;
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	print_result(o, &r);
	return strcmp(r.status, "ok") ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct stream_opts opts = { 0 };

	fail_prog = "gso-stream";
	parse_version_exit(argc, argv);
	parse_args(argc, argv, &opts);
	/* A peer that vanishes must give EPIPE and a result line, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return opts.send ? run_send(&opts) : run_recv(&opts);
}
