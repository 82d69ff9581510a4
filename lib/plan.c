/* Road selection.  Each rule cites the kernel behaviour it works around;
 * smartcp(1) says them to users ("The four roads", "How a road is
 * chosen", "The rules, as a table"). */
#include "common.h"
#include "fsinfo.h"
#include "plan.h"
#include "stacks.h"

#include <string.h>
#include <sys/stat.h>

static const char *const road_names[SC_ROAD__MAX] = {
	[SC_ROAD_CLONE] = "clone",
	[SC_ROAD_RANGE] = "copy_file_range",
	[SC_ROAD_SPLICE] = "splice",
	[SC_ROAD_RW] = "read_write",
};

const char *sc_road_name(enum sc_road road)
{
	return (unsigned)road < SC_ROAD__MAX ? road_names[road] : "?";
}

unsigned sc_road_count(void)
{
	return SC_ROAD__MAX;
}

int sc_road_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int i = 0; i < SC_ROAD__MAX; i++)
		if (!strcmp(name, road_names[i]))
			return i;
	return -EINVAL;
}

bool sc_plan_size_untrusted(const struct sc_fs_facts *fs)
{
	return !fs || fs->cls == SC_FS_GENERATED;
}

static bool same_fs(const struct sc_plan_input *in)
{
	return in->src_fs && in->dst_fs && in->src_fs->identity[0] &&
	       !strcmp(in->src_fs->identity, in->dst_fs->identity);
}

static bool same_type(const struct sc_plan_input *in)
{
	return in->src_fs && in->dst_fs &&
	       !strcmp(in->src_fs->type, in->dst_fs->type);
}

/* Types whose copy_file_range method may copy between two superblocks of
 * the same type (server-side copy): still allowed since 5.19, where the
 * generic cross-filesystem splice fallback was removed (seed 011). */
static bool server_side_type(const struct sc_fs_facts *fs)
{
	return fs->cls == SC_FS_NETWORK || fs->cls == SC_FS_FUSE;
}


/* --sparse=always into a regular file: every run of zero blocks must
 * become a hole, even where the source has none.  copy_file_range and
 * splice move zeros as data, so only read_write, which sees the bytes,
 * can do it; cp does not use copy_file_range then either.  A clone is
 * still tried first: cp 9.1 does so too (--reflink=auto), and a shared
 * extent costs no space.  A pipe or device cannot hold holes.
 * (--sparse=auto keeps the holes a sparse source reports, and copies its
 * data extents by the fastest road, as cp 9.4 and later do; cp 9.1 also
 * made holes of zero runs inside them, at the price of read/write.) */
static bool must_see_zeros(const struct sc_plan_input *in)
{
	return S_ISREG(in->dst_mode) && in->sparse == SC_SPARSE_ALWAYS;
}

static const char *const zeros_always_why =
	N_("sparse always: zero runs must be seen to become holes");


/* --sparse=never: the copy must have every block written.  A clone, or
 * a copy_file_range that clones, would share the source's extents, and
 * its holes if it has some: cp 9.4 and later avoid both then, for every
 * file (st_blocks is not always a reliable sign of holes). */
static bool must_fill_holes(const struct sc_plan_input *in)
{
	return in->sparse == SC_SPARSE_NEVER;
}

static const char *const fill_why =
	N_("sparse never: every block must be written");

static const char *const clone_never_why = N_("reflink never");

