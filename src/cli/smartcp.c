/* smartcp: main wires options, walk and report together; nothing else. */
#include "system.h"
#include "cli/options.h"
#include "output/quote.h"
#include "output/report.h"
#include "cli/rules.h"
#include "cli/run.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

const char *sc_program_name = "smartcp";

/* The program's name and language, from argv[0] and the environment. */
static void start(int argc, char **argv)
{
	/* As GNU tools do, messages start with argv[0] as given: "cp" when
	 * installed as cp, "/bin/cp" when called so. */
	if (argc > 0 && argv[0] && *argv[0])
		sc_program_name = argv[0];
	setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
	{
		/* SMARTCP_LOCALEDIR lets the test suite use the catalogs of
		 * the build tree before they are installed. */
		const char *dir = getenv("SMARTCP_LOCALEDIR");

		bindtextdomain(PACKAGE, dir && *dir ? dir : LOCALEDIR);
	}
	textdomain(PACKAGE);
#endif
}

/* --rules, with the N operands OPERANDS (there must be none).  The exit
 * status. */
static int rules(const struct sc_options *opts, char **operands, int n)
{
	if (n > 0) {
		sc_report_usage(SC_USAGE_EXTRA_OPERAND, operands[0], NULL);
		sc_report_try_help();
		return EXIT_FAILURE;
	}
	if (sc_rules_print(stdout, opts->json,
			   opts->kernel_assumed ? &opts->kernel : NULL) < 0 ||
	    fflush(stdout) != 0) {
		sc_report_write_error(errno);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The copy of the N OPERANDS, and its report.  The exit status. */
static int copy(struct sc_options *opts, char **operands, int n)
{
	unsigned shows = (opts->verbose ? REPORT_VERBOSE : 0) |
			 (opts->json ? REPORT_JSON : 0) |
			 (opts->explain ? REPORT_EXPLAIN : 0);
	struct sc_report *rep;
	int status;

	/* Installed under cp's name, smartcp is cp for scripts and people
	 * who expect cp's output byte for byte: -v lines without the road,
	 * no summary line, progress only when asked for.  --json, --explain
	 * and -v under any other name still tell the road. */
	{
		const char *slash = strrchr(sc_program_name, '/');

		opts->as_cp = !strcmp(slash ? slash + 1 : sc_program_name, "cp");
	}

	if (!opts->quiet && !opts->as_cp && sc_report_stderr_tty())
		shows |= REPORT_SUMMARY;
	if (sc_report_new(shows, &rep) < 0) {
		sc_report_fail(NULL, SC_FAIL_NO_MEMORY, 0, NULL, NULL);
		return EXIT_FAILURE;
	}
	sc_report_plain(rep, opts->as_cp);
	sc_report_assumed(rep, opts->kernel_assumed ? &opts->kernel : NULL,
			  opts->fs_assumed);
	status = sc_walk_run(opts, rep, operands, n);
	sc_report_free(rep);
	return status;
}

/* STATUS, or EXIT_FAILURE when what went to stdout or came from stdin
 * failed (said here). */
static int finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sc_report_write_error(errno);
		status = EXIT_FAILURE;
	}
	/* An answer to -i that could not be read (stdin closed, an I/O
	 * error) was taken as "no"; as cp, say so at the end and fail. */
	if (ferror(stdin)) {
		sc_report_fail(NULL, SC_FAIL_CLOSE_INPUT,
			       fclose(stdin) ? errno : 0, NULL, NULL);
		status = EXIT_FAILURE;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct sc_options opts;
	int first;

	start(argc, argv);
	first = sc_options_parse(argc, argv, &opts);
	if (first == SC_OPTIONS_DONE)	/* --help, --version: said if lost */
		return finish(EXIT_SUCCESS);
	if (first < 0)
		return EXIT_FAILURE;
	if (opts.rules)
		return rules(&opts, argv + first, argc - first);
	return finish(copy(&opts, argv + first, argc - first));
}
