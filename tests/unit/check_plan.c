/* plan: facts + options + what the run learned -> ordered roads with
 * reasons.  Each test case is one rule of the plan (smartcp(1), "How a
 * road is chosen"), driven by a table of hand-made facts, so every
 * kernel and filesystem can be met here. */
#include <config.h>

#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "suites.h"
#include "fsinfo.h"
#include "plan.h"
#include "output/report.h"

#define R(road) (1u << (road))

/* Filesystems the tables use.  Identity decides "same filesystem"; mnt_id
 * tells mounts of one superblock apart (bind mounts, btrfs subvolumes). */
static const struct sc_fs_facts ext4_a = {
	.mnt_id = 22, .type = "ext4", .identity = "uuid:ext4-a",
	.cls = SC_FS_LOCAL, .can_clone = SC_NO,
};
static const struct sc_fs_facts ext4_b = {
	.mnt_id = 23, .type = "ext4", .identity = "uuid:ext4-b",
	.cls = SC_FS_LOCAL, .can_clone = SC_NO,
};
static const struct sc_fs_facts proc_fs = {
	.mnt_id = 30, .type = "proc", .identity = "dev:0:21",
	.cls = SC_FS_GENERATED, .can_clone = SC_NO,
};
static const struct sc_fs_facts sysfs_fs = {
	.mnt_id = 31, .type = "sysfs", .identity = "dev:0:22",
	.cls = SC_FS_GENERATED, .can_clone = SC_NO,
};
static const struct sc_fs_facts btrfs_a = {
	.mnt_id = 40, .type = "btrfs", .identity = "uuid:btrfs",
	.cls = SC_FS_LOCAL, .can_clone = SC_YES,
};
/* Another subvolume of the same btrfs: same superblock, other mount. */
static const struct sc_fs_facts btrfs_b = {
	.mnt_id = 41, .type = "btrfs", .identity = "uuid:btrfs",
	.cls = SC_FS_LOCAL, .can_clone = SC_YES,
};
static const struct sc_fs_facts xfs_fs = {
	.mnt_id = 50, .type = "xfs", .identity = "uuid:xfs",
	.cls = SC_FS_LOCAL, .can_clone = SC_MAYBE,
};
static const struct sc_fs_facts nfs_a = {
	.mnt_id = 60, .type = "nfs4", .identity = "dev:0:60",
	.cls = SC_FS_NETWORK, .can_clone = SC_MAYBE,
};
static const struct sc_fs_facts nfs_b = {
	.mnt_id = 61, .type = "nfs4", .identity = "dev:0:61",
	.cls = SC_FS_NETWORK, .can_clone = SC_MAYBE,
};
static const struct sc_fs_facts cifs_a = {
	.mnt_id = 62, .type = "cifs", .identity = "dev:0:62",
	.cls = SC_FS_NETWORK, .can_clone = SC_MAYBE,
};
static const struct sc_fs_facts cifs_b = {
	.mnt_id = 63, .type = "cifs", .identity = "dev:0:63",
	.cls = SC_FS_NETWORK, .can_clone = SC_MAYBE,
};
static const struct sc_fs_facts fuse_a = {
	.mnt_id = 70, .type = "fuse.sshfs", .identity = "dev:0:70",
	.cls = SC_FS_FUSE, .can_clone = SC_NO,
};
static const struct sc_fs_facts fuse_b = {
	.mnt_id = 71, .type = "fuse.sshfs", .identity = "dev:0:71",
	.cls = SC_FS_FUSE, .can_clone = SC_NO,
};
static const struct sc_fs_facts devtmpfs_fs = {
	.mnt_id = 80, .type = "devtmpfs", .identity = "dev:0:5",
	.cls = SC_FS_MEMORY, .can_clone = SC_NO,
};

#define K44  { 4, 4 }
#define K52  { 5, 2 }
#define K54  { 5, 4 }
#define K510 { 5, 10 }
#define K518 { 5, 18 }
#define K519 { 5, 19 }
#define K61  { 6, 1 }

/* want[road]: USE when the road must be planned, otherwise a word the
 * skip reason must contain. */
#define USE "+"

struct row {
	const char *name;
	const struct sc_fs_facts *src, *dst;
	struct sc_kernel kernel;
	mode_t src_mode, dst_mode;	/* 0: S_IFREG */
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	unsigned roads;			/* 0: all roads */
	bool forced;
	unsigned learned;
	const char *want[SC_ROAD__MAX];	/* clone, range, splice, read_write */
};

