/* The messages of one thread about the entry it is copying: cp-style
 * errors and warnings on stderr, the -v lines said as things happen
 * (removed, skipped, "'a' -> 'b'"), the -i question, and -j's buffered
 * output written out in its place.  The per-file records are report.c's;
 * both are declared in report.h. */
#include "system.h"
#include "report.h"
#include "quote.h"

#include <stdarg.h>
#include <string.h>

/* The step each message names, for --json's "failed" (an interface:
 * never translated).  Messages are found by their msgid, or its
 * translation: the callers pass the format through _(). */
static const struct {
	const char *msgid, *step;
} steps[] = {
	{ N_("cannot open %s for reading"), "open" },
	{ N_("cannot stat %s"), "stat" },
	{ N_("cannot fstat %s"), "stat" },
	{ N_("failed to get attributes of %s"), "stat" },
	{ N_("error reading %s"), "read" },
	/* a directory whose entries cannot be read (opened, listed) */
	{ N_("cannot access %s"), "read" },
	{ N_("cannot read symbolic link %s"), "read" },
	{ N_("error writing %s"), "write" },
	{ N_("failed to extend %s"), "write" },
	{ N_("failed to close %s"), "write" },
	{ N_("error copying %s to %s"), "copy" },
	{ N_("failed to clone %s from %s"), "clone" },
	{ N_("cannot verify %s: nothing written there can be read back"),
	  "verify" },
	{ N_("error reading back %s"), "verify" },
	{ N_("%s differs from %s at byte %lld, also after copying again"),
	  "verify" },
	{ N_("%s changed while it was copied: %s"), "changed" },
	{ N_("%s changed while it was copied, and again while it was copied once more: %s"),
	  "changed" },
	{ N_("cannot create regular file %s"), "create" },
	{ N_("not writing through dangling symlink %s"), "create" },
	{ N_("cannot replace %s"), "replace" },
	{ N_("cannot create directory %s"), "mkdir" },
	{ N_("cannot make directory %s"), "mkdir" },
	{ N_("%s exists but is not a directory"), "mkdir" },
	{ N_("cannot create fifo %s"), "mknod" },
	{ N_("cannot create special file %s"), "mknod" },
	{ N_("cannot create symbolic link %s"), "symlink" },
	{ N_("cannot create symbolic link %s to %s"), "symlink" },
	{ N_("%s: can make relative symbolic links only in current directory"),
	  "symlink" },
	{ N_("cannot create hard link %s to %s"), "link" },
	{ N_("%s and %s are the same file"), "same-file" },
	{ N_("-r not specified; omitting directory %s"), "omitted" },
	{ N_("not replacing %s"), "not-replaced" },
	{ N_("cannot copy a directory, %s, into itself, %s"), "into-itself" },
	{ N_("cannot copy cyclic symbolic link %s"), "cycle" },
	{ N_("cannot overwrite non-directory %s with directory %s"),
	  "overwrite" },
	{ N_("cannot overwrite directory %s with non-directory"), "overwrite" },
	{ N_("will not overwrite just-created %s with %s"), "overwrite" },
	{ N_("will not copy %s through just-created symlink %s"), "overwrite" },
	{ N_("cannot backup %s"), "backup" },
	{ N_("backing up %s might destroy source;  %s not copied"), "backup" },
	{ N_("cannot remove %s"), "remove" },
	{ N_("skipping file %s, as it was replaced while being copied"),
	  "replaced" },
	{ N_("skipping directory %s, as it was replaced while being copied"),
	  "replaced" },
	{ N_("setting permissions for %s"), "attributes" },
	{ N_("clearing permissions for %s"), "attributes" },
	{ N_("preserving permissions for %s"), "attributes" },
	{ N_("preserving times for %s"), "attributes" },
	{ N_("failed to preserve ownership for %s"), "attributes" },
	{ N_("failed to preserve permissions for %s"), "attributes" },
	{ N_("failed to preserve times for %s"), "attributes" },
	{ N_("cannot sync the directory of %s"), "sync" },
	{ N_("memory exhausted"), "memory" },
};

const char *sc_report_step(const char *fmt)
{
	if (!fmt)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		if (!strcmp(fmt, steps[i].msgid) ||
		    !strcmp(fmt, _(steps[i].msgid)))
			return steps[i].step;
	return NULL;
}

void sc_report_begin(struct sc_msgs *m)
{
	m->failed = false;
	m->last_errno = 0;
	m->step = NULL;
	m->step_errno = 0;
	m->step_of_error = false;
	m->recorded = 0;
}

/* Remembers the step of the first error said about M's entry (or, until
 * one is, of its first warning: xattrs and ACLs libattr and libacl said
 * something about are attributes). */
static void note_step(struct sc_msgs *m, bool fail, int err, const char *fmt)
{
	const char *step;

	if (m->step_of_error || (!fail && m->step))
		return;
	step = err == ENOMEM ? "memory" : sc_report_step(fmt);
	if (!step && !fail)
		step = "attributes";
	m->step = step;
	m->step_errno = err;
	m->step_of_error = fail;
}

void sc_report_failure(struct sc_msgs *m, struct sc_record *rec)
{
	if (!m)
		return;
	if (m->failed && !rec->err && !rec->failed) {
		rec->failed = true;
		rec->failed_err = -m->step_errno;
	}
	if (!rec->failure && (rec->err || rec->failed))
		rec->failure = m->step ? m->step :
			       m->failed ? "attributes" : NULL;
	m->recorded = rec->err || rec->failed || rec->change_failed ? 2 : 1;
}

