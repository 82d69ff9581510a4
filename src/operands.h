/* The operands as cp takes them: the target, -t, -T, --parents, operands
 * named twice or written over by a later one, and the directories an
 * operand must not be copied into.  The walk (walk.c) copies each. */
#ifndef SMARTCP_OPERANDS_H
#define SMARTCP_OPERANDS_H

#include <stdbool.h>
#include <sys/stat.h>

struct walk;
struct entry;

/* Copies the operands OPS (N of them) as cp takes them: the target
 * found as cp finds it (-t DIR, -T, or the last operand when it is a
 * directory or there are more than two), then each source onto it or
 * into it.  0, or 1 when anything failed. */
int sc_operands_run(struct walk *w, char **ops, int n);

/* Several operands into a directory: SRC (stat SST, going to DST) was
 * named before, and cp copies it once and warns (said).  Else it is
 * remembered.  Returns true when SRC is to be skipped. */
bool sc_operands_named_twice(struct walk *w, const char *src,
			     const char *dst, const struct stat *sst);

/* Several operands into a directory: never write through a symlink this
 * run made.  True (said) when E's destination is one. */
bool sc_operands_through_new_symlink(struct walk *w, const struct entry *e);

/* Several operands into a directory: what this one became, DST, is
 * remembered, so that a later operand does not overwrite it or write
 * through it. */
void remember_made(struct walk *w, const char *dst);

/* Is ST what an earlier operand became (remember_made())? */
bool sc_operands_just_created(const struct walk *w, const struct stat *st);

/* A directory that must not be copied: one the walk is already inside
 * (a link that leads back, -L or -H), or one that holds its destination
 * (DST_ST, when it is there; CMDLINE: SRC is an operand).  True when
 * refused, said. */
bool refuse_directory(struct walk *w, const char *src, const char *dst,
		      const struct stat *sst, const struct stat *dst_st,
		      bool cmdline);

/* Frees what W remembers of its operands. */
void sc_operands_free(struct walk *w);

#endif
