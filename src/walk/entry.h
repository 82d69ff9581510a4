/* The entry being copied (entry.c): its record and what has been said of
 * it, its attributes, the facts of its filesystems.  What the walk and
 * everything under it use, and which calls none of them. */
#ifndef SMARTCP_ENTRY_H
#define SMARTCP_ENTRY_H

#include <stdio.h>
#include <sys/stat.h>

#include "policy/attrs.h"
#include "base/paths.h"
#include "walk/state.h"

/* The source entry being copied, SRC, and its destination DST, as the
 * kernel is to be asked about them (struct entry). */
static inline struct sc_at sc_entry_src(const struct entry *ent,
					const char *src)
{
	return (struct sc_at){ ent->at_fd, ent->at_name, src };
}

static inline struct sc_at sc_entry_dst(const struct entry *ent,
					const char *dst)
{
	return (struct sc_at){ ent->dst_fd, ent->dst_name, dst };
}

/* Where the walk thread's (worker ARG's) -v lines and messages go now
 * (struct sc_msgs): its place in -j's order. */
void sc_entry_streams(void *arg, FILE **out, FILE **err);

/* Records REC (its backup and -v state from ENT) for the report, in
 * WK's messages.  Marks ENT as reported. */
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

/* The facts of the filesystem that FD (fstat'ed as ST) is on, from the
 * run's cache; NULL when they cannot be learned.  Any thread. */
const struct sc_fs_facts *sc_entry_facts(struct worker *wk, int fd,
					 const struct stat *st);

/* The facts of PATH's filesystem; for a path that may not exist yet
 * (--explain), its nearest existing ancestor's.  NULL when none. */
const struct sc_fs_facts *sc_entry_facts_for_path(struct worker *wk,
						  const char *path);

/* The metadata of S's copy D through the copier (struct sc_made M, and
 * MADE: SC_MADE_* bits beyond M's).  0, or -errno when a failure
 * counts. */
int sc_entry_set_meta(struct worker *wk, int in, int out,
		      const struct sc_at *s, const struct sc_at *d,
		      const struct stat *st, const struct sc_made *m,
		      unsigned made);

/* The metadata --preserve asks for, through the run's copier, for SRC
 * and DST, the entry ENT: 0, or -errno (said). */
int sc_entry_set_attrs(struct worker *wk, const struct entry *ent, int in,
		       int out, const char *src, const char *dst,
		       const struct stat *st, struct sc_made *m);

/* Opens ENT's source with FLAGS: a descriptor, or -errno.  Out of
 * descriptors (EMFILE, ENFILE), it tries again as long as WK's fd_short
 * gives some back. */
int sc_entry_open_source(struct worker *wk, const struct entry *ent,
			 int flags);

#endif
