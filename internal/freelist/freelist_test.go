package freelist

import "testing"

func TestListKeepsUpToItsCapacity(t *testing.T) {
	l := New[int](2)
	if _, ok := l.Get(); ok {
		t.Fatal("a new list gave a value")
	}
	l.Put(1)
	l.Put(2)
	l.Put(3) // dropped: the list is full
	got := []int{}
	for v, ok := l.Get(); ok; v, ok = l.Get() {
		got = append(got, v)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("got %v, want [1 2]", got)
	}
}
