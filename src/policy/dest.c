/* The destination: may it be written, what becomes of what is there
 * (backups, removal, links made in its place), and what cp decides for
 * the entry the walk copies (sc_dest_settle()).  The signal handler that
 * has the library remove what an interrupted copy leaves is signals.c's. */
#include "system.h"
#include "policy/dest.h"
#include "policy/cp.h"
#include "policy/seen.h"
#include "policy/file.h"
#include "base/paths.h"
#include "output/quote.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define SAME_INODE(a, b) ((a).st_dev == (b).st_dev && (a).st_ino == (b).st_ino)

/* An answer to a question, read from stdin: yes in the locale's words. */
static bool answer_is_yes(void)
{
	char *line = NULL;
	size_t cap = 0;
	bool r = false;

	if (getline(&line, &cap, stdin) > 0)
		r = rpmatch(line) == 1;
	free(line);
	return r;
}

/* sc_dest_backup_name(), into *RET_NAME: what the name is
 * (SC_BACKUP_NAME_*), or -errno.  The library names the backup in AT
 * (DST's last name there; by DST's path when AT is not a descriptor),
 * and DST's directory part goes before it.  A directory that cannot be
 * read has no numbered backups and no known NAME_MAX, as for cp. */
static int backup_name(const struct sc_options *o, int at, const char *dst,
		       char **ret_name)
{
	const char *slash = strrchr(dst, '/');
	const char *name = at >= 0 && slash ? slash + 1 : dst;
	bool numbered = o->backup == SC_BACKUP_NUMBERED;
	_cleanup_free_ char *b = NULL;
	int how;

	*ret_name = NULL;
	at = at >= 0 ? at : AT_FDCWD;
	how = sc_backup_name(at, name, o->backup, o->suffix, &b);
	if (how < 0 && how != -ENOMEM) {
		how = sc_backup_name(at, name, SC_BACKUP_SIMPLE,
				     numbered ? ".~1~" : o->suffix, &b);
		if (how >= 0 && numbered)
			how = SC_BACKUP_NAME_NUMBERED;
	}
	if (how < 0)
		return how;
	if (asprintf(ret_name, "%.*s%s", (int)(name - dst), dst, b) < 0) {
		*ret_name = NULL;
		return -ENOMEM;
	}
	return how;
}

char *sc_dest_backup_name(const struct sc_options *o, int dirfd,
			  const char *dst)
{
	char *b;

	return backup_name(o, dirfd, dst, &b) < 0 ? NULL : b;
}

bool sc_dest_deref_never(const struct sc_options *o, bool cmdline)
{
	return o->deref == SC_DEREF_NEVER ||
	       (o->deref == SC_DEREF_ARGS && !cmdline);
}

/* sc_dest_same_file_ok(), links not followed, the last question: do SRC
 * and DST (SL, DL: their lstat) lead to one file through their links?
 * Then only -l may go on (RET_NOTHING_TO_DO: unless DST is a link). */
static bool same_through_links_ok(const struct sc_options *o,
				  const struct sc_at *src,
				  const struct stat *sl,
				  const struct sc_at *dst,
				  const struct stat *dl,
				  bool *ret_nothing_to_do)
{
	struct stat a, b;

	if (S_ISLNK(sl->st_mode) ?
	    fstatat(src->dirfd, src->name, &a, 0) < 0 : (a = *sl, false))
		return true;
	if (S_ISLNK(dl->st_mode) ?
	    fstatat(dst->dirfd, dst->name, &b, 0) < 0 : (b = *dl, false))
		return true;
	if (!SAME_INODE(a, b))
		return true;
	if (o->hard_link) {
		*ret_nothing_to_do = !S_ISLNK(dl->st_mode);
		return true;
	}
	return false;
}

