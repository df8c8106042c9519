#!/bin/bash
# Sourced by the action's steps (scripts/action/*.sh): the checks of the
# inputs, and the two ways a step talks to the runner — workflow commands
# on standard output (::error ...) and $GITHUB_OUTPUT — written so that no
# input can forge either.
#
# The inputs come as INPUT_* variables (action.yml). An unset one takes
# the action's default (so the scripts also run by hand); a set one must be
# exactly what it documents: a mistyped input stops the job at once, exit
# 3, instead of after minutes of building and measuring.

# gh_escape TEXT: TEXT as the message of a workflow command (% CR LF
# escaped as the runner unescapes them), so a value holding a newline
# stays in its one message instead of starting a command of its own.
gh_escape() {
	local s=$1
	s=${s//'%'/'%25'}
	s=${s//$'\r'/'%0D'}
	s=${s//$'\n'/'%0A'}
	printf '%s' "$s"
}

# gh_error MESSAGE: one ::error annotation titled kagari.
gh_error() {
	printf '::error title=kagari::%s\n' "$(gh_escape "$1")"
}

# gh_output NAME VALUE: append NAME=VALUE to $GITHUB_OUTPUT in the runner's
# multi-line form (NAME<<DELIMITER, the value, DELIMITER) with a random
# delimiter the value does not hold, so that no value, whatever its
# newlines, can end early or add another output.
gh_output() {
	local name=$1 value=$2 delim
	while :; do
		delim="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
		case $value in *"$delim"*) ;; *) break ;; esac
	done
	printf '%s<<%s\n%s\n%s\n' "$name" "$delim" "$value" "$delim" >>"${GITHUB_OUTPUT:?}"
}

# check_bool NAME VALUE: 0 when VALUE is exactly true or false, else an
# ::error naming the input and 1.
check_bool() {
	case $2 in
	true | false) return 0 ;;
	esac
	gh_error "$1 is '$2'; it takes true or false"
	return 1
}

# check_inputs: every input that needs no kagari to check (all but
# format's list; see check_format). 0, or 1 after an ::error per bad input.
check_inputs() {
	local bad=0 suite=${INPUT_SUITE-}
	check_bool run "${INPUT_RUN-true}" || bad=1
	check_bool fail-on-inconclusive "${INPUT_FAIL_ON_INCONCLUSIVE-false}" || bad=1
	check_bool history-push "${INPUT_HISTORY_PUSH-false}" || bad=1
	# The format's name before kagari is there to list them: any format is
	# lower-case letters and '-', so a pattern, a blank or a newline is
	# refused here already; check_format compares the exact name.
	case ${INPUT_FORMAT-table} in
	'' | *[!a-z-]*)
		gh_error "format '${INPUT_FORMAT-}' is not a format (kagari report --list-formats lists them)"
		bad=1
		;;
	esac
	if [ -n "$suite" ]; then
		case $suite in
		-*)
			gh_error "suite '$suite' starts with '-' (write ./$suite for a file named so)"
			bad=1
			;;
		*)
			[ -e "$suite" ] || {
				gh_error "suite '$suite' does not exist (relative to $PWD)"
				bad=1
			}
			;;
		esac
	fi
	return $bad
}

# check_format KAGARI: 0 when $INPUT_FORMAT (default table) is exactly one
# of the names `KAGARI report --list-formats` prints, else an ::error
# and 1. Compared as strings, never as a pattern.
check_format() {
	local format=${INPUT_FORMAT-table} names name
	names=$("$1" report --list-formats) || {
		gh_error "$1 report --list-formats failed"
		return 1
	}
	while IFS= read -r name; do
		[ "$name" = "$format" ] && return 0
	done <<<"$names"
	gh_error "format '$format' is not a format (one of: $(printf '%s' "$names" | tr '\n' ' '))"
	return 1
}