static const char *why_not_clone(const struct sc_plan_input *in)
{
	if (!S_ISREG(in->src_mode))
		return N_("source is not a regular file");
	if (!S_ISREG(in->dst_mode))
		return N_("destination is not a regular file");
	if (in->roads_forced)
		return NULL;
	if (in->reflink == SC_REFLINK_NEVER)
		return clone_never_why;
	if (in->reflink == SC_REFLINK_ALWAYS)
		return NULL;	/* the user's word: try and report */
	if (must_fill_holes(in))
		return fill_why;
	if (sc_plan_size_untrusted(in->src_fs))
		return N_("generated source");
	if (!same_fs(in))
		return N_("different filesystems");
	if (in->src_fs->can_clone == SC_NO)
		return N_("filesystem cannot share extents");
	/* FICLONE between two mounts of one superblock gave EXDEV before
	 * Linux 5.18 (commit 9f5710bbfd30, "fs: allow cross-vfsmount
	 * reflink/dedupe"). */
	if (in->src_fs->mnt_id != in->dst_fs->mnt_id &&
	    !sc_kernel_at_least(in->kernel, 5, 18))
		return N_("different mounts (clone across mounts needs Linux 5.18)");
	return NULL;
}

static const char *const range_never_why =
	N_("reflink never: copy_file_range may share extents");
static const char *const reflink_always_why = N_("reflink always");
static const char *const road_why = N_("not among the allowed roads");

/* Was the road left out because of an option the user gave (cp's
 * "avoided"), rather than a fact of the files? */
static bool option_reason(const char *why)
{
	return why == clone_never_why || why == range_never_why ||
	       why == reflink_always_why ||
	       why == road_why || why == zeros_always_why || why == fill_why;
}

static const char *why_not_range(const struct sc_plan_input *in)
{
	if (!S_ISREG(in->src_mode))
		return N_("source is not a regular file");
	if (!S_ISREG(in->dst_mode))
		return N_("destination is not a regular file");
	if (in->roads_forced)
		return NULL;
	/* copy_file_range may clone (same filesystem, or a server that
	 * shares extents): cp avoids it too with --reflink=never */
	if (in->reflink == SC_REFLINK_NEVER)
		return range_never_why;
	if (must_see_zeros(in))
		return zeros_always_why;
	if (must_fill_holes(in))
		return fill_why;
	if (!sc_kernel_at_least(in->kernel, 4, 5))
		return N_("not in this kernel (added in Linux 4.5)");
	/* 5.3 to 5.18 copied 0 bytes and reported success for files whose
	 * st_size is 0 (proc, tracefs...) or a made-up 4096 (sysfs); later
	 * kernels refuse them across filesystems, but the size still lies. */
	if (sc_plan_size_untrusted(in->src_fs))
		return sc_kernel_at_least(in->kernel, 5, 3) &&
		       !sc_kernel_at_least(in->kernel, 5, 19) ?
		       N_("generated source: Linux 5.3 to 5.18 copy 0 bytes of it and report success") :
		       N_("generated source: st_size is not its length");
	if (same_fs(in))
		return NULL;
	if (!sc_kernel_at_least(in->kernel, 5, 3))
		return N_("different filesystems (EXDEV before Linux 5.3)");
	if (!sc_kernel_at_least(in->kernel, 5, 19))
		return NULL;	/* generic in-kernel splice across filesystems */
	if (same_type(in) && server_side_type(in->src_fs))
		return NULL;	/* server-side copy between mounts */
	return N_("different filesystems (EXDEV since Linux 5.19)");
}

/* Will copy_file_range take the file: the rules (and the known-bad
 * stacks: WHY_RANGE) let it, the input allows it, and it was not learned
 * to fail for this pair?  Only then may it keep splice out (issue 29:
 * splice was left out "because copy_file_range serves one filesystem"
 * where copy_file_range was not allowed, or had failed, and the copy fell
 * to read_write or to nothing). */
static bool range_serves(const struct sc_plan_input *in, const char *why_range)
{
	unsigned range = 1u << SC_ROAD_RANGE;

	return !why_range && (in->roads & range) && !(in->learned & range);
}

