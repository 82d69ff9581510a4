/* The operands as cp takes them: the target (-t, -T, or the last
 * operand), --parents and the directories it makes, an operand named
 * twice or one that would overwrite what an earlier one became, and the
 * directories an operand must not be copied into (itself, a directory
 * that holds its destination).  Each operand is copied by the walk
 * (walk.c, copy_entry()). */
#include "system.h"
#include "operands.h"
#include "walk_state.h"
#include "entry.h"
#include "dest.h"
#include "paths.h"
#include "quote.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- operands named twice, or written over ----------------------------- */

/* --- the target, and --parents ----------------------------------------- */

/* The name SRC gets inside a target directory. */
static char *target_name(struct walk *w, const char *dir, const char *src)
{
	_cleanup_free_ char *copy = strdup(src);
	const char *base;
	char *slash;

	if (!copy)
		return NULL;
	sc_path_strip_slashes(copy);
	if (w->run->o->parents)
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

/* --parents: lists the directory REL of the source's path (D under the
 * target) in *V (*N of them), with its source's stat, also put in *SST.
 * 0, or -errno (said, but for memory). */
static int parent_add(struct walk *w, const char *rel, const char *d,
		      struct parent **v, size_t *n, struct stat *sst)
{
	struct parent *nv;
	int err = stat(rel, sst) < 0 ? errno :
		  S_ISDIR(sst->st_mode) ? 0 : ENOTDIR;

	if (err)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_GET_ATTRS, err, rel,
				      NULL);
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct parent){ strdup(rel), strdup(d), *sst, false };
	(*n)++;
	if (!nv[*n - 1].src || !nv[*n - 1].dst)
		return -ENOMEM;
	return 0;
}

/* --parents: makes the missing directory D, the copy of REL (SST), as cp
 * does: like its source directory, less what must wait; P, its entry
 * in the list, learns the mode to set at the end.  0, or -errno (said). */
static int parent_make(struct walk *w, const char *d, const char *rel,
		       const struct stat *sst, struct parent *p)
{
	const struct sc_options *o = w->run->o;
	mode_t omitted = sst->st_mode &
		(o->preserve_ownership ? (mode_t)(S_IRWXG | S_IRWXO) :
		 o->preserve_mode ? (mode_t)(S_IWGRP | S_IWOTH) : 0);
	mode_t mode = (o->explicit_no_preserve_mode ? 0777 :
		       sst->st_mode) & 07777 & ~omitted;
	struct stat now;

	if (o->explain)
		return 0;
	if (mkdir(d, mode) < 0)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_MAKE_DIR, errno, d,
				      NULL);
	if (o->verbose)
		/* cp prints these two names unquoted */
		sc_report_parent_made(&w->wk.msgs, rel, d);
	if (lstat(d, &now) < 0)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_GET_ATTRS, errno, d,
				      NULL);
	if (!o->preserve_mode) {
		if (omitted & ~now.st_mode)
			omitted &= ~w->run->umask;
		if ((omitted & ~now.st_mode) ||
		    (now.st_mode & S_IRWXU) != S_IRWXU) {
			p->st.st_mode = now.st_mode | omitted;
			p->restore = true;
		}
	}
	if ((now.st_mode & S_IRWXU) != S_IRWXU &&
	    chmod(d, (now.st_mode | S_IRWXU) & 07777) < 0)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_SET_MODE, errno, d,
				      NULL);
	return 0;
}

/* --parents: the directory REL of the source's path, under DIR: made
 * when missing (parent_make()), and listed in *V (*N of them) when made
 * or when attributes are preserved.  0, or -errno (said, but for
 * memory). */
static int make_parent(struct walk *w, const char *dir, const char *rel,
		       struct parent **v, size_t *n)
{
	const struct sc_options *o = w->run->o;
	_cleanup_free_ char *d = sc_path_join(dir, rel);
	bool missing;
	struct stat st, sst;
	int e;

	if (!d)
		return -ENOMEM;
	missing = stat(d, &st) != 0;
	if (missing || o->preserve_ownership || o->preserve_mode ||
	    o->preserve_timestamps) {
		e = parent_add(w, rel, d, v, n, &sst);
		if (e < 0)
			return e;
	}
	if (missing)
		return parent_make(w, d, rel, &sst, &(*v)[*n - 1]);
	if (!S_ISDIR(st.st_mode))
		return sc_report_fail(&w->wk.msgs, SC_FAIL_NOT_DIR, 0, d, NULL);
	return 0;
}

/* Makes the directories of SRC's path under DIR that are missing, as cp
 * does: like their source directories, less what must wait.  Existing
 * ones are listed too when attributes are preserved.  0, or -errno
 * (said, but for memory). */
static int make_parents(struct walk *w, const char *dir, const char *src,
			struct parent **ret, size_t *ret_n)
{
	_cleanup_free_ char *rel = strdup(src), *full = NULL, *top = NULL;
	struct parent *v = NULL;
	size_t n = 0;
	struct stat st;
	char *p, *slash;
	int e;

