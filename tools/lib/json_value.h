/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small JSON reader for QMP messages (RFC 8259 values into a tree).
 *
 * gso-limitsd reads QEMU's replies and events, and the QMP stand-in of
 * the tests reads the daemon's commands: both need objects, arrays,
 * strings and integers, never more than a few KiB.  Input is untrusted
 * (another process wrote it): lengths are checked, nesting is bounded,
 * and anything that is not JSON is an error, not a guess.
 */
#ifndef GSO_TOOLS_JSON_VALUE_H
#define GSO_TOOLS_JSON_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JV_MAX_DEPTH	32

enum jv_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
	enum jv_type type;
	bool boolean;
	bool is_integer;	/* a number without fraction or exponent, within int64 */
	int64_t integer;
	double number;
	char *string;		/* JV_STRING: NUL-terminated UTF-8 (no NUL inside) */
	size_t count;		/* JV_ARRAY, JV_OBJECT: members */
	struct jv *items;	/* the members' values */
	char **keys;		/* JV_OBJECT: the members' names */
};

/*
 * The length of the first complete JSON value in @buf (leading white
 * space included), 0 when more bytes are needed, -1 when @buf cannot be
 * the start of one (a stray '}' or nesting deeper than JV_MAX_DEPTH).
 * Only brackets and strings are followed: use it to cut a byte stream
 * into messages, then jv_parse() each.
 */
long jv_message_len(const char *buf, size_t len);

/* Parse exactly one value from @buf (white space around it allowed).  NULL if invalid. */
struct jv *jv_parse(const char *buf, size_t len);
void jv_free(struct jv *v);

/* The member @key of object @obj, or NULL (also when @obj is NULL or not an object). */
const struct jv *jv_get(const struct jv *obj, const char *key);
/* Member @key as a string / integer; NULL / false if absent or of another type. */
const char *jv_get_string(const struct jv *obj, const char *key);
bool jv_get_int(const struct jv *obj, const char *key, int64_t *out);

#endif
