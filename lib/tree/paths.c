/* Path names: joining, splitting and comparing them as cp does. */
#include "common.h"
#include "tree/paths.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

char *tree_path_join(const char *dir, const char *name)
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

void tree_path_strip_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
}

char *tree_path_dir(const char *path)
{
	return dir_part(path);
}

char *tree_path_base(const char *name)
{
	char *copy = strdup(name), *slash;

	if (!copy)
		return NULL;
	tree_path_strip_slashes(copy);
	slash = strrchr(copy, '/');
	if (slash && slash[1])
		memmove(copy, slash + 1, strlen(slash + 1) + 1);
	return copy;
}

const char *tree_path_last(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool tree_path_in_cwd(const char *dst)
{
	_cleanup_free_ char *dir = tree_path_dir(dst);
	struct stat d, dot;

	return !dir || !strcmp(dir, ".") || stat(".", &dot) < 0 ||
	       stat(dir, &d) < 0 ||
	       (d.st_dev == dot.st_dev && d.st_ino == dot.st_ino);
}

size_t tree_path_piece(const char *path, size_t max)
{
	size_t n = strlen(path);

	if (n < max)
		return n;
	/* the last slash that leaves the piece before it shorter than MAX;
	 * a leading slash alone is the root, a piece of its own */
	for (n = max - 1; n > 0; n--)
		if (path[n] == '/')
			return n;
	return path[0] == '/' ? 1 : 0;
}

int tree_path_open_parent(const char *path, int *ret_fd, const char **ret_name)
{
	_cleanup_free_ char *piece = NULL;
	const char *last = tree_path_last(path);
	size_t dirlen = (size_t)(last - path);
	int fd = AT_FDCWD;

	*ret_fd = AT_FDCWD;
	*ret_name = path;
	if (strlen(path) < PATH_MAX)
		return 0;
	*ret_name = last;
	piece = malloc(PATH_MAX);
	if (!piece)
		return -ENOMEM;
	while (dirlen) {
		size_t n = tree_path_piece(path, MIN(dirlen + 1, (size_t)PATH_MAX));
		int next;

		if (n == 0 || n > dirlen)
			n = dirlen;
		if (n >= PATH_MAX) {
			if (fd >= 0)
				close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(piece, path, n);
		piece[n] = '\0';
		next = openat(fd, piece, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		if (next < 0)
			return -errno;
		fd = next;
		path += n;
		dirlen -= n;
		while (dirlen && *path == '/') {
			path++;
			dirlen--;
		}
	}
	*ret_fd = fd;
	return 0;
}

int tree_path_chmod_fd(int fd, mode_t mode)
{
	char name[48];

	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	if (fchmodat(AT_FDCWD, name, mode, 0) == 0)
		return 0;
	if (errno != ENOENT)
		return -errno;
	return fchmodat(fd, ".", mode, 0) < 0 ? -errno : 0;
}