static void streams(struct sc_msgs *m, FILE **out, FILE **err)
{
	*out = *err = NULL;
	if (m && m->streams)
		m->streams(m->arg, out, err);
}

void sc_report_verror(struct sc_msgs *m, bool fail, int err,
		      const char *fmt, va_list ap)
{
	FILE *out, *f;

	streams(m, &out, &f);
	if (m)
		note_step(m, fail, err, fmt);
	if (fail && m) {
		m->failed = true;
		m->last_errno = err;
	}
	if (!f) {
		/* what was said on stdout comes first */
		fflush(stdout);
		f = stderr;
	}
	fprintf(f, "%s: ", sc_program_name);
	vfprintf(f, fmt, ap);
	if (err) {
		/* strerror_r: no static buffer shared by -j workers */
		char buf[128];

		fprintf(f, ": %s", strerror_r(err, buf, sizeof(buf)));
	}
	fputc('\n', f);
}

void sc_report_verror_args(struct sc_msgs *m, bool fail, int err,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(m, fail, err, fmt, ap);
	va_end(ap);
}

void sc_report_error(struct sc_msgs *m, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(m, true, err, fmt, ap);
	va_end(ap);
}

void sc_report_warning(struct sc_msgs *m, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(m, false, err, fmt, ap);
	va_end(ap);
}

FILE *sc_report_out(struct sc_msgs *m)
{
	FILE *out, *err;

	streams(m, &out, &err);
	return out ? out : stdout;
}

void sc_report_removed(struct sc_msgs *m, const char *dst)
{
	fprintf(sc_report_out(m), _("removed %s\n"), sc_quote(dst));
}

void sc_report_skipped(struct sc_msgs *m, const char *dst)
{
	fprintf(sc_report_out(m), _("skipped %s\n"), sc_quote(dst));
}

void sc_report_cp_line(struct sc_msgs *m, const char *src, const char *dst,
		       const char *backup)
{
	FILE *out = sc_report_out(m);

	fprintf(out, "%s -> %s", sc_quote(src), sc_quote(dst));
	if (backup)
		fprintf(out, _(" (backup: %s)"), sc_quote(backup));
	fputc('\n', out);
}

void sc_report_parent_made(struct sc_msgs *m, const char *rel,
			   const char *dir)
{
	fprintf(sc_report_out(m), "%s -> %s\n", rel, dir);
}

void sc_report_mode_letters(mode_t mode, char out[10])
{
	static const char rwx[] = "rwxrwxrwx";

	for (int i = 0; i < 9; i++)
		out[i] = mode & (0400 >> i) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[2] = out[2] == 'x' ? 's' : 'S';
	if (mode & S_ISGID)
		out[5] = out[5] == 'x' ? 's' : 'S';
	if (mode & S_ISVTX)
		out[8] = out[8] == 'x' ? 't' : 'T';
	out[9] = '\0';
}

void sc_report_ask_overwrite(const char *dst, const struct stat *st,
			     bool unwritable, bool force)
{
	if (unwritable) {
		char perms[10];

		sc_report_mode_letters(st->st_mode, perms);
		fprintf(stderr, force ?
			_("%s: replace %s, overriding mode %04lo (%s)? ") :
			_("%s: unwritable %s (mode %04lo, %s); try anyway? "),
			sc_program_name, sc_quote(dst),
			(unsigned long)(st->st_mode & 07777), perms);
	} else {
		fprintf(stderr, _("%s: overwrite %s? "), sc_program_name,
			sc_quote(dst));
	}
	fflush(stderr);
}

void sc_report_buffered_runs(const char *buf, const struct sc_out_run *runs,
			     size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = runs[i].end - start;

		if (runs[i].to_err) {
			/* what was said on stdout comes first */
			fflush(stdout);
			fwrite(buf + start, 1, len, stderr);
		} else {
			fwrite(buf + start, 1, len, stdout);
		}
		start = runs[i].end;
	}
	fflush(stdout);
}

bool sc_report_interleave(bool as_cp)
{
	struct stat out, err;

	if (as_cp)
		return true;
	return fstat(STDOUT_FILENO, &out) == 0 &&
	       fstat(STDERR_FILENO, &err) == 0 &&
	       out.st_dev == err.st_dev && out.st_ino == err.st_ino;
}

void sc_report_buffered(const char *out, size_t out_len, const char *err,
			size_t err_len)
{
	if (out_len) {
		fwrite(out, 1, out_len, stdout);
		fflush(stdout);
	}
	if (err_len)
		fwrite(err, 1, err_len, stderr);
}

/* The library says its reasons in its own words; where those name what
 * is an option here, smartcp has always said the option (--explain,
 * --json, --rules are interfaces): the same words as before. */
static const struct {
	const char *lib, *prog;
} why_words[] = {
	{ "not among the allowed roads", N_("excluded by --road") },
	{ "reflink never", N_("--reflink=never") },
	{ "reflink always", N_("--reflink=always") },
	{ "reflink never: copy_file_range may share extents",
	  N_("--reflink=never: copy_file_range may share extents") },
	{ "sparse always: zero runs must be seen to become holes",
	  N_("--sparse=always: zero runs must be seen to become holes") },
	{ "sparse never: every block must be written",
	  N_("--sparse=never: every block must be written") },
	{ "verification of a stream", N_("--verify of a stream") },
	{ "no data is copied", N_("--attributes-only: no data is copied") },
};

const char *sc_report_why(const char *why)
{
	if (!why)
		return "";
	for (size_t i = 0; i < ARRAY_SIZE(why_words); i++)
		if (!strcmp(why, why_words[i].lib))
			return why_words[i].prog;
	return why;
}