static void check_row(const struct row *t)
{
	struct sc_plan_input in = {
		.src_fs = t->src, .dst_fs = t->dst,
		.src_mode = t->src_mode ? t->src_mode : S_IFREG,
		.dst_mode = t->dst_mode ? t->dst_mode : S_IFREG,
		.src_size = 4096,
		.kernel = t->kernel,
		.reflink = t->reflink,
		.sparse = t->sparse,
		.roads = t->roads ? t->roads : SC_ROADMASK_ALL,
		.roads_forced = t->forced,
		.learned = t->learned,
	};
	struct sc_plan plan;
	int n_use = 0;

	memset(&plan, 0xa5, sizeof(plan));	/* no stale "use" may pass */
	sc_plan_make(&in, &plan);
	for (int r = 0; r < SC_ROAD__MAX; r++) {
		const struct sc_plan_step *s = &plan.step[r];
		const char *road = sc_road_name((enum sc_road)r);
		const char *want = t->want[r];

		ck_assert_msg(want, "%s: table row lacks %s", t->name, road);
		if (!strcmp(want, USE)) {
			ck_assert_msg(s->use, "%s: %s should be planned, "
				      "skipped because \"%s\"", t->name, road,
				      s->why ? s->why : "(null)");
			/* a used road has its reason too (issue 28) */
			ck_assert_msg(s->why, "%s: %s used without a reason",
				      t->name, road);
			if (t->forced)
				ck_assert_msg(s->why && strstr(s->why, "chosen"),
					      "%s: %s forced, why \"%s\"",
					      t->name, road,
					      s->why ? s->why : "(null)");
			n_use++;
			continue;
		}
		ck_assert_msg(!s->use, "%s: %s should be skipped (%s)",
			      t->name, road, want);
		ck_assert_msg(s->why, "%s: %s skipped without a reason",
			      t->name, road);
		/* the library's words, as smartcp says them */
		ck_assert_msg(strstr(sc_report_why(s->why), want),
			      "%s: %s skipped because \"%s\", expected \"%s\"",
			      t->name, road, s->why, want);
	}
	ck_assert_msg(plan.n_use == n_use, "%s: n_use %d, expected %d",
		      t->name, plan.n_use, n_use);
}

/* copy_file_range(2) appeared in Linux 4.5: ENOSYS before. */
static const struct row kernel_rows[] = {
	{ "4.4 same ext4", &ext4_a, &ext4_a, K44,
	  .want = { "cannot share", "4.5", USE, USE } },
	{ "4.4 ext4 -> ext4", &ext4_a, &ext4_b, K44,
	  .want = { "different", "4.5", USE, USE } },
	{ "4.4 same btrfs", &btrfs_a, &btrfs_a, K44,
	  .want = { USE, "4.5", USE, USE } },
};

/* Generated content is read until read() returns 0, on every kernel. */
static const struct row generated_rows[] = {
	{ "proc -> ext4 6.1", &proc_fs, &ext4_a, K61,
	  .want = { "generated", "st_size", "generated", USE } },
	/* 5.3 to 5.18 say what copy_file_range would do there */
	{ "sysfs -> ext4 5.4", &sysfs_fs, &ext4_a, K54,
	  .want = { "generated", "copy 0 bytes of it and report success",
		    "generated", USE } },
	{ "proc -> ext4 5.18", &proc_fs, &ext4_a, K518,
	  .want = { "generated", "copy 0 bytes", "generated", USE } },
	{ "proc -> ext4 5.19", &proc_fs, &ext4_a, K519,
	  .want = { "generated", "st_size", "generated", USE } },
	{ "sysfs -> ext4 4.4", &sysfs_fs, &ext4_a, K44,
	  .want = { "generated", "4.5", "generated", USE } },
	{ "proc -> proc 6.1", &proc_fs, &proc_fs, K61,
	  .want = { "generated", "generated", "generated", USE } },
	{ "unknown source fs", NULL, &ext4_a, K61,
	  .want = { "generated", "generated", "generated", USE } },
};

/* Across filesystems: 5.3-5.18 splice inside copy_file_range, EXDEV
 * before 5.3, and since 5.19 only same-type server-side copies. */
