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

/* cp --parents SRC DIR: SRC's copy under its whole path in DIR (held as
 * DIRFD), whose directories the tree copy makes where they are
 * missing. */
static int copy_parents(struct cp *cp, int dirfd, const char *dir,
			const char *src, const char *dst)
{
	struct sc_tree_args a = {
		.size = sizeof(a),
		.src_dirfd = AT_FDCWD, .src_name = src, .src_path = src,
		.dst_dirfd = dirfd, .dst_name = dst, .dst_path = dst,
		.flags = SC_TREE_ARGS_PARENTS, .dst_dir_path = dir,
	};
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
		char *dst;

		if (o->strip_trailing_slashes)
			sc_path_strip_slashes(ops[i]);
		dst = target_name(cp, dir, ops[i]);
		if (!dst) {
			e = sc_report_fail(&cp->cur.msgs, SC_FAIL_MEMORY, ENOMEM,
					   ops[i], NULL);
			rc = rc ? rc : e;
			continue;
		}
		e = o->parents ? copy_parents(cp, tfd, dir, ops[i], dst) :
				 copy_operand(cp, tfd, ops[i], dst);
		if (e < 0 && !rc)
			rc = e;
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
