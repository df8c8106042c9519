/*
 * plan: the schedule of plan.h — the sequence of one round (plan_round(),
 * the three orders), then the counts: rounds, runs owed, the adaptive stop.
 */
#include "plan/plan.h"

#include "model/rng.h"
#include "model/sequential.h"
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

static void push(struct plan_unit **seq, size_t *alloc, size_t *len, struct plan_unit u)
{
	ALLOC_GROW(*seq, *len + 1, *alloc);
	(*seq)[(*len)++] = u;
}

size_t plan_round(enum run_order order, const struct plan_unit *units, const int *runs, size_t n,
		  int round, struct rng *rng, struct plan_unit **seq, size_t *seq_alloc)
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
	 * random shuffles each pass on its own (Fisher-Yates with an
	 * unbiased bounded draw), not the whole round: every unit's k-th run
	 * still lands anywhere in its pass, so neither side is favoured by
	 * position, but a base run and a head run are never a whole pass
	 * apart. The noise of a shared machine drifts within a second (on
	 * this project's VM the log-ratio of two runs of the same program
	 * spread 2.9% when adjacent and 4.6% four runs apart), and a round
	 * shuffled whole is base base head head in a third of the rounds of
	 * two units and two runs each: replayed on 500 real runs, the
	 * round's log-ratio spread 3.0% shuffled whole and 2.5% pass by pass.
	 */
	for (int pass = 0; pass < max_runs; pass++) {
		int backwards = order == ORDER_ABBA && ((pass + round) & 1);
		size_t start = len;
		for (size_t k = 0; k < n; k++) {
			size_t i = backwards ? n - 1 - k : k;
			if (runs[i] > pass)
				push(seq, seq_alloc, &len, units[i]);
		}
		if (order != ORDER_RANDOM || len - start < 2)
			continue;
		for (size_t i = len - 1; i > start; i--) {
			size_t j = start + (size_t)rng_below(rng, (uint64_t)(i - start) + 1);
			struct plan_unit t = (*seq)[i];
			(*seq)[i] = (*seq)[j];
			(*seq)[j] = t;
		}
	}
	return len;
}

void plan_schedule_init(struct plan_schedule *s, const struct settings *st, int runs_override,
			int warmup_override)
{
	s->order = st->order;
	s->per_round = st->runs_per_round > 0 ? st->runs_per_round : 1;
	s->warmup = warmup_override >= 0 ? warmup_override : st->warmup;
	s->fixed = runs_override > 0 ? runs_override : st->runs;
	s->max_runs = s->fixed > 0 ? s->fixed : st->max_runs;
	s->min_runs = s->fixed > 0 ? s->fixed : st->min_runs;
	s->min_time_ns = st->min_time_ns;
	s->sequential = 0;
	s->max_time_ns = 0;
	s->warm_rounds = s->warmup > 0 ? plan_rounds_for(s->warmup, s->per_round) : 0;
	s->total_rounds = plan_rounds_for(s->max_runs, s->per_round);
}

void plan_make_sequential(struct plan_schedule *s, const struct settings *st)
{
	if (s->fixed > 0)
		return;
	s->sequential = 1;
	s->min_runs = s->max_runs; /* the looks stop it, not min_time */
	s->min_time_ns = 0;
	s->max_time_ns = st->max_time_ns;
}

int plan_look_due(const struct plan_schedule *s, int rounds)
{
	return s->sequential && seq_is_look(rounds, s->total_rounds);
}

int plan_rounds_for(int runs, int per_round)
{
	return (runs + per_round - 1) / per_round;
}

int plan_share(int left, int per_round)
{
	if (left <= 0)
		return 0;
	return left < per_round ? left : per_round;
}

int plan_owed(const struct plan_schedule *s, int r, int measured)
{
	if (r < s->warm_rounds)
		return plan_share(s->warmup - r * s->per_round, s->per_round);
	return plan_share(s->max_runs - measured, s->per_round);
}

int plan_wants_more(const struct plan_schedule *s, int measured, int64_t time_ns)
{
	return measured < s->max_runs && (measured < s->min_runs || time_ns < s->min_time_ns);
}

int plan_round_certain(const struct plan_schedule *s, int measured)
{
	int floor = s->min_runs < s->max_runs ? s->min_runs : s->max_runs;
	return s->fixed > 0 || s->sequential || measured < floor;
}