static const struct row cross_rows[] = {
	{ "5.2 ext4 -> ext4", &ext4_a, &ext4_b, K52,
	  .want = { "different", "5.3", USE, USE } },
	{ "5.4 ext4 -> ext4", &ext4_a, &ext4_b, K54,
	  .want = { "different", USE, "copy_file_range", USE } },
	{ "5.18 btrfs -> xfs", &btrfs_a, &xfs_fs, K518,
	  .want = { "different", USE, "copy_file_range", USE } },
	{ "5.4 nfs -> ext4", &nfs_a, &ext4_a, K54,
	  .want = { "different", USE, "copy_file_range", USE } },
	{ "5.19 ext4 -> ext4", &ext4_a, &ext4_b, K519,
	  .want = { "different", "5.19", USE, USE } },
	{ "6.1 btrfs -> xfs", &btrfs_a, &xfs_fs, K61,
	  .want = { "different", "5.19", USE, USE } },
	{ "6.1 nfs -> nfs", &nfs_a, &nfs_b, K61,
	  .want = { "different", USE, USE, USE } },
	{ "6.1 cifs -> cifs", &cifs_a, &cifs_b, K61,
	  .want = { "different", USE, USE, USE } },
	{ "6.1 fuse -> fuse", &fuse_a, &fuse_b, K61,
	  .want = { "different", USE, USE, USE } },
	{ "6.1 nfs -> ext4", &nfs_a, &ext4_a, K61,
	  .want = { "different", "5.19", USE, USE } },
	{ "6.1 nfs -> cifs", &nfs_a, &cifs_a, K61,
	  .want = { "different", "5.19", USE, USE } },
	{ "6.1 ext4 -> unknown dest", &ext4_a, NULL, K61,
	  .want = { "different", "5.19", USE, USE } },
};

/* One filesystem: clone where extents can be shared, else the kernel's
 * copy_file_range; splice has nothing to add there. */
static const struct row same_rows[] = {
	{ "6.1 same ext4", &ext4_a, &ext4_a, K61,
	  .want = { "cannot share", USE, "one filesystem", USE } },
	{ "5.4 same ext4", &ext4_a, &ext4_a, K54,
	  .want = { "cannot share", USE, "one filesystem", USE } },
	{ "6.1 same btrfs", &btrfs_a, &btrfs_a, K61,
	  .want = { USE, USE, "one filesystem", USE } },
	{ "6.1 xfs maybe clone", &xfs_fs, &xfs_fs, K61,
	  .want = { USE, USE, "one filesystem", USE } },
	{ "6.1 btrfs subvolumes", &btrfs_a, &btrfs_b, K61,
	  .want = { USE, USE, "one filesystem", USE } },
	{ "5.18 btrfs subvolumes", &btrfs_a, &btrfs_b, K518,
	  .want = { USE, USE, "one filesystem", USE } },
	{ "5.10 btrfs subvolumes", &btrfs_a, &btrfs_b, K510,
	  .want = { "5.18", USE, "one filesystem", USE } },
	{ "5.10 same btrfs mount", &btrfs_a, &btrfs_a, K510,
	  .want = { USE, USE, "one filesystem", USE } },
};

/* --reflink=never|always, as in GNU cp.  never keeps copy_file_range out
 * too (it may clone on the same filesystem, as cp knows); splice then
 * serves the same filesystem. */
static const struct row reflink_rows[] = {
	{ "never, btrfs", &btrfs_a, &btrfs_a, K61, .reflink = SC_REFLINK_NEVER,
	  .want = { "--reflink=never", "--reflink=never", USE, USE } },
	{ "never, ext4 -> ext4", &ext4_a, &ext4_b, K61,
	  .reflink = SC_REFLINK_NEVER,
	  .want = { "--reflink=never", "--reflink=never", USE, USE } },
	{ "always, btrfs", &btrfs_a, &btrfs_a, K61,
	  .reflink = SC_REFLINK_ALWAYS,
	  .want = { USE, "--reflink=always", "--reflink=always",
		    "--reflink=always" } },
	{ "always, ext4 -> ext4", &ext4_a, &ext4_b, K61,
	  .reflink = SC_REFLINK_ALWAYS,
	  .want = { USE, "--reflink=always", "--reflink=always",
		    "--reflink=always" } },
	/* the kernel is asked again: its errno is the message's */
	{ "always, clone learned", &ext4_a, &xfs_fs, K61,
	  .reflink = SC_REFLINK_ALWAYS, .learned = R(SC_ROAD_CLONE),
	  .want = { USE, "--reflink=always", "--reflink=always",
		    "--reflink=always" } },
};

