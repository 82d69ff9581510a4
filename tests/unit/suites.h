#ifndef SMARTCP_TEST_SUITES_H
#define SMARTCP_TEST_SUITES_H
#include <check.h>
Suite *options_suite(void);
Suite *plan_suite(void);
Suite *fsinfo_suite(void);
Suite *report_suite(void);
Suite *quote_suite(void);
Suite *xattr_rules_suite(void);
Suite *change_suite(void);
Suite *links_suite(void);
Suite *paths_suite(void);
Suite *dest_suite(void);
Suite *walk_suite(void);
Suite *stacks_suite(void);
#endif
