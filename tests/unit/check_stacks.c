/* Known-bad stacks: every row of the table holds on a stack made for it
 * and not on the one next to it, what the plan does there (skip, no
 * hole detection, verify, name), rows that may hold, forced roads, and
 * module facts read from a fixture standing in for /sys/module. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "suites.h"
#include "fsinfo.h"
#include "plan.h"
#include "stacks.h"

#define ZFS_MAGIC 0x2fc12fc1

/* tests/data: $TESTDATA under "make check", else found from this file's
 * name. */
static const char *data_file(const char *name)
{
	static char path[PATH_MAX];
	const char *dir = getenv("TESTDATA");
	const char *slash = strrchr(__FILE__, '/');

	if (dir && *dir)
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	else if (slash)
		snprintf(path, sizeof(path), "%.*s/../data/%s",
			 (int)(slash - __FILE__), __FILE__, name);
	else
		snprintf(path, sizeof(path), "../data/%s", name);
	return path;
}

static struct sc_kernel kernel(const char *text)
{
	struct sc_kernel k;

	ck_assert_int_eq(sc_kernel_parse(text, &k), 0);
	return k;
}

/* The plan for a regular file within one filesystem of FS (facts). */
static void plan_on(const struct sc_fs_facts *src,
		    const struct sc_fs_facts *dst, struct sc_kernel k,
		    struct sc_plan *ret)
{
	struct sc_plan_input in = {
		.size = sizeof(in), .src_fs = src, .dst_fs = dst,
		.src_mode = S_IFREG, .dst_mode = S_IFREG, .src_size = 4096,
		.kernel = k, .reflink = SC_REFLINK_AUTO,
		.sparse = SC_SPARSE_AUTO, .roads = SC_ROADMASK_ALL,
	};

	sc_plan_make(&in, ret);
}

/* The plan for the assumed stack SPEC (both ends) on Linux K. */
static void plan_for(const char *spec, const char *k, struct sc_plan *ret)
{
	struct sc_fs_facts *f;

	ck_assert_msg(sc_fs_facts_assume(spec, 1, 1, &f) == 0, "%s", spec);
	plan_on(f, f, kernel(k), ret);
	sc_fs_facts_free(f);
}

/* The advice PLAN has for row ROW, or NULL. */
static const struct plan_advice *advice(const struct sc_plan *plan,
					const struct stack *row)
{
	for (int i = 0; i < plan->n_advice; i++)
		if (&stacks_table[plan->advice[i].row] == row)
			return &plan->advice[i];
	return NULL;
}

START_TEST(test_each_row_holds_on_its_example)
{
	size_t acting = 0;

	for (size_t i = 0; i < stacks_count; i++) {
		const struct stack *row = &stacks_table[i];
		const struct plan_advice *a;
		struct sc_plan p;

		if (row->action == STACK_NONE) {
			ck_assert_str_eq(row->example, "");
			continue;
		}
		acting++;
		plan_for(row->example, row->example_kernel, &p);
		a = advice(&p, row);
		ck_assert_msg(a, "row %s does not hold on %s, Linux %s",
			      row->id, row->example, row->example_kernel);
		ck_assert_int_eq(a->action, row->action);
		ck_assert_int_eq(a->roads & ~row->roads, 0);
		for (int r = 0; r < SC_ROAD__MAX; r++) {
			if (!(a->roads & (1u << r)))
				continue;
			/* what the row is about: left out for its reason,
			 * or taken */
			if (row->action == STACK_SKIP) {
				ck_assert(!p.step[r].use);
				ck_assert_ptr_eq(p.step[r].why, row->why);
			} else {
				ck_assert(p.step[r].use);
			}
		}
		/* (other rows may hold there too: zfs@2.2.0 is in the
		 * range of the hole-detection row) */
		ck_assert_int_eq(a->holes, row->holes);
		ck_assert(!row->holes || p.no_holes);
		ck_assert(row->action != STACK_VERIFY || p.verify);
		ck_assert_int_eq(a->verify, row->action == STACK_VERIFY);
		ck_assert(!a->maybe && !a->forced);
	}
	ck_assert_uint_ge(acting, 9);
}
END_TEST

