/* -j: what the walk's workers do with a file, and the state each has
 * (jobs.c runs them): a new regular file is copied on a worker, with
 * its own struct worker and an entry of its own, never the walk's
 * state, and nothing said: its report waits in the job for the walk
 * thread (the ops' after).  One it cannot copy there (another name of
 * a file copied, or anything but a new regular file) is handed back and
 * copied by the walk thread, by the general path. */
#include "common.h"
#include "tree/workers.h"
#include "tree/walk_state.h"
#include "tree/entry.h"
#include "tree/levels.h"
#include "tree/progress.h"
#include "tree/links.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* Points ENT at file F of a job: through the job's directories, which
 * it always has (level_step() makes jobs only of a level with both open,
 * and jobs_add() keeps its own), never by path: a directory on the
 * way may lead elsewhere by now. */
static void job_entry(struct entry *ent, const struct job_file *f)
{
	ent->at_fd = f->dirfd;
	ent->at_name = tree_path_last(f->src);
	ent->dst_fd = f->dst_dirfd;
	ent->dst_name = tree_path_last(f->dst);
	ent->in_level = false;
	ent->parent_facts = f->parent_facts;
}

/* Opens the source of new file F (ENT): the descriptor opened ahead, or
 * its own, and its fstat in *ST.  A descriptor; or -errno when the walk
 * must copy it: the open's error, or -EAGAIN (not a regular file, or on
 * another filesystem under -x, or a file with other names that -a keeps
 * linked: the hard-link table is the walk's). */
static int open_new(struct worker *wk, const struct entry *ent,
		    const struct job_file *f, struct stat *st)
{
	const struct tree_opts *o = wk->run->o;
	int in = f->ahead_fd;

	if (in >= 0)
		*st = *f->ahead_st;	/* taken before its data was read */
	else if ((in = entry_open_source(wk, ent, NEW_SRC_FLAGS)) < 0)
		return in;
	else if (fstat(in, st) < 0)
		st->st_mode = 0;
	if (!S_ISREG(st->st_mode) ||
	    (o->one_file_system && st->st_dev != wk->run->root_dev) ||
	    links_tracked(o, st, false)) {
		close(in);
		return -EAGAIN;
	}
	return in;
}

/* On worker ID: copy new file F, an entry of its own, into REP, as the
 * walk's fast path for a new file copies it (a new destination in a
 * directory the run made, found by descriptor), saying nothing. */
static int copy_on_worker(void *arg, unsigned id, const struct job_file *f,
			  struct sc_copy_report *rep, struct job_result *res)
{
	struct worker *wk = &((struct walk *)arg)->workers[id];
	const struct tree_opts *o = wk->run->o;
	struct entry ent = { .ahead_fd = -1 };
	struct sc_copy_args a;
	struct timespec t0, t1;
	struct stat ist;
	int in;

	job_entry(&ent, f);
	in = open_new(wk, &ent, f, &ist);
	if (in < 0)
		return JOB_BACK;	/* the general path sees and says why */
	a = (struct sc_copy_args){
		.size = sizeof(a),
		.src_dirfd = ent.at_fd, .src_name = ent.at_name,
		.src_fd = in, .src_st = &ist,
		.dst_dirfd = ent.dst_fd, .dst_name = ent.dst_name,
		.dst_fd = -1,
		.dst_dir_facts = ent.parent_facts,
		.flags = SC_FILE_SOURCE_ANY | SC_FILE_NOFOLLOW | SC_FILE_NEW |
			 (o->force ? SC_FILE_FORCE : 0) |
			 (o->posixly_correct ? SC_FILE_DANGLING : 0),
	};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	res->err = sc_copy_ctx_copy(wk->cx, &a, rep);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	close(in);
	return JOB_COPIED;
}

/* On the walk thread: a file a worker handed back, by the general path. */
static void copy_handed_back(void *arg, const struct job_file *f)
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

bool workers_fd_short(void *arg, int err, unsigned *tries)
{
	return walk_fd_short(arg, err, tries);
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
	jobs_fd_short(wk->run->jobs);
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
		/* one copier for the run (its facts and what it learned
		 * shared, under its lock), a context each; each file's
		 * report is its job's */
		if (sc_copy_ctx_new(w->run->copier, &wk->cx) < 0)
			break;
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
	}
	free(w->workers);
	w->workers = NULL;
}

const struct jobs_ops workers_ops = {
	.start = start_workers,
	.copy = copy_on_worker,
	.copy_back = copy_handed_back,
	.stop = stop_workers,
};