bool sc_dest_same_file_ok(const struct sc_options *o, const struct sc_at *src,
			  const struct stat *sst, const struct sc_at *dst,
			  const struct stat *dst_st, bool cmdline,
			  bool *ret_nothing_to_do)
{
	bool same = SAME_INODE(*sst, *dst_st), same_link;
	bool never = sc_dest_deref_never(o, cmdline);
	struct stat sl, dl;

	*ret_nothing_to_do = false;
	if (same && o->hard_link) {
		*ret_nothing_to_do = true;
		return true;
	}
	if (never) {
		same_link = same;
		sl = *sst;
		dl = *dst_st;
		if (S_ISLNK(sl.st_mode) && S_ISLNK(dl.st_mode)) {
			/* two links: fine unless one entry */
			bool sn = sc_at_same_entry(src, dst);

			if (!sn && o->backup != SC_BACKUP_NONE)
				return true;
			if (!sn && same_link) {
				*ret_nothing_to_do = true;
				return true;
			}
			return !sn;
		}
	} else {
		if (!same)
			return true;
		if (fstatat(dst->dirfd, dst->name, &dl,
			    AT_SYMLINK_NOFOLLOW) < 0 ||
		    fstatat(src->dirfd, src->name, &sl,
			    AT_SYMLINK_NOFOLLOW) < 0)
			return true;
		same_link = SAME_INODE(sl, dl);
		if (S_ISLNK(sl.st_mode) && S_ISLNK(dl.st_mode) &&
		    o->remove_destination)
			return true;
	}
	if (o->backup != SC_BACKUP_NONE) {
		if (!same_link)
			/* backing up the file a followed link names would
			 * leave the link dangling */
			return !(!never &&
				 S_ISLNK(sl.st_mode) && !S_ISLNK(dl.st_mode));
		return !sc_at_same_entry(src, dst);
	}
	if (o->remove_destination) {
		if (S_ISLNK(dl.st_mode))
			return true;
		if (same_link && dl.st_nlink > 1 && !sc_at_same_entry(src, dst))
			return true;
	}
	if (!S_ISLNK(sl.st_mode) && !S_ISLNK(dl.st_mode)) {
		if (!SAME_INODE(sl, dl))
			return true;
		if (o->hard_link) {
			*ret_nothing_to_do = true;
			return true;
		}
	}
	if (o->symbolic_link && S_ISLNK(dl.st_mode))
		return true;	/* a link may be made again */
	if (never)
		return same_through_links_ok(o, src, &sl, dst, &dl,
					     ret_nothing_to_do);
	return false;
}

bool sc_dest_backup_is_source(const struct sc_options *o, const char *src,
			      const struct stat *sst, int dirfd,
			      const char *dst)
{
	_cleanup_free_ char *sb = sc_path_base(src), *db = sc_path_base(dst);
	_cleanup_free_ char *back = NULL;
	size_t dl, xl = strlen(o->suffix);
	struct stat st;

	if (!sb || !db)
		return false;
	dl = strlen(db);
	if (strlen(sb) != dl + xl || memcmp(sb, db, dl) ||
	    strcmp(sb + dl, o->suffix))
		return false;
	if (asprintf(&back, "%s%s", dst, o->suffix) < 0) {
		back = NULL;
		return false;
	}
	return fstatat(dirfd, dirfd >= 0 ? sc_path_last(back) : back, &st,
		       0) == 0 && SAME_INODE(st, *sst);
}

bool sc_dest_ask_overwrite(const struct sc_options *o, bool privileged,
			   const struct sc_at *dst, const struct stat *dst_st)
{
	/* a file we may not write is named as such, with its mode, as cp
	 * does */
	bool unwritable = !S_ISLNK(dst_st->st_mode) && !privileged &&
			  faccessat(dst->dirfd, dst->name, W_OK,
				    AT_EACCESS) != 0;

	sc_report_ask_overwrite(dst->path, dst_st, unwritable,
				o->force || o->remove_destination);
	return answer_is_yes();
}

