/* Did the copy come out right: --verify, its one repair through
 * read_write, and a source that changed while it was copied.  The
 * messages go through report.c, into the walk's struct sc_msgs. */
#include "system.h"
#include "proof.h"
#include "walk_state.h"
#include "change.h"
#include "copy.h"
#include "plan.h"
#include "quote.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* Says that --verify could not read or write (V = -errno, SIDE the
 * side); returns V. */
static int verify_error(struct walk *w, struct sc_record *rec, int v,
			enum sc_verify_side side)
{
	sc_report_error(&w->msgs, -v,
			side == SC_VSIDE_SOURCE ? _("error reading %s") :
			side == SC_VSIDE_WRITE ? _("error writing %s") :
			_("error reading back %s"),
			sc_quote(side == SC_VSIDE_SOURCE ? rec->src : rec->dst));
	rec->failure = side == SC_VSIDE_SOURCE ? "read" :
		       side == SC_VSIDE_WRITE ? "write" : "verify";
	return v;
}

/* --verify after a successful copy; repairs once with read_write.
 * Returns 0 when the destination holds the source's bytes, else -errno
 * (-EBADMSG: still differs) with the message printed. */
int sc_proof_verify(struct walk *w, struct sc_record *rec, int in,
		    int out, mode_t out_mode, const struct stat *ist,
		    bool out_seekable)
{
	struct sc_plan rw;
	struct sc_copy_result again;
	enum sc_verify_side side = SC_VSIDE_BACK;
	off_t bad = 0;
	int v, e;

	for (int pass = 0;; pass++) {
		bool digests = rec->res.road_bytes[SC_ROAD_RW] == rec->res.bytes &&
			       sc_digests_cover(&w->ctx.dg, rec->res.size);

		if (!digests && (!S_ISREG(ist->st_mode) ||
				 sc_plan_size_untrusted(rec->src_fs))) {
			/* Bytes we cannot read twice, moved by a kernel road:
			 * only a copy through our own hands can be checked. */
			v = 0;
			bad = 0;
		} else {
			v = sc_verify(in, out, rec->res.size, digests,
				      S_ISREG(ist->st_mode) &&
				      !sc_plan_size_untrusted(rec->src_fs),
				      w->o->sync, &w->ctx.dg, w->ctx.buf,
				      w->ctx.bufsize,
				      &bad, &side);
		}
		if (v < 0)
			return verify_error(w, rec, v, side);
		if (v == 1) {
			rec->verify = pass ? SC_VERIFY_REPAIRED : SC_VERIFY_OK;
			return 0;
		}
		rec->verify_bad = bad;
		if (pass) {
			rec->verify = SC_VERIFY_FAILED;
			rec->failure = "verify";
			sc_report_error(&w->msgs, 0,
					_("%s differs from %s at byte %lld, also after copying again"),
					sc_quote(rec->dst), sc_quote(rec->src),
					(long long)bad);
			return -EBADMSG;
		}
		/* The road lied: copy again through read/write, where every
		 * byte passes through smartcp and is hashed on the way.  A
		 * block device is simply written over again. */
		if (S_ISREG(out_mode) && ftruncate(out, 0) < 0) {
			sc_report_error(&w->msgs, errno, _("error writing %s"),
					sc_quote(rec->dst));
			return -errno;
		}
		sc_plan_repair(&rw);
		e = sc_copy_data(&w->ctx, in, out, ist, out_seekable, &rw,
				 !sc_plan_size_untrusted(rec->src_fs), &again);
		sc_copy_result_merge(&rec->res, &again);
		if (e < 0) {
			sc_report_error(&w->msgs, -e,
					again.side == SC_SIDE_READ ?
					_("error reading %s") :
					_("error writing %s"),
					sc_quote(again.side == SC_SIDE_READ ?
						 rec->src : rec->dst));
			rec->failure = again.side == SC_SIDE_READ ? "read" : "write";
			return e;
		}
	}
}

/* Has SRC, open as IN and fstat'ed as BEFORE before its first byte was
 * copied, changed since?  Its name is looked at again as the walk opened
 * it (through the directory's descriptor, following links or not): while
 * it leads to the same file, that one stat tells all; when it leads
 * elsewhere or nowhere, the open file is asked too (the destination is
 * cut to what that file still holds).  The inode of an open descriptor
 * never changes, so only the name can tell a file replaced by a rename,
 * as a log rotation or a package upgrade does.  Fills CH; true when the
 * source changed.  Never fails: a stat that cannot be made tells nothing. */
bool sc_proof_source_changed(struct walk *w, const char *src, int in,
			     bool follow, const struct stat *before,
			     bool generated, struct sc_change *ch)
{
	struct stat now, mine;
	int r = fstatat(w->at_fd, w->at_name, &now,
			follow ? 0 : AT_SYMLINK_NOFOLLOW);
	enum sc_change_how who, what;

	(void)src;	/* named by W */
	who = sc_change_identity(before, &now, r < 0 ? -errno : 0, generated);
	if (r == 0 && who == SC_CHANGE_NONE)
		mine = now;
	else if (fstat(in, &mine) < 0)
		mine = *before;
	what = sc_change_compare(before, &mine, generated);
	ch->how = who > what ? who : what;
	ch->size_before = before->st_size;
	ch->size_after = mine.st_size;
	return ch->how != SC_CHANGE_NONE;
}

