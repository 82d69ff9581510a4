/* The copy of one regular file (or, without -R, of the data of a FIFO or
 * device): the program's side of libsmartcp's one pipeline.  The library
 * does everything to the file (sc_copy_ctx_copy: open, --if-changed's
 * comparison, the destination in place, removed first or as an --atomic
 * temporary, the plan with the roads learned per filesystem pair,
 * fallback, holes, a source that changed, --verify and its repair, the
 * metadata, --sync, the removal of a partial file) and says what
 * happened as events; this adapter says them as smartcp always has, with
 * cp's words, and makes the record -v, --json and --explain print.
 * What the walk decided before (the destination policy, hard links) is
 * dest.c's and walk.c's.
 *
 * The messages of a file, by event (in the order the library adds them,
 * which is the order they were always said in; "q" is sc_quote, "ql"
 * sc_quote_locale; E an error that fails the file, W said but failing
 * only as the metadata rules say, (rec) the record fields it sets):
 *
 *   SC_EV_OPEN_SOURCE   E "cannot open %s for reading" q(src)
 *   SC_EV_STAT_SOURCE   E "cannot fstat %s" q(src)
 *   SC_EV_REPLACED      E "skipping file %s, as it was replaced while
 *                          being copied" q(src), no errno
 *   SC_EV_COMPARE       E "error reading %s" q(src)   (--if-changed)
 *   SC_EV_REMOVE_DEST   -f: err 0 "removed %s" under -v
 *                       (sc_report_removed); else E "cannot remove %s"
 *   SC_EV_OPEN_DEST     E "cannot create regular file %s" q(dst)
 *   SC_EV_DANGLING      E "not writing through dangling symlink %s"
 *   SC_EV_STAT_DEST     E "cannot fstat %s" q(dst)
 *   SC_EV_UNVERIFIABLE  E "cannot verify %s: nothing written there can
 *                          be read back" q(dst) (rec failure "verify")
 *   SC_EV_DATA          E say_copy_failed(): "failed to clone %s from
 *                          %s", "failed to extend %s", "error copying %s
 *                          to %s" (as cp), "error reading %s", "error
 *                          writing %s" (rec failure, err: the road's)
 *   SC_EV_CHANGED       E "%s changed while it was copied[, and again
 *                          while it was copied once more]: %s" unless
 *                          allowed (rec change_failed; with --verify
 *                          always, failure "changed")
 *   SC_EV_REPAIR_START  E "error writing %s" q(dst)
 *   SC_EV_REPAIR        E "error reading %s" q(src) / "error writing %s"
 *                          q(dst) by side (rec failure read/write)
 *   SC_EV_VERIFY        err: E "error reading %s" q(src), "error writing
 *                          %s", "error reading back %s" q(dst) by vside
 *                          (rec failure read/write/verify); no err: E
 *                          "%s differs from %s at byte %lld, also after
 *                          copying again" (rec failure "verify")
 *   SC_EV_META_*, SC_EV_OLD_*   as attrs.c says them (sc_attrs_say);
 *                       then, with --atomic, W "%s was not replaced"
 *                       (or "not created") where they threw the whole
 *                       copy away, W "%s was replaced, though ..."
 *                       where the old mode was not taken
 *   SC_EV_SYNC          E "error writing %s" q(dst)
 *   SC_EV_COMMIT        E "cannot replace %s" q(dst)
 *   SC_EV_CLOSE         E "failed to close %s" q(dst)
 *   SC_EV_SYNC_DIR      E "cannot sync the directory of %s" q(dst)
 *
 * A failure before the destination was opened makes no record (its
 * messages say it; --json's walk says the entry failed); one after it
 * does, for --json, with the error the data step, the verification or
 * the final steps ended with. */
#include "system.h"
#include "policy/file.h"
#include "policy/cp.h"
#include "policy/attrs.h"
#include "policy/dest.h"
#include "policy/record.h"
#include "output/quote.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A copy that failed (E: the library's answer): the -errno it comes to,
 * that of the first error said about the entry where one was. */
static int failure(const struct cp *cp, int e)
{
	return cp->cur.msgs.code ? cp->cur.msgs.code : e < 0 ? e : -EIO;
}

/* One file's copy, as the adapter sees it. */
struct file_copy {
	const char *src, *dst;
	struct sc_record *rec;
	const struct sc_copy_report *rep;
	const struct stat *dst_st;	/* the destination there, or NULL */
	struct sc_attrs_env env;	/* saying its metadata's events */
	bool atomic;		/* --atomic, where it applies */
	/* what its events came to (say_events()): a metadata event failed
	 * it (META_FAILED); another event failed it first (FAILED: its
	 * kind, FAILED_KIND) */
	bool meta_failed, failed;
	enum sc_event_kind failed_kind;
};

