/* The one pipeline's data step (see fcopy.c) and what checks it: the
 * copy by the plan's roads (and what a road that failed teaches the
 * copier), whether the source changed while it was copied, and
 * SC_COPY_VERIFY with its one repair.  Apart because it is the proof of
 * the bytes, where fcopy_dest.c is where they go. */
#include "common.h"
#include "fcopy.h"

#include <fcntl.h>
#include <sys/stat.h>

/* Only errors that belong to the filesystem pair are learned: EPERM or
 * ETXTBSY belong to one file. */
static void learn_from(struct fcopy *f)
{
	const struct sc_copy_result *res = &f->rep->res;
	unsigned roads = 0;

	for (int i = 0; i < res->n_attempts; i++) {
		int err = -res->attempt[i].err;

		if (err == EXDEV || err == EOPNOTSUPP || err == ENOSYS ||
		    err == ENOTTY)
			roads |= 1u << res->attempt[i].road;
	}
	if (roads)
		sc_copier_learned_add(f->c, f->rep->src_fs, f->rep->dst_fs,
				      roads);
}

/* Has the source, fstat'ed as BEFORE before its first byte was copied,
 * changed since?  Its name is looked at again as it was opened (through
 * the directory's descriptor, following links or not): while it leads to
 * the same file, that one stat tells all; when it leads elsewhere or
 * nowhere, the open file is asked too (the destination is cut to what
 * that file still holds).  The inode of an open descriptor never
 * changes, so only the name can tell a file replaced by a rename, as a
 * log rotation or a package upgrade does.  Fills CH; true when the
 * source changed.  Never fails: a stat that cannot be made tells
 * nothing. */
static bool source_changed(struct fcopy *f, const struct stat *before,
			   bool generated, struct sc_change *ch)
{
	const struct sc_copy_args *a = f->a;
	struct stat now, mine;
	enum sc_change_how who = SC_CHANGE_NONE, what;
	int r = -1;

	if (a->src_name) {
		r = fstatat(a->src_dirfd, a->src_name, &now,
			    f->flags & SC_FILE_NOFOLLOW ?
			    AT_SYMLINK_NOFOLLOW : 0);
		who = sc_change_identity(before, &now, r < 0 ? -errno : 0,
					 generated);
	}
	if (r == 0 && who == SC_CHANGE_NONE)
		mine = now;
	else if (fstat(f->in, &mine) < 0)
		mine = *before;
	what = sc_change_compare(before, &mine, generated);
	*ch = (struct sc_change){
		.how = who > what ? who : what,
		.size_before = before->st_size, .size_after = mine.st_size,
	};
	return ch->how != SC_CHANGE_NONE;
}

/* The engine reached the size the source had: has it held still?  The
 * stat is the one the change check takes after the copy, taken now and
 * kept for it. */
static bool held_still(void *arg)
{
	struct fcopy *f = arg;

	f->still_asked = true;
	f->still = !source_changed(f, &f->ist, false, &f->still_change);
	return f->still;
}

/* The destination of a source that changed (CH) as it must be left: its
 * size is asked (a clone copies what the file held at that moment, not
 * what the first stat said), and it is cut to what the source still
 * holds when that shrank, so no stale tail of bytes the source no longer
 * has stays past its end.  0 or -errno. */
static int settle_changed(struct fcopy *f, bool generated)
{
	struct sc_copy_result *res = &f->rep->res;
	struct stat ost;

	if (!f->out_seekable || !S_ISREG(f->ost.st_mode))
		return 0;
	if (fstat(f->out, &ost) == 0)
		res->size = ost.st_size;
	if (!generated && f->rep->change.size_after < res->size) {
		if (ftruncate(f->out, f->rep->change.size_after) < 0)
			return -errno;
		res->size = f->rep->change.size_after;
	}
	return 0;
}

/* Does the source report holes (cp's test: fewer blocks than its
 * size)?  Then the verification skips the holes both files have. */
static bool src_sparse(const struct fcopy *f)
{
	return f->size_trusted && S_ISREG(f->ist.st_mode) &&
	       (uint64_t)f->ist.st_blocks * 512 < (uint64_t)f->ist.st_size &&
	       !f->rep->plan.no_holes;	/* SEEK_DATA not to be trusted */
}