	*ret = NULL;
	*ret_n = 0;
	if (!rel)
		return -ENOMEM;
	sc_path_strip_slashes(rel);
	full = sc_path_join(dir, rel);
	top = full ? sc_path_dir(full) : NULL;
	if (!top)
		return -ENOMEM;
	if (stat(top, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;	/* all there: nothing to make or fix */
		return sc_report_fail(&w->wk.msgs, SC_FAIL_NOT_DIR, 0, top,
				      NULL);
	}
	for (p = rel; *p == '/'; p++)
		;
	for (; (slash = strchr(p, '/')); p = slash + 1) {
		if (slash == p)
			continue;	/* "a//b" */
		*slash = '\0';
		e = make_parent(w, dir, rel, &v, &n);
		if (e < 0) {
			parents_free(v, n);
			return e;
		}
		*slash = '/';
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* After the copy: the parents' times, owners and modes, deepest first.
 * 0, or -errno (said). */
static int parents_protect(struct walk *w, struct parent *v, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		struct sc_at s = { AT_FDCWD, v[i].src, v[i].src };
		struct sc_at d = { AT_FDCWD, v[i].dst, v[i].dst };
		int e = sc_entry_set_meta(&w->wk, -1, -1, &s, &d, &v[i].st,
					  NULL, SC_MADE_PARENT |
					  (v[i].restore ? SC_MADE_RESTORE : 0));

		if (e < 0)
			return e;
	}
	return 0;
}

/* The target of the operands, as cp finds it: -t DIR, -T, or the last
 * operand when it is a directory or there are more than two (*N then
 * counts the sources only).  *RET_DIR: the target directory, or NULL for
 * "copy OPS[0] onto OPS[1]".  0, or -errno (said). */
static int find_target(struct walk *w, char **ops, int *n,
		       const char **ret_dir)
{
	const struct sc_options *o = w->run->o;
	const char *dir = o->target_directory;
	struct stat st;

	if (*n < 1 || (*n < 2 && !dir)) {
		int e = *n < 1 ?
			sc_report_fail(&w->wk.msgs, SC_FAIL_NO_OPERAND, 0, NULL,
				       NULL) :
			sc_report_fail(&w->wk.msgs, SC_FAIL_NO_DEST, 0, ops[0],
				       NULL);

		sc_report_try_help();
		return e;
	}
	if (dir && o->no_target_directory)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_T_AND_NO_T, 0, NULL,
				      NULL);
	if (o->no_target_directory) {
		if (*n > 2) {
			int e = sc_report_fail(&w->wk.msgs,
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
				return sc_report_fail(&w->wk.msgs,
						      SC_FAIL_TARGET,
						      stat(dir, &st) < 0 ?
						      errno : ENOTDIR,
						      dir, NULL);
		}
	} else {
		int err = stat(dir, &st) < 0 ? errno :
			  S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

		if (err)
			return sc_report_fail(&w->wk.msgs, SC_FAIL_TARGET_DIR,
					      err, dir, NULL);
	}
	if (o->parents && !dir) {
		int e = sc_report_fail(&w->wk.msgs, SC_FAIL_PARENTS_DEST, 0,
				       NULL, NULL);

		sc_report_try_help();
		return e;
	}
	*ret_dir = dir;
	return 0;
}

/* cp SRC DST: one copy, under DST's name.  0, or -errno when it failed.
 * --strip-trailing-slashes acts on operands going into a directory
 * only: cp leaves "f/ g" as it is (ENOTDIR). */
static int copy_onto(struct walk *w, const char *src, const char *dst)
{
	const struct sc_options *o = w->run->o;
	struct stat st;

	if (o->force && o->backup != SC_BACKUP_NONE && !strcmp(src, dst) &&
	    stat(src, &st) == 0 && S_ISREG(st.st_mode)) {
		/* cp -fb f f: the copy is the backup, made under the
		 * backup's name, and f stays as it is */
		struct sc_options once = *o;
		_cleanup_free_ char *b = sc_dest_backup_name(o, AT_FDCWD, src);
		int r;

		if (!b)
			return sc_report_fail(&w->wk.msgs, SC_FAIL_MEMORY,
					      ENOMEM, src, NULL);
		once.backup = SC_BACKUP_NONE;
		w->run->o = &once;
		r = copy_entry(w, src, b, true, DT_UNKNOWN);
		w->run->o = o;
		return r;
	}
	return copy_entry(w, src, dst, true, DT_UNKNOWN);
}

/* cp SRC... DIR: each source under its name in DIR (--parents: under
 * its whole path, the directories of which are made first).  0, or the
 * first failure (-errno) when any failed. */
static int copy_into(struct walk *w, const char *dir, char **ops, int n)
{
	const struct sc_options *o = w->run->o;
	int rc = 0, e;

	/* only several operands can collide with each other */
	w->multi = n >= 2;
	for (int i = 0; i < n; i++) {
		struct parent *parents = NULL;
		size_t n_parents = 0;
		char *dst;

		if (o->strip_trailing_slashes)
			sc_path_strip_slashes(ops[i]);
		if (o->parents &&
		    (e = make_parents(w, dir, ops[i], &parents,
				      &n_parents)) < 0) {
			rc = rc ? rc : e;
			continue;
		}
		dst = target_name(w, dir, ops[i]);
		if (!dst) {
			e = sc_report_fail(&w->wk.msgs, SC_FAIL_MEMORY, ENOMEM,
					   ops[i], NULL);
			rc = rc ? rc : e;
			continue;
		}
		e = copy_entry(w, ops[i], dst, true, DT_UNKNOWN);
		if (e < 0 && !rc)
			rc = e;
		if (o->parents && !o->explain &&
		    (e = parents_protect(w, parents, n_parents)) < 0) {
			w->run->failures++;
			rc = rc ? rc : e;
		}
		parents_free(parents, n_parents);
		free(dst);
	}
	return rc;
}

int sc_operands_run(struct walk *w, char **ops, int n)
{
	const char *dir = NULL;
	int e = find_target(w, ops, &n, &dir);

	if (e < 0)
		return e;
	if (!dir)
		return copy_onto(w, ops[0], ops[1]);
	return copy_into(w, dir, ops, n);
}
