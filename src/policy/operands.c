/* The operands as cp takes them: the target (-t, -T, or the last
 * operand), --parents and the directories it makes, an operand named
 * twice or one that would overwrite what an earlier one became, and the
 * directories an operand must not be copied into (itself, a directory
 * that holds its destination).  Each operand is copied by the walk
 * (the library's sc_tree_copy()). */
#include "system.h"
#include "policy/operands.h"
#include "policy/record.h"
#include "policy/cp.h"
#include "policy/dest.h"
#include "base/paths.h"
#include "output/quote.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- operands named twice, or written over ----------------------------- */

/* --- the target, and --parents ----------------------------------------- */

/* The name SRC gets inside a target directory. */
static char *target_name(struct cp *cp, const char *dir, const char *src)
{
	_cleanup_free_ char *copy = strdup(src);
	const char *base;
	char *slash;

	if (!copy)
		return NULL;
	sc_path_strip_slashes(copy);
	if (cp->o->parents)
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
 * target, held (both it and its source) from the moment it was made or
 * found: its attributes go on after the copy (parents_protect()),
 * through those descriptors, whatever its name leads to by then. */
struct parent {
	char *src, *dst;	/* their paths, for messages */
	struct stat st;		/* the source directory's */
	int sfd;		/* the source directory (O_PATH), or -1 */
	int dfd;		/* its copy (O_PATH) */
	bool restore;		/* set mode st.st_mode at the end */
};

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

/* The directories of the destination path, one a step (struct parent
 * when listed), from the target's descriptor down. */
struct parents {
	struct parent *v;
	size_t n, cap;
	bool made;		/* one of them was made */
	int fd;			/* the deepest reached (O_PATH), or the
				 * target's descriptor */
	bool own;		/* FD is not the target's, nor listed */
};

/* --parents: lists directory REL of the source's path (D under the
 * target, held as DFD, which the list takes; -1: not yet made) with its
 * source held and stat'ed.  0, or -errno (said, but for memory). */
static int parent_add(struct cp *cp, struct parents *ps, const char *rel,
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
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_GET_ATTRS, err, rel,
				      NULL);
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
static bool links_trusted_in(struct cp *cp, int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
	       (st.st_uid == 0 || st.st_uid == cp->euid);
}

/* --parents: directory NAME of the destination path (D its path) in the
 * directory open as DIRFD, opened (O_PATH): a directory as it is, a
 * symlink only where it may be followed.  The descriptor; -ENOENT when
 * it cannot be opened (it is then made, and mkdirat says why not);
 * else -errno (said). */
static int parent_open(struct cp *cp, int dirfd, const char *name,
		       const char *d)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode))
		return fd;
	close(fd);
	if (S_ISLNK(st.st_mode) && !links_trusted_in(cp, dirfd))
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_UNSAFE_SYMLINK, 0,
				      d, NULL);
	fd = S_ISLNK(st.st_mode) ? openat(dirfd, name, O_PATH | O_DIRECTORY |
					  O_CLOEXEC) : -1;
	if (fd < 0)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_NOT_DIR, 0, d, NULL);
	return fd;
}

/* --parents: makes the missing directory NAME (D its path) in DIRFD, the
 * copy of REL (P->st), as cp does: like its source directory, less what
 * must wait; P learns the mode to set at the end.  It is held from the
 * moment it is made, checked to be the one made.  Its descriptor, or
 * -errno (said). */
static int parent_make(struct cp *cp, int dirfd, const char *name,
		       const char *d, const char *rel, struct parent *p)
{
	const struct sc_options *o = cp->o;
	mode_t omitted = p->st.st_mode &
		(o->preserve_ownership ? (mode_t)(S_IRWXG | S_IRWXO) :
		 o->preserve_mode ? (mode_t)(S_IWGRP | S_IWOTH) : 0);
	mode_t mode = (o->explicit_no_preserve_mode ? 0777 :
		       p->st.st_mode) & 07777 & ~omitted;
	struct stat now;
	int fd, e;

	if (mkdirat(dirfd, name, mode) < 0)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_MAKE_DIR, errno, d,
				      NULL);
	if (o->verbose)
		sc_report_parent_made(&cp->cur.msgs, rel, d, !o->as_cp);
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY |
		    O_CLOEXEC);
	e = fd < 0 ? -errno : sc_made_check(fd, S_IFDIR | mode, &now);
	if (e == -ESTALE || e == -ENOENT || e == -ENOTDIR)
		e = sc_report_fail(&cp->cur.msgs, SC_FAIL_DIR_REPLACED, 0, d,
				   NULL);
	else if (e < 0)
		e = sc_report_fail(&cp->cur.msgs, SC_FAIL_GET_ATTRS, -e, d, NULL);
	else if ((now.st_mode & S_IRWXU) != S_IRWXU &&
		 (e = sc_path_chmod_fd(fd, (now.st_mode | S_IRWXU) &
				       07777)) < 0)
		e = sc_report_fail(&cp->cur.msgs, SC_FAIL_SET_MODE, -e, d, NULL);
	if (e < 0) {
		if (fd >= 0)
			close(fd);
		return e;
	}
	if (!o->preserve_mode) {
		if (omitted & ~now.st_mode)
			omitted &= ~cp->umask;
		if ((omitted & ~now.st_mode) ||
		    (now.st_mode & S_IRWXU) != S_IRWXU) {
			p->st.st_mode = now.st_mode | omitted;
			p->restore = true;
		}
	}
	return fd;
}

