/* The run: the copier and the report set up for the options, the signal
 * handler, the -j workers, the operands copied (operands.c, through the
 * walk), the directory attributes left for the end, and all of it taken
 * down again.  The top of the program below main(): it calls the others
 * and none of them calls it. */
#include "system.h"
#include "cli/run.h"
#include "walk/walk_state.h"
#include "walk/deferred.h"
#include "walk/entry.h"
#include "walk/jobs.h"
#include "walk/levels.h"
#include "policy/file.h"
#include "policy/operands.h"
#include "policy/record.h"
#include "policy/seen.h"
#include "policy/hooks.h"
#include "cli/signals.h"
#include "walk/workers.h"
#include "walk/progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int on_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct walk *w = arg;

	sc_report_progress(w->run->rep, w->e.current, done, w->e.current_size,
			   road);
	return 0;
}

/* --assume-fs: facts of filesystems of the named types that nothing is
 * looked up for; one filesystem (one mount) for both ends, or two.  The
 * types were checked when the options were read. */
static void assume_facts(struct run *run, const struct sc_options *o)
{
	for (int i = 0; i < 2; i++) {
		int id = o->assume_one_fs ? 1 : i + 1;

		/* not failing: the options checked the types (but memory) */
		sc_fs_facts_assume(o->assume_type[i], id, id,
				   &run->assumed[i]);
	}
	run->fs_assumed = true;
}

/* The run's copier: the options as its flags and setters.  0, or
 * -ENOMEM (the setters fail for nothing else: the options were
 * checked). */
static int make_copier(struct run *run, const struct sc_options *o,
		       mode_t um)
{
	struct sc_copier *c;

	if (sc_copier_new(sc_attrs_copier_flags(o), &c) < 0)
		return -ENOMEM;
	run->copier = c;
	if (sc_copier_set_roads(c, o->roads, o->roads_forced) < 0 ||
	    sc_copier_set_reflink(c, o->reflink) < 0 ||
	    sc_copier_set_sparse(c, o->sparse) < 0 ||
	    sc_copier_set_umask(c, um) < 0 ||
	    sc_copier_want_uuid(c, o->explain || o->json) < 0 ||
	    (o->kernel_assumed && sc_copier_assume_kernel(c, o->kernel) < 0) ||
	    (run->fs_assumed && run->assumed[0] && run->assumed[1] &&
	     sc_copier_assume_fs(c, run->assumed[0], run->assumed[1]) < 0))
		return -ENOMEM;
	return 0;
}

/* The tree's counters and copies in progress: in static storage, as the
 * signal handler may read them until the process ends, after
 * sc_walk_run() has returned too. */
static struct tree_live live;

/* Frees what the walk W and its run held (the report REP stays). */
static void walk_free(struct walk *w, struct sc_report *rep)
{
	struct run *run = w->run;

	sc_jobs_free(run->jobs);
	sc_report_copier(rep, NULL);
	tree_copying(run->live, 0, NULL);
	sc_copy_ctx_free(w->wk.cx);
	sc_copy_report_free(w->wk.crep);
	sc_copier_free(run->copier);
	sc_fs_facts_free(run->assumed[0]);
	sc_fs_facts_free(run->assumed[1]);
	free(w->e.backup);
	sc_links_free(&w->links);
	sc_seen_free(&w->seen);
	free(w->anc);
	free(w->levels);
	free_dnodes(w);
	free(w->deferred);	/* none left: set_deferred_attrs() */
	free(w->level_hash);
	free(w->src_names.p);
	free(w->dst_names.p);
}

int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n)
{
	struct run run = { .o = opts, .rep = rep, .live = &live };
	struct hooks hooks;
	struct walk w = {
		.run = &run,
		.wk = { .run = &run },
		.e = { .at_fd = AT_FDCWD, .dst_fd = AT_FDCWD, .ahead_fd = -1 },
		.op_dfd = AT_FDCWD,
	};
	/* the workers' copies, said by file.c on this thread */
	struct sc_jobs_ops jobs_ops = sc_workers_ops;
	int rc;

	jobs_ops.after = sc_file_after;
	jobs_ops.output = sc_report_buffered_out;
	jobs_ops.interleave = sc_report_interleave(opts->as_cp);
	w.wk.links = &w.links;
	w.wk.fd_short = sc_workers_fd_short;
	w.wk.fd_short_arg = &w;

	w.wk.msgs = (struct sc_msgs){ .streams = sc_record_streams,
				     .arg = &w.wk };
	if (opts->fs_assumed)
		assume_facts(&run, opts);
	run.umask = umask(0);
	umask(run.umask);
	run.euid = geteuid();
	run.privileged = run.euid == 0;
	if (make_copier(&run, opts, run.umask) < 0 ||
	    sc_jobs_new(opts, &jobs_ops, &w, &run.jobs) < 0 ||
	    sc_copy_ctx_new(run.copier, &w.wk.cx) < 0 ||
	    sc_copy_report_new(&w.wk.crep) < 0) {
		sc_report_fail(&w.wk.msgs, SC_FAIL_NO_MEMORY, 0, NULL, NULL);
		sc_copy_ctx_free(w.wk.cx);
		sc_jobs_free(run.jobs);
		sc_copier_free(run.copier);
		sc_fs_facts_free(run.assumed[0]);
		sc_fs_facts_free(run.assumed[1]);
		return EXIT_FAILURE;
	}
	sc_copy_ctx_set_fd_short(w.wk.cx, sc_workers_fd_short, &w);
	tree_copying(run.live, 0, w.wk.cx);
	sc_report_copier(rep, run.copier);
	w.max_open = sc_jobs_levels(run.jobs);
	run.seen = &w.seen;
	hooks = (struct hooks){ .msgs = &w.wk.msgs, .rep = rep, .walk = &w };
	run.ops = &hooks_ops;
	run.ops_arg = &hooks;
	/* Progress: never in scripts -- only when stderr is a terminal. */
	if (sc_report_stderr_tty() && !opts->quiet && !opts->explain &&
	    (!opts->as_cp || opts->progress)) {
		sc_report_progress_enable(rep, opts->progress);
		sc_copy_ctx_set_progress(w.wk.cx, on_progress, &w);
	}
	if (!opts->explain)
		/* the summary's condition (smartcp.c): a terminal */
		sc_signals_catch(run.live, !opts->quiet && !opts->as_cp &&
				 !opts->json && sc_report_stderr_tty());

	rc = sc_operands_run(&w, operands, n) < 0 ? EXIT_FAILURE :
							 EXIT_SUCCESS;
	if (sc_jobs_running(run.jobs)) {
		sc_jobs_finish(run.jobs);
		set_deferred_attrs(&w);
	}
	run.failures += (int)sc_jobs_failures(run.jobs);
	if (run.failures)
		rc = EXIT_FAILURE;
	sc_report_finish(rep, run.failures ? run.failures : rc);

	walk_free(&w, rep);
	hooks_free(&hooks);
	return rc;
}
