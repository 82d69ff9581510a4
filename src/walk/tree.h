/* What the walk asks of its caller, in the shape libsmartcp's tree copy
 * will export (doc/tree-api.md): an entry as the caller sees it, the
 * stages at which one can fail, and the caller's callbacks.  Nothing
 * here names a type of the program's: these are the types that move into
 * <smartcp/smartcp.h> with the walk.  The walk calls ERROR today; the
 * other callbacks of the plan (before, after, progress) join as the
 * calls up of src/layers.txt become them. */
#ifndef SMARTCP_WALK_TREE_H
#define SMARTCP_WALK_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* What an entry is. */
enum sc_tree_kind {
	SC_TREE_DIR,		/* a directory, entered */
	SC_TREE_FILE,		/* a regular file (or the data of a FIFO or
				 * device, read as a file) */
	SC_TREE_SYMLINK,
	SC_TREE_SPECIAL,	/* a FIFO, device or socket, made anew */
	SC_TREE_HARDLINK,	/* another name of a file copied earlier */
};

/* One entry, valid during the callback. */
struct sc_tree_entry {
	size_t size;		/* sizeof(struct sc_tree_entry) */
	enum sc_tree_kind kind;
	bool top;		/* an operand, not found in a directory */
	/* whole names, for messages (past PATH_MAX too); SRC and DST are
	 * the operand's where the stage says so (SC_TREE_INTO_ITSELF) */
	const char *src, *dst;
	const struct stat *sst;	/* the source, NULL where not yet known */
	/* SC_TREE_HARDLINK: the copy this is another name of;
	 * SC_TREE_DIR_LINK: the copy of the directory met again */
	const char *earlier;
};

/* Where an entry failed.  Each names a side: the message is about the
 * source (SRC) or the copy (DST), as cp words it. */
enum sc_tree_stage {
	SC_TREE_STAT,		/* SRC: the source cannot be stat'ed */
	SC_TREE_VANISHED,	/* SRC: listed in its directory, gone before
				 * its turn (ENOENT) */
	SC_TREE_NOT_RECURSIVE,	/* SRC: a directory, in a copy that is not
				 * recursive */
	SC_TREE_NO_DIR,		/* DST: names a directory ("d/") that is not
				 * there */
	SC_TREE_READLINK,	/* SRC: a symlink's target cannot be read */
	SC_TREE_MAKE,		/* DST: the directory, symlink or special file
				 * cannot be made */
	SC_TREE_CHECK,		/* DST: what was made cannot be looked at */
	SC_TREE_REPLACED,	/* DST: what was made is not there as it was
				 * made (moved, swapped) */
	SC_TREE_SRC_REPLACED,	/* SRC: a directory being copied was replaced
				 * or moved */
	SC_TREE_ENTER_MODE,	/* DST: a new directory cannot be given the
				 * mode that lets the copy write into it */
	SC_TREE_READ_DIR,	/* SRC: a directory cannot be opened or read */
	SC_TREE_COPY_LOST,	/* DST: the copy of a directory cannot be
				 * opened again */
	SC_TREE_CYCLE,		/* SRC: a directory the walk is already in */
	SC_TREE_INTO_ITSELF,	/* SRC, DST: the operand's names; the copy
				 * would go into the directory copied */
	SC_TREE_DIR_LINK,	/* EARLIER, DST: the operand is met again,
				 * through a symlink, as its own copy */
	SC_TREE_MEMORY,		/* SRC, or DST where SRC is NULL: memory ran
				 * out for the walk's own state (ENOMEM) */
};

/* What the caller answers.  (Skip and quit join with the library's
 * tree copy, which will honour them.) */
enum sc_tree_verdict {
	SC_TREE_CONTINUE,	/* go on with the rest */
};

struct sc_tree_ops {
	size_t size;		/* sizeof(struct sc_tree_ops) */
	/* Entry E failed at STAGE with errno ERR (0: none, the stage says
	 * it all).  The caller
	 * says it in its words.  The walk thread only, in walk order. */
	enum sc_tree_verdict (*error)(void *arg, const struct sc_tree_entry *e,
				      enum sc_tree_stage stage, int err);
};

#endif
