/* The entry being copied, as the walk, the destination policy (dest.c),
 * the directories (dirs.c, deferred.c) and the -j workers (workers.c)
 * all see it: its attributes and the copy of its data through the
 * library, whose reports AFTER is handed at its end (walk.c), the facts
 * of its filesystems.  It calls none of them back. */
#include "common.h"
#include "tree/entry.h"
#include "tree/jobs.h"
#include "tree/fail.h"
#include "tree/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const struct sc_fs_facts *entry_facts(struct worker *wk, int fd,
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

int walk_meta(struct worker *wk, int in, int out, const struct tree_at *s,
	      const struct tree_at *d, const struct stat *st,
	      const struct walk_made *m, unsigned made, struct walk_out *res)
{
	const struct tree_opts *o = wk->run->o;
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
	 * to narrow its mode before a chown */
	res->has_old = (a.made & SC_MADE_OLD) && o->preserve_mode &&
		       o->preserve_ownership &&
		       fstatat(a.dst_dirfd, a.dst_name, &res->old,
			       AT_SYMLINK_NOFOLLOW) == 0;
	e = sc_copy_ctx_meta(wk->cx, &a, wk->crep);
	res->rep_err = e < 0 ? e : 0;
	res->rep = wk->crep;
	if (e == -ESTALE) {
		res->rep = NULL;	/* nothing was set: said so here */
		res->rep_err = say_replaced(wk, st, s->path, d->path);
	}
	return res->rep_err;
}

int walk_attrs(struct worker *wk, struct entry *ent, int in, int out,
	       const char *src, const char *dst, const struct stat *st,
	       struct walk_made *m)
{
	struct tree_at s = entry_src(ent, src), d = entry_dst(ent, dst);

	return walk_meta(wk, in, out, &s, &d, st, m, 0, &ent->out);
}

/* The copy's arguments for the entry ENT: the source the walk saw (SST;
 * PRE_IN >= 0: opened already, PRE_IST its fstat), FOLLOW it when it is a
 * symlink, the destination there (DST_ST, NULL: none). */
struct sc_copy_args walk_file_args(const struct worker *wk,
				   const struct entry *ent,
				   const struct stat *sst,
				   const struct stat *dst_st, bool follow,
				   int pre_in, const struct stat *pre_ist)
{
	const struct tree_opts *o = wk->run->o;

	return (struct sc_copy_args){
		.size = sizeof(struct sc_copy_args),
		.src_dirfd = ent->at_fd, .src_name = ent->at_name,
		.src_fd = pre_in, .src_st = pre_in >= 0 ? pre_ist : NULL,
		.src_expect = sst,
		.dst_dirfd = ent->dst_fd, .dst_name = ent->dst_name, .dst_fd = -1,
		.dst_st = dst_st,
		.dst_dir_facts = ent->parent_facts,
		/* a FIFO or a device is read as a stream (without -R, its
		 * data is copied); a dangling symlink is written through
		 * only as POSIX says (cp: POSIXLY_CORRECT) */
		.flags = SC_FILE_SOURCE_ANY |
			 (follow ? 0 : SC_FILE_NOFOLLOW) |
			 (dst_st ? 0 : SC_FILE_NEW) |
			 (o->force ? SC_FILE_FORCE : 0) |
			 (o->posixly_correct ? SC_FILE_DANGLING : 0),
	};
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int walk_copy_file(struct worker *wk, struct entry *ent, const char *src,
		   const struct stat *sst, const struct stat *dst_st,
		   bool follow, int pre_in, const struct stat *pre_ist)
{
	const struct tree_opts *o = wk->run->o;
	struct sc_copy_args a = walk_file_args(wk, ent, sst, dst_st, follow,
					       pre_in, pre_ist);
	struct timespec t0;
	int e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ent->current = src;
	ent->current_size = pre_in >= 0 ? pre_ist->st_size :
			    sst ? sst->st_size : 0;
	ent->out.kind = SC_TREE_FILE;
	ent->out.has_old = dst_st != NULL;
	if (dst_st)
		ent->out.old = *dst_st;
	if (o->explain) {
		/* A symlink to nowhere is not written through (a backup or
		 * --remove-destination would have taken it away: the walk
		 * decided so, and nothing was moved). */
		if (o->dst_nofollow)
			a.flags |= SC_FILE_DANGLING;
		e = sc_copy_ctx_explain(wk->cx, &a, wk->crep);
	} else {
		e = sc_copy_ctx_copy(wk->cx, &a, wk->crep);
	}
	ent->out.rep = wk->crep;
	ent->out.rep_err = e < 0 ? e : 0;
	ent->out.seconds = elapsed(&t0);
	if (pre_in >= 0)
		close(pre_in);
	return WALK_COPIED;
}

const struct sc_fs_facts *entry_facts_for_path(struct worker *wk,
						  const char *path)
{
	return sc_copier_facts_at(wk->run->copier, AT_FDCWD, path);
}

int entry_open_source(struct worker *wk, const struct entry *ent, int flags)
{
	unsigned tries = 0;
	int fd;

	while ((fd = openat(ent->at_fd, ent->at_name, flags)) < 0 &&
	       wk->fd_short(wk->fd_short_arg, errno, &tries))
		;
	return fd < 0 ? -errno : fd;
}
