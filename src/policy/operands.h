/* The operands as cp takes them: the target, -t, -T, --parents, and
 * each source onto the target or into it.  What each became is kept in
 * seen.c; the walk (walk.c) copies each. */
#ifndef SMARTCP_OPERANDS_H
#define SMARTCP_OPERANDS_H

#include <stdbool.h>
#include <sys/stat.h>

struct cp;

/* Copies the operands OPS (N of them) as cp takes them: the target
 * found as cp finds it (-t DIR, -T, or the last operand when it is a
 * directory or there are more than two), then each source onto it or
 * into it.  0, or -errno (the first failure, said) when anything
 * failed. */
int sc_operands_run(struct cp *cp, char **ops, int n);

#endif