/* RANGE_SERVES: range_serves(). */
static const char *why_not_splice(const struct sc_plan_input *in,
				  bool range_serves)
{
	bool src_pipe = S_ISFIFO(in->src_mode), dst_pipe = S_ISFIFO(in->dst_mode);

	if (in->roads_forced)
		return NULL;
	if (must_see_zeros(in))
		return zeros_always_why;
	/* splice() needs a pipe on one side; smartcp puts one in between.
	 * Generated files are read with read(): splice_read of many of them
	 * went away in 5.10 (EINVAL) and read() is what their authors test. */
	if (sc_plan_size_untrusted(in->src_fs) && !src_pipe)
		return N_("generated source: read until read() returns 0");
	if (src_pipe || dst_pipe)
		return NULL;
	if (!S_ISREG(in->src_mode))
		return N_("source is not a regular file or a pipe");
	if (same_fs(in) && range_serves)
		return N_("copy_file_range serves one filesystem");
	return NULL;	/* measured: beats read/write across filesystems */
}

/* Why a road that is used is used: the plan says it for every road
 * (smartcp's outputs show only the reasons of the roads left out). */
static const char *why_used(const struct sc_plan_input *in, int r)
{
	if (in->roads_forced)
		return N_("chosen by the caller");
	switch (r) {
	case SC_ROAD_CLONE:
		if (in->reflink == SC_REFLINK_ALWAYS)
			return N_("reflink always: clone or nothing");
		return in->src_fs->can_clone == SC_YES ?
		       N_("one filesystem that shares extents") :
		       N_("one filesystem that may share extents");
	case SC_ROAD_RANGE:
		if (same_fs(in))
			return N_("one filesystem: the kernel copies");
		if (!sc_kernel_at_least(in->kernel, 5, 19))
			return N_("the kernel copies across filesystems (Linux 5.3 to 5.18)");
		return N_("server-side copy between filesystems of one type");
	case SC_ROAD_SPLICE:
		if (S_ISFIFO(in->src_mode) || S_ISFIFO(in->dst_mode))
			return N_("a pipe at one end");
		/* issue 36: splice within one filesystem (copy_file_range
		 * not allowed, or learned to fail) was said to go across */
		if (same_fs(in))
			return N_("one filesystem without copy_file_range: faster than read/write");
		return N_("across filesystems: faster than read/write");
	default:
		return N_("works everywhere: reads until read() returns 0");
	}
}

/* ---- known-bad stacks (stacks.h) ---------------------------------------- */

static const char *const learned_why = N_("learned from an earlier file");

/* Would a verification catch what ROW saw (corrupt bytes, not a hang)? */
static bool stack_verifiable(const struct stack *row)
{
	return !strcmp(row->seen, "corruption");
}

/* What a row that may hold does: corruption is what a verification
 * catches, so its roads are taken and the copy proved; a hang it cannot
 * catch, and those roads are skipped as where the row holds. */
static enum stack_action maybe_action(const struct stack *row)
{
	return row->action == STACK_SKIP && row->roads &&
	       stack_verifiable(row) ? STACK_VERIFY : row->action;
}

/* Would road R be tried, as far as WHY and the input tell? */
static bool road_open(const struct sc_plan_input *in, const char *const why[],
		      int r)
{
	unsigned bit = 1u << r;

	if (why[r] || !(in->roads & bit))
		return false;
	if (in->roads_forced)
		return true;
	if (in->reflink == SC_REFLINK_ALWAYS)
		return r == SC_ROAD_CLONE;	/* clone or nothing */
	return !(in->learned & bit);
}

/* Would the data step look for holes with SEEK_DATA: a regular source
 * whose size may be believed, into what can hold holes, unless every
 * block is to be written? */
static bool looks_for_holes(const struct sc_plan_input *in)
{
	return S_ISREG(in->src_mode) && !sc_plan_size_untrusted(in->src_fs) &&
	       (S_ISREG(in->dst_mode) || S_ISBLK(in->dst_mode)) &&
	       in->sparse != SC_SPARSE_NEVER;
}

/* PLAN's advice for row I, added when new; NULL when there is no room
 * (more rows hold than PLAN_ADVICE_MAX: their effects still apply). */
