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
 * 0, or -1 (said, but for memory). */
static int parent_add(struct walk *w, const char *rel, const char *d,
		      struct parent **v, size_t *n, struct stat *sst)
{
	struct parent *nv;
	int err = stat(rel, sst) < 0 ? errno :
		  S_ISDIR(sst->st_mode) ? 0 : ENOTDIR;

	if (err) {
		sc_report_error(&w->wk.msgs, err,
				_("failed to get attributes of %s"),
				sc_quote(rel));
		return -1;
	}
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -1;
	*v = nv;
	nv[*n] = (struct parent){ strdup(rel), strdup(d), *sst, false };
	(*n)++;
	if (!nv[*n - 1].src || !nv[*n - 1].dst)
		return -1;
	return 0;
}

/* --parents: makes the missing directory D, the copy of REL (SST), as cp
 * does: like its source directory, less what must wait; P, its entry
 * in the list, learns the mode to set at the end.  0, or -1 (said). */
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
	if (mkdir(d, mode) < 0) {
		sc_report_error(&w->wk.msgs, errno,
				_("cannot make directory %s"),
				sc_quote(d));
		return -1;
	}
	if (o->verbose)
		/* cp prints these two names unquoted */
		sc_report_parent_made(&w->wk.msgs, rel, d);
	if (lstat(d, &now) < 0) {
		sc_report_error(&w->wk.msgs, errno,
				_("failed to get attributes of %s"),
				sc_quote(d));
		return -1;
	}
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
	    chmod(d, (now.st_mode | S_IRWXU) & 07777) < 0) {
		sc_report_error(&w->wk.msgs, errno,
				_("setting permissions for %s"),
				sc_quote(d));
		return -1;
	}
	return 0;
}

/* --parents: the directory REL of the source's path, under DIR: made
 * when missing (parent_make()), and listed in *V (*N of them) when made
 * or when attributes are preserved.  0, or -1 (said, but for memory). */
static int make_parent(struct walk *w, const char *dir, const char *rel,
		       struct parent **v, size_t *n)
{
	const struct sc_options *o = w->run->o;
	_cleanup_free_ char *d = sc_path_join(dir, rel);
	bool missing;
	struct stat st, sst;

	if (!d)
		return -1;
	missing = stat(d, &st) != 0;
	if ((missing || o->preserve_ownership || o->preserve_mode ||
	     o->preserve_timestamps) &&
	    parent_add(w, rel, d, v, n, &sst) < 0)
		return -1;
	if (missing)
		return parent_make(w, d, rel, &sst, &(*v)[*n - 1]);
	if (!S_ISDIR(st.st_mode)) {
		sc_report_error(&w->wk.msgs, 0,
				_("%s exists but is not a directory"),
				sc_quote(d));
		return -1;
	}
	return 0;
}

/* Makes the directories of SRC's path under DIR that are missing, as cp
 * does: like their source directories, less what must wait.  Existing
 * ones are listed too when attributes are preserved.  Returns 0 or -1. */
static int make_parents(struct walk *w, const char *dir, const char *src,
			struct parent **ret, size_t *ret_n)
{
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
		sc_report_error(&w->wk.msgs, 0,
				_("%s exists but is not a directory"),
				sc_quote(top));
		return -1;
	}
	for (p = rel; *p == '/'; p++)
		;
	for (; (slash = strchr(p, '/')); p = slash + 1) {
		if (slash == p)
			continue;	/* "a//b" */
		*slash = '\0';
		if (make_parent(w, dir, rel, &v, &n) < 0)
			goto fail;
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
	for (size_t i = n; i-- > 0;) {
		struct sc_at s = { AT_FDCWD, v[i].src, v[i].src };
		struct sc_at d = { AT_FDCWD, v[i].dst, v[i].dst };

		if (sc_entry_set_meta(&w->wk, -1, -1, &s, &d, &v[i].st, NULL,
			     SC_MADE_PARENT |
			     (v[i].restore ? SC_MADE_RESTORE : 0)) < 0)
			return -1;
	}
	return 0;
}

/* The target of the operands, as cp finds it: -t DIR, -T, or the last
 * operand when it is a directory or there are more than two (*N then
 * counts the sources only).  *RET_DIR: the target directory, or NULL for
 * "copy OPS[0] onto OPS[1]".  0, or 1 with the message said. */
static int find_target(struct walk *w, char **ops, int *n,
		       const char **ret_dir)
{
	const struct sc_options *o = w->run->o;
	const char *dir = o->target_directory;
	struct stat st;

	if (*n < 1 || (*n < 2 && !dir)) {
		if (*n < 1)
			sc_report_error(&w->wk.msgs, 0, _("missing file operand"));
		else
			sc_report_error(&w->wk.msgs, 0,
					_("missing destination file operand after %s"),
					sc_quote(ops[0]));
		sc_options_try_help();
		return 1;
	}
	if (dir && o->no_target_directory) {
		sc_report_error(&w->wk.msgs, 0,
				_("cannot combine --target-directory (-t) and --no-target-directory (-T)"));
		return 1;
	}
	if (o->no_target_directory) {
		if (*n > 2) {
			sc_report_error(&w->wk.msgs, 0, _("extra operand %s"),
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
				sc_report_error(&w->wk.msgs,
						stat(dir, &st) < 0 ? errno : ENOTDIR,
						_("target %s"), sc_quote(dir));
				return 1;
			}
		}
	} else {
		int err = stat(dir, &st) < 0 ? errno :
			  S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

		if (err) {
			sc_report_error(&w->wk.msgs, err, _("target directory %s"),
					sc_quote(dir));
			return 1;
		}
	}
	if (o->parents && !dir) {
		sc_report_error(&w->wk.msgs, 0,
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
	const struct sc_options *o = w->run->o;
	struct stat st;

	if (o->force && o->backup != SC_BACKUP_NONE && !strcmp(src, dst) &&
	    stat(src, &st) == 0 && S_ISREG(st.st_mode)) {
		/* cp -fb f f: the copy is the backup, made under the
		 * backup's name, and f stays as it is */
		struct sc_options once = *o;
		_cleanup_free_ char *b = sc_dest_backup_name(o, AT_FDCWD, src);
		int r;

		if (!b) {
			sc_report_error(&w->wk.msgs, ENOMEM, "%s", sc_quote(src));
			return 1;
		}
		once.backup = SC_BACKUP_NONE;
		w->run->o = &once;
		r = copy_entry(w, src, b, true, DT_UNKNOWN) < 0;
		w->run->o = o;
		return r;
	}
	return copy_entry(w, src, dst, true, DT_UNKNOWN) < 0;
}

/* cp SRC... DIR: each source under its name in DIR (--parents: under
 * its whole path, the directories of which are made first).  0, or 1
 * when any failed. */
static int copy_into(struct walk *w, const char *dir, char **ops, int n)
{
	const struct sc_options *o = w->run->o;
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
			sc_report_error(&w->wk.msgs, ENOMEM, "%s",
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

int sc_operands_run(struct walk *w, char **ops, int n)
{
	const char *dir = NULL;

	if (find_target(w, ops, &n, &dir))
		return 1;
	if (!dir)
		return copy_onto(w, ops[0], ops[1]);
	return copy_into(w, dir, ops, n);
}
