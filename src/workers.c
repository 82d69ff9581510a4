/* -j: what the walk's workers do with a file, and the state each has
 * (jobs.c runs them): a new regular file is copied on a worker, with
 * its own copy of the walk (struct walk); one it cannot copy there is
 * handed back and copied by the walk thread, by the general path. */
#include "system.h"
#include "workers.h"
#include "walk_state.h"
#include "entry.h"
#include "levels.h"
#include "signals.h"

#include <dirent.h>
#include <stdlib.h>

/* Points W at file F of a job: through the job's directories, which it
 * always has (level_step() makes jobs only of a level with both open,
 * and sc_jobs_add() keeps its own), never by path: a directory on the
 * way may lead elsewhere by now. */
static void job_entry(struct walk *w, const struct sc_job_file *f)
{
	w->e.at_fd = f->dirfd;
	w->e.at_name = sc_path_last(f->src);
	w->e.dst_fd = f->dst_dirfd;
	w->e.dst_name = sc_path_last(f->dst);
	w->e.in_level = false;
}

/* On worker ID: copy new file F with the worker's own walk. */
static int copy_on_worker(void *arg, unsigned id, struct sc_pool_slot *slot,
			  const struct sc_job_file *f)
{
	struct walk *w = &((struct walk *)arg)->workers[id];
	int r;

	w->wk.slot = slot;
	w->wk.thread = 1 + id;
	w->e.parent_facts = f->parent_facts;
	w->e.ahead_fd = f->ahead_fd;
	w->e.ahead_st = f->ahead_st;
	sc_report_begin(&w->wk.msgs);
	w->e.reported = false;
	w->e.announced = false;
	job_entry(w, f);
	r = copy_new_regular(w, f->src, f->dst);
	if (r != 1 && w->wk.msgs.failed)
		sc_entry_report_failed(&w->wk, &w->e, f->src, f->dst, false);
	w->wk.slot = NULL;
	return r == 1 ? 1 : w->wk.msgs.failed ? -1 : 0;
}

/* On the walk thread: a file a worker handed back, by the general path. */
static void copy_handed_back(void *arg, const struct sc_job_file *f)
{
	struct walk *w = arg;
	const char *at_name = w->e.at_name, *dst_name = w->e.dst_name;
	int at_fd = w->e.at_fd, dst_fd = w->e.dst_fd;
	bool in_level = w->e.in_level;

	w->e.parent_facts = f->parent_facts;
	job_entry(w, f);
	copy_entry(w, f->src, f->dst, false, DT_UNKNOWN);
	/* the walk's entry as it was; the walk checks its level's
	 * descriptors before it uses them again (copy_entries()) */
	w->e.at_fd = at_fd;
	w->e.at_name = at_name;
	w->e.dst_fd = dst_fd;
	w->e.dst_name = dst_name;
	w->e.in_level = in_level;
	w->e.parent_facts = NULL;
}

bool sc_workers_fd_short(void *arg, int err, unsigned *tries)
{
	return sc_walk_fd_short(arg, err, tries);
}

/* One walk per worker, copies of the walk thread's as it is now: as many
 * as there is memory for, up to N. */
static unsigned start_workers(void *arg, unsigned n)
{
	struct walk *w = arg;
	unsigned i;

	/* A worker may meet a filesystem whose facts need libmount (a FUSE
	 * subtype, an unknown magic): it is loaded now, on the walk thread,
	 * so that no library's first-use set-up runs in a worker. */
	sc_copier_preload(w->run->copier);
	w->workers = calloc(n, sizeof(*w->workers));
	if (!w->workers)
		return 0;
	for (i = 0; i < n; i++) {
		struct walk *k = &w->workers[i];

		*k = *w;
		k->wk.in_worker = true;
		k->e.ahead_fd = -1;
		k->workers = NULL;
		k->e.backup = NULL;
		k->wk.links = NULL;	/* the walk's: a worker hands such files back */
		k->wk.msgs = (struct sc_msgs){ .streams = sc_entry_streams, .arg = &k->wk };
		/* one copier for the run (its facts and what it learned
		 * shared, under its lock), a context and a report each */
		k->wk.cx = NULL;
		k->wk.crep = NULL;
		if (sc_copy_ctx_new(w->run->copier, &k->wk.cx) < 0 ||
		    sc_copy_report_new(&k->wk.crep) < 0) {
			sc_copy_ctx_free(k->wk.cx);
			break;
		}
		sc_copy_ctx_set_fd_short(k->wk.cx, sc_workers_fd_short, k);
		sc_signals_register(1 + i, k->wk.cx);
	}
	return i;
}

static void stop_workers(void *arg, unsigned n)
{
	struct walk *w = arg;

	for (unsigned i = 0; w->workers && i < n; i++) {
		sc_signals_register(1 + i, NULL);
		sc_copy_ctx_free(w->workers[i].wk.cx);
		sc_copy_report_free(w->workers[i].wk.crep);
	}
	free(w->workers);
	w->workers = NULL;
}

const struct sc_jobs_ops sc_workers_ops = {
	.start = start_workers,
	.copy = copy_on_worker,
	.copy_back = copy_handed_back,
	.stop = stop_workers,
};
