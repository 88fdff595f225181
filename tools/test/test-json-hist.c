// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the output side of the tools: JSON strings (escapes, bytes
 * that are not UTF-8), gso-hist's LABEL=PATH split and its sparse size
 * counts (BIG TCP sizes beyond 64 KiB).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/payload_hist.h"
#include "test/check.h"

static void check_json(const char *in, const char *want, const char *what)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f) {
		check(false, "%s: open_memstream", what);
		return;
	}
	json_print_string(f, in);
	fclose(f);
	check(!strcmp(out, want), "json: %s (%s)", what, out);
	free(out);
}

static void test_json(void)
{
	check_json("eth0", "\"eth0\"", "plain");
	check_json("a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash");
	check_json("t\tn\n\x7f", "\"t\\u0009n\\u000a\\u007f\"", "control characters");
	check_json("caf\xc3\xa9", "\"caf\xc3\xa9\"", "valid UTF-8 kept");
	check_json("\xf0\x9f\x90\xa7", "\"\xf0\x9f\x90\xa7\"", "a 4-byte sequence kept");
	check_json("a\xff" "b", "\"a\\u00ffb\"", "a byte that is never UTF-8");
	check_json("\xc3", "\"\\u00c3\"", "a sequence cut by the end");
	check_json("\xc0\xaf", "\"\\u00c0\\u00af\"", "an overlong form");
	check_json("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"", "a surrogate");
	check_json("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"", "above U+10FFFF");
}

static void test_labels(void)
{
	check(hist_label_len("tap=/tmp/a.pcap") == 3, "label: tap=/tmp/a.pcap");
	check(hist_label_len("a=b=c.pcap") == 1, "label: split at the first '='");
	check(hist_label_len("/tmp/a=b.pcap") == 0, "label: '=' inside a path is no label");
	check(hist_label_len("=x.pcap") == 0 && hist_label_len("x.pcap") == 0, "label: none");
}

static void test_size_counts(void)
{
	struct size_counts sc = { 0 };
	uint32_t s;
	bool ok = true;

	for (s = 1; s <= 5000; s++)
		ok &= !size_counts_add(&sc, s * 131, s);
	ok &= !size_counts_add(&sc, 524280, 7) && !size_counts_add(&sc, 131, 1);
	for (s = 1; s <= 5000; s++)
		ok &= size_counts_get(&sc, s * 131) == s + (s == 1);
	check(ok && size_counts_get(&sc, 524280) == 7 && size_counts_get(&sc, 130) == 0 &&
	      sc.used == 5001, "size counts: 5001 sizes up to 512 KiB");
	check(size_counts_add(&sc, 0, 1) < 0, "size counts: size 0 is not kept");
	free(sc.slots);
}

int main(void)
{
	test_json();
	test_labels();
	test_size_counts();
	return check_exit_status();
}
