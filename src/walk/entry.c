/* The entry being copied, as the walk, the copy of a file (file.c), the
 * destination policy (dest.c), the directories (dirs.c, deferred.c) and
 * the -j workers (workers.c) all see it: its record and what has been
 * said of it, its attributes, the facts of its filesystems.  It calls
 * none of them back; what it calls above the walk (the report, the
 * attributes' messages) src/layers.txt lists. */
#include "system.h"
#include "walk/entry.h"
#include "policy/attrs.h"
#include "walk/jobs.h"
#include "walk/fail.h"
#include "walk/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* Where the walk thread's (worker ARG's) -v lines and messages go now
 * (struct sc_msgs). */
void sc_entry_streams(void *arg, FILE **out, FILE **err)
{
	const struct worker *wk = arg;
	struct sc_pool_slot *s = sc_jobs_own_slot(wk->run->jobs);

	*out = s ? s->out : NULL;
	*err = s ? s->err : NULL;
}

void sc_entry_report(struct worker *wk, struct entry *ent,
		     struct sc_record *rec)
{
	ent->reported = true;
	sc_report_failure(&wk->msgs, rec);
	rec->backup = ent->backup;
	rec->announced = ent->announced;
	/* counted as the summary counts files */
	if (rec->kind == SC_KIND_FILE && rec->copied && !rec->err)
		tree_count_file(wk->run->live,
				sc_copy_report_bytes(rec->res));
	sc_report_record(wk->run->rep, rec, sc_report_out(&wk->msgs));
}

/* --json: an entry that failed before a record was made (or after its
 * record said it was fine: a directory whose entries cannot be read) is
 * said anyway, typed by what its source is (CMDLINE: an operand), with
 * the step and errno of its first error (sc_report_failure()). */
