package forge

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyRepr writes s as Python's repr() does. Only the allow-list's tier error
// uses it, because that message is part of the conformance vectors.
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == quote:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r): // the same set as Python's str.isprintable
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += w
	}
	b.WriteRune(quote)
	return b.String()
}

// maxEscaped bounds how much of an untrusted string a reason code carries:
// enough to recognise it, never enough to bloat every audit record.
const maxEscaped = 96

// escapeUntrusted renders an untrusted string for a reason code: Go-quoted
// (double quotes; control characters, quotes, backslashes and invalid UTF-8
// escaped; printable Unicode raw) and cut after maxEscaped bytes, with the
// number of bytes left out.
func escapeUntrusted(s string) string {
	if len(s) <= maxEscaped {
		return strconv.Quote(s)
	}
	cut := maxEscaped
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "+" + strconv.Itoa(len(s)-cut) + "B"
}
