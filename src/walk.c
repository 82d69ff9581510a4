/* The walk: from operands to files, the way GNU cp does it, recording
 * each file for the report.  Messages follow cp's wording so scripts and
 * people see what they know; names are quoted with sc_quote(). */
#include "system.h"
#include "walk.h"
#include "walk_state.h"
#include "attrs.h"
#include "dest.h"
#include "file.h"
#include "jobs.h"
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
#include <time.h>

/* A directory whose mode and times wait until every file in it is done:
 * NODE (struct dnode), as its source was (ST), and how it was made. */
struct deferred {
	size_t node;
	struct stat st;
	struct sc_made m;
};

/* -j: a directory whose attributes wait for the end of the run, or one
 * of its ancestors.  Only its name is kept, and where it is (PARENT, an
 * index + 1; 0: the first of an operand or of a file a worker handed
 * back, whose NAMEs are whole paths): at the end the walk goes down to it
 * again, each step checked as when it came back up (struct level). */
struct dnode {
	size_t parent, depth;
	dev_t dev, ddev;
	ino_t ino, dino;
	char *sname, *dname;	/* one string, but for a first level */
	bool follow, dup;
	bool lost;		/* could not be reached again: said */
};

/* A source directory being copied and its copy: one per level of the
 * walk, outermost first.  Only the deepest levels keep their descriptors
 * (w->max_open, from sc_jobs_levels()), so a tree of any depth holds a
 * bounded number; a level whose descriptors were given back is opened
 * again when the walk returns to it, through ".." of the level it leaves,
 * or else from the nearest open level above, name by name: each step must
 * find the directory it saw there (st_dev, st_ino), or the walk refuses to
 * go on in it.  The walk is a loop over this stack, not a recursion, so
 * that no depth can overflow the C stack; a level keeps its entries still
 * to copy and what the directory's own copy needs at its end, but of its
 * name only where it ends in the walk's name buffers (struct sc_names). */
struct level {
	dev_t dev;		/* the source directory */
	ino_t ino;
	dev_t ddev;		/* its copy; DINO 0: none (--explain) */
	ino_t dino;
	int sfd, dfd;		/* open, or -1 */
	/* Where it is: in the level above (UP; DUP for its copy), or, the
	 * first level of an operand or of a file a worker handed back, in
	 * directories the walk does not keep (SPFD, DPFD: AT_FDCWD, or a
	 * job's). */
	bool up, dup;
	int spfd, dpfd;
	const char *sname, *dname;	/* its names there */
	bool follow;		/* SNAME may be a symlink to follow */
	bool created;		/* this run made the copy */
	int lost;		/* -errno: could not be opened again */
	bool lost_copy;		/* ... and it was the copy */
	/* the first level of an operand or of a handed-back file: its
	 * whole names (else in the name buffers, to SEND and DEND) */
	const char *root_src, *root_dst;
	size_t soff, send, doff, dend;
	/* its entries: NEXT is the next to copy */
	struct dent *ents;
	size_t n_ents, next;
	const struct sc_fs_facts *dir_facts, *src_facts;
	struct sc_job *batch;	/* -j: the run of files being gathered */
	/* the directory as an entry: its stat, how its copy was made, and
	 * the state of the entry it is (copy_entry()) and of its parent's */
	struct stat sst;
	struct sc_made m;
	bool cmdline, failed;
	struct sc_msgs outer_msgs;
	bool outer_reported, outer_announced;
	size_t node;		/* -j: its struct dnode + 1, 0: none yet */
	/* found by device and inode (levels_with()): the next level in its
	 * source's bucket and in its copy's (+ 1, 0: none) */
	size_t snext, dnext;
	bool hashed, unhashed;
	bool src_gone;		/* -j, at the end: no source at hand */
};

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

/* --- the levels' names (struct sc_names) ------------------------------- */

