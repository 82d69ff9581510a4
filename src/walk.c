/* The walk: from operands to files, the way GNU cp does it, recording
 * each file for the report.  Messages follow cp's wording so scripts and
 * people see what they know; names are quoted with sc_quote(). */
#include "system.h"
#include "walk.h"
#include "attrs.h"
#include "dest.h"
#include "change.h"
#include "copy.h"
#include "fsinfo.h"
#include "jobs.h"
#include "links.h"
#include "paths.h"
#include "plan.h"
#include "pool.h"
#include "quote.h"
#include "xattr_rules.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <time.h>

/* Roads that failed "not here" for a pair of filesystems. */
struct learned {
	const struct sc_fs_facts *src, *dst;
	unsigned roads;
};

/* What the walk and its -j workers share for the whole run. */
struct run {
	/* under LOCK: the filesystem facts cache and what the run has
	 * learned */
	pthread_mutex_t lock;
	struct sc_fsinfo *fsi;
	struct learned *learned;
	size_t n_learned;
	/* Failures: a message marks the entry being copied as failed
	 * (struct sc_msgs); each failed entry counts once, whatever number
	 * of messages it printed.  Walk thread only: workers count into
	 * their jobs. */
	int failures;
};

/* A directory whose mode and times wait until every file in it is done. */
struct deferred {
	char *src, *dst;
	struct stat st;
	struct sc_made m;
};

struct seen {
	dev_t dev;
	ino_t ino;
	bool is_dir;
	char *name;	/* a source file's name; a source directory's copy */
};

struct walk {
	const struct sc_options *o;
	/* Facts of the directory the walk just created and is filling, or
	 * NULL: its new entries need no lstat and no fstat. */
	const struct sc_fs_facts *parent_facts;
	char *backup;		/* backup made for the current file, or NULL */
	/* The source entry being copied, as its directory's descriptor and
	 * its name there: opened through these, a directory renamed or
	 * swapped for a symlink while the walk is inside it cannot lead the
	 * copy out of the source tree.  -1 and NULL: use the path. */
	int at_fd;
	const char *at_name;
	bool reported;		/* the current entry has its record */
	bool announced;		/* ... and its cp-style -v line is out */
	const char *current;	/* the file being copied, for progress */
	off_t current_size;
	struct sc_report *rep;
	struct run *run;	/* shared by the walk and its workers */
	/* --preserve=xattr: xattr.conf, read before any worker starts */
	const struct sc_xattr_rules *xattr_rules;
	struct sc_copy_ctx ctx;
	struct sc_kernel kernel;
	mode_t umask;
	bool privileged;	/* root: may chown, and must say when it fails */
	bool in_worker;		/* a -j worker's copy of the walk */
	struct sc_pool_slot *slot;	/* -j: a worker's job slot, or NULL */
	unsigned thread;	/* 0: the walk's, 1 + N: worker N (dest.h) */
	struct sc_msgs msgs;	/* this thread's messages about its entry */
	int ahead_fd;		/* -j: the next file, opened ahead, or -1 */
	struct sc_jobs *jobs;	/* -j: the workers, shared */
	struct walk *workers;	/* -j: one walk per worker thread */
	struct deferred *deferred;	/* -j: directory attributes, post-order */
	size_t n_deferred;
	/* The source directories being copied, outermost first: a link that
	 * leads back to one of them (-L, -H) would copy forever. */
	struct { dev_t dev; ino_t ino; } *ancestors;
	size_t n_ancestors, cap_ancestors;
	struct sc_links links;	/* the walk thread's hard-link table */
	/* several operands into a directory: what they were and became */
	bool multi;
	struct seen *src_seen, *dst_seen;
	size_t n_src_seen, n_dst_seen;
	dev_t root_dev;		/* -x: the device of the current operand */
};




static struct sc_pool_slot *current_slot(const struct walk *w)
{
	return w->slot ? w->slot : sc_jobs_own_slot(w->jobs);
}

