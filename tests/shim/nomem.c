/* nomem.so: an LD_PRELOAD library that plays a machine short of memory,
 * for t-memory-pressure.sh.  Linux overcommits, so a real shortage shows
 * as an allocation that fails only under a limit (RLIMIT_AS, a container
 * with overcommit off) and at places no test could aim at; this library
 * makes the same failures happen where a test says.
 *
 * Environment (each optional; numbers decimal, or with k or M):
 *   SMARTCP_NOMEM_MIN=N      every allocation of N bytes or more fails:
 *                            malloc, calloc and realloc return NULL,
 *                            posix_memalign returns ENOMEM
 *   SMARTCP_NOMEM_THREADS=K  only the first K pthread_create calls start
 *                            a thread; the others return EAGAIN
 *   SMARTCP_NOMEM_EVERY=K    every K-th allocation fails, whatever its
 *                            size, counting from the first one after
 *                            this library is set up
 *   SMARTCP_NOMEM_SKIP=S     ... with the count starting at S instead of
 *                            1, so that runs with different S fail at
 *                            different places
 * Allocations glibc makes for itself go through these functions too
 * (stdio's buffers, fdopendir(), open_memstream()), as they would fail
 * on a machine out of memory. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static size_t min_size;		/* 0: no size fails */
static long threads_left = -1;	/* -1: no limit */
static unsigned long every;	/* 0: none */
static atomic_ulong count;
static bool ready;

static unsigned long number(const char *name, unsigned long none)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return none;
	n = strtoul(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		n <<= 10;
	else if (*end == 'M')
		n <<= 20;
	return n;
}

__attribute__((constructor)) static void setup(void)
{
	min_size = number("SMARTCP_NOMEM_MIN", 0);
	threads_left = (long)number("SMARTCP_NOMEM_THREADS", (unsigned long)-1);
	every = number("SMARTCP_NOMEM_EVERY", 0);
	atomic_store(&count, number("SMARTCP_NOMEM_SKIP", 1) - 1);
	ready = true;
}

/* Does an allocation of SIZE fail? */
static bool fails(size_t size)
{
	if (!ready)
		return false;
	if (min_size && size >= min_size)
		return true;
	return every && (atomic_fetch_add(&count, 1) + 1) % every == 0;
}

void *malloc(size_t size)
{
	if (fails(size)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	if (fails(size && n > (size_t)-1 / size ? (size_t)-1 : n * size)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (size && fails(size)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, size);
}

int posix_memalign(void **ret, size_t align, size_t size)
{
	void *p;

	if (fails(size))
		return ENOMEM;
	p = __libc_memalign(align, size);
	if (!p)
		return ENOMEM;
	*ret = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	if (fails(size)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, size);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	bool refuse = false;

	pthread_mutex_lock(&lock);
	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_create");
	if (threads_left == 0)
		refuse = true;
	else if (threads_left > 0)
		threads_left--;
	pthread_mutex_unlock(&lock);
	if (refuse || !real)
		return EAGAIN;
	return real(t, attr, fn, arg);
}
