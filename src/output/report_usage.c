/* What is wrong with the command line, said before any copy begins: an
 * option's value, options that do not go together, an option getopt
 * does not know, a write error at the end.  The words are cp's (and
 * getopt_long's, in libc's translation); each message names the program
 * as it was invoked. */
#include "system.h"
#include "output/report.h"
#include "output/quote.h"

#include <string.h>

#ifdef ENABLE_NLS
/* The messages that stand in for getopt_long's own come from the C
 * library's catalog, as getopt_long's do, so they read the same. */
# define libc_(s) dgettext("libc", s)
#else
# define libc_(s) (s)
#endif

/* What a usage message passes after the program's name: A and B quoted
 * as cp quotes option arguments (LOCALE: quote()), A quoted as a file
 * name (FILE: sc_quote), A as it is (RAW), or nothing. */
enum usage_shape { U_NONE, U_A_LOCALE, U_AB_LOCALE, U_A_FILE, U_A_RAW };

/* Each message's text (its msgid: "%s: " and the program's name first,
 * a newline last), what it passes, and the lines that follow it (NULL:
 * none). */
static const struct {
	const char *msgid;
	enum usage_shape shape;
	const char *more;
} usages[SC_USAGE__COUNT] = {
	[SC_USAGE_INVALID_ARG] = { N_("%s: invalid argument %s for %s\n"),
				   U_AB_LOCALE, NULL },
	[SC_USAGE_AMBIGUOUS_ARG] = { N_("%s: ambiguous argument %s for %s\n"),
				     U_AB_LOCALE, NULL },
	[SC_USAGE_JOBS] = { N_("%s: invalid number of jobs: %s\n"), U_A_LOCALE,
			    NULL },
	[SC_USAGE_UNKNOWN_KERNEL] = {
		N_("%s: unknown kernel version %s for %s\n"), U_AB_LOCALE,
		N_("Linux 2.6, 3.0 to 3.19, 4.0 to 4.20, 5.0 to 5.19, 6.0 to 6.19 and 7.x exist\n") },
	[SC_USAGE_KERNEL] = {
		N_("%s: invalid kernel version %s for %s\n"), U_AB_LOCALE,
		N_("Accepted forms: MAJOR.MINOR, MAJOR.MINOR.PATCH or what 'uname -r' prints,\n"
		   "such as 5.4, 6.1.0 or 6.1.0-13-amd64\n") },
	[SC_USAGE_UNKNOWN_FS] = {
		N_("%s: unknown filesystem type %s for %s\n"), U_AB_LOCALE,
		NULL },
	[SC_USAGE_ASSUME_FS] = {
		N_("%s: invalid argument %s for %s\n"), U_AB_LOCALE,
		N_("Accepted forms: TYPE (both files on one filesystem of that type), or\n"
		   "SOURCE_TYPE:DEST_TYPE (two filesystems), such as ext4 or nfs4:xfs;\n"
		   "a TYPE may name the version of its module, and parameters of it that\n"
		   "known-bad stacks name, as TYPE@VERSION[,NAME=VALUE...], such as\n"
		   "zfs@2.2.0 or zfs@2.2.3,zfs_bclone_enabled=1:ext4\n") },
	[SC_USAGE_TWO_TARGETS] = {
		N_("%s: multiple target directories specified\n"), U_NONE,
		NULL },
	[SC_USAGE_BACKUP_NO_CLOBBER] = {
		N_("%s: options --backup and --no-clobber are mutually exclusive\n"),
		U_NONE, NULL },
	[SC_USAGE_BACKUP_UPDATE] = {
		N_("%s: --backup is mutually exclusive with -n or --update=none-fail\n"),
		U_NONE, NULL },
	[SC_USAGE_HARD_AND_SYMBOLIC] = {
		N_("%s: cannot make both hard and symbolic links\n"), U_NONE,
		NULL },
	[SC_USAGE_ONLY_EXPLAIN] = {
		N_("%s: %s goes only with --explain: a copy uses the facts of this machine\n"),
		U_A_RAW, NULL },
	[SC_USAGE_REFLINK_SPARSE] = {
		N_("%s: --reflink can be used only with --sparse=auto\n"),
		U_NONE, NULL },
	[SC_USAGE_EXTRA_OPERAND] = { N_("%s: extra operand %s\n"), U_A_FILE,
				     NULL },
	[SC_USAGE_NO_SELINUX] = {
		N_("%s: cannot preserve security context without an SELinux-enabled kernel\n"),
		U_NONE, NULL },
	[SC_USAGE_CONTEXT_IGNORED] = {
		N_("%s: warning: ignoring --context; it requires an SELinux-enabled kernel\n"),
		U_NONE, NULL },
};

