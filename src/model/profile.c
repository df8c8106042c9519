/* model/profile: the sampled-profile data (model/profile.h). */
#include "model/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

const char *profile_verdict_name(enum profile_verdict v)
{
	switch (v) {
	case PROFILE_GREW:
		return "grew";
	case PROFILE_SHRANK:
		return "shrank";
	case PROFILE_TOO_FEW:
		return "too_few_samples";
	case PROFILE_SAME:
		break;
	}
	return "same";
}

int profile_verdict_parse(const char *name)
{
	for (int v = PROFILE_SAME; v <= PROFILE_TOO_FEW; v++)
		if (!strcmp(name, profile_verdict_name((enum profile_verdict)v)))
			return v;
	return -1;
}

void profile_set_release(struct profile_set *ps)
{
	free(ps->event);
	for (size_t i = 0; i < ps->nr_funcs; i++) {
		free(ps->funcs[i].function);
		free(ps->funcs[i].binary);
	}
	free(ps->funcs);
	for (size_t i = 0; i < ps->nr_runs; i++) {
		free(ps->runs[i].counts);
		free(ps->runs[i].slot);
	}
	free(ps->runs);
	for (size_t i = 0; i < ps->nr_stacks; i++)
		free(ps->stacks[i].stack);
	free(ps->stacks);
	free(ps->changes);
	free(ps->func_index);
	free(ps->stack_index);
	memset(ps, 0, sizeof(*ps));
}

/* ---- interning (open addressing; slots hold index + 1) ------------------- */

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static uint64_t func_hash(const char *function, const char *binary)
{
	return hash_str(hash_str(0xcbf29ce484222325ULL, function) ^ 0x1f, binary);
}

static void func_rehash(struct profile_set *ps)
{
	size_t size = ps->func_index_size ? ps->func_index_size * 2 : 64;
	free(ps->func_index);
	ps->func_index = xcalloc(size, sizeof(size_t));
	ps->func_index_size = size;
	for (size_t i = 0; i < ps->nr_funcs; i++) {
		size_t h = (size_t)func_hash(ps->funcs[i].function, ps->funcs[i].binary);
		while (ps->func_index[h & (size - 1)])
			h++;
		ps->func_index[h & (size - 1)] = i + 1;
	}
}

size_t profile_func_intern(struct profile_set *ps, const char *function, const char *binary)
{
	if ((ps->nr_funcs + 1) * 2 > ps->func_index_size)
		func_rehash(ps);
	size_t mask = ps->func_index_size - 1;
	size_t h = (size_t)func_hash(function, binary);
	for (;; h++) {
		size_t v = ps->func_index[h & mask];
		if (!v)
			break;
		const struct profile_func *f = &ps->funcs[v - 1];
		if (!strcmp(f->function, function) && !strcmp(f->binary, binary))
			return v - 1;
	}
	ALLOC_GROW(ps->funcs, ps->nr_funcs + 1, ps->alloc_funcs);
	ps->funcs[ps->nr_funcs].function = xstrdup(function);
	ps->funcs[ps->nr_funcs].binary = xstrdup(binary);
	ps->func_index[h & mask] = ++ps->nr_funcs;
	return ps->nr_funcs - 1;
}

static void stack_rehash(struct profile_set *ps)
{
	size_t size = ps->stack_index_size ? ps->stack_index_size * 2 : 64;
	free(ps->stack_index);
	ps->stack_index = xcalloc(size, sizeof(size_t));
	ps->stack_index_size = size;
	for (size_t i = 0; i < ps->nr_stacks; i++) {
		size_t h = (size_t)hash_str(0xcbf29ce484222325ULL, ps->stacks[i].stack);
		while (ps->stack_index[h & (size - 1)])
			h++;
		ps->stack_index[h & (size - 1)] = i + 1;
	}
}

void profile_stack_add(struct profile_set *ps, const char *stack, int side, uint64_t count)
{
	if ((ps->nr_stacks + 1) * 2 > ps->stack_index_size)
		stack_rehash(ps);
	size_t mask = ps->stack_index_size - 1;
	size_t h = (size_t)hash_str(0xcbf29ce484222325ULL, stack);
	for (;; h++) {
		size_t v = ps->stack_index[h & mask];
		if (!v)
			break;
		if (!strcmp(ps->stacks[v - 1].stack, stack)) {
			ps->stacks[v - 1].count[side] += count;
			return;
		}
	}
	ALLOC_GROW(ps->stacks, ps->nr_stacks + 1, ps->alloc_stacks);
	struct profile_stack *st = &ps->stacks[ps->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->stack = xstrdup(stack);
	st->count[side] = count;
	ps->stack_index[h & mask] = ++ps->nr_stacks;
}

/* ---- runs ----------------------------------------------------------------- */

struct profile_run *profile_run_add(struct profile_set *ps, int side, int round, double cpu_ns)
{
	ALLOC_GROW(ps->runs, ps->nr_runs + 1, ps->alloc_runs);
	struct profile_run *r = &ps->runs[ps->nr_runs++];
	memset(r, 0, sizeof(*r));
	r->side = side;
	r->round = round;
	r->cpu_ns = cpu_ns;
	return r;
}

static struct profile_count *run_count(struct profile_run *r, size_t func)
{
	if (func >= r->nr_slot) {
		size_t n = func + 64;
		r->slot = xreallocarray(r->slot, n, sizeof(size_t));
		memset(r->slot + r->nr_slot, 0, (n - r->nr_slot) * sizeof(size_t));
		r->nr_slot = n;
	}
	if (!r->slot[func]) {
		ALLOC_GROW(r->counts, r->nr + 1, r->alloc);
		r->counts[r->nr] = (struct profile_count){.func = func};
		r->slot[func] = ++r->nr;
	}
	return &r->counts[r->slot[func] - 1];
}

void profile_run_count_add(struct profile_run *r, size_t func, uint64_t self, uint64_t incl)
{
	struct profile_count *c = run_count(r, func);
	c->self += self;
	c->incl += incl;
}

void profile_run_sample(struct profile_set *ps, struct profile_run *r, const size_t *frames,
			size_t n)
{
	r->samples++;
	ps->samples[r->side]++;
	if (!n)
		return;
	run_count(r, frames[0])->self++;
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = frames[j] == frames[i];
		if (!seen)
			run_count(r, frames[i])->incl++;
	}
	struct sbuf st = SBUF_INIT;
	for (size_t i = n; i-- > 0;) {
		const char *name = ps->funcs[frames[i]].function;
		/* ';' separates frames and ' ' the count in the folded
		   format: neither may appear inside a frame. */
		for (const char *c = name; *c; c++)
			sbuf_addch(&st, *c == ';' || *c == ' ' || *c == '\n' ? '_' : *c);
		if (i)
			sbuf_addch(&st, ';');
	}
	profile_stack_add(ps, st.buf, r->side, 1);
	sbuf_release(&st);
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp((*(const struct profile_stack *const *)a)->stack,
		      (*(const struct profile_stack *const *)b)->stack);
}

void profile_folded(const struct profile_set *ps, int side, struct sbuf *out)
{
	const struct profile_stack **v = xcalloc(ps->nr_stacks ? ps->nr_stacks : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < ps->nr_stacks; i++)
		if (ps->stacks[i].count[side])
			v[n++] = &ps->stacks[i];
	qsort(v, n, sizeof(*v), cmp_stack);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(out, "%s %llu\n", v[i]->stack, (unsigned long long)v[i]->count[side]);
	free(v);
}
