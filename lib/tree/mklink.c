/* Links made in a destination's place: a symlink copied, -l and -s,
 * another name of a file copied earlier.  An existing destination is
 * replaced by a rename from a name no one can guess, never removed
 * first. */
#include "common.h"
#include "tree/mklink.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Makes NAME in DIRFD a hard link to the object held as FD (O_PATH).
 * 0 or -errno. */
static int link_held(int fd, int dirfd, const char *name)
{
	char proc[32];

	/* by the descriptor itself where we may (CAP_DAC_READ_SEARCH: root),
	 * else by /proc's link to it, which leads to that inode and no
	 * further (a symlink's too) */
	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) < 0 ?
	       -errno : 0;
}

/* Makes NAME in DIRFD a hard link to TARGET (LINK_HARD, LINK_FOLLOW,
 * LINK_HELD of FLAGS) or a symlink holding TARGET's name.  0 or
 * -errno. */
static int make_name(const struct tree_at *target, int dirfd,
		     const char *name, unsigned flags)
{
	int r;

	if (flags & LINK_HELD)
		return link_held(target->dirfd, dirfd, name);
	r = flags & LINK_HARD ?
	    linkat(target->dirfd, target->name, dirfd, name,
		   flags & LINK_FOLLOW ? AT_SYMLINK_FOLLOW : 0) :
	    symlinkat(target->name, dirfd, name);
	return r < 0 ? -errno : 0;
}

/* make_name() under a free temporary name, ".smartcp." and letters no
 * one can guess (temp_letters()), in DST's directory: in its DIRFD, or
 * beside its path when that is AT_FDCWD.  The name (relative to
 * DST->dirfd) is written to TMP.  0 or -errno. */
static int make_temp_name(const struct tree_at *target, unsigned flags,
			  const struct tree_at *dst, char *tmp, size_t size)
{
	_cleanup_free_ char *dir = NULL;
	char letters[SC_TEMP_LETTERS + 1];

	if (dst->dirfd < 0 && !(dir = tree_path_dir(dst->path)))
		return -ENOMEM;
	for (unsigned i = 0;; i++) {
		temp_letters(letters);
		if (snprintf(tmp, size, "%s%s.smartcp.%s", dir ? dir : "",
			     dir ? "/" : "", letters) >= (int)size)
			return -ENAMETOOLONG;
		int e = make_name(target, dst->dirfd, tmp, flags);

		if (e != -EEXIST || i > 100)
			return e;
	}
}


int walk_make_link(const struct tree_at *target, const struct tree_at *dst,
		   unsigned flags)
{
	_cleanup_free_ char *tmp = NULL;
	struct stat st;
	int e;

	e = make_name(target, dst->dirfd, dst->name, flags);
	if (e == 0)
		return WALK_LINKED;
	if (e != -EEXIST || !(flags & LINK_REPLACE))
		return e;
	tmp = malloc(PATH_MAX);
	if (!tmp)
		return -ENOMEM;
	e = make_temp_name(target, flags, dst, tmp, PATH_MAX);
	if (e < 0)
		return e;
	if (renameat(dst->dirfd, tmp, dst->dirfd, dst->name) < 0) {
		e = -errno;
		unlinkat(dst->dirfd, tmp, 0);
		return e;
	}
	/* renaming one name of a file onto another does nothing */
	if (fstatat(dst->dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0)
		unlinkat(dst->dirfd, tmp, 0);
	return WALK_LINK_REPLACED;
}
