// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvirtd's domain status file, read as XML for the few elements
 * gso-limitsd needs (lib/libvirt_status.h).  Pure: the unit test
 * (test/test-limitsd-records.c) and the fuzzer (fuzz/fuzz-libvirt-status.c)
 * run the code the daemon runs.
 */
#include <limits.h>
#include <string.h>

#include "libvirt_status.h"

/*
 * The elements that count sit at most 5 levels deep (<domstatus> is 1,
 * <target> 5).  The first XML_TRACKED levels are kept (what each element
 * is, its name for the end tag's check); deeper ones, all EL_OTHER, are
 * only counted, so that a domain owner's deep <metadata> is still read.
 */
#define XML_TRACKED	8

/* The elements that count, each only where libvirt writes it. */
enum el { EL_OTHER, EL_DOMSTATUS, EL_DOMAIN, EL_NAME, EL_UUID, EL_DEVICES, EL_INTERFACE,
	  EL_TARGET, EL_ALIAS };

/*
 * A value being read: decoded text, and whether it was malformed or
 * overflowed (@cut: an overflow only shortens the text).
 */
struct xml_text {
	char *buf;
	size_t len, used;
	bool bad, cut, cuts;
};

struct xml_open {
	enum el el;
	const char *name;	/* in the text, for the end tag's check */
	size_t n;
};

struct xml_reader {
	const char *p, *end;
	struct xml_open stack[XML_TRACKED];
	size_t depth;		/* may exceed XML_TRACKED */
	bool root_seen, domain_seen, name_seen, uuid_seen;
	/* The current <interface>: its first <target dev=> and <alias name=>. */
	char dev[LIBVIRT_NAME_MAX], alias[LIBVIRT_ALIAS_MAX];
	bool dev_set, alias_set;
	struct xml_text name, uuid;	/* <domain><name>, <domain><uuid> */
	struct xml_text *text;		/* one of them while inside it, else NULL */
	bool have_pid, have_name, have_uuid, found;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_name_char(char c)
{
	return c && !is_space(c) && !strchr("<>/=\"'&!?", c);
}

static bool starts(const struct xml_reader *r, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(r->end - r->p) >= n && !memcmp(r->p, s, n);
}

/* Moves past the next @s; false if there is none. */
static bool skip_past(struct xml_reader *r, const char *s)
{
	size_t n = strlen(s);
	const char *f = memmem(r->p, (size_t)(r->end - r->p), s, n);

	if (!f)
		return false;
	r->p = f + n;
	return true;
}

static void skip_space(struct xml_reader *r)
{
	while (r->p < r->end && is_space(*r->p))
		r->p++;
}

static void put_char(struct xml_text *t, char c)
{
	if (t->used + 1 >= t->len) {
		if (t->cuts)
			t->cut = true;
		else
			t->bad = true;
		return;
	}
	t->buf[t->used++] = c;
	t->buf[t->used] = '\0';
}

/* Code point @cp as UTF-8; false if XML does not allow it as a character. */
static bool put_code_point(struct xml_text *t, unsigned long cp)
{
	if (!(cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	      (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)))
		return false;
	if (cp < 0x80) {
		put_char(t, (char)cp);
	} else if (cp < 0x800) {
		put_char(t, (char)(0xc0 | (cp >> 6)));
		put_char(t, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put_char(t, (char)(0xe0 | (cp >> 12)));
		put_char(t, (char)(0x80 | ((cp >> 6) & 0x3f)));
		put_char(t, (char)(0x80 | (cp & 0x3f)));
	} else {
		put_char(t, (char)(0xf0 | (cp >> 18)));
		put_char(t, (char)(0x80 | ((cp >> 12) & 0x3f)));
		put_char(t, (char)(0x80 | ((cp >> 6) & 0x3f)));
		put_char(t, (char)(0x80 | (cp & 0x3f)));
	}
	return true;
}

/* The reference at @s (after its '&', up to @e): decoded into @t, past it in *@next. */
static bool put_reference(struct xml_text *t, const char *s, const char *e, const char **next)
{
	static const struct { const char *name; char c; } named[] = {
		{ "lt;", '<' }, { "gt;", '>' }, { "amp;", '&' }, { "apos;", '\'' }, { "quot;", '"' },
	};
	unsigned long cp = 0;
	bool hex;
	size_t i, digits = 0;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t n = strlen(named[i].name);

		if ((size_t)(e - s) >= n && !memcmp(s, named[i].name, n)) {
			put_char(t, named[i].c);
			*next = s + n;
			return true;
		}
	}
	if (s == e || *s != '#')
		return false;
	s++;
	hex = s < e && *s == 'x';
	if (hex)
		s++;
	for (; s < e && *s != ';'; s++, digits++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (hex && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))
			d = (unsigned int)((*s | 0x20) - 'a' + 10);
		else
			return false;
		if (digits >= 8)
			return false;
		cp = cp * (hex ? 16 : 10) + d;
	}
	if (!digits || s == e || !put_code_point(t, cp))
		return false;
	*next = s + 1;
	return true;
}

