/* The walk: from operands to files, the way GNU cp does it, recording
 * each file for the report.  Messages follow cp's wording so scripts and
 * people see what they know; names are quoted with sc_quote(). */
#include "system.h"
#include "walk.h"
#include "walk_state.h"
#include "attrs.h"
#include "deferred.h"
#include "dest.h"
#include "dirs.h"
#include "file.h"
#include "jobs.h"
#include "levels.h"
#include "links.h"
#include "operands.h"
#include "paths.h"
#include "pool.h"
#include "quote.h"
#include "signals.h"
#include "workers.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>

static struct sc_pool_slot *current_slot(const struct walk *w)
{
	return w->slot ? w->slot : sc_jobs_own_slot(w->jobs);
}

/* Where W's -v lines and messages go now (struct sc_msgs). */
void walk_streams(void *arg, FILE **out, FILE **err)
{
	struct sc_pool_slot *s = current_slot(arg);

	*out = s ? s->out : NULL;
	*err = s ? s->err : NULL;
}

void sc_walk_report(struct walk *w, struct sc_record *rec)
{
	w->reported = true;
	sc_report_failure(&w->msgs, rec);
	rec->backup = w->backup;
	rec->announced = w->announced;
	/* counted as the summary counts files */
	if (rec->kind == SC_KIND_FILE && rec->copied && !rec->err)
		sc_signals_done(sc_copy_report_bytes(rec->res));
	sc_report_record(w->rep, rec, sc_report_out(&w->msgs));
}

/* --json: an entry that failed before a record was made (or after its
 * record said it was fine: a directory whose entries cannot be read) is
 * said anyway, typed by what its source is (CMDLINE: an operand), with
 * the step and errno of its first error (sc_report_failure()). */