/* make_parents(): a directory of the path is missing under --explain;
 * nothing is made, so nothing below it can be held: the operand's copy
 * is named by its path. */
enum { PARENTS_BY_PATH = 1 };

/* PS goes on from FD, which the list holds (LISTED) or PS itself. */
static void parents_hold(struct parents *ps, int fd, bool listed)
{
	if (ps->own)
		close(ps->fd);
	ps->fd = fd;
	ps->own = !listed;
}

/* --parents: one directory NAME of the destination path, REL its source
 * (a prefix of the operand, ending at NAME), under PS->fd: found, or
 * made when missing; listed when made, or when attributes are preserved.
 * PS->fd is it from here on.  0, PARENTS_BY_PATH, or -errno (said, but
 * for memory). */
static int parent_step(struct cp *cp, struct parents *ps, const char *dir,
		       const char *rel, const char *name)
{
	const struct sc_options *o = cp->o;
	_cleanup_free_ char *d = sc_path_join(dir, rel);
	int fd, e;

	if (!d)
		return -ENOMEM;
	fd = parent_open(cp, ps->fd, name, d);
	if (fd == -ENOENT) {
		if (o->explain)
			return PARENTS_BY_PATH;
		e = parent_add(cp, ps, rel, d, -1);
		if (e < 0)
			return e;
		fd = parent_make(cp, ps->fd, name, d, rel, &ps->v[ps->n - 1]);
		if (fd < 0)
			return fd;
		ps->v[ps->n - 1].dfd = fd;
		ps->made = true;
	} else if (fd < 0) {
		return fd;
	} else if (o->preserve_ownership || o->preserve_mode ||
		   o->preserve_timestamps) {
		e = parent_add(cp, ps, rel, d, fd);
		if (e < 0)
			return e;
	} else {
		parents_hold(ps, fd, false);
		return 0;
	}
	parents_hold(ps, fd, true);
	return 0;
}

/* Makes the directories of SRC's path under the target (PS->fd, DIR its
 * path) that are missing, as cp does: like their source directories,
 * less what must wait.  Existing ones are listed too when attributes
 * are preserved, and one of them is made (when none is, cp fixes
 * nothing).  Each is reached from the one above it by descriptor, never
 * by a path someone may have changed meanwhile; PS->fd is the deepest.
 * 0, PARENTS_BY_PATH, or -errno (said, but for memory). */
static int make_parents(struct cp *cp, const char *dir, const char *src,
			struct parents *ps)
{
	_cleanup_free_ char *rel = strdup(src);
	char *p, *slash;
	int e = 0;

