/* faultfs: an in-memory FUSE filesystem whose files fail on request, so
 * that the integration tests (tests/integration/t-faultfs-*.sh) can make
 * the real kernel deliver faults to smartcp.
 *
 * Usage:  faultfs MOUNTPOINT [-o capacity=BYTES] [-o log=FILE] [FUSE opts]
 *
 * It always runs single-threaded (-s); tests start it with -f in the
 * background and unmount it with umount or fusermount3 -u, upon which it
 * exits.  Files and directories are made through the mount as usual and
 * live in memory only.  Every file is opened with direct_io, so each
 * read() and write() reaches faultfs unchanged (no page cache in between:
 * faults strike at exact offsets, and reads are not cut at the size the
 * kernel believes).  Attributes are never cached (attr_timeout=0).
 *
 * Faults are rules in the extended attribute "user.fault" of a file:
 *
 *	setfattr -n user.fault -v 'size=0,eio_read@65536' FILE
 *
 * a comma-separated list of
 *
 *	size=N		stat reports st_size N (and st_blocks 0, as sysfs
 *			does) whatever the file holds; reads still return
 *			every byte up to the real end (generated content)
 *	eio_read@OFF	reads return the bytes before OFF (a short read),
 *			then EIO for any read at or past OFF
 *	eio_write@OFF	writes store the bytes before OFF (a short write),
 *			then fail with EIO at or past OFF
 *	enospc@N	the file holds at most N bytes: a write past N is
 *			short, then fails with ENOSPC
 *	flip@OFF	a server-side copy (copy_file_range) that carries
 *			the byte at OFF (an offset of this file, whether
 *			it is the source or the destination) writes it
 *			inverted and still reports success
 *	grow@N		every read of the file, once served, appends N
 *			bytes to it (each the low byte of its offset), and
 *			its mtime and ctime move: a log written as fast as
 *			it is read, so a reader that goes on to the EOF a
 *			read finds never gets there
 *	stream		the file is opened as a stream (FOPEN_NONSEEKABLE):
 *			a regular file on which pread, pwrite, lseek and
 *			splice or copy_file_range at an offset fail with
 *			ESPIPE, as on some /proc and debugfs files
 *	setattr=ERR	chmod and chown (fchmod, fchown and the *at calls
 *			alike) fail with ERR, EPERM or ENOSYS, and change
 *			nothing, as on vfat (EPERM) and on FUSE filesystems
 *			that do not implement them (fusefat: ENOSYS); a
 *			file is still made with the mode its creator asks
 *			for, and POSIX ACLs (system.posix_acl_*, another
 *			way to set the mode) are not supported (EOPNOTSUPP).
 *			Set on a directory, every file and directory made
 *			in it refuses them, its own too.
 *
 * An empty value or "none" clears the rules, as does removing the
 * attribute.  Rules set on a directory are inherited by every file and
 * directory created in it afterwards: the way to give faults to
 * destinations that do not exist yet (smartcp's temporaries included).
 *
 * The mount option capacity=BYTES makes the whole filesystem hold at most
 * BYTES of file data (statfs says so too): writes past it are short, then
 * fail with ENOSPC.  log=FILE appends one line per copy_file_range call
 * and per injected fault, so a test can tell that a fault was reached.
 *
 * copy_file_range is a "server-side copy" done in faultfs's memory; it
 * honours the rules of both files (eio_read, eio_write, enospc, capacity)
 * and flip.  The kernel sends it only calls within one mount.  Between two
 * faultfs mounts the VFS does hand the call to fuse (both files have the
 * same ->copy_file_range), but fuse_copy_file_range refuses two
 * superblocks (two connections) with EXDEV and falls back to the kernel's
 * splice copy: the call succeeds and faultfs sees only read and write
 * requests (checked on Linux 6.18).  So the server-side tests use one
 * mount with two directories.  The count the kernel passes is already cut
 * to the st_size it believes: with size=0 faultfs is never asked.
 *
 * Not there: hard links, O_TMPFILE, lseek (SEEK_DATA/SEEK_HOLE fall back
 * to the kernel's generic code, which uses the size stat reported),
 * fallocate, locks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* RENAME_NOREPLACE, strndup */
