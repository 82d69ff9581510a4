/* Directories: made, listed, refused, and the walk's steps through
 * their levels (dirs.h). */
#include "common.h"
#include "tree/dirs.h"
#include "tree/fail.h"
#include "tree/deferred.h"
#include "tree/jobs.h"
#include "tree/levels.h"
#include "tree/paths.h"
#include "tree/walk_state.h"
#include "tree/entry.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
	int fd = open_dir_checked(w, w->e.at_fd, w->e.at_name,
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
		return fd;
	/* readdir's own, so that FD stays for the entries */
	while ((rfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 &&
	       walk_fd_short(w, errno, &tries))
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

/* The directories that hold DST, as w->anc: its parent, as the kernel
 * finds it by that name, then that one's ".." up to the root, whatever
 * path leads there (a symlink, a bind mount, "..").  None when DST's
 * parent is not there: creating DST fails then, as cp says. */
static _noinline_ void load_ancestors(struct walk *w, const char *dst)
{
	_cleanup_free_ char *dir = tree_path_dir(dst);
	int fd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	struct stat st;

	w->n_anc = 0;
	while (fd >= 0 && fstat(fd, &st) == 0) {
		const struct devino *last =
			w->n_anc ? &w->anc[w->n_anc - 1] : NULL;
		int up;

		if (last && last->dev == st.st_dev && last->ino == st.st_ino)
			break;		/* ".." of the root is the root */
		if (sc_grow(w->anc, w->n_anc, w->cap_anc, 16) < 0)
			break;
		w->anc[w->n_anc++] = (struct devino){ st.st_dev, st.st_ino };
		up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
}

bool same_dir(dev_t dev, ino_t ino, const struct stat *st)
{
	return dev == st->st_dev && ino == st->st_ino;
}

/* cp finds a directory that holds its own destination when its walk meets
 * the copy it made.  Met right inside the source, the entry met is the
 * source operand joined with the copy's name; cp calls it the copy itself
 * only when that entry's parent, unfollowed (lstat), is the copy's: not
 * when the operand is a symbolic link and the copy's parent the directory
 * it leads to ("cp -RH l d", l -> d, or "l/").  It says then that it will
 * not make a hard link to the directory it made.  Is that the case here?
 * SRC, SST: the source operand and what it leads to; DST is to be made,
 * and w->anc holds the directories above it. */
static _noinline_ bool met_through_link(const struct walk *w, const char *src,
					const char *dst, const struct stat *sst)
{
	_cleanup_free_ char *s = NULL;
	_cleanup_free_ char *dir = NULL;
	struct stat ls, ld;

	if (w->n_anc == 0 || !same_dir(w->anc[0].dev, w->anc[0].ino, sst))
		return false;
	s = strdup(src);
	dir = tree_path_dir(dst);
	if (!s || !dir)
		return false;
	tree_path_strip_slashes(s);
	return lstat(s, &ls) == 0 && lstat(dir, &ld) == 0 &&
	       !same_dir(ls.st_dev, ls.st_ino, &ld);
}

/* cp's words for the copy of DST it would have met in DST: "will not
 * create hard link 'DST/NAME' to directory 'DST'".  -errno (said). */
static _noinline_ int refuse_as_link(struct walk *w, const char *dst)
{
	_cleanup_free_ char *base = tree_path_base(dst);
	_cleanup_free_ char *met = base ? tree_path_join(dst, base) : NULL;

	if (!met)
		return walk_fail(w->run, SC_TREE_MEMORY, ENOMEM,
				 &(struct sc_tree_entry){
					.kind = SC_TREE_DIR, .dst = dst });
	return walk_fail(w->run, SC_TREE_DIR_LINK, 0, &(struct sc_tree_entry){
				.kind = SC_TREE_DIR, .top = true, .dst = dst,
				.earlier = met });
}

/* A directory that must not be copied: one the walk is already inside
 * (a link that leads back, -L or -H), or one that holds its destination,
 * found by device and inode: an operand among the directories that hold
 * its destination (load_ancestors()), or, deeper, a directory this run
 * made (the levels' copies: a bind mount of the destination inside the
 * source, say), which cp calls by the operands' names.  With -L, a
 * directory anywhere up the destination's way is refused under its own
 * names.  DST_ST: the destination, when it is there.  0, or -errno when
 * refused (said). */
static _noinline_ int refuse_directory(struct walk *w, const char *src,
					const char *dst, const struct stat *sst,
					const struct stat *dst_st, bool cmdline)
{
	bool into = false, top = false;

	if (levels_with(w, sst, LEVEL_SOURCE))
		return walk_fail(w->run, SC_TREE_CYCLE, 0, &(struct sc_tree_entry){
					.kind = SC_TREE_DIR, .top = cmdline,
					.src = src, .dst = dst, .sst = sst });
	if (cmdline)
		load_ancestors(w, dst);
	if (cmdline || w->run->o->deref_always) {
		into = dst_st && same_dir(dst_st->st_dev, dst_st->st_ino, sst);
		for (size_t i = 0; !into && i < w->n_anc; i++)
			into = same_dir(w->anc[i].dev, w->anc[i].ino, sst);
		into = into || levels_with(w, sst, LEVEL_COPY);
	}
	if (!into)
		into = top = levels_with(w, sst, LEVEL_COPY | LEVEL_MADE);
	if (!into)
		return 0;
	if (cmdline && !top && !dst_st &&
	    !w->run->o->deref_always &&
	    met_through_link(w, src, dst, sst))
		return refuse_as_link(w, dst);
	if (top && w->top_src) {
		src = w->top_src;
		dst = w->top_dst;
	}
	return walk_fail(w->run, SC_TREE_INTO_ITSELF, 0, &(struct sc_tree_entry){
				.kind = SC_TREE_DIR, .top = cmdline,
				.src = src, .dst = dst, .sst = sst });
}

/* Makes directory DST like SST, less what must wait (M says what), and
 * so that we may enter it and write its entries.  *RET_DEV, *RET_INO:
 * what it is; *RET_FD: it, opened (O_PATH) at once, with nothing
 * followed: from here on it is reached through that descriptor only,
 * never by its name, which whoever may write its parent can point
 * elsewhere.  0 or -errno (said). */
static _noinline_ int make_directory(struct walk *w, const char *dst,
				     const struct stat *sst, struct walk_made *m,
				     dev_t *ret_dev, ino_t *ret_ino,
				     int *ret_fd)
{
	/* (no SRC: the memory it may run out of is for DST's name) */
	const struct sc_tree_entry te = { .kind = SC_TREE_DIR, .dst = dst,
					  .sst = sst };
	_cleanup_free_ char *bare = NULL;
	const char *made = w->e.dst_name;
	size_t n = strlen(made);
	struct stat now;
	mode_t mode;
	int fd, e;

	*ret_fd = -1;
	/* An operand "d/" is made as its path: a slash at its end has the
	 * kernel follow a symlink at "d", O_NOFOLLOW or not, so the one
	 * made is looked for without it. */
	if (n > 1 && made[n - 1] == '/') {
		if (!(bare = strdup(made)))
			return walk_fail(w->run, SC_TREE_MEMORY, ENOMEM, &te);
		tree_path_strip_slashes(bare);
		made = bare;
	}
	/* mkdir decides about set-gid (inherited from the parent) */
	m->omitted = sc_copier_omitted(w->run->copier, sst->st_mode);
	mode = sst->st_mode & 07777 & ~m->omitted;
	if (mkdirat(w->e.dst_fd, w->e.dst_name, mode) < 0)
		return walk_fail(w->run, SC_TREE_MAKE, errno, &te);
	m->flags |= SC_MADE_CREATED;
	/* Between mkdirat and this open, whoever may write the parent can
	 * rename the new directory away and put a symlink or a directory
	 * of their own in its place: the one opened must be the one made,
	 * or nothing goes into it. */
	fd = open_dir_checked(w, w->e.dst_fd, made, O_PATH | O_NOFOLLOW, 0, 0);
	e = fd < 0 ? fd : sc_made_check(fd, S_IFDIR | mode, &now);
	if (e < 0) {
		if (fd >= 0)
			close(fd);
		/* gone, or another in its place */
		if (e == -ESTALE || e == -ENOENT)
			return walk_fail(w->run, SC_TREE_REPLACED, 0, &te);
		return walk_fail(w->run, SC_TREE_CHECK, -e, &te);
	}
	m->mode = now.st_mode;
	m->flags |= SC_MADE_MODE_KNOWN;
	*ret_dev = now.st_dev;
	*ret_ino = now.st_ino;
	if ((now.st_mode & S_IRWXU) != S_IRWXU) {
		/* we must enter it and write its entries */
		m->flags |= SC_MADE_RESTORE;
		e = tree_path_chmod_fd(fd, (now.st_mode & 07777) | S_IRWXU);
		if (e < 0) {
			close(fd);
			return walk_fail(w->run, SC_TREE_ENTER_MODE, -e, &te);
		}
	}
	*ret_fd = fd;
	return 0;
}

/* The facts of the directory open as FD, which this run made. */
static _noinline_ const struct sc_fs_facts *dir_facts_of(struct walk *w,
							 int fd,
							 const char *path)
{
	struct stat st;

	if (fd < 0)
		return entry_facts_for_path(&w->wk, path);
	return fstat(fd, &st) == 0 ? entry_facts(&w->wk, fd, &st) : NULL;
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
		fd = open_dir_checked(w, w->e.dst_fd, w->e.dst_name,
				      O_PATH | (l->dup ? O_NOFOLLOW : 0),
				      l->ddev, l->dino);
		if (fd < 0) {
			l->lost = fd;
			l->lost_copy = true;
			return;
		}
		l->dfd = fd;
		fd = -1;
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
		say_level_lost(w, src, NULL, e);
		l->failed = true;
		l->src_replaced = e == -ESTALE;
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
void at_entry(struct walk *w, size_t k, const char *name,
		     const char *d)
{
	const struct level *l = &w->levels[k];

	w->e.at_fd = l->sfd;
	w->e.at_name = name;
	w->e.dst_fd = l->dfd >= 0 ? l->dfd : AT_FDCWD;
	w->e.dst_name = l->dfd >= 0 ? name : d;
	w->e.in_level = true;
}

/* Does a directory copy need attributes at its end (M: how it was made)?
 * Modes and times of a directory go on after its contents: writing the
 * entries would change the times, and a read-only mode would have
 * stopped us writing them. */
bool dir_attrs_wanted(const struct walk *w, const struct walk_made *m)
{
	const struct tree_opts *o = w->run->o;

	return !o->explain &&
	       ((m->flags & SC_MADE_CREATED) || o->preserve_mode ||
		o->preserve_timestamps || o->preserve_ownership ||
		o->preserve_xattr);
}

/* The attributes of directory L's copy, SRC -> DST, the walk being back
 * in L's parent (struct walk names L as its entry there): set through
 * the copy's descriptor DFD (or one opened again, checked), never by a
 * name that may lead elsewhere now; its report into OUT, for AFTER.
 * 0, or -errno (said, or AFTER's to say). */
_noinline_ int set_dir_attrs(struct walk *w, const struct level *l,
				    int dfd, const char *src, const char *dst,
				    struct walk_out *out)
{
	struct walk_made m = l->m;
	int own = -1, r;

	if (dfd < 0) {
		if (w->e.dst_fd == -1)	/* its parent was lost: said there */
			return out->rep_err = -ENOENT;
		dfd = open_dir_checked(w, w->e.dst_fd, w->e.dst_name,
				       O_PATH | (l->dup ? O_NOFOLLOW : 0),
				       l->ddev, l->dino);
		if (dfd < 0)
			return out->rep_err = say_level_lost(w, NULL, dst,
							     dfd);
		own = dfd;
	}
	{
		struct tree_at s = { w->e.at_fd, w->e.at_name, src };
		struct tree_at d = { dfd, ".", dst };

		/* DFD, held since it was made or found, is the directory */
		r = walk_meta(&w->wk, -1, dfd, &s, &d, &l->sst, &m, 0, out);
	}
	if (own >= 0)
		close(own);
	return r < 0 ? r : 0;
}

/* Is the copy of level L (just left: struct walk names it as an entry of
 * its parent) still where the walk made or found it?  Someone who may
 * write its parent may have moved it away and put something else in its
 * place: its entries went into it all the same, through its descriptor,
 * but the tree is not what it seems. */
bool copy_still_there(const struct walk *w, const struct level *l)
{
	struct stat st;

	if (w->e.dst_fd == -1)
		return true;	/* its parent was lost: said there */
	if (fstatat(w->e.dst_fd, w->e.dst_name, &st,
		    l->dup ? AT_SYMLINK_NOFOLLOW : 0) < 0)
		return errno != ENOENT && errno != ENOTDIR;
	return same_dir(l->ddev, l->dino, &st);
}

/* A directory made (or, --explain, to be made: MADE) or found, entered,
 * told to the caller. */
static _noinline_ void entered(struct walk *w, const char *src,
			       const char *dst, const struct stat *sst,
			       bool cmdline, bool made)
{
	walk_after(w->run, &(struct sc_tree_entry){
			.size = sizeof(struct sc_tree_entry),
			.kind = SC_TREE_DIR, .top = cmdline,
			.src = src, .dst = dst, .sst = sst },
		    &(struct sc_tree_result){
			.size = sizeof(struct sc_tree_result),
			.point = SC_TREE_ENTERED, .made = made });
}

int copy_dir(struct walk *w, const char *src, const char *dst,
	     const struct stat *sst, const struct stat *dst_st,
	     bool cmdline, bool follow)
{
	const struct tree_opts *o = w->run->o;
	struct walk_made m = { 0 };
	dev_t ddev = 0;
	ino_t dino = 0;
	int dfd = -1, r;

	r = refuse_directory(w, src, dst, sst, dst_st, cmdline);
	if (r < 0)
		return r;
	if (!dst_st && !o->explain) {
		r = make_directory(w, dst, sst, &m, &ddev, &dino, &dfd);
		if (r < 0)
			return r;
	} else if (dst_st) {
		m.flags |= SC_MADE_OLD;
		m.old_mode = dst_st->st_mode;
		ddev = dst_st->st_dev;
		dino = dst_st->st_ino;
	}
	entered(w, src, dst, sst, cmdline,
		(m.flags & SC_MADE_CREATED) || o->explain);
	if (level_push(w, src, dst, sst, follow, cmdline, &m, ddev, dino,
		       dfd) < 0) {
		if (dfd >= 0)
			close(dfd);
		return walk_fail(w->run, SC_TREE_MEMORY, ENOMEM,
				 &(struct sc_tree_entry){
					.kind = SC_TREE_DIR, .top = cmdline,
					.src = src, .dst = dst, .sst = sst });
	}
	/* -x: a mount point is made, not entered */
	if (!o->one_file_system || cmdline || sst->st_dev == w->run->root_dev)
		level_enter(w, w->n_levels - 1, src, dst);
	return WALK_ENTERED;
}

/* --- the walk's loop ---------------------------------------------------- */
