/* The copy of one regular file (or, without -R, of the data of a FIFO or
 * device), phase by phase: open the source, prepare the destination, copy
 * and verify, then finish, or abandon what was written.  What the walk
 * decided before (the destination policy, hard links) is dest.c's and
 * walk.c's; whether the copy came out right is proof.c's. */
#include "system.h"
#include "file.h"
#include "walk_state.h"
#include "attrs.h"
#include "proof.h"
#include "change.h"
#include "copy.h"
#include "dest.h"
#include "plan.h"
#include "quote.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Roads that failed "not here" for a pair of filesystems. */
struct learned {
	const struct sc_fs_facts *src, *dst;
	unsigned roads;
};

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Roads that failed "not here" for this pair of filesystems. */
static unsigned learned_get(struct run *run, const struct sc_fs_facts *s,
			    const struct sc_fs_facts *d)
{
	unsigned roads = 0;

	pthread_mutex_lock(&run->lock);
	for (size_t i = 0; i < run->n_learned; i++)
		if (run->learned[i].src == s && run->learned[i].dst == d)
			roads = run->learned[i].roads;
	pthread_mutex_unlock(&run->lock);
	return roads;
}

static void learned_add(struct run *run, const struct sc_fs_facts *s,
			const struct sc_fs_facts *d, unsigned roads)
{
	struct learned *n;
	size_t i;

	pthread_mutex_lock(&run->lock);
	for (i = 0; i < run->n_learned; i++)
		if (run->learned[i].src == s && run->learned[i].dst == d)
			break;
	if (i == run->n_learned) {
		n = realloc(run->learned, (run->n_learned + 1) * sizeof(*n));
		if (!n)
			goto out;
		run->learned = n;
		run->learned[run->n_learned++] = (struct learned){ s, d, 0 };
	}
	run->learned[i].roads |= roads;
out:
	pthread_mutex_unlock(&run->lock);
}

static void make_plan(struct walk *w, struct sc_record *rec,
		      const struct stat *sst, mode_t dst_mode)
{
	struct sc_plan_input in = {
		.src_fs = rec->src_fs, .dst_fs = rec->dst_fs,
		.src_mode = sst->st_mode, .dst_mode = dst_mode,
		.src_size = sst->st_size, .kernel = w->kernel,
		.reflink = w->o->reflink, .roads = w->o->roads,
		.sparse = w->o->sparse,
		.roads_forced = w->o->roads_forced,
	};
	in.learned = learned_get(w->run, rec->src_fs, rec->dst_fs);
	sc_plan_make(&in, &rec->plan);
	rec->planned = true;
}

/* --if-changed: does DST already hold exactly IN's bytes?  1 yes, 0 no,
 * -errno.  Reads both to the end: sizes of generated files mean nothing. */
static int same_content(struct walk *w, int in, const struct stat *ist,
			bool size_trusted)
{
	_cleanup_close_ int fd = sc_walk_open_dest(w, O_RDONLY | O_CLOEXEC |
						   O_NOCTTY, 0);
	size_t half = w->ctx.bufsize / 2;
	char *a = w->ctx.buf, *b = w->ctx.buf + half;
	struct stat st;
	off_t at = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (size_trusted && st.st_size != ist->st_size)
		return 0;
	for (;;) {
		ssize_t n = pread(in, a, half, at), m;

		if (n < 0)
			return -errno;
		m = pread(fd, b, half, at);
		if (m < 0)
			return -errno;
		if (n != m || memcmp(a, b, (size_t)n))
			return 0;
		if (n == 0)
			return 1;
		at += n;
	}
}


