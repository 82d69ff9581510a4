/* The program's side of the tree copy's callbacks (<smartcp/smartcp.h>):
 * cp's policy before and after each entry (hooks.c) and cp's words for
 * what the walk could not do (words.c), with a struct cp as their
 * argument. */
#ifndef SMARTCP_POLICY_HOOKS_H
#define SMARTCP_POLICY_HOOKS_H

#include <smartcp/smartcp.h>

struct cp;

/* Makes the entry at depth D (struct sc_tree_entry) CP's current one: a
 * deeper one's begun afresh, what is kept of the ones it interrupts
 * kept; at a depth the tree copy came back to, what was kept of it.
 * 0, or -ENOMEM. */
int hooks_at_depth(struct cp *cp, unsigned d);

/* What CP's callbacks hold, let go. */
void hooks_free(struct cp *cp);

/* BEFORE: cp's decisions about an entry and what is at its
 * destination. */
int hooks_before(void *arg, const struct sc_tree_entry *e,
		 struct sc_tree_decision *d);

/* AFTER: the entry's report said and recorded; what an operand became;
 * a failed entry's backup put back, and the failure counted. */
int hooks_after(void *arg, const struct sc_tree_entry *e,
		const struct sc_tree_result *r);

/* ERROR: the stage an entry failed at, in cp's words (words.c). */
enum sc_tree_verdict hooks_error(void *arg, const struct sc_tree_entry *e,
				 enum sc_tree_stage stage, int err);

/* OUTPUT: what the callbacks printed while workers' files ahead of it
 * were not yet said, printed in its place. */
void hooks_output(void *arg, const char *out, size_t out_len,
		  const char *err, size_t err_len,
		  const struct sc_tree_run *runs, size_t n_runs);

#endif