/* Room for N bytes in use in B.  0 or -ENOMEM. */
static int names_room(struct sc_names *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (n <= b->cap)
		return 0;
	while (cap < n) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* A first level's name PATH at the end of B, as the start of its entries'
 * names: with one slash after it, however many it ends in, as
 * sc_path_join() writes them ("d//" -> "d/f").  *OFF, *END: where it
 * starts and ends.  0 or -ENOMEM. */
static int names_root(struct sc_names *b, const char *path, size_t *off,
		      size_t *end)
{
	size_t a = strlen(path);

	while (a > 1 && path[a - 1] == '/' && path[a - 2] == '/')
		a--;
	if (names_room(b, b->len + a + 2) < 0)
		return -ENOMEM;
	*off = b->len;
	memcpy(b->p + b->len, path, a);
	if (a && path[a - 1] != '/')
		b->p[b->len + a++] = '/';
	*end = *off + a;
	b->len = *end;
	return 0;
}

/* The whole name of level K's source directory (DST: of its copy): valid
 * until the buffer grows or the level's next entry is named. */
static const char *level_name(struct walk *w, size_t k, bool dst)
{
	const struct level *l = &w->levels[k];
	struct sc_names *b = dst ? &w->dst_names : &w->src_names;

	if (l->root_src)
		return dst ? l->root_dst : l->root_src;
	b->p[dst ? l->dend : l->send] = '\0';
	return b->p + (dst ? l->doff : l->soff);
}

/* The whole name of NAME in level K (DST: in its copy), written after the
 * level's own, over its last entry's: valid until the buffer grows or
 * the next entry is named.  NULL when out of memory. */
static const char *entry_name(struct walk *w, size_t k, bool dst,
			      const char *name)
{
	const struct level *l = &w->levels[k];
	struct sc_names *b = dst ? &w->dst_names : &w->src_names;
	size_t end = dst ? l->dend : l->send, n = strlen(name);

	/* a first level's name ends in its slash already (names_root()) */
	if (!l->root_src)
		end++;
	if (names_room(b, end + n + 1) < 0)
		return NULL;
	if (!l->root_src)
		b->p[end - 1] = '/';
	memcpy(b->p + end, name, n + 1);
	b->len = end + n + 1;
	return b->p + (dst ? l->doff : l->soff);
}

/* Where the names of the new level L end: after its parent P's, where
 * its entry's name was written (entry_name()), or, a first level (P
 * NULL), its whole names SRC and DST copied to the end of the buffers.
 * 0 or -ENOMEM. */
static int level_names(struct walk *w, struct level *l, const struct level *p,
		       const char *src, const char *dst)
{
	size_t n;

	if (!p) {
		size_t slen = w->src_names.len;

		if (names_root(&w->src_names, src, &l->soff, &l->send) < 0)
			return -ENOMEM;
		if (names_root(&w->dst_names, dst, &l->doff, &l->dend) < 0) {
			w->src_names.len = slen;
			return -ENOMEM;
		}
		return 0;
	}
	n = strlen(l->sname);
	l->soff = p->soff;
	l->send = p->send + !p->root_src + n;
	l->doff = p->doff;
	l->dend = p->dend + !p->root_src + n;
	return 0;
}

/* --- the levels by device and inode ------------------------------------ */

/* The levels, and their copies, found by device and inode in constant
 * time, not by a look at every level (a check made at each directory):
 * chains of levels in buckets, the deepest first (pushed last, popped
 * first).  w->level_hash holds N_BUCKETS heads for the sources, then as
 * many for the copies, each a level's index + 1, or 0. */
static size_t devino_bucket(const struct walk *w, dev_t dev, ino_t ino)
{
	uint64_t d = (uint64_t)dev;
	uint64_t h = ((uint64_t)ino ^ (d << 29 | d >> 35)) *
		     UINT64_C(0x9E3779B97F4A7C15);

	return (size_t)(h >> 32) & (w->n_buckets - 1);
}

static void hash_insert(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	size_t *src = w->level_hash, *dst = w->level_hash + w->n_buckets;
	size_t b = devino_bucket(w, l->dev, l->ino);

	l->snext = src[b];
	src[b] = k + 1;
	if (l->dino) {
		b = devino_bucket(w, l->ddev, l->dino);
		l->dnext = dst[b];
		dst[b] = k + 1;
	}
	l->hashed = true;
}

/* Level K, just pushed, is found by its device and inode from now on
 * (with more buckets, if there are more levels than buckets; without
 * memory for more, in longer chains; without any, by a look at it,
 * counted in N_UNHASHED). */
static void level_hash(struct walk *w, size_t k)
{
	if (w->n_levels > w->n_buckets) {
		size_t n = w->n_buckets ? 2 * w->n_buckets : 64;
		size_t *h = calloc(2 * n, sizeof(*h));

		if (h) {
			free(w->level_hash);
			w->level_hash = h;
			w->n_buckets = n;
			for (size_t i = 0; i < k; i++)
				if (w->levels[i].hashed)
					hash_insert(w, i);
		} else if (!w->n_buckets) {
			w->levels[k].unhashed = true;
			w->n_unhashed++;
			return;
		}
	}
	hash_insert(w, k);
}

/* Level L, the deepest, leaves the buckets. */
static void level_unhash(struct walk *w, struct level *l)
{
	if (l->unhashed)
		w->n_unhashed--;
	if (!l->hashed)
		return;
	w->level_hash[devino_bucket(w, l->dev, l->ino)] = l->snext;
	if (l->dino)
		w->level_hash[w->n_buckets + devino_bucket(w, l->ddev,
							   l->dino)] = l->dnext;
	l->hashed = false;
}

/* Is ST a level's source directory (COPY false), or a level's copy (COPY;
 * CREATED: one this run made)? */
bool levels_with(const struct walk *w, const struct stat *st,
			bool copy, bool created)
{
	size_t k;

	if (!w->n_buckets)
		goto scan;
	k = w->level_hash[(copy ? w->n_buckets : 0) +
			  devino_bucket(w, st->st_dev, st->st_ino)];
	while (k) {
		const struct level *l = &w->levels[k - 1];

		if (copy ? l->ddev == st->st_dev && l->dino == st->st_ino &&
			   (l->created || !created) :
		    l->dev == st->st_dev && l->ino == st->st_ino)
			return true;
		k = copy ? l->dnext : l->snext;
	}
	/* levels not in the buckets (no memory for them): looked at */
scan:
	for (k = 0; w->n_unhashed && k < w->n_levels; k++) {
		const struct level *l = &w->levels[k];

		if (!l->unhashed)
			continue;
		if (copy ? l->dino && l->ddev == st->st_dev &&
			   l->dino == st->st_ino && (l->created || !created) :
		    l->dev == st->st_dev && l->ino == st->st_ino)
			return true;
	}
	return false;
}

/* --- descriptors -------------------------------------------------------- */

/* Level K holds descriptors now: counted (levels_trim() gives them back). */
static void level_counted(struct walk *w, size_t k)
{
	w->n_open++;
	if (k < w->open_lo)
		w->open_lo = k;
}

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
	size_t i;

	/* none below OPEN_LO is open: a deep walk does not look at them
	 * again each time */
	for (i = w->open_lo; w->n_open > keep && i + 2 < w->n_levels; i++)
		if (w->levels[i].sfd >= 0 || w->levels[i].dfd >= 0) {
			level_close(w, &w->levels[i]);
			freed = true;
		}
	w->open_lo = i;
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
		l->lost_copy = l->dfd < 0;
		if (l->dfd < 0)
			goto fail;
	}
	if (!was_open) {
		level_counted(w, k);
		levels_trim(w, w->max_open);
	}
	return 0;
