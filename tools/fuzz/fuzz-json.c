// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON strings (lib/json.c) from arbitrary bytes, as interface and file
 * names can be: the output must be one JSON string, valid UTF-8 (checked
 * by glibc's iconv, an independent decoder), with no raw control byte.
 */
#include <errno.h>
#include <iconv.h>

#include "fuzz/fuzz_input.h"
#include "lib/json.h"

static iconv_t to_utf32;

static bool valid_utf8(char *s, size_t len)
{
	char out[4096], *in = s, *o;
	size_t in_left = len, out_left;

	iconv(to_utf32, NULL, NULL, NULL, NULL);
	while (in_left) {
		o = out;
		out_left = sizeof(out);
		if (iconv(to_utf32, &in, &in_left, &o, &out_left) == (size_t)-1 && errno != E2BIG)
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstring(data, size), *out = NULL;
	size_t len = 0, i;
	FILE *f;

	if (!to_utf32)
		to_utf32 = iconv_open("UTF-32LE", "UTF-8");
	if (to_utf32 == (iconv_t)-1)
		abort();
	f = open_memstream(&out, &len);
	if (!f)
		abort();
	json_print_string(f, in);
	fclose(f);
	fuzz_assert(len >= 2 && out[0] == '"' && out[len - 1] == '"');
	for (i = 1; i + 1 < len; i++) {
		fuzz_assert((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
		/* A quote inside is escaped: a backslash run of odd length precedes it. */
		if (out[i] == '\\')
			i++;
		else
			fuzz_assert(out[i] != '"');
	}
	fuzz_assert(valid_utf8(out, len));
	free(out);
	free(in);
	return 0;
}
