/* Shared by the fuzz targets: independent checkers for what sc_quote and
 * sc_json_string produce.  Each checker decodes the output with its own
 * small parser and compares it with the original bytes; any violation
 * aborts, so libFuzzer records the input as a crash. */
#ifndef SMARTCP_FUZZ_COMMON_H
#define SMARTCP_FUZZ_COMMON_H

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/quote.h"
#include "output/report.h"

/* Failures go to the sanitizers' report descriptor when one was set (the
 * args target silences fd 2 while smartcp code runs), else to stderr. */
static int fz_report_fd = 2;

#define FZ_FAIL(...) fz_fail(__FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 3, 4), noreturn))
static void fz_fail(const char *file, int line, const char *fmt, ...);

#include <stdarg.h>
#include <unistd.h>

static void fz_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[1024];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg), "fuzz check failed at %s:%d: ",
		     file, line);
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 2)
		n = (int)sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(fz_report_fd, msg, (size_t)n) < 0) {
		/* nothing better to do */
	}
	abort();
}

/* ---- UTF-8 -------------------------------------------------------- */

/* Length of the strictly valid UTF-8 sequence at S (at most LEFT bytes),
 * with its code point in *CP; 0 when invalid.  Written independently of
 * report.c's utf8_len so the two can disagree. */
static size_t fz_utf8(const unsigned char *s, size_t left, uint32_t *cp)
{
	uint32_t c, min;
	size_t n;

	if (!left)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		n = 2, c &= 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, c &= 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static size_t fz_put_utf8(unsigned char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | (cp >> 6));
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | (cp >> 12));
		out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | (cp >> 18));
	out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* ---- JSON --------------------------------------------------------- */

static int fz_hex4(const unsigned char *p, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* Validates J (N bytes) as one JSON string token (RFC 8259) that is also
 * valid UTF-8, and decodes it with Python's surrogateescape rules
 * (U+DC80..U+DCFF -> bytes 0x80..0xFF).  OUT needs N bytes.  Returns the
 * decoded length, or -1 with *WHY set. */
static long fz_json_decode(const unsigned char *j, size_t n,
			   unsigned char *out, const char **why)
{
	size_t i = 1, o = 0;

	if (n < 2 || j[0] != '"' || j[n - 1] != '"') {
		*why = "not enclosed in double quotes";
		return -1;
	}
	while (i < n - 1) {
		unsigned char c = j[i];
		uint32_t cp, lo;
		size_t k;

		if (c == '"') {
			*why = "unescaped '\"' inside the string";
			return -1;
		}
		if (c < 0x20) {
			*why = "raw control byte";
			return -1;
		}
		if (c >= 0x80) {
			k = fz_utf8(j + i, n - 1 - i, &cp);
			if (!k) {
				*why = "invalid UTF-8 in the output";
				return -1;
			}
			memcpy(out + o, j + i, k);
			o += k;
			i += k;
			continue;
		}
		if (c != '\\') {
			out[o++] = c;
			i++;
			continue;
		}
		if (i + 1 >= n - 1) {
			*why = "backslash at the end";
			return -1;
		}
		c = j[i + 1];
		i += 2;
		switch (c) {
		case '"': out[o++] = '"'; continue;
		case '\\': out[o++] = '\\'; continue;
		case '/': out[o++] = '/'; continue;
		case 'b': out[o++] = '\b'; continue;
		case 'f': out[o++] = '\f'; continue;
		case 'n': out[o++] = '\n'; continue;
		case 'r': out[o++] = '\r'; continue;
		case 't': out[o++] = '\t'; continue;
		case 'u': break;
		default:
			*why = "illegal escape";
			return -1;
		}
		if (i + 4 > n - 1 || fz_hex4(j + i, &cp)) {
			*why = "bad \\u escape";
			return -1;
		}
		i += 4;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			/* a pair is legal JSON; smartcp never needs one */
			if (i + 6 > n - 1 || j[i] != '\\' || j[i + 1] != 'u' ||
			    fz_hex4(j + i + 2, &lo) || lo < 0xdc00 ||
			    lo > 0xdfff) {
				*why = "lone high surrogate";
				return -1;
			}
			i += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			if (cp < 0xdc80) {
				*why = "low surrogate outside surrogateescape's range";
				return -1;
			}
			out[o++] = (unsigned char)(cp & 0xff);
			continue;
		}
		if (cp == 0) {
			*why = "\\u0000 (file names hold no NUL)";
			return -1;
		}
		o += fz_put_utf8(out + o, cp);
	}
	return (long)o;
}

/* sc_json_string(NAME) must be a valid JSON string that decodes back to
 * exactly NAME. */