static struct plan_advice *advice_of(struct sc_plan *plan, size_t i)
{
	for (int k = 0; k < plan->n_advice; k++)
		if (plan->advice[k].row == i)
			return &plan->advice[k];
	if (plan->n_advice == PLAN_ADVICE_MAX)
		return NULL;
	plan->advice[plan->n_advice] = (struct plan_advice){ .row = i };
	return &plan->advice[plan->n_advice++];
}

/* Row I, which holds (MAYBE: may hold), on the roads of MASK that would
 * be tried (OPEN) and on hole detection (HOLES). */
static void row_apply(const struct sc_plan_input *in, const char *why[],
		      struct sc_plan *plan, size_t i, bool maybe,
		      unsigned open, bool holes)
{
	const struct stack *row = &stacks_table[i];
	struct plan_advice *a = advice_of(plan, i);
	enum stack_action action = row->action;
	unsigned forced = 0;

	/* The caller's word wins (--road; --reflink=always for the clone),
	 * and the report names the row. */
	if (in->roads_forced)
		forced = open;
	else if (in->reflink == SC_REFLINK_ALWAYS)
		forced = open & SC_ROAD_BIT(SC_ROAD_CLONE);
	/* Hole detection that lied is not used, even where the row only
	 * may hold: reading the holes as zeros is cheaper than a proof. */
	holes = holes && action == STACK_SKIP;
	plan->no_holes |= holes;
	if (maybe)
		action = maybe_action(row);
	if (action == STACK_SKIP) {
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if ((open & ~forced) & (1u << r))
				why[r] = row->why;
	} else if (action == STACK_VERIFY && open) {
		plan->verify = true;
	}
	if (!a)
		return;
	a->action = (unsigned char)action;
	a->roads |= (unsigned char)open;
	a->forced |= (unsigned char)forced;
	a->holes |= holes;
	a->verify |= action == STACK_VERIFY && open;
	a->maybe = maybe;
}

/* The rows about either end that hold for IN, on the roads of MASK (and,
 * with HOLES, on hole detection): each skips the roads it is about, or
 * asks for the copy to be verified, or is only named; a row is recorded
 * only where it concerns a road the plan would take. */
static void stacks_apply(const struct sc_plan_input *in, const char *why[],
			 struct sc_plan *plan, unsigned mask, bool holes)
{
	uint32_t rows = (in->src_fs ? in->src_fs->stacks : 0) |
			(in->dst_fs ? in->dst_fs->stacks : 0);

	/* The rows that skip first: a road another row would verify or
	 * name may not be taken at all. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; (rows >> i) != 0; i++) {
			const struct stack *row = &stacks_table[i];
			enum stack_match m;
			unsigned open = 0;
			bool h;

			if (!(rows & (1u << i)))
				continue;
			m = stacks_match(row, in->src_fs, in->dst_fs,
					 in->kernel);
			if (m == STACK_NO ||
			    ((m == STACK_MAYBE ? maybe_action(row) :
			      row->action) == STACK_SKIP) != (pass == 0))
				continue;
			for (int r = 0; r < SC_ROAD__MAX; r++)
				if ((row->roads & mask & (1u << r)) &&
				    road_open(in, why, r))
					open |= 1u << r;
			h = holes && row->holes && looks_for_holes(in);
			if (open || h)
				row_apply(in, why, plan, i, m == STACK_MAYBE,
					  open, h);
		}
	}
}

bool sc_plan_may_verify(const struct sc_fs_facts *src, struct sc_kernel kernel)
{
	uint32_t rows = src ? src->stacks : 0;

	for (size_t i = 0; rows; i++, rows >>= 1) {
		const struct stack *row = &stacks_table[i];
		enum stack_match m;

		if (!(rows & 1))
			continue;
		m = stacks_match(row, src, NULL, kernel);
		/* a row that may hold verifies what it would skip */
		if (m != STACK_NO &&
		    (m == STACK_MAYBE ? maybe_action(row) : row->action) ==
		    STACK_VERIFY)
			return true;
	}
	return false;
}

/* ---- the plan --------------------------------------------------------------- */

