/* SC_TREE_ARGS_PARENTS (cp --parents): the directories of the operand's
 * path, made under the destination directory where they are missing,
 * like their source directories (less what must wait), each reached
 * from the one above it by descriptor, never by a path someone may have
 * changed meanwhile; the operand's copy goes into the deepest; their
 * attributes go on after it, through the descriptors held since they
 * were made or found.  The caller hears of each through its callbacks
 * (entries with PARENT set: after's SC_TREE_PARENT, error's stages). */
#include "common.h"
#include "tree/parents.h"
#include "tree/entry.h"
#include "tree/fail.h"
#include "tree/paths.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

/* One directory of the path, made or found, held (both it and its
 * source) from the moment it was made or found. */
struct parent {
	char *src, *dst;	/* their paths, for the caller */
	struct stat st;		/* the source directory's */
	int sfd;		/* the source directory (O_PATH), or -1 */
	int dfd;		/* its copy (O_PATH) */
	bool restore;		/* set mode st.st_mode at the end */
};

/* The caller hears of parent SRC (its copy DST, ST its source's stat)
 * at STAGE (errno ERR), as an entry of its own.  -errno. */
static int parent_fail(struct walk *w, enum sc_tree_stage stage, int err,
		       const char *src, const char *dst, const struct stat *st)
{
	return walk_fail(w->run, stage, err, &(struct sc_tree_entry){
				.kind = SC_TREE_DIR, .parent = true,
				.src = src, .dst = dst, .sst = st });
}

static void parents_free(struct parent *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].src);
		free(v[i].dst);
		if (v[i].sfd >= 0)
			close(v[i].sfd);
		if (v[i].dfd >= 0)
			close(v[i].dfd);
	}
	free(v);
}

/* Lists directory REL of the source's path (D under the destination,
 * held as DFD, which the list takes; -1: not yet made) with its source
 * held and stat'ed.  0, or -errno (told, but for memory). */
static int parent_add(struct walk *w, struct parents *ps, const char *rel,
		      const char *d, int dfd)
{
	struct parent *p;
	int sfd = open(rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat sst;
	int err = sfd < 0 ? errno : fstat(sfd, &sst) < 0 ? errno : 0;

	if (err) {
		if (sfd >= 0)
			close(sfd);
		if (dfd >= 0)
			close(dfd);
		return parent_fail(w, SC_TREE_STAT, err, rel, d, NULL);
	}
	if (sc_grow(ps->v, ps->n, ps->cap, 8) < 0) {
		close(sfd);
		if (dfd >= 0)
			close(dfd);
		return -ENOMEM;
	}
	p = &ps->v[ps->n++];
	*p = (struct parent){ strdup(rel), strdup(d), sst, sfd, dfd, false };
	return !p->src || !p->dst ? -ENOMEM : 0;
}

/* May a symlink in the directory open as DIRFD be followed?  Only where
 * nobody but the caller (or root) may write that directory: a link
 * there was put there by one of them, as cp's user expects it to be
 * followed; in a directory someone else may write, it may have been put
 * there a moment ago to lead the copy elsewhere. */
static bool links_trusted_in(int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
	       (st.st_uid == 0 || st.st_uid == geteuid());
}

/* Directory NAME of the destination path (D its path, REL its source)
 * in the directory open as DIRFD, opened (O_PATH): a directory as it
 * is, a symlink only where it may be followed.  The descriptor;
 * -ENOENT when it cannot be opened (it is then made, and mkdirat says
 * why not); else -errno (told). */
static int parent_open(struct walk *w, int dirfd, const char *name,
		       const char *rel, const char *d)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode))
		return fd;
	close(fd);
	if (S_ISLNK(st.st_mode) && !links_trusted_in(dirfd))
		return parent_fail(w, SC_TREE_UNSAFE_LINK, 0, rel, d, NULL);
	fd = S_ISLNK(st.st_mode) ? openat(dirfd, name, O_PATH | O_DIRECTORY |
					  O_CLOEXEC) : -1;
	if (fd < 0)
		return parent_fail(w, SC_TREE_NOT_DIR, 0, rel, d, NULL);
	return fd;
}

/* Makes the missing directory NAME (D its path) in DIRFD, the copy of
 * REL (P->st), as cp does: like its source directory, less what must
 * wait; P learns the mode to set at the end.  It is held from the moment
 * it is made, checked to be the one made.  Its descriptor, or -errno
 * (told). */