static void fz_check_json(const char *name)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	unsigned char *dec;
	const char *why = NULL;
	long n;

	if (!f)
		abort();
	sc_json_string(f, name);
	if (fclose(f) != 0 || !buf)
		abort();
	if (strlen(buf) != size)
		FZ_FAIL("sc_json_string wrote a NUL byte");
	dec = malloc(size + 1);
	if (!dec)
		abort();
	n = fz_json_decode((const unsigned char *)buf, size, dec, &why);
	if (n < 0)
		FZ_FAIL("sc_json_string output is not a valid JSON string: "
			"%s (%zu bytes)", why, size);
	if ((size_t)n != strlen(name) || memcmp(dec, name, (size_t)n) != 0)
		FZ_FAIL("sc_json_string does not round-trip (%ld decoded "
			"bytes, %zu original)", n, strlen(name));
	free(dec);
	free(buf);
}

/* ---- shell quoting ------------------------------------------------ */

/* Decodes Q as bash would read the words sc_quote produces: '...',
 * "..." (only when nothing in it is special), \' and $'...' with the
 * escapes \a \b \f \n \r \t \v \NNN.  OUT needs strlen(Q) + 1 bytes.
 * Returns the length, or -1 with *WHY set. */
static long fz_shell_decode(const char *q, unsigned char *out,
			    const char **why)
{
	const unsigned char *p = (const unsigned char *)q;
	size_t o = 0;

	if (!*p) {
		*why = "empty output (an empty name must give '')";
		return -1;
	}
	while (*p) {
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				out[o++] = *p;
			if (!*p) {
				*why = "unterminated '...'";
				return -1;
			}
			p++;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (strchr("$`\\!", *p)) {
					*why = "shell-special byte inside \"...\"";
					return -1;
				}
				out[o++] = *p;
			}
			if (!*p) {
				*why = "unterminated \"...\"";
				return -1;
			}
			p++;
		} else if (p[0] == '\\' && p[1] == '\'') {
			out[o++] = '\'';
			p += 2;
		} else if (p[0] == '$' && p[1] == '\'') {
			for (p += 2; *p && *p != '\''; ) {
				unsigned v = 0;
				int d;

				if (*p != '\\') {
					out[o++] = *p++;
					continue;
				}
				p++;
				switch (*p) {
				case 'a': out[o++] = '\a'; p++; continue;
				case 'b': out[o++] = '\b'; p++; continue;
				case 'f': out[o++] = '\f'; p++; continue;
				case 'n': out[o++] = '\n'; p++; continue;
				case 'r': out[o++] = '\r'; p++; continue;
				case 't': out[o++] = '\t'; p++; continue;
				case 'v': out[o++] = '\v'; p++; continue;
				}
				for (d = 0; d < 3 && *p >= '0' && *p <= '7';
				     d++, p++)
					v = v * 8 + (unsigned)(*p - '0');
				if (d == 0 || v == 0 || v > 0xff) {
					*why = "bad escape inside $'...'";
					return -1;
				}
				out[o++] = (unsigned char)v;
			}
			if (!*p) {
				*why = "unterminated $'...'";
				return -1;
			}
			p++;
		} else {
			*why = "unquoted byte";
			return -1;
		}
	}
	return (long)o;
}

/* No raw control bytes; in a UTF-8 locale valid UTF-8 without C1
 * controls; in the C locale printable ASCII only. */
static void fz_check_quote_bytes(const char *q, bool utf8)
{
	const unsigned char *p = (const unsigned char *)q;
	size_t len = strlen(q);

	for (size_t i = 0; i < len; ) {
		uint32_t cp;
		size_t k;

		if (p[i] < 0x20 || p[i] == 0x7f)
			FZ_FAIL("sc_quote output has raw control byte 0x%02x "
				"at %zu", p[i], i);
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (!utf8)
			FZ_FAIL("sc_quote output has raw byte 0x%02x in the C "
				"locale", p[i]);
		k = fz_utf8(p + i, len - i, &cp);
		if (!k)
			FZ_FAIL("sc_quote output is not valid UTF-8 at %zu", i);
		if (cp >= 0x80 && cp < 0xa0)
			FZ_FAIL("sc_quote output has raw C1 control U+%04X",
				(unsigned)cp);
		i += k;
	}
}

/* sc_quote_plain (GNU's quotef) is newer than the rest: weak, so the
 * targets still link against a tree without it. */
const char *sc_quote_plain(const char *name);
#pragma weak sc_quote_plain

/* sc_quote_plain(NAME) is NAME itself when that needs no quoting, else
 * what sc_quote gives.  FULL is the untruncated sc_quote_buf result. */
