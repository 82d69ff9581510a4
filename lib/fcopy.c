/* The one pipeline: everything done to one regular file, phase by phase
 * -- open the source, compare it (SC_COPY_IF_CHANGED), open the
 * destination (in place, removed first, or a temporary), plan, copy with
 * fallback, see whether the source held still, verify and repair once,
 * the metadata, sync, commit -- or, when something fails, leave no
 * destination that looks complete.  smartcp copies every regular file
 * through it, and so does any program that links libsmartcp; the simple
 * calls (simple.c: copy_fd, copy_path, verify_fd) are this pipeline
 * too.  Nothing is printed: what happened is the report's (report.c),
 * each failure an event a program words as it likes.
 *
 * This file holds the pipeline's order (copy_file()), its source side
 * and the calls that run it (sc_copy_ctx_copy, _explain and _meta);
 * the destination's phases are fcopy_dest.c's, the data and what
 * checks it fcopy_verify.c's, and what they share fcopy_shared.c's. */
#include "common.h"
#include "fcopy.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---- one file ------------------------------------------------------------- */

/* What same_content() and already_equal() find: the destination is to
 * be copied, or already holds the source's bytes. */
enum { TO_COPY = 0, ALREADY_EQUAL = 1 };

/* SC_COPY_IF_CHANGED: does the destination already hold exactly IN's
 * bytes?  ALREADY_EQUAL, TO_COPY, or -errno.  Reads both to the end:
 * sizes of generated files mean nothing. */