/* One regular file being copied: what the phases of copy_file() share. */
struct file_copy {
	const char *src, *dst;
	struct sc_record *rec;
	/* given: the walk's stats of the source (NULL: IN is already open
	 * as IST) and of the existing destination (NULL: none) */
	const struct stat *sst, *dst_st;
	bool follow;		/* symlinks to the source are followed */
	int in, out;		/* the source (closed by sc_file_copy()) */
	bool opened;		/* IN was opened: --debug says how it went */
	struct stat ist, ost, old;
	struct timespec t0;
	bool have_old;		/* OLD is the existing destination's stat */
	bool dst_exists, created, atomic, named_tmp;
	bool exclusive;		/* created here with O_EXCL: the name is ours */
	/* --atomic through a symlink: the file the link leads to, as its
	 * directory (TDIRFD, ours) and its name there; else -1 and NULL */
	int tdirfd;
	char *tname;
	bool size_trusted, out_seekable;
	bool clone_only;	/* --reflink=always */
	bool removable;		/* a failure removes the destination */
	bool shared;		/* ... or empties it: it has other names */
	struct sc_made m;
};

/* --explain's open of the source: O_PATH, so that a FIFO is neither
 * waited on nor woken (a writer waiting in open() would go on), and a
 * device sees no open; no data is ever read.  What the run's open would
 * refuse is refused as it would be: a socket (ENXIO), a file we may not
 * read, a symlink not to be followed.  A descriptor, or -1 with errno. */
