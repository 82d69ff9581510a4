/* slowdup.so: an LD_PRELOAD library that slows libattr's xattr.conf
 * parser down: its first strndup() (the first rule's pattern) returns at
 * once, each later one 5 ms later.  libattr puts each rule in its shared
 * list as soon as it is parsed, and other threads stop parsing when the
 * list is not empty: a program that lets several threads meet libattr's
 * first-use parse (attr_copy_check_permissions() under -j) then has them
 * use a list holding only the first rule, every time, where the race
 * would otherwise show rarely.  Calls from anywhere else are not delayed.
 * t-xattr-rules.sh runs smartcp -a -j8 under it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int from_libattr;

static int called_from_libattr(const void *ret)
{
	Dl_info info;

	return dladdr(ret, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "libattr");
}

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d;

	if (called_from_libattr(__builtin_return_address(0)) &&
	    atomic_fetch_add(&from_libattr, 1) > 0)
		nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
	d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}
