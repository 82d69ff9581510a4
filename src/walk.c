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
#include "paths.h"
#include "pool.h"
#include "quote.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>

struct seen {
	dev_t dev;
	ino_t ino;
	bool is_dir;
	char *name;	/* a source file's name; a source directory's copy */
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

void sc_walk_report(struct walk *w, struct sc_record *rec)
{
	w->reported = true;
	sc_report_failure(&w->msgs, rec);
	rec->backup = w->backup;
	rec->announced = w->announced;
	/* counted as the summary counts files */
	if (rec->kind == SC_KIND_FILE && rec->copied && !rec->err)
		sc_dest_done(sc_copy_report_bytes(rec->res));
	sc_report_record(w->rep, rec, sc_report_out(&w->msgs));
}

/* --json: an entry that failed before a record was made (or after its
 * record said it was fine: a directory whose entries cannot be read) is
 * said anyway, typed by what its source is (CMDLINE: an operand), with
 * the step and errno of its first error (sc_report_failure()). */
static void report_failed(struct walk *w, const char *src, const char *dst,
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
static void skipped(struct walk *w, const char *dst)
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
static void remember_copy(struct walk *w, const struct stat *st,
			  const char *dst)
{
	struct stat now;

	if (sc_links_remember(&w->links, st->st_dev, st->st_ino, dst) == 0 &&
	    fstatat(w->dst_fd, w->dst_name, &now, AT_SYMLINK_NOFOLLOW) == 0)
		sc_links_identify(&w->links, st->st_dev, st->st_ino, &now);
}

/* -a, --preserve=links: SRC (ST) is another name of a file already
 * copied to PREV; DST becomes another name of PREV. */
static int link_to_earlier(struct walk *w, const char *prev, const char *src,
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
static _noinline_ int copy_new_regular(struct walk *w, const char *src,
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
static int copy_entry(struct walk *w, const char *src, const char *dst,
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

/* An operand named again: cp copies it once and warns.  Returns true
 * when SRC is to be skipped. */
static _noinline_ bool named_twice(struct walk *w, const char *src,
				   const char *dst, const struct stat *sst)
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

	e->dst_exists = fstatat(w->dst_fd, w->dst_name, &e->dst_st,
				use_lstat ? AT_SYMLINK_NOFOLLOW : 0) == 0;
	if (!e->dst_exists && errno == ELOOP && !use_lstat && o->force) {
		/* a symlink loop: -f removes it when it cannot be opened */
		e->loop = fstatat(w->dst_fd, w->dst_name, &e->dst_st,
				  AT_SYMLINK_NOFOLLOW) == 0;
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
	    sc_dest_backup_is_source(o, e->src, &e->sst, w->dst_fd, e->dst)) {
		sc_report_error(&w->msgs, 0,
				_("backing up %s might destroy source;  %s not copied"),
				sc_quote(e->dst), sc_quote(e->src));
		return -1;
	}
	if (o->explain)
		return 0;	/* decided: nothing is moved */
	b = sc_dest_backup_name(o, w->dst_fd, e->dst);
	if (!b || (renameat(w->dst_fd, w->dst_name, w->dst_fd,
			    w->dst_fd >= 0 ? sc_path_last(b) : b) < 0 &&
		   errno != ENOENT)) {
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
	if (o->explain && !o->json)	/* the plan of a file left alone */
		sc_report_skipped(&w->msgs, e->dst);
	if (sc_links_tracked(o, &e->sst, e->cmdline)) {
		prev = sc_links_find(&w->links, e->sst.st_dev, e->sst.st_ino);
		if (prev)
			return link_to_earlier(w, prev, e->src, e->dst,
					       &e->sst);
		remember_copy(w, &e->sst, e->dst);
	}
	return 0;
}

/* What cp decides about an existing destination before it copies: the
 * same file, --update, -n, -i, a directory against a file, what this
 * run just made, then a backup or a removal.  1: go on and copy, 0: done
 * (nothing more to do), -1: failed, said.  --explain decides the same,
 * and says the same, but moves and removes nothing and asks nothing: -i
 * is taken as answered yes. */
static _noinline_ int settle_destination(struct walk *w, struct entry *e)
{
	const struct sc_options *o = w->o;
	bool src_dir = S_ISDIR(e->sst.st_mode);
	bool dst_dir = S_ISDIR(e->dst_st.st_mode);
	bool nothing_to_do = false;
	struct sc_at src = sc_walk_src(w, e->src), dst = sc_walk_dst(w, e->dst);
	int r;

	if (o->interactive != SC_OVERWRITE_NEVER &&
	    !sc_dest_same_file_ok(o, &src, &e->sst, &dst, &e->dst_st,
				  e->cmdline, &nothing_to_do)) {
		sc_report_error(&w->msgs, 0, _("%s and %s are the same file"),
				sc_quote(e->src), sc_quote(e->dst));
		return -1;
	}
	if (o->update != SC_UPDATE_ALL && !src_dir &&
	    sc_dest_update_skips(o, &e->sst, &e->dst_st))
		return keep_newer(w, e);
	if (!src_dir && (o->interactive == SC_OVERWRITE_NEVER ||
			 (o->interactive == SC_OVERWRITE_ASK && !o->explain &&
			  !sc_dest_ask_overwrite(o, w->privileged, &dst,
						 &e->dst_st)))) {
		skipped(w, e->dst);
		if (o->explain && !o->json)
			sc_report_skipped(&w->msgs, e->dst);
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
	/* --if-changed: a destination that already holds the source's
	 * bytes is neither backed up nor removed: left alone (but for its
	 * attributes), as it is without -b */
	if (o->if_changed && !dst_dir &&
	    (o->backup != SC_BACKUP_NONE ||
	     sc_dest_must_remove(o, &e->sst, &e->dst_st, e->cmdline)) &&
	    !(sc_links_tracked(o, &e->sst, e->cmdline) &&
	      sc_links_find(&w->links, e->sst.st_dev, e->sst.st_ino))) {
		r = sc_file_unchanged(w, e->src, e->dst, &e->sst, &e->dst_st,
				      e->follow);
		if (r > 0 && !w->msgs.failed &&
		    sc_links_tracked(o, &e->sst, e->cmdline))
			(void)sc_links_remember(&w->links, e->sst.st_dev,
						e->sst.st_ino, e->dst);
		if (r != 0)
			return r > 0 ? 0 : -1;
	}
	if (o->backup != SC_BACKUP_NONE && !dst_dir) {
		r = back_up(w, e);
		if (r < 0)
			return -1;
		if (r == 0)
			e->dst_exists = false;
	} else if (!dst_dir &&
		   sc_dest_must_remove(o, &e->sst, &e->dst_st, e->cmdline)) {
		if (!o->explain &&
		    sc_dest_remove(&w->msgs, &dst, o->verbose, true) < 0)
			return -1;
		e->dst_exists = false;
	}
	return 1;
}

/* Several operands into a directory: never write through a symlink this
 * run made.  True (said) when E's destination is one. */
static _noinline_ bool through_new_symlink(struct walk *w,
					   const struct entry *e)
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

/* Is DST's directory (the entry of struct walk) the current one? */
static bool in_cwd(const struct walk *w, const char *dst)
{
	struct stat d, dot;

	if (w->dst_fd < 0)
		return sc_path_in_cwd(dst);
	return fstat(w->dst_fd, &d) < 0 || stat(".", &dot) < 0 ||
	       (d.st_dev == dot.st_dev && d.st_ino == dot.st_ino);
}

/* -l, -s: the destination becomes a link to the source instead of a
 * copy.  0 or -1. */
static int link_instead(struct walk *w, const struct entry *e)
{
	const struct sc_options *o = w->o;
	struct sc_record rec = { .src = e->src, .dst = e->dst,
		.kind = o->hard_link ? SC_KIND_HARDLINK : SC_KIND_SYMLINK };
	struct sc_at to = sc_walk_dst(w, e->dst);
	struct sc_at target = o->hard_link ? sc_walk_src(w, e->src) :
			      (struct sc_at){ AT_FDCWD, e->src, e->src };
	int r;

	if (o->explain) {
		sc_walk_report(w, &rec);
		return 0;
	}
	if (o->symbolic_link && e->src[0] != '/' && !in_cwd(w, e->dst)) {
		/* a relative target would be resolved from the link's
		 * directory, not from here */
		sc_report_error(&w->msgs, 0,
				_("%s: can make relative symbolic links only in current directory"),
				sc_quote_plain(e->dst));
		return -1;
	}
	r = sc_dest_make_link(o->hard_link, &target, &to, e->follow,
			      o->force || (o->hard_link &&
					   o->interactive == SC_OVERWRITE_ASK));
	if (r < 0) {
		sc_report_error(&w->msgs, -r, o->hard_link ?
				_("cannot create hard link %s to %s") :
				_("cannot create symbolic link %s to %s"),
				sc_quote(e->dst), sc_quote(e->src));
		return -1;
	}
	sc_walk_report(w, &rec);
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
		return link_instead(w, e);

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

/* Several operands into a directory: what this one became, so that a
 * later operand does not overwrite it or write through it. */
_noinline_ void remember_made(struct walk *w, const char *dst)
{
	struct stat l;

	if (lstat(dst, &l) == 0)
		seen_add(&w->dst_seen, &w->n_dst_seen, &l, NULL);
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
	    named_twice(w, src, dst, &e->sst))
		return 0;
	if (stat_destination(w, e) < 0)
		return -1;
	if (e->dst_exists) {
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
		remember_made(w, dst);	/* a directory: at its end */
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
	/* cp -r d/.. t: into t itself, named "t/." as cp names it, not
	 * into t's parent */
	if (!strcmp(base, ".."))
		base = ".";
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
	for (size_t i = n; i-- > 0;) {
		struct sc_at s = { AT_FDCWD, v[i].src, v[i].src };
		struct sc_at d = { AT_FDCWD, v[i].dst, v[i].dst };

		if (set_meta(w, -1, -1, &s, &d, &v[i].st, NULL,
			     SC_MADE_PARENT |
			     (v[i].restore ? SC_MADE_RESTORE : 0)) < 0)
			return -1;
	}
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
		_cleanup_free_ char *b = sc_dest_backup_name(o, AT_FDCWD, src);
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

/* Points W at file F of a job: through the job's directories, which it
 * always has (level_step() makes jobs only of a level with both open,
 * and sc_jobs_add() keeps its own), never by path: a directory on the
 * way may lead elsewhere by now. */
static void job_entry(struct walk *w, const struct sc_job_file *f)
{
	w->at_fd = f->dirfd;
	w->at_name = sc_path_last(f->src);
	w->dst_fd = f->dst_dirfd;
	w->dst_name = sc_path_last(f->dst);
	w->in_level = false;
}

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
	w->ahead_st = f->ahead_st;
	sc_report_begin(&w->msgs);
	w->reported = false;
	w->announced = false;
	job_entry(w, f);
	r = copy_new_regular(w, f->src, f->dst);
	if (r != 1 && w->msgs.failed)
		report_failed(w, f->src, f->dst, false);
	w->slot = NULL;
	return r == 1 ? 1 : w->msgs.failed ? -1 : 0;
}

/* On the walk thread: a file a worker handed back, by the general path. */
static void copy_handed_back(void *arg, const struct sc_job_file *f)
{
	struct walk *w = arg;
	const char *at_name = w->at_name, *dst_name = w->dst_name;
	int at_fd = w->at_fd, dst_fd = w->dst_fd;
	bool in_level = w->in_level;

	w->parent_facts = f->parent_facts;
	job_entry(w, f);
	copy_entry(w, f->src, f->dst, false, DT_UNKNOWN);
	/* the walk's entry as it was; the walk checks its level's
	 * descriptors before it uses them again (copy_entries()) */
	w->at_fd = at_fd;
	w->at_name = at_name;
	w->dst_fd = dst_fd;
	w->dst_name = dst_name;
	w->in_level = in_level;
	w->parent_facts = NULL;
}

/* Out of descriptors in the library's open: the walk gives some back. */
static bool walk_fd_short(void *arg, int err, unsigned *tries)
{
	return sc_walk_fd_short(arg, err, tries);
}

/* One walk per worker, copies of the walk thread's as it is now: as many
 * as there is memory for, up to N. */
static unsigned start_workers(void *arg, unsigned n)
{
	struct walk *w = arg;
	unsigned i;

	/* A worker may meet a filesystem whose facts need libmount (a FUSE
	 * subtype, an unknown magic): it is loaded now, on the walk thread,
	 * so that no library's first-use set-up runs in a worker. */
	sc_copier_preload(w->run->copier);
	w->workers = calloc(n, sizeof(*w->workers));
	if (!w->workers)
		return 0;
	for (i = 0; i < n; i++) {
		struct walk *k = &w->workers[i];

		*k = *w;
		k->in_worker = true;
		k->ahead_fd = -1;
		k->workers = NULL;
		k->backup = NULL;
		k->msgs = (struct sc_msgs){ .streams = walk_streams, .arg = k };
		/* one copier for the run (its facts and what it learned
		 * shared, under its lock), a context and a report each */
		k->cx = NULL;
		k->crep = NULL;
		if (sc_copy_ctx_new(w->run->copier, &k->cx) < 0 ||
		    sc_copy_report_new(&k->crep) < 0) {
			sc_copy_ctx_free(k->cx);
			break;
		}
		sc_copy_ctx_set_fd_short(k->cx, walk_fd_short, k);
		sc_dest_register(1 + i, k->cx);
	}
	return i;
}

static void stop_workers(void *arg, unsigned n)
{
	struct walk *w = arg;

	for (unsigned i = 0; w->workers && i < n; i++) {
		sc_dest_register(1 + i, NULL);
		sc_copy_ctx_free(w->workers[i].cx);
		sc_copy_report_free(w->workers[i].crep);
	}
	free(w->workers);
	w->workers = NULL;
}

static const struct sc_jobs_ops worker_ops = {
	.start = start_workers,
	.copy = copy_on_worker,
	.copy_back = copy_handed_back,
	.stop = stop_workers,
};

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
	    sc_jobs_new(opts, &worker_ops, &w, &w.jobs) < 0 ||
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
	sc_copy_ctx_set_fd_short(w.cx, walk_fd_short, &w);
	sc_dest_register(0, w.cx);
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
		sc_dest_catch_signals(!opts->quiet && !opts->as_cp &&
				      !opts->json && sc_report_stderr_tty());

	rc = run_operands(&w, operands, n);
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
	sc_dest_register(0, NULL);
	sc_copy_ctx_free(w.cx);
	sc_copy_report_free(w.crep);
	sc_copier_free(run.copier);
	sc_fs_facts_free(run.assumed[0]);
	sc_fs_facts_free(run.assumed[1]);
	free(w.backup);
	sc_links_free(&w.links);
	for (size_t i = 0; i < w.n_src_seen; i++)
		free(w.src_seen[i].name);
	free(w.src_seen);
	free(w.dst_seen);
	free(w.levels);
	free_dnodes(&w);
	free(w.deferred);	/* none left: set_deferred_attrs() */
	free(w.level_hash);
	free(w.src_names.p);
	free(w.dst_names.p);
	free(w.anc);
	return rc;
}