/* say() for a usage message: FMT (translated) with its arguments. */
static void say_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void sc_report_usage(enum sc_usage what, const char *a, const char *b)
{
	const char *fmt;

	if ((unsigned)what >= SC_USAGE__COUNT || !usages[what].msgid)
		return;
	fmt = _(usages[what].msgid);
	a = a ? a : "";
	b = b ? b : "";
	switch (usages[what].shape) {
	case U_NONE:
		say_usage(fmt, sc_program_name);
		break;
	case U_A_LOCALE:
		say_usage(fmt, sc_program_name, sc_quote_locale(a));
		break;
	case U_AB_LOCALE:
		say_usage(fmt, sc_program_name, sc_quote_locale(a),
			  sc_quote_locale(b));
		break;
	case U_A_FILE:
		say_usage(fmt, sc_program_name, sc_quote(a));
		break;
	case U_A_RAW:
		say_usage(fmt, sc_program_name, a);
		break;
	}
	if (usages[what].more)
		fputs(_(usages[what].more), stderr);
}

const char *sc_report_usage_text(enum sc_usage what)
{
	return (unsigned)what < SC_USAGE__COUNT ? usages[what].msgid : NULL;
}

const char *sc_report_backup_type(void)
{
	return _("backup type");
}

void sc_report_try_help(void)
{
	fprintf(stderr, _("Try '%s --help' for more information.\n"),
		sc_program_name);
}

void sc_report_valid_args(const char *const *names, unsigned per_line)
{
	fputs(_("Valid arguments are:\n"), stderr);
	for (size_t i = 0; names[i]; i += per_line) {
		fprintf(stderr, "  - %s", sc_quote_locale(names[i]));
		for (unsigned k = 1; k < per_line && names[i + k]; k++)
			fprintf(stderr, ", %s", sc_quote_locale(names[i + k]));
		fputc('\n', stderr);
	}
}

void sc_report_known_types(void)
{
	const char *name;
	size_t col;

	fputs(_("Known types:"), stderr);
	col = strlen(_("Known types:"));
	for (size_t i = 0; (name = sc_fs_type_name(i)); i++) {
		col += strlen(name) + 2;
		if (col > 72) {
			fputs(i ? ",\n " : "\n ", stderr);
			col = strlen(name) + 2;
		} else {
			fputs(i ? ", " : " ", stderr);
		}
		fputs(name, stderr);
	}
	fputs(_(";\nand fuse.SUBTYPE for any FUSE filesystem\n"), stderr);
}

void sc_report_bad_option(const char *prog, const char *name,
			  const char *const *possible, size_t n)
{
	if (!possible) {
		fprintf(stderr, libc_("%s: unrecognized option '%s%s'\n"),
			prog, "--", name);
		return;
	}
	fprintf(stderr, libc_("%s: option '%s%s' is ambiguous; possibilities:"),
		prog, "--", name);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " '--%s'", possible[i]);
	fputc('\n', stderr);
}

void sc_report_write_error(int err)
{
	fprintf(stderr, _("%s: write error: %s\n"), sc_program_name,
		strerror(err));
}
