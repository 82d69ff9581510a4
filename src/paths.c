/* Path names: joining, splitting and comparing them as cp does. */
#include "system.h"
#include "paths.h"

#include <limits.h>
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
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
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

bool sc_path_in_cwd(const char *dst)
{
	_cleanup_free_ char *dir = sc_path_dir(dst);
	struct stat d, dot;

	return !dir || !strcmp(dir, ".") || stat(".", &dot) < 0 ||
	       stat(dir, &d) < 0 ||
	       (d.st_dev == dot.st_dev && d.st_ino == dot.st_ino);
}

bool sc_path_is_inside(const char *src, const char *dst)
{
	_cleanup_free_ char *s = realpath(src, NULL);
	_cleanup_free_ char *parent = NULL, *d = NULL;
	const char *slash = strrchr(dst, '/');
	const char *base = slash ? slash + 1 : dst;
	size_t sl;

	if (!s)
		return false;
	parent = slash ? strndup(dst, (size_t)(slash - dst)) : strdup(".");
	if (!parent)
		return false;
	d = realpath(*parent ? parent : "/", NULL);
	if (!d)
		return false;
	if (*base && strcmp(base, ".") && strcmp(base, "..")) {
		char *full = sc_path_join(d, base);

		free(d);
		d = full;
		if (!d)
			return false;
	}
	sl = strlen(s);
	return !strncmp(s, d, sl) && (d[sl] == '\0' || d[sl] == '/' ||
				      !strcmp(s, "/"));
}