/* sc_verify()'s flags for F's copy: MORE, and how F's copy is read back
 * (durably under SC_COPY_SYNC, skipping the holes of a sparse source). */
static unsigned verify_how(const struct fcopy *f, unsigned more)
{
	return more | (f->c->flags & SC_COPY_SYNC ? VERIFY_DURABLE : 0) |
	       (src_sparse(f) ? VERIFY_SPARSE : 0);
}

/* The copy again, through read_write, after a verification that failed
 * (ST: the source as it now is; TRUSTED: its size may be believed).  0
 * or -errno, with its event. */
static int repair(struct fcopy *f, const struct stat *st, bool trusted)
{
	struct sc_copy_report *rep = f->rep;
	struct sc_copy_result again;
	struct sc_plan rw;
	int e;

	/* The road lied: copy again through read/write, where every byte
	 * passes through the library and is hashed on the way.  A block
	 * device is simply written over again. */
	if (S_ISREG(f->ost.st_mode) && ftruncate(f->out, 0) < 0) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_REPAIR_START, e, true);
		return e;
	}
	sc_plan_repair(&rw);
	e = sc_copy_data(&f->x->eng, f->in, f->out, st, f->out_seekable, &rw,
			 trusted, &again);
	sc_copy_result_merge(&rep->res, &again);
	if (e < 0) {
		struct sc_ev *ev = sc_fcopy_event(f, SC_EV_REPAIR, e, true);

		if (ev)
			ev->side = again.side;
	}
	return e;
}

/* A verification that could not read or write (V, SIDE). */
static int verify_error(struct fcopy *f, int v, enum sc_verify_side side)
{
	struct sc_ev *ev = sc_fcopy_event(f, SC_EV_VERIFY, v, true);

	if (ev)
		ev->vside = side;
	return v;
}

/* The copy still differs at BAD after its repair. */
static int verify_differs(struct fcopy *f, off_t bad)
{
	struct sc_ev *ev = sc_fcopy_event(f, SC_EV_VERIFY, 0, true);

	f->rep->verify = SC_VERIFIED_FAILED;
	f->rep->verify_bad = bad;
	if (ev)
		ev->offset = bad;
	return -EBADMSG;
}

/* SC_COPY_VERIFY after a copy of a source that held still, or of a live
 * one by what was read (REREAD_OK false: the source is not read again);
 * repairs once with read_write.  0 when the destination holds the
 * source's bytes, else -errno (-EBADMSG: still differs), with its
 * event. */
static int verify(struct fcopy *f, bool reread_ok)
{
	struct sc_copy_report *rep = f->rep;
	struct sc_engine *eng = &f->x->eng;
	unsigned reread = reread_ok && S_ISREG(f->ist.st_mode) &&
			  f->size_trusted ? VERIFY_REREAD : 0;
	enum sc_verify_side side = SC_VSIDE_BACK;
	off_t bad = 0;
	int v, e;

	for (int pass = 0;; pass++) {
		unsigned how = reread |
			       (rep->res.road_bytes[SC_ROAD_RW] ==
				rep->res.bytes &&
				sc_digests_cover(&eng->dg, rep->res.size) ?
				VERIFY_DIGESTS : 0);

		if (!how) {
			/* Bytes that cannot be read twice, moved by a kernel
			 * road: only a copy through our own hands can be
			 * checked. */
			v = 0;
			bad = 0;
		} else if ((v = sc_engine_buf(eng)) == 0) {
			v = sc_verify(f->in, f->out, rep->res.size,
				      verify_how(f, how), &eng->dg, eng->buf,
				      eng->bufsize, &bad, &side);
		}
		if (v < 0)
			return verify_error(f, v, side);
		if (v == VERIFIED_EQUAL) {
			rep->verify = pass ? SC_VERIFIED_REPAIRED :
				      SC_VERIFIED_OK;
			return 0;
		}
		rep->verify_bad = bad;
		if (pass)
			return verify_differs(f, bad);
		e = repair(f, &f->ist, f->size_trusted);
		if (e < 0)
			return e;
	}
}

/* The source changed while it was copied: said, and, with SC_COPY_VERIFY
 * where nothing can be proven (FATAL), it fails the copy. */