/* A stack next to ROW's, where it does not hold: the module's last
 * version's next patch, or the kernel past its range.  False where only
 * the type makes the row. */
static bool next_to(const struct stack *row, char *spec, size_t size,
		    char *k, size_t ksize)
{
	const char *comma = strchr(row->example, ',');

	snprintf(k, ksize, "%s", row->example_kernel);
	if (row->module) {
		const struct stack_range *r =
			&row->module_range[row->n_module - 1];

		ck_assert(r->has_hi);
		snprintf(spec, size, "%.*s@%d.%d.%d%s",
			 (int)strcspn(row->example, "@"), row->example,
			 r->hi.v[0], r->hi.v[1], r->hi.v[2] + 1,
			 comma ? comma : "");
		return true;
	}
	if (!row->any_kernel) {
		snprintf(spec, size, "%s", row->example);
		if (row->kernel.has_hi)
			snprintf(k, ksize, "%d.%d", row->kernel.hi.v[0],
				 row->kernel.hi.v[1] + 1);
		else
			snprintf(k, ksize, "%d.%d", row->kernel.lo.v[0],
				 row->kernel.lo.v[1] - 1);
		return true;
	}
	return false;
}

START_TEST(test_each_row_clear_next_to_it)
{
	size_t checked = 0;

	for (size_t i = 0; i < stacks_count; i++) {
		const struct stack *row = &stacks_table[i];
		char spec[96], k[16];
		struct sc_plan p;

		if (row->action == STACK_NONE ||
		    !next_to(row, spec, sizeof(spec), k, sizeof(k)))
			continue;
		plan_for(spec, k, &p);
		ck_assert_msg(!advice(&p, row), "row %s holds on %s, Linux %s",
			      row->id, spec, k);
		checked++;
	}
	ck_assert_uint_ge(checked, 6);
}
END_TEST

/* The issue's words: zfs@2.2.0 on 6.7 skips clone and copy_file_range
 * naming zfs#15526; zfs@2.2.2 plans them. */
START_TEST(test_zfs_220_skips_222_plans)
{
	struct sc_plan p;

	plan_for("zfs@2.2.0", "6.7", &p);
	ck_assert(!p.step[SC_ROAD_CLONE].use && !p.step[SC_ROAD_RANGE].use);
	ck_assert_str_eq(p.step[SC_ROAD_CLONE].why,
			 "known to corrupt data on OpenZFS 2.2.0 with block "
			 "cloning (zfs#15526)");
	ck_assert_ptr_eq(p.step[SC_ROAD_RANGE].why,
			 p.step[SC_ROAD_CLONE].why);
	ck_assert(p.step[SC_ROAD_SPLICE].use && p.step[SC_ROAD_RW].use);
	ck_assert(p.no_holes && !p.verify);

	plan_for("zfs@2.2.2", "6.7", &p);
	ck_assert(p.step[SC_ROAD_CLONE].use && p.step[SC_ROAD_RANGE].use);
	ck_assert(!p.no_holes && !p.verify);
	ck_assert_int_eq(p.n_advice, 0);
	/* the parameter decides zfs#15933: off by default in 2.2.x */
	plan_for("zfs@2.2.3", "6.7", &p);
	ck_assert(p.step[SC_ROAD_CLONE].use);
	plan_for("zfs@2.2.3,zfs_bclone_enabled=1", "6.7", &p);
	ck_assert(!p.step[SC_ROAD_CLONE].use);
	ck_assert(strstr(p.step[SC_ROAD_CLONE].why, "(zfs#15933)"));
	plan_for("zfs@2.2.4,zfs_bclone_enabled=1", "6.7", &p);
	ck_assert(p.step[SC_ROAD_CLONE].use);
}
END_TEST

