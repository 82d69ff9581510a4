/* The walk's directory levels (struct level): the stack of the source
 * directories being copied and their copies, outermost first; their
 * whole names in the walk's name buffers (struct walk_names); found by
 * device and inode; and the descriptor budget: only the deepest levels
 * hold descriptors, the others give theirs back and are opened again,
 * each step checked, when the walk returns to them.  The walk (walk.c)
 * and the directories (dirs.c, deferred.c) push, enter and leave them.
 * walk_fd_short() is here too: it takes descriptors back from the
 * levels when a copy runs out of them (open_dir_checked(), and through
 * the worker's fd_short hook entry_open_source() and the copier). */
#ifndef SMARTCP_TREE_LEVELS_H
#define SMARTCP_TREE_LEVELS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tree/walk_state.h"

struct dent;		/* dirs.c: an entry of a directory being copied */

/* A source directory being copied and its copy: one per level of the
 * walk, outermost first.  Only the deepest levels keep their descriptors
 * (w->max_open, from jobs_levels()), so a tree of any depth holds a
 * bounded number; a level whose descriptors were given back is opened
 * again when the walk returns to it, through ".." of the level it leaves,
 * or else from the nearest open level above, name by name: each step must
 * find the directory it saw there (st_dev, st_ino), or the walk refuses to
 * go on in it.  The walk is a loop over this stack, not a recursion, so
 * that no depth can overflow the C stack; a level keeps its entries still
 * to copy and what the directory's own copy needs at its end, but of its
 * name only where it ends in the walk's name buffers (struct walk_names). */
struct level {
	dev_t dev;		/* the source directory */
	ino_t ino;
	dev_t ddev;		/* its copy; DINO 0: none (--explain) */
	ino_t dino;
	int sfd, dfd;		/* open, or -1 */
	/* Where it is: in the level above (UP; DUP for its copy), or, the
	 * first level of an operand or of a file a worker handed back, in
	 * directories the walk does not keep (SPFD, DPFD: AT_FDCWD, or a
	 * job's). */
	bool up, dup;
	int spfd, dpfd;
	const char *sname, *dname;	/* its names there */
	bool follow;		/* SNAME may be a symlink to follow */
	bool created;		/* this run made the copy */
	int lost;		/* -errno: could not be opened again */
	bool lost_copy;		/* ... and it was the copy */
	/* the first level of an operand or of a handed-back file: its
	 * whole names (else in the name buffers, to SEND and DEND) */
	const char *root_src, *root_dst;
	size_t soff, send, doff, dend;
	/* its entries: NEXT is the next to copy */
	struct dent *ents;
	size_t n_ents, next;
	const struct sc_fs_facts *dir_facts, *src_facts;
	struct job *batch;	/* -j: the run of files being gathered */
	/* the directory as an entry: its stat, how its copy was made, and
	 * the state of the entry it is (copy_entry()) and of its parent's */
	struct stat sst;
	struct walk_made m;
	bool cmdline, failed;
	size_t node;		/* -j: its struct dnode + 1, 0: none yet */
	/* found by device and inode (levels_with()): the next level in its
	 * source's bucket and in its copy's (+ 1, 0: none) */
	size_t snext, dnext;
	bool hashed, unhashed;
	bool src_gone;		/* -j, at the end: no source at hand */
	/* its source was replaced before it could be listed (said): its
	 * copy gets no attributes of whatever is there now */
	bool src_replaced;
};

/* --- the levels' names (struct walk_names) -------------------------------- */

/* The whole name of level K's source directory (DST: of its copy): valid
 * until the buffer grows or the level's next entry is named. */
const char *level_name(struct walk *w, size_t k, bool dst);

/* The whole name of NAME in level K (DST: in its copy), written after the
 * level's own, over its last entry's: valid until the buffer grows or
 * the next entry is named.  NULL when out of memory. */
const char *entry_name(struct walk *w, size_t k, bool dst, const char *name);

/* Where the names of the new level L end: after its parent P's, where
 * its entry's name was written (entry_name()), or, a first level (P
 * NULL), its whole names SRC and DST copied to the end of the buffers.
 * 0 or -ENOMEM. */