static int changed(struct fcopy *f, bool fatal)
{
	sc_fcopy_event(f, SC_EV_CHANGED, 0, fatal);
	if (!fatal)
		return 0;
	f->rep->verify = SC_VERIFIED_FAILED;
	return -EBADMSG;
}

/* SC_COPY_VERIFY of a source that changed while it was copied: the bytes
 * that were read prove nothing about the source now.  The copy is
 * compared with the source as it now is, and if they differ it is copied
 * once more with read_write; either is proven only if the source held
 * still meanwhile.  One retry, as rsync's: never a loop.  A source
 * replaced or removed cannot be reached through IN any more.  0 when the
 * destination holds the source as it now is, else -errno with its event
 * (-EBADMSG: it changed again, or still differs). */
static int verify_changed(struct fcopy *f, bool generated)
{
	struct sc_copy_report *rep = f->rep;
	struct sc_engine *eng = &f->x->eng;
	struct sc_change ch = { 0 };
	enum sc_verify_side side = SC_VSIDE_BACK;
	struct stat now;
	off_t bad = 0;
	int v, e;

	if (rep->change.how == SC_CHANGE_REPLACED ||
	    rep->change.how == SC_CHANGE_REMOVED || generated)
		return changed(f, true);
	e = sc_engine_buf(eng);
	if (e < 0)
		return verify_error(f, e, SC_VSIDE_BACK);
	if (fstat(f->in, &now) < 0) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_STAT_SOURCE, e, true);
		return e;
	}
	if (now.st_size == rep->res.size) {
		v = sc_verify(f->in, f->out, rep->res.size,
			      verify_how(f, VERIFY_REREAD), &eng->dg, eng->buf,
			      eng->bufsize, &bad, &side);
		if (v < 0)
			return verify_error(f, v, side);
		if (v == VERIFIED_EQUAL && !source_changed(f, &now, false, &ch)) {
			rep->verify = SC_VERIFIED_CURRENT;
			return 0;
		}
	}
	/* Once more, from the start, through our own hands. */
	if (fstat(f->in, &now) < 0) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_STAT_SOURCE, e, true);
		return e;
	}
	e = repair(f, &now, true);
	if (e < 0)
		return e;
	if (source_changed(f, &now, false, &ch)) {
		ch.again = true;
		rep->change = ch;
		return changed(f, true);
	}
	v = sc_verify(f->in, f->out, rep->res.size,
		      verify_how(f, VERIFY_REREAD |
				 (sc_digests_cover(&eng->dg, rep->res.size) ?
				  VERIFY_DIGESTS : 0)),
		      &eng->dg, eng->buf, eng->bufsize, &bad, &side);
	if (v < 0)
		return verify_error(f, v, side);
	if (v == VERIFIED_EQUAL) {
		rep->verify = SC_VERIFIED_RECOPIED;
		return 0;
	}
	return verify_differs(f, bad);
}

/* SC_COPY_LIVE_SOURCE: can the copy be proven by what was read?  The
 * digests read_write kept of every byte (the plan had no other road,
 * fcopy_dest.c) cover it to its end, the length included.  Not where
 * the source shrank below what was read and the copy was cut to it (a
 * chunk's digest no longer speaks for what is left of it), nor for the
 * holes of a sparse source, which read_write skipped, nor where memory
 * for them ran out: then only the source can say, and the copy is
 * verified as any other. */
static bool by_what_was_read(struct fcopy *f)
{
	const struct sc_copy_result *res = &f->rep->res;

	return (f->c->flags & SC_COPY_LIVE_SOURCE) &&
	       res->road_bytes[SC_ROAD_RW] == res->bytes &&
	       sc_digests_cover(&f->x->eng.dg, res->size);
}

/* After the data: SC_COPY_VERIFY, and a change of the source told (an
 * event that fails nothing where the copy holds what was read).  A live
 * source (SC_COPY_LIVE_SOURCE) is proven by what was read, changed or
 * not, and never read again: a log being appended to reads differently
 * each time, and a copy of it must be possible (issue 37).  0 or -errno
 * (then sc_fcopy_abandon_file()). */