/* --sparse=always into a regular file: only read_write sees the zero runs
 * that must become holes.  Clone is still tried, as cp 9.1 does; holes
 * cannot be made in a pipe or device, so those keep their roads. */
#define SPARSE "--sparse=always"
static const struct row sparse_rows[] = {
	{ "always, same ext4", &ext4_a, &ext4_a, K61,
	  .sparse = SC_SPARSE_ALWAYS,
	  .want = { "cannot share", SPARSE, SPARSE, USE } },
	{ "always, ext4 -> ext4", &ext4_a, &ext4_b, K61,
	  .sparse = SC_SPARSE_ALWAYS,
	  .want = { "different", SPARSE, SPARSE, USE } },
	{ "always, 5.4 ext4 -> ext4", &ext4_a, &ext4_b, K54,
	  .sparse = SC_SPARSE_ALWAYS,
	  .want = { "different", SPARSE, SPARSE, USE } },
	{ "always, 4.4 same ext4", &ext4_a, &ext4_a, K44,
	  .sparse = SC_SPARSE_ALWAYS,
	  .want = { "cannot share", SPARSE, SPARSE, USE } },
	{ "always, nfs -> nfs", &nfs_a, &nfs_b, K61,
	  .sparse = SC_SPARSE_ALWAYS,
	  .want = { "different", SPARSE, SPARSE, USE } },
	{ "always, same btrfs still clones", &btrfs_a, &btrfs_a, K61,
	  .sparse = SC_SPARSE_ALWAYS,
	  .want = { USE, SPARSE, SPARSE, USE } },
	{ "always, btrfs, --reflink=never", &btrfs_a, &btrfs_a, K61,
	  .sparse = SC_SPARSE_ALWAYS, .reflink = SC_REFLINK_NEVER,
	  .want = { "--reflink=never", "--reflink=never", SPARSE, USE } },
	{ "always, clone learned", &btrfs_a, &btrfs_a, K61,
	  .sparse = SC_SPARSE_ALWAYS, .learned = R(SC_ROAD_CLONE),
	  .want = { "learned", SPARSE, SPARSE, USE } },
	{ "always, fifo source", &ext4_a, &ext4_b, K61,
	  .sparse = SC_SPARSE_ALWAYS, .src_mode = S_IFIFO,
	  .want = { "source is not a regular", "source is not a regular",
		    SPARSE, USE } },
	{ "always, fifo destination", &ext4_a, &ext4_b, K61,
	  .sparse = SC_SPARSE_ALWAYS, .dst_mode = S_IFIFO,
	  .want = { "destination is not a regular",
		    "destination is not a regular", USE, USE } },
	{ "always, char device destination", &ext4_a, &devtmpfs_fs, K61,
	  .sparse = SC_SPARSE_ALWAYS, .dst_mode = S_IFCHR,
	  .want = { "destination is not a regular",
		    "destination is not a regular", USE, USE } },
	{ "--road=copy_file_range beats always", &ext4_a, &ext4_a, K61,
	  .sparse = SC_SPARSE_ALWAYS,
	  .roads = R(SC_ROAD_RANGE), .forced = true,
	  .want = { "--road", USE, "--road", "--road" } },
	{ "--road=splice,read_write beats always", &ext4_a, &ext4_b, K61,
	  .sparse = SC_SPARSE_ALWAYS,
	  .roads = R(SC_ROAD_SPLICE) | R(SC_ROAD_RW), .forced = true,
	  .want = { "--road", "--road", USE, USE } },
	/* --sparse=never: every block written, no clone, no
	 * copy_file_range, sparse source or not (cp 9.4) */
	{ "never, same ext4", &ext4_a, &ext4_a, K61,
	  .sparse = SC_SPARSE_NEVER,
	  .want = { "--sparse=never", "--sparse=never", USE, USE } },
	{ "never, ext4 -> ext4", &ext4_a, &ext4_b, K61,
	  .sparse = SC_SPARSE_NEVER,
	  .want = { "--sparse=never", "--sparse=never", USE, USE } },
	{ "never, same btrfs", &btrfs_a, &btrfs_a, K61,
	  .sparse = SC_SPARSE_NEVER,
	  .want = { "--sparse=never", "--sparse=never", USE, USE } },
};

