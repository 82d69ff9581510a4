/* What to do with the destination: whether it may be written at all
 * (same file, -n, -u, -i), backups, links made in its place, and the
 * signal handler that has the library clean up a partly written file
 * when a signal ends the run.  Decisions are cp's; what is done to one
 * file's destination (the --atomic temporary, a symlink written
 * through, a partial file) is libsmartcp's. */
#ifndef SMARTCP_DEST_H
#define SMARTCP_DEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "options.h"
#include "paths.h"
#include "report.h"

/* Symlinks are not followed for this entry: -P, or -H below the command
 * line (cp's copy of a directory's entries takes -H as -P). */
bool sc_dest_deref_never(const struct sc_options *o, bool cmdline);

/* SRC and DST (both exist; SST and DST_ST as the walk stat'ed them; both
 * named relative to their directories' descriptors) may be one file.  Is the copy still safe -- a link replaced by a link, a
 * backup that keeps the data, a name removed first?  These are cp's
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
 * regular file put in place of a link that is not followed?  Never a
 * regular file that --atomic replaces with a rename. */
bool sc_dest_must_remove(const struct sc_options *o, const struct stat *sst,
			 const struct stat *dst_st, bool cmdline);

/* -i: asks whether DST (DST_ST its stat) may be overwritten, and reads
 * the answer from stdin.  PRIVILEGED: root, who may write anything. */
bool sc_dest_ask_overwrite(const struct sc_options *o, bool privileged,
			   const struct sc_at *dst, const struct stat *dst_st);

/* The name DST's backup gets: DST~ (--suffix), or DST.~N~ for numbered
 * backups (--backup=numbered, or =existing where numbered ones exist; the
 * directory is read for the highest N: DIRFD, the one DST's last name is
 * in, or by DST's path when DIRFD is AT_FDCWD).  NULL when out of
 * memory. */
char *sc_dest_backup_name(const struct sc_options *o, int dirfd,
			  const char *dst);

/* Would backing DST up (to DST~) move the source SRC (stat SST) aside?
 * DIRFD as for sc_dest_backup_name(). */
bool sc_dest_backup_is_source(const struct sc_options *o, const char *src,
			      const struct stat *sst, int dirfd,
			      const char *dst);

/* Removes DST, which is to be made again; "removed 'DST'" with VERBOSE.
 * A DST already gone is fine; SAY_IF_GONE says "removed" for it anyway,
 * as cp does for --remove-destination.  0, or -1 with the message said. */
int sc_dest_remove(struct sc_msgs *m, const struct sc_at *dst, bool verbose,
		   bool say_if_gone);

/* Makes DST a hard link to TARGET (FOLLOW: to what a symlink TARGET
 * names) or a symlink holding TARGET's name.  An existing DST is replaced
 * only with REPLACE, in one rename, so DST never goes missing.  Returns
 * 0, 1 when it replaced an existing DST, or -errno. */
int sc_dest_make_link(bool hard, const struct sc_at *target,
		      const struct sc_at *dst, bool follow, bool replace);

/* --- the signal handler ------------------------------------------------- */

/* Threads that may write destinations: the walk's (0) and -j workers
 * (1 ... SC_DEST_THREADS - 1). */
#define SC_DEST_THREADS 65

/* Thread THREAD copies files through X: a signal that ends the run
 * has the library remove what the copy in progress there made
 * (sc_copy_ctx_abandon()).  NULL: none any more.  Called by that thread
 * before its first copy, and before X is freed. */
void sc_dest_register(unsigned thread, struct sc_copy_ctx *x);

/* Installs the handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE that
 * removes partial files and named temporaries, then dies of the signal.
 * A signal the caller ignores stays ignored.  SAY (where the summary
 * line would be printed: a terminal): the handler says first how far
 * the run got, "smartcp: interrupted by SIGINT after N files (B bytes)
 * were copied", and whether it removed a file being written. */
void sc_dest_catch_signals(bool say);

/* A file was copied, BYTES of data: counted for the line a signal
 * leaves (sc_dest_catch_signals()).  Any thread. */
void sc_dest_done(uint64_t bytes);

#endif
