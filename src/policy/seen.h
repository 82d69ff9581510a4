/* Operands and what they became, when several go into a directory
 * (seen.c). */
#ifndef SMARTCP_SEEN_H
#define SMARTCP_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct cp;
struct decision;
struct seen;

/* What the operands were (SRC) and became (DST), N_SRC and N_DST of
 * them: the walk's, kept for its whole run. */
struct sc_seen {
	struct seen *src, *dst;
	size_t n_src, n_dst;
};

/* Several operands into a directory: SRC (stat SST, going to DST) was
 * named before, and cp copies it once and warns (said by CP; BACKUP: a
 * backup is made, and a file named twice is copied twice).  Else it is
 * remembered.  Returns true when SRC is to be skipped. */
bool sc_seen_named_twice(struct sc_seen *s, struct cp *cp, bool backup,
			 const char *src, const char *dst,
			 const struct stat *sst);

/* Several operands into a directory: E, a directory found in an
 * operand's tree, is one an earlier operand named, already copied.  cp
 * refuses to copy it again (its copy would be a second name of the
 * first, a hard link to a directory), but where links to directories
 * are followed everywhere (-L) or links are made (-l).  0, or -errno
 * (said by CP) when it is refused. */
int sc_seen_dir_again(const struct sc_seen *s, struct cp *cp,
		      const struct decision *e);

/* Several operands into a directory: never write through a symlink this
 * run made.  0, or -errno (said by CP) when E's destination is one. */
int sc_seen_through_new_symlink(const struct sc_seen *s, struct cp *cp,
				const struct decision *e);

/* Several operands into a directory: what this one became, DST, is
 * remembered, so that a later operand does not overwrite it or write
 * through it. */
void sc_seen_remember_made(struct sc_seen *s, const char *dst);

/* Is ST what an earlier operand became (sc_seen_remember_made())? */
bool sc_seen_just_created(const struct sc_seen *s, const struct stat *st);

/* Frees what S remembers. */
void sc_seen_free(struct sc_seen *s);

#endif
