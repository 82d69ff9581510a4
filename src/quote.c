/* Shell-escape quoting of file names, in the form GNU tools use, so that a
 * name in a message can be pasted back into a shell. */
#include "system.h"
#include "quote.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

struct out {
	char *p, *end;
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full)
		return;
	if ((size_t)(o->end - o->p) < n + 4) {	/* room for "..." and NUL */
		memcpy(o->p, "...", 3);
		o->p += 3;
		o->full = true;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Length of the printable character at S (1 for ASCII), 0 when the bytes
 * there are a control byte or do not form a printable character. */
static size_t printable_len(const char *s, size_t left)
{
	unsigned char c = (unsigned char)*s;
	mbstate_t st;
	wchar_t wc;
	size_t n;

	if (c < 0x80)
		return (c >= 0x20 && c < 0x7f) ? 1 : 0;
	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, left, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
		return 0;
	return iswprint((wint_t)wc) ? n : 0;
}

static void put_escape(struct out *o, unsigned char c)
{
	char tmp[8];

	switch (c) {
	case '\a': puts_(o, "\\a"); return;
	case '\b': puts_(o, "\\b"); return;
	case '\f': puts_(o, "\\f"); return;
	case '\n': puts_(o, "\\n"); return;
	case '\r': puts_(o, "\\r"); return;
	case '\t': puts_(o, "\\t"); return;
	case '\v': puts_(o, "\\v"); return;
	}
	snprintf(tmp, sizeof(tmp), "\\%03o", c);
	puts_(o, tmp);
}

char *sc_quote_buf(const char *name, char *buf, size_t size)
{
	if (size < 8) {		/* no room for a quoted anything */
		if (size)
			buf[0] = '\0';
		return buf;
	}
	struct out o = { buf, buf + size, false };
	size_t len = strlen(name), i, n;
	bool has_single = false, has_unprintable = false, dq_unsafe = false;

	for (i = 0; i < len; i += n ? n : 1) {
		n = printable_len(name + i, len - i);
		if (!n)
			has_unprintable = true;
		else if (name[i] == '\'')
			has_single = true;
		else if (strchr("$`\"\\!", name[i]))
			dq_unsafe = true;
	}

	if (!has_unprintable && has_single && !dq_unsafe) {
		/* "it's" reads better than 'it'\''s' */
		puts_(&o, "\"");
		put(&o, name, len);
		puts_(&o, "\"");
		*o.p = '\0';
		return buf;
	}

	/* Always quote, like quoteaf(): 'name' even when plain. */
	bool in_quote = false, in_dollar = false;
	for (i = 0; i < len; i += n) {
		n = printable_len(name + i, len - i);
		if (n && name[i] != '\'') {
			if (in_dollar) {
				puts_(&o, "'");
				in_dollar = false;
			}
			if (!in_quote) {
				puts_(&o, "'");
				in_quote = true;
			}
			put(&o, name + i, n);
			continue;
		}
		if (in_quote) {
			puts_(&o, "'");
			in_quote = false;
		}
		if (n) {		/* a single quote */
			if (in_dollar) {
				puts_(&o, "'");
				in_dollar = false;
			}
			puts_(&o, "\\'");
			continue;
		}
		if (!in_dollar) {
			puts_(&o, "$'");
			in_dollar = true;
		}
		put_escape(&o, (unsigned char)name[i]);
		n = 1;
	}
	if (in_quote || in_dollar)
		puts_(&o, "'");
	if (len == 0)
		puts_(&o, "''");
	*o.p = '\0';
	return buf;
}

const char *sc_quote(const char *name)
{
	/* per thread: -j workers quote names in their messages too */
	static __thread char bufs[4][4096 + 64];
	static __thread unsigned next;
	char *b = bufs[next++ % ARRAY_SIZE(bufs)];

	return sc_quote_buf(name, b, sizeof(bufs[0]));
}

const char *sc_quote_plain(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("+-./:@_,%=", *p)))
			return sc_quote(name);
	return *name ? name : sc_quote(name);
}