#endif
#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define FAULT_XATTR "user.fault"
#define NO_OFF ((off_t)-1)

struct rules {
	off_t size;		/* size=N: the st_size to report */
	off_t eio_read;		/* eio_read@OFF */
	off_t eio_write;	/* eio_write@OFF */
	off_t enospc;		/* enospc@N */
	off_t flip;		/* flip@OFF */
	off_t grow;		/* grow@N */
	off_t stream;		/* stream: not NO_OFF */
	int setattr;		/* setattr=ERR: the errno, else 0 */
};

struct xattr {
	char *name;
	char *value;
	size_t size;
	struct xattr *next;
};

struct node {
	char *name;
	struct node *parent, *child, *next;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	ino_t ino;
	struct timespec atime, mtime, ctime;
	char *data;		/* file bytes or symlink target */
	size_t len, cap;
	struct xattr *xattrs;
	struct rules rules;
	unsigned int nopen;
	bool unlinked;
};

static struct {
	char *capacity;		/* -o capacity=BYTES, as given */
	char *log;		/* -o log=FILE */
} opt;

static const struct fuse_opt fs_opts[] = {
	{ "capacity=%s", offsetof(__typeof__(opt), capacity), 0 },
	{ "log=%s", offsetof(__typeof__(opt), log), 0 },
	FUSE_OPT_END
};

static struct node *root;
static ino_t next_ino = 1;
static uint64_t used;			/* bytes of file data held */
static uint64_t capacity = UINT64_MAX;
static FILE *logfp;

static void say(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	if (!logfp)
		return;
	va_start(ap, fmt);
	vfprintf(logfp, fmt, ap);
	va_end(ap);
	fputc('\n', logfp);
	fflush(logfp);
}

/* ---------------------------------------------------------------- rules */

static void rules_clear(struct rules *r)
{
	r->size = r->eio_read = r->eio_write = r->enospc = r->flip =
		r->grow = r->stream = NO_OFF;
	r->setattr = 0;
}

static int parse_off(const char *s, off_t *ret)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > (unsigned long long)INT64_MAX)
		return -EINVAL;
	*ret = (off_t)v;
	return 0;
}

/* "size=0,eio_read@65536" -> rules; -EINVAL on anything else. */
static int rules_parse(const char *text, size_t size, struct rules *ret)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "size=", offsetof(struct rules, size) },
		{ "eio_read@", offsetof(struct rules, eio_read) },
		{ "eio_write@", offsetof(struct rules, eio_write) },
		{ "enospc@", offsetof(struct rules, enospc) },
		{ "flip@", offsetof(struct rules, flip) },
		{ "grow@", offsetof(struct rules, grow) },
	};
	struct rules r;
	char *copy, *tok, *save = NULL;
	int e = 0;

	rules_clear(&r);
	copy = strndup(text, size);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", \n", &save); tok && !e;
	     tok = strtok_r(NULL, ", \n", &save)) {
		size_t i;

		if (!strcmp(tok, "none"))
			continue;
		if (!strcmp(tok, "stream")) {
			r.stream = 0;
			continue;
		}
		if (!strcmp(tok, "setattr=EPERM")) {
			r.setattr = EPERM;
			continue;
		}
		if (!strcmp(tok, "setattr=ENOSYS")) {
			r.setattr = ENOSYS;
			continue;
		}
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i].key);

			if (!strncmp(tok, keys[i].key, n)) {
				e = parse_off(tok + n,
					      (off_t *)((char *)&r + keys[i].off));
				break;
			}
		}
		if (i == sizeof(keys) / sizeof(keys[0]))
			e = -EINVAL;
	}
	free(copy);
	if (!e)
		*ret = r;
	return e;
}

/* --------------------------------------------------------------- nodes */

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

