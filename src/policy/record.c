/* The program's record of each entry the walk copies: made from what the
 * walk's AFTER hands (policy/hooks.c) or, for a file, from its copy's
 * report (file.c), and printed through the report for -v, --json and the
 * summary; cp's -v line ahead of a copy; the words of what was made's
 * metadata. */
#include "system.h"
#include "policy/record.h"
#include "policy/attrs.h"
#include "walk/entry.h"
#include "walk/jobs.h"
#include "walk/progress.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

void sc_entry_report(struct worker *wk, struct entry *ent,
		     struct sc_record *rec)
{
	sc_report_failure(&wk->msgs, rec);
	rec->backup = ent->backup;
	rec->announced = ent->announced;
	/* counted as the summary counts files */
	if (rec->kind == SC_KIND_FILE && rec->copied && !rec->err)
		tree_count_file(wk->run->live,
				sc_copy_report_bytes(rec->res));
	sc_report_record(wk->run->rep, rec, sc_report_out(&wk->msgs));
}

/* --json: an entry that failed before a record was made (or after its
 * record said it was fine: a directory whose entries cannot be read) is
 * said anyway, typed by what its source is (CMDLINE: an operand), with
 * the step and errno of its first error (sc_report_failure()). */
void sc_entry_report_failed(struct worker *wk, struct entry *ent,
			    const char *src, const char *dst, bool cmdline)
{
	const struct sc_options *o = wk->run->o;
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_UNKNOWN };
	bool follow = o->deref == SC_DEREF_ALWAYS ||
		      (o->deref == SC_DEREF_ARGS && cmdline);
	struct stat st;

	if (!o->json || wk->msgs.recorded == 2)
		return;
	if (fstatat(ent->at_fd, ent->at_name, &st,
		    follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
		rec.kind = S_ISDIR(st.st_mode) ? SC_KIND_DIR :
			   o->hard_link ? SC_KIND_HARDLINK :
			   o->symbolic_link || S_ISLNK(st.st_mode) ?
			   SC_KIND_SYMLINK :
			   S_ISREG(st.st_mode) || !o->recursive ||
			   o->copy_contents ? SC_KIND_FILE : SC_KIND_SPECIAL;
	if (wk->msgs.step && !strcmp(wk->msgs.step, "link"))
		rec.kind = SC_KIND_HARDLINK;	/* to a copy made earlier */
	if (rec.kind == SC_KIND_FILE)
		rec.src_size = st.st_size;
	sc_entry_report(wk, ent, &rec);
}

/* Called as cp, -v names a file that is not a directory before copying
 * it, as cp does: the line is there even when the copy then fails, and
 * comes before the error.  Under smartcp's own name the line comes after
 * the copy, with the road it took. */
void sc_entry_announce(struct worker *wk, struct entry *ent, const char *src,
		       const char *dst)
{
	const struct sc_options *o = wk->run->o;

	if (!o->verbose || !o->as_cp || o->json || o->explain || ent->announced)
		return;
	sc_report_cp_line(&wk->msgs, src, dst, ent->backup);
	ent->announced = true;
}

void sc_record_streams(void *arg, FILE **out, FILE **err)
{
	const struct worker *wk = arg;
	struct sc_pool_slot *s = sc_jobs_own_slot(wk->run->jobs);

	*out = s ? s->out : NULL;
	*err = s ? s->err : NULL;
}

int sc_record_meta(struct worker *wk, const struct sc_tree_entry *te,
		   const struct sc_tree_result *r)
{
	struct sc_attrs_env env = {
		.o = wk->run->o, .privileged = wk->run->privileged,
		.msgs = &wk->msgs, .src_st = te->sst, .old_st = r->old_st,
	};

	if (r->rep)
		sc_attrs_say_all(&env, r->rep, te->src, te->dst);
	return r->rep_err;
}

int sc_record_set_meta(struct worker *wk, int in, int out,
		       const struct sc_at *s, const struct sc_at *d,
		       const struct stat *st, const struct sc_made *m,
		       unsigned made)
{
	struct walk_out res = { 0 };

	walk_meta(wk, in, out, s, d, st, m, made, &res);
	return sc_record_meta(wk, &(struct sc_tree_entry){
				.size = sizeof(struct sc_tree_entry),
				.src = s->path, .dst = d->path, .sst = st },
			      &(struct sc_tree_result){
				.size = sizeof(struct sc_tree_result),
				.rep = res.rep, .rep_err = res.rep_err,
				.old_st = res.has_old ? &res.old : NULL });
}