/*
 * Text [@s, @e) decoded into @t: references replaced; in an attribute
 * (@attr) a literal tab, newline or CR is a space (XML's normalization).
 * A malformed reference or a '<' marks @t bad.
 */
static void put_text(struct xml_text *t, const char *s, const char *e, bool attr)
{
	while (s < e && !t->bad) {
		if (*s == '&') {
			if (!put_reference(t, s + 1, e, &s))
				t->bad = true;
		} else if (*s == '<') {
			t->bad = true;
		} else {
			put_char(t, attr && is_space(*s) ? ' ' : *s);
			s++;
		}
	}
}

/* What element @name (@n bytes) is, under the elements open in @r. */
static enum el classify(const struct xml_reader *r, const char *name, size_t n)
{
	enum el parent = r->depth && r->depth <= XML_TRACKED ? r->stack[r->depth - 1].el : EL_OTHER;

#define IS(s)	(n == sizeof(s) - 1 && !memcmp(name, s, n))
	if (!r->depth)
		return IS("domstatus") ? EL_DOMSTATUS : EL_OTHER;
	if (parent == EL_DOMSTATUS && IS("domain") && !r->domain_seen)
		return EL_DOMAIN;
	if (parent == EL_DOMAIN && IS("name") && !r->name_seen)
		return EL_NAME;
	if (parent == EL_DOMAIN && IS("uuid") && !r->uuid_seen)
		return EL_UUID;
	if (parent == EL_DOMAIN && IS("devices"))
		return EL_DEVICES;
	if (parent == EL_DEVICES && IS("interface"))
		return EL_INTERFACE;
	if (parent == EL_INTERFACE && IS("target"))
		return EL_TARGET;
	if (parent == EL_INTERFACE && IS("alias"))
		return EL_ALIAS;
#undef IS
	return EL_OTHER;
}

/* A pid in digits, 1 to INT_MAX. */
static bool pid_value(const char *s, pid_t *pid)
{
	long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
	}
	if (!v)
		return false;
	*pid = (pid_t)v;
	return true;
}

/*
 * Whether @s can be a QEMU device id (id_wellformed(): a letter, then
 * letters, digits, '-', '.', '_'): the alias goes into QOM paths and the
 * QMP commands' JSON.
 */
static bool qemu_id(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_'))
			return false;
	return true;
}

/*
 * Whether @s is a UUID as libvirt writes it (virUUIDFormat(): 36
 * characters, 8-4-4-4-12 hex digits).  virsh takes it as a UUID, never
 * as a domain ID (not a number) or an option (no '-' first).
 */
