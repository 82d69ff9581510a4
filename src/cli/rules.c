/* The rules that choose the roads, as a table (smartcp --rules).
 *
 * Nothing here decides anything: each row is what sc_plan_new() answers
 * for the facts of one kind of filesystem pair on one kernel version,
 * and the kernel versions are grouped where the answer stays the same.
 * So the table, and the man page's copy of it (generated from this
 * output at build time), cannot drift from what a copy does.  This file
 * makes the rows; report_rules.c and report_json.c print them. */
#include "system.h"
#include "cli/rules.h"
#include "output/report.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* How the two ends of a row relate. */
enum relation { ONE_FS, TWO_MOUNTS, TWO_FS };

static const char *const relation_names[] = {
	[ONE_FS] = "one filesystem", [TWO_MOUNTS] = "two mounts",
	[TWO_FS] = "two filesystems",
};

/* The kinds of filesystem pairs, each by example types whose facts
 * stand for their class.  "pipefs" is a pipe at that end: the
 * filesystem a pipe's descriptor is on. */
static const struct scenario {
	const char *src, *dst;
	enum relation rel;
	const char *what;
} scenarios[] = {
	{ "btrfs", "btrfs", ONE_FS,
	  N_("one filesystem that shares extents") },
	{ "xfs", "xfs", ONE_FS,
	  N_("one filesystem that may share extents (reflink feature)") },
	{ "ext4", "ext4", ONE_FS,
	  N_("one filesystem that cannot share extents") },
	{ "btrfs", "btrfs", TWO_MOUNTS,
	  N_("two mounts of one filesystem (a bind mount)") },
	{ "ext4", "ext4", TWO_FS,
	  N_("two local filesystems of one type") },
	{ "tmpfs", "ext4", TWO_FS,
	  N_("two local filesystems of different types") },
	{ "nfs4", "nfs4", TWO_FS,
	  N_("two network filesystems of one type") },
	{ "fuse.sshfs", "fuse.sshfs", TWO_FS,
	  N_("two FUSE filesystems of one type") },
	{ "nfs4", "ext4", TWO_FS,
	  N_("a network filesystem to a local one") },
	{ "overlay", "overlay", ONE_FS,
	  N_("one overlay filesystem") },
	{ "proc", "ext4", TWO_FS,
	  N_("generated files (proc, sysfs, tracefs, debugfs...)") },
	{ "pipefs", "ext4", TWO_FS,
	  N_("a pipe to a file") },
	{ "ext4", "pipefs", TWO_FS,
	  N_("a file to a pipe") },
};

/* Every kernel version there is, oldest first, as sc_kernel_parse()
 * knows them; the last one stands for itself and all later ones.
 * Returns how many were written to V (at most MAX). */
static size_t kernel_versions(struct sc_kernel *v, size_t max)
{
	size_t n = 0;

	for (int major = 2; major <= 9; major++)
		for (int minor = 0; minor <= 40 && n < max; minor++) {
			char text[32];	/* "-2147483648.-2147483648" fits */

			snprintf(text, sizeof(text), "%d.%d", major, minor);
			if (sc_kernel_parse(text, &v[n]) == 0)
				n++;
		}
	return n;
}

struct row_facts {
	struct sc_fs_facts *fs[2];	/* NULL: the type is not known */
	struct sc_plan_input in;
};

static void row_facts(const struct scenario *sc, struct row_facts *rf)
{
	const char *type[2] = { sc->src, sc->dst };

	for (int i = 0; i < 2; i++) {
		int mnt = sc->rel == ONE_FS ? 1 : i + 1;
		int fs = sc->rel == TWO_FS ? i + 1 : 1;

		if (sc_fs_facts_assume(type[i], fs, mnt, &rf->fs[i]) < 0)
			rf->fs[i] = NULL;
	}
	rf->in = (struct sc_plan_input){
		.size = sizeof(struct sc_plan_input),
		.src_fs = rf->fs[0], .dst_fs = rf->fs[1],
		.src_mode = strcmp(sc->src, "pipefs") ? S_IFREG : S_IFIFO,
		.dst_mode = strcmp(sc->dst, "pipefs") ? S_IFREG : S_IFIFO,
		.src_size = 4096, .reflink = SC_REFLINK_AUTO,
		.sparse = SC_SPARSE_AUTO, .roads = 0,
	};
}

static void row_facts_free(struct row_facts *rf)
{
	sc_fs_facts_free(rf->fs[0]);
	sc_fs_facts_free(rf->fs[1]);
}

/* The same roads, and the same reasons for the roads left out (the
 * table shows no other). */
static bool same_plan(const struct sc_plan *a, const struct sc_plan *b)
{
	for (unsigned r = 0; r < sc_road_count(); r++) {
		const char *x = sc_plan_why(a, (enum sc_road)r);
		const char *y = sc_plan_why(b, (enum sc_road)r);
		bool use = sc_plan_use(a, (enum sc_road)r);

		if (use != sc_plan_use(b, (enum sc_road)r) ||
		    (!use && x != y && (!x || !y || strcmp(x, y))))
			return false;
	}
	return true;
}

