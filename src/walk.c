/* The walk: from operands to files, the way GNU cp does it, recording
 * each file for the report.  Messages follow cp's wording so scripts and
 * people see what they know; names are quoted with sc_quote(). */
#include "system.h"
#include "walk.h"
#include "walk_state.h"
#include "attrs.h"
#include "dest.h"
#include "file.h"
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

/* A source directory being copied and its copy: one per level of the
 * recursion, outermost first.  Only the deepest levels keep their
 * descriptors (w->max_open, from sc_jobs_levels()), so a tree of any
 * depth holds a bounded number; a level whose descriptors were given back
 * is opened again when the walk returns to it, through ".." of the level
 * it leaves, or else from the nearest open level above, name by name:
 * each step must find the directory it saw there (st_dev, st_ino), or
 * the walk refuses to go on in it. */
struct level {
	dev_t dev;		/* the source directory */
	ino_t ino;
	dev_t ddev;		/* its copy, once open; DINO 0: none */
	ino_t dino;
	int sfd, dfd;		/* open, or -1 */
	/* Where it is: in the level above (UP; DUP for its copy), or, the
	 * first level of an operand or of a file a worker handed back, in
	 * directories the walk does not keep (SPFD, DPFD: AT_FDCWD, or a
	 * job's).  A copy whose parent could not be opened goes by path:
	 * DNAME is then its whole path, DPFD AT_FDCWD. */
	bool up, dup;
	int spfd, dpfd;
	const char *sname, *dname;	/* its names there */
	bool follow;		/* SNAME may be a symlink to follow */
	int lost;		/* -errno: could not be opened again */
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
		sc_dest_done(rec->res.bytes);
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

/* --- descriptors -------------------------------------------------------- */

static void level_close(struct walk *w, struct level *l)
{
	if (l->sfd < 0 && l->dfd < 0)
		return;
	if (l->sfd >= 0)
		close(l->sfd);
	if (l->dfd >= 0)
		close(l->dfd);
	l->sfd = l->dfd = -1;
	w->n_open--;
}

/* Gives back the descriptors of the shallowest open levels until at most
 * KEEP are open, never those of the deepest two: the walk is copying the
 * entries of the deepest, and returns to its parent next.  True when any
 * were given back. */
static bool levels_trim(struct walk *w, unsigned keep)
{
	bool freed = false;

	for (size_t i = 0; w->n_open > keep && i + 2 < w->n_levels; i++)
		if (w->levels[i].sfd >= 0 || w->levels[i].dfd >= 0) {
			level_close(w, &w->levels[i]);
			freed = true;
		}
	return freed;
}

bool sc_walk_fd_short(struct walk *w, int err, unsigned *tries)
{
	struct timespec pause = { 0, 2000000 };

	if (err != EMFILE && err != ENFILE)
		return false;
	/* first what the walk keeps for later, then fewer workers at once
	 * and time for them to close what they hold: a worker's files are
	 * small, or they hold few descriptors for long */
	if (!w->in_worker && levels_trim(w, 0)) {
		errno = err;
		return true;
	}
	/* alone, no one else will give any back: it is a failure */
	if ((!w->in_worker && !sc_jobs_running(w->jobs)) || (*tries)++ >= 250) {
		errno = err;
		return false;
	}
	sc_jobs_fd_short(w->jobs);
	nanosleep(&pause, NULL);
	errno = err;
	return true;
}

int sc_walk_open_source(struct walk *w, int flags)
{
	unsigned tries = 0;
	int fd;

	while ((fd = openat(w->at_fd, w->at_name, flags)) < 0 &&
	       sc_walk_fd_short(w, errno, &tries))
		;
	return fd;
}

int sc_walk_open_dest(struct walk *w, int flags, mode_t mode)
{
	unsigned tries = 0;
	int fd;

	while ((fd = openat(w->dst_fd, w->dst_name, flags, mode)) < 0 &&
	       sc_walk_fd_short(w, errno, &tries))
		;
	return fd;
}

/* Opens NAME in DIRFD as a directory with FLAGS (O_RDONLY to read it,
 * O_PATH for its copy), which must be the one DEV and INO say (INO 0:
 * any).  A descriptor; -1 with errno, ESTALE when another directory or a
 * symlink is there now. */
static int open_dir_checked(struct walk *w, int dirfd, const char *name,
			    int flags, dev_t dev, ino_t ino)
{
	unsigned tries = 0;
	struct stat st;
	int fd;

	while ((fd = openat(dirfd, name, flags | O_DIRECTORY | O_CLOEXEC |
			    O_NOCTTY)) < 0 &&
	       sc_walk_fd_short(w, errno, &tries))
		;
	if (fd < 0) {
		if ((errno == ELOOP || errno == ENOTDIR) && (flags & O_NOFOLLOW))
			errno = ESTALE;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	if (ino && (st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

static int level_fd(const struct level *l, bool dst)
{
	return dst ? l->dfd : l->sfd;
}

static bool level_up(const struct level *l, bool dst)
{
	return dst ? l->dup : l->up;
}

/* Level K's source directory (DST: its copy) opened again, from the
 * nearest open level above it, or from where the first of them is, name
 * by name.  A descriptor, or -1 with errno (ESTALE: replaced). */
static int level_reopen(struct walk *w, size_t k, bool dst)
{
	size_t i = k;
	int from, fd;

	while (level_up(&w->levels[i], dst) &&
	       level_fd(&w->levels[i - 1], dst) < 0)
		i--;
	from = level_up(&w->levels[i], dst) ?
	       level_fd(&w->levels[i - 1], dst) :
	       dst ? w->levels[i].dpfd : w->levels[i].spfd;
	for (fd = from; i <= k; i++) {
		const struct level *l = &w->levels[i];
		int next = dst ?
			open_dir_checked(w, fd, l->dname, O_PATH |
					 (l->dup ? O_NOFOLLOW : 0),
					 l->ddev, l->dino) :
			open_dir_checked(w, fd, l->sname, O_RDONLY |
					 (l->follow ? 0 : O_NOFOLLOW),
					 l->dev, l->ino);
		int err = errno;

		if (fd != from)
			close(fd);	/* a step on the way: ours */
		if (next < 0) {
			errno = err;
			return -1;
		}
		fd = next;
	}
	return fd;
}

/* The descriptors of level K (its copy's only when it has one), opened
 * again if they were given back.  0, or -errno (-ESTALE: a directory
 * that was replaced since the walk entered it). */
static int level_get(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	bool was_open = l->sfd >= 0 || l->dfd >= 0;
	int err;

	if (l->lost)
		return l->lost;
	if (l->sfd < 0) {
		l->sfd = level_reopen(w, k, false);
		if (l->sfd < 0)
			goto fail;
	}
	if (l->dfd < 0 && l->dino) {
		l->dfd = level_reopen(w, k, true);
		if (l->dfd < 0)
			goto fail;
	}
	if (!was_open) {
		w->n_open++;
		levels_trim(w, w->max_open);
	}
	return 0;
fail:
	/* all of the level or none: what was opened goes back too; and
	 * once lost, lost (its copy_entries() says so, once) */
	err = errno;
	if (!was_open && (l->sfd >= 0 || l->dfd >= 0))
		w->n_open++;
	level_close(w, l);
	l->lost = -err;
	return -err;
}

/* Leaves the deepest level: its descriptors go back, and its parent's
 * are opened again through ".." while they are still at hand, if they
 * had been given back (checked, as always; else they are reopened by
 * name when needed). */
static void level_pop(struct walk *w)
{
	struct level *l = &w->levels[w->n_levels - 1];
	struct level *p = l->up && w->n_levels > 1 ? l - 1 : NULL;

	if (p && p->sfd < 0 && p->dfd < 0 && l->sfd >= 0) {
		p->sfd = open_dir_checked(w, l->sfd, "..", O_RDONLY,
					  p->dev, p->ino);
		if (p->sfd >= 0 && p->dino && l->dup && l->dfd >= 0) {
			p->dfd = open_dir_checked(w, l->dfd, "..", O_PATH,
						  p->ddev, p->dino);
			if (p->dfd < 0) {
				close(p->sfd);
				p->sfd = -1;
			}
		}
		if (p->sfd >= 0)
			w->n_open++;
	}
	level_close(w, l);
	w->n_levels--;
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

const struct sc_fs_facts *sc_walk_facts(struct walk *w, int fd,
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

int sc_walk_set_attrs(struct walk *w, int in, int out, const char *src,
		      const char *dst, const struct stat *st, struct sc_made *m)
{
	const struct sc_attrs_env env = {
		.o = w->o, .xattr_rules = w->xattr_rules, .umask = w->umask,
		.privileged = w->privileged, .msgs = &w->msgs,
	};
	struct sc_at s = sc_walk_src(w, src), d = sc_walk_dst(w, dst);

	return sc_attrs_set(&env, in, out, &s, &d, st, m);
}

/* --- filesystem facts -------------------------------------------------- */

const struct sc_fs_facts *sc_walk_facts_for_path(struct walk *w,
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
				f = sc_walk_facts(w, fd, &st);
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

/* Adds an entry to the list V (N of CAP).  0, or -ENOMEM. */
static int dent_add(struct dent **v, size_t *n, size_t *cap, ino_t ino,
		    unsigned char type, const char *name)
{
	struct dent *nv;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 32;

		if (!(nv = realloc(*v, c * sizeof(*nv))))
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[*n] = (struct dent){ ino, type, strdup(name) };
	if (!(*v)[*n].name)
		return -ENOMEM;
	++*n;
	return 0;
}

/* The entries of directory FD by getdents64 into a buffer on the stack,
 * for when fdopendir() has no memory for its own (32 KiB): a copy short
 * of memory lists the directory all the same.  0 or -errno. */
static int list_small(int fd, struct dent **v, size_t *n, size_t *cap)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t got;
	int e = 0;

	while (!e && (got = getdents64(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; !e && off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			e = dent_add(v, n, cap, d->d_ino, d->d_type,
				     d->d_name);
			off += d->d_reclen;
		}
	return e ? e : got < 0 ? -errno : 0;
}

/* A directory's entries, sorted by inode: cp's order, and the fastest
 * to read on ext4.  The directory is AT_NAME in AT_FD (struct walk);
 * unless FOLLOW, a symlink put in its place is refused, and it must still
 * be the directory WANT describes (-ESTALE if not).  *KEEP gets its
 * descriptor, for opening its entries. */
static _noinline_ int list_dir(struct walk *w, bool follow,
			       const struct stat *want, int *keep,
			       struct dent **ret, size_t *ret_n)
{
	int fd = open_dir_checked(w, w->at_fd, w->at_name,
				  O_RDONLY | (follow ? 0 : O_NOFOLLOW),
				  want->st_dev, want->st_ino);
	unsigned tries = 0;
	int rfd, err = 0;
	DIR *d;
	struct dent *v = NULL;
	struct dirent *e;
	size_t n = 0, cap = 0;

	*keep = -1;
	if (fd < 0)
		return -errno;
	/* readdir's own, so that FD stays for the entries */
	while ((rfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 &&
	       sc_walk_fd_short(w, errno, &tries))
		;
	d = rfd >= 0 ? fdopendir(rfd) : NULL;
	if (rfd >= 0 && !d && errno == ENOMEM) {
		err = list_small(rfd, &v, &n, &cap);
	} else if (!d) {
		err = errno;
		if (rfd >= 0)
			close(rfd);
		close(fd);
		return -err;
	} else {
		while (!err && (errno = 0, e = readdir(d)))
			err = dent_add(&v, &n, &cap, e->d_ino, e->d_type,
				       e->d_name);
		if (!err && errno)
			err = -errno;
	}
	if (d)
		closedir(d);
	else
		close(rfd);
	if (err) {
		while (n)
			free(v[--n].name);
		free(v);
		close(fd);
		return err;
	}
	*keep = fd;
	if (n)
		qsort(v, n, sizeof(*v), by_ino);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* A directory that must not be copied: one the walk is already inside
 * (a link that leads back, -L or -H), or the destination inside the
 * source.  True when refused, said. */
static _noinline_ bool refuse_directory(struct walk *w, const char *src,
					const char *dst, const struct stat *sst,
					bool cmdline)
{
	for (size_t i = 0; i < w->n_levels; i++)
		if (w->levels[i].dev == sst->st_dev &&
		    w->levels[i].ino == sst->st_ino) {
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
 * so that we may enter it and write its entries.  *RET_DEV, *RET_INO:
 * what it is.  0 or -1. */
static _noinline_ int make_directory(struct walk *w, const char *dst,
				     const struct stat *sst, struct sc_made *m,
				     dev_t *ret_dev, ino_t *ret_ino)
{
	struct stat now;

	/* mkdir decides about set-gid (inherited from the parent) */
	m->omitted = sc_attrs_omitted(w->o, sst->st_mode);
	if (mkdirat(w->dst_fd, w->dst_name,
		    sst->st_mode & 07777 & ~m->omitted) < 0) {
		sc_report_error(&w->msgs, errno,
				_("cannot create directory %s"), sc_quote(dst));
		return -1;
	}
	m->created = true;
	if (fstatat(w->dst_fd, w->dst_name, &now, AT_SYMLINK_NOFOLLOW) < 0) {
		sc_report_error(&w->msgs, errno, _("cannot stat %s"),
				sc_quote(dst));
		return -1;
	}
	m->mode = now.st_mode;
	m->mode_known = true;
	*ret_dev = now.st_dev;
	*ret_ino = now.st_ino;
	if ((now.st_mode & S_IRWXU) != S_IRWXU) {
		/* we must enter it and write its entries */
		m->restore = true;
		if (fchmodat(w->dst_fd, w->dst_name,
			     (now.st_mode & 07777) | S_IRWXU, 0) < 0) {
			sc_report_error(&w->msgs, errno,
					_("setting permissions for %s"),
					sc_quote(dst));
			return -1;
		}
	}
	return 0;
}

/* Enters the directory being copied (the entry of struct walk, SST,
 * FOLLOW as for list_dir()), whose copy is DDEV, DINO (DINO 0: none,
 * --explain): a new level, with no descriptors yet.  0 or -ENOMEM. */
static _noinline_ int level_push(struct walk *w, const struct stat *sst,
				 bool follow, dev_t ddev, ino_t dino)
{
	struct level *l;

	if (w->n_levels == w->cap_levels) {
		size_t cap = w->cap_levels ? 2 * w->cap_levels : 16;
		void *na = realloc(w->levels, cap * sizeof(*w->levels));

		if (!na)
			return -ENOMEM;
		w->levels = na;
		w->cap_levels = cap;
	}
	l = &w->levels[w->n_levels++];
	*l = (struct level){
		.dev = sst->st_dev, .ino = sst->st_ino,
		.ddev = ddev, .dino = dino, .sfd = -1, .dfd = -1,
		.up = w->in_level && w->n_levels > 1,
		.dup = w->in_level && w->n_levels > 1 && w->dst_fd >= 0,
		.spfd = w->at_fd, .dpfd = w->dst_fd,
		.sname = w->at_name, .dname = w->dst_name,
		.follow = follow,
	};
	return 0;
}

/* Opens the copy of level K (the entry of struct walk), which must be
 * the directory it made or found, DST.  Where it cannot be opened (not
 * searchable, say), its entries go by path, as they always did. */
static _noinline_ void level_open_copy(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];

	if (!l->dino)
		return;
	l->dfd = open_dir_checked(w, w->dst_fd, w->dst_name,
				  O_PATH | (l->dup ? O_NOFOLLOW : 0),
				  l->ddev, l->dino);
	if (l->dfd < 0)
		l->dino = 0;
}

/* The facts of the directory open as FD, which this run made. */
static _noinline_ const struct sc_fs_facts *dir_facts_of(struct walk *w,
							 int fd,
							 const char *path)
{
	struct stat st;

	if (fd < 0)
		return sc_walk_facts_for_path(w, path);
	return fstat(fd, &st) == 0 ? sc_walk_facts(w, fd, &st) : NULL;
}

/* Level K, which the walk is in, cannot be opened again (E = -errno):
 * said, with the name of its source directory SRC. */
static _noinline_ void say_level_lost(struct walk *w, const char *src, int e)
{
	if (e == -ESTALE)
		sc_report_error(&w->msgs, 0,
				_("skipping directory %s, as it was replaced while being copied"),
				sc_quote(src));
	else
		sc_report_error(&w->msgs, -e, _("cannot access %s"),
				sc_quote(src));
}

/* Points W at entry NAME of level K (D: its whole destination path, for
 * a level whose copy goes by path). */
static void at_entry(struct walk *w, size_t k, const char *name,
		     const char *d)
{
	const struct level *l = &w->levels[k];

	w->at_fd = l->sfd;
	w->at_name = name;
	w->dst_fd = l->dfd >= 0 ? l->dfd : AT_FDCWD;
	w->dst_name = l->dfd >= 0 ? name : d;
	w->in_level = true;
}

/* Copies the entries of directory SRC (SST) into DST, in inode order.
 * The directory is the entry of struct walk; DDEV, DINO: its copy, made
 * (CREATED) or found (DINO 0: none, --explain).  0 or -1. */
static int copy_entries(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, bool follow, bool created,
			dev_t ddev, ino_t dino)
{
	const struct sc_options *o = w->o;
	const struct sc_fs_facts *dir_facts = NULL, *src_facts = NULL;
	struct sc_job *batch = NULL;
	struct dent *ents = NULL;
	size_t n = 0, i, k;
	int rc = 0, e;
	/* the directory as an entry of its parent, for its attributes */
	int at_fd = w->at_fd, dst_fd = w->dst_fd;
	const char *at_name = w->at_name, *dst_name = w->dst_name;
	bool up = w->in_level;

	if (level_push(w, sst, follow, ddev, dino) < 0) {
		sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
		return -1;
	}
	k = w->n_levels - 1;
	e = list_dir(w, follow, sst, &w->levels[k].sfd, &ents, &n);
	if (e < 0) {
		say_level_lost(w, src, e);
		w->n_levels--;
		return -1;
	}
	w->n_open++;
	level_open_copy(w, k);
	levels_trim(w, w->max_open);
	if (created)
		dir_facts = dir_facts_of(w, w->levels[k].dfd, dst);
	for (i = 0; i < n; i++) {
		char *s = sc_path_join(src, ents[i].name);
		char *d = sc_path_join(dst, ents[i].name);

		if (!s || !d) {
			sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
			rc = -1;
			goto next;
		}
		e = level_get(w, k);
		if (e == 0 && dir_facts && ents[i].type == DT_REG &&
		    !o->hard_link && !o->symbolic_link &&
		    !o->attributes_only && !w->in_worker &&
		    sc_jobs_ready(w->jobs, dir_facts, w->levels[k].sfd,
				  ents[i].name)) {
			/* -j: new files in a new directory go to a worker in
			 * runs; their output keeps its place in walk order.
			 * 1: no descriptors or memory for a job, copied
			 * here. */
			/* how the workers ask for the data (jobs.c) */
			if (!src_facts && w->levels[k].sfd >= 0)
				src_facts = sc_walk_facts(w,
						w->levels[k].sfd, sst);
			e = sc_jobs_add(w->jobs, &batch, w->levels[k].sfd,
					src_facts, w->levels[k].dfd,
					dir_facts, s, d);
			if (e != 1) {
				s = d = NULL;	/* the job owns them now */
				goto next;
			}
		}
		sc_jobs_submit(w->jobs, &batch);
		/* again: a file handed back while the jobs were flushed may
		 * have moved W, and the levels */
		e = level_get(w, k);
		if (e < 0) {
			free(s);
			free(d);
			break;	/* said below */
		}
		/* set for each entry: copying a subdirectory changes them */
		w->parent_facts = dir_facts;
		at_entry(w, k, ents[i].name, d);
		if (copy_entry(w, s, d, false, ents[i].type) < 0)
			rc = -1;
next:
		free(s);
		free(d);
		free(ents[i].name);
	}
	while (i < n)
		free(ents[i++].name);
	sc_jobs_submit(w->jobs, &batch);
	free(ents);
	w->parent_facts = NULL;
	/* lost at an entry, or when a subdirectory came back to it */
	if (w->levels[k].lost) {
		say_level_lost(w, src, w->levels[k].lost);
		rc = -1;
	}
	level_pop(w);
	/* back to the directory as an entry of its parent, whose level may
	 * have to be opened again; by path if it cannot */
	w->at_name = at_name;
	w->dst_name = dst_name;
	w->at_fd = at_fd;
	w->dst_fd = dst_fd;
	w->in_level = up;
	if (up && level_get(w, k - 1) == 0) {
		w->at_fd = w->levels[k - 1].sfd;
		if (w->levels[k - 1].dfd >= 0)
			w->dst_fd = w->levels[k - 1].dfd;
	} else if (up) {
		w->at_fd = w->dst_fd = AT_FDCWD;
		w->at_name = src;
		w->dst_name = dst;
		w->in_level = false;
	}
	return rc;
}

/* Modes and times of a directory go on after its contents: writing the
 * entries would change the times, and a read-only mode would have
 * stopped us writing them.  With -j its files may still be in flight:
 * they wait for the end of the run (the list is in post-order).
 * 0 or -1. */
static _noinline_ int directory_attrs(struct walk *w, const char *src,
				      const char *dst, const struct stat *sst,
				      struct sc_made *m)
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
	if (sc_walk_set_attrs(w, -1, -1, src, dst, sst, m) < 0) {
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

	sc_walk_report(w, &rec);
}

/* Copies directory SRC (SST) to DST (DST_ST: the existing one, or NULL):
 * made, filled, then given its attributes.  0 or -1. */
static int copy_dir(struct walk *w, const char *src, const char *dst,
		    const struct stat *sst, const struct stat *dst_st,
		    bool cmdline, bool follow)
{
	const struct sc_options *o = w->o;
	struct sc_made m = { 0 };
	dev_t ddev = 0;
	ino_t dino = 0;
	int rc = 0;

	if (refuse_directory(w, src, dst, sst, cmdline))
		return -1;
	if (!dst_st && !o->explain) {
		if (make_directory(w, dst, sst, &m, &ddev, &dino) < 0)
			return -1;
	} else if (dst_st) {
		m.have_old = true;
		m.old_mode = dst_st->st_mode;
		ddev = dst_st->st_dev;
		dino = dst_st->st_ino;
	}
	if (m.created || o->explain)
		report_directory(w, src, dst);
	/* -x: a mount point is made, not entered */
	if (!o->one_file_system || cmdline || sst->st_dev == w->root_dev)
		rc = copy_entries(w, src, dst, sst, follow, m.created, ddev,
				  dino);
	if (directory_attrs(w, src, dst, sst, &m) < 0)
		rc = -1;
	return rc;
}

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
	m.omitted = sc_attrs_omitted(w->o, sst->st_mode);
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
 * made earlier, which may be anywhere in the tree, deeper than PATH_MAX.
 * 0 or -errno. */
static _noinline_ int link_earlier_copy(struct walk *w, const char *prev,
					const char *dst)
{
	struct sc_at to = sc_walk_dst(w, dst), from = { .path = prev };
	int e = sc_path_open_parent(prev, &from.dirfd, &from.name);

	if (e < 0)
		return e;
	e = sc_dest_make_link(true, &from, &to, false, true);
	if (from.dirfd >= 0)
		close(from.dirfd);
	return e;
}

/* -a, --preserve=links: SRC is another name of a file already copied to
 * PREV; DST becomes another name of PREV. */
static int link_to_earlier(struct walk *w, const char *prev, const char *src,
			   const char *dst)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_HARDLINK };
	int e = w->o->explain ? 0 : link_earlier_copy(w, prev, dst);

	if (e < 0) {
		sc_report_error(&w->msgs, -e,
				_("cannot create hard link %s to %s"),
				sc_quote(dst), sc_quote(prev));
		return -1;
	}
	sc_walk_report(w, &rec);
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
		return link_to_earlier(w, prev, src, dst);
	}
	/* O_NONBLOCK was only for the open (a FIFO put in the file's place
	 * must not hang us); regular files ignore it. */
	r = sc_file_copy(w, src, dst, NULL, NULL, false, in, &ist);
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
	if (w->msgs.failed) {
		w->run->failures++;
		report_failed(w, src, dst, cmdline);
	}
	w->msgs = outer_msgs;
	w->reported = outer_reported;
	w->announced = outer_announced;

	free(w->backup);
	w->backup = NULL;
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
			return link_to_earlier(w, prev, e->src, e->dst);
		(void)sc_links_remember(&w->links, e->sst.st_dev,
					e->sst.st_ino, e->dst);
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
		r = sc_file_copy(w, e->src, e->dst, &e->sst, dst_st,
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

/* Points W at file F of a job: through the job's directories, or by
 * path where it has none. */
static void job_entry(struct walk *w, const struct sc_job_file *f)
{
	w->at_fd = f->dirfd >= 0 ? f->dirfd : AT_FDCWD;
	w->at_name = f->dirfd >= 0 ? sc_path_last(f->src) : f->src;
	w->dst_fd = f->dst_dirfd >= 0 ? f->dst_dirfd : AT_FDCWD;
	w->dst_name = f->dst_dirfd >= 0 ? sc_path_last(f->dst) : f->dst;
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

/* One walk per worker, copies of the walk thread's as it is now: as many
 * as there is memory for, up to N. */
static unsigned start_workers(void *arg, unsigned n)
{
	struct walk *w = arg;
	unsigned i;

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
		if (sc_copy_ctx_init(&k->ctx, w->o->sparse) < 0)
			break;
		k->ctx.verify = w->o->verify;
	}
	return i;
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
		/* their paths may be longer than PATH_MAX, their levels
		 * long given back */
		const char *lost = d->src;
		int e = sc_path_open_parent(d->src, &w->at_fd, &w->at_name);

		sc_report_begin(&w->msgs);	/* the directory's own */
		if (e == 0) {
			lost = d->dst;
			e = sc_path_open_parent(d->dst, &w->dst_fd,
						&w->dst_name);
		}
		if (e < 0) {
			sc_report_error(&w->msgs, -e, _("cannot access %s"),
					sc_quote(lost));
			w->run->failures++;
		} else if (sc_walk_set_attrs(w, -1, -1, d->src, d->dst, &d->st,
					     &d->m) < 0) {
			w->run->failures++;
			w->msgs.failed = true;
		}
		if (w->msgs.failed && w->o->json) {
			/* its record came when it was made: a second one */
			struct sc_record rec = { .src = d->src, .dst = d->dst,
						 .kind = SC_KIND_DIR };

			sc_walk_report(w, &rec);
		}
		if (w->at_fd >= 0)
			close(w->at_fd);
		if (w->dst_fd >= 0)
			close(w->dst_fd);
		w->at_fd = w->dst_fd = AT_FDCWD;
		free(d->src);
		free(d->dst);
	}
	free(w->deferred);
	w->deferred = NULL;
	w->n_deferred = 0;
}

/* --assume-fs: facts of filesystems of the named types that nothing is
 * looked up for; one filesystem (one mount) for both ends, or two.  The
 * types were checked when the options were read. */
static void assume_facts(struct run *run, const struct sc_options *o)
{
	for (int i = 0; i < 2; i++) {
		struct sc_fs_facts *f = &run->assumed[i];
		int id = o->assume_one_fs ? 1 : i + 1;

		if (sc_fs_facts_assume(o->assume_type[i], f) < 0)
			continue;	/* not reached: options checked it */
		f->mnt_id = id;
		snprintf(f->identity, sizeof(f->identity), "assumed:%d", id);
	}
	run->fs_assumed = true;
}

int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n)
{
	struct run run = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct walk w = { .o = opts, .rep = rep, .run = &run,
			  .at_fd = AT_FDCWD, .dst_fd = AT_FDCWD, .ahead_fd = -1 };
	struct sc_xattr_rules *rules = NULL;
	int rc;

	w.msgs = (struct sc_msgs){ .streams = walk_streams, .arg = &w };
	if (sc_fsinfo_new(NULL, &run.fsi) < 0 ||
	    sc_jobs_new(opts, &worker_ops, &w, &w.jobs) < 0 ||
	    sc_copy_ctx_init(&w.ctx, opts->sparse) < 0) {
		sc_report_error(&w.msgs, 0, "%s", _("memory exhausted"));
		sc_jobs_free(w.jobs);
		sc_fsinfo_free(run.fsi);
		return 1;
	}
	sc_fsinfo_want_uuid(run.fsi, opts->explain || opts->json);
	w.max_open = sc_jobs_levels(w.jobs);
	/* Read here, on this thread, before any -j worker exists: workers
	 * only read the rules (see xattr_rules.h). */
	if (opts->preserve_xattr && !opts->explain &&
	    sc_xattr_rules_load(NULL, &rules) < 0) {
		sc_report_error(&w.msgs, 0, "%s", _("memory exhausted"));
		sc_copy_ctx_done(&w.ctx);
		sc_jobs_free(w.jobs);
		sc_fsinfo_free(run.fsi);
		return 1;
	}
	w.xattr_rules = rules;
	w.kernel = opts->kernel_assumed ? opts->kernel : sc_kernel_running();
	if (opts->fs_assumed)
		assume_facts(&run, opts);
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
		/* the summary's condition (smartcp.c): a terminal */
		sc_dest_catch_signals(!opts->quiet && !opts->as_cp &&
				      !opts->json && isatty(STDERR_FILENO));

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
	free(w.levels);
	free(run.learned);
	pthread_mutex_destroy(&run.lock);
	return rc;
}