/* Where W's -v lines and messages go now (struct sc_msgs). */
static void walk_streams(void *arg, FILE **out, FILE **err)
{
	struct sc_pool_slot *s = current_slot(arg);

	*out = s ? s->out : NULL;
	*err = s ? s->err : NULL;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void report(struct walk *w, struct sc_record *rec)
{
	w->reported = true;
	rec->backup = w->backup;
	rec->announced = w->announced;
	sc_report_record(w->rep, rec, sc_report_out(&w->msgs));
}

/* --json: an entry that failed before a record was made is said
 * anyway, with the errno of its last message. */
static void report_failed(struct walk *w, const char *src, const char *dst)
{
	struct sc_record rec = {
		.src = src, .dst = dst, .kind = SC_KIND_FILE,
		.err = -(w->msgs.last_errno ? w->msgs.last_errno : EINVAL),
	};

	if (w->o->json && !w->reported)
		report(w, &rec);
}

/* --debug: a destination left as it was (-n, --update, a "no" to -i),
 * as cp 9.4 and later say it. */
static void skipped(struct walk *w, const char *dst)
{
	if (w->o->debug && !w->o->json && !w->o->explain)
		sc_report_skipped(&w->msgs, dst);
}

/* Opens the source entry being copied (see at_fd in struct walk). */
static int src_open(struct walk *w, const char *src, int flags)
{
	return w->at_fd >= 0 ? openat(w->at_fd, w->at_name, flags) :
			       open(src, flags);
}

/* Called as cp, -v names a file that is not a directory before copying
 * it, as cp does: the line is there even when the copy then fails, and
 * comes before the error.  Under smartcp's own name the line comes after
 * the copy, with the road it took. */
static void announce(struct walk *w, const char *src, const char *dst)
{
	const struct sc_options *o = w->o;

	if (!o->verbose || !o->as_cp || o->json || o->explain || w->announced)
		return;
	sc_report_cp_line(&w->msgs, src, dst, w->backup);
	w->announced = true;
}

static void on_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct walk *w = arg;

	sc_report_progress(w->rep, w->current, done, w->current_size, road);
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

static const struct sc_fs_facts *lookup(struct walk *w, int fd,
					const struct stat *st)
{
	const struct sc_fs_facts *f;

	pthread_mutex_lock(&w->run->lock);
	f = sc_fsinfo_lookup(w->run->fsi, fd, st);
	pthread_mutex_unlock(&w->run->lock);
	return f;
}

/* Command-line operands and what they became, when several go into a
 * directory: cp refuses to overwrite what this run just made, and warns
 * about a source named twice. */
static bool seen_has(const struct seen *v, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
			return true;
	return false;
}

static void seen_add(struct seen **v, size_t *n, const struct stat *st,
		     const char *name)
{
	struct seen *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return;
	*v = nv;
	nv[*n].dev = st->st_dev;
	nv[*n].ino = st->st_ino;
	nv[*n].is_dir = S_ISDIR(st->st_mode);
	nv[*n].name = name ? strdup(name) : NULL;
	(*n)++;
}

/* --- attributes ------------------------------------------------------- */

/* sc_attrs_set() with what W knows of the run. */
static int set_attrs(struct walk *w, int in, int out, const char *src,
		     const char *dst, const struct stat *st, struct sc_made *m)
{
	const struct sc_attrs_env env = {
		.o = w->o, .xattr_rules = w->xattr_rules, .umask = w->umask,
		.privileged = w->privileged, .msgs = &w->msgs,
	};

	return sc_attrs_set(&env, in, out, src, dst, st, m);
}

/* --- regular files ----------------------------------------------------- */

/* Facts for a path that may not exist yet (--explain): the nearest
 * existing ancestor's filesystem. */
static const struct sc_fs_facts *facts_for_path(struct walk *w,
						const char *path)
{
	char *p = strdup(path);
	const struct sc_fs_facts *f = NULL;

	while (p && *p) {
		int fd = open(p, O_PATH | O_CLOEXEC);
		struct stat st;
		char *slash;

		if (fd >= 0) {
			if (fstat(fd, &st) == 0)
				f = lookup(w, fd, &st);
			close(fd);
			break;
		}
		slash = strrchr(p, '/');
		if (!slash) {
			strcpy(p, ".");
			continue;
		}
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(p);
	return f;
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
static int same_content(struct walk *w, int in, const char *dst,
			const struct stat *ist, bool size_trusted)
{
	_cleanup_close_ int fd = open(dst, O_RDONLY | O_CLOEXEC | O_NOCTTY);
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

/* Adds what a repair copy did to the record's result. */
static void merge_result(struct sc_copy_result *into,
			 const struct sc_copy_result *more)
{
	for (int i = 0; i < more->n_attempts &&
	     into->n_attempts < SC_MAX_ATTEMPTS; i++)
		into->attempt[into->n_attempts++] = more->attempt[i];
	for (int r = 0; r < SC_ROAD__MAX; r++)
		into->road_bytes[r] += more->road_bytes[r];
	into->bytes = more->bytes;
	into->size = more->size;
	into->holes = more->holes;
	into->err = more->err;
	into->side = more->side;
}

/* Says that --verify could not read or write (V = -errno, SIDE the
 * side); returns V. */
static int verify_error(struct walk *w, struct sc_record *rec, int v,
			enum sc_verify_side side)
{
	sc_report_error(&w->msgs, -v,
			side == SC_VSIDE_SOURCE ? _("error reading %s") :
			side == SC_VSIDE_WRITE ? _("error writing %s") :
			_("error reading back %s"),
			sc_quote(side == SC_VSIDE_SOURCE ? rec->src : rec->dst));
	rec->failure = side == SC_VSIDE_SOURCE ? "read" :
		       side == SC_VSIDE_WRITE ? "write" : "verify";
	return v;
}

/* The plan of a copy made again by --verify: read_write alone, where
 * every byte passes through smartcp and is hashed on the way. */
static void plan_again(struct sc_plan *rw)
{
	*rw = (struct sc_plan){ .n_use = 1 };
	rw->step[SC_ROAD_RW].use = true;
	for (int r = 0; r < SC_ROAD__MAX; r++)
		if (r != SC_ROAD_RW)
			rw->step[r].why = N_("repair after a failed verification");
}

/* --verify after a successful copy; repairs once with read_write.
 * Returns 0 when the destination holds the source's bytes, else -errno
 * (-EBADMSG: still differs) with the message printed. */
static int verify_copy(struct walk *w, struct sc_record *rec, int in,
		       int out, mode_t out_mode, const struct stat *ist,
		       bool out_seekable)
{
	struct sc_plan rw;
	struct sc_copy_result again;
	enum sc_verify_side side = SC_VSIDE_BACK;
	off_t bad = 0;
	int v, e;

	for (int pass = 0;; pass++) {
		bool digests = rec->res.road_bytes[SC_ROAD_RW] == rec->res.bytes &&
			       sc_digests_cover(&w->ctx.dg, rec->res.size);

		if (!digests && (!S_ISREG(ist->st_mode) ||
				 sc_plan_size_untrusted(rec->src_fs))) {
			/* Bytes we cannot read twice, moved by a kernel road:
			 * only a copy through our own hands can be checked. */
			v = 0;
			bad = 0;
		} else {
			v = sc_verify(in, out, rec->res.size, digests,
				      S_ISREG(ist->st_mode) &&
				      !sc_plan_size_untrusted(rec->src_fs),
				      w->o->sync, &w->ctx.dg, w->ctx.buf,
				      w->ctx.bufsize,
				      &bad, &side);
		}
		if (v < 0)
			return verify_error(w, rec, v, side);
		if (v == 1) {
			rec->verify = pass ? SC_VERIFY_REPAIRED : SC_VERIFY_OK;
			return 0;
		}
		rec->verify_bad = bad;
		if (pass) {
			rec->verify = SC_VERIFY_FAILED;
			rec->failure = "verify";
			sc_report_error(&w->msgs, 0,
					_("%s differs from %s at byte %lld, also after copying again"),
					sc_quote(rec->dst), sc_quote(rec->src),
					(long long)bad);
			return -EBADMSG;
		}
		/* The road lied: copy again through read/write, where every
		 * byte passes through smartcp and is hashed on the way.  A
		 * block device is simply written over again. */
		if (S_ISREG(out_mode) && ftruncate(out, 0) < 0) {
			sc_report_error(&w->msgs, errno, _("error writing %s"),
					sc_quote(rec->dst));
			return -errno;
		}
		plan_again(&rw);
		e = sc_copy_data(&w->ctx, in, out, ist, out_seekable, &rw,
				 !sc_plan_size_untrusted(rec->src_fs), &again);
		merge_result(&rec->res, &again);
		if (e < 0) {
			sc_report_error(&w->msgs, -e,
					again.side == SC_SIDE_READ ?
					_("error reading %s") :
					_("error writing %s"),
					sc_quote(again.side == SC_SIDE_READ ?
						 rec->src : rec->dst));
			rec->failure = again.side == SC_SIDE_READ ? "read" : "write";
			return e;
		}
	}
}

/* Has SRC, open as IN and fstat'ed as BEFORE before its first byte was
 * copied, changed since?  Its name is looked at again as the walk opened
 * it (through the directory's descriptor, following links or not): while
 * it leads to the same file, that one stat tells all; when it leads
 * elsewhere or nowhere, the open file is asked too (the destination is
 * cut to what that file still holds).  The inode of an open descriptor
 * never changes, so only the name can tell a file replaced by a rename,
 * as a log rotation or a package upgrade does.  Fills CH; true when the
 * source changed.  Never fails: a stat that cannot be made tells nothing. */
static bool source_changed(struct walk *w, const char *src, int in,
			   bool follow, const struct stat *before,
			   bool generated, struct sc_change *ch)
{
	struct stat now, mine;
	int r = w->at_fd >= 0 ?
		fstatat(w->at_fd, w->at_name, &now,
			follow ? 0 : AT_SYMLINK_NOFOLLOW) :
		follow ? stat(src, &now) : lstat(src, &now);
	enum sc_change_how who, what;

	who = sc_change_identity(before, &now, r < 0 ? -errno : 0, generated);
	if (r == 0 && who == SC_CHANGE_NONE)
		mine = now;
	else if (fstat(in, &mine) < 0)
		mine = *before;
	what = sc_change_compare(before, &mine, generated);
	ch->how = who > what ? who : what;
	ch->size_before = before->st_size;
	ch->size_after = mine.st_size;
	return ch->how != SC_CHANGE_NONE;
}

/* The destination of a source that changed (REC->change) as it must be
 * left: its size is asked (a clone copies what the file held at that
 * moment, not what the first stat said), and it is cut to what the
 * source still holds when that shrank, so no stale tail of bytes the
 * source no longer has stays past its end.  0 or -errno. */
static int settle_changed(struct sc_record *rec, int out, bool out_reg,
			  bool generated)
{
	struct stat ost;

	if (!out_reg)
		return 0;
	if (fstat(out, &ost) == 0)
		rec->res.size = ost.st_size;
	if (!generated && rec->change.size_after < rec->res.size) {
		if (ftruncate(out, rec->change.size_after) < 0)
			return -errno;
		rec->res.size = rec->change.size_after;
	}
	return 0;
}

/* Says that SRC changed while it was copied (REC->change); fails the
 * file unless ALLOWED. */
static void say_changed(struct walk *w, struct sc_record *rec,
			bool allowed)
{
	char what[256];

	if (allowed)
		return;
	rec->change_failed = true;
	sc_report_change_text(what, sizeof(what), &rec->change, true);
	if (rec->change.again)
		sc_report_error(&w->msgs, 0,
				_("%s changed while it was copied, and again while it was copied once more: %s"),
				sc_quote(rec->src), what);
	else
		sc_report_error(&w->msgs, 0,
				_("%s changed while it was copied: %s"),
				sc_quote(rec->src), what);
}

/* --verify of a source that changed while it was copied (REC->change):
 * the bytes that were read prove nothing about the source now.  The copy
 * is compared with the source as it now is, and if they differ it is
 * copied once more with read_write; either is proven only if the source
 * held still meanwhile.  One retry, as rsync's: never a loop.  A source
 * replaced or removed cannot be reached through IN any more.  Returns 0
 * when the destination holds the source as it now is, else -errno with
 * the message said (-EBADMSG: it changed again, or still differs). */
static int verify_changed(struct walk *w, struct sc_record *rec, int in,
			  int out, mode_t out_mode, bool out_seekable,
			  bool follow, bool generated)
{
	struct sc_plan rw;
	struct sc_copy_result again;
	struct sc_change ch = { 0 };
	enum sc_verify_side side = SC_VSIDE_BACK;
	struct stat now;
	off_t bad = 0;
	int v, e;

	if (rec->change.how == SC_CHANGE_REPLACED ||
	    rec->change.how == SC_CHANGE_REMOVED || generated)
		goto changed;
	if (fstat(in, &now) < 0) {
		sc_report_error(&w->msgs, errno, _("cannot fstat %s"),
				sc_quote(rec->src));
		return -errno;
	}
	if (now.st_size == rec->res.size) {
		v = sc_verify(in, out, rec->res.size, false, true,
			      w->o->sync, &w->ctx.dg, w->ctx.buf,
			      w->ctx.bufsize, &bad, &side);
		if (v < 0)
			return verify_error(w, rec, v, side);
		if (v == 1 && !source_changed(w, rec->src, in, follow, &now,
					      false, &ch)) {
			rec->verify = SC_VERIFY_CURRENT;
			return 0;
		}
	}
	/* Once more, from the start, through smartcp's hands. */
	if (fstat(in, &now) < 0) {
		sc_report_error(&w->msgs, errno, _("cannot fstat %s"),
				sc_quote(rec->src));
		return -errno;
	}
	if (S_ISREG(out_mode) && ftruncate(out, 0) < 0) {
		sc_report_error(&w->msgs, errno, _("error writing %s"),
				sc_quote(rec->dst));
		return -errno;
	}
	plan_again(&rw);
	e = sc_copy_data(&w->ctx, in, out, &now, out_seekable, &rw, true,
			 &again);
	merge_result(&rec->res, &again);
	if (e < 0) {
		sc_report_error(&w->msgs, -e, again.side == SC_SIDE_READ ?
				_("error reading %s") : _("error writing %s"),
				sc_quote(again.side == SC_SIDE_READ ? rec->src :
					 rec->dst));
		rec->failure = again.side == SC_SIDE_READ ? "read" : "write";
		return e;
	}
	if (source_changed(w, rec->src, in, follow, &now, false, &ch)) {
		ch.again = true;
		rec->change = ch;
		goto changed;
	}
	v = sc_verify(in, out, rec->res.size,
		      sc_digests_cover(&w->ctx.dg, rec->res.size), true,
		      w->o->sync, &w->ctx.dg, w->ctx.buf, w->ctx.bufsize,
		      &bad, &side);
	if (v < 0)
		return verify_error(w, rec, v, side);
	if (v == 1) {
		rec->verify = SC_VERIFY_RECOPIED;
		return 0;
	}
	rec->verify_bad = bad;
	rec->verify = SC_VERIFY_FAILED;
	rec->failure = "verify";
	sc_report_error(&w->msgs, 0,
			_("%s differs from %s at byte %lld, also after copying again"),
			sc_quote(rec->dst), sc_quote(rec->src), (long long)bad);
	return -EBADMSG;

changed:
	/* Nothing that can be proven: --verify fails, whatever
	 * --allow-changing-source says of changes alone. */
	rec->verify = SC_VERIFY_FAILED;
	rec->failure = "changed";
	say_changed(w, rec, false);
	rec->change_failed = false;	/* rec->err says it */
	return -EBADMSG;
}

/* One regular file being copied: what the phases of copy_file() share. */
struct file_copy {
	const char *src, *dst;
	struct sc_record *rec;
	/* given: the walk's stats of the source (NULL: IN is already open
	 * as IST) and of the existing destination (NULL: none) */
	const struct stat *sst, *dst_st;
	bool follow;		/* symlinks to the source are followed */
	int in, out;		/* the source (closed by copy_regular()) */
	bool opened;		/* IN was opened: --debug says how it went */
	struct stat ist, ost, old;
	struct timespec t0;
	bool have_old;		/* OLD is the existing destination's stat */
	bool dst_exists, created, atomic, named_tmp;
	bool size_trusted, out_seekable;
	bool clone_only;	/* --reflink=always */
	bool removable;		/* a failure removes the destination */
	bool shared;		/* ... or empties it: it has other names */
	struct sc_made m;
};

/* Opens the source (unless the fast path did), and checks that it is
 * the file the walk saw.  0, or -1 with the message said. */
static int open_source(struct walk *w, struct file_copy *f)
{
	struct sc_record *rec = f->rec;

	if (f->in < 0) {
		f->in = src_open(w, f->src, O_RDONLY | O_CLOEXEC | O_NOCTTY |
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
	rec->src_fs = lookup(w, f->in, &f->ist);
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
	e = same_content(w, f->in, f->dst, &f->ist, f->size_trusted);
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
	    set_attrs(w, -1, -1, f->src, f->dst, &f->ist, &f->m) < 0) {
		w->msgs.failed = true;
		return -1;
	}
	f->rec->seconds = elapsed(&f->t0);
	report(w, f->rec);
	return 1;
}

/* Opens the destination: a temporary (--atomic), the existing file, or
 * a new one made without the bits that must wait.  0, or -1 with the
 * message said (nothing to clean up). */
static int open_destination(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	int flags = (o->verify ? O_RDWR : O_WRONLY) | O_CLOEXEC | O_NOCTTY;

	/* A running program cannot be opened for writing (ETXTBSY), but it
	 * can be replaced: --atomic renames over it, as install does. */
	if (f->atomic && f->have_old && !S_ISREG(f->old.st_mode))
		f->atomic = false;	/* a device or FIFO: write into it */

	if (f->atomic) {
		f->out = sc_dest_atomic_open(f->dst, &f->named_tmp);
		if (f->out < 0) {
			sc_report_error(&w->msgs, -f->out,
					_("cannot create regular file %s"),
					sc_quote(f->dst));
			return -1;
		}
	} else if (f->dst_exists) {
		/* --reflink=always must leave the old file intact when the
		 * clone is refused: clone over it, then cut it to size. */
		f->out = open(f->dst, flags | (f->clone_only ||
					       o->attributes_only ?
					       0 : O_TRUNC));
		if (f->out < 0 && errno == ENOENT) {
			/* gone since it was stat'ed (another NFS client, say):
			 * made anew below, as cp does */
			f->dst_exists = f->have_old = false;
		} else if (f->out < 0 && o->force) {
			/* -f: a destination we cannot open goes, and a new
			 * one is made in its place */
			if (sc_dest_remove(&w->msgs, f->dst, o->verbose,
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
		/* Made without the bits that must wait (see struct sc_made);
		 * writable by us where xattrs are to be set on it. */
		mode_t mode = f->ist.st_mode & 0777;

		f->m.omitted = sc_attrs_omitted(o, f->ist.st_mode) & 0777;
		f->m.extra = o->preserve_xattr && !w->privileged ?
			     S_IWUSR & ~mode : 0;
		f->out = open(f->dst, flags | O_CREAT | O_EXCL,
			      (mode & ~f->m.omitted) | f->m.extra);
		if (f->out < 0 && errno == EEXIST) {
			f->out = sc_dest_open_dangling(&w->msgs, f->dst, flags,
						       mode);
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

/* What the open destination is, what a signal or a failure does to it,
 * and the plan for the data.  0, or an errno for abandon_file(). */
static int prepare_destination(struct walk *w, struct file_copy *f)
{
	const struct sc_options *o = w->o;
	struct sc_record *rec = f->rec;

	if (f->created && w->parent_facts) {
		/* A file just made in a directory just made: a regular file
		 * on the directory's filesystem, no need to ask. */
		f->ost.st_mode = S_IFREG;
		rec->dst_fs = w->parent_facts;
	} else if (fstat(f->out, &f->ost) < 0) {
		int e = errno;

		sc_report_error(&w->msgs, e, _("cannot fstat %s"),
				sc_quote(f->dst));
		return e;
	} else {
		rec->dst_fs = lookup(w, f->out, &f->ost);
	}
	f->out_seekable = S_ISREG(f->ost.st_mode) || S_ISBLK(f->ost.st_mode);
	/* Only a regular file of ours is ever removed: never /dev/null or
	 * another device or FIFO that was the destination. */
	f->removable = !f->atomic && !o->attributes_only &&
		       S_ISREG(f->ost.st_mode);
	f->shared = f->removable && !f->created && f->ost.st_nlink > 1;
	if (f->removable)
		sc_dest_partial_begin(w->thread, f->dst, f->shared);
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
	    source_changed(w, f->src, f->in, f->follow, &f->ist,
			   !f->size_trusted, &rec->change) &&
	    (e = settle_changed(rec, f->out, f->out_seekable &&
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
			verify_copy(w, rec, f->in, f->out, f->ost.st_mode,
				    &f->ist, f->out_seekable) :
			verify_changed(w, rec, f->in, f->out, f->ost.st_mode,
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
		say_changed(w, rec, o->allow_changing_source || o->as_cp);
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

	if (f->atomic && !o->preserve_mode)
		/* The new inode takes the old file's mode, as an overwrite
		 * in place would have kept it. */
		fchmod(f->out, f->have_old ? f->old.st_mode & 07777 :
			       f->ist.st_mode & 0777 & ~w->umask);
	if (f->atomic && !o->preserve_ownership && f->have_old &&
	    (f->old.st_uid != f->ost.st_uid || f->old.st_gid != f->ost.st_gid))
		(void)!fchown(f->out, f->old.st_uid, f->old.st_gid);
	if (set_attrs(w, f->in, f->out, f->src, f->dst, &f->ist, &f->m) < 0) {
		w->msgs.failed = true;
		if (f->atomic)
			return EPERM;
	}
	if (o->sync && fsync(f->out) < 0) {
		e = errno;
		sc_report_error(&w->msgs, e, _("error writing %s"),
				sc_quote(f->dst));
		rec->err = -e;
		return e;
	}
	if (f->atomic) {
		e = sc_dest_atomic_commit(f->out, f->dst, f->named_tmp);
		if (e < 0) {
			sc_report_error(&w->msgs, -e, _("cannot replace %s"),
					sc_quote(f->dst));
			rec->err = e;
			return -e;
		}
	}
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
 * other hard links share it, empty it and keep the links.  E: the errno
 * the record gets unless it has one.  Returns -1. */
static int abandon_file(struct walk *w, struct file_copy *f, int e)
{
	if (f->out >= 0) {
		if (f->shared)
			(void)!ftruncate(f->out, 0);
		close(f->out);
		f->out = -1;
	}
	if (f->atomic)
		sc_dest_atomic_abandon(f->named_tmp);
	else if (f->removable && !f->shared)
		unlink(f->dst);
	sc_dest_partial_end(w->thread);
	f->rec->seconds = elapsed(&f->t0);
	if (!f->rec->err)
		f->rec->err = -e;
	if (w->o->json)
		report(w, f->rec);
	return -1;
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
	if (o->explain) {
		rec->dst_fs = facts_for_path(w, f->dst);
		make_plan(w, rec, &f->ist,
			  f->dst_st ? f->dst_st->st_mode : S_IFREG);
		report(w, rec);
		return 0;
	}
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
	if (o->sync && (e = sc_dest_fsync_dir(f->dst)) < 0) {
		sc_report_error(&w->msgs, -e,
				_("cannot sync the directory of %s"),
				sc_quote(f->dst));
		rec->err = e;
		rec->seconds = elapsed(&f->t0);
		if (o->json)
			report(w, rec);
		return -1;
	}
	rec->seconds = elapsed(&f->t0);
	report(w, rec);
	return 0;
}

/* Copies regular file SRC (or the data of a FIFO or device) to DST.
 * PRE_IN >= 0 is SRC already open, with PRE_IST its fstat (the fast path
 * of a fresh tree); else SRC is opened here and checked against SST, the
 * stat the walk saw.  DST_ST is the stat of the existing destination
 * (links followed), or NULL when there is none. */
static int copy_regular(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, const struct stat *dst_st,
			bool follow, int pre_in, const struct stat *pre_ist)
{
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_FILE };
	struct file_copy f = {
		.src = src, .dst = dst, .rec = &rec, .sst = sst,
		.dst_st = dst_st, .follow = follow, .in = pre_in, .out = -1,
		.dst_exists = dst_st != NULL, .atomic = w->o->atomic,
		.clone_only = w->o->reflink == SC_REFLINK_ALWAYS &&
			      !w->o->roads_forced,
	};
	int r;

	if (pre_in >= 0)
		f.ist = *pre_ist;
	r = copy_file(w, &f);
	if (f.in >= 0)
		close(f.in);
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

/* --- the walk ---------------------------------------------------------- */

static int copy_entry(struct walk *w, const char *src, const char *dst,
		      bool cmdline, unsigned char dtype);

struct dent {
	ino_t ino;
	unsigned char type;	/* d_type: DT_UNKNOWN on some filesystems */
	char *name;
};

static int by_ino(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* A directory's entries, sorted by inode: cp's order, and the fastest
 * to read on ext4.  The directory is PATH, or AT_NAME in AT_FD; unless
 * FOLLOW, a symlink put in its place is refused, and it must still be
 * the directory WANT describes (-ESTALE if not).  *KEEP gets a
 * descriptor of it for opening its entries, or -1 (out of descriptors:
 * the entries are then opened by path). */
static _noinline_ int list_dir(struct walk *w, const char *path, bool follow,
		    const struct stat *want, int *keep, struct dent **ret,
		    size_t *ret_n)
{
	int at_fd = w->at_fd;
	const char *at_name = w->at_name;
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY |
		    (follow ? 0 : O_NOFOLLOW);
	int fd = at_fd >= 0 ? openat(at_fd, at_name, flags) :
			      open(path, flags);
	struct stat st;
	DIR *d;
	struct dent *v = NULL, *nv;
	struct dirent *e;
	size_t n = 0, cap = 0;

	*keep = -1;
	if (fd < 0)
		/* a symlink or a file now where the directory was */
		return (errno == ELOOP || errno == ENOTDIR) && !follow ?
		       -ESTALE : -errno;
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	if (st.st_dev != want->st_dev || st.st_ino != want->st_ino) {
		close(fd);
		return -ESTALE;
	}
	*keep = sc_jobs_keep_fd(w->jobs, fd);
	d = fdopendir(fd);
	if (!d) {
		int err = errno;

		close(fd);
		if (*keep >= 0)
			close(*keep);
		*keep = -1;
		return -err;
	}
	while ((errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].ino = e->d_ino;
		v[n].type = e->d_type;
		v[n].name = strdup(e->d_name);
		if (!v[n].name)
			break;
		n++;
	}
	if (errno) {
		int err = errno;

		while (n)
			free(v[--n].name);
		free(v);
		closedir(d);
		if (*keep >= 0)
			close(*keep);
		*keep = -1;
		return -err;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_ino);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* A directory that must not be copied: one the walk is already inside
 * (a link that leads back, -L or -H), or the destination inside the
 * source.  True when refused, said. */
static _noinline_ bool refuse_directory(struct walk *w, const char *src, const char *dst,
			     const struct stat *sst, bool cmdline)
{
	for (size_t i = 0; i < w->n_ancestors; i++)
		if (w->ancestors[i].dev == sst->st_dev &&
		    w->ancestors[i].ino == sst->st_ino) {
			sc_report_error(&w->msgs, 0,
					_("cannot copy cyclic symbolic link %s"),
					sc_quote(src));
			return true;
		}
	if ((cmdline || w->o->deref == SC_DEREF_ALWAYS) &&
	    sc_path_is_inside(src, dst)) {
		sc_report_error(&w->msgs, 0,
				_("cannot copy a directory, %s, into itself, %s"),
				sc_quote(src), sc_quote(dst));
		return true;
	}
	return false;
}

/* Makes directory DST like SST, less what must wait (M says what), and
 * so that we may enter it and write its entries.  0 or -1. */
static _noinline_ int make_directory(struct walk *w, const char *dst,
			  const struct stat *sst, struct sc_made *m)
{
	struct stat now;

	/* mkdir decides about set-gid (inherited from the parent) */
	m->omitted = sc_attrs_omitted(w->o, sst->st_mode);
	if (mkdir(dst, sst->st_mode & 07777 & ~m->omitted) < 0) {
		sc_report_error(&w->msgs, errno,
				_("cannot create directory %s"), sc_quote(dst));
		return -1;
	}
	m->created = true;
	if (lstat(dst, &now) < 0) {
		sc_report_error(&w->msgs, errno, _("cannot stat %s"),
				sc_quote(dst));
		return -1;
	}
	m->mode = now.st_mode;
	m->mode_known = true;
	if ((now.st_mode & S_IRWXU) != S_IRWXU) {
		/* we must enter it and write its entries */
		m->restore = true;
		if (chmod(dst, (now.st_mode & 07777) | S_IRWXU) < 0) {
			sc_report_error(&w->msgs, errno,
					_("setting permissions for %s"),
					sc_quote(dst));
			return -1;
		}
	}
	return 0;
}

/* Copies the entries of directory SRC (SST) into DST, in inode order.
 * DIR_FACTS: DST's facts when this run made it (its new files may go to
 * -j workers, and need no stat), else NULL.  0 or -1. */
static int copy_entries(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, bool follow,
			const struct sc_fs_facts *dir_facts)
{
	const struct sc_options *o = w->o;
	struct sc_job *batch = NULL;
	struct dent *ents = NULL;
	size_t n = 0;
	int rc = 0, e, dirfd = -1;

	if (w->n_ancestors == w->cap_ancestors) {
		size_t cap = w->cap_ancestors ? 2 * w->cap_ancestors : 16;
		void *na = realloc(w->ancestors, cap * sizeof(*w->ancestors));

		if (!na) {
			sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
			return -1;
		}
		w->ancestors = na;
		w->cap_ancestors = cap;
	}
	w->ancestors[w->n_ancestors].dev = sst->st_dev;
	w->ancestors[w->n_ancestors++].ino = sst->st_ino;
	e = list_dir(w, src, follow, sst, &dirfd, &ents, &n);
	if (e == -ESTALE) {
		sc_report_error(&w->msgs, 0,
				_("skipping directory %s, as it was replaced while being copied"),
				sc_quote(src));
		w->n_ancestors--;
		return -1;
	} else if (e < 0) {
		sc_report_error(&w->msgs, -e, _("cannot access %s"),
				sc_quote(src));
		w->n_ancestors--;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char *s = sc_path_join(src, ents[i].name);
		char *d = sc_path_join(dst, ents[i].name);

		if (!s || !d) {
			sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
			rc = -1;
		} else if (dir_facts && ents[i].type == DT_REG &&
			   !o->hard_link && !o->symbolic_link &&
			   !o->attributes_only && !w->in_worker &&
			   sc_jobs_ready(w->jobs, dir_facts)) {
			/* -j: new files in a new directory go to a worker in
			 * runs; their output keeps its place in walk order */
			if (sc_jobs_add(w->jobs, &w->msgs, &batch, dirfd,
					dir_facts, s, d) < 0)
				rc = -1;
			s = d = NULL;	/* the job owns them now */
		} else {
			if (sc_jobs_submit(w->jobs, &w->msgs, &batch) < 0)
				rc = -1;
			/* set for each entry: copying a subdirectory changes it */
			w->parent_facts = dir_facts;
			w->at_fd = dirfd;
			w->at_name = dirfd >= 0 ? ents[i].name : NULL;
			if (copy_entry(w, s, d, false, ents[i].type) < 0)
				rc = -1;
			w->at_fd = -1;
			w->at_name = NULL;
		}
		free(s);
		free(d);
		free(ents[i].name);
	}
	if (sc_jobs_submit(w->jobs, &w->msgs, &batch) < 0)
		rc = -1;
	free(ents);
	if (dirfd >= 0)
		close(dirfd);
	w->parent_facts = NULL;
	w->n_ancestors--;
	return rc;
}

/* Modes and times of a directory go on after its contents: writing the
 * entries would change the times, and a read-only mode would have
 * stopped us writing them.  With -j its files may still be in flight:
 * they wait for the end of the run (the list is in post-order).
 * 0 or -1. */
static _noinline_ int directory_attrs(struct walk *w, const char *src, const char *dst,
			   const struct stat *sst, struct sc_made *m)
{
	const struct sc_options *o = w->o;

	if (o->explain || !(m->created || o->preserve_mode ||
			    o->preserve_timestamps || o->preserve_ownership ||
			    o->preserve_xattr))
		return 0;
	if (sc_jobs_running(w->jobs)) {
		struct deferred *dl = realloc(w->deferred, (w->n_deferred + 1) *
					      sizeof(*dl));

		if (dl) {
			w->deferred = dl;
			dl[w->n_deferred] = (struct deferred){
				strdup(src), strdup(dst), *sst, *m };
			if (dl[w->n_deferred].src && dl[w->n_deferred].dst) {
				w->n_deferred++;
				return 0;
			}
			free(dl[w->n_deferred].src);
			free(dl[w->n_deferred].dst);
		}
	}
	if (set_attrs(w, -1, -1, src, dst, sst, m) < 0) {
		w->msgs.failed = true;
		return -1;
	}
	return 0;
}

/* The record of a directory made (or, --explain, to be made); its
 * struct sc_record stays off the stack of the recursion. */
static _noinline_ void report_directory(struct walk *w, const char *src,
					const char *dst)
{
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_DIR };

	report(w, &rec);
}

/* Copies directory SRC (SST) to DST (DST_ST: the existing one, or NULL):
 * made, filled, then given its attributes.  0 or -1. */
static int copy_dir(struct walk *w, const char *src, const char *dst,
		    const struct stat *sst, const struct stat *dst_st,
		    bool cmdline, bool follow)
{
	const struct sc_options *o = w->o;
	const struct sc_fs_facts *dir_facts = NULL;
	struct sc_made m = { 0 };
	int rc = 0;

	if (refuse_directory(w, src, dst, sst, cmdline))
		return -1;
	if (!dst_st && !o->explain) {
		if (make_directory(w, dst, sst, &m) < 0)
			return -1;
		dir_facts = facts_for_path(w, dst);
	} else if (dst_st) {
		m.have_old = true;
		m.old_mode = dst_st->st_mode;
	}
	if (m.created || o->explain)
		report_directory(w, src, dst);
	/* -x: a mount point is made, not entered */
	if (!o->one_file_system || cmdline || sst->st_dev == w->root_dev)
		rc = copy_entries(w, src, dst, sst, follow, dir_facts);
	if (directory_attrs(w, src, dst, sst, &m) < 0)
		rc = -1;
	return rc;
}

/* The target of symlink PATH (AT_NAME in AT_FD when AT_FD >= 0), or NULL
 * with errno.  st_size is only a hint: links in /proc and on some
 * filesystems (ISO 9660 Rock Ridge) say 0, so the buffer grows until
 * the target fits. */
static char *read_link(int at_fd, const char *at_name, const char *path,
		       off_t hint, size_t *len)
{
	size_t size = hint > 0 && hint < SSIZE_MAX - 1 ? (size_t)hint + 1 : 128;

	for (;;) {
		char *buf = malloc(size + 1);
		ssize_t n;

		if (!buf)
			return NULL;
		n = at_fd >= 0 ? readlinkat(at_fd, at_name, buf, size) :
				 readlink(path, buf, size);
		if (n < 0) {
			int err = errno;

			free(buf);
			errno = err;
			return NULL;
		}
		if ((size_t)n < size) {
			buf[n] = '\0';
			*len = (size_t)n;
			return buf;
		}
		free(buf);
		if (size > SSIZE_MAX / 2) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		size *= 2;
	}
}

static int copy_symlink(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, const struct stat *dst_st)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_SYMLINK };
	struct sc_made m = { .created = true };
	char *target;
	size_t n;
	int e;

	target = read_link(w->at_fd, w->at_name, src, sst->st_size, &n);
	if (!target) {
		sc_report_error(&w->msgs, errno,
				_("cannot read symbolic link %s"),
				sc_quote(src));
		return -1;
	}
	if (w->o->explain) {
		free(target);
		report(w, &rec);
		return 0;
	}
	e = sc_dest_make_link(false, target, dst, false, w->o->force);
	if (e == -EEXIST && w->o->update != SC_UPDATE_ALL && dst_st &&
	    S_ISLNK(dst_st->st_mode)) {
		/* -u: the link is already there as it should be */
		size_t hn;
		char *have = read_link(-1, NULL, dst, dst_st->st_size, &hn);

		if (have && hn == n && !memcmp(have, target, n))
			e = 0;
		free(have);
	}
	free(target);
	if (e < 0) {
		sc_report_error(&w->msgs, -e,
				_("cannot create symbolic link %s"),
				sc_quote(dst));
		return -1;
	}
	if (set_attrs(w, -1, -1, src, dst, sst, &m) < 0)
		w->msgs.failed = true;
	report(w, &rec);
	return 0;
}

static int copy_special(struct walk *w, const char *src, const char *dst,
			const struct stat *sst)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_SPECIAL };
	struct sc_made m = { .created = true };
	mode_t mode;

	if (w->o->explain) {
		report(w, &rec);
		return 0;
	}
	m.omitted = sc_attrs_omitted(w->o, sst->st_mode);
	mode = sst->st_mode & ~m.omitted;
	if (S_ISFIFO(sst->st_mode) ? mkfifo(dst, mode & 07777) :
	    mknod(dst, mode, sst->st_rdev)) {
		sc_report_error(&w->msgs, errno, S_ISFIFO(sst->st_mode) ?
		    _("cannot create fifo %s") :
		    _("cannot create special file %s"), sc_quote(dst));
		return -1;
	}
	if (set_attrs(w, -1, -1, src, dst, sst, &m) < 0)
		w->msgs.failed = true;
	report(w, &rec);
	return 0;
}

static int copy_path(struct walk *w, const char *src, const char *dst,
		     bool cmdline);

/* -a, --preserve=links: SRC is another name of a file already copied to
 * PREV; DST becomes another name of PREV. */
static int link_to_earlier(struct walk *w, const char *prev, const char *src,
			   const char *dst)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_HARDLINK };
	int e;

	if (!w->o->explain && (e = sc_dest_make_link(true, prev, dst, false, true)) < 0) {
		sc_report_error(&w->msgs, -e,
				_("cannot create hard link %s to %s"),
				sc_quote(dst), sc_quote(prev));
		return -1;
	}
	report(w, &rec);
	return 0;
}

/* The fast path for a regular file entering a directory this run made:
 * nothing to overwrite, nothing to compare, so no lstat of either side.
 * Returns 1 when the caller must take the general path. */
static _noinline_ int copy_new_regular(struct walk *w, const char *src, const char *dst)
{
	const struct sc_options *o = w->o;
	struct stat ist;
	const char *prev;
	int in, r;
	bool tracked;

	if (w->ahead_fd >= 0) {
		in = w->ahead_fd;	/* ours now */
		w->ahead_fd = -1;
	} else {
		in = src_open(w, src, SC_NEW_SRC_FLAGS);
	}

	if (in < 0)
		return 1;	/* let the general path see and say why */
	if (fstat(in, &ist) < 0 || !S_ISREG(ist.st_mode) ||
	    (o->one_file_system && ist.st_dev != w->root_dev)) {
		close(in);
		return 1;
	}
	tracked = sc_links_tracked(o, &ist, false);
	if (tracked && w->in_worker) {
		/* the hard-link map is the walk's: hand it back */
		close(in);
		return 1;
	}
	/* from here on this path copies it (cp's -v line goes first) */
	announce(w, src, dst);
	if (tracked &&
	    (prev = sc_links_find(&w->links, ist.st_dev, ist.st_ino))) {
		close(in);
		return link_to_earlier(w, prev, src, dst);
	}
	/* O_NONBLOCK was only for the open (a FIFO put in the file's place
	 * must not hang us); regular files ignore it. */
	r = copy_regular(w, src, dst, NULL, NULL, false, in, &ist);
	/* a copy that failed in part is not linked to: cp forgets it, and
	 * copies the file's other names each on its own */
	if (r == 0 && !w->msgs.failed && tracked)
		(void)sc_links_remember(&w->links, ist.st_dev, ist.st_ino,
					dst);
	return r;
}

static int copy_entry(struct walk *w, const char *src, const char *dst,
		      bool cmdline, unsigned char dtype)
{
	const struct sc_options *o = w->o;
	bool outer_failed = w->msgs.failed, outer_reported = w->reported;
	bool outer_announced = w->announced;
	int r = 1;

	w->msgs.failed = false;
	w->reported = false;
	w->announced = false;
	if (dtype == DT_REG && w->parent_facts && !o->explain &&
	    !o->hard_link && !o->symbolic_link && !o->attributes_only)
		r = copy_new_regular(w, src, dst);
	if (r == 1)
		r = copy_path(w, src, dst, cmdline);
	if (w->msgs.failed) {
		w->run->failures++;
		report_failed(w, src, dst);
	}
	w->msgs.failed = outer_failed;
	w->reported = outer_reported;
	w->announced = outer_announced;

	free(w->backup);
	w->backup = NULL;
	return r;
}

/* An operand named again: cp copies it once and warns.  Returns true
 * when SRC is to be skipped. */
static _noinline_ bool named_twice(struct walk *w, const char *src, const char *dst,
			const struct stat *sst)
{
	if (!S_ISDIR(sst->st_mode)) {
		if (w->o->backup != SC_BACKUP_NONE)
			return false;
		/* the same entry, not another hard link to it */
		for (size_t i = 0; i < w->n_src_seen; i++)
			if (w->src_seen[i].dev == sst->st_dev &&
			    w->src_seen[i].ino == sst->st_ino &&
			    !w->src_seen[i].is_dir && w->src_seen[i].name &&
			    sc_path_same_entry(src, w->src_seen[i].name)) {
				sc_report_warning(&w->msgs, 0,
						  _("warning: source file %s specified more than once"),
						  sc_quote(src));
				return true;
			}
		seen_add(&w->src_seen, &w->n_src_seen, sst, src);
		return false;
	}
	for (size_t i = 0; i < w->n_src_seen; i++)
		if (w->src_seen[i].dev == sst->st_dev &&
		    w->src_seen[i].ino == sst->st_ino && w->src_seen[i].is_dir &&
		    w->src_seen[i].name &&
		    sc_path_same_entry(dst, w->src_seen[i].name)) {
			sc_report_warning(&w->msgs, 0,
					  _("warning: source directory %s specified more than once"),
					  sc_quote(src));
			return true;
		}
	seen_add(&w->src_seen, &w->n_src_seen, sst, dst);
	return false;
}

/* One entry the walk copies, as its phases see it. */
struct entry {
	const char *src, *dst;
	bool cmdline;		/* an operand, not found in a directory */
	bool follow;		/* symlinks to the source are followed */
	struct stat sst, dst_st;
	bool dst_exists;	/* DST_ST holds the destination's stat */
	bool loop;		/* ... of a symlink loop that -f removes */
};

/* Stats the source as the options say (through its directory's
 * descriptor when the walk has one).  0, or -1 with the message said. */
static _noinline_ int stat_source(struct walk *w, struct entry *e)
{
	int r = w->at_fd >= 0 ?
		fstatat(w->at_fd, w->at_name, &e->sst,
			e->follow ? 0 : AT_SYMLINK_NOFOLLOW) :
		e->follow ? stat(e->src, &e->sst) : lstat(e->src, &e->sst);

	if (r < 0) {
		/* listed, then gone before its turn: cp's words, and the
		 * summary counts it */
		if (!e->cmdline && errno == ENOENT)
			sc_report_vanished(w->rep);
		sc_report_error(&w->msgs, errno, _("cannot stat %s"),
				sc_quote(e->src));
		return -1;
	}
	return 0;
}

/* The destination as cp sees it: through a symlink when the data of a
 * regular file will be written there; the name itself when it is to be
 * replaced or backed up.  0, or -1 with the message said. */
static _noinline_ int stat_destination(struct walk *w, struct entry *e)
{
	const struct sc_options *o = w->o;
	bool as_regular = !o->recursive || o->copy_contents;
	mode_t mode = e->sst.st_mode;
	bool use_lstat = (!S_ISREG(mode) &&
			  (!as_regular || S_ISDIR(mode) || S_ISLNK(mode))) ||
			 o->symbolic_link || o->hard_link ||
			 o->backup != SC_BACKUP_NONE || o->remove_destination;

	e->dst_exists = (use_lstat ? lstat(e->dst, &e->dst_st) :
			 stat(e->dst, &e->dst_st)) == 0;
	if (!e->dst_exists && errno == ELOOP && !use_lstat && o->force) {
		/* a symlink loop: -f removes it when it cannot be opened */
		e->loop = lstat(e->dst, &e->dst_st) == 0;
	} else if (!e->dst_exists && errno != ENOENT) {
		sc_report_error(&w->msgs, errno, _("cannot stat %s"),
				sc_quote(e->dst));
		return -1;
	}
	return 0;
}

/* The existing destination is moved aside to its backup name.  0: done
 * (it is gone), 1: nothing to back up ("." or ".." as the source), -1:
 * failed, said. */
static int back_up(struct walk *w, const struct entry *e)
{
	const struct sc_options *o = w->o;
	_cleanup_free_ char *base = sc_path_base(e->src);
	char *b;

	if (base && (!strcmp(base, ".") || !strcmp(base, "..")))
		return 1;
	if (o->backup != SC_BACKUP_NUMBERED &&
	    sc_dest_backup_is_source(o, e->src, &e->sst, e->dst)) {
		sc_report_error(&w->msgs, 0,
				_("backing up %s might destroy source;  %s not copied"),
				sc_quote(e->dst), sc_quote(e->src));
		return -1;
	}
	b = sc_dest_backup_name(o, e->dst);
	if (!b || (rename(e->dst, b) < 0 && errno != ENOENT)) {
		sc_report_error(&w->msgs, b ? errno : ENOMEM,
				_("cannot backup %s"), sc_quote(e->dst));
		free(b);
		return -1;
	}
	free(w->backup);
	w->backup = b;		/* shown on the -v line */
	return 0;
}

/* Leaves a destination alone that --update finds new enough; its other
 * names still become links to it, as they would to a copy.  0 or -1. */
static int keep_newer(struct walk *w, const struct entry *e)
{
	const struct sc_options *o = w->o;
	const char *prev;

	if (o->update == SC_UPDATE_NONE_FAIL) {
		/* cp 9.6: said, counted, nothing else done */
		sc_report_error(&w->msgs, 0, _("not replacing %s"),
				sc_quote(e->dst));
		return -1;
	}
	skipped(w, e->dst);
	if (sc_links_tracked(o, &e->sst, e->cmdline)) {
		prev = sc_links_find(&w->links, e->sst.st_dev, e->sst.st_ino);
		if (prev)
			return link_to_earlier(w, prev, e->src, e->dst);
		(void)sc_links_remember(&w->links, e->sst.st_dev,
					e->sst.st_ino, e->dst);
	}
	return 0;
}

/* What cp decides about an existing destination before it copies: the
 * same file, --update, -n, -i, a directory against a file, what this
 * run just made, then a backup or a removal.  1: go on and copy, 0: done
 * (nothing more to do), -1: failed, said. */
static _noinline_ int settle_destination(struct walk *w, struct entry *e)
{
	const struct sc_options *o = w->o;
	bool src_dir = S_ISDIR(e->sst.st_mode);
	bool dst_dir = S_ISDIR(e->dst_st.st_mode);
	bool nothing_to_do = false;
	int r;

	if (o->interactive != SC_OVERWRITE_NEVER &&
	    !sc_dest_same_file_ok(o, e->src, &e->sst, e->dst, &e->dst_st,
				  e->cmdline, &nothing_to_do)) {
		sc_report_error(&w->msgs, 0, _("%s and %s are the same file"),
				sc_quote(e->src), sc_quote(e->dst));
		return -1;
	}
	if (o->update != SC_UPDATE_ALL && !src_dir &&
	    sc_dest_update_skips(o, &e->sst, &e->dst_st))
		return keep_newer(w, e);
	if (!src_dir && (o->interactive == SC_OVERWRITE_NEVER ||
			 (o->interactive == SC_OVERWRITE_ASK &&
			  !sc_dest_ask_overwrite(o, w->privileged, e->dst,
						 &e->dst_st)))) {
		skipped(w, e->dst);
		return 0;
	}
	if (nothing_to_do)
		return 0;
	if (!dst_dir && src_dir) {
		sc_report_error(&w->msgs, 0,
				_("cannot overwrite non-directory %s with directory %s"),
				sc_quote(e->dst), sc_quote(e->src));
		return -1;
	}
	/* cp a/f b/f c: the second would destroy the first */
	if (!dst_dir && e->cmdline && w->multi &&
	    o->backup != SC_BACKUP_NUMBERED &&
	    seen_has(w->dst_seen, w->n_dst_seen, &e->dst_st)) {
		sc_report_error(&w->msgs, 0,
				_("will not overwrite just-created %s with %s"),
				sc_quote(e->dst), sc_quote(e->src));
		return -1;
	}
	if (!src_dir && dst_dir) {
		sc_report_error(&w->msgs, 0,
				_("cannot overwrite directory %s with non-directory"),
				sc_quote(e->dst));
		return -1;
	}
	if (o->backup != SC_BACKUP_NONE && !dst_dir) {
		r = back_up(w, e);
		if (r < 0)
			return -1;
		if (r == 0)
			e->dst_exists = false;
	} else if (!dst_dir &&
		   sc_dest_must_remove(o, &e->sst, &e->dst_st, e->cmdline)) {
		if (sc_dest_remove(&w->msgs, e->dst, o->verbose, true) < 0)
			return -1;
		e->dst_exists = false;
	}
	return 1;
}

/* Several operands into a directory: never write through a symlink this
 * run made.  True (said) when E's destination is one. */
static _noinline_ bool through_new_symlink(struct walk *w, const struct entry *e)
{
	struct stat l;

	if (lstat(e->dst, &l) == 0 && S_ISLNK(l.st_mode) &&
	    seen_has(w->dst_seen, w->n_dst_seen, &l)) {
		sc_report_error(&w->msgs, 0,
				_("will not copy %s through just-created symlink %s"),
				sc_quote(e->src), sc_quote(e->dst));
		return true;
	}
	return false;
}

/* -l, -s: the destination becomes a link to the source instead of a
 * copy.  0 or -1. */
static int link_instead(struct walk *w, const struct entry *e)
{
	const struct sc_options *o = w->o;
	struct sc_record rec = { .src = e->src, .dst = e->dst,
		.kind = o->hard_link ? SC_KIND_HARDLINK : SC_KIND_SYMLINK };
	int r;

	if (o->explain) {
		report(w, &rec);
		return 0;
	}
	if (o->symbolic_link && e->src[0] != '/' && !sc_path_in_cwd(e->dst)) {
		/* a relative target would be resolved from the link's
		 * directory, not from here */
		sc_report_error(&w->msgs, 0,
				_("%s: can make relative symbolic links only in current directory"),
				sc_quote_plain(e->dst));
		return -1;
	}
	r = sc_dest_make_link(o->hard_link, e->src, e->dst, e->follow,
			      o->force || (o->hard_link &&
					   o->interactive == SC_OVERWRITE_ASK));
	if (r < 0) {
		sc_report_error(&w->msgs, -r, o->hard_link ?
				_("cannot create hard link %s to %s") :
				_("cannot create symbolic link %s to %s"),
				sc_quote(e->dst), sc_quote(e->src));
		return -1;
	}
	report(w, &rec);
	return 0;
}

/* Copies what is not a directory, by its type: another name of a file
 * already copied becomes a link, -l/-s make links, then a symlink, the
 * data of a file (or, without -R, of a FIFO or device) or a special
 * file.  0 or -1. */
static _noinline_ int copy_non_directory(struct walk *w, const struct entry *e)
{
	const struct sc_options *o = w->o;
	bool as_regular = !o->recursive || o->copy_contents;
	const struct stat *dst_st = e->dst_exists || e->loop ?
				    &e->dst_st : NULL;
	const char *prev;
	bool tracked;
	int r;

	announce(w, e->src, e->dst);
	if (!e->dst_exists && !e->loop && e->dst[0] &&
	    e->dst[strlen(e->dst) - 1] == '/') {
		/* "dir/" names a directory that is not there */
		sc_report_error(&w->msgs, ENOTDIR,
				_("cannot create regular file %s"),
				sc_quote(e->dst));
		return -1;
	}
	/* Hard links within the copied set (-a, --preserve=links). */
	tracked = sc_links_tracked(o, &e->sst, e->cmdline);
	if (tracked &&
	    (prev = sc_links_find(&w->links, e->sst.st_dev, e->sst.st_ino)))
		return link_to_earlier(w, prev, e->src, e->dst);
	if (o->hard_link || o->symbolic_link)
		return link_instead(w, e);

	if (S_ISLNK(e->sst.st_mode))
		r = copy_symlink(w, e->src, e->dst, &e->sst,
				 e->dst_exists ? &e->dst_st : NULL);
	else if (S_ISREG(e->sst.st_mode) || as_regular)
		/* Without -R (or with --copy-contents), a FIFO or a device
		 * is read like a file: its data is copied, as cp does; a
		 * socket cannot be opened (ENXIO), as cp says. */
		r = copy_regular(w, e->src, e->dst, &e->sst, dst_st,
				 e->follow, -1, NULL);
	else
		r = copy_special(w, e->src, e->dst, &e->sst);
	if (r == 0 && !w->msgs.failed && tracked)
		(void)sc_links_remember(&w->links, e->sst.st_dev,
					e->sst.st_ino, e->dst);
	return r;
}

/* Several operands into a directory: what this one became, so that a
 * later operand does not overwrite it or write through it. */
static _noinline_ void remember_made(struct walk *w, const char *dst)
{
	struct stat l;

	if (lstat(dst, &l) == 0)
		seen_add(&w->dst_seen, &w->n_dst_seen, &l, NULL);
}

/* Copies what SRC names to DST, deciding as cp does: the source, then
 * the destination, then the copy by type.  0 or -1.  The entry, with its
 * two struct stat, is on the heap: copy_path() recurses once per
 * directory level, and a tree thousands of levels deep must fit the
 * stack (tests/integration/t-deep-tree.sh). */
static int copy_path(struct walk *w, const char *src, const char *dst,
		     bool cmdline)
{
	const struct sc_options *o = w->o;
	_cleanup_free_ struct entry *e = malloc(sizeof(*e));
	int r;

	if (!e) {
		sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
		return -1;
	}
	*e = (struct entry){
		.src = src, .dst = dst, .cmdline = cmdline,
		.follow = o->deref == SC_DEREF_ALWAYS ||
			  (o->deref == SC_DEREF_ARGS && cmdline),
	};
	if (stat_source(w, e) < 0)
		return -1;
	if (cmdline)
		w->root_dev = e->sst.st_dev;
	if (S_ISDIR(e->sst.st_mode) && !o->recursive) {
		sc_report_error(&w->msgs, 0,
				_("-r not specified; omitting directory %s"),
				sc_quote(src));
		return -1;
	}
	if (cmdline && w->multi && !o->explain &&
	    named_twice(w, src, dst, &e->sst))
		return 0;
	if (stat_destination(w, e) < 0)
		return -1;
	if (e->dst_exists && !o->explain) {
		r = settle_destination(w, e);
		if (r <= 0)
			return r;
	}
	if (cmdline && w->multi && o->backup == SC_BACKUP_NONE &&
	    !o->explain && through_new_symlink(w, e))
		return -1;

	if (S_ISDIR(e->sst.st_mode))
		r = copy_dir(w, src, dst, &e->sst,
			     e->dst_exists ? &e->dst_st : NULL, cmdline,
			     e->follow);
	else
		r = copy_non_directory(w, e);
	if (r == 0 && cmdline && w->multi && !o->explain)
		remember_made(w, dst);
	return r;
}

/* --- operands ----------------------------------------------------------- */

/* The name SRC gets inside a target directory. */
static char *target_name(struct walk *w, const char *dir, const char *src)
{
	_cleanup_free_ char *copy = strdup(src);
	const char *base;
	char *slash;

	if (!copy)
		return NULL;
	sc_path_strip_slashes(copy);
	if (w->o->parents)
		return sc_path_join(dir, copy);
	slash = strrchr(copy, '/');
	base = slash && slash[1] ? slash + 1 : copy;
	return sc_path_join(dir, base);
}

/* --parents: a directory of the source's path, made or found under the
 * target; its attributes go on after the copy (parents_protect). */
struct parent {
	char *src, *dst;
	struct stat st;		/* the source directory's */
	bool restore;		/* set mode st.st_mode at the end */
};

static void parents_free(struct parent *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].src);
		free(v[i].dst);
	}
	free(v);
}

/* Makes the directories of SRC's path under DIR that are missing, as cp
 * does: like their source directories, less what must wait.  Existing
 * ones are listed too when attributes are preserved.  Returns 0 or -1. */
static int make_parents(struct walk *w, const char *dir, const char *src,
			struct parent **ret, size_t *ret_n)
{
	const struct sc_options *o = w->o;
	_cleanup_free_ char *rel = strdup(src), *full = NULL, *top = NULL;
	struct parent *v = NULL;
	size_t n = 0;
	struct stat st;
	char *p, *slash;

	*ret = NULL;
	*ret_n = 0;
	if (!rel)
		return -1;
	sc_path_strip_slashes(rel);
	full = sc_path_join(dir, rel);
	top = full ? sc_path_dir(full) : NULL;
	if (!top)
		return -1;
	if (stat(top, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;	/* all there: nothing to make or fix */
		sc_report_error(&w->msgs, 0,
				_("%s exists but is not a directory"),
				sc_quote(top));
		return -1;
	}
	for (p = rel; *p == '/'; p++)
		;
	for (; (slash = strchr(p, '/')); p = slash + 1) {
		_cleanup_free_ char *d = NULL;
		bool missing;
		struct stat sst, now;

		if (slash == p)
			continue;	/* "a//b" */
		*slash = '\0';
		d = sc_path_join(dir, rel);
		if (!d)
			goto fail;
		missing = stat(d, &st) != 0;
		if (missing || o->preserve_ownership || o->preserve_mode ||
		    o->preserve_timestamps) {
			struct parent *nv;
			int err = stat(rel, &sst) < 0 ? errno :
				  S_ISDIR(sst.st_mode) ? 0 : ENOTDIR;

			if (err) {
				sc_report_error(&w->msgs, err,
						_("failed to get attributes of %s"),
						sc_quote(rel));
				goto fail;
			}
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				goto fail;
			v = nv;
			v[n] = (struct parent){ strdup(rel), strdup(d), sst, false };
			n++;
			if (!v[n - 1].src || !v[n - 1].dst)
				goto fail;
		}
		if (missing) {
			mode_t omitted = sst.st_mode &
				(o->preserve_ownership ? (mode_t)(S_IRWXG | S_IRWXO) :
				 o->preserve_mode ? (mode_t)(S_IWGRP | S_IWOTH) : 0);
			mode_t mode = (o->explicit_no_preserve_mode ? 0777 :
				       sst.st_mode) & 07777 & ~omitted;

			if (o->explain) {
				*slash = '/';
				continue;
			}
			if (mkdir(d, mode) < 0) {
				sc_report_error(&w->msgs, errno,
						_("cannot make directory %s"),
						sc_quote(d));
				goto fail;
			}
			if (o->verbose)
				/* cp prints these two names unquoted */
				sc_report_parent_made(&w->msgs, rel, d);
			if (lstat(d, &now) < 0) {
				sc_report_error(&w->msgs, errno,
						_("failed to get attributes of %s"),
						sc_quote(d));
				goto fail;
			}
			if (!o->preserve_mode) {
				if (omitted & ~now.st_mode)
					omitted &= ~w->umask;
				if ((omitted & ~now.st_mode) ||
				    (now.st_mode & S_IRWXU) != S_IRWXU) {
					v[n - 1].st.st_mode = now.st_mode | omitted;
					v[n - 1].restore = true;
				}
			}
			if ((now.st_mode & S_IRWXU) != S_IRWXU &&
			    chmod(d, (now.st_mode | S_IRWXU) & 07777) < 0) {
				sc_report_error(&w->msgs, errno,
						_("setting permissions for %s"),
						sc_quote(d));
				goto fail;
			}
		} else if (!S_ISDIR(st.st_mode)) {
			sc_report_error(&w->msgs, 0,
					_("%s exists but is not a directory"),
					sc_quote(d));
			goto fail;
		}
		*slash = '/';
	}
	*ret = v;
	*ret_n = n;
	return 0;
fail:
	parents_free(v, n);
	return -1;
}

/* After the copy: the parents' times, owners and modes, deepest first. */
static int parents_protect(struct walk *w, struct parent *v, size_t n)
{
	const struct sc_attrs_env env = {
		.o = w->o, .umask = w->umask, .privileged = w->privileged,
		.msgs = &w->msgs,
	};

	for (size_t i = n; i-- > 0;)
		if (sc_attrs_set_parent(&env, v[i].src, v[i].dst, &v[i].st,
					v[i].restore) < 0)
			return -1;
	return 0;
}

/* The target of the operands, as cp finds it: -t DIR, -T, or the last
 * operand when it is a directory or there are more than two (*N then
 * counts the sources only).  *RET_DIR: the target directory, or NULL for
 * "copy OPS[0] onto OPS[1]".  0, or 1 with the message said. */
static int find_target(struct walk *w, char **ops, int *n,
		       const char **ret_dir)
{
	const struct sc_options *o = w->o;
	const char *dir = o->target_directory;
	struct stat st;

	if (*n < 1 || (*n < 2 && !dir)) {
		if (*n < 1)
			sc_report_error(&w->msgs, 0, _("missing file operand"));
		else
			sc_report_error(&w->msgs, 0,
					_("missing destination file operand after %s"),
					sc_quote(ops[0]));
		sc_options_try_help();
		return 1;
	}
	if (dir && o->no_target_directory) {
		sc_report_error(&w->msgs, 0,
				_("cannot combine --target-directory (-t) and --no-target-directory (-T)"));
		return 1;
	}
	if (o->no_target_directory) {
		if (*n > 2) {
			sc_report_error(&w->msgs, 0, _("extra operand %s"),
					sc_quote(ops[2]));
			sc_options_try_help();
			return 1;
		}
	} else if (!dir) {
		bool is_dir = stat(ops[*n - 1], &st) == 0 &&
			      S_ISDIR(st.st_mode);

		if (is_dir || *n > 2) {
			dir = ops[--*n];
			if (!is_dir) {
				sc_report_error(&w->msgs,
						stat(dir, &st) < 0 ? errno : ENOTDIR,
						_("target %s"), sc_quote(dir));
				return 1;
			}
		}
	} else {
		int err = stat(dir, &st) < 0 ? errno :
			  S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

		if (err) {
			sc_report_error(&w->msgs, err, _("target directory %s"),
					sc_quote(dir));
			return 1;
		}
	}
	if (o->parents && !dir) {
		sc_report_error(&w->msgs, 0,
				_("with --parents, the destination must be a directory"));
		sc_options_try_help();
		return 1;
	}
	*ret_dir = dir;
	return 0;
}

/* cp SRC DST: one copy, under DST's name.  0, or 1 when it failed.
 * --strip-trailing-slashes acts on operands going into a directory
 * only: cp leaves "f/ g" as it is (ENOTDIR). */
static int copy_onto(struct walk *w, const char *src, const char *dst)
{
	const struct sc_options *o = w->o;
	struct stat st;

	if (o->force && o->backup != SC_BACKUP_NONE && !strcmp(src, dst) &&
	    stat(src, &st) == 0 && S_ISREG(st.st_mode)) {
		/* cp -fb f f: the copy is the backup, made under the
		 * backup's name, and f stays as it is */
		struct sc_options once = *o;
		_cleanup_free_ char *b = sc_dest_backup_name(o, src);
		int r;

		if (!b) {
			sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
			return 1;
		}
		once.backup = SC_BACKUP_NONE;
		w->o = &once;
		r = copy_entry(w, src, b, true, DT_UNKNOWN) < 0;
		w->o = o;
		return r;
	}
	return copy_entry(w, src, dst, true, DT_UNKNOWN) < 0;
}

/* cp SRC... DIR: each source under its name in DIR (--parents: under
 * its whole path, the directories of which are made first).  0, or 1
 * when any failed. */
static int copy_into(struct walk *w, const char *dir, char **ops, int n)
{
	const struct sc_options *o = w->o;
	int rc = 0;

	/* only several operands can collide with each other */
	w->multi = n >= 2;
	for (int i = 0; i < n; i++) {
		struct parent *parents = NULL;
		size_t n_parents = 0;
		char *dst;

		if (o->strip_trailing_slashes)
			sc_path_strip_slashes(ops[i]);
		if (o->parents &&
		    make_parents(w, dir, ops[i], &parents, &n_parents) < 0) {
			rc = 1;
			continue;
		}
		dst = target_name(w, dir, ops[i]);
		if (!dst) {
			sc_report_error(&w->msgs, ENOMEM, "%s",
					sc_quote(ops[i]));
			rc = 1;
			continue;
		}
		if (copy_entry(w, ops[i], dst, true, DT_UNKNOWN) < 0)
			rc = 1;
		if (o->parents && !o->explain &&
		    parents_protect(w, parents, n_parents) < 0) {
			w->run->failures++;
			rc = 1;
		}
		parents_free(parents, n_parents);
		free(dst);
	}
	return rc;
}

/* The operands as cp takes them.  0, or 1 when anything failed. */
static int run_operands(struct walk *w, char **ops, int n)
{
	const char *dir = NULL;

	if (find_target(w, ops, &n, &dir))
		return 1;
	if (!dir)
		return copy_onto(w, ops[0], ops[1]);
	return copy_into(w, dir, ops, n);
}

/* --- -j: what workers do with a file (jobs.c runs them) ---------------- */

/* On worker ID: copy new file F with the worker's own walk. */
static int copy_on_worker(void *arg, unsigned id, struct sc_pool_slot *slot,
			  const struct sc_job_file *f)
{
	struct walk *w = &((struct walk *)arg)->workers[id];
	int r;

	w->slot = slot;
	w->thread = 1 + id;
	w->parent_facts = f->parent_facts;
	w->ahead_fd = f->ahead_fd;
	w->msgs.failed = false;
	w->msgs.last_errno = 0;
	w->reported = false;
	w->announced = false;
	w->at_fd = f->dirfd;
	w->at_name = f->at_name;
	r = copy_new_regular(w, f->src, f->dst);
	if (r != 1 && w->msgs.failed)
		report_failed(w, f->src, f->dst);
	w->at_fd = -1;
	w->at_name = NULL;
	w->slot = NULL;
	return r == 1 ? 1 : w->msgs.failed ? -1 : 0;
}

/* On the walk thread: a file a worker handed back, by the general path. */
static void copy_handed_back(void *arg, const struct sc_job_file *f)
{
	struct walk *w = arg;
	const char *at_name = w->at_name;
	int at_fd = w->at_fd;

	w->parent_facts = f->parent_facts;
	w->at_fd = f->dirfd;
	w->at_name = f->at_name;
	copy_entry(w, f->src, f->dst, false, DT_UNKNOWN);
	w->at_fd = at_fd;
	w->at_name = at_name;
	w->parent_facts = NULL;
}

/* One walk per worker, copies of the walk thread's as it is now. */
static int start_workers(void *arg, unsigned n)
{
	struct walk *w = arg;

	w->workers = calloc(n, sizeof(*w->workers));
	if (!w->workers)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct walk *k = &w->workers[i];

		*k = *w;
		k->in_worker = true;
		k->ahead_fd = -1;
		k->workers = NULL;
		k->backup = NULL;
		k->msgs = (struct sc_msgs){ .streams = walk_streams, .arg = k };
		if (sc_copy_ctx_init(&k->ctx, w->o->sparse) < 0)
			return -ENOMEM;
		k->ctx.verify = w->o->verify;
	}
	return 0;
}

static void stop_workers(void *arg, unsigned n)
{
	struct walk *w = arg;

	for (unsigned i = 0; w->workers && i < n; i++)
		sc_copy_ctx_done(&w->workers[i].ctx);
	free(w->workers);
	w->workers = NULL;
}

static const struct sc_jobs_ops worker_ops = {
	.start = start_workers,
	.copy = copy_on_worker,
	.copy_back = copy_handed_back,
	.stop = stop_workers,
};

/* -j: directory attributes that waited for the workers, post-order. */
static void set_deferred_attrs(struct walk *w)
{
	for (size_t i = 0; i < w->n_deferred; i++) {
		struct deferred *d = &w->deferred[i];

		if (set_attrs(w, -1, -1, d->src, d->dst, &d->st, &d->m) < 0)
			w->run->failures++;
		free(d->src);
		free(d->dst);
	}
	free(w->deferred);
	w->deferred = NULL;
	w->n_deferred = 0;
}

int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n)
{
	struct run run = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct walk w = { .o = opts, .rep = rep, .run = &run, .at_fd = -1,
			  .ahead_fd = -1 };
	struct sc_xattr_rules *rules = NULL;
	int rc;

	w.msgs = (struct sc_msgs){ .streams = walk_streams, .arg = &w };
	if (sc_fsinfo_new(NULL, &run.fsi) < 0 ||
	    sc_jobs_new(opts, &worker_ops, &w, &w.jobs) < 0 ||
	    sc_copy_ctx_init(&w.ctx, opts->sparse) < 0) {
		sc_report_error(&w.msgs, ENOMEM, "%s", sc_program_name);
		sc_jobs_free(w.jobs);
		sc_fsinfo_free(run.fsi);
		return 1;
	}
	sc_fsinfo_want_uuid(run.fsi, opts->explain || opts->json);
	/* Read here, on this thread, before any -j worker exists: workers
	 * only read the rules (see xattr_rules.h). */
	if (opts->preserve_xattr && !opts->explain &&
	    sc_xattr_rules_load(NULL, &rules) < 0) {
		sc_report_error(&w.msgs, ENOMEM, "%s", sc_program_name);
		sc_copy_ctx_done(&w.ctx);
		sc_jobs_free(w.jobs);
		sc_fsinfo_free(run.fsi);
		return 1;
	}
	w.xattr_rules = rules;
	w.kernel = sc_kernel_running();
	w.umask = umask(0);
	umask(w.umask);
	w.privileged = geteuid() == 0;
	w.ctx.verify = opts->verify;
	/* Progress: never in scripts -- only when stderr is a terminal. */
	if (isatty(STDERR_FILENO) && !opts->quiet && !opts->explain &&
	    (!opts->as_cp || opts->progress)) {
		sc_report_progress_enable(rep, opts->progress);
		w.ctx.progress = on_progress;
		w.ctx.progress_arg = &w;
	}
	if (!opts->explain)
		sc_dest_catch_signals();

	rc = run_operands(&w, operands, n);
	if (sc_jobs_running(w.jobs)) {
		sc_jobs_finish(w.jobs);
		set_deferred_attrs(&w);
	}
	run.failures += (int)sc_jobs_failures(w.jobs);
	if (run.failures)
		rc = 1;
	sc_report_finish(rep, run.failures ? run.failures : rc);

	sc_copy_ctx_done(&w.ctx);
	sc_jobs_free(w.jobs);
	sc_fsinfo_free(run.fsi);
	sc_xattr_rules_free(rules);
	free(w.backup);
	sc_links_free(&w.links);
	for (size_t i = 0; i < w.n_src_seen; i++)
		free(w.src_seen[i].name);
	free(w.src_seen);
	free(w.dst_seen);
	free(w.ancestors);
	free(run.learned);
	pthread_mutex_destroy(&run.lock);
	return rc;
}