/* The destination of a source that changed (REC->change) as it must be
 * left: its size is asked (a clone copies what the file held at that
 * moment, not what the first stat said), and it is cut to what the
 * source still holds when that shrank, so no stale tail of bytes the
 * source no longer has stays past its end.  0 or -errno. */
int sc_proof_settle_changed(struct sc_record *rec, int out, bool out_reg,
			    bool generated)
{
	struct stat ost;

	if (!out_reg)
		return 0;
	if (fstat(out, &ost) == 0)
		rec->res.size = ost.st_size;
	if (!generated && rec->change.size_after < rec->res.size) {
		if (ftruncate(out, rec->change.size_after) < 0)
			return -errno;
		rec->res.size = rec->change.size_after;
	}
	return 0;
}

/* Says that SRC changed while it was copied (REC->change); fails the
 * file unless ALLOWED. */
void sc_proof_say_changed(struct walk *w, struct sc_record *rec,
			  bool allowed)
{
	char what[256];

	if (allowed)
		return;
	rec->change_failed = true;
	sc_report_change_text(what, sizeof(what), &rec->change, true);
	if (rec->change.again)
		sc_report_error(&w->msgs, 0,
				_("%s changed while it was copied, and again while it was copied once more: %s"),
				sc_quote(rec->src), what);
	else
		sc_report_error(&w->msgs, 0,
				_("%s changed while it was copied: %s"),
				sc_quote(rec->src), what);
}

/* --verify of a source that changed while it was copied (REC->change):
 * the bytes that were read prove nothing about the source now.  The copy
 * is compared with the source as it now is, and if they differ it is
 * copied once more with read_write; either is proven only if the source
 * held still meanwhile.  One retry, as rsync's: never a loop.  A source
 * replaced or removed cannot be reached through IN any more.  Returns 0
 * when the destination holds the source as it now is, else -errno with
 * the message said (-EBADMSG: it changed again, or still differs). */
int sc_proof_verify_changed(struct walk *w, struct sc_record *rec, int in,
			    int out, mode_t out_mode, bool out_seekable,
			    bool follow, bool generated)
{
	struct sc_plan rw;
	struct sc_copy_result again;
	struct sc_change ch = { 0 };
	enum sc_verify_side side = SC_VSIDE_BACK;
	struct stat now;
	off_t bad = 0;
	int v, e;

	if (rec->change.how == SC_CHANGE_REPLACED ||
	    rec->change.how == SC_CHANGE_REMOVED || generated)
		goto changed;
	if (fstat(in, &now) < 0) {
		sc_report_error(&w->msgs, errno, _("cannot fstat %s"),
				sc_quote(rec->src));
		return -errno;
	}
	if (now.st_size == rec->res.size) {
		v = sc_verify(in, out, rec->res.size, false, true,
			      w->o->sync, &w->ctx.dg, w->ctx.buf,
			      w->ctx.bufsize, &bad, &side);
		if (v < 0)
			return verify_error(w, rec, v, side);
		if (v == 1 && !sc_proof_source_changed(w, rec->src, in, follow, &now,
						       false, &ch)) {
			rec->verify = SC_VERIFY_CURRENT;
			return 0;
		}
	}
	/* Once more, from the start, through smartcp's hands. */
	if (fstat(in, &now) < 0) {
		sc_report_error(&w->msgs, errno, _("cannot fstat %s"),
				sc_quote(rec->src));
		return -errno;
	}
	if (S_ISREG(out_mode) && ftruncate(out, 0) < 0) {
		sc_report_error(&w->msgs, errno, _("error writing %s"),
				sc_quote(rec->dst));
		return -errno;
	}
	sc_plan_repair(&rw);
	e = sc_copy_data(&w->ctx, in, out, &now, out_seekable, &rw, true,
			 &again);
	sc_copy_result_merge(&rec->res, &again);
	if (e < 0) {
		sc_report_error(&w->msgs, -e, again.side == SC_SIDE_READ ?
				_("error reading %s") : _("error writing %s"),
				sc_quote(again.side == SC_SIDE_READ ? rec->src :
					 rec->dst));
		rec->failure = again.side == SC_SIDE_READ ? "read" : "write";
		return e;
	}
	if (sc_proof_source_changed(w, rec->src, in, follow, &now, false, &ch)) {
		ch.again = true;
		rec->change = ch;
		goto changed;
	}
	v = sc_verify(in, out, rec->res.size,
		      sc_digests_cover(&w->ctx.dg, rec->res.size), true,
		      w->o->sync, &w->ctx.dg, w->ctx.buf, w->ctx.bufsize,
		      &bad, &side);
	if (v < 0)
		return verify_error(w, rec, v, side);
	if (v == 1) {
		rec->verify = SC_VERIFY_RECOPIED;
		return 0;
	}
	rec->verify_bad = bad;
	rec->verify = SC_VERIFY_FAILED;
	rec->failure = "verify";
	sc_report_error(&w->msgs, 0,
			_("%s differs from %s at byte %lld, also after copying again"),
			sc_quote(rec->dst), sc_quote(rec->src), (long long)bad);
	return -EBADMSG;

changed:
	/* Nothing that can be proven: --verify fails, whatever
	 * --allow-changing-source says of changes alone. */
	rec->verify = SC_VERIFY_FAILED;
	rec->failure = "changed";
	sc_proof_say_changed(w, rec, false);
	rec->change_failed = false;	/* rec->err says it */
	return -EBADMSG;
}