void report_failed(struct walk *w, const char *src, const char *dst,
		   bool cmdline)
{
	const struct sc_options *o = w->o;
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_UNKNOWN };
	bool follow = o->deref == SC_DEREF_ALWAYS ||
		      (o->deref == SC_DEREF_ARGS && cmdline);
	struct stat st;

	if (!o->json || w->msgs.recorded == 2)
		return;
	if (fstatat(w->at_fd, w->at_name, &st,
		    follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
		rec.kind = S_ISDIR(st.st_mode) ? SC_KIND_DIR :
			   o->hard_link ? SC_KIND_HARDLINK :
			   o->symbolic_link || S_ISLNK(st.st_mode) ?
			   SC_KIND_SYMLINK :
			   S_ISREG(st.st_mode) || !o->recursive ||
			   o->copy_contents ? SC_KIND_FILE : SC_KIND_SPECIAL;
	if (w->msgs.step && !strcmp(w->msgs.step, "link"))
		rec.kind = SC_KIND_HARDLINK;	/* to a copy made earlier */
	if (rec.kind == SC_KIND_FILE)
		rec.src_size = st.st_size;
	sc_walk_report(w, &rec);
}

/* --debug: a destination left as it was (-n, --update, a "no" to -i),
 * as cp 9.4 and later say it. */
void skipped(struct walk *w, const char *dst)
{
	if (w->o->debug && !w->o->json && !w->o->explain)
		sc_report_skipped(&w->msgs, dst);
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

static int on_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct walk *w = arg;

	sc_report_progress(w->rep, w->current, done, w->current_size, road);
	return 0;
}

const struct sc_fs_facts *sc_walk_facts(struct walk *w, int fd,
					const struct stat *st)
{
	return sc_copier_facts(w->run->copier, fd, st);
}

/* --- attributes ------------------------------------------------------- */

/* The metadata of S's copy D (their paths name them in messages)
 * through the copier, which keeps what --preserve asks for; its events
 * said as cp says them.  MADE: SC_MADE_* bits beyond M's.  0, or -1 when
 * a failure counts. */
int set_meta(struct walk *w, int in, int out, const struct sc_at *s,
	     const struct sc_at *d, const struct stat *st,
	     const struct sc_made *m, unsigned made)
{
	const struct sc_attrs_env env = {
		.o = w->o, .privileged = w->privileged, .msgs = &w->msgs,
	};
	/* a name relative to no directory descriptor: its path */
	struct sc_meta_args a = {
		.size = sizeof(a),
		.src_fd = in, .src_dirfd = s->dirfd >= 0 ? s->dirfd : AT_FDCWD,
		.src_name = s->dirfd >= 0 ? s->name : s->path,
		.dst_fd = out, .dst_dirfd = d->dirfd >= 0 ? d->dirfd : AT_FDCWD,
		.dst_name = d->dirfd >= 0 ? d->name : d->path,
		.src_st = st,
		.made = made,
	};
	int e;

	if (m) {
		a.made |= (m->created ? SC_MADE_CREATED : 0) |
			  (m->mode_known ? SC_MADE_MODE_KNOWN : 0) |
			  (m->restore ? SC_MADE_RESTORE : 0) |
			  (m->have_old ? SC_MADE_OLD : 0);
		a.made_mode = m->mode;
		a.omitted = m->omitted;
		a.extra = m->extra;
		a.old_mode = m->old_mode;
	}
	e = sc_copy_ctx_meta(w->cx, &a, w->crep);
	sc_attrs_say_all(&env, w->crep, s->path, d->path);
	return e < 0 ? -1 : 0;
}

int sc_walk_set_attrs(struct walk *w, int in, int out, const char *src,
		      const char *dst, const struct stat *st, struct sc_made *m)
{
	struct sc_at s = sc_walk_src(w, src), d = sc_walk_dst(w, dst);

	return set_meta(w, in, out, &s, &d, st, m, 0);
}

/* --- filesystem facts -------------------------------------------------- */

const struct sc_fs_facts *sc_walk_facts_for_path(struct walk *w,
						 const char *path)
{
	return sc_copier_facts_at(w->run->copier, AT_FDCWD, path);
}

/* --- the walk ---------------------------------------------------------- */

/* The target of symlink AT_NAME in AT_FD, or NULL with errno.  st_size is only a hint: links in /proc and on some
 * filesystems (ISO 9660 Rock Ridge) say 0, so the buffer grows until
 * the target fits. */
static char *read_link(int at_fd, const char *at_name, off_t hint,
		       size_t *len)
{
	size_t size = hint > 0 && hint < SSIZE_MAX - 1 ? (size_t)hint + 1 : 128;

	for (;;) {
		char *buf = malloc(size + 1);
		ssize_t n;

		if (!buf)
			return NULL;
		n = readlinkat(at_fd, at_name, buf, size);
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

	target = read_link(w->at_fd, w->at_name, sst->st_size, &n);
	if (!target) {
		sc_report_error(&w->msgs, errno,
				_("cannot read symbolic link %s"),
				sc_quote(src));
		return -1;
	}
	if (w->o->explain) {
		free(target);
		sc_walk_report(w, &rec);
		return 0;
	}
	{
		struct sc_at to = sc_walk_dst(w, dst);
		struct sc_at what = { AT_FDCWD, target, target };

		e = sc_dest_make_link(false, &what, &to, false, w->o->force);
	}
	if (e == -EEXIST && w->o->update != SC_UPDATE_ALL && dst_st &&
	    S_ISLNK(dst_st->st_mode)) {
		/* -u: the link is already there as it should be */
		size_t hn;
		char *have = read_link(w->dst_fd, w->dst_name,
				       dst_st->st_size, &hn);

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
	if (sc_walk_set_attrs(w, -1, -1, src, dst, sst, &m) < 0)
		w->msgs.failed = true;
	sc_walk_report(w, &rec);
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
		sc_walk_report(w, &rec);
		return 0;
	}
	m.omitted = sc_copier_omitted(w->run->copier, sst->st_mode);
	mode = sst->st_mode & ~m.omitted;
	if (S_ISFIFO(sst->st_mode) ?
	    mkfifoat(w->dst_fd, w->dst_name, mode & 07777) :
	    mknodat(w->dst_fd, w->dst_name, mode, sst->st_rdev)) {
		sc_report_error(&w->msgs, errno, S_ISFIFO(sst->st_mode) ?
		    _("cannot create fifo %s") :
		    _("cannot create special file %s"), sc_quote(dst));
		return -1;
	}
	if (sc_walk_set_attrs(w, -1, -1, src, dst, sst, &m) < 0)
		w->msgs.failed = true;
	sc_walk_report(w, &rec);
	return 0;
}

static int copy_path(struct walk *w, const char *src, const char *dst,
		     bool cmdline);

/* DST (the entry of struct walk) becomes a hard link to PREV, a copy
 * made earlier of ST (the source), which may be anywhere in the tree,
 * deeper than PATH_MAX.  Found by its path, it must still be that copy:
 * a directory on the way may lead elsewhere by now (-ESTALE).  0, 1 when
 * it replaced an existing DST, or -errno. */
static _noinline_ int link_earlier_copy(struct walk *w, const char *prev,
					const char *dst, const struct stat *st)
{
	struct sc_at to = sc_walk_dst(w, dst), from = { .path = prev };
	int e = sc_path_open_parent(prev, &from.dirfd, &from.name);
	struct stat now;

	if (e < 0)
		return e;
	if (fstatat(from.dirfd, from.name, &now, AT_SYMLINK_NOFOLLOW) < 0)
		e = -errno;
	else if (!sc_links_is_copy(&w->links, st->st_dev, st->st_ino, &now))
		e = -ESTALE;
	else
		e = sc_dest_make_link(true, &from, &to, false, true);
	if (from.dirfd >= 0)
		close(from.dirfd);
	return e;
}

/* -a, --preserve=links: DST, the copy of ST (the entry of struct walk),
 * is remembered as the copy of its source, with what it is. */
void remember_copy(struct walk *w, const struct stat *st, const char *dst)
{
	struct stat now;

	if (sc_links_remember(&w->links, st->st_dev, st->st_ino, dst) == 0 &&
	    fstatat(w->dst_fd, w->dst_name, &now, AT_SYMLINK_NOFOLLOW) == 0)
		sc_links_identify(&w->links, st->st_dev, st->st_ino, &now);
}

/* -a, --preserve=links: SRC (ST) is another name of a file already
 * copied to PREV; DST becomes another name of PREV. */
int link_to_earlier(struct walk *w, const char *prev, const char *src,
		    const char *dst, const struct stat *st)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_HARDLINK };
	int e = w->o->explain ? 0 : link_earlier_copy(w, prev, dst, st);

	if (e < 0) {
		sc_report_error(&w->msgs, -e,
				_("cannot create hard link %s to %s"),
				sc_quote(dst), sc_quote(prev));
		return -1;
	}
	sc_walk_report(w, &rec);
	/* cp -v says it after the "->" line, as GNU cp does */
	if (e > 0 && w->o->verbose)
		sc_report_removed(&w->msgs, dst);
	return 0;
}

