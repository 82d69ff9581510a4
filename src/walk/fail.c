/* The walk's failures, handed to its caller's error callback (<smartcp/smartcp.h>):
 * the caller says them, the walk goes on with what the failure left; and
 * each entry's report, handed to the after callback. */
#include "system.h"
#include "walk/fail.h"
#include "walk/state.h"

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

int walk_after(const struct run *run, const struct sc_tree_entry *te,
	       const struct sc_tree_result *res)
{
	struct sc_tree_entry ent = *te;

	ent.size = sizeof(ent);
	ent.depth = run->depth;
	return run->ops && run->ops->after ?
	       run->ops->after(run->ops_arg, &ent, res) : 0;
}

int walk_fail(const struct run *run, enum sc_tree_stage stage, int err,
	      const struct sc_tree_entry *e)
{
	struct sc_tree_entry ent = *e;

	ent.size = sizeof(ent);
	ent.depth = run->depth;
	if (run->ops && run->ops->error)
		run->ops->error(run->ops_arg, &ent, stage, err);
	if (err)
		return -err;
	return (unsigned)stage < ARRAY_SIZE(stage_errno) && stage_errno[stage] ?
	       -stage_errno[stage] : -EIO;
}
