/* An object of the destination held by a descriptor, so that what is
 * done to it reaches that inode and no other: whoever may write its
 * directory can rename it away and put a symlink or a hard link to any
 * file in its place between two calls that take its name.  Every
 * attribute the copy sets on what it made goes through a pin (meta.c). */
#ifndef SMARTCP_LIB_PIN_H
#define SMARTCP_LIB_PIN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

struct pin {
	int fd;		/* O_PATH | O_NOFOLLOW, or a descriptor open for I/O */
	bool own;	/* FD is the pin's to close */
	bool opath;	/* FD is O_PATH: no fchmod, fchown, futimens on it */
	struct stat st;	/* its fstat when pinned */
	char proc[32];	/* "/proc/self/fd/FD": the inode itself, for the
			 * calls that take a name (libacl, xattrs of what
			 * cannot be opened), never followed further */
};

/* Pins NAME in DIRFD, a symlink itself unless FOLLOW.  0 or -errno. */
int pin_at(struct pin *p, int dirfd, const char *name, bool follow);
/* Pins the caller's descriptor FD, O_PATH when OPATH (not closed by
 * pin_release(); no call made: P->st is not filled). */
void pin_fd(struct pin *p, int fd, bool opath);
void pin_release(struct pin *p);

/* Is P still the object ST describes (device and inode)? */
bool pin_is(const struct pin *p, const struct stat *st);

/* The attributes of the pinned inode.  0 or -errno. */
int pin_chmod(const struct pin *p, mode_t mode);
int pin_chown(const struct pin *p, uid_t uid, gid_t gid);
int pin_utimens(const struct pin *p, const struct timespec ts[2]);

/* Is the pinned object (P->st) one its maker made, and no other: not
 * another name of an older file, and, where the filesystem gives what
 * is made the owner that made it, that owner?  0, or -ESTALE. */
int pin_check_ours(const struct pin *p);
/* ... and what it made a moment ago with MODE (the type and permission
 * bits asked of mkdirat, mknodat or symlinkat): no bits it did not ask
 * for, and a directory still empty.  See sc_made_check() in
 * <smartcp/smartcp.h>.  0, or -ESTALE. */
int pin_check_made(const struct pin *p, mode_t mode);

#endif
