// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: any bytes as a libvirt domain status file, read by
 * libvirt_status_find() (lib/libvirt_status.c, what gso-limitsd's
 * manager.c believes about a tap's VM) for the taps of the seeds and a
 * tap whose name needs an entity.  Checked:
 *   - found: a pid of 1 to INT_MAX, a name and an alias that are
 *     non-empty and fit, the alias a QEMU id, a canonical UUID (36
 *     characters, 8-4-4-4-12 hex digits: what virsh is given); not found:
 *     all zero;
 *   - with no '&' and no CDATA in the input, the name (cut or not), the
 *     UUID, the alias, the tap and the pid's digits are text of the input;
 *   - XML, not text search: a comment before the root or white space
 *     after it changes nothing; the input inside another root element, or
 *     followed by a second root, is never a record.
 */
#include <ctype.h>
#include <limits.h>

#include "fuzz/fuzz_input.h"
#include "lib/libvirt_status.h"

static const char *const taps[] = { "vnet0", "vnet1", "vnet2", "macvtap0", "tap0", "t&1" };

static bool find_with(const char *head, const uint8_t *data, size_t size, const char *tail,
		      const char *ifname, struct libvirt_status *st)
{
	size_t hl = strlen(head), tl = strlen(tail);
	char *buf = malloc(hl + size + tl + 1);
	bool found;

	if (!buf)
		abort();
	memcpy(buf, head, hl + 1);
	memcpy(buf + hl, data, size);
	memcpy(buf + hl + size, tail, tl + 1);
	found = libvirt_status_find(buf, hl + size + tl, ifname, st);
	free(buf);
	return found;
}

/* Member by member: the struct has padding (no memcmp() of the whole). */
static bool same(const struct libvirt_status *a, const struct libvirt_status *b)
{
	return a->pid == b->pid && !memcmp(a->name, b->name, sizeof(a->name)) &&
	       !memcmp(a->uuid, b->uuid, sizeof(a->uuid)) &&
	       !memcmp(a->alias, b->alias, sizeof(a->alias));
}

static bool uuid_canonical(const char *u)
{
	size_t i;

	for (i = 0; i < LIBVIRT_UUID_LEN; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23 ? u[i] != '-' : !isxdigit((unsigned char)u[i]))
			return false;
	return !u[i];
}

static bool in_input(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s)) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool plain = !memchr(data, '&', size) && !memmem(data, size, "<![CDATA[", 9);
	size_t i;

	for (i = 0; i < sizeof(taps) / sizeof(taps[0]); i++) {
		struct libvirt_status st, again;
		bool found = libvirt_status_find((const char *)data, size, taps[i], &st);
		char pid[16];

		if (!found) {
			static const struct libvirt_status zero;

			fuzz_assert(same(&st, &zero));
		} else {
			fuzz_assert(st.pid >= 1 && st.pid <= INT_MAX);
			fuzz_assert(st.name[0] && strlen(st.name) < sizeof(st.name));
			fuzz_assert(st.alias[0] && strlen(st.alias) < sizeof(st.alias));
			fuzz_assert(uuid_canonical(st.uuid));
			fuzz_assert(isalpha((unsigned char)st.alias[0]) &&
				    strspn(st.alias, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789-._") == strlen(st.alias));
			if (plain) {
				snprintf(pid, sizeof(pid), "%d", (int)st.pid);
				fuzz_assert(in_input(data, size, st.name) &&
					    in_input(data, size, st.uuid) &&
					    in_input(data, size, st.alias) &&
					    in_input(data, size, taps[i]) && in_input(data, size, pid));
			}
		}
		fuzz_assert(find_with("<!-- x -->\n", data, size, "", taps[i], &again) == found &&
			    same(&again, &st));
		fuzz_assert(find_with("", data, size, " \n", taps[i], &again) == found &&
			    same(&again, &st));
		fuzz_assert(!find_with("<x>", data, size, "</x>", taps[i], &again));
		fuzz_assert(!find_with("", data, size, "<domstatus/>", taps[i], &again));
	}
	return 0;
}