static int explain_open_source(struct walk *w, struct file_copy *f)
{
	int nofollow = f->follow ? 0 : AT_SYMLINK_NOFOLLOW;
	int fd = sc_walk_open_source(w, O_PATH | O_CLOEXEC |
				     (f->follow ? 0 : O_NOFOLLOW));
	struct stat st;
	int e = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (S_ISSOCK(st.st_mode))
		e = ENXIO;
	else if (S_ISLNK(st.st_mode))
		e = ELOOP;
	else if (faccessat(w->at_fd, w->at_name, R_OK, AT_EACCESS | nofollow) < 0)
		e = errno;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Opens the source (unless the fast path did), and checks that it is
 * the file the walk saw.  0, or -1 with the message said. */
static int open_source(struct walk *w, struct file_copy *f)
{
	struct sc_record *rec = f->rec;

	if (f->in < 0) {
		f->in = w->o->explain ? explain_open_source(w, f) :
			sc_walk_open_source(w, O_RDONLY | O_CLOEXEC | O_NOCTTY |
					    (f->follow ? 0 : O_NOFOLLOW));
		if (f->in < 0) {
			sc_report_error(&w->msgs, errno,
					_("cannot open %s for reading"),
					sc_quote(f->src));
			return -1;
		}
		f->opened = true;
		if (fstat(f->in, &f->ist) < 0) {
			sc_report_error(&w->msgs, errno, _("cannot fstat %s"),
					sc_quote(f->src));
			return -1;
		}
	}
	f->opened = true;
	if (f->sst && (f->ist.st_ino != f->sst->st_ino ||
		       f->ist.st_dev != f->sst->st_dev)) {
		sc_report_error(&w->msgs, 0,
				_("skipping file %s, as it was replaced while being copied"),
				sc_quote(f->src));
		return -1;
	}
	rec->src_fs = sc_walk_facts(w, f->in, &f->ist);
	rec->src_size = f->ist.st_size;
	rec->src_sparse = (uint64_t)f->ist.st_blocks * 512 <
			  (uint64_t)f->ist.st_size;
	f->size_trusted = !sc_plan_size_untrusted(rec->src_fs);
	return 0;
}

/* --if-changed: a destination that already holds the source's bytes
 * only gets its attributes.  1: done, 0: to be copied, -1: failed. */
static int already_equal(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	int e;

	if (!o->if_changed || !f->have_old || !S_ISREG(f->old.st_mode) ||
	    !S_ISREG(f->ist.st_mode))
		return 0;
	e = same_content(w, f->in, &f->ist, f->size_trusted);
	if (e < 0) {
		sc_report_error(&w->msgs, -e, _("error reading %s"),
				sc_quote(f->src));
		return -1;
	}
	if (e == 0)
		return 0;
	f->rec->unchanged = true;
	f->m.have_old = true;
	f->m.old_mode = f->old.st_mode;
	if (!sc_attrs_match(o, &f->ist, &f->old) &&
	    sc_walk_set_attrs(w, -1, -1, f->src, f->dst, &f->ist, &f->m) < 0) {
		w->msgs.failed = true;
		return -1;
	}
	f->rec->seconds = elapsed(&f->t0);
	sc_walk_report(w, f->rec);
	return 1;
}

/* Where --atomic puts its temporary and renames it to: the file a copy
 * through DST writes, the last target of a symlink DST leads through
 * (F->tdirfd), else DST. */
static struct sc_at atomic_at(const struct walk *w, const struct file_copy *f)
{
	if (f->tdirfd >= 0)
		return (struct sc_at){ f->tdirfd, f->tname, f->dst };
	return sc_walk_dst(w, f->dst);
}

/* --atomic onto a symlink: the copy in place writes the file the link
 * leads to, and so does --atomic, with its temporary in that file's
 * directory, renamed over that file: the link stays a link, and its
 * target is the new file.  A link to nowhere is refused as it is
 * without --atomic.  0, or -1 with the message said. */
static int atomic_through_link(struct walk *w, struct file_copy *f)
{
	struct sc_at dst = sc_walk_dst(w, f->dst);
	struct stat st;
	int r = sc_dest_resolve(&dst, &f->tdirfd, &f->tname, &st);

	if (r < 0) {
		sc_report_error(&w->msgs, -r, _("cannot create regular file %s"),
				sc_quote(f->dst));
		return -1;
	}
	if (r == 0)
		return 0;
	if (!st.st_mode) {
		struct stat real;

		/* /dev/stdout -> /proc/self/fd/1 -> "pipe:[4026]": a link the
		 * kernel follows to a pipe, a socket or a deleted file,
		 * though its text names no file.  It is not dangling, and
		 * has no directory a temporary could be renamed in: it is
		 * written in place, as without --atomic. */
		if (fstatat(dst.dirfd, dst.name, &real, 0) == 0) {
			close(f->tdirfd);
			f->tdirfd = -1;
			free(f->tname);
			f->tname = NULL;
			f->dst_exists = f->have_old = true;
			f->old = real;
			f->atomic = false;
			return 0;
		}
		if (sc_dest_refuse_dangling(&w->msgs, &dst))
			return -1;
		f->dst_exists = f->have_old = false;	/* POSIXLY_CORRECT */
	} else {
		/* as it is now, not as the walk saw it through the link */
		f->dst_exists = f->have_old = true;
		f->old = st;
	}
	return 0;
}

/* The mode a new destination is made with: the source's permissions
 * without the bits that must wait (see struct sc_made), and writable by
 * us where xattrs are to be set on it.  Fills F->m's OMITTED and EXTRA,
 * which the attribute step gives back. */
static mode_t new_file_mode(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	mode_t mode = f->ist.st_mode & 0777;

	f->m.omitted = sc_attrs_omitted(o, f->ist.st_mode) & 0777;
	f->m.extra = o->preserve_xattr && !w->privileged ?
		     S_IWUSR & ~mode : 0;
	return (mode & ~f->m.omitted) | f->m.extra;
}

/* Opens the destination: a temporary (--atomic), the existing file, or
 * a new one made without the bits that must wait.  0, or -1 with the
 * message said (nothing to clean up). */
static int open_destination(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	int flags = (o->verify ? O_RDWR : O_WRONLY) | O_CLOEXEC | O_NOCTTY;
	struct sc_at dst = sc_walk_dst(w, f->dst);

	if (f->atomic && atomic_through_link(w, f) < 0)
		return -1;
	/* A running program cannot be opened for writing (ETXTBSY), but it
	 * can be replaced: --atomic renames over it, as install does. */
	if (f->atomic && f->have_old && !S_ISREG(f->old.st_mode))
		f->atomic = false;	/* a device or FIFO: write into it */

	if (f->atomic) {
		struct sc_at at = atomic_at(w, f);

		/* The temporary of a new file is made as the file itself
		 * would be; one that replaces a file is ours alone until it
		 * takes the old file's attributes (finish_file()). */
		f->out = sc_dest_atomic_open(&at, f->have_old ?
					     S_IRUSR | S_IWUSR :
					     new_file_mode(w, f),
					     &f->named_tmp);
		if (f->out < 0) {
			sc_report_error(&w->msgs, -f->out,
					_("cannot create regular file %s"),
					sc_quote(f->dst));
			return -1;
		}
	} else if (f->dst_exists) {
		/* --reflink=always must leave the old file intact when the
		 * clone is refused: clone over it, then cut it to size. */
		f->out = sc_walk_open_dest(w, flags | (f->clone_only ||
						       o->attributes_only ?
						       0 : O_TRUNC), 0);
		if (f->out < 0 && errno == ENOENT) {
			/* gone since it was stat'ed (another NFS client, say):
			 * made anew below, as cp does */
			f->dst_exists = f->have_old = false;
		} else if (f->out < 0 && o->force) {
			/* -f: a destination we cannot open goes, and a new
			 * one is made in its place */
			if (sc_dest_remove(&w->msgs, &dst, o->verbose,
					   false) < 0)
				return -1;
			f->dst_exists = f->have_old = false;
		} else if (f->out < 0) {
			/* cp's words, for an existing file too */
			sc_report_error(&w->msgs, errno,
					_("cannot create regular file %s"),
					sc_quote(f->dst));
			return -1;
		}
	}
	if (!f->atomic && !f->dst_exists) {
		f->out = sc_walk_open_dest(w, flags | O_CREAT | O_EXCL,
					   new_file_mode(w, f));
		f->exclusive = f->out >= 0;
		if (f->out < 0 && errno == EEXIST) {
			f->out = sc_dest_open_dangling(&w->msgs, &dst, flags,
						       f->ist.st_mode & 0777);
			if (f->out == -2)
				return -1;
		}
		if (f->out < 0) {
			sc_report_error(&w->msgs, errno,
					_("cannot create regular file %s"),
					sc_quote(f->dst));
			return -1;
		}
		f->created = true;
	}
	f->m.created = f->created || (f->atomic && !f->have_old);
	f->m.have_old = f->have_old;
	f->m.old_mode = f->have_old ? f->old.st_mode : 0;
	return 0;
}

/* Does the destination's name lead to the file written (F->ost), and
 * not to a symlink it was written through, or to what took its place? */
static bool name_leads_here(struct walk *w, const struct file_copy *f)
{
	struct stat st;

	return fstatat(w->dst_fd, w->dst_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == f->ost.st_dev && st.st_ino == f->ost.st_ino;
}

/* What the open destination is, what a signal or a failure does to it,
 * and the plan for the data.  0, or an errno for abandon_file(). */
static int prepare_destination(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;

	if (f->exclusive && w->parent_facts) {
		/* A file just made (O_EXCL) in a directory just made: a
		 * regular file on the directory's filesystem, no need to
		 * ask. */
		f->ost.st_mode = S_IFREG;
		rec->dst_fs = w->parent_facts;
	} else if (fstat(f->out, &f->ost) < 0) {
		int e = errno;

		sc_report_error(&w->msgs, e, _("cannot fstat %s"),
				sc_quote(f->dst));
		return e;
	} else {
		rec->dst_fs = sc_walk_facts(w, f->out, &f->ost);
	}
	f->out_seekable = S_ISREG(f->ost.st_mode) || S_ISBLK(f->ost.st_mode);
	/* Only a regular file of ours is ever removed: never /dev/null or
	 * another device or FIFO that was the destination. */
	f->removable = !f->atomic && !o->attributes_only &&
		       S_ISREG(f->ost.st_mode);
	/* A file with other names, or one written through a symlink (or
	 * /dev/stdout), is emptied, never removed: the name is not ours to
	 * take away, and the file must not look complete. */
	f->shared = f->removable && !f->exclusive &&
		    (f->ost.st_nlink > 1 || !name_leads_here(w, f));
	if (f->removable) {
		struct sc_at dst = sc_walk_dst(w, f->dst);

		sc_dest_partial_begin(w->thread, &dst, f->out,
				      f->exclusive && w->parent_facts ?
				      NULL : &f->ost, f->shared);
	}
	make_plan(w, rec, &f->ist, f->ost.st_mode);
	if (o->verify && !o->attributes_only &&
	    (!f->out_seekable ||
	     (lseek(f->out, 0, SEEK_CUR) < 0 && errno == ESPIPE))) {
		/* /dev/null, a FIFO, a terminal or a file opened as a
		 * stream (FUSE FOPEN_NONSEEKABLE) keeps nothing that could
		 * be read back: such a copy could never be proven, so
		 * nothing is written. */
		sc_report_error(&w->msgs, 0,
				_("cannot verify %s: nothing written there can be read back"),
				sc_quote(f->dst));
		rec->failure = "verify";
		return EOPNOTSUPP;
	}
	if (o->verify && !S_ISREG(f->ist.st_mode) &&
	    !S_ISBLK(f->ist.st_mode)) {
		/* A pipe cannot be read twice: its bytes must pass through
		 * smartcp to be checked. */
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if (r != SC_ROAD_RW && rec->plan.step[r].use) {
				rec->plan.step[r].use = false;
				rec->plan.step[r].why = N_("--verify of a stream");
				rec->plan.n_use--;
			}
	}
	return 0;
}

/* Only errors that belong to the filesystem pair are learned: EPERM or
 * ETXTBSY belong to one file. */
static void learn_from(struct walk *w, const struct sc_record *rec)
{
	unsigned roads = 0;

	for (int i = 0; i < rec->res.n_attempts; i++) {
		int err = -rec->res.attempt[i].err;

		if (err == EXDEV || err == EOPNOTSUPP || err == ENOSYS ||
		    err == ENOTTY)
			roads |= 1u << rec->res.attempt[i].road;
	}
	if (roads)
		learned_add(w->run, rec->src_fs, rec->dst_fs, roads);
}

/* Says why the data could not be copied (E = -errno), in cp's words. */
static void say_copy_failed(struct walk *w, const struct file_copy *f,
			    int e)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;
	const struct sc_copy_result *res = &rec->res;
	enum sc_road last = res->n_attempts ?
			    res->attempt[res->n_attempts - 1].road :
			    SC_ROAD__MAX;

	/* with no attempt at all, the clone was already refused for this
	 * pair of filesystems */
	if (o->reflink == SC_REFLINK_ALWAYS &&
	    (!res->n_attempts || last == SC_ROAD_CLONE)) {
		rec->failure = "clone";
		sc_report_error(&w->msgs, -e, _("failed to clone %s from %s"),
				sc_quote(f->dst), sc_quote(f->src));
	} else if (res->extend_failed) {
		rec->failure = "write";
		sc_report_error(&w->msgs, -e, _("failed to extend %s"),
				sc_quote(f->dst));
	} else if (o->as_cp && res->n_attempts && last == SC_ROAD_RANGE) {
		/* cp's words for a copy_file_range that failed; under its
		 * own name smartcp finds the end that failed
		 * (road_range.c) */
		rec->failure = "copy";
		sc_report_error(&w->msgs, -e, _("error copying %s to %s"),
				sc_quote(f->src), sc_quote(f->dst));
	} else if (res->side == SC_SIDE_READ) {
		rec->failure = "read";
		sc_report_error(&w->msgs, -e, _("error reading %s"),
				sc_quote(f->src));
	} else {
		rec->failure = "write";
		sc_report_error(&w->msgs, -e, _("error writing %s"),
				sc_quote(f->dst));
	}
}

/* The data, by the plan's roads; then whether the source changed
 * meanwhile, and --verify.  0, or an errno for abandon_file(). */
static int copy_and_verify(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;
	int e;

	w->current = f->src;
	w->current_size = f->ist.st_size;
	if (o->attributes_only)
		return 0;
	e = sc_copy_data(&w->ctx, f->in, f->out, &f->ist, f->out_seekable,
			 &rec->plan, f->size_trusted, &rec->res);
	rec->copied = true;
	learn_from(w, rec);
	if (e == 0 && f->clone_only && f->dst_exists &&
	    ftruncate(f->out, f->ist.st_size) < 0) {
		e = -errno;
		rec->res.side = SC_SIDE_WRITE;
	}
	/* Did the source change while it was copied?  Only regular files
	 * have a content that a size and times identify: a FIFO or a
	 * device is read once, as it comes. */
	if (e == 0 && S_ISREG(f->ist.st_mode) &&
	    sc_proof_source_changed(w, f->src, f->in, f->follow, &f->ist,
				    !f->size_trusted, &rec->change) &&
	    (e = sc_proof_settle_changed(rec, f->out, f->out_seekable &&
					 S_ISREG(f->ost.st_mode),
					 !f->size_trusted)) < 0)
		rec->res.side = SC_SIDE_WRITE;
	if (e < 0) {
		rec->err = e;
		if (f->clone_only && f->dst_exists && !f->created)
			f->removable = false;	/* untouched: keep it */
		say_copy_failed(w, f, e);
		return -e;
	}
	if (o->verify) {
		e = rec->change.how == SC_CHANGE_NONE ?
			sc_proof_verify(w, rec, f->in, f->out, f->ost.st_mode,
					&f->ist, f->out_seekable) :
			sc_proof_verify_changed(w, rec, f->in, f->out, f->ost.st_mode,
						f->out_seekable, f->follow,
						!f->size_trusted);
		if (e < 0) {
			rec->err = e;
			return -e;
		}
	} else if (rec->change.how != SC_CHANGE_NONE) {
		/* As cp, the copy is kept (it holds what was read) and, as
		 * tar, the run fails; GNU cp says nothing, and under its name
		 * neither does smartcp. */
		sc_proof_say_changed(w, rec, o->allow_changing_source || o->as_cp);
	}
	return 0;
}

/* Attributes, --sync, the rename of --atomic's temporary and the close.
 * 0 (OUT is closed), or an errno for abandon_file(). */
static int finish_file(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;
	int e;

	if (f->atomic && f->have_old) {
		/* The new inode first becomes what the old one would be
		 * after an overwrite in place; then --preserve does to it
		 * what it would have done to the old one. */
		const struct sc_attrs_env env = {
			.o = o, .xattr_rules = w->xattr_rules,
			.umask = w->umask, .privileged = w->privileged,
			.msgs = &w->msgs,
		};
		struct sc_at dst = atomic_at(w, f);

		if (sc_attrs_take_old(&env, f->out, &dst, &f->old) < 0) {
			rec->err = -EPERM;
			return EPERM;
		}
	}
	if (sc_walk_set_attrs(w, f->in, f->out, f->src, f->dst, &f->ist,
			      &f->m) < 0) {
		w->msgs.failed = true;
		if (f->atomic)
			return EPERM;
	}
	/* A FIFO, a terminal or a character device has nothing to sync:
	 * fsync(2) says EINVAL there, after every byte was delivered. */
	if (o->sync && fsync(f->out) < 0 &&
	    !(errno == EINVAL && !S_ISREG(f->ost.st_mode) &&
	      !S_ISBLK(f->ost.st_mode))) {
		e = errno;
		sc_report_error(&w->msgs, e, _("error writing %s"),
				sc_quote(f->dst));
		rec->err = -e;
		return e;
	}
	if (f->atomic) {
		struct sc_at dst = atomic_at(w, f);

		e = sc_dest_atomic_commit(f->out, &dst, f->named_tmp);
		if (e < 0) {
			sc_report_error(&w->msgs, -e, _("cannot replace %s"),
					sc_quote(f->dst));
			rec->err = e;
			return -e;
		}
	}
	/* complete: a signal leaves it now, before its descriptor goes */
	sc_dest_partial_end(w->thread);
	e = close(f->out);
	f->out = -1;
	if (e < 0) {
		e = errno;
		sc_report_error(&w->msgs, e, _("failed to close %s"),
				sc_quote(f->dst));
		rec->err = -e;
		return e;
	}
	return 0;
}

/* Never leave a destination that looks complete and is not.  With
 * --atomic the old file was never touched and the temporary goes;
 * without, what was written is a prefix, or nothing: remove it (an
 * existing destination was already truncated by the open), or, when
 * other hard links share it or it was written through a symlink, empty
 * it and keep the names: the symlink stays a symlink.  E: the errno
 * the record gets unless it has one.  Returns -1. */
static int abandon_file(struct walk *w, struct file_copy *f, int e)
{
	/* the name goes only while it leads to the file written (not
	 * known, and not asked, for one made here with O_EXCL) */
	bool remove = f->removable && !f->shared &&
		      ((f->exclusive && w->parent_facts) ||
		       name_leads_here(w, f));

	sc_dest_partial_end(w->thread);
	if (f->out >= 0) {
		if (f->removable && !remove)
			(void)!ftruncate(f->out, 0);
		close(f->out);
		f->out = -1;
	}
	if (f->atomic)
		sc_dest_atomic_abandon(f->named_tmp);
	else if (remove)
		unlinkat(w->dst_fd, w->dst_name, 0);
	f->rec->seconds = elapsed(&f->t0);
	if (!f->rec->err)
		f->rec->err = -e;
	if (w->o->json)
		sc_walk_report(w, f->rec);
	return -1;
}

/* --explain of the file F, whose source is open (O_PATH): what the run
 * decides before its first byte, said as the run says it, then the
 * plan.  Nothing is created, written or read.  0, or -1 with the
 * message said. */
static int explain_file(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;
	struct sc_at dst = sc_walk_dst(w, f->dst);
	struct stat st;

	/* A symlink to nowhere is not written through (a backup or
	 * --remove-destination would have taken it away: the walk decided
	 * so, and nothing was moved). */
	if (!f->dst_st && o->backup == SC_BACKUP_NONE &&
	    !o->remove_destination &&
	    fstatat(dst.dirfd, dst.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode) && fstatat(dst.dirfd, dst.name, &st, 0) < 0 &&
	    errno == ENOENT && sc_dest_refuse_dangling(&w->msgs, &dst))
		return -1;
	if (o->verify && !o->attributes_only && f->dst_st &&
	    !S_ISREG(f->dst_st->st_mode) && !S_ISBLK(f->dst_st->st_mode)) {
		sc_report_error(&w->msgs, 0,
				_("cannot verify %s: nothing written there can be read back"),
				sc_quote(f->dst));
		rec->failure = "verify";
		return -1;
	}
	/* an existing file is opened for writing (-f removes one it may
	 * not open; --atomic renames over it) */
	if (f->dst_st && !f->atomic && !o->force &&
	    faccessat(dst.dirfd, dst.name, W_OK, AT_EACCESS) < 0) {
		sc_report_error(&w->msgs, errno,
				_("cannot create regular file %s"),
				sc_quote(f->dst));
		return -1;
	}
	if (w->run->fs_assumed) {	/* --assume-fs */
		rec->src_fs = &w->run->assumed[0];
		rec->dst_fs = &w->run->assumed[1];
	} else {
		rec->dst_fs = sc_walk_facts_for_path(w, f->dst);
	}
	make_plan(w, rec, &f->ist, f->dst_st ? f->dst_st->st_mode : S_IFREG);
	if (o->attributes_only) {
		/* no road is taken: the data stays where it is */
		for (int r = 0; r < SC_ROAD__MAX; r++)
			rec->plan.step[r] = (struct sc_plan_step){
				.use = false, .by_option = true,
				.why = N_("--attributes-only: no data is copied"),
			};
		rec->plan.n_use = 0;
	}
	sc_walk_report(w, rec);
	return 0;
}

/* Copies regular file F->src (or, without -R, the data of a FIFO or
 * device) to F->dst, phase by phase.  0, or -1 with the messages said
 * and, for --json, the record made. */
static int copy_file(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;
	int e;

	clock_gettime(CLOCK_MONOTONIC, &f->t0);
	if (open_source(w, f) < 0)
		return -1;
	if (o->explain)
		return explain_file(w, f);
	if (f->dst_st) {	/* the walk's stat: no second one */
		f->old = *f->dst_st;
		f->have_old = true;
	}
	e = already_equal(w, f);
	if (e)
		return e > 0 ? 0 : -1;
	if (open_destination(w, f) < 0)
		return -1;
	e = prepare_destination(w, f);
	if (!e)
		e = copy_and_verify(w, f);
	if (!e)
		e = finish_file(w, f);
	if (e)
		return abandon_file(w, f, e);
	sc_dest_partial_end(w->thread);
	struct sc_at dst = f->atomic ? atomic_at(w, f) : sc_walk_dst(w, f->dst);

	if (o->sync && (e = sc_dest_fsync_dir(&dst)) < 0) {
		sc_report_error(&w->msgs, -e,
				_("cannot sync the directory of %s"),
				sc_quote(f->dst));
		rec->err = e;
		rec->seconds = elapsed(&f->t0);
		if (o->json)
			sc_walk_report(w, rec);
		return -1;
	}
	rec->seconds = elapsed(&f->t0);
	sc_walk_report(w, rec);
	return 0;
}

int sc_file_unchanged(struct walk *w, const char *src, const char *dst,
		      const struct stat *sst, const struct stat *dst_st,
		      bool follow)
{
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_FILE };
	struct file_copy f = {
		.src = src, .dst = dst, .rec = &rec, .sst = sst,
		.dst_st = dst_st, .follow = follow, .in = -1, .out = -1,
		.tdirfd = -1, .old = *dst_st, .have_old = true,
	};
	int r;

	if (w->o->explain || !S_ISREG(sst->st_mode) ||
	    !S_ISREG(dst_st->st_mode))
		return 0;	/* --explain reads no data */
	clock_gettime(CLOCK_MONOTONIC, &f.t0);
	r = open_source(w, &f) < 0 ? -1 : already_equal(w, &f);
	if (f.in >= 0)
		close(f.in);
	return r;
}