START_TEST(test_module_version_unknown_may_hold)
{
	struct sc_plan p;
	int verified = 0;

	/* corruption: taken and verified; a hang: skipped; holes: not
	 * looked for */
	plan_for("zfs", "6.8", &p);
	ck_assert(p.step[SC_ROAD_CLONE].use && p.verify && p.no_holes);
	ck_assert(!p.step[SC_ROAD_RANGE].use);
	ck_assert(strstr(p.step[SC_ROAD_RANGE].why, "(zfs#16436)"));
	for (int i = 0; i < p.n_advice; i++) {
		const struct stack *row = &stacks_table[p.advice[i].row];

		ck_assert(p.advice[i].maybe);
		if (p.advice[i].verify) {
			verified++;
			ck_assert_str_eq(row->seen, "corruption");
			/* skipping rows come first: none claims a road
			 * another left out */
			ck_assert_int_eq(p.advice[i].roads,
					 SC_ROAD_BIT(SC_ROAD_CLONE));
		}
	}
	ck_assert_int_eq(verified, 2);
	/* a plan for that source may verify: the destination is opened so
	 * that it can be read back */
	{
		struct sc_fs_facts *f, *g;

		ck_assert_int_eq(sc_fs_facts_assume("zfs", 1, 1, &f), 0);
		ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.2", 1, 1, &g), 0);
		ck_assert(sc_plan_may_verify(f, kernel("6.8")));
		ck_assert(!sc_plan_may_verify(g, kernel("6.8")));
		ck_assert(!sc_plan_may_verify(NULL, kernel("6.8")));
		sc_fs_facts_free(f);
		sc_fs_facts_free(g);
	}
}
END_TEST

START_TEST(test_forced_roads_are_taken_and_named)
{
	struct sc_fs_facts *f;
	struct sc_plan p;
	struct sc_plan_input in = {
		.size = sizeof(in), .src_mode = S_IFREG, .dst_mode = S_IFREG,
		.src_size = 1, .kernel = kernel("6.7"),
		.roads = SC_ROAD_BIT(SC_ROAD_CLONE) | SC_ROAD_BIT(SC_ROAD_RW),
		.roads_forced = true,
	};
	struct sc_advisory a = { .size = sizeof(a) };
	unsigned i;

	ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.0", 1, 1, &f), 0);
	in.src_fs = in.dst_fs = f;
	sc_plan_make(&in, &p);
	ck_assert(p.step[SC_ROAD_CLONE].use);
	for (i = 0; sc_plan_advisory(&p, i, &a) == 0; i++)
		if (!strcmp(a.id, "zfs-bclone-2.2.0"))
			break;
	ck_assert_str_eq(a.id, "zfs-bclone-2.2.0");
	ck_assert_uint_eq(a.forced, SC_ROAD_BIT(SC_ROAD_CLONE));
	ck_assert_str_eq(a.action, "skip");
	/* --reflink=always forces the clone alone */
	in.roads_forced = false;
	in.roads = SC_ROADMASK_ALL;
	in.reflink = SC_REFLINK_ALWAYS;
	sc_plan_make(&in, &p);
	ck_assert(p.step[SC_ROAD_CLONE].use && p.n_use == 1);
	sc_fs_facts_free(f);
}
END_TEST

START_TEST(test_unverifiable_leaves_the_roads_out)
{
	struct sc_plan p;

	plan_for("bcachefs", "6.17", &p);
	ck_assert(p.verify && p.step[SC_ROAD_CLONE].use);
	sc_plan_unverifiable(&p);
	ck_assert(!p.verify);
	ck_assert(!p.step[SC_ROAD_CLONE].use && !p.step[SC_ROAD_RANGE].use);
	ck_assert(strstr(p.step[SC_ROAD_CLONE].why, "(bcachefs#991)"));
	ck_assert(p.step[SC_ROAD_RW].use && p.n_use == 1);
}
END_TEST