/* Says why the data could not be copied (E = -errno, the road's), in
 * cp's words. */
static void say_copy_failed(struct cp *cp, const struct file_copy *f,
			    int e)
{
	const struct sc_options *o = cp->o;
	struct sc_record *rec = f->rec;
	const struct sc_copy_report *res = f->rep;
	unsigned n = sc_copy_report_attempts(res);
	enum sc_road last = SC_ROAD_RW;
	enum sc_side side;
	bool any = n > 0;

	if (any)
		sc_copy_report_attempt(res, n - 1, &last, NULL, NULL);
	sc_copy_report_data_error(res, &side);
	/* with no attempt at all, the clone was already refused for this
	 * pair of filesystems */
	if (o->reflink == SC_REFLINK_ALWAYS &&
	    (!any || last == SC_ROAD_CLONE)) {
		rec->failure = "clone";
		sc_report_fail(&cp->cur.msgs, SC_FAIL_CLONE, -e, f->dst, f->src);
	} else if (sc_copy_report_flags(res) & SC_REPORT_EXTEND_FAILED) {
		rec->failure = "write";
		sc_report_fail(&cp->cur.msgs, SC_FAIL_EXTEND, -e, f->dst, NULL);
	} else if (o->as_cp && any && last == SC_ROAD_RANGE) {
		/* cp's words for a copy_file_range that failed; under its
		 * own name smartcp finds the end that failed
		 * (road_range.c) */
		rec->failure = "copy";
		sc_report_fail(&cp->cur.msgs, SC_FAIL_COPY, -e, f->src, f->dst);
	} else if (side == SC_SIDE_READ) {
		rec->failure = "read";
		sc_report_fail(&cp->cur.msgs, SC_FAIL_READ, -e, f->src, NULL);
	} else {
		rec->failure = "write";
		sc_report_fail(&cp->cur.msgs, SC_FAIL_WRITE, -e, f->dst, NULL);
	}
}

/* Says that the source changed while it was copied (REC->change); fails
 * the file unless ALLOWED. */
static void say_changed(struct cp *cp, struct sc_record *rec,
			bool allowed)
{
	char what[256];

	if (allowed)
		return;
	rec->change_failed = true;
	sc_report_change_text(what, sizeof(what), &rec->change, true);
	sc_report_fail(&cp->cur.msgs, rec->change.again ? SC_FAIL_CHANGED_AGAIN :
		       SC_FAIL_CHANGED, 0, rec->src, what);
}

static bool meta_kind(enum sc_event_kind k)
{
	return (k >= SC_EV_META_TIMES && k <= SC_EV_META_STAT) ||
	       k == SC_EV_META_RESTORE ||
	       (k >= SC_EV_OLD_LIST && k <= SC_EV_OLD_MODE);
}

/* The events said by one message naming the source or its copy (DST),
 * with the event's errno (ERR) or without. */
static const struct {
	enum sc_event_kind kind;
	enum sc_fail what;
	bool dst, err;
} plain_events[] = {
	{ SC_EV_OPEN_SOURCE, SC_FAIL_OPEN_READ, false, true },
	{ SC_EV_STAT_SOURCE, SC_FAIL_FSTAT, false, true },
	{ SC_EV_REPLACED, SC_FAIL_FILE_REPLACED, false, false },
	{ SC_EV_COMPARE, SC_FAIL_READ, false, true },
	{ SC_EV_OPEN_DEST, SC_FAIL_CREATE, true, true },
	{ SC_EV_DANGLING, SC_FAIL_DANGLING, true, false },
	{ SC_EV_STAT_DEST, SC_FAIL_FSTAT, true, true },
	{ SC_EV_REPAIR_START, SC_FAIL_WRITE, true, true },
	{ SC_EV_SYNC, SC_FAIL_WRITE, true, true },
	{ SC_EV_COMMIT, SC_FAIL_REPLACE, true, true },
	{ SC_EV_CLOSE, SC_FAIL_CLOSE, true, true },
	{ SC_EV_SYNC_DIR, SC_FAIL_SYNC_DIR, true, true },
};

