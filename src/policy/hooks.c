/* cp's policy in the tree copy's callbacks (<smartcp/smartcp.h>).  BEFORE an
 * entry is copied: an operand named twice, a directory an earlier
 * operand made met again, what is at the destination (the same file, -u,
 * -n, -i, a directory against a file, a backup or a removal: dest.c's
 * sc_dest_settle()), a symlink this run made written through, and cp's
 * -v line ahead of the copy.  AFTER it: its report said (a file's copy,
 * file.c; what was made's metadata and its record, record.c); what an
 * operand became, for the operands after it; a failed entry's backup
 * gets its name back, and the failure is counted. */
#include "system.h"
#include "policy/hooks.h"
#include "policy/cp.h"
#include "policy/dest.h"
#include "policy/file.h"
#include "policy/record.h"
#include "policy/seen.h"
#include "output/report.h"

#include <errno.h>
#include <stdlib.h>

int hooks_at_depth(struct cp *cp, unsigned d)
{
	if (d > cp->depth) {
		if (d > cp->cap) {
			unsigned cap = d + d / 2 + 16;
			struct cp_entry *s = realloc(cp->stack,
						     cap * sizeof(*s));

			if (!s)
				return -ENOMEM;
			cp->stack = s;
			cp->cap = cap;
		}
		for (unsigned k = cp->depth; k < d; k++) {
			cp->stack[k] = cp->cur;
			/* the deeper ones' own, from here */
			cp->cur.backup = NULL;
			cp->cur.announced = false;
			sc_report_begin(&cp->cur.msgs);
		}
	} else if (d < cp->depth) {
		free(cp->cur.backup);
		for (unsigned k = d + 1; k < cp->depth; k++)
			free(cp->stack[k].backup);
		cp->cur = cp->stack[d];
	}
	cp->depth = d;
	return 0;
}

void hooks_free(struct cp *cp)
{
	hooks_at_depth(cp, 0);
	free(cp->stack);
	cp->stack = NULL;
	cp->cap = 0;
}

int hooks_before(void *arg, const struct sc_tree_entry *te,
		 struct sc_tree_decision *d)
{
	struct cp *cp = arg;
	const struct sc_options *o = cp->o;
	bool multi = te->top && cp->multi;
	struct decision e = {
		.src = te->src, .dst = te->dst, .cmdline = te->top,
		.follow = te->followed, .sst = *te->sst,
		.dst_exists = te->dst_st && !te->dst_loop,
		.loop = te->dst_loop, .earlier = te->earlier,
	};
	int r;

	d->verdict = SC_TREE_CONTINUE;
	r = hooks_at_depth(cp, te->depth);
	if (r < 0)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_MEMORY, -r,
				      te->src, NULL);
	if (te->dst_st)
		e.dst_st = *te->dst_st;
	if (multi && !o->explain &&
	    sc_seen_named_twice(&cp->seen, cp, o->backup != SC_BACKUP_NONE,
				te->src, te->dst, te->sst)) {
		d->verdict = SC_TREE_SKIP;
		return 0;
	}
	r = sc_seen_dir_again(&cp->seen, cp, &e);
	if (r < 0)
		return r;
	if (te->dst_err)
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_STAT, te->dst_err,
				      te->dst, NULL);
	if (e.dst_exists) {
		r = sc_dest_settle(cp, te, &e, multi ? &cp->seen : NULL);
		if (r != SC_SETTLED_COPY) {
			d->verdict = SC_TREE_SKIP;
			if (r == SC_SETTLED_KEPT)
				d->flags |= SC_TREE_DST_KEPT;
			return r < 0 ? r : 0;
		}
		if (!e.dst_exists)
			d->flags |= SC_TREE_DST_GONE;
	}
	if (multi && o->backup == SC_BACKUP_NONE && !o->explain &&
	    (r = sc_seen_through_new_symlink(&cp->seen, cp, &e)) < 0)
		return r;
	/* copied from here on: called as cp, -v names what is not a
	 * directory ahead of the copy */
	if (te->kind != SC_TREE_DIR)
		sc_entry_announce(cp, te->src, te->dst);
	return 0;
}

