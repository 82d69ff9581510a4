/* The simple calls, for a program with two descriptors or two paths
 * and no context of its own: sc_copier_copy_fd and _copy_path check
 * their arguments and run the one pipeline (fcopy.c) on the copier's
 * own context, taking turns on it; _explain_fd makes the plan alone;
 * _verify_fd compares two files with that context's buffer.  Apart
 * because they stand in front of the pipeline, not in it. */
#include "common.h"
#include "fcopy.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* ---- simple calls ---------------------------------------------------------- */

/* Checks that FD is open (not O_PATH) with an access mode that allows
 * reading (READ) or writing, and fstats it into ST.  0 or -EBADF. */
static int check_fd(int fd, bool read, struct stat *st)
{
	int fl, acc;

	if (fd < 0)
		return -EBADF;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -EBADF;
	/* fstat succeeds on an O_PATH descriptor, and read(2) and write(2)
	 * fail on it with EBADF: say so before anything is tried. */
	if (fl & O_PATH)
		return -EBADF;
	acc = fl & O_ACCMODE;
	if (read ? acc != O_RDONLY && acc != O_RDWR :
		   acc != O_WRONLY && acc != O_RDWR)
		return -EBADF;
	if (fstat(fd, st) < 0)
		return -errno;
	return 0;
}

/* A source IN to read and a destination OUT to write (or, OUT_READ, to
 * read back), neither a directory; their fstat in IST and OST.  0,
 * -EBADF or -EISDIR. */
static int check_pair(int in, int out, bool out_read, struct stat *ist,
		      struct stat *ost)
{
	int e = check_fd(in, true, ist);

	if (e < 0)
		return e;
	e = check_fd(out, out_read, ost);
	if (e < 0)
		return e;
	if (S_ISDIR(ist->st_mode) || S_ISDIR(ost->st_mode))
		return -EISDIR;
	return 0;
}

int sc_copier_copy_fd(struct sc_copier *c, int in, int out,
		      struct sc_copy_report *rep)
{
	struct sc_copy_args a = {
		.size = sizeof(a), .src_dirfd = AT_FDCWD, .src_fd = in,
		.dst_dirfd = AT_FDCWD, .dst_fd = out,
		.flags = SC_FILE_SOURCE_ANY,
	};
	struct sc_copy_ctx *x;
	struct stat ist, ost;
	bool out_seekable;
	int e, fl;

	if (!c || c->kernel_assumed || c->fs_assumed)
		return sc_fcopy_refuse(rep, -EINVAL);
	e = check_pair(in, out, false, &ist, &ost);
	if (e < 0)
		return sc_fcopy_refuse(rep, e);
	if (ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino)
		return sc_fcopy_refuse(rep, -EINVAL);
	out_seekable = S_ISREG(ost.st_mode) || S_ISBLK(ost.st_mode);
	/* copy_file_range and FICLONE refuse an O_APPEND destination with
	 * EBADF, and pwrite(2) on it appends wherever it is asked to write:
	 * the offsets the engine keeps would mean nothing. */
	fl = fcntl(out, F_GETFL);
	if (out_seekable && (fl & O_APPEND))
		return sc_fcopy_refuse(rep, -EBADF);
	/* A FIFO, a socket or a terminal keeps nothing that could be read
	 * back: such a copy could never be proven. */
	if ((c->flags & SC_COPY_VERIFY) && !out_seekable)
		return sc_fcopy_refuse(rep, -EOPNOTSUPP);
	if ((c->flags & SC_COPY_VERIFY) && (fl & O_ACCMODE) != O_RDWR)
		return sc_fcopy_refuse(rep, -EBADF);
	x = sc_copier_ctx(c);
	if (!x)
		return sc_fcopy_refuse(rep, -ENOMEM);
	a.src_st = &ist;
	a.dst_st = &ost;
	pthread_mutex_lock(&c->own_lock);
	e = sc_copy_ctx_copy(x, &a, rep);
	pthread_mutex_unlock(&c->own_lock);
	return e;
}

/* What is at BASE in DIR, for sc_copier_copy_path of a file whose stat
 * is IST: nothing (SC_FILE_NEW in A), or a regular file, not IST's, whose
 * stat goes to *DST_ST and A.  0, -EISDIR, -EINVAL, or the -errno of the
 * look. */
