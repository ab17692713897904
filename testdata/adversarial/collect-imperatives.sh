#!/usr/bin/env bash
# Writes imperatives.jsonl: every sentence of a fixed list of real documents
# installed on this machine that opens with a verb in the imperative from a
# fixed list, in document order, without hand-picking. The review gate must
# pass every one of them (runtime/review's tests).
#
#   bash testdata/adversarial/collect-imperatives.sh          # rewrite imperatives.jsonl
#   bash testdata/adversarial/collect-imperatives.sh --check  # compare with it
#
# Go documentation is what `go doc -all` prints for standard library packages:
# it reads $(go env GOROOT)/src. Nothing under $(go env GOROOT)/doc is read:
# that folder is reserved for acceptance. Manual pages are rendered by
# `man -P cat` at 80 columns without hyphenation or justification.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="$here/imperatives.jsonl"
check=false
[[ "${1:-}" == "--check" ]] && check=true

want() { # want NAME ACTUAL EXPECTED
	if [[ "$2" != "$3" ]]; then
		echo "collect-imperatives.sh: $1 is $2, the file was made with $3" >&2
		exit 1
	fi
}
pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo missing; }
want "go version" "$(go env GOVERSION)" "go1.26.8"
want "man-db" "$(pkgver man-db)" "2.11.2-2"
want "groff-base" "$(pkgver groff-base)" "1.22.4-10"

go_packages=(bufio bytes strings strconv fmt io io/fs os os/exec os/signal
	path/filepath sort slices maps sync sync/atomic time flag log log/slog
	encoding/json encoding/csv encoding/xml net net/http net/url
	net/http/httptest crypto/tls crypto/x509 database/sql text/template
	html/template regexp runtime runtime/debug runtime/pprof reflect testing
	archive/zip archive/tar compress/gzip go/ast go/types go/build math/big
	math/rand unsafe embed mime/multipart hash/maphash iter)
# Manual pages, rendered as installed; each line's source names the Debian
# package that installs the page and its version (the page's licence is that
# package's). xz(1) and ssh(1) are left out: the labelled real-text set of
# smelting uses them.
man_pages=(tar grep find cp rm ln sort ls mv chmod du install diff patch make
	gzip zip unzip sed curl wget ssh-keygen ssh_config gpg openssl less git
	git-config git-reset git-rebase git-clean git-push git-commit dpkg apt-get
	ld strace ps lsof valgrind sqlite3 psql node)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# prose_go turns go doc output into paragraphs, one per line: the package
# header and the doc lines indented by exactly four spaces; code (deeper
# indents), declarations and headings end a paragraph. Each paragraph is
# prefixed with the name its declaration declares and a tab, so that a
# sentence about it ("Reset discards the buffer.") is not taken for an
# imperative.
prose_go() {
	perl -ne '
		chomp;
		if (/^    (\S.*)$/ || ($head && /^(\S.*)$/ && !/^package / && !/^[A-Z][A-Z ]+$/)) { $p .= " $1"; next }
		$head = 0 if /^[A-Z][A-Z ]+$/;
		print "$name\t$p\n" if $p ne ""; $p = "";
		$name = $1 if /^(?:func(?: \([^)]*\))?|type|var|const) (\w+)/;
		BEGIN { $head = 1; $name = "" }
		END { print "$name\t$p\n" if $p ne "" }'
}

# prose_man turns a rendered page into paragraphs: runs of indented lines
# between blank lines.
prose_man() {
	perl -ne '
		chomp;
		if (/^ {7,}(\S.*)$/) { $p .= " $1"; next }
		print "\t$p\n" if $p ne ""; $p = "";
		END { print "\t$p\n" if $p ne "" }'
}

# imperatives splits paragraphs (NAME, a tab, the text) into sentences and
# prints, as JSON lines with the given source, each one that opens with an
# imperative verb of the list, unless the verb is NAME or is followed by a
# third-person verb ("Set is", "Close closes").
imperatives() {
	SOURCE="$1" perl -CSD -MJSON::PP -ne '
		BEGIN {
			@verbs = qw(Abort Accept Add Allow Always Apply Assume Avoid Be Beware Block Build Bypass
				Call Cancel Change Check Choose Clear Close Compare Compile Consider Convert Copy Create
				Define Delete Disable Discard Display Do Drop Edit Enable Ensure Exclude Exit Follow
				Force Forget Free Give Ignore Include Install Keep Kill Leave Limit List Load Lock Make
				Mark Modify Never Note Omit Open Override Pass Prefer Print Provide Put Read Redefine
				Register Reject Release Remove Replace Report Reset Restart Retry Return Reuse Rewrite
				Run Save Select Send Set Show Skip Specify Stop Store Suppress Test Treat Try Turn Unlock
				Unset Update Use Validate Verify Wrap Write);
			%verb = map { $_ => 1 } @verbs;
			%third = map { $_ => 1 } qw(is are was were has have can could must should will would
				may might does did returns reports calls sets implements provides holds);
			$json = JSON::PP->new->canonical;
			$src = $ENV{SOURCE};
		}
		chomp; my ($name, $para) = split /\t/, $_, 2;
		$para =~ s/\s+/ /g; $para =~ s/^ //;
		for my $s (split /(?<=[.!?])\s+(?=[A-Z])/, $para) {
			my @w = split / /, $s;
			next unless @w >= 3 && @w <= 60 && $s =~ /[.!?]$/;
			my ($v, $next) = ($w[0], lc $w[1]);
			$next =~ s/[^a-z]//g;
			next unless $verb{$v} && $v ne $name;
			my $l = lc $v; (my $ly = $l) =~ s/y$/ies/;
			next if $third{$next} || $next eq "${l}s" || $next eq "${l}es" || $next eq $ly;
			next if $seen{$s}++;
			print $json->encode({label => "imperative", source => $src, text => $s}), "\n";
		}'
}

for pkg in "${go_packages[@]}"; do
	(cd "$tmp" && GOFLAGS= go doc -all "$pkg") | prose_go | imperatives "go doc -all $pkg (go1.26.8)"
done >"$tmp/go.jsonl"
for page in "${man_pages[@]}"; do
	deb="$(dpkg -S "$(man -w "$page")" | cut -d: -f1)"
	MANWIDTH=80 LC_ALL=C.UTF-8 man --nh --nj -P cat "$page" 2>/dev/null | prose_man |
		imperatives "man -P cat $page ($deb $(pkgver "$deb"))"
done >"$tmp/man.jsonl"

# Number the lines and drop a sentence that an earlier one already gave up to
# its identifiers and options (curl says "Disable it again with --no-X." for
# eighty X): a word with a dot, a digit, a leading dash or a capital after its
# first letter counts as the same word.
cat "$tmp/go.jsonl" "$tmp/man.jsonl" | perl -CSD -MJSON::PP -ne '
	BEGIN { $json = JSON::PP->new->canonical }
	my $o = $json->decode($_);
	my $shape = join " ", map { /\.\w|\d|^-|\w[A-Z]/ ? "_" : $_ } split / /, $o->{text};
	next if $seen{$shape}++;
	$o->{id} = sprintf "imp-%04d", ++$n;
	print $json->encode($o), "\n";' >"$tmp/imperatives.jsonl"

if $check; then
	diff -u "$out" "$tmp/imperatives.jsonl"
	echo "collect-imperatives.sh: imperatives.jsonl is up to date"
else
	cp "$tmp/imperatives.jsonl" "$out"
	echo "collect-imperatives.sh: wrote $(wc -l <"$out") sentences to $out"
fi