int level_names(struct walk *w, struct level *l, const struct level *p,
		const char *src, const char *dst);

/* --- the levels by device and inode ------------------------------------- */

/* Which levels levels_with() looks at: bits of its flags word. */
enum {
	LEVEL_SOURCE = 0,		/* the source directories */
	LEVEL_COPY = 1 << 0,		/* their copies */
	LEVEL_MADE = 1 << 1,		/* LEVEL_COPY: those this run made */
};

/* Is ST one of the levels FLAGS says: a level's source directory
 * (LEVEL_SOURCE), a level's copy (LEVEL_COPY), one this run made
 * (LEVEL_COPY | LEVEL_MADE)? */
bool levels_with(const struct walk *w, const struct stat *st,
		 unsigned flags);

/* --- descriptors -------------------------------------------------------- */

/* Level K holds descriptors now: counted (levels_trim() gives them back). */
void level_counted(struct walk *w, size_t k);

/* Level L's descriptors go back (uncounted), when it holds any. */
void level_close(struct walk *w, struct level *l);

/* Gives back the descriptors of the shallowest open levels until at most
 * KEEP are open, never those of the deepest two: the walk is copying the
 * entries of the deepest, and returns to its parent next.  True when any
 * were given back. */
bool levels_trim(struct walk *w, unsigned keep);

/* Opens NAME in DIRFD as a directory with FLAGS (O_RDONLY to read it,
 * O_PATH for its copy), which must be the one DEV and INO say (INO 0:
 * any).  A descriptor, or -errno: -ESTALE when another directory or a
 * symlink is there now. */
int open_dir_checked(struct walk *w, int dirfd, const char *name, int flags,
		     dev_t dev, ino_t ino);

/* The descriptors of level K (its copy's only when it has one), opened
 * again if they were given back.  0, or -errno (-ESTALE: a directory
 * that was replaced since the walk entered it). */
int level_get(struct walk *w, size_t k);

/* Level K's parent, if its descriptors were given back, opened again
 * through ".." of level K while K's are at hand: checked, as always
 * (else it is reopened by name when needed, which costs a step for each
 * level given back above it). */
void parent_by_dotdot(struct walk *w, size_t k);

/* --- in and out of levels ----------------------------------------------- */

/* The walk goes into directory SRC -> DST, the entry of struct walk (SST,
 * FOLLOW as for list_dir(); CMDLINE: an operand): a new level, with what
 * its end needs (M: how its copy was made; DDEV, DINO: the copy, DINO 0
 * if none, --explain; DFD: the copy, open, or -1, the level's from here).
 * No descriptor of the source yet.  0 or -ENOMEM. */
int level_push(struct walk *w, const char *src, const char *dst,
	       const struct stat *sst, bool follow, bool cmdline,
	       const struct walk_made *m, dev_t ddev, ino_t dino, int dfd);

/* Leaves the deepest level: its descriptors go back, and its parent's
 * are opened again through ".." while they are still at hand, if they
 * had been given back (parent_by_dotdot()).  RET_DFD (when not NULL)
 * gets its copy's descriptor instead, or -1: the caller's to close. */
void level_pop(struct walk *w, int *ret_dfd);

/* -j, at the end: the descriptors of level K.  Its copy must be found
 * again, checked, or it is lost (-errno); its source only where it can
 * be (SRC_GONE: no more tries), for what walk_meta() reads from it:
 * the walk has said already what became of a source it lost. */
int replay_open(struct walk *w, size_t k);

/* The copy DST of a directory, replaced by something else while the walk
 * was in it or about to enter it, is left: said.  Returns -ESTALE. */
int say_replaced(struct walk *w, const char *dst);

/* A level, the directory SRC it copies or its copy DST (the one not
 * NULL), cannot be opened (again) (E = -errno; -ESTALE: it was
 * replaced): said.  Returns E. */
int say_level_lost(struct walk *w, const char *src, const char *dst, int e);

/* An open failed with ERR: when it is EMFILE or ENFILE, the walk gives
 * back the descriptors it can spare (directories it keeps open, fewer
 * -j workers at once) and says whether to try again.  False for any
 * other error, or when nothing is left to give back. */
bool walk_fd_short(struct walk *w, int err, unsigned *tries);

#endif
