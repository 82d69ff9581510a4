/* The plan: a pure function from facts and options to an ordered list of
 * roads, each tried or skipped for a stated reason.  No I/O here, so the
 * unit tests can drive it with any kernel and any filesystem.  Everything
 * about it is public: struct sc_plan_input, struct sc_plan, sc_plan_make,
 * sc_road_name in <smartcp/smartcp.h>. */
#ifndef SMARTCP_PLAN_H
#define SMARTCP_PLAN_H

#include <smartcp/smartcp.h>

#endif
