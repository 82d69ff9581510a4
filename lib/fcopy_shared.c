/* What the phases of the one pipeline (fcopy.c, fcopy_dest.c,
 * fcopy_verify.c) and the simple calls (simple.c) share: an event of the
 * report, an open that waits for descriptors, the cancel flag, the plan
 * from the facts at hand, and the names the metadata is set by.  Below
 * them all, so that none of them calls back up into another. */
#include "common.h"
#include "fcopy.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

/* A new event of F's report. */
struct sc_ev *sc_fcopy_event(struct fcopy *f, enum sc_event_kind kind, int err,
			     bool fatal)
{
	return sc_report_add(f->rep, kind, err, fatal, true);
}

/* openat(), tried again while the caller gives descriptors back. */
int sc_fcopy_open_retry(struct sc_copy_ctx *x, int dirfd, const char *name,
			int flags, mode_t mode)
{
	unsigned tries = 0;
	int fd;

	while ((fd = openat(dirfd, name, flags, mode)) < 0 &&
	       (errno == EMFILE || errno == ENFILE) && x->fd_short) {
		int err = errno;
		bool again = x->fd_short(x->fd_short_arg, err, &tries);

		errno = err;
		if (!again)
			break;
	}
	return fd;
}

bool sc_fcopy_canceled(const struct fcopy *f)
{
	return atomic_load_explicit(&f->x->cancel, memory_order_relaxed);
}

void sc_fcopy_make_plan(struct fcopy *f, const struct stat *sst,
			mode_t dst_mode)
{
	struct sc_copier *c = f->c;
	struct sc_copy_report *rep = f->rep;
	struct sc_plan_input in = {
		.size = sizeof(in),
		.src_fs = rep->src_fs, .dst_fs = rep->dst_fs,
		.src_mode = sst->st_mode, .dst_mode = dst_mode,
		.src_size = sst->st_size, .kernel = c->kernel,
		.reflink = c->reflink, .roads = c->roads,
		.sparse = c->sparse, .roads_forced = c->roads_forced,
	};

	in.learned = sc_copier_learned_get(c, rep->src_fs, rep->dst_fs);
	sc_plan_make(&in, &rep->plan);
	rep->kernel = c->kernel;
	rep->flags |= SC_REPORT_PLANNED;
}

/* The source as a name for the metadata (by name, no descriptor). */
struct sc_meta_at sc_fcopy_src_at(const struct fcopy *f, char *buf,
				  size_t size)
{
	if (f->a->src_name)
		return (struct sc_meta_at){ f->a->src_dirfd, f->a->src_name };
	snprintf(buf, size, "/proc/self/fd/%d", f->in);
	return (struct sc_meta_at){ AT_FDCWD, buf };
}

struct sc_meta_at sc_fcopy_dst_at(const struct fcopy *f)
{
	return (struct sc_meta_at){ f->a->dst_dirfd,
				    f->a->dst_name ? f->a->dst_name : "" };
}

/* Where SC_COPY_ATOMIC puts its temporary and renames it to: the file a
 * copy through the destination writes, the last target of a symlink it
 * leads through (F->tdirfd), else the destination. */
struct sc_meta_at sc_fcopy_atomic_at(const struct fcopy *f)
{
	if (f->tdirfd >= 0)
		return (struct sc_meta_at){ f->tdirfd, f->tname };
	return sc_fcopy_dst_at(f);
}

/* A call's error before anything was done: said in REP, if any. */
int sc_fcopy_refuse(struct sc_copy_report *rep, int e)
{
	if (rep) {
		sc_report_reset(rep);
		rep->error = e;
	}
	return e;
}
