/* The walk's directory levels, their names, and the descriptors they
 * hold (levels.h). */
#include "common.h"
#include "tree/levels.h"
#include "tree/jobs.h"
#include "tree/fail.h"
#include "tree/walk_state.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* --- the levels' names (struct walk_names) ------------------------------- */

/* Room for N bytes in use in B.  0 or -ENOMEM. */
static int names_room(struct walk_names *b, size_t n)
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
 * tree_path_join() writes them ("d//" -> "d/f").  *OFF, *END: where it
 * starts and ends.  0 or -ENOMEM. */
static int names_root(struct walk_names *b, const char *path, size_t *off,
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

const char *level_name(struct walk *w, size_t k, bool dst)
{
	const struct level *l = &w->levels[k];
	struct walk_names *b = dst ? &w->dst_names : &w->src_names;

	if (l->root_src)
		return dst ? l->root_dst : l->root_src;
	b->p[dst ? l->dend : l->send] = '\0';
	return b->p + (dst ? l->doff : l->soff);
}

const char *entry_name(struct walk *w, size_t k, bool dst,
		       const char *name)
{
	const struct level *l = &w->levels[k];
	struct walk_names *b = dst ? &w->dst_names : &w->src_names;
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

int level_names(struct walk *w, struct level *l, const struct level *p,
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

bool levels_with(const struct walk *w, const struct stat *st,
		 unsigned flags)
{
	bool copy = flags & LEVEL_COPY, created = flags & LEVEL_MADE;
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

void level_counted(struct walk *w, size_t k)
{
	w->n_open++;
	if (k < w->open_lo)
		w->open_lo = k;
}

void level_close(struct walk *w, struct level *l)
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

bool levels_trim(struct walk *w, unsigned keep)
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

bool walk_fd_short(struct walk *w, int err, unsigned *tries)
{
	struct timespec pause = { 0, 2000000 };

	if (err != EMFILE && err != ENFILE)
		return false;
	/* first what the walk keeps for later, then fewer workers at once
	 * and time for them to close what they hold: a worker's files are
	 * small, or they hold few descriptors for long */
	if (levels_trim(w, 0)) {
		errno = err;
		return true;
	}
	/* alone, no one else will give any back: it is a failure */
	if (!jobs_running(w->run->jobs) || (*tries)++ >= 250) {
		errno = err;
		return false;
	}
	jobs_fd_short(w->run->jobs);
	nanosleep(&pause, NULL);
	errno = err;
	return true;
}

int open_dir_checked(struct walk *w, int dirfd, const char *name,
		     int flags, dev_t dev, ino_t ino)
{
	unsigned tries = 0;
	struct stat st;
	int fd;

	while ((fd = openat(dirfd, name, flags | O_DIRECTORY | O_CLOEXEC |
			    O_NOCTTY)) < 0 &&
	       walk_fd_short(w, errno, &tries))
		;
	if (fd < 0) {
		if ((errno == ELOOP || errno == ENOTDIR) && (flags & O_NOFOLLOW))
			return -ESTALE;
		return -errno;
	}
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (ino && (st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		return -ESTALE;
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
 * by name.  A descriptor, or -errno (-ESTALE: replaced). */
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

		if (fd != from)
			close(fd);	/* a step on the way: ours */
		if (next < 0)
			return next;
		fd = next;
	}
	return fd;
}

int level_get(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	bool was_open = l->sfd >= 0 || l->dfd >= 0;
	int e;

	if (l->lost)
		return l->lost;
	if (l->sfd < 0) {
		e = level_reopen(w, k, false);
		if (e < 0)
			goto fail;
		l->sfd = e;
	}
	if (l->dfd < 0 && l->dino) {
		e = level_reopen(w, k, true);
		l->lost_copy = e < 0;
		if (e < 0)
			goto fail;
		l->dfd = e;
	}
	if (!was_open) {
		level_counted(w, k);
		levels_trim(w, w->max_open);
	}
	return 0;
fail:
	/* all of the level or none: what was opened goes back too; and
	 * once lost, lost (its level_finish() says so, once) */
	if (!was_open && (l->sfd >= 0 || l->dfd >= 0))
		level_counted(w, k);
	level_close(w, l);
	l->lost = e;
	return e;
}

/* A descriptor, or -1 (not open) for an open that failed (-errno). */
static int fd_or_none(int fd)
{
	return fd >= 0 ? fd : -1;
}

void parent_by_dotdot(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	struct level *p = l->up && k > 0 ? l - 1 : NULL;

	if (!p || p->lost || p->sfd >= 0 || p->dfd >= 0)
		return;
	if (l->sfd >= 0)
		p->sfd = fd_or_none(open_dir_checked(w, l->sfd, "..",
						     O_RDONLY, p->dev, p->ino));
	/* without a source (the deferred attributes': replay_open()), the
	 * copy alone */
	if ((p->sfd >= 0 || l->sfd < 0) && p->dino && l->dup && l->dfd >= 0) {
		p->dfd = fd_or_none(open_dir_checked(w, l->dfd, "..", O_PATH,
						     p->ddev, p->dino));
		if (p->dfd < 0 && p->sfd >= 0) {
			close(p->sfd);
			p->sfd = -1;
		}
	}
	if (p->sfd >= 0 || p->dfd >= 0)
		level_counted(w, k - 1);
}

/* --- in and out of levels ----------------------------------------------- */

void level_pop(struct walk *w, int *ret_dfd)
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

_noinline_ int say_replaced(struct walk *w, const char *dst)
{
	return walk_fail(w->run, SC_TREE_REPLACED, 0, &(struct sc_tree_entry){
				.kind = SC_TREE_DIR, .dst = dst });
}

_noinline_ int say_level_lost(struct walk *w, const char *src,
			      const char *dst, int e)
{
	struct sc_tree_entry te = { .kind = SC_TREE_DIR, .src = src,
				    .dst = dst };

	if (dst)
		return walk_fail(w->run, e == -ESTALE ? SC_TREE_REPLACED :
				 SC_TREE_COPY_LOST, e == -ESTALE ? 0 : -e, &te);
	return walk_fail(w->run, e == -ESTALE ? SC_TREE_SRC_REPLACED :
			 SC_TREE_READ_DIR, e == -ESTALE ? 0 : -e, &te);
}

_noinline_ int level_push(struct walk *w, const char *src,
			  const char *dst, const struct stat *sst,
			  bool follow, bool cmdline,
			  const struct walk_made *m, dev_t ddev,
			  ino_t dino, int dfd)
{
	bool root = !w->e.in_level || !w->n_levels;
	struct level *l;

	if (sc_grow(w->levels, w->n_levels, w->cap_levels, 16) < 0)
		return -ENOMEM;
	l = &w->levels[w->n_levels];
	*l = (struct level){
		.dev = sst->st_dev, .ino = sst->st_ino,
		.ddev = ddev, .dino = dino, .sfd = -1, .dfd = dfd,
		.up = !root, .dup = !root && w->e.dst_fd >= 0,
		.spfd = w->e.at_fd, .dpfd = w->e.dst_fd,
		.sname = w->e.at_name,
		/* a copy by path (--explain) is never opened */
		.dname = root || w->e.dst_fd >= 0 ? w->e.dst_name : NULL,
		.follow = follow, .created = m->flags & SC_MADE_CREATED,
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

int replay_open(struct walk *w, size_t k)
{
	struct level *l = &w->levels[k];
	bool was_open = l->sfd >= 0 || l->dfd >= 0;

	if (l->lost)
		return l->lost;
	if (l->dfd < 0) {
		int fd = level_reopen(w, k, true);

		if (fd < 0) {
			l->lost = fd;
			l->lost_copy = true;
			if (was_open)
				level_close(w, l);
			return l->lost;
		}
		l->dfd = fd;
	}
	if (l->sfd < 0 && !l->src_gone) {
		l->sfd = fd_or_none(level_reopen(w, k, false));
		l->src_gone = l->sfd < 0;
	}
	if (!was_open) {
		level_counted(w, k);
		levels_trim(w, w->max_open);
	}
	return 0;
}
