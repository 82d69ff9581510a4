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
#include "policy/dest.h"
#include "policy/file.h"
#include "policy/record.h"
#include "policy/seen.h"
#include "walk/walk_state.h"
#include "output/report.h"

#include <errno.h>
#include <stdlib.h>

int hooks_at_depth(struct hooks *h, unsigned d)
{
	struct sc_msgs *m = &h->walk->wk.msgs;

	if (d > h->depth) {
		if (d > h->cap) {
			unsigned cap = d + d / 2 + 16;
			struct sc_msgs *s = realloc(h->stack,
						    cap * sizeof(*s));

			if (!s)
				return -ENOMEM;
			h->stack = s;
			h->cap = cap;
		}
		for (unsigned k = h->depth; k < d; k++)
			h->stack[k] = *m;
		sc_report_begin(m);
	} else if (d < h->depth) {
		*m = h->stack[d];
	}
	h->depth = d;
	return 0;
}

void hooks_free(struct hooks *h)
{
	free(h->stack);
	h->stack = NULL;
	h->cap = h->depth = 0;
}

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
	r = hooks_at_depth(arg, te->depth);
	if (r < 0)
		return sc_report_fail(&w->wk.msgs, SC_FAIL_MEMORY, -r, te->src,
				      NULL);
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
	if (multi && o->backup == SC_BACKUP_NONE && !o->explain &&
	    (r = sc_seen_through_new_symlink(&w->seen, &w->wk, &e)) < 0)
		return r;
	/* copied from here on: called as cp, -v names what is not a
	 * directory ahead of the copy */
	if (te->kind != SC_TREE_DIR)
		sc_entry_announce(&w->wk, &w->e, te->src, te->dst);
	return 0;
}

/* The record of TE, which was made (REPLACED: a link took the place of
 * what was there). */
static void record(struct walk *w, const struct sc_tree_entry *te,
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

	sc_entry_report(&w->wk, &w->e, &rec);
}

/* A directory's attributes set at the end of the run (-j): its words,
 * and a second record (--json) when they failed it, in messages of its
 * own. */
static int after_late(struct walk *w, const struct sc_tree_entry *te,
		      const struct sc_tree_result *r)
{
	struct sc_msgs outer = w->wk.msgs;

	sc_report_begin(&w->wk.msgs);
	sc_record_meta(&w->wk, te, r);
	if (r->err < 0) {
		w->run->failures++;
		w->wk.msgs.failed = true;
	}
	if (w->wk.msgs.failed && w->run->o->json)
		record(w, te, false);
	w->wk.msgs = outer;
	return 0;
}

int hooks_after(void *arg, const struct sc_tree_entry *te,
		const struct sc_tree_result *r)
{
	struct hooks *h = arg;
	struct walk *w = h->walk;
	const struct sc_options *o = w->run->o;
	int a = 0, err;

	if (r->point == SC_TREE_LATE)
		return after_late(w, te, r);
	/* no memory to keep the messages of the entry it interrupts: said
	 * in them */
	if (hooks_at_depth(h, te->depth) < 0)
		sc_report_fail(&w->wk.msgs, SC_FAIL_NO_MEMORY, 0, NULL, NULL);
	if (r->point == SC_TREE_ENTERED) {
		if (r->made)
			record(w, te, false);
		return 0;
	}
	/* a file the walk copied without asking BEFORE: cp's -v line
	 * first */
	if (te->kind != SC_TREE_DIR && (r->made || r->rep))
		sc_entry_announce(&w->wk, &w->e, te->src, te->dst);
	if (te->kind == SC_TREE_FILE && r->rep) {
		a = sc_file_said(&w->wk, &w->e, te, r);
	} else {
		if (sc_record_meta(&w->wk, te, r) < 0)
			w->wk.msgs.failed = true;
		if (r->made)
			record(w, te, r->replaced);
	}
	err = r->err < 0 ? r->err : a < 0 ? a : 0;
	/* what an operand became, for those after it */
	if (!err && !r->skipped && te->top && w->multi && !o->explain)
		sc_seen_remember_made(&w->seen, te->dst);
	if (w->wk.msgs.failed) {
		/* a failed entry's backup gets its name back; the entry is
		 * counted, and --json says it failed */
		sc_dest_unbackup(&w->wk, &w->e, te->dst);
		w->run->failures++;
		sc_entry_report_failed(&w->wk, &w->e, te->src, te->dst,
				       te->top);
	}
	a = a < 0 ? a : w->wk.msgs.failed ? SC_TREE_FLAWED : 0;
	/* its end: the messages of the entry it interrupted */
	if (te->depth)
		hooks_at_depth(h, te->depth - 1);
	return a;
}
