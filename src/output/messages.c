/* The messages of one thread about the entry it is copying: cp-style
 * errors and warnings on stderr, the -v lines said as things happen
 * (removed, skipped, "'a' -> 'b'"), the -i question, and -j's buffered
 * output written out in its place.  The per-file records are report.c's;
 * both are declared in report.h. */
#include "system.h"
#include "output/report.h"
#include "output/quote.h"

#include <stdarg.h>
#include <string.h>

/* What a message names, and how it quotes it: A (and B) quoted as cp's
 * error context quotes a file name (sc_quote); as quotef() does (PLAIN,
 * for a message that starts with the name); as quote() does (LOCALE:
 * cp's ACL code); B as it is (TEXT: words, not a name); with byte N. */
enum shape { NONE, A, AB, A_PLAIN, A_LOCALE, A_TEXT, AB_N, A_ALONE };

/* Each failure's message (cp's words, its msgid), the step --json's
 * "failed" names for it (an interface: never translated; NULL: none),
 * and what it stands for when the kernel gave no errno. */
static const struct {
	const char *msgid, *step;
	enum shape shape;
	int code;
} failures[SC_FAIL__COUNT] = {
	[SC_FAIL_OPEN_READ] = { N_("cannot open %s for reading"),
		"open", A, EIO },
	[SC_FAIL_STAT] = { N_("cannot stat %s"), "stat", A, EIO },
	[SC_FAIL_FSTAT] = { N_("cannot fstat %s"), "stat", A, EIO },
	[SC_FAIL_GET_ATTRS] = { N_("failed to get attributes of %s"),
		"stat", A, EIO },
	[SC_FAIL_READ] = { N_("error reading %s"), "read", A, EIO },
	[SC_FAIL_ACCESS] = { N_("cannot access %s"), "read", A, EIO },
	[SC_FAIL_READLINK] = { N_("cannot read symbolic link %s"),
		"read", A, EIO },
	[SC_FAIL_WRITE] = { N_("error writing %s"), "write", A, EIO },
	[SC_FAIL_EXTEND] = { N_("failed to extend %s"), "write", A, EIO },
	[SC_FAIL_CLOSE] = { N_("failed to close %s"), "write", A, EIO },
	[SC_FAIL_COPY] = { N_("error copying %s to %s"), "copy", AB, EIO },
	[SC_FAIL_CLONE] = { N_("failed to clone %s from %s"),
		"clone", AB, EIO },
	[SC_FAIL_SYNC_DIR] = { N_("cannot sync the directory of %s"),
		"sync", A, EIO },
	[SC_FAIL_UNVERIFIABLE] = {
		N_("cannot verify %s: nothing written there can be read back"),
		"verify", A, EIO },
	[SC_FAIL_READ_BACK] = { N_("error reading back %s"), "verify", A, EIO },
	[SC_FAIL_DIFFERS] = {
		N_("%s differs from %s at byte %lld, also after copying again"),
		"verify", AB_N, EIO },
	[SC_FAIL_CHANGED] = { N_("%s changed while it was copied: %s"),
		"changed", A_TEXT, EAGAIN },
	[SC_FAIL_CHANGED_AGAIN] = {
		N_("%s changed while it was copied, and again while it was copied once more: %s"),
		"changed", A_TEXT, EAGAIN },
	[SC_FAIL_CREATE] = { N_("cannot create regular file %s"),
		"create", A, EIO },
	[SC_FAIL_DANGLING] = { N_("not writing through dangling symlink %s"),
		"create", A, ENOENT },
	[SC_FAIL_REPLACE] = { N_("cannot replace %s"), "replace", A, EIO },
	[SC_FAIL_MKDIR] = { N_("cannot create directory %s"), "mkdir", A, EIO },
	[SC_FAIL_MAKE_DIR] = { N_("cannot make directory %s"),
		"mkdir", A, EIO },
	[SC_FAIL_NOT_DIR] = { N_("%s exists but is not a directory"),
		"mkdir", A, ENOTDIR },
	[SC_FAIL_UNSAFE_SYMLINK] = {
		N_("not following symbolic link %s in a directory others may write"),
		"mkdir", A, ELOOP },
	[SC_FAIL_MKFIFO] = { N_("cannot create fifo %s"), "mknod", A, EIO },
	[SC_FAIL_MKNOD] = { N_("cannot create special file %s"),
		"mknod", A, EIO },
	[SC_FAIL_SYMLINK] = { N_("cannot create symbolic link %s"),
		"symlink", A, EIO },
	[SC_FAIL_SYMLINK_TO] = { N_("cannot create symbolic link %s to %s"),
		"symlink", AB, EIO },
	[SC_FAIL_SYMLINK_HERE] = {
		N_("%s: can make relative symbolic links only in current directory"),
		"symlink", A_PLAIN, EINVAL },
	[SC_FAIL_LINK] = { N_("cannot create hard link %s to %s"),
		"link", AB, EIO },
	[SC_FAIL_SAME_FILE] = { N_("%s and %s are the same file"),
		"same-file", AB, EINVAL },
	[SC_FAIL_OMIT_DIR] = { N_("-r not specified; omitting directory %s"),
		"omitted", A, EISDIR },
	[SC_FAIL_NOT_REPLACING] = { N_("not replacing %s"),
		"not-replaced", A, EEXIST },
	[SC_FAIL_INTO_ITSELF] = {
		N_("cannot copy a directory, %s, into itself, %s"),
		"into-itself", AB, EINVAL },
	[SC_FAIL_CYCLE] = { N_("cannot copy cyclic symbolic link %s"),
		"cycle", A, ELOOP },
	[SC_FAIL_DIR_ON_FILE] = {
		N_("cannot overwrite non-directory %s with directory %s"),
		"overwrite", AB, ENOTDIR },
	[SC_FAIL_FILE_ON_DIR] = {
		N_("cannot overwrite directory %s with non-directory"),
		"overwrite", A, EISDIR },
	[SC_FAIL_JUST_CREATED] = {
		N_("will not overwrite just-created %s with %s"),
		"overwrite", AB, EEXIST },
	[SC_FAIL_NEW_SYMLINK] = {
		N_("will not copy %s through just-created symlink %s"),
		"overwrite", AB, ELOOP },
	[SC_FAIL_DIR_LINK] = {
		N_("will not create hard link %s to directory %s"),
		"link", AB, EMLINK },
	[SC_FAIL_BACKUP] = { N_("cannot backup %s"), "backup", A, EIO },
	[SC_FAIL_UNBACKUP] = { N_("cannot un-backup %s"), "backup", A, EIO },
	[SC_FAIL_BACKUP_SOURCE] = {
		N_("backing up %s might destroy source;  %s not copied"),
		"backup", AB, EINVAL },
	[SC_FAIL_REMOVE] = { N_("cannot remove %s"), "remove", A, EIO },
	[SC_FAIL_FILE_REPLACED] = {
		N_("skipping file %s, as it was replaced while being copied"),
		"replaced", A, ESTALE },
	[SC_FAIL_DIR_REPLACED] = {
		N_("skipping directory %s, as it was replaced while being copied"),
		"replaced", A, ESTALE },
	[SC_FAIL_SET_MODE] = { N_("setting permissions for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_SET_MODE_ACL] = { N_("setting permissions for %s"),
		"attributes", A_LOCALE, EPERM },
	[SC_FAIL_CLEAR_MODE] = { N_("clearing permissions for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_KEEP_MODE] = { N_("preserving permissions for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_KEEP_MODE_ACL] = { N_("preserving permissions for %s"),
		"attributes", A_LOCALE, EPERM },
	[SC_FAIL_KEEP_TIMES] = { N_("preserving times for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_OWNER] = { N_("failed to preserve ownership for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_MODE] = { N_("failed to preserve permissions for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_TIMES] = { N_("failed to preserve times for %s"),
		"attributes", A, EPERM },
	[SC_FAIL_LIST_XATTRS] = { N_("listing attributes of %s"),
		NULL, A, EIO },
	[SC_FAIL_GET_XATTR] = { N_("getting attribute %s of %s"),
		NULL, AB, EIO },
	[SC_FAIL_SET_XATTR] = { N_("setting attribute %s for %s"),
		NULL, AB, EIO },
	/* the name alone, and ENOMEM's text */
	[SC_FAIL_MEMORY] = { "%s", "memory", A_ALONE, ENOMEM },
	[SC_FAIL_NO_MEMORY] = { N_("memory exhausted"),
		"memory", NONE, ENOMEM },
	[SC_FAIL_CLOSE_INPUT] = { N_("error closing file"), NULL, NONE, EIO },
	[SC_FAIL_NO_OPERAND] = { N_("missing file operand"),
		NULL, NONE, EINVAL },
	[SC_FAIL_NO_DEST] = { N_("missing destination file operand after %s"),
		NULL, A, EINVAL },
	[SC_FAIL_T_AND_NO_T] = {
		N_("cannot combine --target-directory (-t) and --no-target-directory (-T)"),
		NULL, NONE, EINVAL },
	[SC_FAIL_EXTRA_OPERAND] = { N_("extra operand %s"), NULL, A, EINVAL },
	[SC_FAIL_TARGET] = { N_("target %s"), NULL, A, ENOTDIR },
	[SC_FAIL_TARGET_DIR] = { N_("target directory %s"), NULL, A, ENOTDIR },
	[SC_FAIL_PARENTS_DEST] = {
		N_("with --parents, the destination must be a directory"),
		NULL, NONE, EINVAL },
	[SC_WARN_FILE_TWICE] = {
		N_("warning: source file %s specified more than once"),
		NULL, A, 0 },
	[SC_WARN_DIR_TWICE] = {
		N_("warning: source directory %s specified more than once"),
		NULL, A, 0 },
	/* TRANSLATORS: under -v, after --atomic renamed a new file over a
	 * file with other names (hard links) */
	[SC_WARN_LINKS_LEFT] = {
		N_("warning: %s had other hard links; --atomic replaced it, and they keep the old data"),
		NULL, A, 0 },
	/* TRANSLATORS: after the message that says which attribute could
	 * not be set, when --atomic therefore threw the whole copy away */
	[SC_WARN_NOT_REPLACED] = {
		N_("%s was not replaced: --atomic keeps the old file when an attribute asked for cannot be set"),
		NULL, A, 0 },
	[SC_WARN_NOT_CREATED] = {
		N_("%s was not created: --atomic makes no file when an attribute asked for cannot be set"),
		NULL, A, 0 },
	/* TRANSLATORS: after "preserving permissions for 'A': ...", when
	 * --atomic's new file could not be given the old file's mode, and
	 * its data being complete, replaced the old file all the same */
	[SC_WARN_REPLACED_ANYWAY] = {
		N_("warning: %s was replaced, though not with the old file's permissions"),
		NULL, A, 0 },
};

const char *sc_report_fail_text(enum sc_fail what)
{
	return (unsigned)what < SC_FAIL__COUNT ? failures[what].msgid : NULL;
}

const char *sc_report_fail_step(enum sc_fail what)
{
	return (unsigned)what < SC_FAIL__COUNT ? failures[what].step : NULL;
}

void sc_report_begin(struct sc_msgs *m)
{
	m->failed = false;
	m->last_errno = 0;
	m->step = NULL;
	m->step_errno = 0;
	m->step_of_error = false;
	m->recorded = 0;
	m->code = 0;
}

int sc_report_code(const struct sc_msgs *m)
{
	return m && m->code ? m->code : -EIO;
}

/* Remembers the step (STEP) of the first error said about M's entry
 * (or, until one is, of its first warning: xattrs and ACLs libattr and
 * libacl said something about are attributes). */
static void note_step(struct sc_msgs *m, bool fail, int err, const char *step)
{
	if (m->step_of_error || (!fail && m->step))
		return;
	if (err == ENOMEM)
		step = "memory";
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

/* The message itself: "smartcp: " FMT's text, ": " ERR's, a newline. */
static void __attribute__((format(printf, 4, 0)))
say(struct sc_msgs *m, bool fail, int err, const char *fmt, va_list ap)
{
	FILE *out, *f;

	streams(m, &out, &f);
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

/* say() with the arguments here, for a format from the table. */
static void say_args(struct sc_msgs *m, bool fail, int err,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(m, fail, err, fmt, ap);
	va_end(ap);
}

void sc_report_verror_args(struct sc_msgs *m, bool fail, int err,
			   const char *fmt, ...)
{
	va_list ap;

	if (m) {
		note_step(m, fail, err, NULL);
		if (fail && !m->code)
			m->code = err ? -err : -EIO;
	}
	va_start(ap, fmt);
	say(m, fail, err, fmt, ap);
	va_end(ap);
}

/* Says WHAT (an error: FAIL) with its names A, B and N, as its shape
 * says. */
static void say_what(struct sc_msgs *m, bool fail, enum sc_fail what,
		     int err, const char *a, const char *b, long long n)
{
	const char *fmt;

	if ((unsigned)what >= SC_FAIL__COUNT || !failures[what].msgid) {
		say_args(m, fail, err, "%s", "?");
		return;
	}
	if (m)
		note_step(m, fail, err, failures[what].step);
	a = a ? a : "";		/* a name the caller did not have */
	b = b ? b : "";
	fmt = failures[what].shape == A_ALONE ? failures[what].msgid :
	      _(failures[what].msgid);
	switch (failures[what].shape) {
	case NONE:
		say_args(m, fail, err, fmt);
		break;
	case A:
	case A_ALONE:
		say_args(m, fail, err, fmt, sc_quote(a));
		break;
	case AB:
		say_args(m, fail, err, fmt, sc_quote(a), sc_quote(b));
		break;
	case A_PLAIN:
		say_args(m, fail, err, fmt, sc_quote_plain(a));
		break;
	case A_LOCALE:
		say_args(m, fail, err, fmt, sc_quote_locale(a));
		break;
	case A_TEXT:
		say_args(m, fail, err, fmt, sc_quote(a), b);
		break;
	case AB_N:
		say_args(m, fail, err, fmt, sc_quote(a), sc_quote(b), n);
		break;
	}
}

/* The value a failure's caller returns: -ERR, or -errno WHAT stands for. */
static int fail_code(enum sc_fail what, int err)
{
	if (err)
		return -err;
	if ((unsigned)what < SC_FAIL__COUNT && failures[what].code)
		return -failures[what].code;
	return -EIO;
}

int sc_report_fail_at(struct sc_msgs *m, enum sc_fail what, int err,
		      const char *a, const char *b, long long n)
{
	int code = fail_code(what, err);

	say_what(m, true, what, err, a, b, n);
	if (m && !m->code)
		m->code = code;
	return code;
}

int sc_report_fail(struct sc_msgs *m, enum sc_fail what, int err,
		   const char *a, const char *b)
{
	return sc_report_fail_at(m, what, err, a, b, 0);
}

void sc_report_warn(struct sc_msgs *m, enum sc_fail what, int err,
		    const char *a, const char *b)
{
	say_what(m, false, what, err, a, b, 0);
}

void sc_report_interrupted_words(const char **fmt, const char **note)
{
	/* TRANSLATORS: the program's name, the signal's (SIGINT), then the
	 * files and the bytes copied, in this order */
	*fmt = _("%s: interrupted by %s after %llu files (%llu bytes) were copied");
	*note = _("; the file being written was removed");
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

void sc_report_unbackup(struct sc_msgs *m, const char *backup,
			const char *dst)
{
	FILE *out = sc_report_out(m);

	fprintf(out, _("%s -> %s (unbackup)\n"), sc_quote(backup),
		sc_quote(dst));
}

void sc_report_parent_made(struct sc_msgs *m, const char *rel,
			   const char *dir, bool quoted)
{
	if (quoted)
		fprintf(sc_report_out(m), "%s -> %s\n", sc_quote(rel),
			sc_quote(dir));
	else
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

void sc_report_buffered_runs(const char *buf, const struct sc_tree_run *runs,
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

void sc_report_buffered_out(const char *out, size_t out_len,
			    const char *err, size_t err_len,
			    const struct sc_tree_run *runs, size_t n_runs)
{
	if (n_runs)
		sc_report_buffered_runs(out, runs, n_runs);
	else
		sc_report_buffered(out, out_len, err, err_len);
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
