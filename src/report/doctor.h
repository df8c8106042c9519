/*
 * report/doctor: `kagari doctor`'s output, one line per finding
 * (`status  item: value — advice`) or JSON {"checks": [{status, item,
 * value, advice}]} (docs/contract.md).
 */
#ifndef KAGARI_REPORT_DOCTOR_H
#define KAGARI_REPORT_DOCTOR_H

#include "base/sbuf.h"
#include "model/doctor.h"

void report_doctor_text(struct sbuf *out, const struct doctor *d);
void report_doctor_json(struct sbuf *out, const struct doctor *d);

#endif