/* --verify found the copy wrong, or could not read or write to check. */
static void say_verify_failed(struct cp *cp, struct file_copy *f,
			      const struct sc_event *ev)
{
	struct sc_record *rec = f->rec;
	int err = -ev->err;

	if (err) {
		sc_report_fail(&cp->cur.msgs, ev->vside == SC_VSIDE_SOURCE ?
			       SC_FAIL_READ : ev->vside == SC_VSIDE_WRITE ?
			       SC_FAIL_WRITE : SC_FAIL_READ_BACK, err,
			       ev->vside == SC_VSIDE_SOURCE ? f->src : f->dst,
			       NULL);
		rec->failure = ev->vside == SC_VSIDE_SOURCE ? "read" :
			       ev->vside == SC_VSIDE_WRITE ? "write" :
			       "verify";
	} else {
		rec->failure = "verify";
		sc_report_fail_at(&cp->cur.msgs, SC_FAIL_DIFFERS, 0, f->dst, f->src,
				  (long long)ev->offset);
	}
}

/* Says event EV of F's copy as smartcp always said it (the table
 * above), setting the record's fields the message goes with. */
static void say_event(struct cp *cp, struct file_copy *f,
		      const struct sc_event *ev)
{
	const struct sc_options *o = cp->o;
	struct sc_record *rec = f->rec;
	int err = -ev->err;

	for (size_t i = 0; i < ARRAY_SIZE(plain_events); i++)
		if (plain_events[i].kind == ev->kind) {
			sc_report_fail(&cp->cur.msgs, plain_events[i].what,
				       plain_events[i].err ? err : 0,
				       plain_events[i].dst ? f->dst : f->src,
				       NULL);
			return;
		}
	switch (ev->kind) {
	case SC_EV_REMOVE_DEST:
		if (err)
			sc_report_fail(&cp->cur.msgs, SC_FAIL_REMOVE, err, f->dst,
				       NULL);
		else if (o->verbose)
			sc_report_removed(&cp->cur.msgs, f->dst);
		break;
	case SC_EV_UNVERIFIABLE:
		sc_report_fail(&cp->cur.msgs, SC_FAIL_UNVERIFIABLE, 0, f->dst, NULL);
		rec->failure = "verify";
		break;
	case SC_EV_DATA:
		say_copy_failed(cp, f, ev->err);
		break;
	case SC_EV_CHANGED:
		if (ev->fatal) {
			/* Nothing that can be proven: --verify fails,
			 * whatever --allow-changing-source says of changes
			 * alone. */
			rec->failure = "changed";
			say_changed(cp, rec, false);
			rec->change_failed = false;	/* rec->err says it */
		} else {
			/* As cp, the copy is kept (it holds what was read)
			 * and, as tar, the run fails; GNU cp says nothing,
			 * and under its name neither does smartcp. */
			say_changed(cp, rec, o->allow_changing_source ||
				    o->as_cp);
		}
		break;
	case SC_EV_REPAIR:
		sc_report_fail(&cp->cur.msgs, ev->side == SC_SIDE_READ ?
			       SC_FAIL_READ : SC_FAIL_WRITE, err,
			       ev->side == SC_SIDE_READ ? f->src : f->dst,
			       NULL);
		rec->failure = ev->side == SC_SIDE_READ ? "read" : "write";
		break;
	case SC_EV_VERIFY:
		say_verify_failed(cp, f, ev);
		break;
	default:
		if (meta_kind(ev->kind) || ev->kind == SC_EV_META_XATTR ||
		    ev->kind == SC_EV_META_XATTR_CONF)
			sc_attrs_say(&f->env, ev, f->src, f->dst);
		break;	/* SC_EV_CANCELED, and kinds added later */
	}
}

/* Says every event of F's copy, in order, and notes in F what they came
 * to. */
static void say_events(struct cp *cp, struct file_copy *f)
{
	unsigned n = sc_copy_report_events(f->rep);

	f->meta_failed = f->failed = false;
	f->env = (struct sc_attrs_env){
		.o = cp->o, .privileged = cp->privileged,
		.msgs = &cp->cur.msgs,
		.src_st = sc_copy_report_src_stat(f->rep),
		.old_st = f->dst_st,
	};
	for (unsigned i = 0; i < n; i++) {
		struct sc_event ev = { .size = sizeof(ev) };

		if (sc_copy_report_event(f->rep, i, &ev) < 0)
			continue;
		say_event(cp, f, &ev);
		if (ev.fatal && (meta_kind(ev.kind) ||
				 ev.kind == SC_EV_META_XATTR) &&
		    ev.kind != SC_EV_OLD_MODE) {
			f->meta_failed = true;
		} else if (ev.fatal && !f->failed) {
			f->failed = true;
			f->failed_kind = ev.kind;
		}
		if (ev.kind == SC_EV_DATA && !f->rec->err)
			f->rec->err = ev.err;	/* the road's own error */
	}
}

