#include "suites.h"
START_TEST(placeholder_quote) { ck_assert_int_eq(1, 1); }
END_TEST
Suite *quote_suite(void)
{
	Suite *s = suite_create("quote");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, placeholder_quote);
	suite_add_tcase(s, tc);
	return s;
}
