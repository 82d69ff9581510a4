/* Path names: joining, splitting and comparing them as cp does. */
#include "system.h"
#include "base/paths.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

char *sc_path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	while (a > 1 && dir[a - 1] == '/' && dir[a - 2] == '/')
		a--;
	memcpy(p, dir, a);
	if (a && dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

void sc_path_strip_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
}

char *sc_path_dir(const char *path)
{
	return dir_part(path);
}

char *sc_path_base(const char *name)
{
	char *copy = strdup(name), *slash;

	if (!copy)
		return NULL;
	sc_path_strip_slashes(copy);
	slash = strrchr(copy, '/');
	if (slash && slash[1])
		memmove(copy, slash + 1, strlen(slash + 1) + 1);
	return copy;
}

const char *sc_path_last(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool sc_path_same_entry(const char *a, const char *b)
{
	_cleanup_free_ char *ba = sc_path_base(a), *bb = sc_path_base(b);
	_cleanup_free_ char *da = NULL, *db = NULL;
	struct stat sa, sb;

	if (!ba || !bb || strcmp(ba, bb))
		return false;
	da = sc_path_dir(a);
	db = sc_path_dir(b);
	return da && db && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The directory AT's entry is in, stat'ed, and the entry's name there. */
static bool at_dir(const struct sc_at *at, struct stat *st,
		   const char **ret_name)
{
	_cleanup_free_ char *dir = NULL;

	if (at->dirfd >= 0) {
		*ret_name = at->name;
		return fstat(at->dirfd, st) == 0;
	}
	*ret_name = NULL;	/* the caller compares the bases */
	dir = sc_path_dir(at->path);
	return dir && stat(dir, st) == 0;
}

bool sc_at_same_entry(const struct sc_at *a, const struct sc_at *b)
{
	_cleanup_free_ char *ba = NULL, *bb = NULL;
	const char *na, *nb;
	struct stat sa, sb;

	if (a->dirfd < 0 && b->dirfd < 0)
		return sc_path_same_entry(a->path, b->path);
	if (!at_dir(a, &sa, &na) || !at_dir(b, &sb, &nb))
		return false;
	if (!na)
		na = ba = sc_path_base(a->path);
	if (!nb)
		nb = bb = sc_path_base(b->path);
	return na && nb && !strcmp(na, nb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

