#include "suites.h"
START_TEST(placeholder_plan) { ck_assert_int_eq(1, 1); }
END_TEST
Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, placeholder_plan);
	suite_add_tcase(s, tc);
	return s;
}
