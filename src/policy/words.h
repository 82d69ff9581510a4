/* cp's words for what the walk could not do: the program's error
 * callback of the tree copy (walk/tree.h). */
#ifndef SMARTCP_POLICY_WORDS_H
#define SMARTCP_POLICY_WORDS_H

#include "walk/tree.h"

struct sc_msgs;
struct sc_report;

/* The callbacks' argument: where the walk thread's messages go, and the
 * report whose summary counts vanished entries. */
struct words {
	struct sc_msgs *msgs;
	struct sc_report *rep;
};

/* The callbacks, with a struct words as their argument. */
extern const struct sc_tree_ops words_ops;

#endif