static struct xattr *xattr_find(struct node *n, const char *name)
{
	struct xattr *x;

	for (x = n->xattrs; x; x = x->next)
		if (!strcmp(x->name, name))
			return x;
	return NULL;
}

static int xattr_put(struct node *n, const char *name, const char *value,
		     size_t size)
{
	struct xattr *x = xattr_find(n, name);
	char *v = malloc(size ? size : 1);

	if (!v)
		return -ENOMEM;
	memcpy(v, value, size);
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x || !(x->name = strdup(name))) {
			free(x);
			free(v);
			return -ENOMEM;
		}
		x->next = n->xattrs;
		n->xattrs = x;
	}
	free(x->value);
	x->value = v;
	x->size = size;
	return 0;
}

static struct node *node_new(struct node *dir, const char *name, mode_t mode)
{
	struct node *n = calloc(1, sizeof(*n));
	/* The root is made in main(), before FUSE runs: no context yet
	 * (asking for one there reads memory libfuse has not set up). */
	struct fuse_context *c = dir ? fuse_get_context() : NULL;

	if (!n || !(n->name = strdup(name))) {
		free(n);
		return NULL;
	}
	n->mode = mode;
	n->uid = c ? c->uid : 0;
	n->gid = c ? c->gid : 0;
	n->ino = next_ino++;
	now(&n->atime);
	n->mtime = n->ctime = n->atime;
	rules_clear(&n->rules);
	if (dir) {
		struct xattr *x = xattr_find(dir, FAULT_XATTR);

		/* Inherited rules: faults for files that do not exist yet. */
		if (x && xattr_put(n, FAULT_XATTR, x->value, x->size) == 0)
			n->rules = dir->rules;
		n->parent = dir;
		n->next = dir->child;
		dir->child = n;
		dir->mtime = dir->ctime = n->mtime;
	}
	return n;
}

static void node_free(struct node *n)
{
	struct xattr *x, *nx;

	if (S_ISREG(n->mode))
		used -= n->len;
	for (x = n->xattrs; x; x = nx) {
		nx = x->next;
		free(x->name);
		free(x->value);
		free(x);
	}
	free(n->data);
	free(n->name);
	free(n);
}

static void detach(struct node *n)
{
	struct node **p;

	for (p = &n->parent->child; *p; p = &(*p)->next)
		if (*p == n) {
			*p = n->next;
			break;
		}
	now(&n->parent->mtime);
	n->parent->ctime = n->parent->mtime;
	n->parent = NULL;
	n->next = NULL;
}

/* Unlinks N; the memory goes when the last open descriptor does. */
static void drop(struct node *n)
{
	detach(n);
	n->unlinked = true;
	if (!n->nopen)
		node_free(n);
}

static struct node *child(struct node *dir, const char *name, size_t len)
{
	struct node *n;

	for (n = dir->child; n; n = n->next)
		if (strlen(n->name) == len && !memcmp(n->name, name, len))
			return n;
	return NULL;
}

/* PATH -> node, or NULL with errno; with RET_LAST, PATH's parent and the
 * last component instead (the node itself need not exist). */
static struct node *lookup(const char *path, const char **ret_last)
{
	struct node *n = root;
	const char *p = path;

	for (;;) {
		const char *s;
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		s = strchr(p, '/');
		len = s ? (size_t)(s - p) : strlen(p);
		if (ret_last && !p[len + strspn(p + len, "/")]) {
			*ret_last = p;
			return n;
		}
		if (!S_ISDIR(n->mode)) {
			errno = ENOTDIR;
			return NULL;
		}
		n = child(n, p, len);
		if (!n) {
			errno = ENOENT;
			return NULL;
		}
		p += len;
	}
	if (ret_last) {
		errno = EEXIST;		/* the root itself */
		return NULL;
	}
	return n;
}

static struct node *get(const char *path, struct fuse_file_info *fi)
{
	if (fi && fi->fh)
		return (struct node *)(uintptr_t)fi->fh;
	return path ? lookup(path, NULL) : (errno = EBADF, NULL);
}