/* Copies regular file SRC (or the data of a FIFO or device) to DST.
 * PRE_IN >= 0 is SRC already open, with PRE_IST its fstat (the fast path
 * of a fresh tree); else SRC is opened here and checked against SST, the
 * stat the walk saw.  DST_ST is the stat of the existing destination
 * (links followed), or NULL when there is none. */
int sc_file_copy(struct walk *w, const char *src, const char *dst,
		 const struct stat *sst, const struct stat *dst_st,
		 bool follow, int pre_in, const struct stat *pre_ist)
{
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_FILE };
	struct file_copy f = {
		.src = src, .dst = dst, .rec = &rec, .sst = sst,
		.dst_st = dst_st, .follow = follow, .in = pre_in, .out = -1,
		.tdirfd = -1,
		.dst_exists = dst_st != NULL,
		/* --attributes-only writes no data: the attributes go on the
		 * file in place, which a temporary renamed over it would
		 * empty */
		.atomic = w->o->atomic && !w->o->attributes_only,
		.clone_only = w->o->reflink == SC_REFLINK_ALWAYS &&
			      !w->o->roads_forced,
	};
	int r;

	if (pre_in >= 0)
		f.ist = *pre_ist;
	r = copy_file(w, &f);
	if (f.in >= 0)
		close(f.in);
	if (f.tdirfd >= 0)
		close(f.tdirfd);
	free(f.tname);
	/* --debug: how the data went, once the source was open, as cp
	 * says it (cp 9.2 and later) */
	if (f.opened && w->o->debug && !w->o->attributes_only &&
	    !w->o->json && !w->o->explain)
		sc_report_debug(sc_report_out(&w->msgs),
				rec.copied ? &rec.res : NULL,
				rec.planned ? &rec.plan : NULL,
				w->o->reflink != SC_REFLINK_NEVER &&
				!(rec.planned &&
				  rec.plan.step[SC_ROAD_CLONE].by_option));
	return r;
}
