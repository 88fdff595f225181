// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_value.h"

long jv_message_len(const char *buf, size_t len)
{
	size_t i = 0;
	int depth = 0;
	bool in_string = false, started = false;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			if (!in_string && !depth)
				return (long)i + 1;
			continue;
		}
		switch (c) {
		case ' ': case '\t': case '\r': case '\n':
			if (started && !depth)
				return (long)i;
			continue;
		case '"':
			in_string = true;
			started = true;
			continue;
		case '{': case '[':
			if (++depth > JV_MAX_DEPTH)
				return -1;
			started = true;
			continue;
		case '}': case ']':
			if (--depth < 0)
				return -1;
			if (!depth)
				return (long)i + 1;
			continue;
		default:
			started = true;
		}
	}
	return 0;
}

struct jv_parser {
	const char *p, *end;
	int depth;
};

static void skip_ws(struct jv_parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n'))
		ps->p++;
}

static bool parse_value(struct jv_parser *ps, struct jv *v);

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool read_hex4(const char **p, const char *end, unsigned int *out)
{
	unsigned int v = 0;
	int i, d;

	if (end - *p < 4)
		return false;
	for (i = 0; i < 4; i++) {
		d = hex_digit((*p)[i]);
		if (d < 0)
			return false;
		v = v * 16 + (unsigned int)d;
	}
	*p += 4;
	*out = v;
	return true;
}

static size_t put_utf8(char *out, unsigned int cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at ps->p (which is at the opening quote), into a malloc()ed C string. */
static char *parse_string(struct jv_parser *ps)
{
	const char *start = ps->p + 1, *body_end = start, *p;
	char *out, *o;

	while (body_end < ps->end && *body_end != '"')
		body_end += *body_end == '\\' ? 2 : 1;
	if (body_end >= ps->end)
		return NULL;
	/* Unescaped output is never longer than the input. */
	out = malloc((size_t)(body_end - start) + 1);
	if (!out)
		return NULL;
	for (p = start, o = out; p < body_end;) {
		unsigned char c = (unsigned char)*p++;
		unsigned int cp, lo;

		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		if (p >= body_end)
			goto bad;
		c = (unsigned char)*p++;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			/* No NUL inside a C string. */
			if (!read_hex4(&p, body_end, &cp) || !cp)
				goto bad;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (body_end - p < 6 || p[0] != '\\' || p[1] != 'u')
					goto bad;
				p += 2;
				if (!read_hex4(&p, body_end, &lo) || lo < 0xdc00 || lo > 0xdfff)
					goto bad;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				goto bad;
			}
			/* \uXXXX takes 6 input bytes, its UTF-8 at most 3 (a pair: 12 and 4). */
			o += put_utf8(o, cp);
			break;
		default:
			goto bad;
		}
	}
	*o = '\0';
	ps->p = body_end + 1;
	return out;
bad:
	free(out);
	return NULL;
}

static bool parse_number(struct jv_parser *ps, struct jv *v)
{
	char tmp[64];
	const char *s = ps->p;
	size_t n;
	char *endp;
	bool integer = true;

	if (s < ps->end && *s == '-')
		s++;
	if (s >= ps->end || *s < '0' || *s > '9')
		return false;
	if (*s == '0' && s + 1 < ps->end && s[1] >= '0' && s[1] <= '9')
		return false;	/* no leading zeros */
	while (s < ps->end && *s >= '0' && *s <= '9')
		s++;
	if (s < ps->end && *s == '.') {
		integer = false;
		s++;
		if (s >= ps->end || *s < '0' || *s > '9')
			return false;
		while (s < ps->end && *s >= '0' && *s <= '9')
			s++;
	}
	if (s < ps->end && (*s == 'e' || *s == 'E')) {
		integer = false;
		s++;
		if (s < ps->end && (*s == '+' || *s == '-'))
			s++;
		if (s >= ps->end || *s < '0' || *s > '9')
			return false;
		while (s < ps->end && *s >= '0' && *s <= '9')
			s++;
	}
	n = (size_t)(s - ps->p);
	if (n >= sizeof(tmp))
		return false;
	memcpy(tmp, ps->p, n);
	tmp[n] = '\0';
	v->type = JV_NUMBER;
	v->number = strtod(tmp, NULL);
	if (integer) {
		errno = 0;
		v->integer = strtoll(tmp, &endp, 10);
		v->is_integer = !errno && *endp == '\0';
	}
	ps->p = s;
	return isfinite(v->number);
}

