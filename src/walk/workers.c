/* -j: what the walk's workers do with a file, and the state each has
 * (jobs.c runs them): a new regular file is copied on a worker, with
 * its own struct worker and an entry of its own, never the walk's
 * state; one it cannot copy there (another name of a file copied, or
 * anything but a new regular file) is handed back and copied by the
 * walk thread, by the general path. */
#include "system.h"
#include "walk/workers.h"
#include "walk/walk_state.h"
#include "walk/entry.h"
#include "walk/levels.h"
#include "walk/progress.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

/* Points ENT at file F of a job: through the job's directories, which
 * it always has (level_step() makes jobs only of a level with both open,
 * and sc_jobs_add() keeps its own), never by path: a directory on the
 * way may lead elsewhere by now. */
static void job_entry(struct entry *ent, const struct sc_job_file *f)
{
	ent->at_fd = f->dirfd;
	ent->at_name = sc_path_last(f->src);
	ent->dst_fd = f->dst_dirfd;
	ent->dst_name = sc_path_last(f->dst);
	ent->in_level = false;
	ent->parent_facts = f->parent_facts;
}

/* On worker ID: copy new file F, an entry of its own. */
static int copy_on_worker(void *arg, unsigned id, struct sc_pool_slot *slot,
			  const struct sc_job_file *f)
{
	struct worker *wk = &((struct walk *)arg)->workers[id];
	struct entry ent = { .ahead_fd = f->ahead_fd, .ahead_st = f->ahead_st };
	int r;

	wk->slot = slot;
	wk->thread = 1 + id;
	sc_report_begin(&wk->msgs);
	job_entry(&ent, f);
	r = copy_new_regular(wk, &ent, f->src, f->dst);
	if (r != SC_HANDED_BACK && wk->msgs.failed)
		sc_entry_report_failed(wk, &ent, f->src, f->dst, false);
	wk->slot = NULL;
	return r == SC_HANDED_BACK ? SC_JOB_BACK :
	       wk->msgs.failed ? sc_report_code(&wk->msgs) : SC_JOB_COPIED;
}

/* On the walk thread: a file a worker handed back, by the general path. */
static void copy_handed_back(void *arg, const struct sc_job_file *f)
{
	struct walk *w = arg;
	const char *at_name = w->e.at_name, *dst_name = w->e.dst_name;
	int at_fd = w->e.at_fd, dst_fd = w->e.dst_fd;
	bool in_level = w->e.in_level;

	job_entry(&w->e, f);
	copy_entry(w, f->src, f->dst, false, DT_UNKNOWN);
	/* the walk's entry as it was; the walk checks its level's
	 * descriptors before it uses them again (level_get()) */
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

/* Out of descriptors on a -j worker: the worker has none to give back;
 * fewer workers at once, and time for the others to close what they
 * hold (a worker's files are small, or they hold few descriptors for
 * long). */
static bool worker_fd_short(void *arg, int err, unsigned *tries)
{
	const struct worker *wk = arg;
	struct timespec pause = { 0, 2000000 };

	if (err != EMFILE && err != ENFILE)
		return false;
	if ((*tries)++ >= 250) {
		errno = err;
		return false;
	}
	sc_jobs_fd_short(wk->run->jobs);
	nanosleep(&pause, NULL);
	errno = err;
	return true;
}

/* N workers: as many as there is memory for, up to N. */
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
		struct worker *wk = &w->workers[i];

		/* no hard-link table: the walk's, a worker hands such
		 * files back */
		*wk = (struct worker){
			.run = w->run,
			.thread = 1 + i,
			.fd_short = worker_fd_short,
			.fd_short_arg = wk,
		};
		wk->msgs = (struct sc_msgs){ .streams = sc_entry_streams,
					     .arg = wk };
		/* one copier for the run (its facts and what it learned
		 * shared, under its lock), a context and a report each */
		if (sc_copy_ctx_new(w->run->copier, &wk->cx) < 0 ||
		    sc_copy_report_new(&wk->crep) < 0) {
			sc_copy_ctx_free(wk->cx);
			break;
		}
		sc_copy_ctx_set_fd_short(wk->cx, worker_fd_short, wk);
		tree_copying(w->run->live, 1 + i, wk->cx);
	}
	return i;
}

static void stop_workers(void *arg, unsigned n)
{
	struct walk *w = arg;

	for (unsigned i = 0; w->workers && i < n; i++) {
		tree_copying(w->run->live, 1 + i, NULL);
		sc_copy_ctx_free(w->workers[i].cx);
		sc_copy_report_free(w->workers[i].crep);
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
