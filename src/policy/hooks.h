/* The program's side of the tree copy's callbacks (walk/tree.h): cp's
 * policy before and after each entry (hooks.c) and cp's words for what
 * the walk could not do (words.c). */
#ifndef SMARTCP_POLICY_HOOKS_H
#define SMARTCP_POLICY_HOOKS_H

#include "walk/tree.h"

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
};

/* The callbacks, with a struct hooks as their argument. */
extern const struct sc_tree_ops hooks_ops;

/* BEFORE: cp's decisions about an entry and what is at its
 * destination. */
int hooks_before(void *arg, const struct sc_tree_entry *e,
		 struct sc_tree_decision *d);

/* AFTER: what an operand became; a failed entry's backup put back. */
void hooks_after(void *arg, const struct sc_tree_entry *e,
		 const struct sc_tree_result *r);

#endif
