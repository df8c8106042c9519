#!/bin/bash
# check-layers.sh [SRC-DIR] — kagari's layering, checked (run by `make check`
# as the CTest test `layers`; `--self-test` shows it catches violations).
#
# The shape (docs/architecture.md has the long form):
#
#   argv -> cmd/ -> suite/ -> plan/ -> measure/ -> analyze/ -> report/ -> exit
#                    \------ git/ (base worktree, builds) -----/
#
# A stage may include its own headers, the headers of the stages before it,
# and the shared layers below every stage — never a later stage:
#
#   base/     sbuf, strvec, xalloc, opts, fileio, tmpdir, suggest: nothing
#             but base/.
#   model/    the exit codes, the metric registry, the result model with
#             its analysis settings, the seeded RNG: base/ only. Every
#             stage may use it.
#   proc/     child processes and /proc readers: base/ only. measure/ and
#             git/ start processes through it.
#   suite/    YAML to a validated suite: base/, model/.
#   git/      revisions, worktrees: base/, proc/.
#   plan/     the schedule (rounds, order, runs owed, stop): base/,
#             model/, suite/.
#   measure/  runs commands and records samples: base/, model/, proc/,
#             suite/, plan/.
#   analyze/  summaries, budgets, comparisons, verdicts (one entry point,
#             analyze.h): base/, model/, suite/.
#   report/   writers and the JSON reader: base/, model/, suite/, analyze/,
#             power/ (the replay's result, for its table and JSON),
#             history/ (the series `kagari history` shows, for its
#             outputs; history/ never includes report/).
#   ci/       the GitHub event: base/, model/.
#   history/  the SQLite results store, step detection and the history
#             branch: base/, model/, git/ (sync.c reads and writes the
#             branch with git plumbing).
#             It stores the result model as analysed and reads series
#             back; it never analyses (cmd/ re-runs analyze_result() on
#             what it reads) and never measures, so it needs no stage.
#   power/    `kagari power`'s replay of compare's design on recorded
#             traces: base/, model/, suite/, plan/, analyze/ (it plans
#             rounds as measuring would and judges them as compare does).
#   run/      what a command does across git and the stages, without its
#             options or printing (the suites the base's gate judges by):
#             anything but cmd/.
#   cmd/      the commands: anything. The top, with src/main.c.
#   src/main.c and src/runner_main.c (the kagari-runner program): anything.
#
# Who may print and exit: only cmd/, src/main.c and src/runner_main.c write
# to standard output or standard error (printf, puts, perror, or fprintf/
# fputs/fputc/fwrite to stdout/stderr) or call exit(). Everything below
# returns -1 with a reason in a caller's `struct sbuf *err`. A forked child
# that failed to exec ends with _exit(), which is allowed anywhere.
#
# Sizes: no file over 1,200 lines, no function over 100 (brace to brace),
# a folder's *_internal.h is included from that folder only, and cmd/ at
# most 12% of src/'s lines (the commands parse, call and render; their
# logic is in the layers below).
#
# Who reads kagari's switches: only cmd/ and the mains call getenv() on a
# KAGARI_* name (test switches such as KAGARI_RUNNER_FORK and
# KAGARI_TEST_COUNTERS_SOFTWARE, KAGARI_ALLOC_SHIM); they pass the values
# down as options, so the library behaves the same whatever the environment.
set -u

allowed() {
	case $1 in
	base) echo "base" ;;
	model) echo "base model" ;;
	proc) echo "base proc" ;;
	suite) echo "base model suite" ;;
	git) echo "base proc git" ;;
	plan) echo "base model suite plan" ;;
	measure) echo "base model proc suite plan measure" ;;
	analyze) echo "base model suite analyze" ;;
	report) echo "base model suite analyze power history report" ;;
	ci) echo "base model ci" ;;
	history) echo "base model git history" ;;
	power) echo "base model suite plan analyze power" ;;
	run) echo "base model proc suite git plan measure analyze report ci history power run" ;;
	cmd | top) echo "*" ;;
	*) echo "" ;;
	esac
}

