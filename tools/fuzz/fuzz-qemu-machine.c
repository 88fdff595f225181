// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-doctor's reading of a VM's machine type (lib/qemu_machine.c): the
 * input as a /proc/PID/cmdline image (NUL-separated arguments), its
 * -machine/-M type read into the doctor's 64 bytes and into 8, each
 * type found and the input itself as a C string read as a version.
 * Checked:
 *   - a type fits its buffer and comes from a -machine/-M argument that
 *     has a value; with no escaped comma in the input, the type is text
 *     of the input (keyval has no JSON and no bare "flag" booleans, whose
 *     "on" QemuOpts' reader would invent);
 *   - the last one wins: "-M pc-q35-7.1" or "--machine type=pc-q35-7.1"
 *     appended is the type read, "-machine accel=kvm" appended changes
 *     nothing (a filler argument first takes the value of a trailing
 *     option);
 *   - a version is 0 or 1; on 0 the numbers are untouched; on 1 both are
 *     at most 1000, written in the name after a '-', and formatted back
 *     as a type they read the same.
 */
#include "fuzz/fuzz_input.h"
#include "lib/qemu_cmdline.h"
#include "lib/qemu_machine.h"

#define UNSET	0xdeadbeefu

static void check_version(const char *type)
{
	unsigned int major = UNSET, minor = UNSET, ma2 = UNSET, mi2 = UNSET;
	char num[16], back[64];
	int r = qemu_machine_version(type, &major, &minor);

	fuzz_assert(r == 0 || r == 1);
	if (!r) {
		fuzz_assert(major == UNSET && minor == UNSET);
		return;
	}
	fuzz_assert(major <= 1000 && minor <= 1000);
	fuzz_assert(strchr(type, '-') && strchr(type, '.'));
	snprintf(num, sizeof(num), "%u", major);
	fuzz_assert(strstr(strrchr(type, '-'), num));
	snprintf(num, sizeof(num), "%u", minor);
	fuzz_assert(strstr(strrchr(type, '-'), num));
	snprintf(back, sizeof(back), "pc-q35-%u.%u", major, minor);
	fuzz_assert(qemu_machine_version(back, &ma2, &mi2) == 1 && ma2 == major && mi2 == minor);
}

/* Whether some argument but the last is -machine, --machine, -M or --M. */
static bool has_machine_option(const struct qemu_args *a)
{
	size_t i;

	for (i = 0; i + 1 < a->argc; i++) {
		const char *o = a->argv[i];

		if (o[0] == '-' && o[1] == '-')
			o++;
		if (!strcmp(o, "-machine") || !strcmp(o, "-M"))
			return true;
	}
	return false;
}

/* The machine type of @data with @tail appended: true and into @type, or false. */
static bool type_with(const uint8_t *data, size_t size, const char *tail, size_t tlen,
		      char *type, size_t len)
{
	char *buf = malloc(size + tlen);
	struct qemu_args a;
	bool found = false;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	memcpy(buf + size, tail, tlen);
	if (!qemu_args_parse(buf, size + tlen, &a)) {
		found = qemu_machine_type(&a, type, len);
		qemu_args_free(&a);
	}
	free(buf);
	return found;
}

#define TAIL(s)	s, sizeof(s) - 1

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool plain = !memmem(data, size, ",,", 2);
	char type[64], small[8], again[64], *s;
	struct qemu_args a;
	bool found;

	s = fuzz_cstring(data, size);
	check_version(s);
	free(s);
	if (qemu_args_parse((const char *)data, size, &a))
		return 0;
	found = qemu_machine_type(&a, type, sizeof(type));
	fuzz_assert(strlen(type) < sizeof(type) && (found || !type[0]));
	if (found) {
		fuzz_assert(has_machine_option(&a));
		if (plain)
			fuzz_assert(memmem(data, size, type, strlen(type)));
		check_version(type);
	}
	if (qemu_machine_type(&a, small, sizeof(small))) {
		fuzz_assert(strlen(small) < sizeof(small) && has_machine_option(&a));
		if (plain)
			fuzz_assert(memmem(data, size, small, strlen(small)));
	}
	qemu_args_free(&a);

	fuzz_assert(type_with(data, size, TAIL("\0accel=tcg\0-M\0pc-q35-7.1\0"), again, sizeof(again)) &&
		    !strcmp(again, "pc-q35-7.1"));
	fuzz_assert(type_with(data, size, TAIL("\0accel=tcg\0--machine\0accel=kvm,type=pc-q35-7.1\0"),
			      again, sizeof(again)) && !strcmp(again, "pc-q35-7.1"));
	fuzz_assert(type_with(data, size, TAIL("\0accel=tcg\0-machine\0accel=kvm\0"), again,
			      sizeof(again)) == found && !strcmp(again, type));
	return 0;
}