START_TEST(test_other_stacks_untouched)
{
	static const char *const types[] = {
		"ext4", "btrfs", "xfs", "tmpfs", "nfs", "fuse.sshfs", "overlay",
	};
	struct sc_plan p;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		plan_for(types[i], "6.12", &p);
		ck_assert_int_eq(p.n_advice, 0);
		ck_assert(!p.verify && !p.no_holes);
	}
	/* rows that only tell (glibc's: smartcp is not exposed) never act */
	for (size_t i = 0; i < stacks_count; i++)
		if (stacks_table[i].action == STACK_NONE)
			ck_assert_uint_eq(stacks_for_type("ext4") & (1u << i),
					  0);
	/* a row about one end: hole detection is the source's */
	{
		struct sc_fs_facts *z, *e;

		ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.1", 1, 1, &z), 0);
		ck_assert_int_eq(sc_fs_facts_assume("ext4", 2, 2, &e), 0);
		plan_on(e, z, kernel("6.12"), &p);
		ck_assert(!p.no_holes);
		plan_on(z, e, kernel("6.12"), &p);
		ck_assert(p.no_holes);
		sc_fs_facts_free(z);
		sc_fs_facts_free(e);
	}
}
END_TEST

START_TEST(test_module_specs)
{
	struct stack_version v;
	struct sc_fs_facts *f;

	ck_assert_int_eq(stacks_parse_version("2.2.2-0ubuntu9\n", &v), 0);
	ck_assert(v.v[0] == 2 && v.v[1] == 2 && v.v[2] == 2);
	ck_assert_int_eq(stacks_parse_version("2.3", &v), 0);
	ck_assert_int_eq(stacks_parse_version("x2", &v), -EINVAL);
	ck_assert_int_eq(stacks_parse_version("2", &v), -EINVAL);
	ck_assert_int_eq(stacks_parse_version("2.2.0 x", &v), -EINVAL);

	ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.3,zfs_bclone_enabled=1",
					    1, 1, &f), 0);
	ck_assert_str_eq(sc_fs_facts_type(f), "zfs");
	ck_assert_str_eq(sc_fs_facts_module(f), "2.2.3,zfs_bclone_enabled=1");
	sc_fs_facts_free(f);
	ck_assert_int_eq(sc_fs_facts_assume("zfs@2.x", 1, 1, &f), -EINVAL);
	ck_assert_int_eq(sc_fs_facts_assume("zfs@", 1, 1, &f), -EINVAL);
	ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.3,zfs_bclone_enabled",
					    1, 1, &f), -EINVAL);
	ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.3,zfs_bclone_enabled=x",
					    1, 1, &f), -EINVAL);
	ck_assert_int_eq(sc_fs_facts_assume("zfs@2.2.3,nosuch=1", 1, 1, &f),
			 -ENOENT);
	ck_assert_int_eq(sc_fs_facts_assume("ext4@1.0,zfs_bclone_enabled=1",
					    1, 1, &f), -ENOENT);
	ck_assert_int_eq(sc_fs_facts_assume("zfs2@2.2.0", 1, 1, &f), -ENOENT);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(sc_fs_facts_assume("ecryptfs", 1, 1, &f), 0);
	ck_assert_str_eq(sc_fs_facts_module(f), "");
	sc_fs_facts_free(f);
	ck_assert_str_eq(sc_fs_facts_module(NULL), "");
}
END_TEST

START_TEST(test_stack_info_and_advisory_sizes)
{
	struct sc_stack_info st = { .size = sizeof(st) };
	struct sc_advisory a = { .size = sizeof(a) };
	struct sc_plan p;

	ck_assert_int_eq(sc_stack_info(0, &st), 0);
	ck_assert_str_eq(st.id, stacks_table[0].id);
	ck_assert_str_eq(st.source, stacks_table[0].source);
	ck_assert_int_eq(sc_stack_info(stacks_count, &st), -ERANGE);
	st.size = 8;
	ck_assert_int_eq(sc_stack_info(0, &st), -EINVAL);
	ck_assert_int_eq(sc_stack_info(0, NULL), -EINVAL);
	/* every row has its source and a date */
	for (size_t i = 0; i < stacks_count; i++) {
		ck_assert(!strncmp(stacks_table[i].source, "https://", 8));
		ck_assert_uint_eq(strlen(stacks_table[i].date), 10);
	}
	plan_for("ecryptfs", "6.12", &p);
	ck_assert_int_eq(sc_plan_advisory(&p, 0, &a), 0);
	ck_assert_str_eq(a.id, "ecryptfs-einval");
	ck_assert_uint_eq(a.roads, SC_ROAD_BIT(SC_ROAD_RANGE) |
				   SC_ROAD_BIT(SC_ROAD_SPLICE));
	ck_assert_int_eq(sc_plan_advisory(&p, 1, &a), -ERANGE);
	ck_assert_int_eq(sc_plan_advisory(NULL, 0, &a), -EINVAL);
}
END_TEST