bool sc_dest_update_skips(const struct sc_options *o, const struct stat *sst,
			  const struct stat *dst_st)
{
	if (o->update == SC_UPDATE_NONE || o->update == SC_UPDATE_NONE_FAIL)
		return true;
	return o->update == SC_UPDATE_OLDER &&
	       (dst_st->st_mtim.tv_sec > sst->st_mtim.tv_sec ||
		(dst_st->st_mtim.tv_sec == sst->st_mtim.tv_sec &&
		 dst_st->st_mtim.tv_nsec >= sst->st_mtim.tv_nsec));
}

bool sc_dest_must_remove(const struct sc_options *o, const struct stat *sst,
			 const struct stat *dst_st, bool cmdline)
{
	return o->remove_destination ||
	       (!o->attributes_only &&
		((o->preserve_links && dst_st->st_nlink > 1) ||
		 (sc_dest_deref_never(o, cmdline) && !S_ISREG(sst->st_mode))));
}

int sc_dest_remove(struct sc_msgs *m, const struct sc_at *dst, bool verbose)
{
	if (unlinkat(dst->dirfd, dst->name, 0) < 0 && errno != ENOENT)
		return sc_report_fail(m, SC_FAIL_REMOVE, errno, dst->path,
				      NULL);
	if (verbose)
		sc_report_removed(m, dst->path);
	return 0;
}

/* --- the entry the walk copies ----------------------------------------- */

/* The backup B of ENT's destination DST (B is DST and a suffix, which
 * may hold a slash) as a name in the entry's directory (ENT->dst_fd), or
 * as the path it is when the entry is a path (AT_FDCWD). */
static const char *backup_at(const struct sc_tree_entry *te, const char *b,
			     const char *dst)
{
	size_t dir = strlen(dst) - strlen(te->dst_name);

	return te->dst_dirfd >= 0 && dir <= strlen(b) ? b + dir : b;
}

/* What back_up() did, when it did not fail. */
enum backed_up {
	BACKED_UP = 0,		/* the destination is gone, to its backup */
	NOTHING_TO_BACK_UP,	/* "." or ".." as the source */
};

/* ENT's destination DST is renamed to its backup name B (HOW:
 * SC_BACKUP_NAME_*),
 * which, numbered, must not be taken (as cp, which renames with
 * RENAME_NOREPLACE there).  0 (also when the destination is gone), or
 * an errno. */
static int to_backup(const struct sc_tree_entry *te, const char *b, const char *dst,
		     int how)
{
	struct stat st;
	int r;

	if (!(how & SC_BACKUP_NAME_NUMBERED))
		r = renameat(te->dst_dirfd, te->dst_name, te->dst_dirfd,
			     backup_at(te, b, dst));
	else if ((r = renameat2(te->dst_dirfd, te->dst_name, te->dst_dirfd,
				backup_at(te, b, dst), RENAME_NOREPLACE)) < 0 &&
		 errno == EINVAL) {
		/* a filesystem without RENAME_NOREPLACE: look first */
		if (fstatat(te->dst_dirfd, backup_at(te, b, dst), &st,
			    AT_SYMLINK_NOFOLLOW) == 0)
			return EEXIST;
		r = renameat(te->dst_dirfd, te->dst_name, te->dst_dirfd,
			     backup_at(te, b, dst));
	}
	return r < 0 && errno != ENOENT ? errno : 0;
}

/* The existing destination is moved aside to its backup name: enum
 * backed_up, or -errno (said). */
