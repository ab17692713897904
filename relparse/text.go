package relparse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether r is whitespace in Python's sense (str.isspace and
// the \s class of re): Go's unicode.IsSpace plus the information separators
// U+001C..U+001F. U+200B, U+180E and U+FEFF are not whitespace.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1C, 0x1D, 0x1E, 0x1F, 0x85, 0xA0,
		0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// IsWordRune reports whether r is a word character for \b in Python's re:
// any letter (L*), any number (Nd, Nl, No) or '_'. Combining marks are not.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIWord(byte(r))
	}
	if basicGreekOrCyrillicLetter(r) {
		return true // answered without searching the Unicode tables
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// basicGreekOrCyrillicLetter reports the letters of the Greek and Cyrillic
// alphabets proper (Α–ώ, Ѐ–џ), all of them letters in Unicode
// (TestBasicGreekOrCyrillicLetter checks it against the tables).
func basicGreekOrCyrillicLetter(r rune) bool {
	return (0x38E <= r && r <= 0x3CE && r != 0x3A2) || (0x400 <= r && r <= 0x45F)
}

func isASCIIWord(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '_'
}

// TrimSpace removes leading and trailing IsSpace runes (Python's str.strip()).
func TrimSpace(s string) string {
	// Most strings neither start nor end with white space: answer them
	// without decoding a rune.
	if len(s) > 0 && asciiNonSpace(s[0]) && asciiNonSpace(s[len(s)-1]) {
		return s
	}
	return strings.TrimFunc(s, IsSpace)
}

// asciiNonSpace reports an ASCII byte that IsSpace does not accept.
func asciiNonSpace(c byte) bool {
	return c < utf8.RuneSelf && !IsSpace(rune(c))
}

// CollapseSpace replaces every run of IsSpace runes with a single ' ', as
// Python's re.sub(r"\s+", " ", s) does. It does not trim. Bytes that are not
// valid UTF-8 are kept as they are.
func CollapseSpace(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	inSpace := false
	for i := 0; i < len(s); {
		r, w := decodeRune(s, i)
		if IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
		} else {
			b.WriteString(s[i : i+w])
			inSpace = false
		}
		i += w
	}
	return b.String()
}

// needsCollapse reports whether s holds whitespace other than single spaces.
func needsCollapse(s string) bool {
	prevSpace := false
	for i := 0; i < len(s); {
		r, w := decodeRune(s, i)
		i += w
		if !IsSpace(r) {
			prevSpace = false
			continue
		}
		if r != ' ' || prevSpace {
			return true
		}
		prevSpace = true
	}
	return false
}

// decodeRune decodes the rune at s[i:], with an ASCII fast path.
func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
