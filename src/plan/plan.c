#include "plan/plan.h"

#include "model/rng.h"
#include "base/xalloc.h"

const char *plan_order_name(enum run_order order)
{
	switch (order) {
	case ORDER_ABBA:
		return "abba";
	case ORDER_ALTERNATE:
		return "alternate";
	default:
		return "random";
	}
}

static void push(struct plan_unit **seq, size_t *alloc, size_t *len,
		 struct plan_unit u)
{
	ALLOC_GROW(*seq, *len + 1, *alloc);
	(*seq)[(*len)++] = u;
}

size_t plan_round(enum run_order order, const struct plan_unit *units,
		  const int *runs, size_t n, int round, struct rng *rng,
		  struct plan_unit **seq, size_t *seq_alloc)
{
	size_t len = 0;
	int max_runs = 0;
	for (size_t i = 0; i < n; i++)
		if (runs[i] > max_runs)
			max_runs = runs[i];

	/*
	 * Pass k visits every unit that still owes a k-th run. abba walks
	 * the list forwards on even passes and backwards on odd ones, and
	 * starts backwards on odd rounds, so the mirror image alternates.
	 */
	for (int pass = 0; pass < max_runs; pass++) {
		int backwards = order == ORDER_ABBA && ((pass + round) & 1);
		for (size_t k = 0; k < n; k++) {
			size_t i = backwards ? n - 1 - k : k;
			if (runs[i] > pass)
				push(seq, seq_alloc, &len, units[i]);
		}
	}
	if (order == ORDER_RANDOM && len > 1) {
		/* Fisher-Yates with an unbiased bounded draw. */
		for (size_t i = len - 1; i > 0; i--) {
			size_t j = (size_t)rng_below(rng, (uint64_t)i + 1);
			struct plan_unit t = (*seq)[i];
			(*seq)[i] = (*seq)[j];
			(*seq)[j] = t;
		}
	}
	return len;
}
