/* power/power: the verdict columns of `kagari power` (see power.h). */
#include "power/power.h"

const enum verdict power_verdicts[5] = {VERDICT_REGRESSION, VERDICT_PASS, VERDICT_IMPROVED,
					VERDICT_WITHIN_NOISE, VERDICT_INCONCLUSIVE};