fail:
	/* all of the level or none: what was opened goes back too; and
	 * once lost, lost (its level_finish() says so, once) */
	err = errno;
	if (!was_open && (l->sfd >= 0 || l->dfd >= 0))
		level_counted(w, k);
	level_close(w, l);
	l->lost = -err;
	return -err;
}

/* Level K's parent, if its descriptors were given back, opened again
 * through ".." of level K while K's are at hand: checked, as always
 * (else it is reopened by name when needed, which costs a step for each
 * level given back above it). */
static void parent_by_dotdot(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	struct level *p = l->up && k > 0 ? l - 1 : NULL;

	if (!p || p->lost || p->sfd >= 0 || p->dfd >= 0)
		return;
	if (l->sfd >= 0)
		p->sfd = open_dir_checked(w, l->sfd, "..", O_RDONLY, p->dev,
					  p->ino);
	/* without a source (the deferred attributes': replay_open()), the
	 * copy alone */
	if ((p->sfd >= 0 || l->sfd < 0) && p->dino && l->dup && l->dfd >= 0) {
		p->dfd = open_dir_checked(w, l->dfd, "..", O_PATH, p->ddev,
					  p->dino);
		if (p->dfd < 0 && p->sfd >= 0) {
			close(p->sfd);
			p->sfd = -1;
		}
	}
	if (p->sfd >= 0 || p->dfd >= 0)
		level_counted(w, k - 1);
}

/* Leaves the deepest level: its descriptors go back, and its parent's
 * are opened again through ".." while they are still at hand, if they
 * had been given back (parent_by_dotdot()).  RET_DFD (when not NULL)
 * gets its copy's descriptor instead, or -1: the caller's to close. */