void sc_entry_report_failed(struct worker *wk, struct entry *ent,
			    const char *src, const char *dst, bool cmdline)
{
	const struct sc_options *o = wk->run->o;
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_UNKNOWN };
	bool follow = o->deref == SC_DEREF_ALWAYS ||
		      (o->deref == SC_DEREF_ARGS && cmdline);
	struct stat st;

	if (!o->json || wk->msgs.recorded == 2)
		return;
	if (fstatat(ent->at_fd, ent->at_name, &st,
		    follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
		rec.kind = S_ISDIR(st.st_mode) ? SC_KIND_DIR :
			   o->hard_link ? SC_KIND_HARDLINK :
			   o->symbolic_link || S_ISLNK(st.st_mode) ?
			   SC_KIND_SYMLINK :
			   S_ISREG(st.st_mode) || !o->recursive ||
			   o->copy_contents ? SC_KIND_FILE : SC_KIND_SPECIAL;
	if (wk->msgs.step && !strcmp(wk->msgs.step, "link"))
		rec.kind = SC_KIND_HARDLINK;	/* to a copy made earlier */
	if (rec.kind == SC_KIND_FILE)
		rec.src_size = st.st_size;
	sc_entry_report(wk, ent, &rec);
}

/* Called as cp, -v names a file that is not a directory before copying
 * it, as cp does: the line is there even when the copy then fails, and
 * comes before the error.  Under smartcp's own name the line comes after
 * the copy, with the road it took. */
void sc_entry_announce(struct worker *wk, struct entry *ent, const char *src,
		       const char *dst)
{
	const struct sc_options *o = wk->run->o;

	if (!o->verbose || !o->as_cp || o->json || o->explain || ent->announced)
		return;
	sc_report_cp_line(&wk->msgs, src, dst, ent->backup);
	ent->announced = true;
}

const struct sc_fs_facts *sc_entry_facts(struct worker *wk, int fd,
					 const struct stat *st)
{
	return sc_copier_facts(wk->run->copier, fd, st);
}

/* The metadata's -ESTALE: the source (SRC) or the copy (DST), of
 * whose type ST says, was no longer the one found or made (the
 * copier's SC_EV_REPLACED says which): nothing was set.  Said as the
 * walk says a directory swapped, -ESTALE. */
static int say_replaced(struct worker *wk, const struct stat *st,
			const char *src, const char *dst)
{
	unsigned n = sc_copy_report_events(wk->crep);
	const char *name = dst;	/* which of the two, by pointer */

	/* a source the walk found replaced has been said so already */
	if (wk->msgs.failed && wk->msgs.code == -ESTALE)
		return -ESTALE;

	for (unsigned i = 0; i < n; i++) {
		struct sc_event ev = { .size = sizeof(ev) };

		if (sc_copy_report_event(wk->crep, i, &ev) == 0 &&
		    ev.kind == SC_EV_REPLACED && ev.which == 0)
			name = src;
	}
	return walk_fail(wk->run, name == src ? SC_TREE_SRC_REPLACED :
			 SC_TREE_REPLACED, 0, &(struct sc_tree_entry){
				.kind = S_ISDIR(st->st_mode) ? SC_TREE_DIR :
					S_ISLNK(st->st_mode) ? SC_TREE_SYMLINK :
					SC_TREE_SPECIAL,
				.src = src, .dst = dst, .sst = st });
}

/* The metadata of S's copy D (their paths name them in messages)
 * through the copier, which keeps what --preserve asks for; its events
 * said as cp says them.  MADE: SC_MADE_* bits beyond M's.  0, or -errno
 * when a failure counts. */
int sc_entry_set_meta(struct worker *wk, int in, int out,
		      const struct sc_at *s, const struct sc_at *d,
		      const struct stat *st, const struct sc_made *m,
		      unsigned made)
{
	const struct sc_options *o = wk->run->o;
	struct sc_attrs_env env = {
		.o = o, .privileged = wk->run->privileged,
		.msgs = &wk->msgs, .src_st = st,
	};
	struct stat old;
	/* a name relative to no directory descriptor: its path */
	struct sc_meta_args a = {
		.size = sizeof(a),
		.src_fd = in, .src_dirfd = s->dirfd >= 0 ? s->dirfd : AT_FDCWD,
		.src_name = s->dirfd >= 0 ? s->name : s->path,
		.dst_fd = out, .dst_dirfd = d->dirfd >= 0 ? d->dirfd : AT_FDCWD,
		.dst_name = d->dirfd >= 0 ? d->name : d->path,
		.src_st = st,
		.made = made,
	};
	int e;

	if (m) {
		a.made |= m->flags;
		a.made_mode = m->mode;
		a.omitted = m->omitted;
		a.extra = m->extra;
		a.old_mode = m->old_mode;
	}
	/* the owner an existing destination has, for the words of a failure
	 * to narrow its mode before a chown (attrs.c) */
	if ((a.made & SC_MADE_OLD) && o->preserve_mode &&
	    o->preserve_ownership &&
	    fstatat(a.dst_dirfd, a.dst_name, &old, AT_SYMLINK_NOFOLLOW) == 0)
		env.old_st = &old;
	e = sc_copy_ctx_meta(wk->cx, &a, wk->crep);
	if (e == -ESTALE)
		return say_replaced(wk, st, s->path, d->path);
	sc_attrs_say_all(&env, wk->crep, s->path, d->path);
	return e < 0 ? e : 0;
}

int sc_entry_set_attrs(struct worker *wk, const struct entry *ent, int in,
		       int out, const char *src, const char *dst,
		       const struct stat *st, struct sc_made *m)
{
	struct sc_at s = sc_entry_src(ent, src), d = sc_entry_dst(ent, dst);

	return sc_entry_set_meta(wk, in, out, &s, &d, st, m, 0);
}

const struct sc_fs_facts *sc_entry_facts_for_path(struct worker *wk,
						  const char *path)
{
	return sc_copier_facts_at(wk->run->copier, AT_FDCWD, path);
}

int sc_entry_open_source(struct worker *wk, const struct entry *ent, int flags)
{
	unsigned tries = 0;
	int fd;

	while ((fd = openat(ent->at_fd, ent->at_name, flags)) < 0 &&
	       wk->fd_short(wk->fd_short_arg, errno, &tries))
		;
	return fd < 0 ? -errno : fd;
}
