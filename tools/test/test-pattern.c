// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/pattern.c: the stream must not depend on how it is cut
 * into calls (TCP hands the receiver arbitrary chunks, the sender writes
 * 64 KiB ones), different seeds must differ, and FNV-1a 64 must match its
 * published test vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pattern.h"
#include "test/check.h"

#define STREAM_LEN (300 * 1024 + 13)

/* Fill @buf with the stream of @seed, in calls of sizes cycling through @cuts. */
static void fill_in_cuts(uint8_t *buf, size_t len, uint64_t seed,
			 const size_t *cuts, size_t ncuts)
{
	struct pattern p;
	size_t off = 0, i = 0, n;

	pattern_init(&p, seed);
	while (off < len) {
		n = cuts[i++ % ncuts];
		if (n > len - off)
			n = len - off;
		pattern_fill(&p, buf + off, n);
		off += n;
	}
}

int main(void)
{
	static const size_t whole[] = { STREAM_LEN };
	static const size_t send_cuts[] = { 65536 };
	static const size_t odd_cuts[] = { 1, 7, 8, 9, 1448, 3, 65536, 16, 5 };
	static uint8_t ref[STREAM_LEN], got[STREAM_LEN];
	uint64_t h;

	fill_in_cuts(ref, STREAM_LEN, 42, whole, 1);
	fill_in_cuts(got, STREAM_LEN, 42, send_cuts, 1);
	check(!memcmp(ref, got, STREAM_LEN), "64 KiB calls give the same stream as one call");
	fill_in_cuts(got, STREAM_LEN, 42, odd_cuts, sizeof(odd_cuts) / sizeof(odd_cuts[0]));
	check(!memcmp(ref, got, STREAM_LEN), "odd-sized calls give the same stream as one call");
	/* A repeated 8-byte word would hide a duplicated segment: there must be none. */
	check(memcmp(ref, ref + 8, 8) != 0 && memcmp(ref + 65528, ref + 65536, 8) != 0,
	      "consecutive words differ");
	fill_in_cuts(got, STREAM_LEN, 43, whole, 1);
	check(memcmp(ref, got, 64) != 0, "seeds 42 and 43 give different streams");
	fill_in_cuts(got, 64, 0, whole, 1);
	check(memcmp(got, (uint8_t[8]){ 0 }, 8) != 0, "seed 0 gives a non-zero stream");

	/* Test vectors of the FNV reference (isthe.com/chongo/tech/comp/fnv). */
	check(fnv1a64(FNV1A64_INIT, NULL, 0) == 0xcbf29ce484222325ULL, "fnv1a64(\"\")");
	check(fnv1a64(FNV1A64_INIT, (const uint8_t *)"a", 1) == 0xaf63dc4c8601ec8cULL,
	      "fnv1a64(\"a\")");
	check(fnv1a64(FNV1A64_INIT, (const uint8_t *)"foobar", 6) == 0x85944171f73967e8ULL,
	      "fnv1a64(\"foobar\")");
	h = fnv1a64(FNV1A64_INIT, (const uint8_t *)"foo", 3);
	check(fnv1a64(h, (const uint8_t *)"bar", 3) == 0x85944171f73967e8ULL,
	      "fnv1a64 continues across calls");

	return check_exit_status();
}
