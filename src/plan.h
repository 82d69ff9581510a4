/* The plan: a pure function from facts and options to an ordered list of
 * roads, each tried or skipped for a stated reason.  No I/O here, so the
 * unit tests can drive it with any kernel and any filesystem. */
#ifndef SMARTCP_PLAN_H
#define SMARTCP_PLAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "fsinfo.h"
#include "options.h"

/* Plan order is enum order.  The names are an interface (-v, --explain,
 * --json, --road) and never translated. */
enum sc_road {
	SC_ROAD_CLONE,
	SC_ROAD_RANGE,		/* copy_file_range */
	SC_ROAD_SPLICE,
	SC_ROAD_RW,		/* read_write */
	SC_ROAD__MAX
};

const char *sc_road_name(enum sc_road road);
/* Returns the road for NAME, or -1. */
int sc_road_from_name(const char *name);

struct sc_plan_input {
	const struct sc_fs_facts *src_fs, *dst_fs;
	mode_t src_mode, dst_mode;	/* only the S_IFMT bits matter */
	off_t src_size;
	struct sc_kernel kernel;
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	unsigned roads;		/* allowed roads (bit per road) */
	bool roads_forced;	/* --road: the user's word beats the rules */
	unsigned learned;	/* roads that failed "not here" for this pair */
};

struct sc_plan_step {
	bool use;
	const char *why;	/* untranslated (N_): translate when shown */
	bool by_option;		/* left out because an option said so */
};

struct sc_plan {
	struct sc_plan_step step[SC_ROAD__MAX];
	int n_use;
};

/* Fills PLAN from IN.  Always yields at least one road unless the user
 * restricted the roads (--road, --reflink=always). */
void sc_plan_make(const struct sc_plan_input *in, struct sc_plan *plan);

/* Classes whose st_size is not the length of the content. */
bool sc_plan_size_untrusted(const struct sc_fs_facts *fs);


#endif
