/* Change detection: pure comparisons of two stats, so the unit tests can
 * drive them with any pair.  The caller (fcopy_verify.c) takes the stats.
 *
 * Times are compared to the nanosecond.  Since Linux 6.13 ext4, xfs,
 * btrfs and tmpfs give a fine-grained ctime to a file whose ctime was
 * looked at (multigrain timestamps), so a write in the same clock tick
 * as our first stat still moves it; on older kernels two writes within
 * one tick (a few ms) can share an mtime, and only the size can tell. */
#include "common.h"
#include "change.h"

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

enum sc_change_how sc_change_compare(const struct stat *before,
				     const struct stat *after, bool generated)
{
	/* On procfs and sysfs the times are those of the inode's creation
	 * in the kernel's cache and the size is 0 or 4096, whatever the
	 * content: a difference there says nothing about what was read. */
	if (generated || !before || !after)
		return SC_CHANGE_NONE;
	if (after->st_size > before->st_size)
		return SC_CHANGE_GREW;
	if (after->st_size < before->st_size)
		return SC_CHANGE_SHRANK;
	if (!same_time(&before->st_mtim, &after->st_mtim))
		return SC_CHANGE_REWRITTEN;
	if (!same_time(&before->st_ctim, &after->st_ctim))
		return SC_CHANGE_STATUS;
	return SC_CHANGE_NONE;
}

enum sc_change_how sc_change_identity(const struct stat *before,
				      const struct stat *now, int name_err,
				      bool generated)
{
	if (name_err == -ENOENT || name_err == -ENOTDIR)
		return generated ? SC_CHANGE_NONE : SC_CHANGE_REMOVED;
	if (name_err || !before || !now)
		return SC_CHANGE_NONE;
	if (now->st_ino != before->st_ino || now->st_dev != before->st_dev)
		return SC_CHANGE_REPLACED;
	return SC_CHANGE_NONE;
}

const char *sc_change_name(enum sc_change_how how)
{
	static const char *const names[] = {
		[SC_CHANGE_NONE] = "none", [SC_CHANGE_STATUS] = "status",
		[SC_CHANGE_REWRITTEN] = "rewritten",
		[SC_CHANGE_SHRANK] = "shrank", [SC_CHANGE_GREW] = "grew",
		[SC_CHANGE_REMOVED] = "removed",
		[SC_CHANGE_REPLACED] = "replaced",
	};
	return (unsigned)how < ARRAY_SIZE(names) ? names[how] : "?";
}
