/* The program's record of each entry (record.c). */
#ifndef SMARTCP_POLICY_RECORD_H
#define SMARTCP_POLICY_RECORD_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/paths.h"
#include "walk/state.h"
#include <smartcp/smartcp.h>

struct sc_made;

/* Records REC (its backup and -v state from ENT) for the report, in
 * WK's messages. */
void sc_entry_report(struct worker *wk, struct entry *ent,
		     struct sc_record *rec);

/* --json: an entry that failed before a record was made is said anyway
 * (CMDLINE: an operand). */
void sc_entry_report_failed(struct worker *wk, struct entry *ent,
			    const char *src, const char *dst, bool cmdline);

/* Called as cp, -v names a file that is not a directory before copying
 * it (SRC -> DST), once. */
void sc_entry_announce(struct worker *wk, struct entry *ent, const char *src,
		       const char *dst);

/* Where the walk thread's (worker ARG's) -v lines and messages go now
 * (struct sc_msgs): its place in -j's order. */
void sc_record_streams(void *arg, FILE **out, FILE **err);

/* The words of the metadata set on TE's copy (R's report, which may be
 * none), in WK's messages, as cp says them.  Returns R's rep_err: 0, or
 * -errno when a failure counts. */
int sc_record_meta(struct worker *wk, const struct sc_tree_entry *te,
		   const struct sc_tree_result *r);

/* The metadata of S's copy D (ST: the source; M: how it was made, MADE:
 * SC_MADE_* bits beyond it), set through the walk's copier and said.
 * 0, or -errno when a failure counts. */
int sc_record_set_meta(struct worker *wk, int in, int out,
		       const struct sc_at *s, const struct sc_at *d,
		       const struct stat *st, const struct sc_made *m,
		       unsigned made);

#endif