/* The fast path for a regular file entering a directory this run made:
 * nothing to overwrite, nothing to compare, so no lstat of either side.
 * Returns 1 when the caller must take the general path. */
_noinline_ int copy_new_regular(struct walk *w, const char *src,
				const char *dst)
{
	const struct sc_options *o = w->o;
	const struct stat *ahead = NULL;
	struct stat ist;
	const char *prev;
	int in, r;
	bool tracked;

	if (w->ahead_fd >= 0) {
		in = w->ahead_fd;	/* ours now */
		ahead = w->ahead_st;
		w->ahead_fd = -1;
	} else {
		in = sc_walk_open_source(w, SC_NEW_SRC_FLAGS);
	}

	if (in < 0)
		return 1;	/* let the general path see and say why */
	/* opened ahead: its fstat was taken then, before the read-ahead
	 * could change its access time (-p keeps the one before) */
	if (ahead)
		ist = *ahead;
	if ((!ahead && fstat(in, &ist) < 0) || !S_ISREG(ist.st_mode) ||
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
		return link_to_earlier(w, prev, src, dst, &ist);
	}
	/* O_NONBLOCK was only for the open (a FIFO put in the file's place
	 * must not hang us); regular files ignore it. */
	r = sc_file_copy(w, src, dst, NULL, NULL, false, in, &ist);
	/* a copy that failed in part is not linked to: cp forgets it, and
	 * copies the file's other names each on its own */
	if (r == 0 && !w->msgs.failed && tracked)
		remember_copy(w, &ist, dst);
	return r;
}

/* The end of an entry (SRC -> DST): counted when it failed, and the
 * state of the entry it interrupted (that of the directory it is in) is
 * W's again. */
void entry_end(struct walk *w, const char *src, const char *dst,
	       bool cmdline, const struct sc_msgs *outer_msgs,
	       bool outer_reported, bool outer_announced)
{
	if (w->msgs.failed) {
		w->run->failures++;
		report_failed(w, src, dst, cmdline);
	}
	w->msgs = *outer_msgs;
	w->reported = outer_reported;
	w->announced = outer_announced;

	free(w->backup);
	w->backup = NULL;
}

/* Copies SRC to DST, or, a directory, makes it a level of the walk
 * (ENTERED): the level keeps the state of the entry it interrupts, and
 * its end (level_finish()) ends it.  Else 0 or -1. */
