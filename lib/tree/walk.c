/* The traversal: from an operand to its files, the way GNU cp does it
 * (in inode order, depth first, a loop over directory levels, no
 * recursion), each file recorded for the report.  Messages follow cp's
 * wording so scripts and people see what they know; names are quoted
 * with sc_quote(). */
#include "common.h"
#include "tree/walk_state.h"
#include "tree/entry.h"
#include "tree/fail.h"
#include "tree/deferred.h"
#include "tree/linkto.h"
#include "tree/mklink.h"
#include "tree/dirs.h"
#include "tree/jobs.h"
#include "tree/levels.h"
#include "tree/links.h"
#include "tree/paths.h"
#include "tree/pool.h"
#include "tree/workers.h"

#include <dirent.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>

static bool level_step(struct walk *w, size_t k);
static int level_finish(struct walk *w, size_t k);

/* --- the walk ---------------------------------------------------------- */

/* The target of symlink AT_NAME in AT_FD, or NULL with errno.  st_size
 * is only a hint: links in /proc and on some filesystems (ISO 9660 Rock
 * Ridge) say 0, so the buffer grows until the target fits. */
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
	struct walk_made m = { .flags = SC_MADE_CREATED };
	char *target;
	size_t n;
	int e;

	target = read_link(w->e.at_fd, w->e.at_name, sst->st_size, &n);
	if (!target)
		return walk_fail(w->run, SC_TREE_READLINK, errno,
				 &(struct sc_tree_entry){
					.kind = SC_TREE_SYMLINK, .src = src,
					.dst = dst, .sst = sst });
	if (w->run->o->explain) {
		free(target);
		w->e.out.made = true;
		return 0;
	}
	{
		struct tree_at to = entry_dst(&w->e, dst);
		struct tree_at what = { AT_FDCWD, target, target };

		e = walk_make_link(&what, &to,
				   w->run->o->force ? LINK_REPLACE : 0);
	}
	if (e == -EEXIST && w->run->o->same_symlink && dst_st &&
	    S_ISLNK(dst_st->st_mode)) {
		/* -u: the link is already there as it should be */
		size_t hn;
		char *have = read_link(w->e.dst_fd, w->e.dst_name,
				       dst_st->st_size, &hn);

		if (have && hn == n && !memcmp(have, target, n))
			e = 0;
		free(have);
	}
	free(target);
	if (e < 0)
		return walk_fail(w->run, SC_TREE_MAKE, -e, &(struct sc_tree_entry){
					.kind = SC_TREE_SYMLINK, .src = src,
					.dst = dst, .sst = sst });
	/* what it failed for, AFTER says and counts */
	walk_attrs(&w->wk, &w->e, -1, -1, src, dst, sst, &m);
	w->e.out.made = true;
	return 0;
}

static int copy_special(struct walk *w, const char *src, const char *dst,
			const struct stat *sst)
{
	const struct sc_tree_entry te = { .kind = SC_TREE_SPECIAL,
					  .src = src, .dst = dst, .sst = sst };
	struct walk_made m = { .flags = SC_MADE_CREATED };
	mode_t mode;
	int fd, e;

	if (w->run->o->explain) {
		w->e.out.made = true;
		return 0;
	}
	m.omitted = sc_copier_omitted(w->run->copier, sst->st_mode);
	mode = sst->st_mode & ~m.omitted;
	if (S_ISFIFO(sst->st_mode) ?
	    mkfifoat(w->e.dst_fd, w->e.dst_name, mode & 07777) :
	    mknodat(w->e.dst_fd, w->e.dst_name, mode, sst->st_rdev))
		return walk_fail(w->run, SC_TREE_MAKE, errno, &te);
	/* Held from here on, and checked to be the node made: its name may
	 * lead to a symlink or a hard link by now, and every attribute
	 * (a mode of 4777 asked by the source's owner...) would land on
	 * what that leads to. */
	fd = openat(w->e.dst_fd, w->e.dst_name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC);
	e = fd < 0 ? -errno : sc_made_check(fd, mode, NULL);
	if (e == -ESTALE || e == -ENOENT)
		e = walk_fail(w->run, SC_TREE_REPLACED, 0, &te);
	else if (e < 0)
		e = walk_fail(w->run, SC_TREE_CHECK, -e, &te);
	else	/* what it failed for, AFTER says and counts */
		walk_attrs(&w->wk, &w->e, -1, fd, src, dst, sst, &m);
	if (fd >= 0)
		close(fd);
	if (e < 0)
		return e;
	w->e.out.made = true;
	return 0;
}

