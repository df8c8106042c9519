/*
 * suite/load_internal: what the files of the suite loader share; not for
 * callers outside src/suite/load*.c (they use load.h).
 *
 * The loader in five files, in the order a suite file meets them:
 *   load_text.c      encoding checks, parser errors, the alias budget
 *   load_fields.c    key lists, typed getters, path and variable checks, exec
 *   load_settings.c  metrics, regression settings, settings
 *   load_bench.c     commands, budgets, benchmarks, matrices
 *   load.c           report outputs, the top level, suite_load()
 * Every ld_ function records its errors in L->w and returns as load.h says.
 */
#ifndef KAGARI_SUITE_LOAD_INTERNAL_H
#define KAGARI_SUITE_LOAD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "model/metric.h"
#include "suite/load.h"
#include "suite/model.h"
#include "suite/ywalk.h"

/* Aliases may not make the document larger than this many nodes (or the
 * number of nodes actually written, when that is larger). */
#define SUITE_MAX_EXPANDED_NODES 10000
/* Encoding problems reported before giving up on the file. */
#define SUITE_MAX_ENCODING_ERRORS 10

struct loader {
	struct ywalk w;
	struct suite *s;
	const char *data; /* the file's bytes, for positions inside scalars */
	size_t len;
	int has_build;
	char *rel_dir; /* the suite's folder relative to the root: "" or "a/b" */
	/* regression.commands of the benchmark being loaded (checked once
	 * its commands are known) */
	yaml_node_t *reg_commands;
	const char *reg_commands_path;
	/* regression.<metric> written on the benchmark being loaded (a metric
	 * it does not measure is an error there, not in defaults) */
	yaml_node_t *reg_metric[METRIC__COUNT];
	const char *reg_metric_path[METRIC__COUNT];
};

enum level { LV_DEFAULTS, LV_BENCH, LV_COMMAND };

/* What a checked text is, for ld_check_text(). */
enum text_kind { TEXT_NAME, TEXT_DESCRIPTION, TEXT_COMMAND };

/* load_text.c */
size_t ld_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp);
size_t ld_check_encoding(struct ywalk *w, const char *data, size_t len);
void ld_report_parser_error(struct loader *L, yaml_parser_t *p);
int ld_check_expansion(struct loader *L, yaml_document_t *doc);

/* load_fields.c */
extern const char *const ld_top_keys[];
extern const char *const ld_top_elsewhere[];
extern const char *const ld_defaults_keys[];
extern const char *const ld_defaults_elsewhere[];
extern const char *const ld_bench_keys[];
extern const char *const ld_bench_elsewhere[];
extern const char *const ld_command_keys[];
extern const char *const ld_command_elsewhere[];
extern const char *const ld_metrics_keys[];
extern const char *const ld_metrics_defaults_keys[];
extern const char *const ld_throughput_only[];
extern const char *const ld_metric_reg_keys[];
extern const char *const ld_counter_names[];
extern const char *const ld_order_names[];
extern const char *const ld_pairing_names[];
extern const char *const ld_correction_names[];
extern const char *const ld_statistic_names[];
extern const char *const ld_instrument_names[];
extern const char *const ld_unsupported_names[];
extern const char *const ld_format_names[];
const char *const *ld_regression_keys(int bench_level);
const char *const *ld_all_metric_names(void);
struct src_loc ld_loc_of(const yaml_node_t *n);
void ld_missing(struct loader *L, struct ywalk_map *m, const char *key, const char *hint);
int ld_get_int(struct loader *L, struct ywalk_map *m, const char *key, long long min, long long max,
	       int *out, yaml_node_t **node);
int ld_get_bool(struct loader *L, struct ywalk_map *m, const char *key, int *out);
int ld_get_enum(struct loader *L, struct ywalk_map *m, const char *key, const char *const *choices,
		int *out);
int ld_get_str(struct loader *L, struct ywalk_map *m, const char *key, char **dst,
	       yaml_node_t **node);
int ld_get_duration(struct loader *L, struct ywalk_map *m, const char *key, int positive,
		    int64_t *out);
int ld_check_text(struct loader *L, const yaml_node_t *n, const char *path, const char *text,
		  enum text_kind kind);
int ld_name_ok(const char *s);
int ld_check_vars(struct loader *L, const yaml_node_t *n, const char *path, const char *text,
		  unsigned allowed, int shell);
unsigned ld_base_vars(const struct loader *L);
int ld_has_dotdot(const char *p);
int ld_check_suite_path(struct loader *L, const yaml_node_t *n, const char *path, const char *value,
			int allow_workdir);
int ld_output_path(struct loader *L, struct ywalk_map *m, const char *key, char **dst);
void ld_env(struct loader *L, yaml_node_t *n, const char *path, struct strvec *env,
	    unsigned allowed);
int ld_exit_codes(struct loader *L, yaml_node_t *n, const char *path, struct settings *s);
void ld_command_fields(struct loader *L, struct ywalk_map *m, struct exec_spec *e,
		       unsigned allowed);
void ld_exec(struct loader *L, yaml_node_t *n, const char *path, struct exec_spec *e,
	     int64_t default_timeout, unsigned allowed);
/* The top-level build: an exec object plus `submodules` (false sets
 *no_submodules). */
void ld_build(struct loader *L, yaml_node_t *n, struct exec_spec *e, int *no_submodules);
void ld_hooks(struct loader *L, struct ywalk_map *m, const char *key, struct exec_spec **out,
	      size_t *nr);

/* load_settings.c */
void ld_settings(struct loader *L, struct ywalk_map *m, struct settings *s, enum level lv);

/* load_bench.c */
void ld_bench(struct loader *L, yaml_node_t *n, const char *path, size_t index,
	      struct bench_spec *b);

#endif