/* --road: only the named roads, whatever the rules say. */
static const struct row road_rows[] = {
	{ "splice,read_write on one ext4", &ext4_a, &ext4_a, K61,
	  .roads = R(SC_ROAD_SPLICE) | R(SC_ROAD_RW), .forced = true,
	  .want = { "--road", "--road", USE, USE } },
	{ "copy_file_range from proc", &proc_fs, &ext4_a, K61,
	  .roads = R(SC_ROAD_RANGE), .forced = true,
	  .want = { "--road", USE, "--road", "--road" } },
	{ "copy_file_range on 4.4", &ext4_a, &ext4_b, K44,
	  .roads = R(SC_ROAD_RANGE), .forced = true,
	  .want = { "--road", USE, "--road", "--road" } },
	{ "clone on ext4", &ext4_a, &ext4_b, K61,
	  .roads = R(SC_ROAD_CLONE), .forced = true,
	  .want = { USE, "--road", "--road", "--road" } },
	{ "clone despite --reflink=never", &btrfs_a, &btrfs_a, K61,
	  .reflink = SC_REFLINK_NEVER,
	  .roads = R(SC_ROAD_CLONE), .forced = true,
	  .want = { USE, "--road", "--road", "--road" } },
	{ "all four", &ext4_a, &ext4_b, K61,
	  .roads = SC_ROADMASK_ALL, .forced = true,
	  .want = { USE, USE, USE, USE } },
	{ "read_write only, btrfs", &btrfs_a, &btrfs_a, K61,
	  .roads = R(SC_ROAD_RW), .forced = true,
	  .want = { "--road", "--road", "--road", USE } },
};

/* A road that failed "not here" for this pair is not tried again. */
static const struct row learned_rows[] = {
	/* copy_file_range learned to fail: splice is no longer left out
	 * for it (issue 29 item 2) */
	{ "range learned, one ext4", &ext4_a, &ext4_a, K61,
	  .learned = R(SC_ROAD_RANGE),
	  .want = { "cannot share", "learned", USE, USE } },
	{ "clone learned, xfs", &xfs_fs, &xfs_fs, K61,
	  .learned = R(SC_ROAD_CLONE),
	  .want = { "learned", USE, "one filesystem", USE } },
	{ "splice learned, btrfs -> xfs", &btrfs_a, &xfs_fs, K61,
	  .learned = R(SC_ROAD_SPLICE),
	  .want = { "different", "5.19", "learned", USE } },
	{ "range learned, nfs -> nfs", &nfs_a, &nfs_b, K61,
	  .learned = R(SC_ROAD_RANGE),
	  .want = { "different", "learned", USE, USE } },
	{ "everything learned keeps read_write", &btrfs_a, &btrfs_a, K61,
	  .learned = SC_ROADMASK_ALL,
	  .want = { "learned", "learned", "learned", USE } },
	{ "--road beats learning", &ext4_a, &ext4_b, K61,
	  .roads = R(SC_ROAD_SPLICE), .forced = true,
	  .learned = R(SC_ROAD_SPLICE),
	  .want = { "--road", "--road", USE, "--road" } },
};

/* Pipes and devices: only splice and read_write can serve them. */
static const struct row special_rows[] = {
	{ "fifo source", &ext4_a, &ext4_b, K61, .src_mode = S_IFIFO,
	  .want = { "source is not a regular", "source is not a regular",
		    USE, USE } },
	{ "fifo destination", &ext4_a, &ext4_b, K61, .dst_mode = S_IFIFO,
	  .want = { "destination is not a regular",
		    "destination is not a regular", USE, USE } },
	{ "fifo destination, one fs", &ext4_a, &ext4_a, K54,
	  .dst_mode = S_IFIFO,
	  .want = { "destination is not a regular",
		    "destination is not a regular", USE, USE } },
	{ "fifo from proc", &proc_fs, &ext4_a, K61, .dst_mode = S_IFIFO,
	  .want = { "not a regular", "not a regular", "generated", USE } },
	{ "char device source", &devtmpfs_fs, &ext4_a, K61,
	  .src_mode = S_IFCHR,
	  .want = { "not a regular", "not a regular", "not a regular",
		    USE } },
};