/* For the log: the node's path inside the mount. */
static const char *where(struct node *n)
{
	static char buf[2][PATH_MAX];
	static int k;
	char *b = buf[k ^= 1], *p = b + sizeof(buf[0]) - 1;

	*p = '\0';
	for (; n && n->parent; n = n->parent) {
		size_t len = strlen(n->name);

		if ((size_t)(p - b) < len + 1)
			break;
		p -= len;
		memcpy(p, n->name, len);
		*--p = '/';
	}
	if (!*p)
		*--p = '/';
	return p;
}

/* Sets the length of N's data to LEN (zeros when growing). */
static int resize(struct node *n, size_t len)
{
	if (len > n->len && len - n->len > capacity - used)
		return -ENOSPC;
	if (len > n->cap) {
		size_t cap = n->cap ? n->cap : 4096;
		char *d;

		while (cap < len)
			cap *= 2;
		d = realloc(n->data, cap);
		if (!d)
			return -ENOSPC;
		n->data = d;
		n->cap = cap;
	}
	if (len > n->len)
		memset(n->data + n->len, 0, len - n->len);
	used = used - n->len + len;
	n->len = len;
	return 0;
}

/* ----------------------------------------------------------- data paths */

/* How many bytes of a read of LEN at OFF are allowed; -EIO at the fault. */
static ssize_t read_limit(struct node *n, off_t off, size_t len,
			  const char *how)
{
	if (n->rules.eio_read != NO_OFF && off + (off_t)len > n->rules.eio_read) {
		if (off >= n->rules.eio_read) {
			say("%s %s off=%lld len=%zu -> EIO (injected at %lld)",
			    how, where(n), (long long)off, len,
			    (long long)n->rules.eio_read);
			return -EIO;
		}
		len = (size_t)(n->rules.eio_read - off);
	}
	if (off >= (off_t)n->len)
		return 0;
	if ((off_t)len > (off_t)n->len - off)
		len = n->len - (size_t)off;
	return (ssize_t)len;
}

/* How many bytes of a write of LEN at OFF are allowed; -EIO or -ENOSPC at
 * the fault. */
static ssize_t write_limit(struct node *n, off_t off, size_t len,
			   const char *how)
{
	const struct rules *r = &n->rules;
	off_t room;

	if (r->eio_write != NO_OFF && off + (off_t)len > r->eio_write) {
		if (off >= r->eio_write) {
			say("%s %s off=%lld len=%zu -> EIO (injected at %lld)",
			    how, where(n), (long long)off, len,
			    (long long)r->eio_write);
			return -EIO;
		}
		len = (size_t)(r->eio_write - off);
	}
	if (r->enospc != NO_OFF && off + (off_t)len > r->enospc) {
		if (off >= r->enospc) {
			say("%s %s off=%lld len=%zu -> ENOSPC (injected at %lld)",
			    how, where(n), (long long)off, len,
			    (long long)r->enospc);
			return -ENOSPC;
		}
		len = (size_t)(r->enospc - off);
	}
	/* The filesystem's capacity: only growth takes room. */
	room = (off_t)MIN(capacity - used, (uint64_t)INT64_MAX / 2) +
	       (off_t)n->len;
	if (off + (off_t)len > room) {
		if (off >= room) {
			say("%s %s off=%lld len=%zu -> ENOSPC (capacity %llu full)",
			    how, where(n), (long long)off, len,
			    (unsigned long long)capacity);
			return -ENOSPC;
		}
		len = (size_t)(room - off);
	}
	return (ssize_t)len;
}

static ssize_t store(struct node *n, const char *buf, size_t len, off_t off)
{
	if ((size_t)off + len > n->len) {
		int e = resize(n, (size_t)off + len);

		if (e)
			return e;
	}
	memcpy(n->data + off, buf, len);
	now(&n->mtime);
	n->ctime = n->mtime;
	return (ssize_t)len;
}