	if (!rel)
		return -ENOMEM;
	sc_path_strip_slashes(rel);
	for (p = rel; *p == '/'; p++)
		;
	for (; e == 0 && (slash = strchr(p, '/')); p = slash + 1) {
		if (slash == p)
			continue;	/* "a//b" */
		*slash = '\0';
		e = parent_step(cp, ps, dir, rel, p);
		*slash = '/';
	}
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

/* After the copy: the parents' times, owners and modes, deepest first,
 * through the descriptors held since they were made or found.  0, or
 * -errno (said). */
static int parents_protect(struct cp *cp, struct parents *ps)
{
	for (size_t i = ps->n; i-- > 0;) {
		struct parent *p = &ps->v[i];
		struct sc_at s = { p->sfd, ".", p->src };
		struct sc_at d = { p->dfd, ".", p->dst };
		int e = sc_record_set_meta(cp, p->sfd, p->dfd, &s, &d, &p->st,
					   SC_MADE_PARENT |
					   (p->restore ? SC_MADE_RESTORE : 0));

		if (e < 0)
			return e;
	}
	return 0;
}

/* What make_parents() held, let go. */
static void parents_release(struct parents *ps)
{
	parents_free(ps->v, ps->n);
	if (ps->own)
		close(ps->fd);
	*ps = (struct parents){ .fd = -1 };
}

/* The target of the operands, as cp finds it: -t DIR, -T, or the last
 * operand when it is a directory or there are more than two (*N then
 * counts the sources only).  *RET_DIR: the target directory, or NULL for
 * "copy OPS[0] onto OPS[1]".  0, or -errno (said). */
static int find_target(struct cp *cp, char **ops, int *n,
		       const char **ret_dir)
{
	const struct sc_options *o = cp->o;
	const char *dir = o->target_directory;
	struct stat st;

	if (*n < 1 || (*n < 2 && !dir)) {
		int e = *n < 1 ?
			sc_report_fail(&cp->cur.msgs, SC_FAIL_NO_OPERAND, 0, NULL,
				       NULL) :
			sc_report_fail(&cp->cur.msgs, SC_FAIL_NO_DEST, 0, ops[0],
				       NULL);

		sc_report_try_help();
		return e;
	}
	if (dir && o->no_target_directory)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_T_AND_NO_T, 0, NULL,
				      NULL);
	if (o->no_target_directory) {
		if (*n > 2) {
			int e = sc_report_fail(&cp->cur.msgs,
					       SC_FAIL_EXTRA_OPERAND, 0,
					       ops[2], NULL);

			sc_report_try_help();
			return e;
		}
	} else if (!dir) {
		bool is_dir = stat(ops[*n - 1], &st) == 0 &&
			      S_ISDIR(st.st_mode);

		if (is_dir || *n > 2) {
			dir = ops[--*n];
			if (!is_dir)
				return sc_report_fail(&cp->cur.msgs,
						      SC_FAIL_TARGET,
						      stat(dir, &st) < 0 ?
						      errno : ENOTDIR,
						      dir, NULL);
		}
	} else {
		int err = stat(dir, &st) < 0 ? errno :
			  S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

		if (err)
			return sc_report_fail(&cp->cur.msgs, SC_FAIL_TARGET_DIR,
					      err, dir, NULL);
	}
	if (o->parents && !dir) {
		int e = sc_report_fail(&cp->cur.msgs, SC_FAIL_PARENTS_DEST, 0,
				       NULL, NULL);

		sc_report_try_help();
		return e;
	}
	*ret_dir = dir;
	return 0;
}

/* The descriptor N an operand names (/dev/fd/N, /proc/self/fd/N, or
 * under /proc/PID/fd of this process), or -ENOENT: it names none. */
static int named_fd(const char *path)
{
	static const char *const dirs[] = {
		"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
	};
	char own[48];
	const char *p = NULL;
	char *end;
	long n;

	snprintf(own, sizeof(own), "/proc/%d/fd/", (int)getpid());
	for (size_t i = 0; !p && i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			p = path + strlen(dirs[i]);
	if (!p && !strncmp(path, own, strlen(own)))
		p = path + strlen(own);
	if (!p || *p < '0' || *p > '9')
		return -ENOENT;
	n = strtol(p, &end, 10);
	return (*end && *end != '/') || n > 65536 ? -ENOENT : (int)n;
}

/* DIR opened (O_PATH) to be held for the operands' copies, at or above
 * W->fd_floor; -1 with errno. */
static int hold_dir(struct cp *cp, const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), high;

	if (fd < 0 || fd >= cp->fd_floor)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, cp->fd_floor);
	close(fd);
	return high;
}

/* cp SRC DST (DST in the directory held as DIRFD, or a path): the
 * operand's copy, through the tree copy.  DST is reached as its last
 * name in DIRFD (>= 0), held since that was found: not by a path whose
 * directories someone may swap between two calls.  A destination whose
 * last name is not a plain one ("dir/", ".", "..") stays a path, as when
 * DIRFD < 0. */