/* Module facts from a directory standing in for /sys/module, for a zfs
 * mount of a mountinfo fixture: read for zfs, not for ext4. */
START_TEST(test_module_facts_from_fixture)
{
	struct sc_fsinfo *fsi;
	const struct sc_fs_facts *z, *e;
	struct sc_plan p;
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", data_file("sysmodule"));
	setenv("SMARTCP_SYS_MODULE", dir, 1);
	ck_assert_int_eq(sc_fsinfo_new(data_file("mountinfo-zfs"), &fsi), 0);
	z = sc_fsinfo_lookup_values(fsi, makedev(0, 50), 100, ZFS_MAGIC, 0);
	e = sc_fsinfo_lookup_values(fsi, makedev(8, 1), 20, 0xef53, 0);
	ck_assert_str_eq(sc_fs_facts_type(z), "zfs");
	ck_assert(z->module_known);
	/* the version as the module says it; zfs_bclone_enabled is not
	 * there (2.2.0 has none) */
	ck_assert_str_eq(sc_fs_facts_module(z), "2.2.0-1");
	ck_assert_uint_eq(z->params_known, 0);
	ck_assert_str_eq(sc_fs_facts_module(e), "");
	ck_assert_uint_eq(e->stacks, 0);
	plan_on(z, z, kernel("6.7"), &p);
	ck_assert(!p.step[SC_ROAD_CLONE].use && p.no_holes);
	sc_fsinfo_free(fsi);

	/* 2.2.3 with block cloning turned on: zfs#15933 */
	snprintf(dir, sizeof(dir), "%s", data_file("sysmodule-2.2.3"));
	setenv("SMARTCP_SYS_MODULE", dir, 1);
	ck_assert_int_eq(sc_fsinfo_new(data_file("mountinfo-zfs"), &fsi), 0);
	z = sc_fsinfo_lookup_values(fsi, makedev(0, 51), 101, ZFS_MAGIC, 0);
	ck_assert_str_eq(sc_fs_facts_module(z),
			 "2.2.3-1ubuntu1,zfs_bclone_enabled=1");
	plan_on(z, z, kernel("6.7"), &p);
	ck_assert(!p.step[SC_ROAD_CLONE].use && !p.no_holes);
	ck_assert(strstr(p.step[SC_ROAD_CLONE].why, "(zfs#15933)"));
	sc_fsinfo_free(fsi);

	/* no version file: rows may hold, the copy is verified */
	setenv("SMARTCP_SYS_MODULE", data_file("no-such-dir"), 1);
	ck_assert_int_eq(sc_fsinfo_new(data_file("mountinfo-zfs"), &fsi), 0);
	z = sc_fsinfo_lookup_values(fsi, makedev(0, 50), 100, ZFS_MAGIC, 0);
	ck_assert(!z->module_known);
	plan_on(z, z, kernel("6.7"), &p);
	ck_assert(p.step[SC_ROAD_CLONE].use && p.verify);
	sc_fsinfo_free(fsi);
	unsetenv("SMARTCP_SYS_MODULE");
}
END_TEST

Suite *stacks_suite(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("stacks");

	tcase_add_test(tc, test_each_row_holds_on_its_example);
	tcase_add_test(tc, test_each_row_clear_next_to_it);
	tcase_add_test(tc, test_zfs_220_skips_222_plans);
	tcase_add_test(tc, test_module_version_unknown_may_hold);
	tcase_add_test(tc, test_forced_roads_are_taken_and_named);
	tcase_add_test(tc, test_unverifiable_leaves_the_roads_out);
	tcase_add_test(tc, test_other_stacks_untouched);
	tcase_add_test(tc, test_module_specs);
	tcase_add_test(tc, test_stack_info_and_advisory_sizes);
	tcase_add_test(tc, test_module_facts_from_fixture);
	suite_add_tcase(s, tc);
	return s;
}
