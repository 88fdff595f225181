// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command-line number and address parsers (lib/parse.c,
 * lib/sockaddr.c), gso-limitsd's reading of qemu-server's pid file
 * (parse_pid_text()) and gso-hist's LABEL=PATH split: what they accept
 * must mean what it says (round trips), whatever they are given.
 */
#include <arpa/inet.h>
#include <inttypes.h>

#include "fuzz/fuzz_input.h"
#include "lib/parse.h"
#include "lib/payload_hist.h"
#include "lib/sockaddr.h"

static void check_address(const char *text, int family)
{
	struct inet_addr a, b;
	char buf[INET6_ADDRSTRLEN + 16], host[INET6_ADDRSTRLEN + 16];
	size_t len;

	if (!inet_addr_parse(&a, family, text, 5001))
		return;
	inet_addr_format(&a, buf, sizeof(buf));
	/* "[host]:port" or "host:port": the host part parses back to the same address. */
	len = strlen(buf) - strlen(":5001");
	fuzz_assert(len < sizeof(host));
	if (family == AF_INET6)
		snprintf(host, sizeof(host), "%.*s", (int)len - 2, buf + 1);
	else
		snprintf(host, sizeof(host), "%.*s", (int)len, buf);
	fuzz_assert(inet_addr_parse(&b, family, host, 5001));
	fuzz_assert(a.len == b.len && !memcmp(&a.ss, &b.ss, a.len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstring(data, size), back[32];
	size_t label;
	pid_t pid;
	uint64_t v;
	double s;

	if (parse_u64(text, 0, UINT64_MAX, &v)) {
		snprintf(back, sizeof(back), "%" PRIu64, v);
		fuzz_assert(strlen(back) <= strlen(text));
	}
	if (parse_u64(text, 10, 1000, &v))
		fuzz_assert(v >= 10 && v <= 1000);
	if (parse_seconds(text, 86400.0, &s))
		fuzz_assert(s >= 0 && s <= 86400.0);
	if (parse_pid_text(text, &pid)) {
		/* Exactly "%d" or "%d\n" of it. */
		fuzz_assert(pid >= 1);
		snprintf(back, sizeof(back), "%d\n", (int)pid);
		fuzz_assert(!strcmp(back, text) ||
			    (strlen(text) + 1 == strlen(back) && !strncmp(back, text, strlen(text))));
	}
	check_address(text, AF_INET);
	check_address(text, AF_INET6);
	label = hist_label_len(text);
	fuzz_assert(label < size || !size);
	if (label)
		fuzz_assert(text[label] == '=' && !memchr(text, '/', label));
	free(text);
	return 0;
}
