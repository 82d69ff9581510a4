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
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include <smartcp/smartcp.h>

#define N_(s) (s)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define _noinline_ __attribute__((noinline))

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
 * the engine and the program (src/base/paths.c's sc_path_dir) need it and
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

#ifndef GRND_INSECURE
# define GRND_INSECURE 0x0004	/* Linux 5.6: never blocks */
#endif

/* The letters a temporary's name ends with (SC_TEMP_LETTERS of them, and
 * a NUL, into BUF): from getrandom(2), so that whoever may write the
 * directory cannot make the name first and make the copy fail, nor
 * know it before it appears.  Never blocks: before Linux 5.6 without
 * entropy yet, the clock's nanoseconds stand in.  Both the engine's
 * temporaries and the program's links made aside use it. */
#define SC_TEMP_LETTERS 12
static inline void temp_letters(char buf[SC_TEMP_LETTERS + 1])
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[SC_TEMP_LETTERS];

	if (getrandom(r, sizeof(r), GRND_INSECURE) != (ssize_t)sizeof(r) &&
	    getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^
		    (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32;
		for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005ull + 1)
			r[i] = (unsigned char)(x >> 56);
	}
	for (size_t i = 0; i < sizeof(r); i++)
		buf[i] = abc[r[i] % (sizeof(abc) - 1)];
	buf[SC_TEMP_LETTERS] = '\0';
}

#endif
