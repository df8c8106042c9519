/*
 * analyze/compare_warn: the warnings a comparison leaves in its result —
 * the rounds the stall filter dropped, with their values, and an A/A
 * control that drifted beyond the tolerance. Split from compare.c, which
 * computes what these words report.
 */
#include "analyze/compare_internal.h"

#include "analyze/format.h"
#include "base/sbuf.h"
#include "base/strvec.h"

static void add_values(struct sbuf *sb, enum metric_id m, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(sb, ", ");
		units_format_value(sb, m, v[i]);
	}
	if (!n)
		sbuf_adds(sb, "none");
}

static void warn_stalls(const struct compare_input *in, struct compare_result *out)
{
	struct sbuf sb = SBUF_INIT;

	if (!out->nr_dropped)
		return;
	sbuf_addf(&sb,
		  "stall filter dropped %zu of %zu rounds (within-side spread "
		  "above %.3f): ",
		  out->nr_dropped, out->nr_rounds, out->stall_threshold);
	for (size_t k = 0; k < out->nr_dropped; k++) {
		const struct compare_dropped *d = &out->dropped[k];

		if (k)
			sbuf_adds(&sb, "; ");
		sbuf_addf(&sb, "round %d (base ", d->round);
		add_values(&sb, in->metric, d->base, d->nr_base);
		sbuf_adds(&sb, "; head ");
		add_values(&sb, in->metric, d->head, d->nr_head);
		sbuf_addf(&sb, "; spread %.3f)", d->spread);
	}
	strvec_push_take(&out->warnings, sbuf_detach(&sb));
}

static void warn_control(const struct compare_input *in, struct compare_result *out)
{
	struct sbuf sb = SBUF_INIT;

	if (!out->control_failed)
		return;
	sbuf_adds(&sb, "A/A control failed: base against itself moved ");
	units_format_percent(&sb, out->control_percent);
	sbuf_addf(&sb, " (%g%% interval ", in->confidence * 100);
	units_format_percent(&sb, out->control_low_percent);
	sbuf_adds(&sb, " to ");
	units_format_percent(&sb, out->control_high_percent);
	sbuf_addf(&sb,
		  "), beyond the tolerance %g%%: the machine drifted during "
		  "the run",
		  in->max_percent);
	strvec_push_take(&out->warnings, sbuf_detach(&sb));
}

void compare_add_warnings(const struct compare_input *in, struct compare_result *out)
{
	warn_stalls(in, out);
	warn_control(in, out);
}