static int same_content(struct fcopy *f)
{
	struct sc_engine *eng = &f->x->eng;
	_cleanup_close_ int own = -1;
	struct stat st;
	size_t half;
	char *a, *b;
	off_t at = 0;
	int fd, e;

	if (f->given_out) {
		fd = f->a->dst_fd;
	} else {
		fd = own = sc_fcopy_open_retry(f->x, f->a->dst_dirfd,
					       f->a->dst_name,
					       O_RDONLY | O_CLOEXEC | O_NOCTTY,
					       0);
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return TO_COPY;
	if (f->size_trusted && st.st_size != f->ist.st_size)
		return TO_COPY;
	e = sc_engine_buf(eng);
	if (e < 0)
		return e;
	half = eng->bufsize / 2;
	a = eng->buf;
	b = eng->buf + half;
	for (;;) {
		ssize_t n = pread(f->in, a, half, at), m;

		if (n < 0)
			return -errno;
		m = pread(fd, b, half, at);
		if (m < 0)
			return -errno;
		if (n != m || memcmp(a, b, (size_t)n))
			return TO_COPY;
		if (n == 0)
			return ALREADY_EQUAL;
		at += n;
	}
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A step of the source that failed with E: said (KIND), and returned. */
static int source_failed(struct fcopy *f, enum sc_event_kind kind, int e)
{
	sc_fcopy_event(f, kind, e, true);
	return e;
}

/* What the source is (MODE) may refuse it before a byte is read: a
 * symlink not to be followed (-ELOOP) and a socket by its name (-ENXIO),
 * as open(2) refuses them, with their event; a directory (-EISDIR); and,
 * without SC_FILE_SOURCE_ANY, anything but a regular file (-EINVAL).  The
 * caller's descriptor of a socket is read as a stream, as a pipe's is
 * (round 3 of issue 36: it was refused with -ENXIO, and explained as 0). */
static int source_kind(struct fcopy *f, mode_t mode)
{
	if (S_ISLNK(mode))
		return source_failed(f, SC_EV_OPEN_SOURCE, -ELOOP);
	if (S_ISDIR(mode))
		return -EISDIR;
	if (!(f->flags & SC_FILE_SOURCE_ANY) && !S_ISREG(mode))
		return -EINVAL;
	if (S_ISSOCK(mode) && f->a->src_fd < 0)
		return source_failed(f, SC_EV_OPEN_SOURCE, -ENXIO);
	return 0;
}

/* What the caller's descriptor must allow: reading, writing, and
 * reading back where it is a file (SC_COPY_VERIFY, SC_COPY_IF_CHANGED's
 * comparison). */
enum { NEED_READ = 1, NEED_WRITE = 2, NEED_READ_BACK = 4 };

/* Is the caller's descriptor FD what sc_copy_args says it is: open (not
 * O_PATH) for what NEED says, and, a regular file or a block device to be
 * written, not O_APPEND, where pwrite(2) appends wherever it is asked to
 * write and copy_file_range and FICLONE refuse it?  As sc_copier_copy_fd
 * checks its own: 0, or -EBADF before anything is touched (round 3 of
 * issue 36: a destination was tried road by road, appended to, or
 * emptied for a source that could not be read, and explain said 0). */
static int given_fd_ok(int fd, unsigned need)
{
	int fl = fcntl(fd, F_GETFL), acc;
	bool can_read, can_write;
	struct stat st;

	if (fl < 0 || (fl & O_PATH) || fstat(fd, &st) < 0)
		return -EBADF;
	acc = fl & O_ACCMODE;
	can_read = acc == O_RDONLY || acc == O_RDWR;
	can_write = acc == O_WRONLY || acc == O_RDWR;
	if (((need & NEED_READ) && !can_read) ||
	    ((need & NEED_WRITE) && !can_write))
		return -EBADF;
	/* a stream is not read back, and keeps no offsets: SC_COPY_VERIFY
	 * refuses it later, with -EOPNOTSUPP */
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return 0;
	if (((need & NEED_WRITE) && (fl & O_APPEND)) ||
	    ((need & NEED_READ_BACK) && !can_read))
		return -EBADF;
	return 0;
}

/* The source by its name into F->in and F->ist: opened for reading, or,
 * to explain (F->dry), O_PATH, so that a FIFO is neither waited on nor
 * woken and a device sees no open.  Without SC_FILE_SOURCE_ANY only a
 * regular file is opened for reading: the name is looked at first, since
 * an open of a FIFO for reading waits for a writer (issue 36: for ever)
 * and wakes one that waits.  0 or -errno, with its event. */
static int open_named_source(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	bool nofollow = f->flags & SC_FILE_NOFOLLOW;
	int flags = O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
	struct stat st;
	int e;

	if (f->dry) {
		flags |= O_PATH;
	} else if (!(f->flags & SC_FILE_SOURCE_ANY)) {
		if (fstatat(a->src_dirfd, a->src_name, &st,
			    nofollow ? AT_SYMLINK_NOFOLLOW : 0) < 0)
			return source_failed(f, SC_EV_OPEN_SOURCE, -errno);
		e = source_kind(f, st.st_mode);
		if (e < 0)
			return e;
		/* replaced by a FIFO since: refused below, not waited on */
		flags |= O_RDONLY | O_NOCTTY | O_NONBLOCK;
	} else {
		flags |= O_RDONLY | O_NOCTTY;
	}
	f->in = sc_fcopy_open_retry(f->x, a->src_dirfd, a->src_name, flags, 0);
	if (f->in < 0)
		return source_failed(f, SC_EV_OPEN_SOURCE, -errno);
	f->own_in = true;
	f->rep->flags |= SC_REPORT_OPENED;
	if (fstat(f->in, &f->ist) < 0)
		return source_failed(f, SC_EV_STAT_SOURCE, -errno);
	/* A regular file reads as it would without O_NONBLOCK, but a FUSE
	 * server is told the flag, and splice takes it for its pipe's: gone
	 * (F_SETFL sets only the flags it may change, and none other was
	 * asked). */
	if ((flags & O_NONBLOCK) && S_ISREG(f->ist.st_mode) &&
	    fcntl(f->in, F_SETFL, 0) < 0)
		return source_failed(f, SC_EV_OPEN_SOURCE, -errno);
	return 0;
}

/* Opens the source (unless the caller did), and checks that it is a
 * source this call copies (source_kind()) and the file the caller
 * expects.  To explain, what the open for reading would refuse is asked
 * (a file that may not be read).  Its facts: the assumed ones to explain
 * another machine.  0 or -errno, with its event. */
static int open_source(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct sc_copy_report *rep = f->rep;
	int e;

	if (a->src_fd >= 0) {
		e = given_fd_ok(a->src_fd, NEED_READ);
		if (e < 0)
			return source_failed(f, SC_EV_OPEN_SOURCE, e);
		f->in = a->src_fd;
		if (a->src_st)
			f->ist = *a->src_st;
		else if (fstat(f->in, &f->ist) < 0)
			return source_failed(f, SC_EV_STAT_SOURCE, -errno);
	} else {
		e = open_named_source(f);
		if (e < 0)
			return e;
	}
	rep->flags |= SC_REPORT_OPENED;
	rep->src_st = f->ist;
	e = source_kind(f, f->ist.st_mode);
	if (e < 0)
		return e;
	if (f->dry && a->src_fd < 0 &&
	    faccessat(a->src_dirfd, a->src_name, R_OK, AT_EACCESS |
		      (f->flags & SC_FILE_NOFOLLOW ?
		       AT_SYMLINK_NOFOLLOW : 0)) < 0)
		return source_failed(f, SC_EV_OPEN_SOURCE, -errno);
	if (a->src_expect && !same_file(&f->ist, a->src_expect))
		return source_failed(f, SC_EV_REPLACED, -ESTALE);
	rep->src_fs = f->c->fs_assumed ? f->c->assumed_src :
		      sc_copier_facts(f->c, f->in, &f->ist);
	f->size_trusted = !sc_plan_size_untrusted(rep->src_fs);
	return 0;
}

/* SC_COPY_IF_CHANGED: a destination that already holds the source's
 * bytes only gets its metadata.  ALREADY_EQUAL: done
 * (SC_REPORT_UNCHANGED), TO_COPY, or -errno: failed. */
static int already_equal(struct fcopy *f)
{
	char buf[64];
	struct sc_meta_at s, d;
	int e;

	/* the caller's descriptor is compared as it is (same_content()
	 * looks), whatever DST_ST says */
	if (!(f->c->flags & SC_COPY_IF_CHANGED) || !S_ISREG(f->ist.st_mode) ||
	    (!f->given_out &&
	     (!f->have_old || !S_ISREG(f->old.st_mode))))
		return TO_COPY;
	e = same_content(f);
	if (e < 0) {
		sc_fcopy_event(f, SC_EV_COMPARE, e, true);
		return e;
	}
	if (e == TO_COPY)
		return TO_COPY;
	f->rep->flags |= SC_REPORT_UNCHANGED;
	/* the caller's descriptor gets bytes only, never metadata (round 3
	 * of issue 36: it was set by a name there is none of: -ESTALE) */
	if (f->given_out)
		return ALREADY_EQUAL;
	f->m.have_old = true;
	f->m.old_mode = f->old.st_mode;
	if (sc_copier_meta_match(f->c, &f->ist, &f->old))
		return ALREADY_EQUAL;
	s = sc_fcopy_src_at(f, buf, sizeof(buf));
	d = sc_fcopy_dst_at(f);
	/* the file compared, and no other, gets the metadata */
	f->m.old_known = true;
	f->m.old_dev = f->old.st_dev;
	f->m.old_ino = f->old.st_ino;
	e = sc_meta_apply(f->c, f->rep, f->in, -1, &s, &d, &f->ist, &f->m);
	return e < 0 ? e : ALREADY_EQUAL;
}

/* What the copy does with the caller's destination descriptor. */
static unsigned dest_needs(const struct fcopy *f)
{
	unsigned cf = f->c->flags;

	return (f->flags & SC_FILE_COMPARE_ONLY ? 0 : NEED_WRITE) |
	       (cf & (SC_COPY_VERIFY | SC_COPY_IF_CHANGED) ?
		NEED_READ_BACK : 0);
}

/* The destination as it is now (F->old, when it exists), which must
 * not be the source: copied onto itself -- by its own name, another of
 * its names, a symlink to it or a descriptor of it -- a file would be
 * emptied before its first byte is read (issue 36: sc_copy_ctx_copy
 * returned 0 and left it empty, also with SC_COPY_VERIFY, where both
 * ends were then empty and "equal").  0, or -EINVAL: nothing touched. */
static int look_at_destination(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct stat st;
	int e;

	if (a->dst_st) {	/* the caller's stat: no second one */
		f->old = *a->dst_st;
		f->have_old = f->dst_exists = true;
	} else if (f->given_out) {
		f->dst_exists = true;	/* OUT itself: no model to take */
		if (fstat(a->dst_fd, &st) == 0 && same_file(&st, &f->ist))
			return -EINVAL;
	} else if (!(f->flags & SC_FILE_NEW)) {
		if (fstatat(a->dst_dirfd, a->dst_name, &f->old, 0) == 0)
			f->have_old = f->dst_exists = true;
		else if (errno != ENOENT)
			f->dst_exists = true;	/* the open will say */
	}
	if (f->have_old && same_file(&f->old, &f->ist))
		return -EINVAL;
	/* the caller's descriptor, where data is to go into it, or to be
	 * read from it */
	if (f->given_out && !(f->c->flags & SC_COPY_NO_DATA) &&
	    (e = given_fd_ok(a->dst_fd, dest_needs(f))) < 0) {
		sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	return 0;
}

/* A copy that failed with E after its destination was opened: what it
 * made, or what it overwrote, is left as the pipeline promises. */
static int abandon(struct fcopy *f, int e)
{
	if (e == -ECANCELED)
		sc_fcopy_event(f, SC_EV_CANCELED, e, true);
	sc_fcopy_abandon_file(f);
	return e;
}

/* The data and all that follows it: copy and verify, the metadata, the
 * commit, the directory's fsync.  0 or -errno. */
static int copy_data(struct fcopy *f)
{
	int e, meta_err = 0;

	e = sc_fcopy_copy_and_verify(f);
	if (!e && sc_fcopy_canceled(f))
		e = -ECANCELED;
	if (!e)
		e = sc_fcopy_finish_file(f, &meta_err);
	if (e)
		return abandon(f, e);
	sc_target_partial_end(f->x);
	if ((f->c->flags & SC_COPY_SYNC) && !f->given_out) {
		struct sc_meta_at at = f->atomic ? sc_fcopy_atomic_at(f) :
						 sc_fcopy_dst_at(f);

		e = sc_target_fsync_dir(at.dirfd, at.name);
		if (e < 0) {
			sc_fcopy_event(f, SC_EV_SYNC_DIR, e, true);
			return e;
		}
	}
	return meta_err;
}

/* The one pipeline for one file: every decision of the copy, in its
 * order.  To explain (F->dry) it runs the same code and stops before
 * the first thing that would change a file -- the destination opened for
 * writing, removed, or a temporary made -- with each of those asked of
 * the kernel instead, and the plan made as the copy would make it; the
 * comparison of SC_COPY_IF_CHANGED, which reads both files, is not
 * made. */
static int copy_file(struct fcopy *f)
{
	int e;

	e = open_source(f);
	if (e < 0)
		return e;
	e = look_at_destination(f);
	if (e < 0)
		return e;
	e = f->dry ? TO_COPY : already_equal(f);
	if (e != TO_COPY)
		return e == ALREADY_EQUAL ? 0 : e;
	if (f->flags & SC_FILE_COMPARE_ONLY)
		return 0;
	if (sc_fcopy_canceled(f))
		return -ECANCELED;
	e = sc_fcopy_open_destination(f);
	if (e < 0)
		return e;
	e = sc_fcopy_prepare_destination(f);
	if (f->dry)
		return e;
	return e ? abandon(f, e) : copy_data(f);
}

/* The report a call fills: the caller's, or the context's own. */
static struct sc_copy_report *report_of(struct sc_copy_ctx *x,
					struct sc_copy_report *rep)
{
	if (rep)
		return rep;
	if (!x->own_rep && sc_copy_report_new(&x->own_rep) < 0)
		return NULL;
	return x->own_rep;
}

/* Bad input: an error code, nothing touched. */
static bool args_ok(const struct sc_copy_ctx *x,
		    const struct sc_copy_args *a)
{
	return x && a && a->size >= sizeof(struct sc_copy_args) &&
	       !(a->flags & ~(FILE_FLAGS | FILE_ATOMIC | FILE_REPLACE)) &&
	       (a->src_fd >= 0 || a->src_name) &&
	       (a->dst_fd >= 0 || a->dst_name) &&
	       (!(a->flags & SC_FILE_COMPARE_ONLY) ||
		(x->c->flags & SC_COPY_IF_CHANGED));
}

/* sc_copy_ctx_copy, or, DRY, sc_copy_ctx_explain: the one pipeline. */
static int run(struct sc_copy_ctx *x, const struct sc_copy_args *args,
	       struct sc_copy_report *rep, bool dry)
{
	struct sc_copier *c;
	struct fcopy f;
	int e;

	/* the calls that copy refuse assumed facts and kernels */
	if (!args_ok(x, args) ||
	    (!dry && (x->c->kernel_assumed || x->c->fs_assumed)))
		return sc_fcopy_refuse(rep, -EINVAL);
	c = x->c;
	rep = report_of(x, rep);
	if (!rep)
		return -ENOMEM;
	sc_report_reset(rep);
	f = (struct fcopy){
		.x = x, .c = c, .a = args, .rep = rep, .dry = dry,
		.flags = args->flags, .in = -1, .out = -1, .tdirfd = -1,
		.given_out = args->dst_fd >= 0,
		/* SC_COPY_NO_DATA writes no data: the metadata goes on the
		 * file in place, which a temporary renamed over it would
		 * empty */
		.atomic = ((c->flags & SC_COPY_ATOMIC) ||
			   (args->flags & FILE_ATOMIC)) &&
			  !(c->flags & SC_COPY_NO_DATA) && args->dst_fd < 0,
		.clone_only = c->reflink == SC_REFLINK_ALWAYS &&
			      !c->roads_forced,
	};
	e = copy_file(&f);
	if (f.own_in)
		close(f.in);
	if (f.tdirfd >= 0)
		close(f.tdirfd);
	free(f.tname);
	rep->error = e;
	return e;
}

int sc_copy_ctx_copy(struct sc_copy_ctx *x, const struct sc_copy_args *args,
		     struct sc_copy_report *rep)
{
	return run(x, args, rep, false);
}

int sc_copy_ctx_explain(struct sc_copy_ctx *x,
			const struct sc_copy_args *args,
			struct sc_copy_report *rep)
{
	return run(x, args, rep, true);
}

/* Is the destination of A, as it is now (a name not followed), the
 * source's inode (A->src_st)?  Its metadata would be set from itself:
 * an old mode narrowed before the chown, then taken as the model, stays
 * narrowed (round 3 of issue 36: a 0640 file came out 0600, its ACL's
 * mask emptied). */
static bool meta_onto_itself(const struct sc_meta_args *a)
{
	struct stat st;
	int r = a->dst_fd >= 0 ? fstat(a->dst_fd, &st) :
		fstatat(a->dst_dirfd, a->dst_name, &st, AT_SYMLINK_NOFOLLOW);

	return r == 0 && same_file(&st, a->src_st);
}

/* Is FD (>= 0) a descriptor opened O_PATH? */
static bool is_opath(int fd)
{
	int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;

	return fl >= 0 && (fl & O_PATH);
}

int sc_copy_ctx_meta(struct sc_copy_ctx *x, const struct sc_meta_args *args,
		     struct sc_copy_report *rep)
{
	struct sc_made m;
	struct sc_meta_at s, d;
	int e;

	if (!x || !args || args->size < sizeof(struct sc_meta_args) ||
	    !args->src_st || (args->made & ~((SC_MADE_PARENT << 1) - 1)) ||
	    (args->src_fd < 0 && !args->src_name) ||
	    (args->dst_fd < 0 && !args->dst_name) ||
	    meta_onto_itself(args)) {
		return sc_fcopy_refuse(rep, -EINVAL);
	}
	rep = report_of(x, rep);
	if (!rep)
		return -ENOMEM;
	sc_report_reset(rep);
	s = (struct sc_meta_at){ args->src_dirfd,
				 args->src_name ? args->src_name : "" };
	d = (struct sc_meta_at){ args->dst_dirfd,
				 args->dst_name ? args->dst_name : "" };
	if (args->made & SC_MADE_PARENT) {
		e = sc_meta_parent(x->c, rep, args->src_fd, args->dst_fd, &s,
				   &d, args->src_st,
				   args->made & SC_MADE_RESTORE);
		rep->error = e;
		return e;
	}
	m = (struct sc_made){
		.created = args->made & SC_MADE_CREATED,
		.mode_known = args->made & SC_MADE_MODE_KNOWN,
		.restore = args->made & SC_MADE_RESTORE,
		.mode = args->made_mode, .omitted = args->omitted,
		.extra = args->extra, .have_old = args->made & SC_MADE_OLD,
		.old_mode = args->old_mode,
		/* the caller's descriptors: open for I/O, or held O_PATH */
		.in_opath = is_opath(args->src_fd),
		.out_opath = is_opath(args->dst_fd),
	};
	e = sc_meta_apply(x->c, rep, args->src_fd, args->dst_fd, &s, &d,
			  args->src_st, &m);
	rep->error = e;
	return e;
}
