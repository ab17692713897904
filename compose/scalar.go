package compose

import (
	"strconv"
	"unicode/utf8"
)

// str writes a string scalar: plain when a YAML loader is certain to read
// the same string back, double-quoted otherwise.
func (e *emitter) str(s string) error {
	if plainSafe(s) { // plain strings are ASCII: valid UTF-8
		e.buf = append(e.buf, s...)
		return nil
	}
	if !utf8.ValidString(s) {
		return &Error{Kind: KindInvalidUTF8, Msg: "string is not valid UTF-8"}
	}
	e.quoted(s)
	return nil
}

// plainSafe is the original's plain pattern ^[A-Za-z_][A-Za-z0-9_./:-]*$
// applied to the whole string, minus the spellings a YAML 1.1 or 1.2 loader
// resolves to a boolean or null, minus strings ending in ':' (read as a key).
func plainSafe(s string) bool {
	if s == "" || !plainStart(s[0]) || s[len(s)-1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !plainByte(s[i]) {
			return false
		}
	}
	return !reserved(s)
}

func plainStart(c byte) bool {
	return c == '_' || ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z')
}

func plainByte(c byte) bool {
	return plainStart(c) || ('0' <= c && c <= '9') || c == '.' || c == '/' || c == ':' || c == '-'
}

// reserved lists the plain words that do not load as strings. The original
// knew the lower- and title-case forms; YAML 1.1 also reads the upper-case
// forms and the single letters y/Y/n/N as booleans.
func reserved(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE",
		"yes", "Yes", "YES", "no", "No", "NO",
		"on", "On", "ON", "off", "Off", "OFF",
		"y", "Y", "n", "N",
		"null", "Null", "NULL":
		return true
	}
	return false
}

// quoted writes s in double quotes. Backslash, quote, newline, tab and CR use
// the original's escapes; every other character a YAML reader would refuse or
// treat as a line break is escaped by code point.
func (e *emitter) quoted(s string) {
	e.buf = append(e.buf, '"')
	for len(s) > 0 {
		// Printable ASCII other than the two escaped characters is copied
		// in runs; everything else goes through the per-rune switch.
		n := 0
		for n < len(s) && s[n] >= 0x20 && s[n] < 0x7f && s[n] != '\\' && s[n] != '"' {
			n++
		}
		e.buf = append(e.buf, s[:n]...)
		s = s[n:]
		if s == "" {
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		e.escapeRune(r)
	}
	e.buf = append(e.buf, '"')
}

// escapeRune writes one character of a double-quoted scalar.
func (e *emitter) escapeRune(r rune) {
	switch {
	case r == '\\':
		e.buf = append(e.buf, `\\`...)
	case r == '"':
		e.buf = append(e.buf, `\"`...)
	case r == '\n':
		e.buf = append(e.buf, `\n`...)
	case r == '\t':
		e.buf = append(e.buf, `\t`...)
	case r == '\r':
		e.buf = append(e.buf, `\r`...)
	case r < 0x20 || r == 0x7f:
		e.buf = append(e.buf, `\x`...)
		e.hex(r, 2)
	case needsCodeEscape(r):
		e.buf = append(e.buf, `\u`...)
		e.hex(r, 4)
	default:
		e.buf = utf8.AppendRune(e.buf, r)
	}
}

// needsCodeEscape: C1 controls (NEL among them), the Unicode line and
// paragraph separators, the byte-order mark and the two non-characters a
// YAML reader refuses.
func needsCodeEscape(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
		r == 0xfeff || r == 0xfffe || r == 0xffff
}

func (e *emitter) hex(r rune, width int) {
	const digits = "0123456789abcdef"
	for shift := 4 * (width - 1); shift >= 0; shift -= 4 {
		e.buf = append(e.buf, digits[(r>>shift)&0xf])
	}
}

// atKey and atIndex prefix an emitter error's path while the stack unwinds,
// so paths cost nothing unless something fails.
func atKey(err error, k string) error {
	return withSegment(err, "."+strconv.Quote(k))
}

func atIndex(err error, i int) error {
	return withSegment(err, "["+strconv.Itoa(i)+"]")
}

func withSegment(err error, seg string) error {
	ce, ok := err.(*Error)
	if !ok {
		return err
	}
	c := *ce
	c.Path = seg + trimRoot(c.Path)
	c.Path = "$" + c.Path
	return &c
}

func trimRoot(p string) string {
	if len(p) > 0 && p[0] == '$' {
		return p[1:]
	}
	return p
}
