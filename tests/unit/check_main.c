/* Runs every unit suite; Check prints the summary line. */
#include <stdlib.h>
#include "suites.h"

const char *sc_program_name = "smartcp";

int main(void)
{
	SRunner *sr = srunner_create(options_suite());
	int failed;

	srunner_add_suite(sr, plan_suite());
	srunner_add_suite(sr, fsinfo_suite());
	srunner_add_suite(sr, report_suite());
	srunner_add_suite(sr, quote_suite());
	srunner_add_suite(sr, xattr_rules_suite());
	srunner_add_suite(sr, change_suite());
	srunner_add_suite(sr, links_suite());
	srunner_add_suite(sr, paths_suite());
	srunner_add_suite(sr, dest_suite());
	srunner_add_suite(sr, walk_suite());
	srunner_add_suite(sr, stacks_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