/* The roads' reasons into WHY, and what known-bad stacks ask of PLAN. */
static void plan_why(const struct sc_plan_input *in, const char *why[],
		     struct sc_plan *plan)
{
	bool serves;

	why[SC_ROAD_CLONE] = why_not_clone(in);
	why[SC_ROAD_RANGE] = why_not_range(in);
	why[SC_ROAD_RW] = NULL;
	/* Before splice, which asks whether copy_file_range serves. */
	stacks_apply(in, why, plan, SC_ROAD_BIT(SC_ROAD_CLONE) |
		     SC_ROAD_BIT(SC_ROAD_RANGE), true);
	serves = range_serves(in, why[SC_ROAD_RANGE]);
	why[SC_ROAD_SPLICE] = why_not_splice(in, serves);

	/* --reflink=always: clone or nothing, as in GNU cp. */
	if (in->reflink == SC_REFLINK_ALWAYS && !in->roads_forced) {
		for (int r = SC_ROAD_RANGE; r < SC_ROAD__MAX; r++)
			why[r] = reflink_always_why;
	}

	/* If copy_file_range can serve and splice was only a fallback for it,
	 * keep splice out: same work, more syscalls. */
	if (serves && !why[SC_ROAD_SPLICE] &&
	    !in->roads_forced && S_ISREG(in->src_mode) &&
	    S_ISREG(in->dst_mode) && !same_fs(in) &&
	    !sc_kernel_at_least(in->kernel, 5, 19))
		why[SC_ROAD_SPLICE] = N_("copy_file_range does the same in the kernel");
	stacks_apply(in, why, plan, SC_ROAD_BIT(SC_ROAD_SPLICE), false);
}

void sc_plan_make(const struct sc_plan_input *in, struct sc_plan *plan)
{
	const char *why[SC_ROAD__MAX];

	if (!in || !plan)
		return;
	plan->verify = plan->no_holes = false;
	plan->n_advice = 0;
	plan_why(in, why, plan);

	plan->n_use = 0;
	for (int r = 0; r < SC_ROAD__MAX; r++) {
		const char *w = why[r];

		if (!w && !(in->roads & (1u << r)))
			w = road_why;
		/* --reflink=always has the clone alone: each file asks
		 * the kernel, whose answer (EXDEV, EOPNOTSUPP) is the one
		 * cp gives for every file, at the cost of an ioctl that
		 * fails at once */
		if (!w && (in->learned & (1u << r)) && !in->roads_forced &&
		    r != SC_ROAD_RW &&
		    !(r == SC_ROAD_CLONE && in->reflink == SC_REFLINK_ALWAYS))
			w = learned_why;
		plan->step[r].use = !w;
		plan->step[r].by_option = w && option_reason(w);
		plan->step[r].why = w ? w : why_used(in, r);
		plan->n_use += !w;
	}
	/* Learning must never leave a file without a road. */
	if (!plan->n_use && (in->roads & (1u << SC_ROAD_RW)) &&
	    in->reflink != SC_REFLINK_ALWAYS) {
		plan->step[SC_ROAD_RW].use = true;
		plan->step[SC_ROAD_RW].by_option = false;
		plan->step[SC_ROAD_RW].why =
			N_("the road left when the others were learned to fail");
		plan->n_use = 1;
	}
}

void sc_plan_repair(struct sc_plan *ret)
{
	if (!ret)
		return;
	*ret = (struct sc_plan){ .n_use = 1 };
	ret->step[SC_ROAD_RW].use = true;
	for (int r = 0; r < SC_ROAD__MAX; r++)
		ret->step[r].why = N_("repair after a failed verification");
}

void sc_plan_none(struct sc_plan *ret, const char *why)
{
	for (int r = 0; r < SC_ROAD__MAX; r++)
		ret->step[r] = (struct sc_plan_step){
			.use = false, .by_option = true, .why = why,
		};
	ret->n_use = 0;
	ret->verify = ret->no_holes = false;
	ret->n_advice = 0;
}

