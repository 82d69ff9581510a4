#include "suites.h"
START_TEST(placeholder_fsinfo) { ck_assert_int_eq(1, 1); }
END_TEST
Suite *fsinfo_suite(void)
{
	Suite *s = suite_create("fsinfo");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, placeholder_fsinfo);
	suite_add_tcase(s, tc);
	return s;
}