static int copy_path(struct walk *w, const char *src, const char *dst,
		     bool cmdline);

/* The fast path for a regular file entering a directory this run made:
 * nothing to overwrite, nothing to compare, so no lstat of either side.
 * WALK_COPIED, WALK_HANDED_BACK when the caller must take the general path,
 * or -errno. */
_noinline_ int copy_new_regular(struct worker *wk, struct entry *ent,
				const char *src, const char *dst)
{
	const struct tree_opts *o = wk->run->o;
	const struct stat *ahead = NULL;
	struct stat ist;
	const char *prev;
	int in;
	bool tracked;

	if (ent->ahead_fd >= 0) {
		in = ent->ahead_fd;	/* ours now */
		ahead = ent->ahead_st;
		ent->ahead_fd = -1;
	} else {
		in = entry_open_source(wk, ent, NEW_SRC_FLAGS);
	}

	if (in < 0)
		return WALK_HANDED_BACK;	/* the general path sees and says why */
	/* opened ahead: its fstat was taken then, before the read-ahead
	 * could change its access time (-p keeps the one before) */
	if (ahead)
		ist = *ahead;
	if ((!ahead && fstat(in, &ist) < 0) || !S_ISREG(ist.st_mode) ||
	    (o->one_file_system && ist.st_dev != wk->run->root_dev)) {
		close(in);
		return WALK_HANDED_BACK;
	}
	tracked = links_tracked(o, &ist, false);
	if (tracked && !wk->links) {
		/* the hard-link map is the walk's: hand it back */
		close(in);
		return WALK_HANDED_BACK;
	}
	/* from here on this path copies it (what the caller says of it,
	 * it says of a file it did not see before) */
	ent->out.sst = ist;
	if (tracked &&
	    (prev = links_find(wk->links, ist.st_dev, ist.st_ino))) {
		close(in);
		return walk_link_earlier(wk, ent, prev, src, dst, &ist);
	}
	/* O_NONBLOCK was only for the open (a FIFO put in the file's place
	 * must not hang us); regular files ignore it.  A copy that failed
	 * in part is not linked to (entry_done()): cp forgets it, and
	 * copies the file's other names each on its own. */
	ent->out.remember = tracked;
	return walk_copy_file(wk, ent, src, NULL, NULL, false, in, &ist);
}

/* The end of an entry: the walk is back in the one it interrupted (the
 * directory it is in). */
static void entry_end(struct walk *w)
{
	w->run->depth--;
}

/* The end of entry SRC -> DST (CMDLINE: an operand) that is not a
 * directory, or a directory not entered, told to the caller with its
 * report (W's entry's out): R, WALK_COPIED, WALK_SKIPPED (the caller's
 * before left it) or -errno.  Returns what the entry came to: R, or
 * what the caller found wrong with it. */
static int entry_done(struct walk *w, const char *src, const char *dst,
		      bool cmdline, int r)
{
	const struct walk_out *out = &w->e.out;
	const struct sc_tree_entry te = {
		.size = sizeof(te), .kind = out->kind, .top = cmdline,
		.src = src, .dst = dst, .earlier = out->earlier,
	};
	const struct sc_tree_result res = {
		.size = sizeof(res), .point = SC_TREE_END,
		.err = r < 0 ? r : 0, .skipped = r == WALK_SKIPPED,
		.made = out->made, .replaced = out->replaced,
		.rep = out->rep, .rep_err = out->rep_err,
		.seconds = out->seconds,
		.old_st = out->has_old ? &out->old : NULL,
	};
	int a = walk_after(w->run, &te, &res);

	/* a copy that failed in part is not linked to */
	if (r == WALK_COPIED && a == 0 && out->remember)
		walk_remember_copy(&w->wk, &w->e, &out->sst, dst, NULL);
	return r < 0 || a >= 0 ? r : a;
}

/* Copies SRC to DST, or, a directory, makes it a level of the walk
 * (WALK_ENTERED): the level keeps the state of the entry it interrupts,
 * and its end (level_finish()) ends it.  Else WALK_COPIED or -errno. */