#define ROW_TEST(name, table)				\
	START_TEST(name) { check_row(&table[_i]); }	\
	END_TEST

ROW_TEST(test_kernel_4_4_has_no_copy_file_range, kernel_rows)
ROW_TEST(test_generated_source_reads_only, generated_rows)
ROW_TEST(test_cross_filesystem_by_kernel, cross_rows)
ROW_TEST(test_same_filesystem_clone_then_range, same_rows)
ROW_TEST(test_reflink_option, reflink_rows)
ROW_TEST(test_sparse_always_reads_zeros, sparse_rows)
ROW_TEST(test_road_option_forces_and_excludes, road_rows)
ROW_TEST(test_learned_roads_skipped, learned_rows)
ROW_TEST(test_pipes_and_devices, special_rows)

/* Every plan has a road (read_write) unless the user restricted roads,
 * every skipped road says why, and --sparse=always never plans a kernel
 * road into a regular file: swept over the whole fact space. */
START_TEST(test_read_write_always_and_reasons)
{
	static const struct sc_fs_facts *fss[] = {
		&ext4_a, &ext4_b, &proc_fs, &btrfs_a, &btrfs_b, &xfs_fs,
		&nfs_a, &nfs_b, &fuse_a, &devtmpfs_fs, NULL,
	};
	static const struct sc_kernel ks[] = { K44, K52, K54, K510, K519, K61 };
	static const mode_t modes[] = { S_IFREG, S_IFIFO, S_IFCHR };
	const size_t nfs = sizeof(fss) / sizeof(fss[0]);
	/* 156,816 plans: checked here and asserted once at the end, since
	 * every ck_assert costs Check a write to its pipe (seconds under
	 * sanitizers on a busy machine, past Check's 4 s timeout) */
	char bad[200] = "";

	for (size_t a = 0; a < nfs; a++)
	for (size_t b = 0; b < nfs; b++)
	for (size_t k = 0; k < sizeof(ks) / sizeof(ks[0]); k++)
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
	for (int refl = SC_REFLINK_AUTO; refl <= SC_REFLINK_NEVER; refl++)
	for (int sp = SC_SPARSE_AUTO; sp <= SC_SPARSE_NEVER; sp++)
	/* read_write never fails "not here", so it is never learned. */
	for (unsigned learned = 0; learned < R(SC_ROAD_RW); learned++) {
		struct sc_plan_input in = {
			.src_fs = fss[a], .dst_fs = fss[b],
			.src_mode = modes[m], .dst_mode = S_IFREG,
			.kernel = ks[k], .reflink = (enum sc_reflink)refl,
			.sparse = (enum sc_sparse)sp,
			.roads = SC_ROADMASK_ALL, .learned = learned,
		};
		struct sc_plan plan;
		int n = 0;

		if (bad[0])
			break;
		sc_plan_make(&in, &plan);
		for (int r = 0; r < SC_ROAD__MAX; r++) {
			n += plan.step[r].use;
			if (!plan.step[r].use && !plan.step[r].why)
				snprintf(bad, sizeof(bad),
					 "%s skipped without reason",
					 sc_road_name((enum sc_road)r));
		}
		if (plan.n_use != n)
			snprintf(bad, sizeof(bad), "n_use %d, %d roads used",
				 plan.n_use, n);
		if (refl != SC_REFLINK_ALWAYS && !plan.step[SC_ROAD_RW].use)
			snprintf(bad, sizeof(bad),
				 "read_write missing (src %zu dst %zu "
				 "kernel %zu mode %zu learned %#x)",
				 a, b, k, m, learned);
		/* Zeros copied as data would be holes lost. */
		if (sp == SC_SPARSE_ALWAYS &&
		    (plan.step[SC_ROAD_RANGE].use ||
		     plan.step[SC_ROAD_SPLICE].use))
			snprintf(bad, sizeof(bad),
				 "--sparse=always planned a kernel road "
				 "(src %zu dst %zu kernel %zu mode %zu)",
				 a, b, k, m);
	}
	ck_assert_msg(!bad[0], "%s", bad);
}
END_TEST