/* ------------------------------------------------------------ operations */

static void *ff_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* Every stat asks us: sizes that lie must reach the caller. */
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	/* Unlinked open files stay ours (no .fuse_hidden renames). */
	cfg->hard_remove = 1;
	cfg->use_ino = 1;
	return NULL;
}

static int ff_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);

	if (!n)
		return -errno;
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_nlink = S_ISDIR(n->mode) ? 2 : !n->unlinked;
	st->st_uid = n->uid;
	st->st_gid = n->gid;
	st->st_size = (off_t)n->len;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((n->len + 511) / 512);
	if (S_ISREG(n->mode) && n->rules.size != NO_OFF) {
		/* Generated content: sysfs says 4096, proc says 0, and
		 * neither has blocks. */
		st->st_size = n->rules.size;
		st->st_blocks = 0;
	}
	st->st_atim = n->atime;
	st->st_mtim = n->mtime;
	st->st_ctim = n->ctime;
	return 0;
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	struct node *d = lookup(path, NULL), *n;

	(void)off;
	(void)fi;
	(void)flags;
	if (!d)
		return -errno;
	if (!S_ISDIR(d->mode))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	for (n = d->child; n; n = n->next)
		if (fill(buf, n->name, NULL, 0, 0))
			break;
	return 0;
}

/* Makes PATH; NULL with errno when it exists or its parent does not. */
static struct node *make(const char *path, mode_t mode)
{
	const char *last;
	struct node *dir = lookup(path, &last), *n;

	if (!dir)
		return NULL;
	if (!S_ISDIR(dir->mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	if (strlen(last) > 255) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (child(dir, last, strlen(last))) {
		errno = EEXIST;
		return NULL;
	}
	n = node_new(dir, last, mode);
	if (!n)
		errno = ENOMEM;
	return n;
}

static int ff_mkdir(const char *path, mode_t mode)
{
	return make(path, S_IFDIR | (mode & 07777)) ? 0 : -errno;
}

static int ff_mknod(const char *path, mode_t mode, dev_t rdev)
{
	struct node *n;

	if (!S_ISREG(mode) && !S_ISFIFO(mode))
		return -EPERM;
	(void)rdev;
	n = make(path, mode);
	return n ? 0 : -errno;
}

static int ff_symlink(const char *target, const char *path)
{
	struct node *n = make(path, S_IFLNK | 0777);

	if (!n)
		return -errno;
	n->data = strdup(target);
	if (!n->data) {
		drop(n);
		return -ENOMEM;
	}
	n->len = n->cap = strlen(target);
	return 0;
}

static int ff_readlink(const char *path, char *buf, size_t size)
{
	struct node *n = lookup(path, NULL);

	if (!n)
		return -errno;
	if (!S_ISLNK(n->mode))
		return -EINVAL;
	if (!size)
		return -EINVAL;
	snprintf(buf, size, "%.*s", (int)n->len, n->data);
	return 0;
}

static int ff_unlink(const char *path)
{
	struct node *n = lookup(path, NULL);

	if (!n)
		return -errno;
	if (S_ISDIR(n->mode))
		return -EISDIR;
	drop(n);
	return 0;
}

static int ff_rmdir(const char *path)
{
	struct node *n = lookup(path, NULL);

	if (!n)
		return -errno;
	if (!S_ISDIR(n->mode))
		return -ENOTDIR;
	if (n == root)
		return -EBUSY;
	if (n->child)
		return -ENOTEMPTY;
	drop(n);
	return 0;
}

static int ff_rename(const char *from, const char *to, unsigned int flags)
{
	const char *last;
	struct node *n = lookup(from, NULL), *dir, *old, *a;
	char *name;

	if (!n)
		return -errno;
	if (flags & ~(unsigned int)RENAME_NOREPLACE)
		return -EINVAL;		/* no RENAME_EXCHANGE, no whiteouts */
	dir = lookup(to, &last);
	if (!dir)
		return -errno;
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	for (a = dir; a; a = a->parent)
		if (a == n)
			return -EINVAL;	/* into itself */
	old = child(dir, last, strlen(last));
	if (old == n)
		return 0;
	if (old) {
		if (flags & RENAME_NOREPLACE)
			return -EEXIST;
		if (S_ISDIR(old->mode) && !S_ISDIR(n->mode))
			return -EISDIR;
		if (!S_ISDIR(old->mode) && S_ISDIR(n->mode))
			return -ENOTDIR;
		if (S_ISDIR(old->mode) && old->child)
			return -ENOTEMPTY;
	}
	name = strdup(last);
	if (!name)
		return -ENOMEM;
	if (old)
		drop(old);
	detach(n);
	free(n->name);
	n->name = name;
	n->parent = dir;
	n->next = dir->child;
	dir->child = n;
	now(&n->ctime);
	dir->mtime = dir->ctime = n->ctime;
	return 0;
}

/* setattr=ERR: N refuses the change WHAT (chmod, chown); -ERR, else 0. */
static int refused(struct node *n, const char *what)
{
	if (!n->rules.setattr)
		return 0;
	say("%s %s -> %s (injected)", what, where(n),
	    n->rules.setattr == EPERM ? "EPERM" : "ENOSYS");
	return -n->rules.setattr;
}

static int ff_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);
	int e;