int entry_begin(struct walk *w, const char *src, const char *dst,
		bool cmdline, unsigned char dtype)
{
	const struct sc_options *o = w->o;
	bool outer_reported = w->reported;
	bool outer_announced = w->announced;
	struct sc_msgs outer_msgs = w->msgs;
	int r = 1;

	if (cmdline) {
		/* an operand: its own names, from here */
		w->at_fd = w->dst_fd = AT_FDCWD;
		w->at_name = src;
		w->dst_name = dst;
		w->in_level = false;
	}
	sc_report_begin(&w->msgs);
	w->reported = false;
	w->announced = false;
	if (dtype == DT_REG && w->parent_facts && !o->explain &&
	    !o->hard_link && !o->symbolic_link && !o->attributes_only)
		r = copy_new_regular(w, src, dst);
	if (r == 1)
		r = copy_path(w, src, dst, cmdline);
	if (r == ENTERED) {
		struct level *l = &w->levels[w->n_levels - 1];

		l->outer_msgs = outer_msgs;
		l->outer_reported = outer_reported;
		l->outer_announced = outer_announced;
		return ENTERED;
	}
	entry_end(w, src, dst, cmdline, &outer_msgs, outer_reported,
		  outer_announced);
	return r;
}

/* Copies SRC to DST, an operand (CMDLINE) or a file a worker handed
 * back, and, a directory, all that is in it: level by level, in a loop
 * over the levels (struct level), which the C stack does not limit.
 * 0 or -1. */
int copy_entry(struct walk *w, const char *src, const char *dst,
	       bool cmdline, unsigned char dtype)
{
	size_t base = w->n_levels;
	int r;

	if (cmdline) {
		w->top_src = src;
		w->top_dst = dst;
	}
	r = entry_begin(w, src, dst, cmdline, dtype);
	while (w->n_levels > base) {
		size_t k = w->n_levels - 1;

		if (!level_step(w, k))
			r = level_finish(w, k);
	}
	if (cmdline)
		w->top_src = w->top_dst = NULL;
	return r;
}

/* Stats the source as the options say (through its directory's
 * descriptor when the walk has one).  0, or -1 with the message said. */
static _noinline_ int stat_source(struct walk *w, struct entry *e)
{
	int r = fstatat(w->at_fd, w->at_name, &e->sst,
			e->follow ? 0 : AT_SYMLINK_NOFOLLOW);

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

/* Copies what is not a directory, by its type: another name of a file
 * already copied becomes a link, -l/-s make links, then a symlink, the
 * data of a file (or, without -R, of a FIFO or device) or a special
 * file.  0 or -1. */
static _noinline_ int copy_non_directory(struct walk *w,
					 const struct entry *e)
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
		return link_to_earlier(w, prev, e->src, e->dst, &e->sst);
	if (o->hard_link || o->symbolic_link)
		return sc_dest_link_instead(w, e);

	if (S_ISLNK(e->sst.st_mode))
		r = copy_symlink(w, e->src, e->dst, &e->sst,
				 e->dst_exists ? &e->dst_st : NULL);
	else if (S_ISREG(e->sst.st_mode) || as_regular)
		/* Without -R (or with --copy-contents), a FIFO or a device
		 * is read like a file: its data is copied, as cp does; a
		 * socket cannot be opened (ENXIO), as cp says. */
		r = sc_file_copy(w, e->src, e->dst, &e->sst, dst_st,
				 e->follow, -1, NULL);
	else
		r = copy_special(w, e->src, e->dst, &e->sst);
	if (r == 0 && !w->msgs.failed && tracked)
		remember_copy(w, &e->sst, e->dst);
	return r;
}

/* Copies what SRC names to DST, deciding as cp does: the source, then
 * the destination, then the copy by type.  0 or -1; ENTERED: a directory,
 * now a level of the walk, whose end does what is left (level_finish()). */
static int copy_path(struct walk *w, const char *src, const char *dst,
		     bool cmdline)
{
	const struct sc_options *o = w->o;
	struct entry entry = {
		.src = src, .dst = dst, .cmdline = cmdline,
		.follow = o->deref == SC_DEREF_ALWAYS ||
			  (o->deref == SC_DEREF_ARGS && cmdline),
	}, *e = &entry;
	int r;

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
	    sc_operands_named_twice(w, src, dst, &e->sst))
		return 0;
	if (sc_dest_stat(w, e) < 0)
		return -1;
	if (e->dst_exists) {
		r = sc_dest_settle(w, e);
		if (r <= 0)
			return r;
	}
	if (cmdline && w->multi && o->backup == SC_BACKUP_NONE &&
	    !o->explain && sc_operands_through_new_symlink(w, e))
		return -1;

	if (S_ISDIR(e->sst.st_mode))
		r = copy_dir(w, src, dst, &e->sst,
			     e->dst_exists ? &e->dst_st : NULL, cmdline,
			     e->follow);
	else
		r = copy_non_directory(w, e);
	if (r == 0 && cmdline && w->multi && !o->explain)
		remember_made(w, dst);	/* a directory: at its end */
	return r;
}