START_TEST(test_road_names_round_trip)
{
	static const char *const names[] = {
		"clone", "copy_file_range", "splice", "read_write",
	};

	for (int r = 0; r < SC_ROAD__MAX; r++) {
		ck_assert_str_eq(sc_road_name((enum sc_road)r), names[r]);
		ck_assert_int_eq(sc_road_from_name(names[r]), r);
	}
	ck_assert_int_eq(sc_road_from_name("read"), -EINVAL);
	ck_assert_int_eq(sc_road_from_name(""), -EINVAL);
	ck_assert_int_eq(sc_road_from_name("CLONE"), -EINVAL);
	ck_assert_str_eq(sc_road_name(SC_ROAD__MAX), "?");
}
END_TEST

START_TEST(test_size_untrusted_on_generated_only)
{
	ck_assert(sc_plan_size_untrusted(NULL));
	ck_assert(sc_plan_size_untrusted(&proc_fs));
	ck_assert(sc_plan_size_untrusted(&sysfs_fs));
	ck_assert(!sc_plan_size_untrusted(&ext4_a));
	ck_assert(!sc_plan_size_untrusted(&devtmpfs_fs));
	ck_assert(!sc_plan_size_untrusted(&nfs_a));
	ck_assert(!sc_plan_size_untrusted(&fuse_a));
}
END_TEST

/* --debug tells "avoided" (an option kept copy_file_range out) from
 * "unsupported" (a fact did): by_option says which. */
START_TEST(test_by_option_marks_option_reasons)
{
	struct sc_plan_input in = {
		.src_fs = &ext4_a, .dst_fs = &ext4_b, .src_mode = S_IFREG,
		.dst_mode = S_IFREG, .src_size = 4096, .kernel = K61,
		.roads = SC_ROADMASK_ALL,
	};
	struct sc_plan plan;

	sc_plan_make(&in, &plan);	/* different filesystems: a fact */
	ck_assert(!plan.step[SC_ROAD_RANGE].use);
	ck_assert(!plan.step[SC_ROAD_RANGE].by_option);
	ck_assert(!plan.step[SC_ROAD_CLONE].by_option);
	in.reflink = SC_REFLINK_NEVER;
	sc_plan_make(&in, &plan);
	ck_assert(plan.step[SC_ROAD_RANGE].by_option);
	ck_assert(plan.step[SC_ROAD_CLONE].by_option);
	in.reflink = SC_REFLINK_AUTO;
	in.sparse = SC_SPARSE_ALWAYS;
	sc_plan_make(&in, &plan);
	ck_assert(plan.step[SC_ROAD_RANGE].by_option);
	ck_assert(!plan.step[SC_ROAD_CLONE].by_option);
	in.sparse = SC_SPARSE_NEVER;
	in.dst_fs = &ext4_a;
	sc_plan_make(&in, &plan);
	ck_assert(plan.step[SC_ROAD_RANGE].by_option);
	ck_assert(plan.step[SC_ROAD_CLONE].by_option);
	ck_assert(plan.step[SC_ROAD_SPLICE].use);
	ck_assert(!plan.step[SC_ROAD_RW].by_option);
}
END_TEST

#define N(table) ((int)(sizeof(table) / sizeof((table)[0])))

static void add(Suite *s, const char *name, const TTest *test, int n)
{
	TCase *tc = tcase_create(name);

	tcase_add_loop_test(tc, test, 0, n);
	suite_add_tcase(s, tc);
}

Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");

	add(s, "kernel_4_4", test_kernel_4_4_has_no_copy_file_range,
	    N(kernel_rows));
	add(s, "generated", test_generated_source_reads_only,
	    N(generated_rows));
	add(s, "cross_filesystem", test_cross_filesystem_by_kernel,
	    N(cross_rows));
	add(s, "same_filesystem", test_same_filesystem_clone_then_range,
	    N(same_rows));
	add(s, "reflink", test_reflink_option, N(reflink_rows));
	add(s, "sparse", test_sparse_always_reads_zeros, N(sparse_rows));
	add(s, "road_option", test_road_option_forces_and_excludes,
	    N(road_rows));
	add(s, "learned", test_learned_roads_skipped, N(learned_rows));
	add(s, "pipes_and_devices", test_pipes_and_devices, N(special_rows));
	add(s, "read_write_always", test_read_write_always_and_reasons, 1);
	add(s, "road_names", test_road_names_round_trip, 1);
	add(s, "size_untrusted", test_size_untrusted_on_generated_only, 1);
	add(s, "by_option", test_by_option_marks_option_reasons, 1);
	return s;
}