/* The record's part that the report says. */
static void fill_record(struct sc_record *rec,
			const struct sc_copy_report *rep)
{
	const struct stat *ist = sc_copy_report_src_stat(rep);
	unsigned flags = sc_copy_report_flags(rep);
	enum sc_change_how how;
	off_t before, after;
	bool again;

	rec->src_fs = sc_copy_report_src_fs(rep);
	rec->dst_fs = sc_copy_report_dst_fs(rep);
	if (ist) {
		rec->src_size = ist->st_size;
		rec->src_sparse = (uint64_t)ist->st_blocks * 512 <
				  (uint64_t)ist->st_size;
	}
	rec->plan = sc_copy_report_plan(rep);
	rec->planned = rec->plan != NULL;
	rec->copied = flags & SC_REPORT_COPIED;
	rec->res = rep;
	rec->unchanged = flags & SC_REPORT_UNCHANGED;
	switch (sc_copy_report_verify(rep, &rec->verify_bad)) {
	case SC_VERIFIED_OK:
		rec->verify = SC_VERIFY_OK;
		break;
	case SC_VERIFIED_REPAIRED:
		rec->verify = SC_VERIFY_REPAIRED;
		break;
	case SC_VERIFIED_CURRENT:
		rec->verify = SC_VERIFY_CURRENT;
		break;
	case SC_VERIFIED_RECOPIED:
		rec->verify = SC_VERIFY_RECOPIED;
		break;
	case SC_VERIFIED_FAILED:
		rec->verify = SC_VERIFY_FAILED;
		break;
	default:
		rec->verify = SC_VERIFY_NONE;
		break;
	}
	how = sc_copy_report_change(rep, &before, &after, &again);
	rec->change = (struct sc_rec_change){
		.how = how, .size_before = before, .size_after = after,
		.again = again,
	};
}

/* --explain of the file F, planned as the run would copy it (E: the
 * library's answer): what the run decides before its first byte, said
 * as the run says it, then the plan.  Nothing was created, written or
 * read.  0, or -errno (said). */
static int explain_file(struct cp *cp,
			struct file_copy *f, int e)
{
	fill_record(f->rec, f->rep);
	say_events(cp, f);
	if (f->failed || e < 0)
		return failure(cp, e);
	sc_entry_report(cp, f->rec);
	return 0;
}

/* --atomic: a whole copy was thrown away because an attribute asked for
 * could not be set (all or nothing): the messages before said which,
 * this says what became of the destination, which the user could not
 * tell from them (issue 37). */
static void say_not_replaced(struct cp *cp, const struct file_copy *f)
{
	if (f->atomic)
		sc_report_warn(&cp->cur.msgs, f->dst_st ? SC_WARN_NOT_REPLACED :
			       SC_WARN_NOT_CREATED, 0, f->dst, NULL);
}

/* The outcome of a copy that returned E in SECONDS, its events said (F
 * says what they came to).  0, or -errno with the record made for
 * --json. */
static int outcome(struct cp *cp, struct file_copy *f,
		   int e, double seconds)
{
	struct sc_record *rec = f->rec;
	unsigned flags = sc_copy_report_flags(f->rep);

	if (f->meta_failed)
		cp->cur.msgs.failed = true;
	if (e == 0 || (!f->failed && f->meta_failed && !f->atomic &&
		       !(flags & SC_REPORT_UNCHANGED))) {
		/* done; an attribute that was not kept, in place, fails the
		 * entry but not the copy (its data is whole) */
		rec->seconds = seconds;
		sc_entry_report(cp, rec);
		return 0;
	}
	if (flags & SC_REPORT_UNCHANGED)
		return failure(cp, e);	/* equal, and its attributes failed */
	if (!(flags & SC_REPORT_DEST_OPENED))
		return failure(cp, e);	/* said; nothing was made */
	/* What was made is gone (or emptied), or was never touched: the
	 * record says why.  A temporary that did not take the old file's
	 * or the asked attributes went: EPERM, as always. */
	if ((!f->failed && f->meta_failed) ||
	    (f->failed && f->failed_kind == SC_EV_OLD_MODE)) {
		rec->err = -EPERM;
		say_not_replaced(cp, f);
	}
	if (!rec->err)
		rec->err = e;
	rec->seconds = seconds;
	if (cp->o->json)
		sc_entry_report(cp, rec);
	return failure(cp, e);
}

/* -v: an --atomic copy F renamed a new file over a file with other names
 * (hard links), which keep the old bytes: a rename cannot put new data
 * in the inode they share, as a copy in place does (smartcp(1), under
 * --atomic).  (Where cp would have removed the old file first, the walk
 * handed over no old file.) */