static int path_destination(int dir, const char *base,
			    const struct stat *ist, struct stat *dst_st,
			    struct sc_copy_args *a)
{
	if (fstatat(dir, base, dst_st, 0) < 0) {
		if (errno != ENOENT)
			return -errno;
		a->flags |= SC_FILE_NEW;
		return 0;
	}
	if (S_ISDIR(dst_st->st_mode))
		return -EISDIR;
	/* A FIFO, a device or a socket cannot be replaced atomically: it
	 * would be written into instead (round 3 of issue 36: a FIFO with
	 * no reader waited in open(2) for ever) */
	if (!S_ISREG(dst_st->st_mode))
		return -EINVAL;
	if (dst_st->st_dev == ist->st_dev && dst_st->st_ino == ist->st_ino)
		return -EINVAL;
	a->dst_st = dst_st;
	return 0;
}

int sc_copier_copy_path(struct sc_copier *c, const char *src,
			const char *dst, struct sc_copy_report *rep)
{
	struct sc_copy_args a = {
		.size = sizeof(a), .src_dirfd = AT_FDCWD, .src_name = src,
		.dst_fd = -1, .flags = FILE_ATOMIC | FILE_REPLACE,
	};
	_cleanup_close_ int in = -1;
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *dirname = NULL;
	const char *slash, *base;
	struct stat ist, dst_st;
	struct sc_copy_ctx *x;
	int e;

	if (!c || !src || !dst || !*src || !*dst || c->kernel_assumed ||
	    c->fs_assumed)
		return sc_fcopy_refuse(rep, -EINVAL);

	/* Looked at before it is opened: an open of a FIFO for reading
	 * would wake a writer that waits for a reader (issue 36), a device
	 * would see it.  O_NONBLOCK: a FIFO put in its place since must not
	 * be waited for before it can be refused. */
	if (stat(src, &ist) < 0)
		return sc_fcopy_refuse(rep, -errno);
	if (S_ISDIR(ist.st_mode))
		return sc_fcopy_refuse(rep, -EISDIR);
	if (!S_ISREG(ist.st_mode))
		return sc_fcopy_refuse(rep, -EINVAL);
	/* the context first: its fd_short function is asked by every open
	 * of a file, these two too */
	x = sc_copier_ctx(c);
	if (!x)
		return sc_fcopy_refuse(rep, -ENOMEM);
	in = sc_fcopy_open_retry(x, AT_FDCWD, src, O_RDONLY | O_CLOEXEC |
				 O_NOCTTY | O_NONBLOCK, 0);
	if (in < 0)
		return sc_fcopy_refuse(rep, -errno);
	if (fstat(in, &ist) < 0)
		return sc_fcopy_refuse(rep, -errno);
	if (S_ISDIR(ist.st_mode))
		return sc_fcopy_refuse(rep, -EISDIR);
	if (!S_ISREG(ist.st_mode))
		return sc_fcopy_refuse(rep, -EINVAL);
	if (fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK) < 0)
		return sc_fcopy_refuse(rep, -errno);

	slash = strrchr(dst, '/');
	base = slash ? slash + 1 : dst;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return sc_fcopy_refuse(rep, -EISDIR);
	dirname = dir_part(dst);
	if (!dirname)
		return sc_fcopy_refuse(rep, -ENOMEM);
	dir = sc_fcopy_open_retry(x, AT_FDCWD, dirname,
				  O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (dir < 0)
		return sc_fcopy_refuse(rep, -errno);
	e = path_destination(dir, base, &ist, &dst_st, &a);
	if (e < 0)
		return sc_fcopy_refuse(rep, e);
	a.src_fd = in;
	a.src_st = &ist;
	a.src_expect = &ist;
	a.dst_dirfd = dir;
	a.dst_name = base;
	pthread_mutex_lock(&c->own_lock);
	e = sc_copy_ctx_copy(x, &a, rep);
	pthread_mutex_unlock(&c->own_lock);
	return e;
}

int sc_copier_explain_fd(struct sc_copier *c, int in, int out,
			 struct sc_copy_report *rep)
{
	struct fcopy f;
	struct stat ist, ost;
	mode_t dst_mode;