static int prove(struct fcopy *f, bool generated)
{
	struct sc_copy_report *rep = f->rep;
	int e = 0;

	if (f->x->eng.verify && by_what_was_read(f))
		e = verify(f, false);
	else if (f->x->eng.verify)
		return rep->change.how == SC_CHANGE_NONE ? verify(f, true) :
		       verify_changed(f, generated);
	if (e == 0 && rep->change.how != SC_CHANGE_NONE)
		changed(f, false);
	return e;
}

/* The call's error for a data step that ended with E: the road's own
 * error, but -EOPNOTSUPP where it only said that no allowed road could
 * be taken here (EXDEV from a clone or copy_file_range across
 * filesystems, no road at all): the report keeps the road's. */
static int data_error(const struct fcopy *f, int e)
{
	const struct sc_copy_result *res = &f->rep->res;
	const struct sc_attempt *last;

	if (!res->n_attempts)
		return e == -EOPNOTSUPP || res->err == -EOPNOTSUPP ?
		       -EOPNOTSUPP : e;
	last = &res->attempt[res->n_attempts - 1];
	if (e == res->err && last->err == e && last->err < 0 &&
	    sc_copy_not_here(last->road, -e, last->bytes != 0))
		return -EOPNOTSUPP;
	return e;
}

/* The data, by the plan's roads; then whether the source changed
 * meanwhile, and SC_COPY_VERIFY.  0 or -errno (then
 * sc_fcopy_abandon_file()). */
int sc_fcopy_copy_and_verify(struct fcopy *f)
{
	struct sc_copier *c = f->c;
	struct sc_copy_report *rep = f->rep;
	struct sc_engine *eng = &f->x->eng;
	enum sc_fs_class cls = sc_fs_facts_class(rep->src_fs);
	bool generated = !f->size_trusted;
	int e;

	if (c->flags & SC_COPY_NO_DATA)
		return 0;
	if (sc_fcopy_canceled(f))
		return -ECANCELED;
	eng->sparse = c->sparse;
	/* --verify, or a known-bad stack's plan (plan.h) */
	eng->verify = (c->flags & SC_COPY_VERIFY) || rep->plan.verify;
	eng->cancel = &f->x->cancel;
	eng->done = 0;
	/* The end of a regular file on a local filesystem, whose stat can
	 * be trusted, may be taken from the stat the change check takes
	 * anyway; generated files, FUSE and network filesystems keep the
	 * read that proves it. */
	eng->held_still = S_ISREG(f->ist.st_mode) && f->size_trusted &&
			  (cls == SC_FS_LOCAL || cls == SC_FS_MEMORY) ?
			  held_still : NULL;
	eng->held_arg = f;
	eng->out_dirty = f->old_bytes;
	e = sc_copy_data(eng, f->in, f->out, &f->ist, f->out_seekable,
			 &rep->plan, f->size_trusted, &rep->res);
	eng->held_still = NULL;
	/* no road served: the old bytes are all there */
	f->untouched = eng->out_dirty;
	eng->out_dirty = false;
	rep->flags |= SC_REPORT_COPIED;
	if (rep->res.holes)
		rep->flags |= SC_REPORT_HOLES;
	if (rep->res.seek_data)
		rep->flags |= SC_REPORT_SEEK_DATA;
	if (rep->res.zero_scan)
		rep->flags |= SC_REPORT_ZERO_SCAN;
	if (rep->res.extend_failed)
		rep->flags |= SC_REPORT_EXTEND_FAILED;
	learn_from(f);
	/* Did the source change while it was copied?  Only regular files
	 * have a content that a size and times identify: a FIFO or a
	 * device is read once, as it comes.  The engine may have asked
	 * already, at the end, with nothing copied since. */
	if (e == 0 && S_ISREG(f->ist.st_mode)) {
		bool ch = f->still_asked && f->still ?
			  (rep->change = f->still_change, false) :
			  source_changed(f, &f->ist, generated, &rep->change);

		if (ch && (e = settle_changed(f, generated)) < 0)
			rep->res.side = SC_SIDE_WRITE;
	}
	if (e < 0) {
		struct sc_ev *ev;

		if (f->untouched)
			f->removable = false;	/* as it was: kept */
		if (e == -ECANCELED)
			return e;
		ev = sc_fcopy_event(f, SC_EV_DATA, e, true);
		if (ev)
			ev->side = rep->res.side;
		return data_error(f, e);
	}
	return prove(f, generated);
}
