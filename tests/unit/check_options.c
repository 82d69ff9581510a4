#include "suites.h"
START_TEST(placeholder_options) { ck_assert_int_eq(1, 1); }
END_TEST
Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, placeholder_options);
	suite_add_tcase(s, tc);
	return s;
}