static int back_up(struct cp *cp, const struct sc_tree_entry *te,
		   const struct decision *e)
{
	const struct sc_options *o = cp->o;
	_cleanup_free_ char *base = sc_path_base(e->src);
	char *b = NULL;
	int how, err;

	if (base && (!strcmp(base, ".") || !strcmp(base, "..")))
		return NOTHING_TO_BACK_UP;
	if (o->backup != SC_BACKUP_NUMBERED &&
	    sc_dest_backup_is_source(o, e->src, &e->sst, te->dst_dirfd, e->dst))
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_BACKUP_SOURCE, 0,
				      e->dst, e->src);
	if (o->explain)
		return BACKED_UP;	/* decided: nothing is moved */
	for (int tries = 0;; tries++) {
		how = backup_name(o, te->dst_dirfd, e->dst, &b);
		err = how < 0 ? -how : to_backup(te, b, e->dst, how);
		/* a numbered name taken meanwhile: count again (a shortened
		 * one stays the same: cp fails, "File exists") */
		if (err != EEXIST || (how & SC_BACKUP_NAME_SHORTENED) ||
		    tries >= 3)
			break;
		free(b);
	}
	if (err) {
		free(b);
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_BACKUP, err, e->dst,
				      NULL);
	}
	free(cp->cur.backup);
	cp->cur.backup = b;		/* shown on the -v line */
	return BACKED_UP;
}

void sc_dest_unbackup(struct cp *cp, const struct sc_tree_entry *te)
{
	const char *b = cp->cur.backup, *dst = te->dst;

	if (!b)
		return;
	if (renameat(te->dst_dirfd, backup_at(te, b, dst), te->dst_dirfd,
		     te->dst_name) < 0) {
		sc_report_fail(&cp->cur.msgs, SC_FAIL_UNBACKUP, errno, dst,
			       NULL);
		return;
	}
	if (cp->o->verbose && !cp->o->json)
		sc_report_unbackup(&cp->cur.msgs, b, dst);
	free(cp->cur.backup);
	cp->cur.backup = NULL;
}

/* --debug: a destination DST left as it was (-n, --update, a "no" to
 * -i), as cp 9.4 and later say it. */
static void say_skipped(struct cp *cp, const char *dst)
{
	const struct sc_options *o = cp->o;

	if (o->debug && !o->json && !o->explain)
		sc_report_skipped(&cp->cur.msgs, dst);
}

/* Leaves a destination alone that --update finds new enough; its other
 * names still become links to it, as they would to a copy (-a: the
 * tree copy links them, SC_SETTLED_KEPT), and where the source is
 * another name of a file copied earlier, it becomes a link to that copy
 * (SC_SETTLED_COPY: the tree copy makes it).  Or -errno. */
static int keep_newer(struct cp *cp, const struct decision *e)
{
	const struct sc_options *o = cp->o;

	if (o->update == SC_UPDATE_NONE_FAIL) {
		/* cp 9.6: said, counted, nothing else done */
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_NOT_REPLACING, 0,
				      e->dst, NULL);
	}
	say_skipped(cp, e->dst);
	if (o->explain && !o->json)	/* the plan of a file left alone */
		sc_report_skipped(&cp->cur.msgs, e->dst);
	return e->earlier ? SC_SETTLED_COPY : SC_SETTLED_KEPT;
}

/* --if-changed: a destination that already holds the source's bytes is
 * neither backed up nor removed: left alone (but for its attributes), as
 * it is without -b, and standing for the copy (SC_SETTLED_KEPT; but
 * SC_SETTLED_DONE when its attributes failed).  E's destination is not a
 * directory.  enum sc_settled, or -errno (said). */
static int left_unchanged(struct cp *cp, const struct sc_tree_entry *te,
			  const struct decision *e)
{
	const struct sc_options *o = cp->o;
	int r;

	if (o->if_changed &&
	    (o->backup != SC_BACKUP_NONE ||
	     sc_dest_must_remove(o, &e->sst, &e->dst_st, e->cmdline)) &&
	    !e->earlier) {
		r = sc_file_unchanged(cp, te, &e->sst, &e->dst_st, e->follow);
		if (r == SC_FILE_SAME && !cp->cur.msgs.failed)
			return SC_SETTLED_KEPT;
		if (r != SC_FILE_DIFFERS)
			return r < 0 ? r : SC_SETTLED_DONE;
	}
	return SC_SETTLED_COPY;
}

/* Does --atomic replace DST_ST, a destination that must go before SST is
 * copied (sc_dest_must_remove()), by a rename rather than a removal? */
