/* The destination of one file, as the copier makes and unmakes it: the
 * atomic temporary (unnamed where it can be linked into place, else
 * named), the file the name of a symlink leads to, and the clean-up of a
 * file being written when a signal ends the process.  What a program
 * decides about a destination (cp's -n, -u, -i, backups) is not here. */
#include "common.h"
#include "copier.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

/* NAME's directory, opened with FLAGS relative to DIRFD: the
 * descriptor, or -errno. */
static int open_dir_of(int dirfd, const char *name, int flags, mode_t mode)
{
	_cleanup_free_ char *dir = NULL;
	int fd;

	if (strchr(name, '/') && !(dir = dir_part(name)))
		return -ENOMEM;
	fd = openat(dirfd, dir ? dir : ".", flags, mode);
	return fd < 0 ? -errno : fd;
}

/* The last name of PATH (no trailing slash) and its directory, opened
 * O_PATH relative to DIRFD: "." for a bare name.  *RET_NAME points into
 * PATH.  The descriptor, or -errno. */
static int open_parent(int dirfd, const char *path, const char **ret_name)
{
	const char *slash = strrchr(path, '/');

	*ret_name = slash ? slash + 1 : path;
	return open_dir_of(dirfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
}

int sc_target_resolve(int dirfd, const char *dname, int *ret_dirfd,
		      char **ret_name, struct stat *ret_st)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *name = NULL;
	const char *last;
	struct stat st;

	*ret_dirfd = -1;
	*ret_name = NULL;
	if (fstatat(dirfd, dname, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? TARGET_NOT_LINK : -errno;
	if (!S_ISLNK(st.st_mode))
		return TARGET_NOT_LINK;
	/* a link's target is resolved from the link's directory */
	fd = open_parent(dirfd, dname, &last);
	if (fd < 0)
		return fd;
	if (!(name = strdup(last)))
		return -ENOMEM;
	/* MAXSYMLINKS, as the kernel counts them on the last component */
	for (int n = 0; n <= 40; n++) {
		_cleanup_free_ char *target = NULL;
		ssize_t len = 0;
		size_t cap = 256;
		int next;

		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				return -errno;
			/* dangling: the name a copy through the link makes */
			ret_st->st_mode = 0;
			goto out;
		}
		if (!S_ISLNK(st.st_mode)) {
			*ret_st = st;
			goto out;
		}
		for (;;) {
			free(target);
			if (!(target = malloc(cap)))
				return -ENOMEM;
			len = readlinkat(fd, name, target, cap);
			if (len < 0)
				return -errno;
			if ((size_t)len < cap)
				break;
			cap *= 2;
		}
		target[len] = '\0';
		/* "d/", "d/.", "..": the link leads to a directory, which
		 * a file's copy does not replace */
		if (!len || target[len - 1] == '/')
			return -EISDIR;
		next = open_parent(fd, target, &last);
		if (next < 0)
			return next;
		close(fd);
		fd = next;
		if (!strcmp(last, ".") || !strcmp(last, ".."))
			return -EISDIR;
		free(name);
		if (!(name = strdup(last)))
			return -ENOMEM;
	}
	return -ELOOP;
out:
	*ret_dirfd = fd;
	*ret_name = name;
	fd = -1;
	name = NULL;
	return TARGET_LINK;
}

/* --- the atomic temporary ---------------------------------------------- */

/* Whether this process may link an open file by its descriptor alone:
 * linkat(fd, "", ..., AT_EMPTY_PATH) asks for CAP_DAC_READ_SEARCH. */
static bool may_link_empty_path(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return data[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective &
	       CAP_TO_MASK(CAP_DAC_READ_SEARCH);
}

/* How an unnamed temporary FD will get its name, learned once per
 * copier (the first temporary): by its descriptor, through /proc, or
 * not at all -- then the temporary must have a name from the start
 * (issue 29: without /proc, a chroot or a build root, the copy was made
 * and then could not be linked). */
static int link_how(struct sc_copy_ctx *x, int fd)
{
	struct sc_copier *c = x->c;
	char proc[64];
	int how;

	pthread_mutex_lock(&c->lock);
	how = c->link_how;
	pthread_mutex_unlock(&c->lock);
	if (how != LINK_UNKNOWN)
		return how;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	how = may_link_empty_path() ? LINK_EMPTY_PATH :
	      faccessat(AT_FDCWD, proc, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ?
	      LINK_PROC : LINK_NONE;
	pthread_mutex_lock(&c->lock);
	c->link_how = how;
	pthread_mutex_unlock(&c->lock);
	return how;
}

/* Gives the unnamed file FD the name NAME in DIRFD.  0 or -errno. */
static int link_tmpfile(struct sc_copy_ctx *x, int fd, int dirfd,
			const char *name)
{
	char proc[64];

	if (link_how(x, fd) == LINK_EMPTY_PATH) {
		if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		/* a capability the kernel does not honour here (a user
		 * namespace): /proc, if it is there */
		if (errno != ENOENT && errno != EPERM)
			return -errno;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	return -errno;
}

/* Is NAME's directory (in DIRFD) one whose entries cannot be removed or
 * replaced (chattr +a, +i)?  A temporary named there could be made but
 * neither renamed over the destination nor removed again. */
static bool dir_keeps_names(int dirfd, const char *name)
{
	_cleanup_free_ char *dir = dir_part(name);
	struct statx stx;

	if (!dir || statx(dirfd, dir, 0, 0, &stx) < 0)
		return false;
	return stx.stx_attributes & stx.stx_attributes_mask &
	       (STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE);
}

/* The start of a temporary's name in NAME's directory, into X->tmp:
 * the directory part of NAME and ".smartcp."; its length, or -errno.
 * The rest is temp_letters(). */
static int tmp_prefix(struct sc_copy_ctx *x, const char *name)
{
	_cleanup_free_ char *dir = NULL;
	int n;

	if (strchr(name, '/') && !(dir = dir_part(name)))
		return -ENOMEM;
	n = snprintf(x->tmp, sizeof(x->tmp), "%s%s.smartcp.",
		     dir ? dir : "", dir && strcmp(dir, "/") ? "/" : "");
	if (n < 0 || (size_t)n >= sizeof(x->tmp) - 32)
		return -ENAMETOOLONG;
	return n;
}

int sc_target_temp_open(struct sc_copy_ctx *x, int dirfd, const char *name,
			mode_t mode, bool *ret_named)
{
	int fd, n;

	*ret_named = false;
	/* O_TMPFILE takes a mode as O_CREAT does (the umask and a default
	 * ACL apply): without one, the temporary got whatever the register
	 * held, set-id and sticky bits included, and an ACL copied onto it
	 * later never clears those. */
	fd = open_dir_of(dirfd, name, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd >= 0) {
		if (link_how(x, fd) != LINK_NONE)
			return fd;
		close(fd);	/* it could never be linked: a name, now */
	} else if (fd != -EOPNOTSUPP && fd != -EISDIR && fd != -EINVAL) {
		return fd;
	}
	if (dir_keeps_names(dirfd, name))
		return -EPERM;
	n = tmp_prefix(x, name);
	if (n < 0)
		return n;
	x->tmp_dirfd = dirfd;
	/* mkostemp() has no *at form and no mode: names no one can make
	 * first, here */
	for (unsigned i = 0;; i++) {
		temp_letters(x->tmp + n);
		fd = openat(dirfd, x->tmp, O_RDWR | O_CREAT | O_EXCL |
			    O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST || i > 100)
			break;
	}
	if (fd < 0)
		return -errno;
	atomic_store_explicit(&x->tmp_set, 1, memory_order_release);
	*ret_named = true;
	return fd;
}

int sc_target_temp_commit(struct sc_copy_ctx *x, int fd, int dirfd,
			  const char *name, bool named, bool new)
{
	int e, n;

	if (!named) {
		/* Nothing there: the file is linked in place, and no name of
		 * ours ever exists, not even for a SIGKILL to leave. */
		if (new) {
			e = link_tmpfile(x, fd, dirfd, name);
			if (e != -EEXIST)
				return e;
			/* made meanwhile: replaced as any other */
		}
		/* Replacing a name takes a rename: the file gets a name of
		 * its own first (no system call replaces a name with an
		 * unnamed file), which a SIGKILL between the two calls can
		 * leave.  Where that name could not be removed again, it is
		 * not made. */
		if (dir_keeps_names(dirfd, name))
			return -EPERM;
		n = tmp_prefix(x, name);
		if (n < 0)
			return n;
		x->tmp_dirfd = dirfd;
		for (unsigned i = 0;; i++) {
			temp_letters(x->tmp + n);
			e = link_tmpfile(x, fd, dirfd, x->tmp);
			if (e == 0)
				break;
			if (e != -EEXIST || i > 100)
				return e;
		}
		atomic_store_explicit(&x->tmp_set, 1, memory_order_release);
	}
	if (renameat(x->tmp_dirfd, x->tmp, dirfd, name) < 0) {
		e = -errno;
		unlinkat(x->tmp_dirfd, x->tmp, 0);
		atomic_store_explicit(&x->tmp_set, 0, memory_order_release);
		return e;
	}
	atomic_store_explicit(&x->tmp_set, 0, memory_order_release);
	return 0;
}

void sc_target_temp_abandon(struct sc_copy_ctx *x, bool named)
{
	if (named && atomic_load_explicit(&x->tmp_set, memory_order_acquire))
		unlinkat(x->tmp_dirfd, x->tmp, 0);
	atomic_store_explicit(&x->tmp_set, 0, memory_order_release);
}

int sc_target_fsync_dir(int dirfd, const char *name)
{
	_cleanup_close_ int fd = open_dir_of(dirfd, name, O_RDONLY |
					     O_DIRECTORY | O_CLOEXEC, 0);

	if (fd < 0)
		return fd == -EINVAL ? 0 : fd;
	if (fsync(fd) < 0)
		return errno == EINVAL ? 0 : -errno;
	return 0;
}

/* --- a destination written in place ------------------------------------ */

void sc_target_partial_begin(struct sc_copy_ctx *x, int dirfd,
			     const char *name, int fd, const struct stat *st,
			     bool keep_name)
{
	struct sc_partial *p = &x->partial;

	if (strlen(name) < PATH_MAX) {
		p->dirfd = dirfd;
		p->fd = fd;
		p->dev = st ? st->st_dev : 0;
		p->ino = st ? st->st_ino : 0;
		strcpy(p->name, name);
		atomic_store_explicit(&p->set, keep_name ? PARTIAL_EMPTY :
				      PARTIAL_REMOVE, memory_order_release);
	}
}

void sc_target_partial_end(struct sc_copy_ctx *x)
{
	atomic_store_explicit(&x->partial.set, PARTIAL_NONE,
			      memory_order_release);
}

/* The signal handler's part: the file P holds goes, as SET says.  Only
 * the file written is touched: its name is removed only while it still
 * leads to that file (never a symlink that led there, nor what took its
 * place), else the file is emptied through its descriptor.  Returns
 * whether anything was done. */
static bool partial_clean(const struct sc_partial *p, int set)
{
	struct stat a, b;
	bool known = p->ino != 0;

	/* the descriptor, checked: the owner ends the slot before it closes
	 * it, but this thread may have read the slot just before that */
	if (fstat(p->fd, &a) < 0 ||
	    (known && (a.st_dev != p->dev || a.st_ino != p->ino)))
		return false;
	if (set == PARTIAL_REMOVE &&
	    fstatat(p->dirfd, p->name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return unlinkat(p->dirfd, p->name, 0) == 0;
	/* a file of unknown identity (made here with O_EXCL) whose name
	 * leads elsewhere is not known to be ours */
	if (!known)
		return false;
	return ftruncate(p->fd, 0) == 0;
}

bool sc_copy_ctx_abandon(struct sc_copy_ctx *x)
{
	bool removed = false;
	int set;

	if (!x)
		return false;
	set = atomic_load_explicit(&x->partial.set, memory_order_acquire);
	if (set != PARTIAL_NONE)
		removed |= partial_clean(&x->partial, set);
	if (atomic_load_explicit(&x->tmp_set, memory_order_acquire)) {
		unlinkat(x->tmp_dirfd, x->tmp, 0);
		removed = true;
	}
	return removed;
}