static int parent_make(struct walk *w, int dirfd, const char *name,
		       const char *d, const char *rel, struct parent *p)
{
	const struct tree_opts *o = w->run->o;
	mode_t omitted = p->st.st_mode &
		(o->preserve_ownership ? (mode_t)(S_IRWXG | S_IRWXO) :
		 o->preserve_mode ? (mode_t)(S_IWGRP | S_IWOTH) : 0);
	mode_t mode = (o->default_mode ? 0777 : p->st.st_mode) & 07777 &
		      ~omitted;
	struct stat now;
	int fd, e;

	if (mkdirat(dirfd, name, mode) < 0)
		return parent_fail(w, SC_TREE_MAKE, errno, rel, d, &p->st);
	walk_after(w->run, &(struct sc_tree_entry){
			.size = sizeof(struct sc_tree_entry),
			.kind = SC_TREE_DIR, .parent = true, .src = rel,
			.dst = d, .sst = &p->st, .src_dirfd = -1,
			.src_name = rel, .dst_dirfd = dirfd, .dst_name = name },
		   &(struct sc_tree_result){
			.size = sizeof(struct sc_tree_result),
			.point = SC_TREE_PARENT, .made = true });
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY |
		    O_CLOEXEC);
	e = fd < 0 ? -errno : sc_made_check(fd, S_IFDIR | mode, &now);
	if (e == -ESTALE || e == -ENOENT || e == -ENOTDIR)
		e = parent_fail(w, SC_TREE_REPLACED, 0, rel, d, &p->st);
	else if (e < 0)
		e = parent_fail(w, SC_TREE_CHECK, -e, rel, d, &p->st);
	else if ((now.st_mode & S_IRWXU) != S_IRWXU &&
		 (e = tree_path_chmod_fd(fd, (now.st_mode | S_IRWXU) &
					 07777)) < 0)
		e = parent_fail(w, SC_TREE_ENTER_MODE, -e, rel, d, &p->st);
	if (e < 0) {
		if (fd >= 0)
			close(fd);
		return e;
	}
	if (!o->preserve_mode) {
		if (omitted & ~now.st_mode)
			omitted &= ~o->umask;
		if ((omitted & ~now.st_mode) ||
		    (now.st_mode & S_IRWXU) != S_IRWXU) {
			p->st.st_mode = now.st_mode | omitted;
			p->restore = true;
		}
	}
	return fd;
}

/* PS goes on from FD, which the list holds (LISTED) or PS itself. */
static void parents_hold(struct parents *ps, int fd, bool listed)
{
	if (ps->own)
		close(ps->fd);
	ps->fd = fd;
	ps->own = !listed;
}

/* One directory NAME of the destination path, REL its source (a prefix
 * of the operand, ending at NAME), under PS->fd: found, or made when
 * missing; listed when made, or when attributes are preserved.  PS->fd
 * is it from here on.  0, PARENTS_BY_PATH, or -errno (told, but for
 * memory). */
static int parent_step(struct walk *w, struct parents *ps, const char *dir,
		       const char *rel, const char *name)
{
	const struct tree_opts *o = w->run->o;
	char *d = tree_path_join(dir, rel);
	int fd, e = 0;

	if (!d)
		return -ENOMEM;
	fd = parent_open(w, ps->fd, name, rel, d);
	if (fd == -ENOENT) {
		if (o->explain) {
			free(d);
			return PARENTS_BY_PATH;
		}
		e = parent_add(w, ps, rel, d, -1);
		fd = e < 0 ? e : parent_make(w, ps->fd, name, d, rel,
					     &ps->v[ps->n - 1]);
		if (fd >= 0) {
			ps->v[ps->n - 1].dfd = fd;
			ps->made = true;
		}
	} else if (fd >= 0 && (o->preserve_ownership || o->preserve_mode ||
			       o->preserve_timestamps)) {
		e = parent_add(w, ps, rel, d, fd);
	} else if (fd >= 0) {
		parents_hold(ps, fd, false);
		free(d);
		return 0;
	}
	free(d);
	if (fd < 0 || e < 0)
		return fd < 0 ? fd : e;
	parents_hold(ps, fd, true);
	return 0;
}

int parents_make(struct walk *w, const char *dir, const char *src,
		 struct parents *ps)
{
	char *rel = strdup(src), *p, *slash;
	int e = 0;

	if (!rel)
		return -ENOMEM;
	tree_path_strip_slashes(rel);
	for (p = rel; *p == '/'; p++)
		;
	for (; e == 0 && (slash = strchr(p, '/')); p = slash + 1) {
		if (slash == p)
			continue;	/* "a//b" */
		*slash = '\0';
		e = parent_step(w, ps, dir, rel, p);
		*slash = '/';
	}
	free(rel);
	if (e == 0 && !ps->made) {
		/* all there: nothing to fix; the deepest stays held */
		for (size_t i = 0; i < ps->n; i++)
			if (ps->v[i].dfd == ps->fd) {
				ps->v[i].dfd = -1;
				ps->own = true;
			}
		parents_free(ps->v, ps->n);
		ps->v = NULL;
		ps->n = 0;
	}
	return e;
}

int parents_protect(struct walk *w, struct parents *ps)
{
	for (size_t i = ps->n; i-- > 0;) {
		struct parent *p = &ps->v[i];
		struct tree_at s = { p->sfd, ".", p->src };
		struct tree_at d = { p->dfd, ".", p->dst };
		struct walk_out out = { .kind = SC_TREE_DIR };
		int e = walk_meta(&w->wk, p->sfd, p->dfd, &s, &d, &p->st, NULL,
				  SC_MADE_PARENT |
				  (p->restore ? SC_MADE_RESTORE : 0), &out);

		walk_after(w->run, &(struct sc_tree_entry){
				.size = sizeof(struct sc_tree_entry),
				.kind = SC_TREE_DIR, .parent = true,
				.src = p->src, .dst = p->dst, .sst = &p->st,
				.src_dirfd = p->sfd, .src_name = ".",
				.dst_dirfd = p->dfd, .dst_name = "." },
			   &(struct sc_tree_result){
				.size = sizeof(struct sc_tree_result),
				.point = SC_TREE_PARENT, .rep = out.rep,
				.rep_err = out.rep_err });
		if (e < 0)
			return e;
	}
	return 0;
}

void parents_release(struct parents *ps)
{
	parents_free(ps->v, ps->n);
	if (ps->own)
		close(ps->fd);
	*ps = (struct parents){ .fd = -1 };
}