static bool uuid_canonical(const char *s)
{
	size_t i;

	for (i = 0; i < LIBVIRT_UUID_LEN; i++) {
		char c = s[i];

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return false;
		} else if (!((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'))) {
			return false;
		}
	}
	return !s[i];
}

/* A name cut short (display only) ends on a whole UTF-8 character. */
static void trim_partial_utf8(struct xml_text *t)
{
	size_t lead = t->used, want;
	unsigned char c;

	while (lead && ((unsigned char)t->buf[lead - 1] & 0xc0) == 0x80 && t->used - lead < 3)
		lead--;
	if (!lead)
		return;
	c = (unsigned char)t->buf[lead - 1];
	want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	if (want > 1 && t->used - (lead - 1) < want) {
		t->used = lead - 1;
		t->buf[t->used] = '\0';
	}
}

/* Element @el ends (its end tag, or "/>"). */
static void close_element(struct xml_reader *r, enum el el, const char *ifname,
			  struct libvirt_status *st)
{
	if (el == EL_NAME) {
		r->text = NULL;
		r->name_seen = true;
		if (r->name.cut)
			trim_partial_utf8(&r->name);
		r->have_name = !r->name.bad && r->name.used;
	} else if (el == EL_UUID) {
		r->text = NULL;
		r->uuid_seen = true;
		r->have_uuid = !r->uuid.bad && uuid_canonical(st->uuid);
	} else if (el == EL_INTERFACE) {
		if (!r->found && r->dev_set && r->alias_set && !strcmp(r->dev, ifname) &&
		    qemu_id(r->alias)) {
			memcpy(st->alias, r->alias, sizeof(st->alias));
			r->found = true;
		}
	} else if (el == EL_DOMAIN) {
		r->domain_seen = true;
	}
}

/* One attribute's value, quoted, at r->p: into @t if given; false if malformed. */
static bool attr_value(struct xml_reader *r, struct xml_text *t)
{
	const char *q, *v;
	char quote;

	if (r->p >= r->end || (*r->p != '\'' && *r->p != '"'))
		return false;
	quote = *r->p;
	v = r->p + 1;
	q = memchr(v, quote, (size_t)(r->end - v));
	if (!q || memchr(v, '<', (size_t)(q - v)))
		return false;
	if (t)
		put_text(t, v, q, true);
	r->p = q + 1;
	return true;
}

/* A start tag, after its '<': its attributes read as @el needs; false if malformed. */
static bool start_tag(struct xml_reader *r, const char *ifname, struct libvirt_status *st)
{
	const char *name = r->p;
	enum el el;
	size_t n;
	bool empty = false;

	while (r->p < r->end && is_name_char(*r->p))
		r->p++;
	n = (size_t)(r->p - name);
	if (!n)
		return false;
	if (!r->depth && r->root_seen)
		return false;	/* a second root */
	el = classify(r, name, n);
	if (!r->depth && el != EL_DOMSTATUS)
		return false;
	r->root_seen = true;
	if (r->text)
		r->text->bad = true;	/* markup inside <name> or <uuid>: not libvirt's */
	if (el == EL_INTERFACE) {
		r->dev_set = r->alias_set = false;
	} else if (el == EL_NAME) {
		/* A longer name is cut for display: the UUID names the domain. */
		r->name = (struct xml_text){ .buf = st->name, .len = sizeof(st->name), .cuts = true };
		r->text = &r->name;
		st->name[0] = '\0';
	} else if (el == EL_UUID) {
		r->uuid = (struct xml_text){ .buf = st->uuid, .len = sizeof(st->uuid) };
		r->text = &r->uuid;
		st->uuid[0] = '\0';
	}
	for (;;) {
		const char *an;
		size_t alen;
		char pidbuf[16];
		struct xml_text t;
		bool had_space = r->p < r->end && is_space(*r->p);

		skip_space(r);
		if (r->p >= r->end)
			return false;
		if (*r->p == '>') {
			r->p++;
			break;
		}
		if (*r->p == '/') {
			if (r->p + 1 >= r->end || r->p[1] != '>')
				return false;
			r->p += 2;
			empty = true;
			break;
		}
		if (!had_space)
			return false;
		an = r->p;
		while (r->p < r->end && is_name_char(*r->p))
			r->p++;
		alen = (size_t)(r->p - an);
		skip_space(r);
		if (!alen || r->p >= r->end || *r->p != '=')
			return false;
		r->p++;
		skip_space(r);
#define ATTR_IS(s)	(alen == sizeof(s) - 1 && !memcmp(an, s, alen))
		if (el == EL_DOMSTATUS && ATTR_IS("pid") && !r->have_pid) {
			t = (struct xml_text){ .buf = pidbuf, .len = sizeof(pidbuf) };
			pidbuf[0] = '\0';
			if (!attr_value(r, &t))
				return false;
			r->have_pid = !t.bad && pid_value(pidbuf, &st->pid);
		} else if (el == EL_TARGET && ATTR_IS("dev") && !r->dev_set) {
			t = (struct xml_text){ .buf = r->dev, .len = sizeof(r->dev) };
			r->dev[0] = '\0';
			if (!attr_value(r, &t))
				return false;
			r->dev_set = !t.bad;
		} else if (el == EL_ALIAS && ATTR_IS("name") && !r->alias_set) {
			t = (struct xml_text){ .buf = r->alias, .len = sizeof(r->alias) };
			r->alias[0] = '\0';
			if (!attr_value(r, &t))
				return false;
			r->alias_set = !t.bad && r->alias[0];
		} else if (!attr_value(r, NULL)) {
			return false;
		}
#undef ATTR_IS
	}
	if (empty) {
		close_element(r, el, ifname, st);
		return true;
	}
	if (r->depth < XML_TRACKED)
		r->stack[r->depth] = (struct xml_open){ .el = el, .name = name, .n = n };
	r->depth++;
	return true;
}

/*
 * An end tag, after its "</": it must name the element it closes (checked
 * for the tracked levels; a deeper one only closes a level, all EL_OTHER).
 */
static bool end_tag(struct xml_reader *r, const char *ifname, struct libvirt_status *st)
{
	const char *name = r->p;
	enum el el = EL_OTHER;
	size_t n;

	while (r->p < r->end && is_name_char(*r->p))
		r->p++;
	n = (size_t)(r->p - name);
	if (!n)
		return false;
	skip_space(r);
	if (r->p >= r->end || *r->p != '>' || !r->depth)
		return false;
	r->p++;
	if (r->depth <= XML_TRACKED) {
		const struct xml_open *o = &r->stack[r->depth - 1];

		if (o->n != n || memcmp(o->name, name, n))
			return false;
		el = o->el;
	}
	r->depth--;
	close_element(r, el, ifname, st);
	return true;
}

/* Markup at r->p, a '<': comment, CDATA, processing instruction, declaration or tag. */
static bool markup(struct xml_reader *r, const char *ifname, struct libvirt_status *st)
{
	if (starts(r, "<!--"))
		return skip_past(r, "-->");
	if (starts(r, "<![CDATA[")) {
		const char *s = r->p + 9;

		r->p = s;
		if (!r->depth || !skip_past(r, "]]>"))
			return false;
		if (r->text)
			while (s < r->p - 3 && !r->text->bad)
				put_char(r->text, *s++);
		return true;
	}
	if (starts(r, "<?"))
		return skip_past(r, "?>");
	if (starts(r, "<!")) {
		/* <!DOCTYPE ...>, before the root only; no internal subset. */
		const char *s = r->p;

		if (r->root_seen || !skip_past(r, ">"))
			return false;
		return !memchr(s, '[', (size_t)(r->p - s));
	}
	if (starts(r, "</")) {
		r->p += 2;
		return end_tag(r, ifname, st);
	}
	r->p++;
	return start_tag(r, ifname, st);
}

bool libvirt_status_find(const char *xml, size_t len, const char *ifname,
			 struct libvirt_status *st)
{
	struct xml_reader *r, reader = { .p = xml, .end = xml + len };

	r = &reader;
	memset(st, 0, sizeof(*st));
	while (r->p < r->end) {
		const char *lt, *e;

		if (*r->p == '<') {
			if (!markup(r, ifname, st))
				goto malformed;
			continue;
		}
		lt = memchr(r->p, '<', (size_t)(r->end - r->p));
		e = lt ? lt : r->end;
		if (!r->depth) {
			/* Outside the root: white space only. */
			for (; r->p < e; r->p++)
				if (!is_space(*r->p))
					goto malformed;
			continue;
		}
		if (r->text)
			put_text(r->text, r->p, e, false);
		r->p = e;
	}
	if (r->root_seen && !r->depth && r->have_pid && r->have_name && r->have_uuid &&
	    r->found)
		return true;
malformed:
	memset(st, 0, sizeof(*st));
	return false;
}