void sc_plan_unverifiable(struct sc_plan *plan)
{
	for (int k = 0; k < plan->n_advice; k++) {
		struct plan_advice *a = &plan->advice[k];
		unsigned roads = a->roads & ~a->forced;

		if (!a->verify)
			continue;
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if ((roads & (1u << r)) && plan->step[r].use) {
				plan->step[r].use = false;
				plan->step[r].why = stacks_table[a->row].why;
				plan->n_use--;
			}
		a->action = STACK_SKIP;
		a->verify = false;
	}
	plan->verify = false;
}

const char sc_why_stream_verify[] = N_("verification of a stream");
const char sc_why_live_verify[] = N_("verification of a source that may change");
const char sc_why_no_data[] = N_("no data is copied");

/* ---- the public side ---------------------------------------------------- */

int sc_plan_new(const struct sc_plan_input *in, struct sc_plan **ret)
{
	struct sc_plan_input full;
	struct sc_plan *p;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (!in || in->size < offsetof(struct sc_plan_input, learned) +
			      sizeof(in->learned))
		return -EINVAL;
	full = *in;
	if ((full.roads & ~SC_ROADMASK_ALL) ||
	    (unsigned)full.reflink > SC_REFLINK_NEVER ||
	    (unsigned)full.sparse > SC_SPARSE_NEVER ||
	    (full.learned & ~SC_ROADMASK_ALL) ||
	    (full.roads_forced && !full.roads))
		return -EINVAL;
	if (!full.roads)
		full.roads = SC_ROADMASK_ALL;
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	sc_plan_make(&full, p);
	*ret = p;
	return 0;
}

void sc_plan_free(struct sc_plan *plan)
{
	free(plan);
}

unsigned sc_plan_roads(const struct sc_plan *plan)
{
	unsigned roads = 0;

	for (int r = 0; plan && r < SC_ROAD__MAX; r++)
		if (plan->step[r].use)
			roads |= 1u << r;
	return roads;
}

unsigned sc_plan_n_use(const struct sc_plan *plan)
{
	return plan ? (unsigned)plan->n_use : 0;
}

bool sc_plan_use(const struct sc_plan *plan, enum sc_road road)
{
	return plan && (unsigned)road < SC_ROAD__MAX && plan->step[road].use;
}

const char *sc_plan_why(const struct sc_plan *plan, enum sc_road road)
{
	return plan && (unsigned)road < SC_ROAD__MAX ? plan->step[road].why :
	       NULL;
}

bool sc_plan_by_option(const struct sc_plan *plan, enum sc_road road)
{
	return plan && (unsigned)road < SC_ROAD__MAX &&
	       plan->step[road].by_option;
}

int sc_plan_advisory(const struct sc_plan *plan, unsigned i,
		     struct sc_advisory *ret)
{
	static const char *const actions[] = {
		[STACK_SKIP] = "skip", [STACK_VERIFY] = "verify",
		[STACK_FALLBACK] = "fallback", [STACK_NOTE] = "note",
		[STACK_NONE] = "none",
	};
	const struct plan_advice *a;
	struct sc_advisory v;
	size_t size;

	if (!plan || !ret || ret->size < offsetof(struct sc_advisory, why) +
					 sizeof(ret->why))
		return -EINVAL;
	if (i >= (unsigned)plan->n_advice)
		return -ERANGE;
	a = &plan->advice[i];
	v = (struct sc_advisory){
		.size = ret->size, .stack = a->row,
		.id = stacks_table[a->row].id,
		.action = a->action < ARRAY_SIZE(actions) ?
			  actions[a->action] : "?",
		.roads = a->roads, .forced = a->forced, .holes = a->holes,
		.verify = a->verify, .maybe = a->maybe,
		.why = stacks_table[a->row].why,
	};
	size = ret->size;
	memset(ret, 0, size);
	memcpy(ret, &v, MIN(size, sizeof(v)));
	return 0;
}
