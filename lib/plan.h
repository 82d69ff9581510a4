/* The plan: a pure function from facts and options to an ordered list of
 * roads, each tried or skipped for a stated reason.  No I/O here, so the
 * unit tests can drive it with any kernel and any filesystem.  The public
 * side is struct sc_plan_input, sc_plan_new and the accessors in
 * <smartcp/smartcp.h>; the plan's layout is the engine's alone, so a
 * fifth road changes nothing a program was built with. */
#ifndef SMARTCP_PLAN_H
#define SMARTCP_PLAN_H

#include <stdbool.h>

#include <smartcp/smartcp.h>

/* The roads this library knows (enum sc_road), and all of them as bits. */
#define SC_ROAD__MAX 4
#define SC_ROADMASK_ALL ((1u << SC_ROAD__MAX) - 1)

struct sc_plan_step {
	bool use;		/* the road will be tried */
	const char *why;	/* why it is tried or left out: never NULL */
	bool by_option;		/* left out because an input said so */
};

/* What a row of the known-bad stacks (stacks.h) did to a plan. */
struct plan_advice {
	unsigned char row;	/* index of stacks_table[] */
	unsigned char action;	/* enum stack_action, as applied */
	unsigned char roads;	/* roads of the row the plan would take */
	unsigned char forced;	/* ... of those, forced by the caller */
	bool holes;		/* hole detection turned off */
	bool verify;		/* the copy to be verified */
	bool maybe;		/* a fact the row needs is unknown */
};

/* Rows that can hold for one plan at most (the rows of one type and
 * of any type, both ends). */
#define PLAN_ADVICE_MAX 8

struct sc_plan {
	struct sc_plan_step step[SC_ROAD__MAX];	/* indexed by enum sc_road */
	int n_use;		/* roads that will be tried */
	/* Known-bad stacks: verify the copy as SC_COPY_VERIFY would (a
	 * road suspected there), and do not look for holes with SEEK_DATA
	 * (it reported holes where data was); the rows that held. */
	bool verify;
	bool no_holes;
	int n_advice;
	struct plan_advice advice[PLAN_ADVICE_MAX];
};

/* Fills PLAN from IN (whose size is not looked at: the engine's own
 * callers fill all of it). */
void sc_plan_make(const struct sc_plan_input *in, struct sc_plan *plan);

/* The plan of a repair after a failed verification: read_write alone,
 * every other road skipped with that reason. */
void sc_plan_repair(struct sc_plan *ret);

/* Every road left out for WHY, as an input says (the copier's flags:
 * SC_COPY_NO_DATA). */
void sc_plan_none(struct sc_plan *ret, const char *why);

/* Could a plan for a source on SRC (facts; the destination's not known
 * yet) on KERNEL ask for the copy to be verified (a known-bad stack
 * suspected, or one that may hold)?  Then the destination is opened so
 * that it can be read back. */
bool sc_plan_may_verify(const struct sc_fs_facts *src, struct sc_kernel kernel);

/* PLAN asked for a verification (PLAN->verify) that cannot be made (a
 * destination that cannot be read back): the roads it was for are left
 * out instead, for their rows' reasons. */
void sc_plan_unverifiable(struct sc_plan *plan);

/* The reasons the engine itself gives a plan, for the program that words
 * them its own way (see src/output/report.c). */
extern const char sc_why_stream_verify[];	/* "verification of a stream" */
extern const char sc_why_live_verify[];	/* "verification of a source that
					 * may change" */
extern const char sc_why_no_data[];		/* "no data is copied" */

#endif
