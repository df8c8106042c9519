#!/bin/bash
# Every command and every option is documented: in the man page, and the
# commands in the README or docs/. The option lists come from --help, which
# is generated from the option tables, so code and docs cannot drift apart.
. "$(dirname "$0")/lib.sh"
SRC=${KAGARI_SOURCE_DIR:?}
MAN="$SRC/man/kagari.1"

"$KAGARI" help >help.txt
cmds=$(sed -n '/^commands:/,/^$/p' help.txt | awk 'NF {print $1}' | grep -v '^commands:')
for c in $cmds; do
	case_ "command '$c' is in the man page and the README/docs"
	grep -q "^\.B kagari $c\|^\.B $c\$" "$MAN" || fail "man page lacks command '$c'"
	cat "$SRC/README.md" "$SRC"/docs/*.md | grep -q "kagari $c" || fail "README/docs lack 'kagari $c'"
	"$KAGARI" help "$c" >opts.txt
	for o in $(grep -o -- '--[a-z][a-z-]*' opts.txt | sort -u); do
		[ "$o" = --help ] && continue
		esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$MAN" || fail "man page lacks option '$o' of '$c'"
	done
done
finish
