/* smartcp --rules as people read it: a heading for each kind of
 * filesystem pair, then a line per span of kernel versions with the
 * roads in order, and under it every road skipped and why.  rules.c
 * makes the rows; the man page shows this output as it is. */
#include "system.h"
#include "output/report.h"
#include "output/report_int.h"

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

/* TEXT after what is on the line up to column COL, broken at spaces
 * into lines of at most 72 columns (the man page shows them as they
 * are), continued at column INDENT; then a newline. */
static void wrap(FILE *out, size_t col, size_t indent, const char *why)
{
	const size_t width = 72;

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

/* "    - ROAD: WHY", continued under WHY's start. */
static void print_wrapped(FILE *out, const char *road, const char *why)
{
	wrap(out, (size_t)fprintf(out, "    - %s:", road), 6, why);
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

/* ---- the known-bad stacks ------------------------------------------------ */

void sc_report_rules_stacks_intro(FILE *out, bool json)
{
	if (json)
		return;
	fputs(_("\nKnown-bad stacks: where a road, or hole detection, corrupted data, hung\n"
		"or failed in the field, and what smartcp does where the facts of a copy\n"
		"match one.  Under each, the plan for a copy within one filesystem of a\n"
		"stack where it holds (--explain --assume-fs=TYPE@VERSION shows any).\n"),
	      out);
}

/* "  LABEL    TEXT", TEXT wrapped under its start. */
static void field(FILE *out, const char *label, const char *text)
{
	int n = fprintf(out, "  %s", label);

	/* the text at column 11, where wrap() puts its continuations */
	if (n < 10)
		n += fprintf(out, "%*s", 10 - n, "");
	wrap(out, (size_t)n, 11, text);
}

/* Where row ST holds, in words: "zfs, either end; Linux any; module zfs
 * 2.2.0". */
static void where(char *buf, size_t size, const struct sc_stack_info *st)
{
	int n = snprintf(buf, size, _("%s, %s; Linux %s"),
			 strcmp(st->fs, "*") ? st->fs : _("any filesystem"),
			 !strcmp(st->side, "source") ? _("the source") :
			 !strcmp(st->side, "dest") ? _("the destination") :
			 _("either end"), st->kernel);

	if (st->module[0] && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, _("; module %s"),
			      st->module);
	if (st->param[0] && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "; %s", st->param);
	if (st->libc[0] && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "; %s", st->libc);
}

/* The plan for the example stack of a row: its roads, why each other one
 * is left out, and what the rows that hold did. */
static void stack_plan(FILE *out, const struct sc_stack_info *st,
		       const struct sc_plan *plan)
{
	struct sc_advisory a = { .size = sizeof(a) };
	const char *sep = " ";

	fprintf(out, _("  %s, Linux %s:"), st->example, st->example_kernel);
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (sc_plan_use(plan, (enum sc_road)r)) {
			fprintf(out, "%s%s", sep, sc_road_name((enum sc_road)r));
			sep = ", ";
		}
	fputc('\n', out);
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (!sc_plan_use(plan, (enum sc_road)r))
			print_wrapped(out, sc_road_name((enum sc_road)r),
				      _(sc_report_why(sc_plan_why(plan,
							(enum sc_road)r))));
	for (unsigned i = 0; sc_plan_advisory(plan, i, &a) == 0; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		if (m) {
			sc_report_advice(m, &a, true);
			fclose(m);
			print_wrapped(out, "advisory", text ? text : "");
		}
		free(text);
		a = (struct sc_advisory){ .size = sizeof(a) };
	}
}

void sc_report_rules_stack(FILE *out, bool json,
			   const struct sc_stack_info *st,
			   const struct sc_plan *plan)
{
	char buf[512], roads[96];

	if (json) {
		sc_report_json_stack(out, st, plan);
		return;
	}
	snprintf(buf, sizeof(buf), "%s (%s, %s)", st->title, st->cite,
		 st->date);
	wrap(out, (size_t)fprintf(out, "\n%s:", st->id) - 1, 2, buf);
	where(buf, sizeof(buf), st);
	field(out, _("where:"), buf);
	sc_report_roads(roads, sizeof(roads), st->roads);
	snprintf(buf, sizeof(buf), "%s%s%s", roads,
		 roads[0] && st->holes ? ", " : "",
		 st->holes ? _("hole detection (SEEK_DATA)") : "");
	field(out, _("roads:"), buf);
	snprintf(buf, sizeof(buf), "%s: %s", st->seen, st->what);
	field(out, _("seen:"), buf);
	field(out, "smartcp:", _(st->does));
	if (plan)
		stack_plan(out, st, plan);
	field(out, _("source:"), st->source);
}
