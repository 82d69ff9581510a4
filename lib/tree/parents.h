/* SC_TREE_ARGS_PARENTS (cp --parents): the directories of the operand's
 * path under the destination directory (parents.c). */
#ifndef SMARTCP_TREE_PARENTS_H
#define SMARTCP_TREE_PARENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "tree/walk_state.h"

struct parent;

/* The directories of the destination path, one a step (struct parent
 * when listed), from the destination directory's descriptor down. */
struct parents {
	struct parent *v;
	size_t n, cap;
	bool made;		/* one of them was made */
	int fd;			/* the deepest reached (O_PATH), or the
				 * destination directory's descriptor */
	bool own;		/* FD is not the caller's, nor listed */
};

/* parents_make(): a directory of the path is missing, explaining;
 * nothing is made, so nothing below it can be held: the operand's copy
 * is named by its path. */
enum { PARENTS_BY_PATH = 1 };

/* Makes the directories of SRC's path under PS->fd (DIR its path) that
 * are missing, as cp does: like their source directories, less what
 * must wait.  Existing ones are listed too when attributes are
 * preserved, and one of them is made (when none is, cp fixes nothing).
 * Each is reached from the one above it by descriptor; PS->fd is the
 * deepest.  0, PARENTS_BY_PATH, or -errno (told, but for memory). */
int parents_make(struct walk *w, const char *dir, const char *src,
		 struct parents *ps);

/* After the copy: the listed directories' times, owners and modes,
 * deepest first, through the descriptors held since they were made or
 * found.  0, or -errno (told). */
int parents_protect(struct walk *w, struct parents *ps);

/* What parents_make() held, let go. */
void parents_release(struct parents *ps);

#endif
