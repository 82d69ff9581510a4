/* What to do with the destination: whether it may be written at all
 * (same file, -n, -u, -i), backups, links made in its place.  Decisions
 * are cp's; what is done to one file's destination (the --atomic
 * temporary, a symlink written through, a partial file) is libsmartcp's,
 * and the signal handler that has it clean up a partly written file is
 * signals.c's. */
#ifndef SMARTCP_DEST_H
#define SMARTCP_DEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "cli/options.h"
#include "base/paths.h"
#include "output/report.h"

/* Symlinks are not followed for this entry: -P, or -H below the command
 * line (cp's copy of a directory's entries takes -H as -P). */
bool sc_dest_deref_never(const struct sc_options *o, bool cmdline);

/* SRC and DST (both exist; SST and DST_ST as the walk stat'ed them;
 * both named relative to their directories' descriptors) may be one
 * file.  Is the copy still safe -- a link replaced by a link, a backup
 * that keeps the data, a name removed first?  These are cp's
 * rules.  *RET_NOTHING_TO_DO: true when there is nothing to do (a hard
 * link to itself). */
bool sc_dest_same_file_ok(const struct sc_options *o, const struct sc_at *src,
			  const struct stat *sst, const struct sc_at *dst,
			  const struct stat *dst_st, bool cmdline,
			  bool *ret_nothing_to_do);

/* Is DST_ST (an existing destination, SST the source) new enough that
 * --update (or -n) leaves it alone? */
bool sc_dest_update_skips(const struct sc_options *o, const struct stat *sst,
			  const struct stat *dst_st);

/* Must an existing DST_ST (not a directory) be removed before SST is
 * copied there: --remove-destination, a file with other names that
 * --preserve=links must not write through, or something that is not a
 * regular file put in place of a link that is not followed?  (A regular
 * file that --atomic replaces is not removed: the rename of a file made
 * as new replaces it.) */
bool sc_dest_must_remove(const struct sc_options *o, const struct stat *sst,
			 const struct stat *dst_st, bool cmdline);

/* -i: asks whether DST (DST_ST its stat) may be overwritten, and reads
 * the answer from stdin.  PRIVILEGED: root, who may write anything. */
bool sc_dest_ask_overwrite(const struct sc_options *o, bool privileged,
			   const struct sc_at *dst, const struct stat *dst_st);

/* The name DST's backup gets: DST~ (--suffix), or DST.~N~ for numbered
 * backups (--backup=numbered, or =existing where numbered ones exist),
 * shortened as cp shortens a name too long for the directory: the
 * library's sc_backup_name() in DIRFD, the directory DST's last name is
 * in, or by DST's path when DIRFD is AT_FDCWD.  NULL when out of
 * memory. */
char *sc_dest_backup_name(const struct sc_options *o, int dirfd,
			  const char *dst);

/* Would backing DST up (to DST~) move the source SRC (stat SST) aside?
 * DIRFD as for sc_dest_backup_name(). */
bool sc_dest_backup_is_source(const struct sc_options *o, const char *src,
			      const struct stat *sst, int dirfd,
			      const char *dst);

/* Removes DST, which is to be made again; "removed 'DST'" with VERBOSE,
 * also for a DST already gone (which is fine), as cp does for
 * --remove-destination.  0, or -errno (said). */
int sc_dest_remove(struct sc_msgs *m, const struct sc_at *dst, bool verbose);

/* --- the entry the walk copies ----------------------------------------- */

struct cp;
struct decision;
struct sc_seen;

/* What cp decides about E's existing destination (the entry TE) before
 * it is copied: the same file, --update, -n, -i, a directory against a
 * file, what this run just made (SEEN: several operands into a
 * directory, else NULL), then a backup or a removal.  enum sc_settled,
 * or -errno (said).  --explain decides the same, and says the same, but
 * moves and removes nothing and asks nothing: -i is taken as answered
 * yes. */
int sc_dest_settle(struct cp *cp, const struct sc_tree_entry *te,
		   struct decision *e, const struct sc_seen *seen);

/* TE failed after its destination was moved to its backup (CP's current
 * entry's): the backup gets its name back, as cp does, over whatever the
 * failed copy left there (a partial file removed, or a complete one
 * whose attributes could not be kept: cp puts the old file back then
 * too).  Nothing to do without a backup.  A rename that fails is
 * said. */
void sc_dest_unbackup(struct cp *cp, const struct sc_tree_entry *te);

#endif
