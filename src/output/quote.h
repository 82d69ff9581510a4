/* Quoting of file names for messages and -v lines. */
#ifndef SMARTCP_QUOTE_H
#define SMARTCP_QUOTE_H

/* Returns NAME quoted for a shell, as GNU cp 9.1 quotes names in its
 * messages (quoteaf()): 'plain', "it's", or 'a'$'\n''b' for control bytes
 * and bytes that are not printable in the current locale.  The result
 * lives in one of four rotating per-thread buffers, so up to four quotes
 * can appear in one message; the fifth call reuses the first buffer.
 * A name of any length comes back whole; only when memory for a long one
 * runs out is it truncated with "...".  Never fails, and leaves errno as
 * it was, so msg(errno, ..., sc_quote(name)) reports the caller's errno
 * whichever argument is evaluated first. */
const char *sc_quote(const char *name);

/* NAME as it is when it needs no quoting for a shell, else sc_quote(NAME):
 * GNU's quotef(), for messages that start with a file name.  Leaves errno
 * as it was. */
const char *sc_quote_plain(const char *name);

/* Same as sc_quote, into a caller buffer of SIZE bytes, truncated with
 * "..." when it does not fit (empty when SIZE < 8); returns BUF.  Leaves
 * errno as it was. */
char *sc_quote_buf(const char *name, char *buf, size_t size);

/* NAME quoted as GNU's quote() does, for the few messages where cp uses
 * it (option arguments; "preserving permissions for", "setting
 * permissions for" from its ACL code): ‘name’ in a UTF-8 locale, the
 * catalog's marks where it has them ("`", "'"), else 'name'; C escapes
 * (\n, \\, \ooo) for what the locale cannot print.  In this thread's
 * rotating slots, shared with sc_quote; "" if out of memory. */
const char *sc_quote_locale(const char *name);

#endif
