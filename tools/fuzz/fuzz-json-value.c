// SPDX-License-Identifier: GPL-2.0-only
/*
 * The QMP reader (lib/json_value.c) on any bytes, as gso-limitsd reads
 * QEMU's socket: jv_message_len() cuts the stream, jv_parse() reads each
 * message (until now reached only through -netdev/-device JSON, as C
 * strings).  Checked:
 *   - a message length is -1, 0 or within the input, and more bytes after
 *     a complete message do not move its end;
 *   - a parsed tree: nesting within JV_MAX_DEPTH, strings NUL-terminated
 *     in their allocation (ASan), every member's key found by jv_get(),
 *     an integer within 2^53 equal to its double;
 *   - a whole input that parses as an object or array is one message, and
 *     that message parses alone.
 */
#include "fuzz/fuzz_input.h"
#include "lib/json_value.h"

static void check_tree(const struct jv *v, int depth)
{
	size_t i;

	fuzz_assert(depth <= JV_MAX_DEPTH);
	switch (v->type) {
	case JV_STRING:
		fuzz_assert(v->string);
		(void)strlen(v->string);	/* ASan: terminated within its allocation */
		break;
	case JV_NUMBER:
		/* Exact within double's 53 bits: strtoll() and strtod() read the same digits. */
		if (v->is_integer && v->integer <= (1LL << 53) && v->integer >= -(1LL << 53))
			fuzz_assert((double)v->integer == v->number);
		break;
	case JV_ARRAY:
	case JV_OBJECT:
		fuzz_assert(!v->count || v->items);
		for (i = 0; i < v->count; i++) {
			if (v->type == JV_OBJECT) {
				fuzz_assert(v->keys && v->keys[i]);
				fuzz_assert(jv_get(v, v->keys[i]));
			}
			check_tree(&v->items[i], depth + 1);
		}
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char more[] = "}]\"x\" {[";
	const char *buf = (const char *)data;
	long m = jv_message_len(buf, size), m2;
	struct jv *v, *w;
	char *ext;
	size_t lead = 0;

	fuzz_assert(m >= -1 && m <= (long)size);
	if (m > 0) {
		ext = malloc(size + sizeof(more));
		if (!ext)
			abort();
		memcpy(ext, data, size);
		memcpy(ext + size, more, sizeof(more));
		m2 = jv_message_len(ext, size + sizeof(more));
		fuzz_assert(m2 == m);
		free(ext);
	}
	v = jv_parse(buf, size);
	if (!v)
		return 0;
	check_tree(v, 0);
	while (lead < size && strchr(" \t\r\n", buf[lead]) && buf[lead])
		lead++;
	if (v->type == JV_OBJECT || v->type == JV_ARRAY) {
		fuzz_assert(m > 0 && buf[lead] == (v->type == JV_OBJECT ? '{' : '['));
		w = jv_parse(buf, (size_t)m);
		fuzz_assert(w && w->type == v->type && w->count == v->count);
		jv_free(w);
	}
	jv_free(v);
	return 0;
}
