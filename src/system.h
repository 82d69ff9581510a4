/* Shared helpers: gettext macros, cleanup attributes, small utilities. */
#ifndef SMARTCP_SYSTEM_H
#define SMARTCP_SYSTEM_H

#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef ENABLE_NLS
# include <libintl.h>
# define _(s) gettext(s)
#else
# define _(s) (s)
# define ngettext(a, b, n) ((n) == 1 ? (a) : (b))
#endif
#define N_(s) (s)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void freep(void *p)
{
	free(*(void **)p);
}

#define _cleanup_close_ __attribute__((cleanup(closep)))
#define _cleanup_free_ __attribute__((cleanup(freep)))

/* Kept out of its caller's frame: for what a recursive function calls,
 * whose locals must not be on the stack once per level of the recursion. */
#define _noinline_ __attribute__((noinline))

/* The name the program was invoked as (basename of argv[0]); messages
 * start with it, as cp's do. */
extern const char *sc_program_name;

#endif
