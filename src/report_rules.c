/* smartcp --rules as people read it: a heading for each kind of
 * filesystem pair, then a line per span of kernel versions with the
 * roads in order, and under it every road skipped and why.  rules.c
 * makes the rows; the man page shows this output as it is. */
#include "system.h"
#include "report.h"
#include "report_int.h"

#include <string.h>

void sc_report_rules_intro(FILE *out, bool json, const struct sc_kernel *only)
{
	if (json)
		return;
	fputs(_("The roads smartcp tries for a regular file, in order, by the filesystems\n"
		"of its two ends and the kernel version, with --reflink=auto and\n"
		"--sparse=auto (--reflink, --sparse and --road change them); under each,\n"
		"after a dash, every road it skips and why.  Each row is the plan's own\n"
		"answer for filesystems of the types named.\n"), out);
	if (only)
		fprintf(out, _("Only Linux %d.%d is shown.\n"),
			only->major, only->minor);
}

void sc_report_rules_case(FILE *out, bool json, const struct sc_rules_row *row)
{
	if (json)
		return;
	fprintf(out, "\n%s -> %s: %s\n",
		row->pipe[0] ? "pipe" : row->type[0],
		row->pipe[1] ? "pipe" : row->type[1], _(row->what));
}

static void print_kernels(FILE *out, struct sc_kernel from,
			  const struct sc_kernel *to, bool first)
{
	if (first && !to)
		fprintf(out, _("  Linux %d.%d and later (every kernel):"),
			from.major, from.minor);
	else if (!to)
		fprintf(out, _("  Linux %d.%d and later:"), from.major,
			from.minor);
	else if (to->major == from.major && to->minor == from.minor)
		fprintf(out, _("  Linux %d.%d:"), from.major, from.minor);
	else
		fprintf(out, _("  Linux %d.%d to %d.%d:"), from.major,
			from.minor, to->major, to->minor);
}

/* "    - ROAD: WHY", broken at spaces into lines of at most 72 columns
 * (the man page shows them as they are), continued under WHY's start. */
static void print_wrapped(FILE *out, const char *road, const char *why)
{
	const size_t width = 72, indent = 6;
	size_t col = (size_t)fprintf(out, "    - %s:", road);

	while (*why) {
		size_t word = strcspn(why, " ");

		if (col + 1 + word > width && col > indent) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(why, 1, word, out);
		col += word;
		why += word;
		why += strspn(why, " ");
	}
	fputc('\n', out);
}

static void print_row(FILE *out, const struct sc_rules_row *row)
{
	const char *sep = " ";

	print_kernels(out, row->from, row->open_end ? NULL : &row->to,
		      row->first);
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (sc_plan_use(row->plan, (enum sc_road)r)) {
			fprintf(out, "%s%s", sep, sc_road_name((enum sc_road)r));
			sep = ", ";
		}
	fputc('\n', out);
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (!sc_plan_use(row->plan, (enum sc_road)r))
			print_wrapped(out, sc_road_name((enum sc_road)r),
				      _(sc_report_why(sc_plan_why(row->plan,
							(enum sc_road)r))));
}

void sc_report_rules_row(FILE *out, bool json, const struct sc_rules_row *row)
{
	if (json)
		sc_report_json_rules_row(out, row);
	else
		print_row(out, row);
}
