/* What the files that print the report (report.c, report_json.c,
 * report_rules.c) share; the rest of the program includes report.h
 * alone. */
#ifndef SMARTCP_REPORT_INT_H
#define SMARTCP_REPORT_INT_H

#include <stdio.h>
#include <string.h>

#include "output/report.h"

/* An errno's name for machine output ("EXDEV"), from -errno or
 * SC_ERR_ZERO. */
static inline const char *err_name(int err)
{
	const char *n;

	if (err == SC_ERR_ZERO)
		return "0 before end";
	n = strerrorname_np(-err);
	return n ? n : "E?";
}

/* One attempt of a report's road chain. */
struct attempt {
	enum sc_road road;
	int err;		/* 0, -errno, or SC_ERR_ZERO */
	uint64_t bytes;
};

static inline struct attempt attempt_of(const struct sc_copy_report *res,
					unsigned i)
{
	struct attempt a = { SC_ROAD_RW, 0, 0 };

	sc_copy_report_attempt(res, i, &a.road, &a.err, &a.bytes);
	return a;
}

static inline const char *kind_name(enum sc_kind k)
{
	static const char *const names[] = {
		[SC_KIND_FILE] = "file", [SC_KIND_DIR] = "directory",
		[SC_KIND_SYMLINK] = "symlink", [SC_KIND_SPECIAL] = "special",
		[SC_KIND_HARDLINK] = "hardlink", [SC_KIND_UNKNOWN] = "unknown",
	};
	return names[k];
}

/* REC as one --json object (a line) on F.  KERNEL: the kernel --explain
 * assumed (NULL: the running one); FS_ASSUMED: both filesystems were
 * assumed. */
void sc_report_json_record(const struct sc_record *rec,
			   const struct sc_kernel *kernel, bool fs_assumed,
			   FILE *f);

/* ROW as one --rules --json object (a line) on OUT. */
void sc_report_json_rules_row(FILE *out, const struct sc_rules_row *row);

/* Known-bad stacks: what row A did to a plan, as --explain's
 * "advisory:" line and -v say it ("zfs-bclone-2.2.0: clone,
 * copy_file_range skipped"), translated when TRANSLATE; without the
 * row's reason. */
void sc_report_advice(FILE *f, const struct sc_advisory *a, bool translate);
/* Whether A changed what the copy does (a road skipped or forced, holes
 * not looked for, the copy verified), not only named a row. */
bool sc_report_advice_acts(const struct sc_advisory *a);
/* "clone, copy_file_range" for SC_ROAD_BIT()s ROADS, into BUF. */
const char *sc_report_roads(char *buf, size_t size, unsigned roads);

/* STACK, a row of the known-bad stacks, as one --rules --json object on
 * OUT, with the plan for its example stack (PLAN, on KERNEL; NULL for
 * none). */
void sc_report_json_stack(FILE *out, const struct sc_stack_info *stack,
			  const struct sc_plan *plan);

#endif
