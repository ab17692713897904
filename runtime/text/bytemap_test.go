package text

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// byteMapTables are the tables the readers of digits build, and a few more
// with repeated olds and with bytes beyond ASCII.
var byteMapTables = [][]string{
	{"0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t"},
	{"0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t"},
	{"0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s"},
	{"0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s"},
	{"a", "b", "a", "c", "b", "a", "\xe2", "x", "\x00", "\xff"},
}

func sameAsReplacer(t *testing.T, oldnew []string, s string) {
	t.Helper()
	want := strings.NewReplacer(oldnew...).Replace(s)
	if got := string(NewByteMap(oldnew...).Append([]byte("pre"), s)); got != "pre"+want {
		t.Fatalf("%q over %q: map %q, replacer %q", oldnew, s, got, "pre"+want)
	}
}

// A ByteMap writes what the Replacer of the same pairs returns, for every
// byte alone and for random strings of the bytes the tables name.
func TestByteMapIsReplacer(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	alphabet := "0123456789abcilost@$\xe2\x86\x92\x00\xff y"
	for _, oldnew := range byteMapTables {
		for c := range 256 {
			sameAsReplacer(t, oldnew, string([]byte{byte(c)}))
		}
		for range 5000 {
			b := make([]byte, r.IntN(20))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			sameAsReplacer(t, oldnew, string(b))
		}
	}
}

func FuzzByteMap(f *testing.F) {
	f.Add(0, "y0ur ru1e5")
	f.Add(4, "term1234 → a\xff")
	f.Fuzz(func(t *testing.T, table int, s string) {
		sameAsReplacer(t, byteMapTables[uint(table)%uint(len(byteMapTables))], s)
	})
}
