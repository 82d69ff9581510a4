/* The walk's failures, handed to its caller's error callback
 * (<smartcp/smartcp.h>): the caller says them, the walk goes on with what the
 * failure left; and each entry's report, handed to the after callback. */
#include "common.h"
#include "tree/fail.h"
#include "tree/state.h"
#include "tree/progress.h"

/* The errno a stage stands for when the kernel gave none. */
static const int stage_errno[] = {
	[SC_TREE_STAT] = EIO,
	[SC_TREE_VANISHED] = ENOENT,
	[SC_TREE_NOT_RECURSIVE] = EISDIR,
	[SC_TREE_NO_DIR] = ENOTDIR,
	[SC_TREE_READLINK] = EIO,
	[SC_TREE_MAKE] = EIO,
	[SC_TREE_CHECK] = EIO,
	[SC_TREE_REPLACED] = ESTALE,
	[SC_TREE_SRC_REPLACED] = ESTALE,
	[SC_TREE_ENTER_MODE] = EPERM,
	[SC_TREE_READ_DIR] = EIO,
	[SC_TREE_COPY_LOST] = EIO,
	[SC_TREE_CYCLE] = ELOOP,
	[SC_TREE_INTO_ITSELF] = EINVAL,
	[SC_TREE_DIR_LINK] = EMLINK,
	[SC_TREE_MEMORY] = ENOMEM,
};

/* Notes E, a failure (-errno; SC_TREE_FLAWED: -EIO), as the run's first
 * if it is.  Returns E. */
static int note(struct run *run, int e)
{
	if (!run->status && e)
		run->status = e < 0 ? e : -EIO;
	return e;
}

int walk_after(struct run *run, const struct sc_tree_entry *te,
	       const struct sc_tree_result *res)
{
	struct sc_tree_entry ent = *te;

	ent.size = sizeof(ent);
	ent.depth = run->depth;
	if (!ent.src_name) {
		/* the entry the walk is on: where the kernel finds it */
		ent.src_dirfd = run->cur->at_fd;
		ent.src_name = run->cur->at_name;
		ent.dst_dirfd = run->cur->dst_fd;
		ent.dst_name = run->cur->dst_name;
	}
	/* counted as a summary counts files copied */
	if (ent.kind == SC_TREE_FILE && res->rep && !res->rep_err &&
	    (sc_copy_report_flags(res->rep) & SC_REPORT_COPIED))
		tree_count_file(run->live, sc_copy_report_bytes(res->rep));
	/* the caller says what failed; without a word from it, what the
	 * walk or the copy found */
	if (run->ops.after)
		return note(run, run->ops.after(run->ops_arg, &ent, res));
	note(run, res->err < 0 ? res->err : res->rep_err);
	return 0;
}

int walk_fail(struct run *run, enum sc_tree_stage stage, int err,
	      const struct sc_tree_entry *e)
{
	struct sc_tree_entry ent = *e;

	ent.size = sizeof(ent);
	ent.depth = run->depth;
	if (!ent.src_name)	/* named by its whole names alone */
		ent.src_dirfd = ent.dst_dirfd = -1;
	if (run->ops.error &&
	    run->ops.error(run->ops_arg, &ent, stage, err) == SC_TREE_QUIT)
		run->cancelled = 1;
	if (err)
		return note(run, -err);
	return note(run, (unsigned)stage < ARRAY_SIZE(stage_errno) &&
			 stage_errno[stage] ? -stage_errno[stage] : -EIO);
}
