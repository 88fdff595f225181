// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: any bytes as QEMU's "info network" text, read by
 * qemu_info_network_tap() (lib/qemu_info_network.c, the netdev gso-limitsd
 * takes for a tap, or the hub port it refuses) for the taps of the seeds
 * and descriptors 3 and 23, into the daemon's 256 bytes and into 8.
 * Checked:
 *   - a name found is QEMU's kind (letters, digits, "_.-#"), fits, and
 *     the text holds "NAME: index=" (a netdev's) or "PORT: " (a hub
 *     port's);
 *   - the 8-byte read finds a name exactly when the 256-byte one finds
 *     one shorter than 8 bytes, and the same, of the same kind;
 *   - lines that only look like the tap's (a filter's, type=tap later on
 *     a NIC's, ifname= in a script's path, a hub port's NIC) put first
 *     change nothing; a line of the tap's own appended, under a NIC or
 *     on a hub's port, is read as such when no line was the tap's before
 *     (read into a buffer larger than the input: the first line that is
 *     the tap's counts, even with a name too long for 256 bytes).
 */
#include <ctype.h>

#include "fuzz/fuzz_input.h"
#include "lib/qemu_info_network.h"

static const char *const taps[] = { "tap0", "tapmq", "taph", "a,b" };
static const int fds[] = { 3, 23 };

static char *joined(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = malloc(la + lb + lc + 1);

	if (!s)
		abort();
	memcpy(s, a, la + 1);
	memcpy(s + la, b, lb + 1);
	memcpy(s + la + lb, c, lc + 1);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstring(data, size), *whole = malloc(size + 16);
	size_t i;

	if (!whole)
		abort();

	for (i = 0; i < sizeof(taps) / sizeof(taps[0]); i++) {
		char out[256], small[8], again[256], decoys[640], own[64], key[300];
		enum qemu_tap_holder found, fits, any, ok;
		char *s;
		size_t k, o;

		found = qemu_info_network_tap(text, taps[i], fds, 2, out, sizeof(out));
		fits = qemu_info_network_tap(text, taps[i], fds, 2, small, sizeof(small));
		any = qemu_info_network_tap(text, taps[i], fds, 2, whole, size + 16);
		fuzz_assert(found == QEMU_TAP_NONE || found == QEMU_TAP_NETDEV ||
			    found == QEMU_TAP_HUB);
		if (found) {
			fuzz_assert(out[0] && strlen(out) < sizeof(out));
			for (k = 0; out[k]; k++)
				fuzz_assert(isalnum((unsigned char)out[k]) || strchr("_.-#", out[k]));
			snprintf(key, sizeof(key), found == QEMU_TAP_HUB ? "%s: " : "%s: index=", out);
			fuzz_assert(strstr(text, key));
		}
		fuzz_assert(fits == (found && strlen(out) < sizeof(small) ? found : QEMU_TAP_NONE));
		fuzz_assert(found == (any && strlen(whole) < sizeof(out) ? any : QEMU_TAP_NONE));
		fuzz_assert(!fits || !strcmp(small, out));

		snprintf(decoys, sizeof(decoys),
			 "filters:\r\n  - f0: type=filter-dump,file=/x: index=0,type=tap,ifname=%s\r\n"
			 "n9: index=0,type=nic,model=x,type=tap,ifname=%s,fd=3\r\n"
			 " \\ s9: index=0,type=tap,ifname=other,script=/x,ifname=%s,fd=23\r\n"
			 "hub 9\r\n \\ hub9port0: n8: index=0,type=nic,model=x,type=tap,ifname=%s\r\n",
			 taps[i], taps[i], taps[i], taps[i]);
		s = joined(decoys, text, "");
		fuzz_assert(qemu_info_network_tap(s, taps[i], fds, 2, again, sizeof(again)) == found &&
			    (!found || !strcmp(again, out)));
		free(s);
		for (o = 0; o < 2; o++) {
			snprintf(own, sizeof(own), o ? "\n \\ hub9port1: zz: index=0,type=tap,ifname=%s\r\n" :
				 "\n \\ zz: index=1,type=tap,ifname=%s\r\n", taps[i]);
			s = joined(text, own, "");
			ok = qemu_info_network_tap(s, taps[i], fds, 2, again, sizeof(again));
			if (found)
				fuzz_assert(ok == found && !strcmp(again, out));
			else if (!any)
				fuzz_assert(o ? ok == QEMU_TAP_HUB && !strcmp(again, "hub9port1") :
					    ok == QEMU_TAP_NETDEV && !strcmp(again, "zz"));
			else
				fuzz_assert(!ok);	/* the first, too long, still counts */
			free(s);
		}
	}
	free(whole);
	free(text);
	return 0;
}
