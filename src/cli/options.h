/* argv -> struct sc_options.  Nothing else in smartcp reads argv. */
#ifndef SMARTCP_OPTIONS_H
#define SMARTCP_OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>

/* enum sc_reflink, enum sc_sparse, enum sc_backup, SC_ROADMASK_ALL */
#include <smartcp/smartcp.h>

/* How symbolic links met on the way are treated (-P, -L, -H). */
enum sc_deref {
	SC_DEREF_UNSET,
	SC_DEREF_NEVER,		/* -P: copy links as links */
	SC_DEREF_ALWAYS,	/* -L: follow every link */
	SC_DEREF_ARGS,		/* -H: follow links named on the command line */
};
enum sc_interactive { SC_OVERWRITE_ASK_UNSET, SC_OVERWRITE_ALWAYS,
		      SC_OVERWRITE_ASK, SC_OVERWRITE_NEVER };
/* --update[=WHEN] */
enum sc_update {
	SC_UPDATE_ALL, SC_UPDATE_OLDER, SC_UPDATE_NONE,
	SC_UPDATE_NONE_FAIL	/* none, and each file not replaced fails */
};

struct sc_options {
	bool recursive;
	enum sc_deref deref;
	bool preserve_mode, preserve_ownership, preserve_timestamps;
	bool preserve_links, preserve_xattr;
	bool require_preserve;	/* -p, -a, --preserve: failures count */
	bool require_preserve_context;	/* --preserve=context named: refused
					 * without SELinux, as cp does */
	bool require_preserve_xattr;	/* --preserve=xattr named: say every
					 * xattr failure, and fail */
	bool reduce_diagnostics;	/* -a: xattr failures stay quiet */
	bool explicit_no_preserve_mode;	/* --no-preserve=mode: new files get
					 * the default mode, not the source's */
	bool force, remove_destination, one_file_system, parents;
	bool no_target_directory, strip_trailing_slashes;
	bool hard_link, symbolic_link, attributes_only, copy_contents;
	enum sc_interactive interactive;
	enum sc_update update;
	enum sc_backup backup;
	const char *suffix;
	const char *target_directory;
	enum sc_reflink reflink;
	enum sc_sparse sparse;

	bool verbose, quiet, debug;
	bool explain, json, verify, progress;
	bool atomic, sync, if_changed;
	bool allow_changing_source;	/* a source that changes while it is
					 * copied is said (-v, --json), but
					 * does not fail the run */
	unsigned roads;		/* --road: bit (1 << enum sc_road) per road */
	bool roads_forced;	/* --road given: only these, in plan order */
	unsigned jobs;
	/* --explain about another machine: facts assumed, not observed */
	bool kernel_assumed;		/* --kernel */
	struct sc_kernel kernel;
	bool fs_assumed;		/* --assume-fs */
	bool assume_one_fs;		/* TYPE: both ends on one filesystem */
	char assume_type[2][64];	/* the source's and destination's */
	bool rules;			/* --rules: print the decision table */
	bool as_cp;	/* called as "cp": say nothing cp would not say */
	/* $POSIXLY_CORRECT was set: a dangling symlink destination is
	 * written through, as POSIX says (read once, not a file at a time) */
	bool posixly_correct;
};

/* What sc_options_parse() returns when the program must exit now. */
enum sc_options_stop {
	SC_OPTIONS_BAD = -1,	/* a usage error, said: exit 1 */
	SC_OPTIONS_DONE = -2,	/* --help or --version printed: exit 0 */
};

/* Parses argv.  Returns the index of the first operand (>= 0), or an
 * enum sc_options_stop. */
int sc_options_parse(int argc, char **argv, struct sc_options *ret);

#endif
