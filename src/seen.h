/* Operands and what they became, when several go into a directory
 * (seen.c). */
#ifndef SMARTCP_SEEN_H
#define SMARTCP_SEEN_H

#include <stdbool.h>
#include <sys/stat.h>

struct walk;
struct decision;

/* Several operands into a directory: SRC (stat SST, going to DST) was
 * named before, and cp copies it once and warns (said).  Else it is
 * remembered.  Returns true when SRC is to be skipped. */
bool sc_seen_named_twice(struct walk *w, const char *src,
			     const char *dst, const struct stat *sst);

/* Several operands into a directory: never write through a symlink this
 * run made.  0, or -errno (said) when E's destination is one. */
int sc_seen_through_new_symlink(struct walk *w, const struct decision *e);

/* Several operands into a directory: what this one became, DST, is
 * remembered, so that a later operand does not overwrite it or write
 * through it. */
void sc_seen_remember_made(struct walk *w, const char *dst);

/* Is ST what an earlier operand became (sc_seen_remember_made())? */
bool sc_seen_just_created(const struct walk *w, const struct stat *st);

/* Frees what W remembers of its operands. */
void sc_seen_free(struct walk *w);

#endif
