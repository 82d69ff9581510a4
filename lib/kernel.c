/* The kernel's version: the running one, and one a caller names, for
 * the plan's rules that depend on it. */
#include "common.h"

#include <smartcp/smartcp.h>

#include <stdio.h>
#include <sys/utsname.h>

struct sc_kernel sc_kernel_running(void)
{
	struct sc_kernel k = { 0, 0 };
	struct utsname u;

	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &k.major, &k.minor);
	return k;
}

/* The last minor version of each finished major series; the newest
 * series takes any minor. */
static const int last_minor[] = { [3] = 19, [4] = 20, [5] = 19, [6] = 19 };
#define NEWEST_MAJOR 7

int sc_kernel_parse(const char *text, struct sc_kernel *ret)
{
	const char *p = text;
	int v[3] = { 0, 0, 0 }, n = 0;

	if (!text || !ret)
		return -EINVAL;
	/* MAJOR.MINOR[.PATCH], then nothing or what uname -r adds after
	 * a '-' or '+' ("6.1.0-13-amd64") */
	while (n < 3) {
		long x = 0;
		const char *start = p;

		/* at most three digits, leading zeros counted (issue 36:
		 * "6.0001" was taken) */
		while (*p >= '0' && *p <= '9' && p - start < 3)
			x = x * 10 + (*p++ - '0');
		if (p == start || (*p >= '0' && *p <= '9'))
			return -EINVAL;
		v[n++] = (int)x;
		if (*p != '.' || n == 3)
			break;
		p++;
	}
	if (n < 2 || (*p && *p != '-' && *p != '+'))
		return -EINVAL;
	/* the newest series takes any minor of three digits (issue 36:
	 * "7.100" was refused) */
	if (v[0] == 2 ? v[1] != 6 :
	    v[0] < 2 || v[0] > NEWEST_MAJOR ||
	    (v[0] < NEWEST_MAJOR && v[1] > last_minor[v[0]]))
		return -ERANGE;
	ret->major = v[0];
	ret->minor = v[1];
	return 0;
}

bool sc_kernel_at_least(struct sc_kernel k, int major, int minor)
{
	return k.major > major || (k.major == major && k.minor >= minor);
}
