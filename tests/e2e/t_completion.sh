#!/bin/bash
# kagari completion bash|zsh|fish (issue 15): generated from the option
# tables, so every command and every option --help shows is in each script.
# The bash script is sourced and driven as bash's completion would drive it;
# zsh and fish scripts are checked per command section (and with `zsh -n` /
# `fish -n` where those shells are installed).
. "$(dirname "$0")/lib.sh"

"$KAGARI" help >help.txt
cmds=$(sed -n '/^commands:/,/^$/p' help.txt | awk 'NF {print $1}' | grep -v '^commands:')
[ -n "$cmds" ] || fail "no commands in 'kagari help'"
echo "$cmds" | grep -qx completion || fail "'completion' is not in 'kagari help'"

for sh in bash zsh fish; do
	case_ "kagari completion $sh prints a script"
	run_k completion "$sh"
	expect_rc 0
	cp "$T/out" "comp.$sh"
	[ -s "comp.$sh" ] || fail "empty $sh script"
done

case_ "the bash script parses (bash -n) and sources"
bash -n comp.bash || fail "bash -n rejects the script"
bash -c '. ./comp.bash && complete -p kagari' >/dev/null 2>&1 || fail "sourcing does not register a completion for kagari"

# complete WORDS...: what the bash completion offers for the last word.
complete_bash() {
	bash -c '. ./comp.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kagari; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}

case_ "bash: every command after 'kagari'"
complete_bash kagari "" >got.txt
for c in $cmds; do grep -qx "$c" got.txt || fail "bash does not offer command '$c'"; done
[ "$(complete_bash kagari ru)" = run ] || fail "'kagari ru<TAB>' is not 'run': $(complete_bash kagari ru)"

for c in $cmds; do
	case_ "every option of '$c' is in each script"
	"$KAGARI" help "$c" >opts.txt
	# The options are the indented option lines (a description may name
	# another command's option, as merge's names --shard).
	opts=$(grep -oE -- '^ +(-[a-zA-Z0-9], )?--[a-z][a-z-]*' opts.txt |
		grep -o -- '--[a-z][a-z-]*' | sort -u)
	[ -n "$opts" ] || fail "no options found in 'kagari help $c'"
	complete_bash kagari "$c" -- >got.txt
	for o in $opts; do
		grep -qx -- "$o" got.txt || fail "bash does not offer '$o' after 'kagari $c'"
		name=${o#--}
		# zsh: in the command's case branch, as an _arguments spec
		awk -v c="$c" '$0 == "\t" c ")" {on = 1; next} on && $0 == "\t\t;;" {on = 0} on' comp.zsh |
			grep -qF -- "--$name[" || fail "zsh lacks '$o' for '$c'"
		grep -q -- "__fish_seen_subcommand_from $c' .*-l $name\b" comp.fish ||
			fail "fish lacks '$o' for '$c'"
	done
	grep -q "^		'$c:" comp.zsh || fail "zsh does not list command '$c'"
	grep -q -- "__fish_use_subcommand' -a $c " comp.fish || fail "fish does not list command '$c'"
done

case_ "bash: the values of --format, file names for --output, commands after help"
complete_bash kagari run --format "" >got.txt
for f in table json hyperfine-json bmf junit; do grep -qx "$f" got.txt || fail "--format does not offer '$f'"; done
complete_bash kagari compare --suite-from "" >got.txt
[ "$(sort got.txt | tr '\n' ' ')" = "base head " ] || fail "--suite-from offers: $(cat got.txt)"
touch some-output.json
[ "$(complete_bash kagari run --output some-o)" = some-output.json ] || fail "--output does not complete file names"
[ "$(complete_bash kagari help compl)" = completion ] || fail "'kagari help compl<TAB>' is not 'completion'"
[ "$(complete_bash kagari completion fi)" = fish ] || fail "'kagari completion fi<TAB>' is not 'fish'"

case_ "zsh and fish parse where installed"
if command -v zsh >/dev/null; then zsh -n comp.zsh || fail "zsh -n rejects the script"; fi
if command -v fish >/dev/null; then fish -n comp.fish || fail "fish -n rejects the script"; fi

case_ "an unknown or missing shell is a usage error"
run_k completion tcsh
expect_rc 3
expect_err "unknown shell 'tcsh'"
run_k completion
expect_rc 3
expect_err "bash, zsh or fish"
finish