static void level_pop(struct walk *w, int *ret_dfd)
{
	struct level *l = &w->levels[w->n_levels - 1];

	level_unhash(w, l);
	parent_by_dotdot(w, w->n_levels - 1);
	if (ret_dfd) {
		*ret_dfd = l->dfd;
		if (l->sfd >= 0)
			close(l->sfd);
		if (l->sfd >= 0 || l->dfd >= 0)
			w->n_open--;
		l->sfd = l->dfd = -1;
	}
	level_close(w, l);
	if (w->open_lo >= w->n_levels)
		w->open_lo = w->n_levels - 1;
	if (l->root_src) {
		/* its names go too (their text stays until overwritten) */
		w->src_names.len = l->soff;
		w->dst_names.len = l->doff;
	}
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

int copy_entry(struct walk *w, const char *src, const char *dst,
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
	/* kept while the walk is below it: no more than it holds */
	if (n < cap) {
		struct dent *nv = realloc(v, (n ? n : 1) * sizeof(*v));

		if (nv)
			v = nv;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

bool same_dir(dev_t dev, ino_t ino, const struct stat *st)
{
	return dev == st->st_dev && ino == st->st_ino;
}

/* Directory NAME, replaced by something else while the walk was in it or
 * about to enter it, is left: said. */
static _noinline_ void say_replaced(struct walk *w, const char *name)
{
	sc_report_error(&w->msgs, 0,
			_("skipping directory %s, as it was replaced while being copied"),
			sc_quote(name));
}

/* A level, or the directory NAME it copies or its copy, cannot be opened
 * (again) (E = -errno): said. */
static _noinline_ void say_level_lost(struct walk *w, const char *name, int e)
{
	if (e == -ESTALE)
		say_replaced(w, name);
	else
		sc_report_error(&w->msgs, -e, _("cannot access %s"),
				sc_quote(name));
}

/* Sets the mode of the directory open as FD (O_PATH) to MODE: through
 * /proc, which leads to the inode FD holds, not to whatever has its name
 * by now.  Without /proc, through "." in it (which wants search
 * permission there: root has it).  0 or -1 with errno. */
static int chmod_dir_fd(int fd, mode_t mode)
{
	char name[48];

	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	if (fchmodat(AT_FDCWD, name, mode, 0) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	return fchmodat(fd, ".", mode, 0);
}

/* Makes directory DST like SST, less what must wait (M says what), and
 * so that we may enter it and write its entries.  *RET_DEV, *RET_INO:
 * what it is; *RET_FD: it, opened (O_PATH) at once, with nothing
 * followed: from here on it is reached through that descriptor only,
 * never by its name, which whoever may write its parent can point
 * elsewhere.  0 or -1. */
static _noinline_ int make_directory(struct walk *w, const char *dst,
				     const struct stat *sst, struct sc_made *m,
				     dev_t *ret_dev, ino_t *ret_ino,
				     int *ret_fd)
{
	struct stat now;
	int fd;

	*ret_fd = -1;
	/* mkdir decides about set-gid (inherited from the parent) */
	m->omitted = sc_copier_omitted(w->run->copier, sst->st_mode);
	if (mkdirat(w->dst_fd, w->dst_name,
		    sst->st_mode & 07777 & ~m->omitted) < 0) {
		sc_report_error(&w->msgs, errno,
				_("cannot create directory %s"), sc_quote(dst));
		return -1;
	}
	m->created = true;
	fd = open_dir_checked(w, w->dst_fd, w->dst_name, O_PATH | O_NOFOLLOW,
			      0, 0);
	if (fd < 0 || fstat(fd, &now) < 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		if (err == ESTALE)
			say_replaced(w, dst);
		else
			sc_report_error(&w->msgs, err, _("cannot stat %s"),
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
		if (chmod_dir_fd(fd, (now.st_mode & 07777) | S_IRWXU) < 0) {
			sc_report_error(&w->msgs, errno,
					_("setting permissions for %s"),
					sc_quote(dst));
			close(fd);
			return -1;
		}
	}
	*ret_fd = fd;
	return 0;
}

/* The walk goes into directory SRC -> DST, the entry of struct walk (SST,
 * FOLLOW as for list_dir(); CMDLINE: an operand): a new level, with what
 * its end needs (M: how its copy was made; DDEV, DINO: the copy, DINO 0
 * if none, --explain; DFD: the copy, open, or -1, the level's from here).
 * No descriptor of the source yet.  0 or -ENOMEM. */
static _noinline_ int level_push(struct walk *w, const char *src,
				 const char *dst, const struct stat *sst,
				 bool follow, bool cmdline,
				 const struct sc_made *m, dev_t ddev,
				 ino_t dino, int dfd)
{
	bool root = !w->in_level || !w->n_levels;
	struct level *l;

	if (w->n_levels == w->cap_levels) {
		size_t cap = w->cap_levels ? 2 * w->cap_levels : 16;
		void *na = realloc(w->levels, cap * sizeof(*w->levels));

		if (!na)
			return -ENOMEM;
		w->levels = na;
		w->cap_levels = cap;
	}
	l = &w->levels[w->n_levels];
	*l = (struct level){
		.dev = sst->st_dev, .ino = sst->st_ino,
		.ddev = ddev, .dino = dino, .sfd = -1, .dfd = dfd,
		.up = !root, .dup = !root && w->dst_fd >= 0,
		.spfd = w->at_fd, .dpfd = w->dst_fd,
		.sname = w->at_name,
		/* a copy by path (--explain) is never opened */
		.dname = root || w->dst_fd >= 0 ? w->dst_name : NULL,
		.follow = follow, .created = m->created,
		.root_src = root ? src : NULL, .root_dst = root ? dst : NULL,
		.sst = *sst, .m = *m, .cmdline = cmdline,
	};
	if (level_names(w, l, root ? NULL : l - 1, src, dst) < 0)
		return -ENOMEM;
	w->n_levels++;
	if (dfd >= 0)
		level_counted(w, w->n_levels - 1);
	level_hash(w, w->n_levels - 1);
	return 0;
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

/* Opens level K, just pushed for SRC -> DST, to copy its entries: first
 * its copy, when it was there already (it must still be the directory
 * found), then its source, listed.  What fails is said or left for its
 * end to say (level_finish()); its entries are then none. */
static _noinline_ void level_enter(struct walk *w, size_t k, const char *src,
				   const char *dst)
{
	struct level *l = &w->levels[k];
	bool was_open = l->dfd >= 0;
	int e, fd = -1;

	if (l->dino && l->dfd < 0) {
		l->dfd = open_dir_checked(w, w->dst_fd, w->dst_name,
					  O_PATH | (l->dup ? O_NOFOLLOW : 0),
					  l->ddev, l->dino);
		if (l->dfd < 0) {
			l->lost = -errno;
			l->lost_copy = true;
			return;
		}
		level_counted(w, k);
		was_open = true;
	}
	e = list_dir(w, l->follow, &l->sst, &fd, &l->ents, &l->n_ents);
	if ((e == -EMFILE || e == -ENFILE) && l->dfd >= 0) {
		/* the copy's descriptor goes back while its source is read;
		 * it is opened again, checked, when needed (level_get()) */
		level_close(w, l);
		was_open = false;
		e = list_dir(w, l->follow, &l->sst, &fd, &l->ents,
			     &l->n_ents);
	}
	if (e < 0) {
		say_level_lost(w, src, e);
		l->failed = true;
		return;
	}
	l->sfd = fd;
	if (!was_open)
		level_counted(w, k);
	levels_trim(w, w->max_open);
	if (l->created)
		l->dir_facts = dir_facts_of(w, l->dfd, dst);
}

/* Points W at entry NAME of level K (D: its whole destination path, for
 * a level whose copy goes by path, --explain). */
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

/* Does a directory copy need attributes at its end (M: how it was made)?
 * Modes and times of a directory go on after its contents: writing the
 * entries would change the times, and a read-only mode would have
 * stopped us writing them. */
static bool dir_attrs_wanted(const struct walk *w, const struct sc_made *m)
{
	const struct sc_options *o = w->o;

	return !o->explain && (m->created || o->preserve_mode ||
			       o->preserve_timestamps ||
			       o->preserve_ownership || o->preserve_xattr);
}

/* -j: the struct dnode of level K (+ 1), made with those of its
 * ancestors that have none yet; 0 when out of memory. */
static _noinline_ size_t level_node(struct walk *w, size_t k)
{
	size_t j = k;

	if (w->levels[k].node)
		return w->levels[k].node;
	/* nodes are made from a first level down: the shallowest without */
	while (!w->levels[j].root_src && !w->levels[j - 1].node)
		j--;
	for (; j <= k; j++) {
		struct level *l = &w->levels[j];
		size_t parent = l->root_src ? 0 : w->levels[j - 1].node;
		struct dnode *n;

		if (w->n_dnodes == w->cap_dnodes) {
			size_t cap = w->cap_dnodes ? 2 * w->cap_dnodes : 64;
			void *na = realloc(w->dnodes, cap * sizeof(*n));

			if (!na)
				return 0;
			w->dnodes = na;
			w->cap_dnodes = cap;
		}
		n = &w->dnodes[w->n_dnodes];
		*n = (struct dnode){
			.parent = parent,
			.depth = parent ? w->dnodes[parent - 1].depth + 1 : 0,
			.dev = l->dev, .ino = l->ino,
			.ddev = l->ddev, .dino = l->dino,
			.follow = l->follow, .dup = l->dup,
		};
		n->sname = strdup(l->root_src ? l->root_src : l->sname);
		n->dname = l->root_src ? strdup(l->root_dst) : n->sname;
		if (!n->sname || !n->dname) {
			if (n->dname != n->sname)
				free(n->dname);
			free(n->sname);
			return 0;
		}
		l->node = ++w->n_dnodes;
	}
	return w->levels[k].node;
}

/* -j: the attributes of the copy of the directory of NODE (+ 1), whose
 * source was ST and copy was made as M, wait for the end of the run
 * (its files may still be in flight).  False when out of memory. */
static _noinline_ bool defer_attrs(struct walk *w, size_t node,
				   const struct stat *st,
				   const struct sc_made *m)
{
	if (w->n_deferred == w->cap_deferred) {
		size_t cap = w->cap_deferred ? 2 * w->cap_deferred : 64;
		struct deferred *dl = realloc(w->deferred, cap * sizeof(*dl));

		if (!dl)
			return false;
		w->deferred = dl;
		w->cap_deferred = cap;
	}
	w->deferred[w->n_deferred++] = (struct deferred){ node, *st, *m };
	return true;
}

/* The attributes of directory L's copy, SRC -> DST, the walk being back
 * in L's parent (struct walk names L as its entry there): set through
 * the copy's descriptor DFD (or one opened again, checked), never by a
 * name that may lead elsewhere now.  0, or -1 with the message said. */
static _noinline_ int set_dir_attrs(struct walk *w, const struct level *l,
				    int dfd, const char *src, const char *dst)
{
	struct sc_made m = l->m;
	int own = -1, r;

	if (dfd < 0) {
		if (w->dst_fd == -1)
			return -1;	/* its parent was lost: said there */
		own = dfd = open_dir_checked(w, w->dst_fd, w->dst_name,
					     O_PATH | (l->dup ? O_NOFOLLOW : 0),
					     l->ddev, l->dino);
		if (dfd < 0) {
			say_level_lost(w, dst, -errno);
			return -1;
		}
	}
	{
		struct sc_at s = { w->at_fd, w->at_name, src };
		struct sc_at d = { dfd, ".", dst };

		r = set_meta(w, -1, -1, &s, &d, &l->sst, &m, 0);
	}
	if (own >= 0)
		close(own);
	if (r < 0)
		w->msgs.failed = true;
	return r < 0 ? -1 : 0;
}

/* Is the copy of level L (just left: struct walk names it as an entry of
 * its parent) still where the walk made or found it?  Someone who may
 * write its parent may have moved it away and put something else in its
 * place: its entries went into it all the same, through its descriptor,
 * but the tree is not what it seems. */
static bool copy_still_there(const struct walk *w, const struct level *l)
{
	struct stat st;

	if (w->dst_fd == -1)
		return true;	/* its parent was lost: said there */
	if (fstatat(w->dst_fd, w->dst_name, &st,
		    l->dup ? AT_SYMLINK_NOFOLLOW : 0) < 0)
		return errno != ENOENT && errno != ENOTDIR;
	return same_dir(l->ddev, l->dino, &st);
}

/* The record of a directory made (or, --explain, to be made). */
static _noinline_ void report_directory(struct walk *w, const char *src,
					const char *dst)
{
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_DIR };

	sc_walk_report(w, &rec);
}

/* copy_path(): a directory whose level was pushed, to be copied by the
 * walk's loop (copy_entry()). */
#define ENTERED 2

/* Copies directory SRC (SST) to DST (DST_ST: the existing one, or NULL):
 * made, then a level of the walk, which copies its entries and, at its
 * end, gives it its attributes.  ENTERED, or -1. */
static int copy_dir(struct walk *w, const char *src, const char *dst,
		    const struct stat *sst, const struct stat *dst_st,
		    bool cmdline, bool follow)
{
	const struct sc_options *o = w->o;
	struct sc_made m = { 0 };
	dev_t ddev = 0;
	ino_t dino = 0;
	int dfd = -1;

	if (refuse_directory(w, src, dst, sst, dst_st, cmdline))
		return -1;
	if (!dst_st && !o->explain) {
		if (make_directory(w, dst, sst, &m, &ddev, &dino, &dfd) < 0)
			return -1;
	} else if (dst_st) {
		m.have_old = true;
		m.old_mode = dst_st->st_mode;
		ddev = dst_st->st_dev;
		dino = dst_st->st_ino;
	}
	if (m.created || o->explain)
		report_directory(w, src, dst);
	if (level_push(w, src, dst, sst, follow, cmdline, &m, ddev, dino,
		       dfd) < 0) {
		if (dfd >= 0)
			close(dfd);
		sc_report_error(&w->msgs, ENOMEM, "%s", sc_quote(src));
		return -1;
	}
	/* -x: a mount point is made, not entered */
	if (!o->one_file_system || cmdline || sst->st_dev == w->root_dev)
		level_enter(w, w->n_levels - 1, src, dst);
	return ENTERED;
}

/* --- the walk's loop ---------------------------------------------------- */

static int entry_begin(struct walk *w, const char *src, const char *dst,
		       bool cmdline, unsigned char dtype);

/* Copies the next entry of level K, the deepest, or enters it (a new
 * level).  False when K has no more to copy. */
static bool level_step(struct walk *w, size_t k)
{
	const struct sc_options *o = w->o;
	struct level *l = &w->levels[k];
	struct sc_job *batch;
	struct dent *ent;
	const char *s, *d;
	int e;

	if (l->next >= l->n_ents)
		return false;
	ent = &l->ents[l->next++];
	e = level_get(w, k);
	if (e == 0 && l->dir_facts && ent->type == DT_REG && l->dfd >= 0 &&
	    !o->hard_link && !o->symbolic_link && !o->attributes_only &&
	    !w->in_worker &&
	    sc_jobs_ready(w->jobs, l->dir_facts, l->sfd, ent->name)) {
		/* -j: new files in a new directory go to a worker in runs;
		 * their output keeps its place in walk order.  1: no
		 * descriptors or memory for a job, copied here. */
		const char *js = entry_name(w, k, false, ent->name);
		char *s2 = js ? strdup(js) : NULL;
		const char *jd = entry_name(w, k, true, ent->name);
		char *d2 = jd ? strdup(jd) : NULL;

		if (!s2 || !d2) {
			free(s2);
			free(d2);
			sc_report_error(&w->msgs, ENOMEM, "%s",
					sc_quote(level_name(w, k, false)));
			l->failed = true;
			goto next;
		}
		/* how the workers ask for the data (jobs.c) */
		if (!l->src_facts)
			l->src_facts = sc_walk_facts(w, l->sfd, &l->sst);
		batch = l->batch;
		e = sc_jobs_add(w->jobs, &batch, l->sfd, l->src_facts,
				l->dfd, l->dir_facts, s2, d2);
		/* a file handed back may have moved the levels */
		l = &w->levels[k];
		l->batch = batch;
		if (e != 1)
			goto next;	/* the job owns S2 and D2 now */
		free(s2);
		free(d2);
	}
	batch = l->batch;
	l->batch = NULL;
	sc_jobs_submit(w->jobs, &batch);
	/* again: a file handed back while the jobs were flushed may have
	 * moved W, the levels and their names */
	l = &w->levels[k];
	if (level_get(w, k) < 0) {
		/* lost: said at its end, where the rest of it goes */
		free(ent->name);
		ent->name = NULL;
		return false;
	}
	/* set for each entry: copying a subdirectory changes them */
	w->parent_facts = l->dir_facts;
	s = entry_name(w, k, false, ent->name);
	d = s ? entry_name(w, k, true, ent->name) : NULL;
	if (!s || !d) {
		sc_report_error(&w->msgs, ENOMEM, "%s",
				sc_quote(level_name(w, k, false)));
		l->failed = true;
		goto next;
	}
	at_entry(w, k, ent->name, d);
	e = entry_begin(w, s, d, false, ent->type);
	if (e == ENTERED)
		return true;	/* its name is freed at its end */
	if (e < 0)
		w->levels[k].failed = true;
next:
	free(ent->name);
	ent->name = NULL;
	return true;
}

static void entry_end(struct walk *w, const char *src, const char *dst,
		      bool cmdline, const struct sc_msgs *outer_msgs,
		      bool outer_reported, bool outer_announced);
void remember_made(struct walk *w, const char *dst);

/* Leaves level K, the deepest, its entries done: what is to be said of
 * it, its copy's attributes, and the end of the entry it is
 * (copy_path(), copy_entry()).  0 or -1, as that entry's copy. */
static int level_finish(struct walk *w, size_t k)
{
	const struct sc_options *o = w->o;
	struct level *l = &w->levels[k], done;
	struct sc_job *batch = l->batch;
	const char *src, *dst;
	bool attrs;
	size_t node = 0;
	int dfd = -1, rc;

	l->batch = NULL;
	sc_jobs_submit(w->jobs, &batch);
	/* a file handed back may have moved the levels */
	l = &w->levels[k];
	while (l->next < l->n_ents)
		free(l->ents[l->next++].name);
	free(l->ents);
	l->ents = NULL;
	w->parent_facts = NULL;
	/* valid from here on: nothing below names an entry or grows them */
	src = level_name(w, k, false);
	dst = level_name(w, k, true);
	/* lost at an entry, or when a subdirectory came back to it */
	if (l->lost) {
		say_level_lost(w, l->lost_copy ? dst : src, l->lost);
		l->failed = true;
	}
	attrs = !l->lost_copy && dir_attrs_wanted(w, &l->m);
	if (attrs && sc_jobs_running(w->jobs))
		node = level_node(w, k);	/* 0: set now after all */
	done = *l;
	/* its copy's descriptor stays for its attributes */
	level_pop(w, &dfd);
	/* back to the directory as an entry of its parent, whose level may
	 * have to be opened again; never by path if it cannot */
	w->at_name = done.sname;
	w->dst_name = done.dname;
	w->in_level = done.up;
	if (!done.up) {
		w->at_fd = done.spfd;
		w->dst_fd = done.dpfd;
	} else if (level_get(w, k - 1) == 0) {
		const struct level *p = &w->levels[k - 1];

		w->at_fd = p->sfd;
		w->dst_fd = p->dfd >= 0 ? p->dfd : AT_FDCWD;
		if (p->dfd < 0)
			w->dst_name = dst;
	} else {
		/* said at its end; nothing here goes by path */
		w->at_fd = w->dst_fd = -1;
	}
	if (done.dino && !done.lost_copy && !o->explain &&
	    !copy_still_there(w, &done)) {
		say_replaced(w, dst);
		done.failed = true;
		attrs = false;
		done.lost = -ESTALE;
	}
	/* -j: said; the attributes of what is below it are not set */
	if (done.lost && done.node)
		w->dnodes[done.node - 1].lost = true;
	if (attrs && !(node && defer_attrs(w, node, &done.sst, &done.m)) &&
	    set_dir_attrs(w, &done, dfd, src, dst) < 0)
		done.failed = true;
	if (dfd >= 0)
		close(dfd);
	rc = done.failed ? -1 : 0;
	if (rc == 0 && done.cmdline && w->multi && !o->explain)
		remember_made(w, dst);
	entry_end(w, src, dst, done.cmdline, &done.outer_msgs,
		  done.outer_reported, done.outer_announced);
	if (done.up) {
		struct level *p = &w->levels[k - 1];

		if (rc < 0)
			p->failed = true;
		free(p->ents[p->next - 1].name);
		p->ents[p->next - 1].name = NULL;
	}
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
static void entry_end(struct walk *w, const char *src, const char *dst,
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
static int entry_begin(struct walk *w, const char *src, const char *dst,
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

/* -j, at the end: the descriptors of level K.  Its copy must be found
 * again, checked, or it is lost (-errno); its source only where it can
 * be (SRC_GONE: no more tries), for what sc_attrs_set() reads from it:
 * the walk has said already what became of a source it lost. */
static int replay_open(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	bool was_open = l->sfd >= 0 || l->dfd >= 0;

	if (l->lost)
		return l->lost;
	if (l->dfd < 0) {
		l->dfd = level_reopen(w, k, true);
		if (l->dfd < 0) {
			l->lost = -errno;
			l->lost_copy = true;
			if (was_open)
				level_close(w, l);
			return l->lost;
		}
	}
	if (l->sfd < 0 && !l->src_gone) {
		l->sfd = level_reopen(w, k, false);
		l->src_gone = l->sfd < 0;
	}
	if (!was_open) {
		level_counted(w, k);
		levels_trim(w, w->max_open);
	}
	return 0;
}

/* -j, at the end: level for node Y (struct dnode) pushed on the walk's
 * levels, below its parent's (or a first level), and opened, checked as
 * the walk checks a level it comes back to.  One that cannot be is said
 * once, and the nodes below it are left silently.  0, or -1. */
static int replay_push(struct walk *w, size_t y)
{
	struct dnode *n = &w->dnodes[y];
	bool root = !n->parent;
	struct level *l;
	int e;

	if (w->n_levels == w->cap_levels) {
		size_t cap = w->cap_levels ? 2 * w->cap_levels : 16;
		void *na = realloc(w->levels, cap * sizeof(*w->levels));

		if (!na)
			return -1;
		w->levels = na;
		w->cap_levels = cap;
	}
	l = &w->levels[w->n_levels];
	*l = (struct level){
		.dev = n->dev, .ino = n->ino, .ddev = n->ddev, .dino = n->dino,
		.sfd = -1, .dfd = -1, .up = !root, .dup = n->dup,
		.spfd = AT_FDCWD, .dpfd = AT_FDCWD,
		.sname = n->sname, .dname = n->dname, .follow = n->follow,
		.root_src = root ? n->sname : NULL,
		.root_dst = root ? n->dname : NULL,
		.node = y + 1,
	};
	if (!root && (!entry_name(w, w->n_levels - 1, false, n->sname) ||
		      !entry_name(w, w->n_levels - 1, true, n->dname)))
		return -1;
	if (level_names(w, l, root ? NULL : l - 1, n->sname, n->dname) < 0)
		return -1;
	w->n_levels++;
	if (n->lost || (!root && w->levels[w->n_levels - 2].lost)) {
		/* said when it was lost */
		l->lost = -ESTALE;
		n->lost = true;
		return -1;
	}
	e = replay_open(w, w->n_levels - 1);
	if (e < 0) {
		say_level_lost(w, level_name(w, w->n_levels - 1, true), e);
		w->run->failures++;
		n->lost = true;
		return -1;
	}
	return 0;
}

/* -j, at the end: the walk's levels made the way down to node X, from
 * the levels it has (deferred attributes come in post-order: mostly one
 * level up, or a few down).  0, or -1 when X cannot be reached. */
static int replay_to(struct walk *w, size_t x, size_t **chain, size_t *cap)
{
	size_t y = x, n = 0;

	for (;;) {
		size_t d = w->dnodes[y].depth;

		while (w->n_levels > d + 1)
			level_pop(w, NULL);
		if (w->n_levels == d + 1) {
			if (w->levels[d].node == y + 1)
				break;
			level_pop(w, NULL);
		}
		if (n == *cap) {
			size_t c = *cap ? 2 * *cap : 64;
			void *nc = realloc(*chain, c * sizeof(**chain));

			if (!nc)
				return -1;
			*chain = nc;
			*cap = c;
		}
		(*chain)[n++] = y;
		if (!w->dnodes[y].parent)
			break;
		y = w->dnodes[y].parent - 1;
	}
	if (w->dnodes[x].lost)
		return -1;
	while (n)
		if (replay_push(w, (*chain)[--n]) < 0)
			return -1;
	return w->levels[w->n_levels - 1].lost ? -1 : 0;
}

/* -j: directory attributes that waited for the workers, post-order.
 * Their directories are found again as the walk found them, level by
 * level from their operand, each checked; never by their whole path, on
 * which any directory could lead elsewhere by now. */
static void set_deferred_attrs(struct walk *w)
{
	size_t *chain = NULL, cap = 0;

	for (size_t i = 0; i < w->n_deferred; i++) {
		struct deferred *d = &w->deferred[i];
		size_t k;
		struct level *l, *p;

		sc_report_begin(&w->msgs);	/* the directory's own */
		if (replay_to(w, d->node - 1, &chain, &cap) < 0)
			continue;	/* said, once */
		k = w->n_levels - 1;
		if (replay_open(w, k) < 0)
			continue;	/* said when it was lost */
		l = &w->levels[k];
		p = k && l->up ? l - 1 : NULL;
		if (p) {
			/* for its source's name past PATH_MAX, if at hand */
			parent_by_dotdot(w, k);
			levels_trim(w, w->max_open);
		}
		{
			struct sc_at s = {
				p ? p->sfd : l->up ? -1 : l->spfd, l->sname,
				level_name(w, k, false),
			};
			struct sc_at t = {
				l->dfd, ".", level_name(w, k, true),
			};

			if (set_meta(w, -1, -1, &s, &t, &d->st, &d->m,
				     0) < 0) {
				w->run->failures++;
				w->msgs.failed = true;
			}
			if (w->msgs.failed && w->o->json) {
				/* its record came when it was made: a
				 * second one */
				struct sc_record rec = {
					.src = s.path, .dst = t.path,
					.kind = SC_KIND_DIR,
				};

				sc_walk_report(w, &rec);
			}
		}
	}
	while (w->n_levels)
		level_pop(w, NULL);
	free(chain);
	free(w->deferred);
	w->deferred = NULL;
	w->n_deferred = w->cap_deferred = 0;
}

/* Frees the nodes of the deferred attributes. */
static void free_dnodes(struct walk *w)
{
	for (size_t i = 0; i < w->n_dnodes; i++) {
		if (w->dnodes[i].dname != w->dnodes[i].sname)
			free(w->dnodes[i].dname);
		free(w->dnodes[i].sname);
	}
	free(w->dnodes);
	w->dnodes = NULL;
	w->n_dnodes = w->cap_dnodes = 0;
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