/* --assume-fs: facts of filesystems of the named types that nothing is
 * looked up for; one filesystem (one mount) for both ends, or two.  The
 * types were checked when the options were read. */
static void assume_facts(struct run *run, const struct sc_options *o)
{
	for (int i = 0; i < 2; i++) {
		int id = o->assume_one_fs ? 1 : i + 1;

		/* not failing: the options checked the types (but memory) */
		sc_fs_facts_assume(o->assume_type[i], id, id,
				   &run->assumed[i]);
	}
	run->fs_assumed = true;
}

/* The run's copier: the options as its flags and setters.  0 or -1. */
static int make_copier(struct run *run, const struct sc_options *o,
		       mode_t um)
{
	struct sc_copier *c;

	if (sc_copier_new(sc_attrs_copier_flags(o), &c) < 0)
		return -1;
	run->copier = c;
	if (sc_copier_set_roads(c, o->roads, o->roads_forced) < 0 ||
	    sc_copier_set_reflink(c, o->reflink) < 0 ||
	    sc_copier_set_sparse(c, o->sparse) < 0 ||
	    sc_copier_set_umask(c, um) < 0 ||
	    sc_copier_want_uuid(c, o->explain || o->json) < 0 ||
	    (o->kernel_assumed && sc_copier_assume_kernel(c, o->kernel) < 0) ||
	    (run->fs_assumed && run->assumed[0] && run->assumed[1] &&
	     sc_copier_assume_fs(c, run->assumed[0], run->assumed[1]) < 0))
		return -1;
	return 0;
}

int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n)
{
	struct run run = { 0 };
	struct walk w = { .o = opts, .rep = rep, .run = &run,
			  .at_fd = AT_FDCWD, .dst_fd = AT_FDCWD, .ahead_fd = -1 };
	int rc;

	w.msgs = (struct sc_msgs){ .streams = walk_streams, .arg = &w };
	if (opts->fs_assumed)
		assume_facts(&run, opts);
	w.umask = umask(0);
	umask(w.umask);
	w.privileged = geteuid() == 0;
	if (make_copier(&run, opts, w.umask) < 0 ||
	    sc_jobs_new(opts, &sc_workers_ops, &w, &w.jobs) < 0 ||
	    sc_copy_ctx_new(run.copier, &w.cx) < 0 ||
	    sc_copy_report_new(&w.crep) < 0) {
		sc_report_error(&w.msgs, 0, "%s", _("memory exhausted"));
		sc_copy_ctx_free(w.cx);
		sc_jobs_free(w.jobs);
		sc_copier_free(run.copier);
		sc_fs_facts_free(run.assumed[0]);
		sc_fs_facts_free(run.assumed[1]);
		return 1;
	}
	sc_copy_ctx_set_fd_short(w.cx, sc_workers_fd_short, &w);
	sc_signals_register(0, w.cx);
	sc_report_copier(rep, run.copier);
	w.max_open = sc_jobs_levels(w.jobs);
	/* Progress: never in scripts -- only when stderr is a terminal. */
	if (sc_report_stderr_tty() && !opts->quiet && !opts->explain &&
	    (!opts->as_cp || opts->progress)) {
		sc_report_progress_enable(rep, opts->progress);
		sc_copy_ctx_set_progress(w.cx, on_progress, &w);
	}
	if (!opts->explain)
		/* the summary's condition (smartcp.c): a terminal */
		sc_signals_catch(!opts->quiet && !opts->as_cp &&
				 !opts->json && sc_report_stderr_tty());

	rc = sc_operands_run(&w, operands, n);
	if (sc_jobs_running(w.jobs)) {
		sc_jobs_finish(w.jobs);
		set_deferred_attrs(&w);
	}
	run.failures += (int)sc_jobs_failures(w.jobs);
	if (run.failures)
		rc = 1;
	sc_report_finish(rep, run.failures ? run.failures : rc);

	sc_jobs_free(w.jobs);
	sc_report_copier(rep, NULL);
	sc_signals_register(0, NULL);
	sc_copy_ctx_free(w.cx);
	sc_copy_report_free(w.crep);
	sc_copier_free(run.copier);
	sc_fs_facts_free(run.assumed[0]);
	sc_fs_facts_free(run.assumed[1]);
	free(w.backup);
	sc_links_free(&w.links);
	sc_operands_free(&w);
	free(w.levels);
	free_dnodes(&w);
	free(w.deferred);	/* none left: set_deferred_attrs() */
	free(w.level_hash);
	free(w.src_names.p);
	free(w.dst_names.p);
	return rc;
}
