/* base/cmp: qsort comparators (base/cmp.h). */
#include "base/cmp.h"

#include <math.h>

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	/* A total order even with NaN (placed last), so qsort stays defined. */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}
