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

# Every Markdown page the repository cites is in the repository: a comment or
# test that points at a page nobody who clones it can read is a dead end.
# Checked: every docs/<page>.md, every capitalised page (README.md,
# SECURITY.md, ...), and every relative link to a page in the pages.
case_ "every cited Markdown file exists in the repository"
files=$(cd "$SRC" && git ls-files src tests bench scripts docs examples man README.md SECURITY.md 2>/dev/null)
[ -n "$files" ] || files=$(cd "$SRC" && find src tests bench scripts docs examples man README.md SECURITY.md -type f)
missing=
for f in $files; do
	for ref in $(grep -oE '(^|[^A-Za-z0-9_./-])(docs/[a-z0-9_-]+\.md|[A-Z][A-Z0-9_]+\.md)' "$SRC/$f" |
		grep -oE '(docs/[a-z0-9_-]+|[A-Z][A-Z0-9_]+)\.md' | sort -u); do
		case $ref in
		docs/*) [ -f "$SRC/$ref" ] ;;
		*) [ -n "$(cd "$SRC" && find . -path ./build -prune -o -name "$ref" -print | head -1)" ] ;;
		esac || missing="$missing $f:$ref"
	done
	case $f in *.md) ;; *) continue ;; esac
	dir=$(dirname "$SRC/$f")
	for ref in $(grep -oE '\]\([A-Za-z0-9_./-]+\.md(#[^)]*)?\)' "$SRC/$f" | sed -E 's/^\]\(//; s/(#[^)]*)?\)$//' | sort -u); do
		[ -f "$dir/$ref" ] || missing="$missing $f:$ref"
	done
done
[ -z "$missing" ] || fail "cited Markdown files that the repository does not have:$missing"
finish
