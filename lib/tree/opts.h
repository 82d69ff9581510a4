/* What the tree copy is asked to do (struct tree_opts): its flags and
 * what its copier keeps, for the walk's files. */
#ifndef SMARTCP_TREE_OPTS_H
#define SMARTCP_TREE_OPTS_H

#include <stdbool.h>
#include <sys/types.h>

/* What the walk is asked to do: sc_tree_new()'s flags (SC_TREE_*) and
 * what the copier keeps, each a name of its own. */
struct tree_opts {
	bool recursive;		/* not SC_TREE_FLAT */
	bool copy_contents;	/* SC_TREE_STREAMS */
	bool explain;		/* SC_TREE_EXPLAIN */
	bool hard_link;		/* SC_TREE_LINK_FILES */
	bool symbolic_link;	/* SC_TREE_SYMLINK_FILES */
	bool force;		/* SC_TREE_FORCE */
	bool posixly_correct;	/* SC_TREE_DANGLING */
	bool one_file_system;	/* SC_TREE_ONE_FS */
	bool preserve_links;	/* SC_TREE_HARDLINKS */
	bool deref_always;	/* SC_TREE_FOLLOW */
	bool deref_args;	/* SC_TREE_FOLLOW_TOP */
	bool dst_nofollow;	/* SC_TREE_DST_NOFOLLOW */
	bool same_symlink;	/* SC_TREE_SAME_SYMLINK */
	/* the copier's SC_COPY_KEEP_*, NO_DATA, ATOMIC; reflink never */
	bool preserve_mode, preserve_ownership, preserve_timestamps,
	     preserve_xattr, attributes_only, atomic, reflink_never;
	bool default_mode;	/* the copier's SC_COPY_DEFAULT_MODE */
	mode_t umask;		/* ... and its umask */
	unsigned jobs;		/* sc_tree_set_threads(), 0: as many as pay */
};

#endif
