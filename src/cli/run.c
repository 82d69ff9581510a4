/* The run: the copier and the report set up for the options, the
 * library's tree copy with cp's policy in its callbacks (policy/hooks.c),
 * the signal handler, the operands copied (operands.c, through the tree
 * copy), the directory attributes left for the end, and all of it taken
 * down again.  The top of the program below main(): it calls the others
 * and none of them calls it. */
#include "system.h"
#include "cli/run.h"
#include "cli/signals.h"
#include "policy/attrs.h"
#include "policy/cp.h"
#include "policy/hooks.h"
#include "policy/operands.h"
#include "policy/record.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The progress line of the file the tree copy copies on this thread. */
static int on_progress(void *arg, const char *file, uint64_t done,
		       off_t size, enum sc_road road)
{
	struct cp *cp = arg;

	sc_report_progress(cp->rep, file, done, size, road);
	return 0;
}

/* --assume-fs: facts of filesystems of the named types that nothing is
 * looked up for; one filesystem (one mount) for both ends, or two.  The
 * types were checked when the options were read. */
static void assume_facts(struct cp *cp, const struct sc_options *o)
{
	for (int i = 0; i < 2; i++) {
		int id = o->assume_one_fs ? 1 : i + 1;

		/* not failing: the options checked the types (but memory) */
		sc_fs_facts_assume(o->assume_type[i], id, id,
				   &cp->assumed[i]);
	}
	cp->fs_assumed = true;
}

/* The run's copier: the options as its flags and setters.  0, or
 * -ENOMEM (the setters fail for nothing else: the options were
 * checked). */
static int make_copier(struct cp *cp, const struct sc_options *o,
		       mode_t um)
{
	struct sc_copier *c;

	if (sc_copier_new(sc_attrs_copier_flags(o), &c) < 0)
		return -ENOMEM;
	cp->copier = c;
	if (sc_copier_set_roads(c, o->roads, o->roads_forced) < 0 ||
	    sc_copier_set_reflink(c, o->reflink) < 0 ||
	    sc_copier_set_sparse(c, o->sparse) < 0 ||
	    sc_copier_set_umask(c, um) < 0 ||
	    sc_copier_want_uuid(c, o->explain || o->json) < 0 ||
	    (o->kernel_assumed && sc_copier_assume_kernel(c, o->kernel) < 0) ||
	    (cp->fs_assumed && cp->assumed[0] && cp->assumed[1] &&
	     sc_copier_assume_fs(c, cp->assumed[0], cp->assumed[1]) < 0))
		return -ENOMEM;
	return 0;
}

/* The tree copy's flags for the options: how it walks, and what it
 * makes of what it meets. */
static unsigned tree_flags(const struct sc_options *o)
{
	return (o->deref == SC_DEREF_ALWAYS ? SC_TREE_FOLLOW : 0) |
	       (o->deref == SC_DEREF_ARGS ? SC_TREE_FOLLOW_TOP : 0) |
	       (o->one_file_system ? SC_TREE_ONE_FS : 0) |
	       (o->preserve_links ? SC_TREE_HARDLINKS : 0) |
	       (!o->recursive ? SC_TREE_FLAT : 0) |
	       (o->copy_contents ? SC_TREE_STREAMS : 0) |
	       (o->hard_link ? SC_TREE_LINK_FILES : 0) |
	       (o->symbolic_link ? SC_TREE_SYMLINK_FILES : 0) |
	       (o->explain ? SC_TREE_EXPLAIN : 0) |
	       /* -l -i: a "yes" replaces the file by the link */
	       (o->force || (o->hard_link &&
			     o->interactive == SC_OVERWRITE_ASK) ?
		SC_TREE_FORCE : 0) |
	       (o->posixly_correct ? SC_TREE_DANGLING : 0) |
	       (o->backup != SC_BACKUP_NONE || o->remove_destination ?
		SC_TREE_DST_NOFOLLOW : 0) |
	       (o->update != SC_UPDATE_ALL ? SC_TREE_SAME_SYMLINK : 0);
}

/* Threads only where order and prompts cannot suffer: --parents makes
 * its directories between operands, -i asks on this thread.  0: as many
 * as pay (-j's default). */
static unsigned tree_threads(const struct sc_options *o)
{
	if (o->parents || o->interactive == SC_OVERWRITE_ASK)
		return 1;
	return o->jobs;
}

/* Frees what CP holds (the report REP stays). */
static void cp_free(struct cp *cp, struct sc_report *rep)
{
	hooks_free(cp);
	sc_tree_free(cp->tree);
	sc_report_copier(rep, NULL);
	sc_copy_ctx_free(cp->cx);
	sc_copy_report_free(cp->crep);
	sc_copier_free(cp->copier);
	sc_fs_facts_free(cp->assumed[0]);
	sc_fs_facts_free(cp->assumed[1]);
	sc_seen_free(&cp->seen);
	free(cp->cur.backup);
}

int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n)
{
	struct cp cp = { .o = opts, .rep = rep };
	struct sc_tree_ops ops = {
		.size = sizeof(ops), .before = hooks_before,
		.after = hooks_after, .error = hooks_error,
		.output = hooks_output,
	};
	int rc;

	cp.cur.msgs = (struct sc_msgs){ .streams = sc_record_streams,
				       .arg = &cp };
	if (opts->fs_assumed)
		assume_facts(&cp, opts);
	cp.umask = umask(0);
	umask(cp.umask);
	cp.euid = geteuid();
	cp.privileged = cp.euid == 0;
	/* the workers' files and this thread's lines, in one order */
	if (sc_report_interleave(opts->as_cp))
		ops.flags |= SC_TREE_OPS_INTERLEAVE;
	if (make_copier(&cp, opts, cp.umask) < 0 ||
	    sc_tree_new(cp.copier, tree_flags(opts), &cp.tree) < 0 ||
	    sc_tree_set_threads(cp.tree, tree_threads(opts)) < 0 ||
	    sc_tree_set_ops(cp.tree, &ops, &cp) < 0 ||
	    sc_copy_ctx_new(cp.copier, &cp.cx) < 0 ||
	    sc_copy_report_new(&cp.crep) < 0) {
		sc_report_fail(&cp.cur.msgs, SC_FAIL_NO_MEMORY, 0, NULL, NULL);
		cp_free(&cp, rep);
		return EXIT_FAILURE;
	}
	sc_report_copier(rep, cp.copier);
	/* Progress: never in scripts -- only when stderr is a terminal. */
	if (sc_report_stderr_tty() && !opts->quiet && !opts->explain &&
	    (!opts->as_cp || opts->progress)) {
		sc_report_progress_enable(rep, opts->progress);
		sc_tree_set_progress(cp.tree, on_progress, &cp);
	}
	if (!opts->explain)
		/* the summary's condition (smartcp.c): a terminal */
		sc_signals_catch(cp.tree, !opts->quiet && !opts->as_cp &&
				 !opts->json && sc_report_stderr_tty());

	rc = sc_operands_run(&cp, operands, n) < 0 ? EXIT_FAILURE :
						       EXIT_SUCCESS;
	/* the workers' last files, and the attributes of the directories
	 * that waited for them */
	sc_tree_finish(cp.tree);
	if (cp.failures)
		rc = EXIT_FAILURE;
	sc_report_finish(rep, cp.failures ? cp.failures : rc);

	sc_signals_release();
	cp_free(&cp, rep);
	return rc;
}