static bool parse_literal(struct jv_parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return false;
	ps->p += n;
	return true;
}

/* Append one zeroed member to @v (array or object); NULL on allocation failure. */
static struct jv *grow(struct jv *v)
{
	struct jv *items = realloc(v->items, (v->count + 1) * sizeof(*items));

	if (!items)
		return NULL;
	v->items = items;
	if (v->type == JV_OBJECT) {
		char **keys = realloc(v->keys, (v->count + 1) * sizeof(*keys));

		if (!keys)
			return NULL;
		v->keys = keys;
		v->keys[v->count] = NULL;
	}
	memset(&v->items[v->count], 0, sizeof(v->items[0]));
	return &v->items[v->count++];
}

static bool parse_container(struct jv_parser *ps, struct jv *v, char close)
{
	if (++ps->depth > JV_MAX_DEPTH)
		return false;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return true;
	}
	for (;;) {
		struct jv *item;
		char *key = NULL;

		skip_ws(ps);
		if (v->type == JV_OBJECT) {
			if (ps->p >= ps->end || *ps->p != '"')
				return false;
			key = parse_string(ps);
			if (!key)
				return false;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return false;
			}
			ps->p++;
		}
		item = grow(v);
		if (!item) {
			free(key);
			return false;
		}
		if (v->type == JV_OBJECT)
			v->keys[v->count - 1] = key;
		if (!parse_value(ps, item))
			return false;
		skip_ws(ps);
		if (ps->p >= ps->end)
			return false;
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p != close)
			return false;
		ps->p++;
		ps->depth--;
		return true;
	}
}

static bool parse_value(struct jv_parser *ps, struct jv *v)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return false;
	switch (*ps->p) {
	case '{':
		v->type = JV_OBJECT;
		return parse_container(ps, v, '}');
	case '[':
		v->type = JV_ARRAY;
		return parse_container(ps, v, ']');
	case '"':
		v->type = JV_STRING;
		v->string = parse_string(ps);
		return v->string != NULL;
	case 't':
		v->type = JV_BOOL;
		v->boolean = true;
		return parse_literal(ps, "true");
	case 'f':
		v->type = JV_BOOL;
		return parse_literal(ps, "false");
	case 'n':
		v->type = JV_NULL;
		return parse_literal(ps, "null");
	default:
		return parse_number(ps, v);
	}
}

static void jv_clear(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->count; i++) {
		jv_clear(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
}

struct jv *jv_parse(const char *buf, size_t len)
{
	struct jv_parser ps = { .p = buf, .end = buf + len };
	struct jv *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (!parse_value(&ps, v)) {
		jv_free(v);
		return NULL;
	}
	skip_ws(&ps);
	if (ps.p != ps.end) {
		jv_free(v);
		return NULL;
	}
	return v;
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	jv_clear(v);
	free(v);
}

const struct jv *jv_get(const struct jv *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JV_OBJECT)
		return NULL;
	for (i = 0; i < obj->count; i++)
		if (obj->keys[i] && !strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *jv_get_string(const struct jv *obj, const char *key)
{
	const struct jv *v = jv_get(obj, key);

	return v && v->type == JV_STRING ? v->string : NULL;
}

bool jv_get_int(const struct jv *obj, const char *key, int64_t *out)
{
	const struct jv *v = jv_get(obj, key);

	if (!v || v->type != JV_NUMBER || !v->is_integer)
		return false;
	*out = v->integer;
	return true;
}
