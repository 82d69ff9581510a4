/* What every file of the engine (lib/) includes: config.h, the public
 * header, and small helpers.  Unlike src/system.h there is no gettext and
 * no program name here: the library never prints.  Reasons are marked
 * with N_() so that xgettext finds them (po/POTFILES.in), and are
 * translated by whoever shows them. */
#ifndef SMARTCP_LIB_COMMON_H
#define SMARTCP_LIB_COMMON_H

#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

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

/* Room in array ARR (of N used, CAP allocated) for one more: CAP doubled
 * (FIRST to start with) when it is full.  0, or -ENOMEM with ARR and CAP
 * as they were.  The one way the engine and the program grow their
 * arrays. */
#define sc_grow(arr, n, cap, first) __extension__ ({			\
	int e_ = 0;							\
	if ((n) >= (cap)) {						\
		size_t c_ = (cap) ? 2 * (cap) : (first);		\
		__typeof__(arr) p_ = c_ <= SIZE_MAX / sizeof(*(arr)) ?	\
			realloc((arr), c_ * sizeof(*(arr))) : NULL;	\
		if (p_) {						\
			(arr) = p_;					\
			(cap) = c_;					\
		} else {						\
			e_ = -ENOMEM;					\
		}							\
	}								\
	e_;								\
})

#define _cleanup_close_ __attribute__((cleanup(closep)))
#define _cleanup_free_ __attribute__((cleanup(freep)))

/* The directory part of NAME: "." when it has no slash, "/" for "/x".  A
 * new string (free() it), NULL when out of memory.  Here because both
 * the engine and the program (src/paths.c's sc_path_dir) need it and
 * neither may call the other's internals. */
static inline char *dir_part(const char *name)
{
	const char *slash = strrchr(name, '/');

	if (!slash)
		return strdup(".");
	if (slash == name)
		return strdup("/");
	return strndup(name, (size_t)(slash - name));
}

#endif
