/* Known-bad stacks: does a row of the table (lib/stacks.txt, compiled
 * into lib/stacks_table.c) hold for the facts of a copy?  Pure: the
 * module's version and parameters are facts fsinfo.c reads, only for a
 * filesystem type that rows name. */
#include "common.h"
#include "fsinfo.h"
#include "stacks.h"

#include <stdio.h>
#include <string.h>

/* Rows that act: a row with action none is only told, never applied. */
static bool acts(const struct stack *row)
{
	return row->action != STACK_NONE;
}

uint32_t stacks_for_type(const char *type)
{
	for (size_t i = 0; type && i < stacks_types_count; i++)
		if (!strcmp(type, stacks_types[i].type))
			return stacks_types[i].rows | stacks_any_rows;
	return stacks_any_rows;
}

const char *stacks_module_of(const char *type)
{
	for (size_t i = 0; type && i < stacks_types_count; i++)
		if (!strcmp(type, stacks_types[i].type))
			return stacks_types[i].module[0] ?
			       stacks_types[i].module : NULL;
	return NULL;
}

int stacks_parse_version(const char *text, struct stack_version *ret)
{
	struct stack_version v = { { 0, 0, 0 } };
	const char *p = text;
	int n = 0;

	if (!text || !ret)
		return -EINVAL;
	while (n < 3) {
		long x = 0;
		const char *start = p;

		while (*p >= '0' && *p <= '9' && x < 100000)
			x = x * 10 + (*p++ - '0');
		if (p == start || (*p >= '0' && *p <= '9'))
			return -EINVAL;
		v.v[n++] = (int)x;
		if (*p != '.' || n == 3)
			break;
		p++;
	}
	/* what packagers add: "-1", "-0ubuntu9", "-pve1", "_rc1" */
	if (n < 2 || (*p && *p != '-' && *p != '_' && *p != '+' &&
		      *p != '~' && *p != '\n'))
		return -EINVAL;
	*ret = v;
	return 0;
}

int stacks_param_index(const char *name)
{
	for (size_t i = 0; name && i < stacks_params_count; i++)
		if (!strcmp(name, stacks_params[i]))
			return (int)i;
	return -ENOENT;
}

static int vcmp(const struct stack_version *a, const struct stack_version *b)
{
	for (int i = 0; i < 3; i++)
		if (a->v[i] != b->v[i])
			return a->v[i] < b->v[i] ? -1 : 1;
	return 0;
}

static bool in_range(const struct stack_range *r, const struct stack_version *v)
{
	return (!r->has_lo || vcmp(v, &r->lo) >= 0) &&
	       (!r->has_hi || vcmp(v, &r->hi) <= 0);
}

/* Does ROW (index I) hold for the filesystem of facts F? */
static enum stack_match match_fs(const struct stack *row, size_t i,
				 const struct sc_fs_facts *f)
{
	bool in = false;
	long value;

	if (!f || !(f->stacks & (1u << i)))
		return STACK_NO;
	if (!row->module)
		return STACK_YES;
	/* A module whose version could not be read may be any */
	if (!f->module_known)
		return STACK_MAYBE;
	for (int k = 0; k < row->n_module && !in; k++)
		in = in_range(&row->module_range[k], &f->modver);
	if (!in)
		return STACK_NO;
	if (row->param < 0)
		return STACK_YES;
	value = f->params_known & (1u << row->param) ? f->param[row->param] :
		row->param_default;
	return value == row->param_value ? STACK_YES : STACK_NO;
}

enum stack_match stacks_match(const struct stack *row,
			      const struct sc_fs_facts *src,
			      const struct sc_fs_facts *dst,
			      struct sc_kernel kernel)
{
	struct stack_version k = { { kernel.major, kernel.minor, 0 } };
	size_t i = (size_t)(row - stacks_table);
	enum stack_match s, d;

	if (i >= stacks_count || !acts(row) || row->libc)
		return STACK_NO;
	if (!row->any_kernel && !in_range(&row->kernel, &k))
		return STACK_NO;
	s = row->side != STACK_DEST ? match_fs(row, i, src) : STACK_NO;
	d = row->side != STACK_SOURCE ? match_fs(row, i, dst) : STACK_NO;
	return s > d ? s : d;
}

/* ---- the public side ---------------------------------------------------- */

int sc_stack_info(size_t i, struct sc_stack_info *ret)
{
	const struct stack *row;
	struct sc_stack_info s;
	size_t size;

	if (!ret || ret->size < offsetof(struct sc_stack_info, date) +
				sizeof(ret->date))
		return -EINVAL;
	if (i >= stacks_count)
		return -ERANGE;
	row = &stacks_table[i];
	s = (struct sc_stack_info){
		.size = ret->size, .id = row->id, .cite = row->cite,
		.title = row->title, .fs = row->fs, .side = row->side_name,
		.kernel = row->kernel_text, .module = row->module_text,
		.param = row->param_text, .libc = row->libc_text,
		.roads = row->roads, .holes = row->holes, .seen = row->seen,
		.action = row->action_name, .why = row->why,
		.does = row->does, .what = row->what, .source = row->source,
		.date = row->date, .example = row->example,
		.example_kernel = row->example_kernel,
	};
	size = ret->size;
	memset(ret, 0, size);
	memcpy(ret, &s, MIN(size, sizeof(s)));
	return 0;
}
