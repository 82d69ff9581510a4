/* What one copy found and did: facts, plan, the road chain, and the
 * events a program words its messages from.  The library never prints:
 * every failure of the pipeline, and the few notes worth a line, become
 * an event here, in the order they happened. */
#include "common.h"
#include "copier.h"

#include <string.h>

int sc_copy_report_new(struct sc_copy_report **ret)
{
	struct sc_copy_report *r;

	if (!ret)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		*ret = NULL;
		return -ENOMEM;
	}
	/* room for a file's usual events: most copies never allocate */
	r->ev = malloc(8 * sizeof(*r->ev));
	r->cap_ev = r->ev ? 8 : 0;
	*ret = r;
	return 0;
}

void sc_copy_report_free(struct sc_copy_report *r)
{
	if (!r)
		return;
	free(r->ev);
	free(r->str);
	free(r);
}

void sc_report_reset(struct sc_copy_report *r)
{
	struct sc_ev *ev = r->ev;
	char *str = r->str;
	size_t cap_ev = r->cap_ev, cap_str = r->cap_str;

	memset(r, 0, offsetof(struct sc_copy_report, ev));
	r->ev = ev;
	r->cap_ev = cap_ev;
	r->n_ev = 0;
	r->str = str;
	r->cap_str = cap_str;
	r->n_str = 0;
}

struct sc_ev *sc_report_add(struct sc_copy_report *r, enum sc_event_kind kind,
			    int err, bool fatal, bool error)
{
	struct sc_ev *ev;

	if (sc_grow(r->ev, r->n_ev, r->cap_ev, 8) < 0)
		return NULL;
	ev = &r->ev[r->n_ev++];
	*ev = (struct sc_ev){ .kind = kind, .err = err, .fatal = fatal,
			      .error = error };
	return ev;
}

void sc_report_attr(struct sc_copy_report *r, struct sc_ev *ev,
		    const char *s)
{
	size_t len = strlen(s) + 1;

	if (!ev)
		return;
	if (r->n_str + len > r->cap_str) {
		size_t cap = r->cap_str ? r->cap_str : 256;
		char *n;

		while (cap < r->n_str + len)
			cap *= 2;
		n = realloc(r->str, cap);
		if (!n)
			return;
		r->str = n;
		r->cap_str = cap;
	}
	memcpy(r->str + r->n_str, s, len);
	ev->attr = r->n_str + 1;
	r->n_str += len;
}

/* ---- accessors ---------------------------------------------------------- */

const struct sc_fs_facts *sc_copy_report_src_fs(const struct sc_copy_report *r)
{
	return r ? r->src_fs : NULL;
}

const struct sc_fs_facts *sc_copy_report_dst_fs(const struct sc_copy_report *r)
{
	return r ? r->dst_fs : NULL;
}

struct sc_kernel sc_copy_report_kernel(const struct sc_copy_report *r)
{
	return r ? r->kernel : (struct sc_kernel){ 0, 0 };
}

const struct sc_plan *sc_copy_report_plan(const struct sc_copy_report *r)
{
	return r && (r->flags & SC_REPORT_PLANNED) ? &r->plan : NULL;
}

const struct stat *sc_copy_report_src_stat(const struct sc_copy_report *r)
{
	return r && (r->flags & SC_REPORT_OPENED) ? &r->src_st : NULL;
}

unsigned sc_copy_report_attempts(const struct sc_copy_report *r)
{
	return r ? (unsigned)r->res.n_attempts : 0;
}

int sc_copy_report_attempt(const struct sc_copy_report *r, unsigned i,
			   enum sc_road *ret_road, int *ret_err,
			   uint64_t *ret_bytes)
{
	if (!r)
		return -EINVAL;
	if (i >= (unsigned)r->res.n_attempts)
		return -ERANGE;
	if (ret_road)
		*ret_road = r->res.attempt[i].road;
	if (ret_err)
		*ret_err = r->res.attempt[i].err;
	if (ret_bytes)
		*ret_bytes = r->res.attempt[i].bytes;
	return 0;
}

uint64_t sc_copy_report_bytes(const struct sc_copy_report *r)
{
	return r ? r->res.bytes : 0;
}

uint64_t sc_copy_report_road_bytes(const struct sc_copy_report *r,
				   enum sc_road road)
{
	return r && (unsigned)road < SC_ROAD__MAX ? r->res.road_bytes[road] :
	       0;
}

off_t sc_copy_report_size(const struct sc_copy_report *r)
{
	return r ? r->res.size : 0;
}

int sc_copy_report_data_error(const struct sc_copy_report *r,
			      enum sc_side *ret_side)
{
	if (ret_side)
		*ret_side = r ? r->res.side : SC_SIDE_NONE;
	return r ? r->res.err : 0;
}

unsigned sc_copy_report_flags(const struct sc_copy_report *r)
{
	return r ? r->flags : 0;
}

int sc_copy_report_error(const struct sc_copy_report *r)
{
	return r ? r->error : 0;
}

enum sc_verify_result sc_copy_report_verify(const struct sc_copy_report *r,
					    off_t *ret_bad)
{
	if (ret_bad)
		*ret_bad = r ? r->verify_bad : 0;
	return r ? r->verify : SC_VERIFIED_NONE;
}

enum sc_change_how sc_copy_report_change(const struct sc_copy_report *r,
					 off_t *ret_before, off_t *ret_after,
					 bool *ret_again)
{
	if (ret_before)
		*ret_before = r ? r->change.size_before : 0;
	if (ret_after)
		*ret_after = r ? r->change.size_after : 0;
	if (ret_again)
		*ret_again = r && r->change.again;
	return r ? r->change.how : SC_CHANGE_NONE;
}

unsigned sc_copy_report_events(const struct sc_copy_report *r)
{
	return r ? (unsigned)r->n_ev : 0;
}

int sc_copy_report_event(const struct sc_copy_report *r, unsigned i,
			 struct sc_event *ret)
{
	struct sc_event e;
	const struct sc_ev *ev;
	size_t size;

	if (!r || !ret || ret->size < offsetof(struct sc_event, which) +
				      sizeof(ret->which))
		return -EINVAL;
	if (i >= r->n_ev)
		return -ERANGE;
	ev = &r->ev[i];
	e = (struct sc_event){
		.size = ret->size, .kind = ev->kind, .err = ev->err,
		.fatal = ev->fatal, .error = ev->error, .side = ev->side,
		.vside = ev->vside, .offset = ev->offset,
		.format = ev->format,
		.attr = ev->attr ? r->str + ev->attr - 1 : NULL,
		.which = ev->which,
	};
	/* a caller built against a header whose struct was shorter gets
	 * what it has room for, a longer one the rest zeroed */
	size = ret->size;
	memset(ret, 0, size);
	memcpy(ret, &e, MIN(size, sizeof(e)));
	return 0;
}