static int entry_begin(struct walk *w, const char *src, const char *dst,
		bool cmdline, unsigned char dtype)
{
	const struct tree_opts *o = w->run->o;
	int r = WALK_HANDED_BACK;

	if (cmdline) {
		/* an operand: its own names, from here; its destination in
		 * the directory held for it, when it has one */
		w->e.at_fd = w->op_sfd;
		w->e.dst_fd = w->op_dfd;
		w->e.at_name = w->op_sname;
		w->e.dst_name = w->op_dfd >= 0 ? w->op_dname : dst;
		w->e.in_level = false;
	}
	w->run->depth++;
	w->e.out = (struct walk_out){ .kind = SC_TREE_FILE };
	if (dtype == DT_REG && w->e.parent_facts && !o->explain &&
	    !o->hard_link && !o->symbolic_link && !o->attributes_only)
		r = copy_new_regular(&w->wk, &w->e, src, dst);
	if (r == WALK_HANDED_BACK)
		r = copy_path(w, src, dst, cmdline);
	if (r == WALK_ENTERED)
		return WALK_ENTERED;
	r = entry_done(w, src, dst, cmdline, r);
	entry_end(w);
	return r == WALK_SKIPPED ? WALK_COPIED : r;
}

/* Copies SRC to DST, an operand (CMDLINE) or a file a worker handed
 * back, and, a directory, all that is in it: level by level, in a loop
 * over the levels (struct level), which the C stack does not limit.
 * WALK_COPIED, or -errno when it, or anything in it, failed (said). */
int copy_entry(struct walk *w, const char *src, const char *dst,
	       bool cmdline, unsigned char dtype)
{
	size_t base = w->n_levels;
	int r;

	if (w->run->cancelled)
		return -ECANCELED;	/* nothing more is begun */

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
 * descriptor when the walk has one).  0, or -errno (said). */
static _noinline_ int stat_source(struct walk *w, struct decision *e)
{
	int r = fstatat(w->e.at_fd, w->e.at_name, &e->sst,
			e->follow ? 0 : AT_SYMLINK_NOFOLLOW);

	if (r < 0) {
		/* listed, then gone before its turn: cp's words, and the
		 * summary counts it */
		int err = errno;

		return walk_fail(w->run, !e->cmdline && err == ENOENT ?
				 SC_TREE_VANISHED : SC_TREE_STAT, err,
				 &(struct sc_tree_entry){
					.kind = SC_TREE_FILE, .top = e->cmdline,
					.src = e->src, .dst = e->dst });
	}
	return 0;
}

/* What E (its source stat'ed) is, as the caller is told. */
static enum sc_tree_kind kind_of(const struct tree_opts *o,
				 const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return SC_TREE_DIR;
	if (S_ISLNK(st->st_mode))
		return SC_TREE_SYMLINK;
	if (S_ISREG(st->st_mode) || !o->recursive || o->copy_contents)
		return SC_TREE_FILE;
	return SC_TREE_SPECIAL;
}

/* Looks at E's destination as the copy will meet it: through a symlink
 * where the data of a regular file is written there (a FIFO or device
 * read as a file too), else the name itself, which is replaced, backed
 * up or made a link.  A symlink loop that cannot be followed is looked
 * at itself under -f, which removes it (E->loop).  0, or -errno: it
 * could not be looked at (not being there is no error). */
static _noinline_ int dest_lookup(struct walk *w, struct decision *e)
{
	const struct tree_opts *o = w->run->o;
	bool as_regular = !o->recursive || o->copy_contents;
	mode_t mode = e->sst.st_mode;
	bool use_lstat = (!S_ISREG(mode) &&
			  (!as_regular || S_ISDIR(mode) || S_ISLNK(mode))) ||
			 o->symbolic_link || o->hard_link ||
			 o->dst_nofollow;

	e->dst_exists = fstatat(w->e.dst_fd, w->e.dst_name, &e->dst_st,
				use_lstat ? AT_SYMLINK_NOFOLLOW : 0) == 0;
	if (e->dst_exists)
		return 0;
	if (errno == ELOOP && !use_lstat && o->force)
		e->loop = fstatat(w->e.dst_fd, w->e.dst_name, &e->dst_st,
				  AT_SYMLINK_NOFOLLOW) == 0;
	else if (errno != ENOENT)
		return -errno;
	return 0;
}

/* The caller's decision about E, its destination looked at (DST_ERR:
 * -errno, why it could not be, or 0): copy it (WALK_SETTLED_COPY), leave it
 * (WALK_SETTLED_DONE), or -errno (said).  A destination the caller moved
 * to its backup or removed is made anew. */