	if (!n)
		return -errno;
	e = refused(n, "chmod");
	if (e)
		return e;
	n->mode = (n->mode & S_IFMT) | (mode & 07777);
	now(&n->ctime);
	return 0;
}

static int ff_chown(const char *path, uid_t uid, gid_t gid,
		    struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);
	int e;

	if (!n)
		return -errno;
	e = refused(n, "chown");
	if (e)
		return e;
	if (uid != (uid_t)-1)
		n->uid = uid;
	if (gid != (gid_t)-1)
		n->gid = gid;
	now(&n->ctime);
	return 0;
}

static int ff_truncate(const char *path, off_t size,
		       struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);
	int e;

	if (!n)
		return -errno;
	if (S_ISDIR(n->mode))
		return -EISDIR;
	if (size < 0)
		return -EINVAL;
	e = resize(n, (size_t)size);
	if (e)
		return e;
	now(&n->mtime);
	n->ctime = n->mtime;
	return 0;
}

static int ff_utimens(const char *path, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);
	struct timespec t;

	if (!n)
		return -errno;
	now(&t);
	n->atime = tv[0].tv_nsec == UTIME_NOW ? t :
		   tv[0].tv_nsec == UTIME_OMIT ? n->atime : tv[0];
	n->mtime = tv[1].tv_nsec == UTIME_NOW ? t :
		   tv[1].tv_nsec == UTIME_OMIT ? n->mtime : tv[1];
	n->ctime = t;
	return 0;
}

static int opened(struct node *n, struct fuse_file_info *fi)
{
	n->nopen++;
	fi->fh = (uint64_t)(uintptr_t)n;
	/* No page cache: every read and write comes here, at its offset,
	 * and reads are not cut at the (maybe lying) size. */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fi->nonseekable = n->rules.stream != NO_OFF;
	return 0;
}

static int ff_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct node *n = make(path, S_IFREG | (mode & 07777));

	return n ? opened(n, fi) : -errno;
}

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	struct node *n = lookup(path, NULL);

	if (!n)
		return -errno;
	if (S_ISDIR(n->mode))
		return -EISDIR;
	if (fi->flags & O_TRUNC) {
		int e = resize(n, 0);

		if (e)
			return e;
	}
	return opened(n, fi);
}

static int ff_release(const char *path, struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);

	if (!n)
		return 0;
	if (!--n->nopen && n->unlinked)
		node_free(n);
	return 0;
}

