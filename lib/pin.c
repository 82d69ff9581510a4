/* Pins: objects of the destination held by descriptor (pin.h), checked to
 * be what was made, and given their attributes through that descriptor
 * only. */
#include "common.h"
#include "pin.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#ifndef SYS_fchmodat2
# define SYS_fchmodat2 452	/* Linux 6.6, the same on every arch */
#endif

void pin_fd(struct pin *p, int fd, bool opath)
{
	*p = (struct pin){ .fd = fd, .opath = opath };
	snprintf(p->proc, sizeof(p->proc), "/proc/self/fd/%d", fd);
}

int pin_at(struct pin *p, int dirfd, const char *name, bool follow)
{
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC |
			(follow ? 0 : O_NOFOLLOW));

	pin_fd(p, fd, true);
	if (fd < 0)
		return -errno;
	p->own = true;
	if (fstat(fd, &p->st) < 0) {
		int e = -errno;

		pin_release(p);
		return e;
	}
	return 0;
}

void pin_release(struct pin *p)
{
	if (p->own && p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->own = false;
}

bool pin_is(const struct pin *p, const struct stat *st)
{
	return p->st.st_dev == st->st_dev && p->st.st_ino == st->st_ino;
}

int pin_chmod(const struct pin *p, mode_t mode)
{
	if (!p->opath)
		return fchmod(p->fd, mode) < 0 ? -errno : 0;
	/* fchmodat2(AT_EMPTY_PATH) acts on the descriptor's inode; before
	 * Linux 6.6, /proc's link to it, which a chmod follows to that
	 * inode and no further */
	if (syscall(SYS_fchmodat2, p->fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -errno;
	return chmod(p->proc, mode) < 0 ? -errno : 0;
}

int pin_chown(const struct pin *p, uid_t uid, gid_t gid)
{
	/* AT_EMPTY_PATH on an O_PATH descriptor of a symlink changes the
	 * link's own owner (Linux 2.6.39) */
	return fchownat(p->fd, "", uid, gid, AT_EMPTY_PATH) < 0 ? -errno : 0;
}

int pin_utimens(const struct pin *p, const struct timespec ts[2])
{
	if (!p->opath)
		return futimens(p->fd, ts) < 0 ? -errno : 0;
	if (utimensat(p->fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* AT_EMPTY_PATH came to utimensat in Linux 5.8: /proc's link leads
	 * to the inode itself, a symlink's too, without following it */
	return utimensat(AT_FDCWD, p->proc, ts, 0) < 0 ? -errno : 0;
}

/* Does the filesystem of FD give what is made there the owner that made
 * it and no mode bits it did not ask for?  Those listed do; a FAT or
 * NTFS mount gives every file the owner and mode of its mount options,
 * a network or FUSE server whatever it decides (root squashed to nobody
 * on NFS), so owner and mode tell nothing there. */
static bool keeps_what_was_asked(int fd)
{
	static const unsigned long honest[] = {
		0xEF53,		/* ext2, ext3, ext4 */
		0x58465342,	/* xfs */
		0x9123683E,	/* btrfs */
		0x01021994,	/* tmpfs */
		0x858458F6,	/* ramfs */
		0xF2F52010,	/* f2fs */
		0xCA451A4E,	/* bcachefs */
		0x2FC12FC1,	/* zfs */
		0x794C7630,	/* overlay */
		0x52654973,	/* reiserfs */
		0x3153464A,	/* jfs */
		0x3434,		/* nilfs2 */
		0x7461636F,	/* ocfs2 */
		0x24051905,	/* ubifs */
		0x01161970,	/* gfs2 */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(honest); i++)
		if ((unsigned long)sf.f_type == honest[i])
			return true;
	return false;
}

/* Does directory P hold nothing?  A directory made a moment ago does.
 * 1 yes, 0 no.  One that cannot be listed (no permission, no descriptor
 * or memory left) is taken as it is: its type, owner and mode were
 * checked, and a copy short of descriptors must still go on and name
 * each file it cannot open (1). */
static int dir_empty(const struct pin *p)
{
	char buf[1024];
	_cleanup_close_ int fd = openat(p->fd, ".", O_RDONLY | O_DIRECTORY |
					O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno == EACCES || errno == EMFILE || errno == ENFILE ||
		       errno == ENOMEM ? 1 : -errno;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
				return 0;
			off += d->d_reclen;
		}
	}
	return n == 0 ? 1 : -errno;
}

int pin_check_ours(const struct pin *p)
{
	/* another name of an older file: a hard link put in its place */
	if (!S_ISDIR(p->st.st_mode) && p->st.st_nlink != 1)
		return -ESTALE;
	if (p->st.st_uid != geteuid() && keeps_what_was_asked(p->fd))
		return -ESTALE;
	return 0;
}

int pin_check_made(const struct pin *p, mode_t mode)
{
	const struct stat *st = &p->st;
	mode_t extra = st->st_mode & 07777 & ~(mode & 07777);

	if ((st->st_mode & S_IFMT) != (mode & S_IFMT) || pin_check_ours(p))
		return -ESTALE;
	/* mkdir gives a directory the set-group-ID bit of its parent; a
	 * symlink's mode is always 0777 */
	if (S_ISDIR(st->st_mode))
		extra &= ~(mode_t)S_ISGID;
	if (S_ISLNK(st->st_mode))
		extra = 0;
	if (extra && keeps_what_was_asked(p->fd))
		return -ESTALE;
	if (S_ISDIR(st->st_mode)) {
		int e = dir_empty(p);

		return e < 0 ? e : e ? 0 : -ESTALE;
	}
	return 0;
}

/* Is MODE a type that mkdirat(2), mknodat(2), mkfifoat(3) or
 * symlinkat(2) makes, with permission bits and nothing else? */
static bool made_mode_ok(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFIFO:
	case S_IFCHR: case S_IFBLK: case S_IFSOCK:
		return !(mode & ~(mode_t)(S_IFMT | 07777));
	default:
		return false;
	}
}

int sc_made_check(int fd, mode_t mode, struct stat *ret_st)
{
	struct pin p;
	int e;

	if (fd < 0 || !made_mode_ok(mode))
		return -EINVAL;
	pin_fd(&p, fd, true);
	if (fstat(fd, &p.st) < 0)
		return -errno;
	e = pin_check_made(&p, mode);
	if (ret_st)
		*ret_st = p.st;
	return e;
}
