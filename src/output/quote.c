/* Shell-escape quoting of file names, in the form GNU tools use, so that a
 * name in a message can be pasted back into a shell.
 *
 * The rules are those of gnulib's quotearg() with
 * shell_escape_always_quoting_style, as in GNU cp 9.1 (quoteaf()), checked
 * byte for byte against /bin/cp (tests/integration/t-cp-compat-names.sh).
 *
 * Every exported function keeps errno as it found it: callers write
 * msg(errno, "...%s", sc_quote(name)), and C leaves the order in which
 * those arguments are evaluated open, while mbrtowc() and malloc() set
 * errno (EILSEQ, ENOMEM) as they go. */
#include "system.h"
#include "output/quote.h"

#include <ctype.h>
#include <langinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <wctype.h>

struct out {
	char *p, *end;
	size_t need;		/* length of the whole quote, NUL excluded */
	bool full;
};

/* Appends N bytes of S, or "..." and nothing more once the rest would not
 * fit with room for "..." and the NUL.  Counts what it would have written
 * either way, so a caller learns the size a whole quote takes. */
static void put(struct out *o, const char *s, size_t n)
{
	o->need += n;
	if (o->full)
		return;
	if ((size_t)(o->end - o->p) < n + 4) {
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

/* The character at S (LEFT bytes to the NUL): returns its length in bytes
 * and sets *PRINTABLE.  Bytes that do not form a character are one
 * unprintable byte each, except an incomplete sequence at the end of the
 * name, which is one unprintable run to the end (gnulib treats both
 * alike, and both come out as octal escapes). */
static size_t char_len(const char *s, size_t left, bool *printable)
{
	unsigned char c = (unsigned char)*s;
	mbstate_t st;
	wchar_t wc;
	size_t n;

	if (c < 0x80) {
		*printable = c >= 0x20 && c < 0x7f;
		return 1;
	}
	if (MB_CUR_MAX == 1) {
		*printable = isprint(c) != 0;
		return 1;
	}
	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, left, &st);
	if (n == (size_t)-2) {
		*printable = false;
		return left;
	}
	if (n == (size_t)-1 || n == 0) {
		*printable = false;
		return 1;
	}
	*printable = iswprint((wint_t)wc) != 0;
	return n;
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

/* Whether the printable character at NAME + I (of LEN bytes) may stand in
 * "double quotes" unescaped, in gnulib's judgement: letters, digits,
 * % + , - . / : ] _ @ space ', # and ~ at the start only, and printable
 * characters beyond ASCII. */
static bool dq_ok(const char *name, size_t i, size_t len)
{
	unsigned char c = (unsigned char)name[i];

	if (len > 1 || c >= 0x80)
		return true;
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	if (c == '#' || c == '~')
		return i == 0;
	return strchr("%+,-./:]_@ '", c) != NULL;
}

/* Writes the quote of NAME into O and a NUL after it. */
static void quote(const char *name, struct out *o)
{
	size_t len = strlen(name), i, n;
	bool printable, has_single = false, dq = true, ends_escaped = false;
	bool in_dollar = false;

	for (i = 0; i < len; i += n) {
		n = char_len(name + i, len - i, &printable);
		if (name[i] == '\'')
			has_single = true;
		if (!printable || !dq_ok(name, i, n))
			dq = false;
		ends_escaped = !printable;
	}

	if (has_single && dq) {
		/* "it's" reads better than 'it'\''s' */
		puts_(o, "\"");
		put(o, name, len);
		puts_(o, "\"");
		*o->p = '\0';
		return;
	}

	puts_(o, "'");
	/* GNU cp 9.1 quirk, followed so that messages compare equal: gnulib
	 * quotes a name holding a single quote twice (a dry run to pick
	 * between '' and ""), and the second run starts in the $'...' state
	 * the first one ended in.  When the name ends in an escape, a
	 * printable first character is preceded by a stray '' ('''a'\'''$'\n'
	 * for a'<newline>): harmless, the shell reads it as nothing.  An
	 * unprintable first character is where gnulib goes wrong ('\001'...,
	 * which does not read back as the name); there it is quoted as in
	 * any other name, $'\001'. */
	if (has_single && ends_escaped) {
		n = char_len(name, len, &printable);
		if (printable && name[0] != '\'')
			puts_(o, "''");
	}
	for (i = 0; i < len; i += n) {
		n = char_len(name + i, len - i, &printable);
		if (name[i] == '\'') {
			/* closes '...' or $'...', and opens '...' again */
			puts_(o, "'\\''");
			in_dollar = false;
		} else if (printable) {
			if (in_dollar) {
				puts_(o, "''");
				in_dollar = false;
			}
			put(o, name + i, n);
		} else {
			if (!in_dollar) {
				puts_(o, "'$'");
				in_dollar = true;
			}
			for (size_t k = 0; k < n; k++)
				put_escape(o, (unsigned char)name[i + k]);
		}
	}
	puts_(o, "'");
	*o->p = '\0';
}

char *sc_quote_buf(const char *name, char *buf, size_t size)
{
	int saved = errno;

	if (size < 8) {		/* no room for a quoted anything */
		if (size)
			buf[0] = '\0';
		return buf;
	}
	struct out o = { buf, buf + size, 0, false };

	quote(name, &o);
	errno = saved;
	return buf;
}

/* Four slots per thread, so that up to four quotes can appear in one
 * message.  A slot is a fixed buffer for the common short name, and a heap
 * buffer grown for a longer one; -j workers quote names in their messages
 * too, hence per thread. */
#define NSLOTS 4
#define FIXED_SIZE (4096 + 64)

struct heap_slots {
	char *buf[NSLOTS];
	size_t size[NSLOTS];
};

static pthread_key_t heap_key;
static bool heap_key_ok;
static pthread_once_t heap_once = PTHREAD_ONCE_INIT;

/* A worker thread's long-name buffers go when the thread ends; the main
 * thread's stay reachable from its thread-specific data until exit. */
static void heap_free(void *p)
{
	struct heap_slots *h = p;

	for (size_t k = 0; k < NSLOTS; k++)
		free(h->buf[k]);
	free(h);
}

static void heap_init(void)
{
	heap_key_ok = pthread_key_create(&heap_key, heap_free) == 0;
}

/* Heap buffer of slot K for this thread, at least SIZE bytes; NULL when
 * memory is short. */
static char *heap_buf(unsigned k, size_t size)
{
	struct heap_slots *h;

	pthread_once(&heap_once, heap_init);
	if (!heap_key_ok)
		return NULL;
	h = pthread_getspecific(heap_key);
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return NULL;
		if (pthread_setspecific(heap_key, h) != 0) {
			free(h);
			return NULL;
		}
	}
	if (h->size[k] < size) {
		/* nothing to keep: free first rather than realloc() */
		free(h->buf[k]);
		h->buf[k] = malloc(size);
		h->size[k] = h->buf[k] ? size : 0;
	}
	return h->buf[k];
}

/* The next of this thread's slots, for sc_quote and sc_quote_locale. */
static __thread unsigned next_slot;

const char *sc_quote(const char *name)
{
	static __thread char fixed[NSLOTS][FIXED_SIZE];
	int saved = errno;
	unsigned k = next_slot++ % NSLOTS;
	struct out o = { fixed[k], fixed[k] + FIXED_SIZE, 0, false };
	char *h;

	quote(name, &o);
	if (o.full) {
		/* put() keeps 4 bytes spare after each piece */
		h = o.need < SIZE_MAX - 4 ? heap_buf(k, o.need + 4) : NULL;
		if (h) {
			o = (struct out){ h, h + o.need + 4, 0, false };
			quote(name, &o);
			errno = saved;
			return h;
		}
		/* out of memory: the truncated quote is better than none */
	}
	errno = saved;
	return fixed[k];
}

const char *sc_quote_plain(const char *name)
{
	int saved = errno;
	const char *p, *q = name;

	/* '=' is special to a shell in assignments; quotef() quotes it */
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("+-./:@_,%", *p))) {
			q = sc_quote(name);
			break;
		}
	if (!*name)
		q = sc_quote(name);
	errno = saved;
	return q;
}

