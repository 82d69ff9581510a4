/* Known-bad stacks: the table of filesystem, kernel and module versions
 * where a road (or hole detection) corrupted data, hung or failed, made
 * at build time from lib/stacks.txt by lib/stacks.awk, and what the plan
 * asks of it.  Pure: reading the module's version is fsinfo.c's. */
#ifndef SMARTCP_STACKS_H
#define SMARTCP_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smartcp/smartcp.h>

/* A version: Linux MAJOR.MINOR (third number 0), or a module's
 * MAJOR.MINOR.PATCH. */
struct stack_version {
	int v[3];
};

/* LO to HI, both included; an end not HAS_ is open. */
struct stack_range {
	bool has_lo, has_hi;
	struct stack_version lo, hi;
};

enum stack_side { STACK_EITHER, STACK_SOURCE, STACK_DEST };
enum stack_action {
	STACK_SKIP,		/* the roads are not taken */
	STACK_VERIFY,		/* ... taken, and the copy verified */
	STACK_FALLBACK,		/* ... taken: smartcp falls back from it */
	STACK_NOTE,		/* ... taken, and named */
	STACK_NONE,		/* smartcp cannot meet it */
};

#define STACK_MODULE_RANGES 4
/* Parameters of modules the table names (stacks_params[]). */
#define STACK_PARAMS_MAX 4

/* One row of lib/stacks.txt (which says what each member means). */
struct stack {
	const char *id, *cite, *title;
	const char *fs;			/* types, blank-separated, or "*" */
	enum stack_side side;
	bool any_kernel;
	struct stack_range kernel;
	const char *module;		/* NULL: no module condition */
	int n_module;
	struct stack_range module_range[STACK_MODULE_RANGES];
	int param;			/* index of stacks_params[], or -1 */
	long param_value, param_default;
	const char *libc;		/* NULL: no libc condition */
	struct stack_range libc_range;
	unsigned roads;			/* SC_ROAD_BIT()s */
	bool holes;
	const char *seen;
	enum stack_action action;
	/* The plan's reason: "known to corrupt data on OpenZFS 2.2.0 with
	 * block cloning (zfs#15526)" (static, English, a msgid). */
	const char *why;
	/* What smartcp does there, a sentence (also a msgid). */
	const char *does;
	const char *what, *source, *date;
	/* The conditions as text, for the tables people read. */
	const char *kernel_text, *module_text, *param_text, *libc_text;
	const char *action_name, *side_name;
	/* A stack where the row holds, as --assume-fs takes it for both
	 * ends, and its Linux ("" for action none). */
	const char *example, *example_kernel;
};

/* A filesystem type rows name, the rows (bits, by index) that act on it,
 * and the module whose version they name ("" for none). */
struct stack_type {
	char type[32];
	char module[16];
	uint32_t rows;
};

extern const struct stack stacks_table[];
extern const struct stack_type stacks_types[];
extern const size_t stacks_types_count;
/* The rows that act on any type ("*"). */
extern const uint32_t stacks_any_rows;
extern const size_t stacks_count;
/* The parameters rows name, and each one's module. */
extern const char *const stacks_params[];
extern const char *const stacks_param_module[];
extern const size_t stacks_params_count;

/* Whether a row holds for some facts. */
enum stack_match { STACK_NO, STACK_MAYBE, STACK_YES };

/* The rows (bits, by index) that act on filesystems of type TYPE: the
 * only ones the plan looks at for it. */
uint32_t stacks_for_type(const char *type);
/* The module whose version rows about TYPE name ("zfs"), else NULL. */
const char *stacks_module_of(const char *type);

/* "2.2.0-1", "2.2.2-0ubuntu9": the leading MAJOR.MINOR[.PATCH] into
 * *RET.  0, or -EINVAL. */
int stacks_parse_version(const char *text, struct stack_version *ret);
/* The index of parameter NAME of stacks_params[], or -ENOENT. */
int stacks_param_index(const char *name);

/* Does ROW hold for a copy from SRC to DST (either may be NULL) on
 * KERNEL? */
enum stack_match stacks_match(const struct stack *row,
			      const struct sc_fs_facts *src,
			      const struct sc_fs_facts *dst,
			      struct sc_kernel kernel);

#endif
