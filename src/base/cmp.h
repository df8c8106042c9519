/*
 * base/cmp: qsort comparators shared by every layer.
 *
 * cmp_double orders doubles ascending with NaN after every number (NaNs
 * compare equal to each other), so the order is total and qsort's result
 * is defined whatever the data; -0.0 and 0.0 compare equal.
 */
#ifndef KAGARI_BASE_CMP_H
#define KAGARI_BASE_CMP_H

/* a, b point to doubles: <0, 0 or >0 as *a sorts before, with or after *b. */
int cmp_double(const void *a, const void *b);

#endif