	if (!c || !rep)
		return -EINVAL;
	sc_report_reset(rep);
	/* Nothing is read or written: an O_PATH descriptor or one of any
	 * access mode is enough to learn where the files are. */
	if (in < 0 || out < 0 || fstat(in, &ist) < 0 || fstat(out, &ost) < 0)
		return sc_fcopy_refuse(rep, -EBADF);
	if (S_ISDIR(ist.st_mode))
		return sc_fcopy_refuse(rep, -EISDIR);
	dst_mode = S_ISDIR(ost.st_mode) ? S_IFREG : ost.st_mode;
	if (c->fs_assumed) {
		rep->src_fs = c->assumed_src;
		rep->dst_fs = c->assumed_dst;
	} else {
		rep->src_fs = sc_copier_facts(c, in, &ist);
		rep->dst_fs = sc_copier_facts(c, out, &ost);
		if (!rep->src_fs || !rep->dst_fs)
			return sc_fcopy_refuse(rep, -ENOMEM);
	}
	rep->src_st = ist;
	f = (struct fcopy){ .c = c, .rep = rep };
	sc_fcopy_make_plan(&f, &ist, dst_mode);
	return 0;
}

/* The length of a file to compare: a block device's from its end. */
static off_t length_of(int fd, const struct stat *st)
{
	return S_ISBLK(st->st_mode) ? lseek(fd, 0, SEEK_END) : st->st_size;
}

/* Is FD (fstat ST) a file whose st_size is not its length: a regular
 * file on /proc, /sys and the other generated filesystems (issue 36:
 * /proc/cpuinfo, st_size 0, was found equal to an empty file)? */
static bool generated(struct sc_copier *c, int fd, const struct stat *st)
{
	return S_ISREG(st->st_mode) &&
	       sc_plan_size_untrusted(sc_copier_facts(c, fd, st));
}

/* sc_copier_verify_fd of files one of which is generated: both read to
 * their ends. */
static int verify_to_eof(struct sc_copier *c, int in, int out,
			 off_t *ret_bad)
{
	struct sc_copy_ctx *x = sc_copier_ctx(c);
	enum sc_verify_side side;
	off_t bad = 0;
	int v;

	if (!x)
		return -ENOMEM;
	pthread_mutex_lock(&c->own_lock);
	v = sc_engine_buf(&x->eng);
	if (v == 0)
		v = sc_verify_to_eof(in, out, c->flags & SC_COPY_SYNC,
				     x->eng.buf, x->eng.bufsize, &bad, &side);
	pthread_mutex_unlock(&c->own_lock);
	if (v == 0 && ret_bad)
		*ret_bad = bad;
	return v;
}

int sc_copier_verify_fd(struct sc_copier *c, int in, int out,
			off_t *ret_bad)
{
	struct stat ist, ost;
	enum sc_verify_side side;
	struct sc_copy_ctx *x;
	off_t bad = 0, ilen, olen;
	unsigned how = VERIFY_REREAD |
		       (c && (c->flags & SC_COPY_SYNC) ? VERIFY_DURABLE : 0);
	int e, v;

	if (!c)
		return -EINVAL;
	e = check_pair(in, out, true, &ist, &ost);
	if (e < 0)
		return e;
	/* Both are read from offset 0, and the source a second time: only
	 * files that hold their bytes can be compared. */
	if ((!S_ISREG(ist.st_mode) && !S_ISBLK(ist.st_mode)) ||
	    (!S_ISREG(ost.st_mode) && !S_ISBLK(ost.st_mode)))
		return -EINVAL;
	if (generated(c, in, &ist) || generated(c, out, &ost))
		return verify_to_eof(c, in, out, ret_bad);
	ilen = length_of(in, &ist);
	olen = length_of(out, &ost);
	if (ilen < 0 || olen < 0)
		return -errno;
	/* A copy shorter or longer than its source is never equal (issue
	 * 29: it compared the copy's length of bytes only). */
	if (ilen != olen) {
		if (ret_bad)
			*ret_bad = MIN(ilen, olen);
		return 0;
	}
	if ((S_ISREG(ist.st_mode) &&
	     (uint64_t)ist.st_blocks * 512 < (uint64_t)ilen) ||
	    (S_ISREG(ost.st_mode) &&
	     (uint64_t)ost.st_blocks * 512 < (uint64_t)olen))
		how |= VERIFY_SPARSE;
	x = sc_copier_ctx(c);
	if (!x)
		return -ENOMEM;
	pthread_mutex_lock(&c->own_lock);
	e = sc_engine_buf(&x->eng);
	v = e < 0 ? e :
	    sc_verify(in, out, ilen, how, NULL, x->eng.buf, x->eng.bufsize,
		      &bad, &side);
	pthread_mutex_unlock(&c->own_lock);
	if (v == 0 && ret_bad)
		*ret_bad = bad;
	return v;
}