static int copy_operand(struct cp *cp, int dirfd, const char *src,
			const char *dst)
{
	const char *name = sc_path_last(dst);
	struct sc_tree_args a = {
		.size = sizeof(a),
		.src_dirfd = AT_FDCWD, .src_name = src, .src_path = src,
		.dst_dirfd = AT_FDCWD, .dst_name = dst, .dst_path = dst,
	};

	if (dirfd >= 0 && *name && strcmp(name, ".") && strcmp(name, "..")) {
		a.dst_dirfd = dirfd;
		a.dst_name = name;
	}
	return sc_tree_copy(cp->tree, &a);
}

/* cp SRC DST: one copy, under DST's name, in DST's directory held from
 * here on.  0, or -errno when it failed.  --strip-trailing-slashes acts
 * on operands going into a directory only: cp leaves "f/ g" as it is
 * (ENOTDIR). */
static int copy_onto(struct cp *cp, const char *src, const char *dst)
{
	const struct sc_options *o = cp->o;
	_cleanup_free_ char *b = NULL, *dir = NULL;
	_cleanup_close_ int dirfd = -1;
	struct stat st;

	if (o->force && o->backup != SC_BACKUP_NONE && !strcmp(src, dst) &&
	    stat(src, &st) == 0 && S_ISREG(st.st_mode)) {
		/* cp -fb f f: the copy is the backup, made under the
		 * backup's name, and f stays as it is */
		struct sc_options once = *o;
		int r;

		b = sc_dest_backup_name(o, AT_FDCWD, src);
		if (!b)
			return sc_report_fail(&cp->cur.msgs, SC_FAIL_MEMORY,
					      ENOMEM, src, NULL);
		once.backup = SC_BACKUP_NONE;
		cp->o = &once;
		r = copy_operand(cp, -1, src, b);
		cp->o = o;
		return r;
	}
	/* A name in the working directory needs no descriptor: the process
	 * holds it.  A directory that cannot be opened: the path, and what
	 * it meets is said as cp says it. */
	if (!strchr(dst, '/'))
		return copy_operand(cp, -1, src, dst);
	dir = sc_path_dir(dst);
	if (dir && !o->explain)
		dirfd = hold_dir(cp, dir);
	return copy_operand(cp, dirfd, src, dst);
}

/* cp SRC... DIR: each source under its name in DIR (--parents: under
 * its whole path, the directories of which are made first), DIR held
 * from the moment it is found.  0, or the first failure (-errno) when
 * any failed. */
static int copy_into(struct cp *cp, const char *dir, char **ops, int n)
{
	const struct sc_options *o = cp->o;
	_cleanup_close_ int tfd = o->explain ? -1 : hold_dir(cp, dir);
	int rc = 0, e;

	/* --parents makes its directories from DIR's descriptor only */
	if (tfd < 0 && o->parents && !o->explain)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_TARGET, errno, dir,
				      NULL);
	/* only several operands can collide with each other */
	cp->multi = n >= 2;
	for (int i = 0; i < n; i++) {
		struct parents ps = { .fd = tfd };
		char *dst;

		if (o->strip_trailing_slashes)
			sc_path_strip_slashes(ops[i]);
		e = o->parents ? make_parents(cp, dir, ops[i], &ps) : 0;
		if (e < 0) {
			parents_release(&ps);
			rc = rc ? rc : e;
			continue;
		}
		dst = target_name(cp, dir, ops[i]);
		if (!dst) {
			parents_release(&ps);
			e = sc_report_fail(&cp->cur.msgs, SC_FAIL_MEMORY, ENOMEM,
					   ops[i], NULL);
			rc = rc ? rc : e;
			continue;
		}
		e = copy_operand(cp, e == PARENTS_BY_PATH ? -1 : ps.fd, ops[i],
				 dst);
		if (e < 0 && !rc)
			rc = e;
		if (o->parents && !o->explain &&
		    (e = parents_protect(cp, &ps)) < 0) {
			cp->failures++;
			rc = rc ? rc : e;
		}
		parents_release(&ps);
		free(dst);
	}
	return rc;
}

int sc_operands_run(struct cp *cp, char **ops, int n)
{
	const char *dir = NULL;
	int e;

	for (int i = 0; i < n; i++)
		cp->fd_floor = MAX(cp->fd_floor, named_fd(ops[i]) + 1);
	if (cp->o->target_directory)
		cp->fd_floor = MAX(cp->fd_floor,
				  named_fd(cp->o->target_directory) + 1);
	/* (-ENOENT + 1: no floor) */
	e = find_target(cp, ops, &n, &dir);

	if (e < 0)
		return e;
	if (!dir)
		return copy_onto(cp, ops[0], ops[1]);
	return copy_into(cp, dir, ops, n);
}
