/* smartcp: main wires options, walk and report together; nothing else. */
#include "system.h"
#include "options.h"
#include "quote.h"
#include "report.h"
#include "rules.h"
#include "walk.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

const char *sc_program_name = "smartcp";

int main(int argc, char **argv)
{
	struct sc_options opts;
	struct sc_report *rep;
	int first, status;

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

	first = sc_options_parse(argc, argv, &opts);
	if (first == -2)
		return fflush(stdout) == 0 ? 0 : 1;
	if (first < 0)
		return 1;
	if (opts.rules) {
		if (first < argc) {
			fprintf(stderr, _("%s: extra operand %s\n"),
				sc_program_name, sc_quote(argv[first]));
			sc_options_try_help();
			return 1;
		}
		if (sc_rules_print(stdout, opts.json,
				   opts.kernel_assumed ? &opts.kernel : NULL) < 0 ||
		    fflush(stdout) != 0) {
			fprintf(stderr, _("%s: write error: %s\n"),
				sc_program_name, strerror(errno));
			return 1;
		}
		return 0;
	}
	/* Installed under cp's name, smartcp is cp for scripts and people
	 * who expect cp's output byte for byte: -v lines without the road,
	 * no summary line, progress only when asked for.  --json, --explain
	 * and -v under any other name still tell the road. */
	{
		const char *slash = strrchr(sc_program_name, '/');

		opts.as_cp = !strcmp(slash ? slash + 1 : sc_program_name, "cp");
	}

	if (sc_report_new(opts.verbose, opts.json, opts.explain,
			  !opts.quiet && !opts.as_cp && sc_report_stderr_tty(),
			  &rep) < 0) {
		fprintf(stderr, "%s: %s\n", sc_program_name, _("memory exhausted"));
		return 1;
	}
	sc_report_plain(rep, opts.as_cp);
	sc_report_assumed(rep, opts.kernel_assumed ? &opts.kernel : NULL,
			  opts.fs_assumed);
	status = sc_walk_run(&opts, rep, argv + first, argc - first);
	sc_report_free(rep);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, _("%s: write error: %s\n"), sc_program_name,
			strerror(errno));
		status = 1;
	}
	/* An answer to -i that could not be read (stdin closed, an I/O
	 * error) was taken as "no"; as cp, say so at the end and fail. */
	if (ferror(stdin)) {
		int e = fclose(stdin) ? errno : 0;

		if (e)
			fprintf(stderr, "%s: %s: %s\n", sc_program_name,
				_("error closing file"), strerror(e));
		else
			fprintf(stderr, "%s: %s\n", sc_program_name,
				_("error closing file"));
		status = 1;
	}
	return status;
}
