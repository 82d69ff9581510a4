#include "suites.h"
START_TEST(placeholder_report) { ck_assert_int_eq(1, 1); }
END_TEST
Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, placeholder_report);
	suite_add_tcase(s, tc);
	return s;
}
