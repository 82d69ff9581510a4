/* smartcp --rules: the decision table, made by asking the plan. */
#ifndef SMARTCP_RULES_H
#define SMARTCP_RULES_H

#include <stdbool.h>
#include <stdio.h>

#include <smartcp/smartcp.h>

/* Prints to OUT, for each kind of filesystem pair and each span of
 * kernel versions over which sc_plan_make() answers the same, the roads
 * a regular file would take and why the others are skipped: text, or
 * with JSON one object per row (JSON Lines).  ONLY: just the rows for
 * that kernel, or NULL for all.  The rows are printed by the report's
 * sc_report_rules_*().  0, or -EIO when OUT failed. */
int sc_rules_print(FILE *out, bool json, const struct sc_kernel *only);

#endif