static void say_links_left(struct cp *cp, const struct file_copy *f)
{
	if (f->atomic && f->dst_st && S_ISREG(f->dst_st->st_mode) &&
	    f->dst_st->st_nlink > 1 &&
	    !(sc_copy_report_flags(f->rep) & SC_REPORT_UNCHANGED))
		sc_report_warn(&cp->cur.msgs, SC_WARN_LINKS_LEFT, 0, f->dst, NULL);
}

int sc_file_unchanged(struct cp *cp, const struct sc_tree_entry *te,
		      const struct stat *sst, const struct stat *dst_st,
		      bool follow)
{
	struct sc_record rec = { .src = te->src, .dst = te->dst,
				 .kind = SC_KIND_FILE };
	struct file_copy f = { .src = te->src, .dst = te->dst, .rec = &rec };
	const struct sc_options *o = cp->o;
	struct sc_copy_args a = {
		.size = sizeof(a),
		.src_dirfd = te->src_dirfd, .src_name = te->src_name,
		.src_fd = -1, .src_expect = sst,
		.dst_dirfd = te->dst_dirfd, .dst_name = te->dst_name,
		.dst_fd = -1, .dst_st = dst_st,
		.flags = SC_FILE_SOURCE_ANY | SC_FILE_COMPARE_ONLY |
			 (follow ? 0 : SC_FILE_NOFOLLOW) |
			 (o->force ? SC_FILE_FORCE : 0) |
			 (o->posixly_correct ? SC_FILE_DANGLING : 0),
	};
	struct timespec t0;
	int e;

	if (o->explain || !S_ISREG(sst->st_mode) || !S_ISREG(dst_st->st_mode))
		return SC_FILE_DIFFERS;	/* --explain reads no data */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	e = sc_copy_ctx_copy(cp->cx, &a, cp->crep);
	f.rep = cp->crep;
	fill_record(&rec, f.rep);
	say_events(cp, &f);
	if (!(sc_copy_report_flags(f.rep) & SC_REPORT_UNCHANGED))
		return e < 0 ? failure(cp, e) : SC_FILE_DIFFERS;
	if (e < 0 || f.failed || f.meta_failed) {
		cp->cur.msgs.failed = true;
		return failure(cp, e);
	}
	rec.seconds = elapsed(&t0);
	sc_entry_report(cp, &rec);
	return SC_FILE_SAME;
}

/* What the copy of F (its report F->rep) came to, the library having
 * answered E after SECONDS: its events said, its record made, and
 * --debug's line.  0, or -errno (said). */
static int say_copy(struct cp *cp, struct file_copy *f,
		    int e, double seconds)
{
	const struct sc_options *o = cp->o;
	struct sc_record *rec = f->rec;
	int r;

	fill_record(rec, f->rep);
	say_events(cp, f);
	r = outcome(cp, f, e, seconds);
	/* the old file's mode not taken, said: and yet replaced */
	if (r == 0 && f->atomic && f->env.old_mode_lost)
		sc_report_warn(&cp->cur.msgs, SC_WARN_REPLACED_ANYWAY, 0, f->dst,
			       NULL);
	if (r == 0 && o->verbose)
		say_links_left(cp, f);
	/* --debug: how the data went, once the source was open, as cp
	 * says it (cp 9.2 and later) */
	if ((sc_copy_report_flags(f->rep) & SC_REPORT_OPENED) && o->debug &&
	    !o->attributes_only && !o->json && !o->explain)
		sc_report_debug(sc_report_out(&cp->cur.msgs),
				rec->copied ? rec->res : NULL,
				rec->planned ? rec->plan : NULL,
				o->reflink != SC_REFLINK_NEVER &&
				!(rec->planned &&
				  sc_plan_by_option(rec->plan, SC_ROAD_CLONE)));
	return r;
}

int sc_file_said(struct cp *cp, const struct sc_tree_entry *te,
		 const struct sc_tree_result *r)
{
	const struct sc_options *o = cp->o;
	struct sc_record rec = { .src = te->src, .dst = te->dst,
				 .kind = SC_KIND_FILE };
	struct file_copy f = {
		.src = te->src, .dst = te->dst, .rec = &rec, .rep = r->rep,
		.dst_st = r->old_st,
		/* --attributes-only writes no data: the attributes go on the
		 * file in place, which a temporary renamed over it would
		 * empty */
		.atomic = o->atomic && !o->attributes_only,
	};

	if (o->explain)
		return explain_file(cp, &f, r->rep_err);
	return say_copy(cp, &f, r->rep_err, r->seconds);
}