# check SRC-DIR: print every violation; exit 1 when there is one.
check() {
	local src=$1 bad=0 f rel layer ok line inc dir
	[ -d "$src" ] || { echo "check-layers: no folder '$src'" >&2; return 2; }
	while IFS= read -r f; do
		rel=${f#"$src"/}
		case $rel in
		*/*) layer=${rel%%/*} ;;
		*) layer=top ;;
		esac
		ok=$(allowed "$layer")
		if [ -z "$ok" ]; then
			echo "$f: folder '$layer/' is not in the layer matrix of scripts/check-layers.sh"
			bad=1
			continue
		fi
		if [ "$ok" != "*" ]; then
			while IFS=: read -r line inc; do
				inc=${inc#*\"}
				inc=${inc%%\"*}
				dir=${inc%%/*}
				[ "$dir" = "$inc" ] && continue # a system-style local name
				case " $ok " in
				*" $dir "*) ;;
				*)
					echo "$f:$line: $layer/ includes \"$inc\" ($layer/ may include: $ok)"
					bad=1
					;;
				esac
			done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
			# Printing and exiting belong to cmd/ and the programs' mains.
			while IFS= read -r hit; do
				echo "$f:${hit%%:*}: only cmd/ and the mains print or exit: ${hit#*:}"
				bad=1
			done < <(sed 's@//.*@@' "$f" | grep -nE '(^|[^_a-z])(printf|puts|perror|exit)[[:space:]]*\(|f(printf|puts|putc|write)[[:space:]]*\(.*\b(stdout|stderr)\b' |
				grep -vE '^[0-9]+:[[:space:]]*(\*|/\*)')
			# kagari's own switches are read by cmd/ and the mains only.
			while IFS= read -r hit; do
				echo "$f:${hit%%:*}: only cmd/ and the mains read KAGARI_* switches: ${hit#*:}"
				bad=1
			done < <(grep -nE 'getenv[[:space:]]*\([[:space:]]*"KAGARI_' "$f")
		fi
		# Sizes a reader can hold: a file of at most MAX_FILE_LINES, a
		# function body (from its opening to its closing brace in column
		# 1, the tree's style) of at most MAX_FUNCTION_LINES.
		local n
		n=$(wc -l < "$f")
		if [ "$n" -gt "$MAX_FILE_LINES" ]; then
			echo "$f: $n lines, more than $MAX_FILE_LINES: split it along its concerns"
			bad=1
		fi
		while IFS= read -r hit; do
			echo "$f:$hit"
			bad=1
		done < <(awk -v max="$MAX_FUNCTION_LINES" '
			/^\{/ { start = NR; name = prev }
			/^\}/ && start {
				if (NR - start + 1 > max)
					printf "%d: function %s is %d lines, more than %d\n", start, name, NR - start + 1, max
				start = 0
			}
			/^[A-Za-z_].*\(/ { prev = $0; sub(/\(.*/, "", prev); sub(/.*[ *]/, "", prev) }' "$f")
		# A folder's _internal.h is its own: other folders use its
		# public header.
		while IFS=: read -r line inc; do
			inc=${inc#*\"}
			inc=${inc%%\"*}
			case $inc in
			*/*_internal.h)
				if [ "${inc%%/*}" != "$layer" ]; then
					echo "$f:$line: includes \"$inc\", another folder's internal header"
					bad=1
				fi
				;;
			esac
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
	done < <(find "$src" -name '*.[ch]' | LC_ALL=C sort)
	# cmd/ stays thin — parse, call, render — and the logic lives in the
	# layers below, where it has no options or printing to lean on.
	local cmd_lines all_lines
	cmd_lines=$(find "$src/cmd" -name '*.[ch]' -exec cat {} + 2>/dev/null | wc -l)
	all_lines=$(find "$src" -name '*.[ch]' -exec cat {} + | wc -l)
	if [ "$((cmd_lines * 100))" -gt "$((all_lines * MAX_CMD_PERCENT))" ]; then
		echo "$src/cmd: $cmd_lines of the $all_lines lines of $src, more than $MAX_CMD_PERCENT%: move logic into the layers below"
		bad=1
	fi
	return $bad
}

MAX_FILE_LINES=${MAX_FILE_LINES:-1200}
MAX_FUNCTION_LINES=${MAX_FUNCTION_LINES:-100}
MAX_CMD_PERCENT=${MAX_CMD_PERCENT:-12}

if [ "${1:-}" = "--self-test" ]; then
	# A tree with one backward include and one print must fail, a clean
	# one must pass.
	t=$(mktemp -d "${TMPDIR:-/tmp}/check-layers-XXXXXX")
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/src/model" "$t/src/analyze" "$t/src/cmd"
	# A tiny tree is mostly cmd/: the share is checked on its own below.
	MAX_CMD_PERCENT=100
	printf '#include "base/sbuf.h"\n' > "$t/src/model/ok.c"
	printf '#include "model/result.h"\n#include "cmd/cmd.h"\nint f(void) { printf("x"); return 0; }\n' > "$t/src/cmd/top.c"
	check "$t/src" >/dev/null || { echo "self-test: a clean tree failed"; exit 1; }
	printf '#include "analyze/analyze.h"\n' > "$t/src/model/bad.c"
	out=$(check "$t/src") && { echo "self-test: a backward include passed"; exit 1; }
	case $out in *'bad.c:1: model/ includes "analyze/analyze.h"'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	rm "$t/src/model/bad.c"
	printf 'void g(void) { fprintf(stderr, "no"); }\n' > "$t/src/analyze/p.c"
	out=$(check "$t/src") && { echo "self-test: a print in analyze/ passed"; exit 1; }
	case $out in *'p.c:1: only cmd/'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	rm "$t/src/analyze/p.c"
	mkdir -p "$t/src/measure"
	printf 'int h(void) { return !!getenv("KAGARI_X"); }\n' > "$t/src/measure/e.c"
	out=$(check "$t/src") && { echo "self-test: a switch read in measure/ passed"; exit 1; }
	case $out in *'e.c:1: only cmd/ and the mains read KAGARI_'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	rm "$t/src/measure/e.c"
	{ printf 'int big(void)\n{\n'; for i in $(seq 100); do printf '\tx();\n'; done; printf '}\n'; } > "$t/src/measure/long.c"
	out=$(check "$t/src") && { echo "self-test: a 102-line function passed"; exit 1; }
	case $out in *'long.c:2: function big is 102 lines, more than 100'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	rm "$t/src/measure/long.c"
	for i in $(seq 1201); do echo "/* $i */"; done > "$t/src/measure/huge.c"
	out=$(check "$t/src") && { echo "self-test: a 1201-line file passed"; exit 1; }
	case $out in *'huge.c: 1201 lines, more than 1200'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	rm "$t/src/measure/huge.c"
	printf '#include "measure/execute_internal.h"\n' > "$t/src/measure/in.c"
	check "$t/src" >/dev/null || { echo "self-test: a folder's own _internal.h failed"; exit 1; }
	printf '#include "measure/execute_internal.h"\n' > "$t/src/cmd/in.c"
	out=$(check "$t/src") && { echo "self-test: another folder's _internal.h passed"; exit 1; }
	case $out in *'in.c:1: includes "measure/execute_internal.h", another folder'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	rm "$t/src/cmd/in.c"
	MAX_CMD_PERCENT=12
	out=$(check "$t/src") && { echo "self-test: a cmd/ of most of the lines passed"; exit 1; }
	case $out in *'cmd: 3 of the 5 lines of'*'more than 12%'*) ;; *) echo "self-test: unexpected report: $out"; exit 1 ;; esac
	echo "check-layers self-test: ok"
	exit 0
fi

src=${1:-$(dirname "$0")/../src}
if check "$src"; then
	echo "check-layers: $(find "$src" -name '*.[ch]' | wc -l) files follow the layer matrix"
else
	echo "check-layers: include, print/exit or size rules broken (see above and scripts/check-layers.sh)"
	exit 1
fi
