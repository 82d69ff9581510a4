/* The entry being copied (entry.c): its record and what has been said of
 * it, its attributes, the facts of its filesystems.  What the walk and
 * everything under it use, and which calls none of them. */
#ifndef SMARTCP_ENTRY_H
#define SMARTCP_ENTRY_H

#include <stdio.h>
#include <sys/stat.h>

#include "walk_state.h"

/* --json: an entry that failed before a record was made is said anyway
 * (CMDLINE: an operand). */
void report_failed(struct walk *w, const char *src, const char *dst,
		   bool cmdline);

/* Where W (ARG)'s -v lines and messages go now (struct sc_msgs). */
void walk_streams(void *arg, FILE **out, FILE **err);

/* --debug: a destination DST left as it was (-n, --update, a "no" to
 * -i). */
void skipped(struct walk *w, const char *dst);

/* The metadata of S's copy D through the copier (struct sc_made M, and
 * MADE: SC_MADE_* bits beyond M's).  0, or -1 when a failure counts. */
int set_meta(struct walk *w, int in, int out, const struct sc_at *s,
	     const struct sc_at *d, const struct stat *st,
	     const struct sc_made *m, unsigned made);

/* Records REC (its backup and -v state from W) for the report.  Marks
 * W's current entry as reported. */
void sc_walk_report(struct walk *w, struct sc_record *rec);

/* The facts of the filesystem that FD (fstat'ed as ST) is on, from the
 * run's cache; NULL when they cannot be learned.  Any thread. */
const struct sc_fs_facts *sc_walk_facts(struct walk *w, int fd,
					 const struct stat *st);

/* The facts of PATH's filesystem; for a path that may not exist yet
 * (--explain), its nearest existing ancestor's.  NULL when none. */
const struct sc_fs_facts *sc_walk_facts_for_path(struct walk *w,
						 const char *path);

/* The metadata --preserve asks for, through the run's copier, for SRC
 * and DST, the entry being copied (see struct walk): 0, or -1 with the
 * message said. */
int sc_walk_set_attrs(struct walk *w, int in, int out, const char *src,
		      const char *dst, const struct stat *st, struct sc_made *m);

/* Called as cp, -v names a file that is not a directory before copying
 * it (SRC -> DST), once. */
void announce(struct walk *w, const char *src, const char *dst);

#endif