static bool replaced_by_rename(const struct sc_options *o,
			       const struct stat *sst,
			       const struct stat *dst_st)
{
	return o->atomic && !o->attributes_only && S_ISREG(sst->st_mode) &&
	       S_ISREG(dst_st->st_mode);
}

/* E's destination (DST), not a directory, is backed up, or removed when
 * it must be before the copy.  SC_SETTLED_COPY, or -errno (said). */
static int clear_the_way(struct cp *cp, const struct sc_tree_entry *te,
			 struct decision *e, const struct sc_at *dst)
{
	const struct sc_options *o = cp->o;
	int r;

	if (o->backup != SC_BACKUP_NONE) {
		r = back_up(cp, te, e);
		if (r < 0)
			return r;
		if (r == BACKED_UP)
			e->dst_exists = false;
	} else if (sc_dest_must_remove(o, &e->sst, &e->dst_st, e->cmdline)) {
		/* --atomic replaces a regular file by a rename, which gives
		 * the name a new inode as a removal would (its other names
		 * keep the old bytes), without the window in which there is
		 * no file, and without losing it when the copy then fails.
		 * The new file is made as it is where the old one went
		 * first: with the source's mode and the copier's owner, not
		 * the old file's (a 0600 secret must not take a 0644 file's
		 * mode). */
		if (replaced_by_rename(o, &e->sst, &e->dst_st)) {
			e->dst_exists = false;
			return SC_SETTLED_COPY;
		}
		if (!o->explain &&
		    (r = sc_dest_remove(&cp->cur.msgs, dst, o->verbose)) < 0)
			return r;
		e->dst_exists = false;
	}
	return SC_SETTLED_COPY;
}

_noinline_ int sc_dest_settle(struct cp *cp, const struct sc_tree_entry *te,
				   struct decision *e,
				   const struct sc_seen *seen)
{
	const struct sc_options *o = cp->o;
	bool src_dir = S_ISDIR(e->sst.st_mode);
	bool dst_dir = S_ISDIR(e->dst_st.st_mode);
	bool nothing_to_do = false;
	struct sc_at src = { te->src_dirfd, te->src_name, e->src },
		     dst = { te->dst_dirfd, te->dst_name, e->dst };
	int r;

	if (o->interactive != SC_OVERWRITE_NEVER &&
	    !sc_dest_same_file_ok(o, &src, &e->sst, &dst, &e->dst_st,
				  e->cmdline, &nothing_to_do))
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_SAME_FILE, 0,
				      e->src, e->dst);
	if (o->update != SC_UPDATE_ALL && !src_dir &&
	    sc_dest_update_skips(o, &e->sst, &e->dst_st))
		return keep_newer(cp, e);
	if (!src_dir && (o->interactive == SC_OVERWRITE_NEVER ||
			 (o->interactive == SC_OVERWRITE_ASK && !o->explain &&
			  !sc_dest_ask_overwrite(o, cp->privileged, &dst,
						 &e->dst_st)))) {
		say_skipped(cp, e->dst);
		if (o->explain && !o->json)
			sc_report_skipped(&cp->cur.msgs, e->dst);
		return SC_SETTLED_DONE;
	}
	if (nothing_to_do)
		return SC_SETTLED_DONE;
	if (!dst_dir && src_dir)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_DIR_ON_FILE, 0,
				      e->dst, e->src);
	/* cp a/f b/f c: the second would destroy the first */
	if (!dst_dir && e->cmdline && seen &&
	    o->backup != SC_BACKUP_NUMBERED &&
	    sc_seen_just_created(seen, &e->dst_st))
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_JUST_CREATED, 0,
				      e->dst, e->src);
	if (!src_dir && dst_dir)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_FILE_ON_DIR, 0,
				      e->dst, NULL);
	if (dst_dir)
		return SC_SETTLED_COPY;
	r = left_unchanged(cp, te, e);
	if (r != SC_SETTLED_COPY)
		return r;
	return clear_the_way(cp, te, e, &dst);
}