static int ff_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);
	ssize_t len;

	if (!n)
		return -errno;
	len = read_limit(n, off, size, "read");
	if (len > 0)
		memcpy(buf, n->data + off, (size_t)len);
	if (len >= 0 && n->rules.grow != NO_OFF && n->rules.grow > 0) {
		size_t at = n->len, add = (size_t)n->rules.grow;

		/* after the bytes are in BUF: the next read finds more */
		if (resize(n, at + add) == 0) {
			for (size_t i = 0; i < add; i++)
				n->data[at + i] = (char)(at + i);
			now(&n->mtime);
			n->ctime = n->mtime;
			say("read %s off=%lld -> grew by %zu to %zu", where(n),
			    (long long)off, add, n->len);
		}
	}
	return (int)len;
}

static int ff_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct node *n = get(path, fi);
	ssize_t len;

	if (!n)
		return -errno;
	len = write_limit(n, off, size, "write");
	if (len > 0)
		len = store(n, buf, (size_t)len, off);
	return (int)len;
}

static ssize_t ff_copy_file_range(const char *path_in,
				  struct fuse_file_info *fi_in, off_t off_in,
				  const char *path_out,
				  struct fuse_file_info *fi_out, off_t off_out,
				  size_t size, int flags)
{
	struct node *in = get(path_in, fi_in), *out = get(path_out, fi_out);
	ssize_t len, w;
	off_t at;

	if (!in || !out)
		return -errno;
	if (flags)
		return -EINVAL;
	len = read_limit(in, off_in, size, "copy_file_range(read)");
	if (len > 0) {
		w = write_limit(out, off_out, (size_t)len,
				"copy_file_range(write)");
		if (w < 0) {
			len = w;
		} else {
			/* in and out may be one file: copy through memory
			 * that a resize of OUT cannot move. */
			char *tmp = malloc((size_t)w ? (size_t)w : 1);

			if (!tmp)
				return -ENOMEM;
			memcpy(tmp, in->data + off_in, (size_t)w);
			len = store(out, tmp, (size_t)w, off_out);
			free(tmp);
		}
	}
	if (len > 0) {
		at = NO_OFF;
		if (in->rules.flip != NO_OFF && in->rules.flip >= off_in &&
		    in->rules.flip < off_in + len)
			at = off_out + (in->rules.flip - off_in);
		else if (out->rules.flip != NO_OFF &&
			 out->rules.flip >= off_out &&
			 out->rules.flip < off_out + len)
			at = out->rules.flip;
		if (at != NO_OFF) {
			out->data[at] ^= (char)0xff;
			say("copy_file_range %s byte %lld flipped (injected)",
			    where(out), (long long)at);
		}
	}
	say("copy_file_range %s off=%lld -> %s off=%lld len=%zu -> %zd",
	    where(in), (long long)off_in, where(out), (long long)off_out,
	    size, len);
	return len;
}

static int ff_statfs(const char *path, struct statvfs *sv)
{
	uint64_t cap = capacity == UINT64_MAX ? (uint64_t)1 << 40 : capacity;

	(void)path;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = cap / 4096;
	sv->f_bfree = sv->f_bavail = used < cap ? (cap - used) / 4096 : 0;
	sv->f_files = 1u << 20;
	sv->f_ffree = sv->f_favail = sv->f_files - MIN(next_ino, sv->f_files);
	sv->f_namemax = 255;
	return 0;
}

static int ff_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	return 0;
}

static int ff_setxattr(const char *path, const char *name, const char *value,
		       size_t size, int flags)
{
	struct node *n = lookup(path, NULL);
	struct xattr *x;
	struct rules r;
	int e;

	if (!n)
		return -errno;
	x = xattr_find(n, name);
	if ((flags & XATTR_CREATE) && x)
		return -EEXIST;
	if ((flags & XATTR_REPLACE) && !x)
		return -ENODATA;
	if (!strcmp(name, FAULT_XATTR)) {
		e = rules_parse(value, size, &r);
		if (e)
			return e;
		e = xattr_put(n, name, value, size);
		if (!e)
			n->rules = r;
		return e;
	}
	/* an ACL is the mode by another road: no ACLs where the mode is
	 * refused (vfat keeps none) */
	if (n->rules.setattr && !strncmp(name, "system.posix_acl_", 17)) {
		say("setxattr %s %s -> EOPNOTSUPP (setattr refused)",
		    where(n), name);
		return -EOPNOTSUPP;
	}
	return xattr_put(n, name, value, size);
}