static _noinline_ int ask_before(struct walk *w, struct decision *e,
				 int dst_err)
{
	const struct sc_tree_ops *ops = &w->run->ops;
	bool tracked = !S_ISDIR(e->sst.st_mode) &&
		       links_tracked(w->run->o, &e->sst, e->cmdline);
	struct sc_tree_entry te = {
		.size = sizeof(te), .kind = kind_of(w->run->o, &e->sst),
		.depth = w->run->depth,
		.top = e->cmdline, .src = e->src, .dst = e->dst,
		.src_dirfd = w->e.at_fd, .src_name = w->e.at_name,
		.dst_dirfd = w->e.dst_fd, .dst_name = w->e.dst_name,
		.sst = &e->sst, .followed = e->follow,
		.dst_st = e->dst_exists || e->loop ? &e->dst_st : NULL,
		.dst_loop = e->loop, .dst_err = -dst_err,
		/* another name of a file copied: it becomes a link */
		.earlier = tracked ? links_find(&w->links, e->sst.st_dev,
						   e->sst.st_ino) : NULL,
	};
	struct sc_tree_decision d = { .size = sizeof(d) };
	int r;

	if (!ops->before)
		return dst_err ? walk_fail(w->run, SC_TREE_CHECK, -dst_err, &te) :
		       WALK_SETTLED_COPY;
	r = ops->before(w->run->ops_arg, &te, &d);
	if (r < 0)
		return r;
	if (d.verdict == SC_TREE_QUIT) {
		w->run->cancelled = 1;
		return WALK_SETTLED_DONE;
	}
	if (d.flags & SC_TREE_DST_GONE)
		e->dst_exists = false;
	if (d.verdict != SC_TREE_SKIP)
		return WALK_SETTLED_COPY;
	/* left as it is, standing for the copy: the source's other names
	 * become links to it */
	if ((d.flags & SC_TREE_DST_KEPT) && tracked && !te.earlier &&
	    e->dst_exists)
		walk_remember_copy(&w->wk, &w->e, &e->sst, e->dst,
				   &e->dst_st);
	return WALK_SETTLED_DONE;
}

/* Copies what is not a directory, by its type: another name of a file
 * already copied becomes a link, -l/-s make links, then a symlink, the
 * data of a file (or, without -R, of a FIFO or device) or a special
 * file.  WALK_COPIED or -errno. */
static _noinline_ int copy_non_directory(struct walk *w,
					 const struct decision *e)
{
	const struct tree_opts *o = w->run->o;
	bool as_regular = !o->recursive || o->copy_contents;
	const struct stat *dst_st = e->dst_exists || e->loop ?
				    &e->dst_st : NULL;
	const char *prev;
	bool tracked;
	int r;

	if (!e->dst_exists && !e->loop && e->dst[0] &&
	    e->dst[strlen(e->dst) - 1] == '/') {
		/* "dir/" names a directory that is not there */
		return walk_fail(w->run, SC_TREE_NO_DIR, ENOTDIR,
				 &(struct sc_tree_entry){
					.kind = SC_TREE_FILE, .top = e->cmdline,
					.src = e->src, .dst = e->dst,
					.sst = &e->sst });
	}
	/* Hard links within the copied set (-a, --preserve=links). */
	tracked = links_tracked(o, &e->sst, e->cmdline);
	if (tracked &&
	    (prev = links_find(&w->links, e->sst.st_dev, e->sst.st_ino)))
		return walk_link_earlier(&w->wk, &w->e, prev, e->src, e->dst,
					 &e->sst);
	if (o->hard_link || o->symbolic_link)
		return walk_link_instead(&w->wk, &w->e, e);

	if (S_ISLNK(e->sst.st_mode))
		r = copy_symlink(w, e->src, e->dst, &e->sst,
				 e->dst_exists ? &e->dst_st : NULL);
	else if (S_ISREG(e->sst.st_mode) || as_regular)
		/* Without -R (or with --copy-contents), a FIFO or a device
		 * is read like a file: its data is copied, as cp does; a
		 * socket cannot be opened (ENXIO), as cp says. */
		r = walk_copy_file(&w->wk, &w->e, e->src, &e->sst, dst_st,
				   e->follow, -1, NULL);
	else
		r = copy_special(w, e->src, e->dst, &e->sst);
	/* remembered for its other names when nothing about it failed
	 * (entry_done()) */
	w->e.out.remember = tracked && r == 0;
	w->e.out.sst = e->sst;
	return r;
}