/* The record of TE, which was made (REPLACED: a link took the place of
 * what was there). */
static void record(struct cp *cp, const struct sc_tree_entry *te,
		   bool replaced)
{
	static const enum sc_kind kinds[] = {
		[SC_TREE_DIR] = SC_KIND_DIR, [SC_TREE_FILE] = SC_KIND_FILE,
		[SC_TREE_SYMLINK] = SC_KIND_SYMLINK,
		[SC_TREE_SPECIAL] = SC_KIND_SPECIAL,
		[SC_TREE_HARDLINK] = SC_KIND_HARDLINK,
	};
	struct sc_record rec = { .src = te->src, .dst = te->dst,
				 .kind = kinds[te->kind], .replaced = replaced };

	sc_entry_report(cp, &rec);
}

/* A directory's attributes set at the end of the run (-j): its words,
 * and a second record (--json) when they failed it, in messages of its
 * own; one lost before they could be set (no source named) is counted. */
static int after_late(struct cp *cp, const struct sc_tree_entry *te,
		      const struct sc_tree_result *r)
{
	struct sc_msgs outer = cp->cur.msgs;

	if (!te->src) {
		/* lost before its attributes could be set (said then) */
		cp->failures++;
		return 0;
	}
	sc_report_begin(&cp->cur.msgs);
	sc_record_meta(cp, te, r);
	if (r->err < 0) {
		cp->failures++;
		cp->cur.msgs.failed = true;
	}
	if (cp->cur.msgs.failed && cp->o->json)
		record(cp, te, false);
	cp->cur.msgs = outer;
	return 0;
}

int hooks_after(void *arg, const struct sc_tree_entry *te,
		const struct sc_tree_result *r)
{
	struct cp *cp = arg;
	const struct sc_options *o = cp->o;
	int a = 0, err;

	if (r->point == SC_TREE_LATE)
		return after_late(cp, te, r);
	if (r->point == SC_TREE_PARENT) {
		/* --parents: a directory of the operand's path made, or its
		 * attributes set after the copy */
		if (r->made && o->verbose)
			sc_report_parent_made(&cp->cur.msgs, te->src, te->dst,
					      !o->as_cp);
		else if (!r->made && sc_record_meta(cp, te, r) < 0)
			cp->failures++;
		return 0;
	}
	/* no memory to keep what it interrupts: said in its messages */
	if (hooks_at_depth(cp, te->depth) < 0)
		sc_report_fail(&cp->cur.msgs, SC_FAIL_NO_MEMORY, 0, NULL,
			       NULL);
	if (r->point == SC_TREE_ENTERED) {
		if (r->made)
			record(cp, te, false);
		return 0;
	}
	/* a file the walk copied without asking BEFORE: cp's -v line
	 * first */
	if (te->kind != SC_TREE_DIR && (r->made || r->rep))
		sc_entry_announce(cp, te->src, te->dst);
	if (te->kind == SC_TREE_FILE && r->rep) {
		a = sc_file_said(cp, te, r);
	} else {
		if (sc_record_meta(cp, te, r) < 0)
			cp->cur.msgs.failed = true;
		if (r->made)
			record(cp, te, r->replaced);
	}
	err = r->err < 0 ? r->err : a < 0 ? a : 0;
	/* what an operand became, for those after it */
	if (!err && !r->skipped && te->top && cp->multi && !o->explain)
		sc_seen_remember_made(&cp->seen, te->dst);
	if (cp->cur.msgs.failed) {
		/* a failed entry's backup gets its name back; the entry is
		 * counted, and --json says it failed */
		sc_dest_unbackup(cp, te);
		cp->failures++;
		sc_entry_report_failed(cp, te);
	}
	a = a < 0 ? a : cp->cur.msgs.failed ? SC_TREE_FLAWED : 0;
	/* its end: back in the entry it interrupted */
	if (te->depth)
		hooks_at_depth(cp, te->depth - 1);
	return a;
}

void hooks_output(void *arg, const char *out, size_t out_len,
		  const char *err, size_t err_len,
		  const struct sc_tree_run *runs, size_t n_runs)
{
	(void)arg;
	sc_report_buffered_out(out, out_len, err, err_len, runs, n_runs);
}
