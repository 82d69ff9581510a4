/* The program's record of each entry (record.c). */
#ifndef SMARTCP_POLICY_RECORD_H
#define SMARTCP_POLICY_RECORD_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/paths.h"
#include "output/report.h"

struct cp;

/* Records REC (its backup and -v state CP's current entry's) for the
 * report, in CP's messages. */
void sc_entry_report(struct cp *cp, struct sc_record *rec);

/* --json: an entry (TE) that failed before a record was made is said
 * anyway. */
void sc_entry_report_failed(struct cp *cp, const struct sc_tree_entry *te);

/* Called as cp, -v names a file that is not a directory before copying
 * it (SRC -> DST), once. */
void sc_entry_announce(struct cp *cp, const char *src, const char *dst);

/* Where the callbacks' -v lines and messages go now (struct sc_msgs, ARG
 * the struct cp): their place in the walk's order (sc_tree_streams()). */
void sc_record_streams(void *arg, FILE **out, FILE **err);

/* The words of the metadata set on TE's copy (R's report, which may be
 * none), in CP's messages, as cp says them.  Returns R's rep_err: 0, or
 * -errno when a failure counts. */
int sc_record_meta(struct cp *cp, const struct sc_tree_entry *te,
		   const struct sc_tree_result *r);

#endif