/* A quotation mark for option arguments in messages, as cp's: the
 * catalog's translation of MSGID ("`" opening, "'" closing; German has
 * „ “), else ‘ ’ in a UTF-8 locale and ' ' in others. */
static const char *quote_mark(const char *msgid)
{
	const char *t = _(msgid);
	const char *charset = nl_langinfo(CODESET);
	bool opening = *msgid == '`';

	if (t != msgid)
		return t;
	if (!strcasecmp(charset, "UTF-8"))
		return opening ? "\xe2\x80\x98" : "\xe2\x80\x99";
	return "'";
}

/* Quotes an option argument, or an option name, for a usage message the
 * way cp does there: between quote_mark()s, with C escapes (\n, \\,
 * \ooo) for what the locale cannot print and a backslash before a
 * closing mark inside.  (See quote.h.) */
const char *sc_quote_locale(const char *s)
{
	static const char esc_in[] = "\a\b\f\n\r\t\v\\", esc_out[] = "abfnrtv\\";
	const char *lq = quote_mark(N_("`")), *rq = quote_mark(N_("'"));
	size_t n = strlen(s), rlen = strlen(rq);
	int saved = errno;
	mbstate_t st;
	char *buf, *o;

	/* at worst each byte becomes \ooo */
	buf = heap_buf(next_slot++ % NSLOTS, strlen(lq) + 4 * n + rlen + 1);
	if (!buf) {
		errno = saved;
		return "";
	}
	memset(&st, 0, sizeof(st));
	o = stpcpy(buf, lq);
	for (size_t i = 0, k; i < n; i += k) {
		unsigned char c = s[i];
		const char *e = strchr(esc_in, c);
		bool printable;
		wchar_t wc;

		k = 1;
		if (rlen && !strncmp(s + i, rq, rlen)) {
			*o++ = '\\';
			o = mempcpy(o, rq, rlen);
			k = rlen;
			continue;
		}
		if (e) {
			*o++ = '\\';
			*o++ = esc_out[e - esc_in];
			continue;
		}
		if (MB_CUR_MAX == 1) {
			printable = isprint(c);
		} else {
			k = mbrtowc(&wc, s + i, n - i, &st);
			printable = k != (size_t)-1 && k != (size_t)-2 &&
				    iswprint(wc);
			if (k == (size_t)-1 || k == (size_t)-2) {
				memset(&st, 0, sizeof(st));
				k = 1;	/* the next byte starts afresh */
			}
		}
		if (printable) {
			o = mempcpy(o, s + i, k);
			continue;
		}
		for (size_t j = i; j < i + k; j++) {
			c = s[j];
			*o++ = '\\';
			*o++ = '0' + (c >> 6);
			*o++ = '0' + ((c >> 3) & 7);
			*o++ = '0' + (c & 7);
		}
	}
	strcpy(o, rq);
	errno = saved;
	return buf;
}
