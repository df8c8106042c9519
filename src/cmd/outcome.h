/*
 * cmd/outcome: from a measured run_result to result strings, the summary
 * counts, the exit code (CONTRACT precedence 4, 6, 1, 0) and the one
 * sentence that explains a non-zero exit.
 */
#ifndef KAGARI_CMD_OUTCOME_H
#define KAGARI_CMD_OUTCOME_H

struct run_result;

/* Fill every `result` field, r->summary and r->exit_reason. */
void outcome_judge(struct run_result *r);

#endif
