/* cp's policy in the tree copy's callbacks (walk/tree.h).  BEFORE an
 * entry is copied: an operand named twice, a directory an earlier
 * operand made met again, what is at the destination (the same file, -u,
 * -n, -i, a directory against a file, a backup or a removal: dest.c's
 * sc_dest_settle()), a symlink this run made written through.  AFTER it:
 * what an operand became, for the operands after it; a backup made for
 * an entry that failed gets its name back. */
#include "system.h"
#include "policy/hooks.h"
#include "policy/dest.h"
#include "policy/seen.h"
#include "walk/walk_state.h"
#include "output/report.h"

int hooks_before(void *arg, const struct sc_tree_entry *te,
		 struct sc_tree_decision *d)
{
	struct walk *w = ((struct hooks *)arg)->walk;
	const struct sc_options *o = w->run->o;
	bool multi = te->top && w->multi;
	struct decision e = {
		.src = te->src, .dst = te->dst, .cmdline = te->top,
		.follow = te->followed, .sst = *te->sst,
		.dst_exists = te->dst_st && !te->dst_loop,
		.loop = te->dst_loop,
	};
	int r;

	d->verdict = SC_TREE_CONTINUE;
	if (te->dst_st)
		e.dst_st = *te->dst_st;
	if (multi && !o->explain &&
	    sc_seen_named_twice(&w->seen, &w->wk, o->backup != SC_BACKUP_NONE,
				te->src, te->dst, te->sst)) {
		d->verdict = SC_TREE_SKIP;
		return 0;
	}
	r = sc_seen_dir_again(w->run->seen, &w->wk, &e);
	if (r < 0)
		return r;
	if (te->dst_err)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_STAT, te->dst_err,
				      te->dst, NULL);
	if (e.dst_exists) {
		r = sc_dest_settle(&w->wk, &w->e, &e, multi ? &w->seen : NULL);
		if (r != SC_SETTLED_COPY) {
			d->verdict = SC_TREE_SKIP;
			return r < 0 ? r : 0;
		}
		if (!e.dst_exists)
			d->flags |= SC_TREE_DST_GONE;
	}
	if (multi && o->backup == SC_BACKUP_NONE && !o->explain)
		return sc_seen_through_new_symlink(&w->seen, &w->wk, &e);
	return 0;
}

void hooks_after(void *arg, const struct sc_tree_entry *te,
		 const struct sc_tree_result *r)
{
	struct walk *w = ((struct hooks *)arg)->walk;

	if (!r->err && !r->skipped && te->top && w->multi &&
	    !w->run->o->explain)
		sc_seen_remember_made(&w->seen, te->dst);
	if (w->wk.msgs.failed)
		sc_dest_unbackup(&w->wk, &w->e, te->dst);
}