static int ff_getxattr(const char *path, const char *name, char *value,
		       size_t size)
{
	struct node *n = lookup(path, NULL);
	struct xattr *x;

	if (!n)
		return -errno;
	x = xattr_find(n, name);
	if (!x)
		return -ENODATA;
	if (!size)
		return (int)x->size;
	if (size < x->size)
		return -ERANGE;
	memcpy(value, x->value, x->size);
	return (int)x->size;
}

static int ff_listxattr(const char *path, char *list, size_t size)
{
	struct node *n = lookup(path, NULL);
	struct xattr *x;
	size_t need = 0;

	if (!n)
		return -errno;
	for (x = n->xattrs; x; x = x->next)
		need += strlen(x->name) + 1;
	if (!size)
		return (int)need;
	if (size < need)
		return -ERANGE;
	for (x = n->xattrs; x; x = x->next) {
		strcpy(list, x->name);
		list += strlen(x->name) + 1;
	}
	return (int)need;
}

static int ff_removexattr(const char *path, const char *name)
{
	struct node *n = lookup(path, NULL);
	struct xattr **p, *x;

	if (!n)
		return -errno;
	for (p = &n->xattrs; (x = *p); p = &x->next)
		if (!strcmp(x->name, name))
			break;
	if (!x)
		return -ENODATA;
	*p = x->next;
	free(x->name);
	free(x->value);
	free(x);
	if (!strcmp(name, FAULT_XATTR))
		rules_clear(&n->rules);
	return 0;
}

static const struct fuse_operations ops = {
	.init = ff_init,
	.getattr = ff_getattr,
	.readdir = ff_readdir,
	.mkdir = ff_mkdir,
	.mknod = ff_mknod,
	.symlink = ff_symlink,
	.readlink = ff_readlink,
	.unlink = ff_unlink,
	.rmdir = ff_rmdir,
	.rename = ff_rename,
	.chmod = ff_chmod,
	.chown = ff_chown,
	.truncate = ff_truncate,
	.utimens = ff_utimens,
	.create = ff_create,
	.open = ff_open,
	.release = ff_release,
	.read = ff_read,
	.write = ff_write,
	.copy_file_range = ff_copy_file_range,
	.statfs = ff_statfs,
	.fsync = ff_fsync,
	.setxattr = ff_setxattr,
	.getxattr = ff_getxattr,
	.listxattr = ff_listxattr,
	.removexattr = ff_removexattr,
};

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	int rc;

	if (fuse_opt_parse(&args, &opt, fs_opts, NULL) < 0)
		return 1;
	if (opt.capacity) {
		off_t c;

		if (parse_off(opt.capacity, &c) < 0) {
			fprintf(stderr, "faultfs: bad capacity '%s'\n",
				opt.capacity);
			return 1;
		}
		capacity = (uint64_t)c;
	}
	if (opt.log) {
		logfp = fopen(opt.log, "ae");
		if (!logfp) {
			perror(opt.log);
			return 1;
		}
	}
	root = node_new(NULL, "", S_IFDIR | 0755);
	if (!root)
		return 1;
	/* One thread: the tree has no locks.  Named faultfs in mountinfo
	 * ("fuse.faultfs", source "faultfs"). */
	if (fuse_opt_add_arg(&args, "-s") < 0 ||
	    fuse_opt_add_arg(&args, "-osubtype=faultfs,fsname=faultfs") < 0)
		return 1;
	rc = fuse_main(args.argc, args.argv, &ops, NULL);
	fuse_opt_free_args(&args);
	if (logfp)
		fclose(logfp);
	return rc;
}
