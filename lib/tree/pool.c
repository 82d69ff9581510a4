/* The pool keeps one list of slots in submission order.  Workers take
 * jobs from the front of the pending ones and mark their slot done; only
 * the submitting thread prints, always from the head of the list, so the
 * output order is the walk order whatever the timing. */
#include "common.h"
#include "tree/pool.h"

#include <pthread.h>
#include <string.h>

struct pool {
	bool interleave;	/* slots keep both streams in one order */
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a job was queued, or stop */
	pthread_cond_t done;	/* a job finished */
	struct pool_slot *head, *tail;
	struct pool_slot *next_job;	/* first slot not yet taken */
	unsigned queued;	/* submitted, not yet flushed */
	unsigned limit;
	bool stop;
	pthread_t *threads;
	unsigned n_threads;
	void (*run)(void *, void *, unsigned);
	void (*flush)(void *, struct pool_slot *);
	void *arg;
};

struct start {
	struct pool *p;
	unsigned id;
};

/* An interleaving slot's stream takes LEN bytes of BUF: they go to the
 * end of its buffer, in a run of their stream's.  LEN, or -1 (ENOMEM). */
static ssize_t seq_write(void *cookie, const char *buf, size_t len)
{
	struct pool_cookie *c = cookie;
	struct pool_slot *s = c->slot;

	if (!len)
		return 0;
	if (s->seq_len + len > s->seq_cap) {
		size_t cap = s->seq_cap ? 2 * s->seq_cap : 4096;
		char *n;

		while (cap < s->seq_len + len)
			cap *= 2;
		n = realloc(s->seq, cap);
		if (!n)
			return -1;
		s->seq = n;
		s->seq_cap = cap;
	}
	if (!s->n_runs || s->runs[s->n_runs - 1].to_err != c->err) {
		if (sc_grow(s->runs, s->n_runs, s->cap_runs, 8) < 0)
			return -1;	/* fopencookie's error, ENOMEM */
		s->runs[s->n_runs++] = (struct sc_tree_run){ 0, c->err };
	}
	memcpy(s->seq + s->seq_len, buf, len);
	s->seq_len += len;
	s->runs[s->n_runs - 1].end = s->seq_len;
	return (ssize_t)len;
}

/* Unbuffered, so that every write lands in the buffer in the order it
 * was made, whichever of the two streams it went to. */
static FILE *seq_open(struct pool_slot *s, bool err)
{
	static const cookie_io_functions_t io = { .write = seq_write };
	FILE *f;

	s->cookie[err] = (struct pool_cookie){ s, err };
	f = fopencookie(&s->cookie[err], "w", io);
	if (f)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}

static void slot_free(struct pool_slot *s)
{
	if (s->out)
		fclose(s->out);
	if (s->err)
		fclose(s->err);
	free(s->out_buf);
	free(s->err_buf);
	free(s->seq);
	free(s->runs);
	free(s);
}

static struct pool_slot *slot_new(const struct pool *p, void *job)
{
	struct pool_slot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->job = job;
	if (job)
		return s;	/* a job's files are said from the job */
	if (p->interleave) {
		s->out = seq_open(s, false);
		s->err = seq_open(s, true);
	} else {
		s->out = open_memstream(&s->out_buf, &s->out_len);
		s->err = open_memstream(&s->err_buf, &s->err_len);
	}
	if (!s->out || !s->err) {
		slot_free(s);
		return NULL;
	}
	return s;
}

static void append(struct pool *p, struct pool_slot *s)
{
	if (p->tail)
		p->tail->next = s;
	else
		p->head = s;
	p->tail = s;
}

static void *worker(void *arg)
{
	struct start st = *(struct start *)arg;
	struct pool *p = st.p;

	free(arg);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct pool_slot *s;

		while (!p->stop && !p->next_job)
			pthread_cond_wait(&p->work, &p->lock);
		if (!p->next_job)
			break;		/* stop, and nothing left */
		s = p->next_job;
		do
			p->next_job = p->next_job->next;
		while (p->next_job && !p->next_job->job);
		pthread_mutex_unlock(&p->lock);

		p->run(p->arg, s->job, st.id);

		pthread_mutex_lock(&p->lock);
		s->done = true;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pool_new(unsigned workers, unsigned limit, bool interleave,
		void (*run)(void *, void *, unsigned),
		void (*flush)(void *, struct pool_slot *), void *arg,
		struct pool **ret)
{
	struct pool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->interleave = interleave;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->run = run;
	p->flush = flush;
	p->arg = arg;
	p->limit = limit ? limit : 1;
	p->threads = calloc(workers, sizeof(*p->threads));
	if (!p->threads) {
		free(p);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < workers; i++) {
		struct start *st = malloc(sizeof(*st));

		if (!st)
			break;
		*st = (struct start){ p, i };
		if (pthread_create(&p->threads[i], NULL, worker, st) != 0) {
			free(st);
			break;
		}
		p->n_threads++;
	}
	if (!p->n_threads) {
		pool_free(p);
		return -EAGAIN;
	}
	*ret = p;
	return 0;
}

/* Called with the lock held; drops it around FLUSH. */
static void flush_locked(struct pool *p, bool wait)
{
	for (;;) {
		struct pool_slot *s = p->head;

		if (!s)
			return;
		if (s->job && !s->done) {
			if (!wait)
				return;
			pthread_cond_wait(&p->done, &p->lock);
			continue;
		}
		/* The submitter's own slot is complete once a later slot
		 * exists or it is flushed at the end. */
		p->head = s->next;
		if (!p->head)
			p->tail = NULL;
		if (s->job)
			p->queued--;
		pthread_mutex_unlock(&p->lock);
		if (s->out) {
			fflush(s->out);
			fflush(s->err);
		}
		p->flush(p->arg, s);
		slot_free(s);
		pthread_mutex_lock(&p->lock);
	}
}

int pool_submit(struct pool *p, void *job)
{
	struct pool_slot *s = slot_new(p, job);

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&p->lock);
	while (p->queued >= p->limit) {
		flush_locked(p, false);
		if (p->queued >= p->limit)
			pthread_cond_wait(&p->done, &p->lock);
	}
	append(p, s);
	p->queued++;
	if (!p->next_job)
		p->next_job = s;
	pthread_cond_signal(&p->work);
	flush_locked(p, false);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

void pool_drain(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	flush_locked(p, true);
	pthread_mutex_unlock(&p->lock);
}

struct pool_slot *pool_own_slot(struct pool *p)
{
	struct pool_slot *s;

	pthread_mutex_lock(&p->lock);
	s = p->tail;
	if (!s || s->job) {
		s = slot_new(p, NULL);
		if (s)
			append(p, s);
	}
	pthread_mutex_unlock(&p->lock);
	return s;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	flush_locked(p, true);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
