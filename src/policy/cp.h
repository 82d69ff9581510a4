/* The program's state for a run, as cp's policy sees it (struct cp): the
 * options and the report, the library's copier and tree copy, and what
 * the program keeps of each entry the tree copy is in (its messages,
 * its backup, its -v line) while the callbacks (hooks.c, words.c) are
 * about it.  Walk thread only: the tree copy calls back on the thread
 * that called it. */
#ifndef SMARTCP_POLICY_CP_H
#define SMARTCP_POLICY_CP_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cli/options.h"
#include "output/report.h"
#include "policy/seen.h"

/* What the program keeps of an entry while the tree copy is in it. */
struct cp_entry {
	struct sc_msgs msgs;	/* what was said about it */
	char *backup;		/* the backup made of its destination, or
				 * NULL */
	bool announced;		/* its cp-style -v line is out */
};

struct cp {
	const struct sc_options *o;
	struct sc_report *rep;
	struct sc_copier *copier;
	struct sc_tree *tree;
	/* The program's own copies through the copier: --if-changed's
	 * comparison before a backup (file.c), --parents' attributes
	 * (operands.c). */
	struct sc_copy_ctx *cx;
	struct sc_copy_report *crep;
	/* The entry the callbacks are about (at DEPTH: struct
	 * sc_tree_entry), and those it interrupted, STACK[K] the one at
	 * depth K (hooks_at_depth()). */
	struct cp_entry cur;
	struct cp_entry *stack;
	unsigned cap, depth;
	/* Failures: a message marks the entry it is about as failed (struct
	 * sc_msgs); each failed entry counts once, at its end. */
	int failures;
	mode_t umask;
	bool privileged;	/* root: may chown, and must say when it fails */
	uid_t euid;		/* who copies */
	/* --explain --assume-fs: the source's and destination's facts */
	bool fs_assumed;
	struct sc_fs_facts *assumed[2];	/* NULL: unknown */
	/* several operands into a directory: what they were and became */
	bool multi;
	struct sc_seen seen;
	/* The lowest descriptor the operands' directories may be held as:
	 * above every one an operand names (/dev/fd/N, /proc/self/fd/N),
	 * which means the caller's descriptor N, never one of ours. */
	int fd_floor;
};

/* One entry, as cp's decisions before its copy see it (hooks.c, dest.c,
 * seen.c). */
struct decision {
	const char *src, *dst;
	bool cmdline;		/* an operand, not found in a directory */
	bool follow;		/* symlinks to the source are followed */
	struct stat sst, dst_st;
	bool dst_exists;	/* DST_ST holds the destination's stat */
	bool loop;		/* ... of a symlink loop that -f removes */
	const char *earlier;	/* the copy of another name of the source,
				 * which the tree copy links it to (-a) */
};

/* What cp decided before a copy (dest.c), when it did not fail. */
enum sc_settled {
	SC_SETTLED_DONE = 0,	/* nothing more to do: left alone, skipped */
	SC_SETTLED_COPY,	/* go on and copy */
	SC_SETTLED_KEPT,	/* left alone, standing for the copy: other
				 * names of the source become links to it */
};

#endif
