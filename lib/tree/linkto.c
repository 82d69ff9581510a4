/* Entries that become links instead of copies: -l and -s, and another
 * name of a file copied earlier (-a, --preserve=links), which is linked
 * from a held descriptor, checked to be that copy still. */
#include "common.h"
#include "tree/linkto.h"
#include "tree/state.h"
#include "tree/entry.h"
#include "tree/fail.h"
#include "tree/links.h"
#include "tree/mklink.h"
#include "tree/paths.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is DST's directory (of entry ENT) the current one? */
static bool in_cwd(const struct entry *ent, const char *dst)
{
	struct stat d, dot;

	if (ent->dst_fd < 0)
		return tree_path_in_cwd(dst);
	return fstat(ent->dst_fd, &d) < 0 || stat(".", &dot) < 0 ||
	       (d.st_dev == dot.st_dev && d.st_ino == dot.st_ino);
}

int walk_link_instead(struct worker *wk, struct entry *ent,
		      const struct decision *e)
{
	const struct tree_opts *o = wk->run->o;
	struct tree_at to = entry_dst(ent, e->dst);
	struct tree_at target = o->hard_link ? entry_src(ent, e->src) :
			      (struct tree_at){ AT_FDCWD, e->src, e->src };
	unsigned how = (o->hard_link ? LINK_HARD : 0) |
		       (e->follow ? LINK_FOLLOW : 0);
	/* the link's target, its "earlier" */
	const struct sc_tree_entry te = {
		.kind = o->hard_link ? SC_TREE_HARDLINK : SC_TREE_SYMLINK,
		.top = e->cmdline, .src = e->src, .dst = e->dst,
		.sst = &e->sst, .earlier = e->src,
	};
	int r;

	if (o->force)
		how |= LINK_REPLACE;
	ent->out.kind = te.kind;
	ent->out.earlier = e->src;
	if (o->explain) {
		ent->out.made = true;
		return 0;
	}
	if (o->symbolic_link && e->src[0] != '/' && !in_cwd(ent, e->dst))
		/* a relative target would be resolved from the link's
		 * directory, not from here */
		return walk_fail(wk->run, SC_TREE_RELATIVE_LINK, 0, &te);
	r = walk_make_link(&target, &to, how);
	if (r < 0)
		return walk_fail(wk->run, SC_TREE_MAKE, -r, &te);
	ent->out.made = true;
	return 0;
}

/* DST (the entry ENT) becomes a hard link to PREV, a copy
 * made earlier of ST (the source), which may be anywhere in the tree,
 * deeper than PATH_MAX.  Found by its path, it must still be that copy:
 * a directory on the way may lead elsewhere by now (-ESTALE).  It is
 * held, checked, and linked from what is held: checked by its path and
 * then linked by that path again, it could be another file at the link
 * than at the check (whoever may write a directory on the way can swap
 * it in between, and root's linkat is not stopped by
 * fs.protected_hardlinks).  enum walk_linked, or -errno. */
static _noinline_ int link_earlier_copy(struct worker *wk,
					const struct entry *ent,
					const char *prev, const char *dst,
					const struct stat *st)
{
	struct tree_at to = entry_dst(ent, dst), from = { .path = prev };
	int e = tree_path_open_parent(prev, &from.dirfd, &from.name), fd;
	struct stat now;

	if (e < 0)
		return e;
	fd = openat(from.dirfd, from.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &now) < 0)
		e = -errno;
	else if (!links_is_copy(wk->links, st->st_dev, st->st_ino, &now))
		e = -ESTALE;
	else if ((e = walk_make_link(&(struct tree_at){ fd, "", prev }, &to,
				     LINK_HARD | LINK_HELD |
				     LINK_REPLACE)) == -ENOENT &&
		 faccessat(AT_FDCWD, "/proc/self/fd", F_OK, 0) < 0)
		/* neither root nor /proc: by its name, checked a moment
		 * ago */
		e = walk_make_link(&from, &to, LINK_HARD | LINK_REPLACE);
	if (fd >= 0)
		close(fd);
	if (from.dirfd >= 0)
		close(from.dirfd);
	return e;
}

/* -a, --preserve=links: DST, the copy of ST (the entry ENT),
 * is remembered as the copy of its source, with what it is: COPY (a
 * destination found and kept), else what DST is now, if that can only
 * be the copy just made: of the source's type, and no other name.  A
 * hard link to any file, put in the new copy's place by whoever may
 * write its directory, must not become what the source's other names
 * are linked to; then they are copied each on its own. */
void walk_remember_copy(struct worker *wk, const struct entry *ent,
			const struct stat *st, const char *dst,
			const struct stat *copy)
{
	struct stat now;

	if (!copy) {
		if (fstatat(ent->dst_fd, ent->dst_name, &now,
			    AT_SYMLINK_NOFOLLOW) < 0 ||
		    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) ||
		    now.st_nlink != 1)
			return;
		copy = &now;
	}
	if (links_remember(wk->links, st->st_dev, st->st_ino, dst) == 0)
		links_identify(wk->links, st->st_dev, st->st_ino, copy);
}

/* -a, --preserve=links: SRC (ST) is another name of a file already
 * copied to PREV; DST becomes another name of PREV. */
int walk_link_earlier(struct worker *wk, struct entry *ent, const char *prev,
		      const char *src, const char *dst, const struct stat *st)
{
	const struct sc_tree_entry te = { .kind = SC_TREE_HARDLINK,
					  .src = src, .dst = dst, .sst = st,
					  .earlier = prev };
	int e;

	ent->out.kind = SC_TREE_HARDLINK;
	ent->out.earlier = prev;
	e = wk->run->o->explain ? 0 : link_earlier_copy(wk, ent, prev, dst, st);

	/* the earlier copy is not there as it was made: what someone put
	 * in its place gets no new name */
	if (e == -ESTALE)
		return walk_fail(wk->run, SC_TREE_EARLIER_REPLACED, 0, &te);
	if (e < 0)
		return walk_fail(wk->run, SC_TREE_MAKE, -e, &te);
	/* cp -v says "removed" after the "->" line, as GNU cp does */
	ent->out.replaced = e == WALK_LINK_REPLACED;
	ent->out.made = true;
	return 0;
}