static void fz_check_quote_plain(const char *name, const char *full,
				 bool utf8)
{
	const char *q;

	if (!sc_quote_plain)
		return;
	q = sc_quote_plain(name);
	if (q == name) {
		if (!*name)
			FZ_FAIL("sc_quote_plain left an empty name unquoted");
		for (const char *p = name; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789+-./:@_,%=", *p))
				FZ_FAIL("sc_quote_plain left byte 0x%02x "
					"unquoted", (unsigned char)*p);
		return;
	}
	fz_check_quote_bytes(q, utf8);
	if (strcmp(q, full) != 0) {
		size_t qlen = strlen(q);

		if (qlen < 3 || strcmp(q + qlen - 3, "...") != 0 ||
		    strncmp(q, full, qlen - 3) != 0)
			FZ_FAIL("sc_quote_plain is neither NAME nor its quote");
	}
}

/* sc_quote_buf into a buffer large enough for anything must round-trip;
 * sc_quote and small sc_quote_buf buffers must give a prefix of that,
 * ending in "...", NUL-terminated inside the buffer.  SMALL is a size to
 * try with an exactly sized heap buffer (ASan watches its end). */
static void fz_check_quote(const char *name, bool utf8, size_t small)
{
	size_t len = strlen(name), big = 8 * len + 16, flen, qlen;
	char *full = malloc(big), *sb;
	unsigned char *dec = malloc(big);
	const char *q, *why = NULL;
	long n;

	if (!full || !dec)
		abort();
	if (sc_quote_buf(name, full, big) != full)
		FZ_FAIL("sc_quote_buf did not return its buffer");
	flen = strnlen(full, big);
	if (flen == big)
		FZ_FAIL("sc_quote_buf left its buffer unterminated");
	if (flen + 4 >= big)
		FZ_FAIL("sc_quote_buf needed more than 8 bytes per input byte");
	fz_check_quote_bytes(full, utf8);
	n = fz_shell_decode(full, dec, &why);
	if (n < 0)
		FZ_FAIL("sc_quote output is not shell-quoted: %s", why);
	if ((size_t)n != len || memcmp(dec, name, len) != 0)
		FZ_FAIL("sc_quote does not round-trip through the shell "
			"(%ld decoded bytes, %zu original)", n, len);

	/* the rotating per-thread buffers: whole names of any length
	 * (only running out of memory truncates, with "...") */
	q = sc_quote(name);
	qlen = strlen(q);
	fz_check_quote_bytes(q, utf8);
	if (strcmp(q, full) != 0)
		FZ_FAIL("sc_quote differs from sc_quote_buf "
			"(%zu bytes against %zu)", qlen, flen);

	fz_check_quote_plain(name, full, utf8);

	/* an exactly sized small buffer */
	sb = malloc(small ? small : 1);
	if (!sb)
		abort();
	if (sc_quote_buf(name, sb, small) != sb)
		FZ_FAIL("sc_quote_buf did not return its buffer");
	if (small) {
		qlen = strnlen(sb, small);
		if (qlen == small)
			FZ_FAIL("sc_quote_buf(size %zu) left no NUL", small);
		fz_check_quote_bytes(sb, utf8);
		if (small < 8 && qlen != 0)
			FZ_FAIL("sc_quote_buf(size %zu) wrote a quote", small);
		if (small >= 8 && strcmp(sb, full) != 0 &&
		    (qlen < 3 || strcmp(sb + qlen - 3, "...") != 0 ||
		     strncmp(sb, full, qlen - 3) != 0))
			FZ_FAIL("sc_quote_buf(size %zu) is not a truncation "
				"of the full quote", small);
		if (small >= 8 && flen + 4 <= small && strcmp(sb, full) != 0)
			FZ_FAIL("sc_quote_buf(size %zu) truncated a quote "
				"that fits", small);
	}
	free(sb);
	free(dec);
	free(full);
}

/* Both locales the quoting depends on, switched per thread. */
static locale_t fz_loc_c, fz_loc_utf8;

static void fz_locales_init(void)
{
	fz_loc_c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	fz_loc_utf8 = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
	if (!fz_loc_utf8)
		fz_loc_utf8 = newlocale(LC_ALL_MASK, "C.utf8", (locale_t)0);
	if (!fz_loc_c || !fz_loc_utf8) {
		fprintf(stderr, "fuzz: cannot create the C and C.UTF-8 locales\n");
		exit(2);
	}
}

/* Every check for one string, in both locales. */
static inline void fz_check_string(const char *s, size_t small)
{
	locale_t old = uselocale(fz_loc_c);

	fz_check_quote(s, false, small);
	uselocale(fz_loc_utf8);
	fz_check_quote(s, true, small);
	uselocale(old);
	fz_check_json(s);
}

#endif
