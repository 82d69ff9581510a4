/* The program's side of the tree copy's callbacks (<smartcp/smartcp.h>): cp's
 * policy before and after each entry (hooks.c) and cp's words for what
 * the walk could not do (words.c). */
#ifndef SMARTCP_POLICY_HOOKS_H
#define SMARTCP_POLICY_HOOKS_H

#include <smartcp/smartcp.h>

struct sc_msgs;
struct sc_report;
struct walk;

/* The callbacks' argument. */
struct hooks {
	struct sc_msgs *msgs;	/* the walk thread's messages */
	struct sc_report *rep;	/* whose summary counts vanished entries */
	/* The walk, whose worker (the walk thread's copier, messages) and
	 * entry (its descriptors, its backup) cp's policy still works
	 * through, and the operands seen (several into a directory): the
	 * program's own state once the walk is the library's. */
	struct walk *walk;
	/* The messages of each entry the walk is in, outermost first: the
	 * walk thread's (WALK's worker's) are those of the entry at DEPTH
	 * (<smartcp/smartcp.h>); STACK[K] holds those of the one at depth K, which the
	 * deeper one interrupted.  hooks_free() frees it. */
	struct sc_msgs *stack;
	unsigned cap, depth;
};

/* Makes the messages of the entry at depth D the walk thread's: a
 * deeper one's begun afresh, those of the one it interrupts kept; at a
 * depth the walk came back to, those kept of it.  0, or -ENOMEM. */
int hooks_at_depth(struct hooks *h, unsigned d);

/* What H holds, let go. */
void hooks_free(struct hooks *h);

/* The callbacks, with a struct hooks as their argument. */
extern const struct sc_tree_ops hooks_ops;

/* BEFORE: cp's decisions about an entry and what is at its
 * destination. */
int hooks_before(void *arg, const struct sc_tree_entry *e,
		 struct sc_tree_decision *d);

/* AFTER: the entry's report said and recorded; what an operand became;
 * a failed entry's backup put back, and the failure counted. */
int hooks_after(void *arg, const struct sc_tree_entry *e,
		const struct sc_tree_result *r);

#endif
