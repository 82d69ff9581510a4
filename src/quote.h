/* Quoting of file names for messages and -v lines. */
#ifndef SMARTCP_QUOTE_H
#define SMARTCP_QUOTE_H

/* Returns NAME quoted for a shell, as GNU cp quotes names in its messages:
 * 'plain', "it's", or 'a'$'\n''b' for control bytes and bytes that are not
 * printable in the current locale.  The result lives in one of a few
 * rotating per-thread buffers, so up to four quotes can appear in one
 * message.
 * Never fails: a name too long for the buffer is truncated with "...". */
const char *sc_quote(const char *name);

/* NAME as it is when it needs no quoting for a shell, else sc_quote(NAME):
 * GNU's quotef(), for messages that start with a file name. */
const char *sc_quote_plain(const char *name);

/* Same, into a caller buffer of SIZE bytes; returns BUF. */
char *sc_quote_buf(const char *name, char *buf, size_t size);

#endif