static bool kernel_in(const struct sc_kernel *k, struct sc_kernel from,
		      struct sc_kernel to, bool open_end)
{
	return sc_kernel_at_least(*k, from.major, from.minor) &&
	       (open_end || !sc_kernel_at_least(*k, to.major, to.minor + 1));
}

/* The row of SC whose facts are RF, before its kernels are known. */
static struct sc_rules_row row_of(const struct scenario *sc,
				  const struct row_facts *rf)
{
	return (struct sc_rules_row){
		.what = sc->what, .type = { sc->src, sc->dst },
		.fs = { rf->fs[0], rf->fs[1] },
		.relation = relation_names[sc->rel],
		.pipe = { S_ISFIFO(rf->in.src_mode), S_ISFIFO(rf->in.dst_mode) },
	};
}

/* SC's rows: a row for each span of the kernel versions V (NV of them)
 * over which the plan stays the same, those with ONLY (NULL: all).
 * 0 or -errno. */
static int scenario_rows(FILE *out, bool json, const struct scenario *sc,
			 const struct sc_kernel *v, size_t nv,
			 const struct sc_kernel *only)
{
	struct row_facts rf;
	struct sc_rules_row row;
	struct sc_plan *plan = NULL, *next = NULL;
	size_t start = 0;
	bool first = true;
	int e;

	row_facts(sc, &rf);
	row = row_of(sc, &rf);
	sc_report_rules_case(out, json, &row);
	rf.in.kernel = v[0];
	e = sc_plan_new(&rf.in, &plan);
	for (size_t i = 1; e == 0 && i <= nv; i++) {
		row.from = v[start];
		row.to = v[i - 1];
		row.open_end = i == nv;
		row.first = first;
		row.plan = plan;
		if (i < nv) {
			rf.in.kernel = v[i];
			e = sc_plan_new(&rf.in, &next);
			if (e < 0)
				break;
			if (same_plan(plan, next)) {
				sc_plan_free(next);
				next = NULL;
				continue;
			}
		}
		if (!only || kernel_in(only, row.from, row.to, row.open_end))
			sc_report_rules_row(out, json, &row);
		first = false;
		start = i;
		if (i < nv) {
			sc_plan_free(plan);
			plan = next;
			next = NULL;
		}
	}
	sc_plan_free(plan);
	row_facts_free(&rf);
	return e < 0 ? e : 0;
}

/* The plan for a copy within one filesystem of ST's example stack (a
 * stack where the row holds) into *RET; NULL for a row without one.
 * 0 or -errno. */
static int example_plan(const struct sc_stack_info *st, struct sc_plan **ret)
{
	struct sc_plan_input in = {
		.size = sizeof(in), .src_mode = S_IFREG, .dst_mode = S_IFREG,
		.src_size = 4096, .reflink = SC_REFLINK_AUTO,
		.sparse = SC_SPARSE_AUTO,
	};
	struct sc_fs_facts *f;
	int e;

	*ret = NULL;
	if (!st->example || !st->example[0])
		return 0;
	e = sc_kernel_parse(st->example_kernel, &in.kernel);
	if (e < 0 || (e = sc_fs_facts_assume(st->example, 1, 1, &f)) < 0)
		return e;
	in.src_fs = in.dst_fs = f;
	e = sc_plan_new(&in, ret);
	sc_fs_facts_free(f);
	return e;
}

/* The rows of the known-bad stacks, each with the plan for a stack where
 * it holds: printed by the report's sc_report_rules_stack().  0 or
 * -errno. */
static int stack_rows(FILE *out, bool json)
{
	struct sc_stack_info st = { .size = sizeof(st) };

	sc_report_rules_stacks_intro(out, json);
	for (size_t i = 0; sc_stack_info(i, &st) == 0; i++) {
		struct sc_plan *plan;
		int e = example_plan(&st, &plan);

		if (e < 0)
			return e;
		sc_report_rules_stack(out, json, &st, plan);
		sc_plan_free(plan);
		st = (struct sc_stack_info){ .size = sizeof(st) };
	}
	return 0;
}

int sc_rules_print(FILE *out, bool json, const struct sc_kernel *only)
{
	struct sc_kernel v[256];
	size_t nv = kernel_versions(v, ARRAY_SIZE(v));
	int e;

	sc_report_rules_intro(out, json, only);
	for (size_t s = 0; s < ARRAY_SIZE(scenarios); s++) {
		e = scenario_rows(out, json, &scenarios[s], v, nv, only);
		if (e < 0)
			return e;
	}
	e = stack_rows(out, json);
	if (e < 0)
		return e;
	return ferror(out) ? -EIO : 0;
}