/* Copies what SRC names to DST, deciding as cp does: the source, then
 * the destination, then the copy by type.  WALK_COPIED or -errno;
 * WALK_ENTERED: a directory, now a level of the walk, whose end does what
 * is left (level_finish()). */
static int copy_path(struct walk *w, const char *src, const char *dst,
		     bool cmdline)
{
	const struct tree_opts *o = w->run->o;
	struct decision entry = {
		.src = src, .dst = dst, .cmdline = cmdline,
		.follow = o->deref_always ||
			  (o->deref_args && cmdline),
	}, *e = &entry;
	int r;

	r = stat_source(w, e);
	if (r < 0)
		return r;
	w->e.out.kind = kind_of(o, &e->sst);
	if (cmdline)
		w->run->root_dev = e->sst.st_dev;
	if (S_ISDIR(e->sst.st_mode) && !o->recursive)
		return walk_fail(w->run, SC_TREE_NOT_RECURSIVE, 0,
				 &(struct sc_tree_entry){
					.kind = SC_TREE_DIR, .top = cmdline,
					.src = src, .dst = dst,
					.sst = &e->sst });
	r = ask_before(w, e, dest_lookup(w, e));
	if (r != WALK_SETTLED_COPY)
		return r < 0 ? r : WALK_SKIPPED;

	if (S_ISDIR(e->sst.st_mode))
		return copy_dir(w, src, dst, &e->sst,
				e->dst_exists ? &e->dst_st : NULL, cmdline,
				e->follow);
	return copy_non_directory(w, e);
}

/* Is NAME, an entry of a directory, one sc_tree_set_exclude()'s patterns
 * leave out? */
static bool walk_excluded(const struct walk *w, const char *name)
{
	for (size_t i = 0; i < w->n_exclude; i++)
		if (fnmatch(w->exclude[i], name, 0) == 0)
			return true;
	return false;
}

/* Copies the next entry of level K, the deepest, or enters it (a new
 * level).  False when K has no more to copy. */
static bool level_step(struct walk *w, size_t k)
{
	const struct tree_opts *o = w->run->o;
	struct level *l = &w->levels[k];
	struct job *batch;
	struct dent *ent;
	const char *s, *d;
	int e;

	if (l->next >= l->n_ents || w->run->cancelled)
		return false;	/* (cancelled: its end frees the rest) */
	ent = &l->ents[l->next++];
	if (walk_excluded(w, ent->name))
		goto next;	/* not copied, nobody told */
	e = level_get(w, k);
	if (e == 0 && l->dir_facts && ent->type == DT_REG && l->dfd >= 0 &&
	    !o->hard_link && !o->symbolic_link && !o->attributes_only &&
	    jobs_ready(w->run->jobs, l->dir_facts, l->sfd, ent->name)) {
		/* -j: new files in a new directory go to a worker in runs;
		 * their output keeps its place in walk order.  < 0: no
		 * descriptors or memory for a job, copied here. */
		const char *js = entry_name(w, k, false, ent->name);
		char *s2 = js ? strdup(js) : NULL;
		const char *jd = entry_name(w, k, true, ent->name);
		char *d2 = jd ? strdup(jd) : NULL;

		if (!s2 || !d2) {
			free(s2);
			free(d2);
			walk_fail(w->run, SC_TREE_MEMORY, ENOMEM,
				  &(struct sc_tree_entry){
					.kind = SC_TREE_DIR,
					.src = level_name(w, k, false) });
			l->failed = true;
			goto next;
		}
		/* how the workers ask for the data (jobs.c) */
		if (!l->src_facts)
			l->src_facts = entry_facts(&w->wk, l->sfd, &l->sst);
		batch = l->batch;
		e = jobs_add(w->run->jobs, &batch, l->sfd, l->src_facts,
				l->dfd, l->dir_facts, s2, d2);
		/* a file handed back may have moved the levels */
		l = &w->levels[k];
		l->batch = batch;
		if (e == 0)
			goto next;	/* the job owns S2 and D2 now */
		free(s2);
		free(d2);
	}
	batch = l->batch;
	l->batch = NULL;
	jobs_submit(w->run->jobs, &batch);
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
	w->e.parent_facts = l->dir_facts;
	s = entry_name(w, k, false, ent->name);
	d = s ? entry_name(w, k, true, ent->name) : NULL;
	if (!s || !d) {
		walk_fail(w->run, SC_TREE_MEMORY, ENOMEM, &(struct sc_tree_entry){
				.kind = SC_TREE_DIR,
				.src = level_name(w, k, false) });
		l->failed = true;
		goto next;
	}
	at_entry(w, k, ent->name, d);
	e = entry_begin(w, s, d, false, ent->type);
	if (e == WALK_ENTERED)
		return true;	/* its name is freed at its end */
	if (e < 0)
		w->levels[k].failed = true;
next:
	free(ent->name);
	ent->name = NULL;
	return true;
}

