package compose

import "testing"

// Ids are zero-padded to four digits and grow past them, like Python's %04d.
func TestNumbered(t *testing.T) {
	for i, want := range map[int]string{0: "walk_0000", 7: "walk_0007", 123: "walk_0123", 9999: "walk_9999", 12345: "walk_12345"} {
		if got := numbered("walk", i); got != want {
			t.Errorf("%d: %s, want %s", i, got, want)
		}
	}
}
