/*
 * model/exit: kagari's exit statuses, exactly as docs/contract.md fixes them.
 * When several apply, the precedence is 4, 6, 1, 0 (see exit_merge()).
 */
#ifndef KAGARI_MODEL_EXIT_H
#define KAGARI_MODEL_EXIT_H

enum exit_code {
	EXIT_PASS = 0,	      /* every check passed */
	EXIT_FAIL = 1,	      /* budget exceeded or gated regression */
	EXIT_INVALID = 2,     /* invalid suite or saved report; nothing ran */
	EXIT_USAGE = 3,	      /* unknown command/flag, filter selects nothing */
	EXIT_EXEC = 4,	      /* command, hook, build, git, timeout, interrupt, write */
	EXIT_INTERNAL = 5,    /* a bug in kagari */
	EXIT_UNSUPPORTED = 6, /* metric unsupported or budget unassessable */
};

/* Combine two outcomes by the contract's precedence 4 > 6 > 1 > 0. */
static inline int exit_merge(int a, int b)
{
	static const int rank[7] = {0, 1, 5, 4, 6, 3, 2};
	if (a < 0 || a > 6)
		return b;
	if (b < 0 || b > 6)
		return a;
	/* 2, 3 and 5 end a command before measuring: they rank above 6, 1
	   and 0, and below 4 (a failed write or run still says 4). */
	return rank[a] >= rank[b] ? a : b;
}

#endif