/* Points W back at the directory of level K, DONE, just popped, as an
 * entry of its parent (DST: its copy's whole name): the parent's level
 * may have to be opened again; never by path if it cannot. */
static void at_parent_entry(struct walk *w, size_t k, const struct level *done,
			    const char *dst)
{
	w->e.at_name = done->sname;
	w->e.dst_name = done->dname;
	w->e.in_level = done->up;
	if (!done->up) {
		w->e.at_fd = done->spfd;
		w->e.dst_fd = done->dpfd;
	} else if (level_get(w, k - 1) == 0) {
		const struct level *p = &w->levels[k - 1];

		w->e.at_fd = p->sfd;
		w->e.dst_fd = p->dfd >= 0 ? p->dfd : AT_FDCWD;
		if (p->dfd < 0)
			w->e.dst_name = dst;
	} else {
		/* said at its end; nothing here goes by path */
		w->e.at_fd = w->e.dst_fd = -1;
	}
}

/* Leaves level K, the deepest, its entries done: what is to be said of
 * it, its copy's attributes, and the end of the entry it is
 * (copy_path(), copy_entry()).  WALK_COPIED or -errno, as that entry's
 * copy (the first error said of it, or -EIO). */
static int level_finish(struct walk *w, size_t k)
{
	const struct tree_opts *o = w->run->o;
	struct level *l = &w->levels[k], done;
	struct job *batch = l->batch;
	struct walk_out out = { .kind = SC_TREE_DIR };
	const char *src, *dst;
	bool attrs;
	size_t node = 0;
	int dfd = -1, rc;

	l->batch = NULL;
	jobs_submit(w->run->jobs, &batch);
	/* a file handed back may have moved the levels */
	l = &w->levels[k];
	while (l->next < l->n_ents)
		free(l->ents[l->next++].name);
	free(l->ents);
	l->ents = NULL;
	w->e.parent_facts = NULL;
	/* valid from here on: nothing below names an entry or grows them */
	src = level_name(w, k, false);
	dst = level_name(w, k, true);
	/* lost at an entry, or when a subdirectory came back to it */
	if (l->lost) {
		say_level_lost(w, l->lost_copy ? NULL : src,
			       l->lost_copy ? dst : NULL, l->lost);
		l->failed = true;
	}
	attrs = !l->lost_copy && !l->src_replaced &&
		dir_attrs_wanted(w, &l->m);
	if (attrs && jobs_running(w->run->jobs))
		node = level_node(w, k);	/* 0: set now after all */
	done = *l;
	/* its copy's descriptor stays for its attributes */
	level_pop(w, &dfd);
	at_parent_entry(w, k, &done, dst);
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
	    set_dir_attrs(w, &done, dfd, src, dst, &out) < 0)
		done.failed = true;
	if (dfd >= 0)
		close(dfd);
	rc = !done.failed ? WALK_COPIED : done.lost ? done.lost : -EIO;
	walk_after(w->run, &(struct sc_tree_entry){
			.size = sizeof(struct sc_tree_entry),
			.kind = SC_TREE_DIR, .top = done.cmdline,
			.src = src, .dst = dst, .sst = &done.sst },
		    &(struct sc_tree_result){
			.size = sizeof(struct sc_tree_result),
			.point = SC_TREE_END, .err = rc < 0 ? rc : 0,
			.rep = out.rep, .rep_err = out.rep_err,
			.old_st = out.has_old ? &out.old : NULL });
	entry_end(w);
	if (done.up) {
		struct level *p = &w->levels[k - 1];

		if (rc < 0)
			p->failed = true;
		free(p->ents[p->next - 1].name);
		p->ents[p->next - 1].name = NULL;
	}
	return rc;
}
