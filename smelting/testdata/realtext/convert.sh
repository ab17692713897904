#!/usr/bin/env bash
# Regenerates docs/ of the labelled real-text set from documentation installed
# on the machine. Every command and the version it was run with is listed in
# README.md ("Documents"); the script refuses to run with other versions,
# because another version gives other text and the labels would no longer
# match it.
#
#   bash smelting/testdata/realtext/convert.sh          # rewrite docs/
#   bash smelting/testdata/realtext/convert.sh --check  # compare with docs/
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="$here/docs"
check=false
[[ "${1:-}" == "--check" ]] && check=true

want() { # want NAME ACTUAL EXPECTED
	if [[ "$2" != "$3" ]]; then
		echo "convert.sh: $1 is $2, the set was made with $3" >&2
		exit 1
	fi
}
pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo missing; }

want "go version" "$(go env GOVERSION)" "go1.26.8"
want "xz-utils" "$(pkgver xz-utils)" "5.4.1-1"
want "man-db" "$(pkgver man-db)" "2.11.2-2"
want "groff-base" "$(pkgver groff-base)" "1.22.4-10"
want "nodejs" "$(pkgver nodejs)" "20.20.2-1nodesource1+repack1"
want "libffi8" "$(pkgver libffi8)" "3.4.4-1"
want "python3-pip" "$(pkgver python3-pip)" "23.0.1+dfsg-1"
want "openssh-client" "$(pkgver openssh-client)" "1:9.2p1-2+deb12u6"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Go package documentation: the text go doc prints, as it prints it. go doc
# reads $(go env GOROOT)/src; it runs in an empty folder so that no go.mod
# changes what it resolves.
(cd "$tmp" && GOFLAGS= go doc -all context) >"$tmp/go-context.txt"
(cd "$tmp" && GOFLAGS= go doc -all errors) >"$tmp/go-errors.txt"

# The xz(1) manual page rendered for an 80-column terminal without
# hyphenation or justification, from the title line to the end of the
# DESCRIPTION section (NAME, SYNOPSIS, COMMAND ALIASES, DESCRIPTION and its
# subsections); the page header line is left out.
MANWIDTH=80 LC_ALL=C.UTF-8 man --nh --nj -P cat xz 2>/dev/null |
	awk '/^NAME$/ {on=1} /^OPTIONS$/ {on=0} on' >"$tmp/man-xz.txt"

# The AUTHENTICATION section of the ssh(1) manual page, rendered the same
# way (the section heading included, the next heading left out).
MANWIDTH=80 LC_ALL=C.UTF-8 man --nh --nj -P cat ssh 2>/dev/null |
	awk '/^AUTHENTICATION$/ {on=1} /^ESCAPE CHARACTERS$/ {on=0} on' >"$tmp/man-ssh.txt"

# Node.js API documentation in Markdown, copied as installed.
cp /usr/share/doc/nodejs/api/querystring.md "$tmp/node-querystring.md"
cp /usr/share/doc/nodejs/api/string_decoder.md "$tmp/node-string-decoder.md"

# Topics of pip's user guide in Markdown (MyST), as installed (one of them is
# installed compressed).
zcat /usr/share/doc/python3-pip/html/topics/caching.md.gz >"$tmp/pip-caching.md"
cp /usr/share/doc/python3-pip/html/topics/repeatable-installs.md "$tmp/pip-repeatable-installs.md"
cp /usr/share/doc/python3-pip/html/topics/https-certificates.md "$tmp/pip-https-certificates.md"

# Pages of the libffi manual in HTML (made by GNU Texinfo), copied as
# installed.
for page in The-Basics Simple-Example Primitive-Types Structures Size-and-Alignment The-Closure-API Memory-Usage; do
	cp "/usr/share/doc/libffi8/html/$page.html" "$tmp/libffi-$page.html"
done

# The licence notices the documents are distributed under (xz(1) is in the
# public domain and has none).
mkdir -p "$tmp/licences"
cp "$(go env GOROOT)/LICENSE" "$tmp/licences/go.txt"
zcat /usr/share/man/man1/ssh.1.gz | sed -n '2,34p' | sed 's/^\.\\" \{0,1\}//' >"$tmp/licences/openssh.txt"
sed -n '1,23p' /usr/share/doc/nodejs/LICENSE >"$tmp/licences/nodejs.txt"
{
	sed -n '/^Files: \*$/,/^License:/p' /usr/share/doc/python3-pip/copyright | sed -n '2p'
	awk 'NR > 150 && /^License:/ {exit} NR >= 150' /usr/share/doc/python3-pip/copyright
} >"$tmp/licences/pip.txt"
sed -n '/^This manual is for libffi/,/SOFTWARE OR THE USE OR OTHER DEALINGS/p' /usr/share/doc/libffi8/html/index.html >"$tmp/licences/libffi.txt"

if $check; then
	diff -r "$tmp/licences" "$here/licences"
	rm -rf "$tmp/licences"
	diff -r "$tmp" "$out" && echo "docs/ and licences/ are up to date"
	exit
fi
rm -rf "$out" "$here/licences"
mkdir -p "$out"
mv "$tmp/licences" "$here/licences"
cp "$tmp"/* "$out"/
(cd "$out" && sha256sum -- *) >"$here/docs.sha256"
echo "wrote $(ls "$out" | wc -l) documents to $out and their licences to $here/licences"
