/* What the walk asks of its caller, in the shape libsmartcp's tree copy
 * will export (doc/tree-api.md): an entry as the caller sees it, the
 * stages at which one can fail, and the caller's callbacks.  Nothing
 * here names a type of the program's: these are the types that move into
 * <smartcp/smartcp.h> with the walk.  The walk calls BEFORE, AFTER and
 * ERROR today, and they carry what the calls up they replaced needed; the
 * plan's PROGRESS, and what else AFTER hands (the entry's report), join
 * as the other calls up of src/layers.txt become them. */
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
	enum sc_tree_kind kind;	/* SC_TREE_FILE where it is not known
				 * yet (SC_TREE_STAT, SC_TREE_VANISHED);
				 * AFTER: not set yet */
	bool top;		/* an operand, not found in a directory */
	/* whole names, for messages (past PATH_MAX too); SRC and DST are
	 * the operand's where the stage says so (SC_TREE_INTO_ITSELF) */
	const char *src, *dst;
	const struct stat *sst;	/* the source, NULL where not yet known */
	bool followed;		/* ... stat'ed through a symlink (-L, -H) */
	/* BEFORE: the destination as the copy meets it (through a symlink
	 * where a file's data is written there, else the name itself), or
	 * NULL: nothing there; DST_LOOP: a symlink loop that cannot be
	 * followed, DST_ST its own stat; DST_ERR: the errno it could not be
	 * looked at for, or 0 */
	const struct stat *dst_st;
	bool dst_loop;
	int dst_err;
	/* SC_TREE_HARDLINK: the copy this is another name of (or, -l, the
	 * source); a symlink made instead of a copy (-s): its target;
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
	SC_TREE_MAKE,		/* DST: the directory, symlink, special file or
				 * link cannot be made (a link: to EARLIER) */
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
	SC_TREE_RELATIVE_LINK,	/* DST: a symlink to a relative name asked for
				 * in a directory other than the current one,
				 * where the name would mean something else */
	SC_TREE_EARLIER_REPLACED, /* EARLIER: the copy a hard link was to be
				 * made to is not there as it was made */
	SC_TREE_MEMORY,		/* SRC, or DST where SRC is NULL: memory ran
				 * out for the walk's own state (ENOMEM) */
};

/* What became of an entry, told to AFTER. */
struct sc_tree_result {
	size_t size;		/* sizeof(struct sc_tree_result) */
	int err;		/* -errno: it failed; 0: done, or skipped */
	bool skipped;		/* BEFORE left it as it was */
};

/* What the caller answers.  (Quit joins with the library's tree copy,
 * which will honour it.) */
enum sc_tree_verdict {
	SC_TREE_CONTINUE,	/* go on: BEFORE: copy the entry */
	SC_TREE_SKIP,		/* BEFORE: leave it, which is no failure */
};

/* BEFORE's decision about an entry. */
struct sc_tree_decision {
	size_t size;		/* sizeof(struct sc_tree_decision) */
	enum sc_tree_verdict verdict;
	unsigned flags;		/* SC_TREE_DST_* */
};

enum {
	/* the caller moved the destination to its backup, or removed it:
	 * it is made anew */
	SC_TREE_DST_GONE = 1u << 0,
};

struct sc_tree_ops {
	size_t size;		/* sizeof(struct sc_tree_ops) */
	/* Entry E, not yet copied, its source and destination looked at
	 * (a file of a new directory, which -j copies, is not asked): D
	 * says whether to copy it.  0, or -errno: E failed (the caller
	 * said why).  The walk thread only, in walk order. */
	int (*before)(void *arg, const struct sc_tree_entry *e,
		      struct sc_tree_decision *d);
	/* Entry E failed at STAGE with errno ERR (0: none, the stage says
	 * it all).  The caller
	 * says it in its words.  The walk thread only, in walk order. */
	/* Entry E is done (a directory: left, everything in it done): R
	 * says how.  E has its names and TOP alone.  The walk thread only,
	 * in walk order. */
	void (*after)(void *arg, const struct sc_tree_entry *e,
		      const struct sc_tree_result *r);
	enum sc_tree_verdict (*error)(void *arg, const struct sc_tree_entry *e,
				      enum sc_tree_stage stage, int err);
};

#endif
