// Package freelist keeps a bounded number of reusable values between
// uses. Unlike a sync.Pool, which every other garbage collection empties,
// it keeps what it was given until it is taken: for values that are costly
// to make again (a zstd coder's history, an event buffer) and few enough
// to hold.
package freelist

// List holds up to its capacity of free values; it is safe for concurrent
// use.
type List[T any] chan T

// New returns a list that holds up to n values.
func New[T any](n int) List[T] { return make(List[T], n) }

// Get takes a free value; ok is false when none is held.
func (l List[T]) Get() (v T, ok bool) {
	select {
	case v = <-l:
		return v, true
	default:
		return v, false
	}
}

// Put gives v back, or drops it when the list is full.
func (l List[T]) Put(v T) {
	select {
	case l <- v:
	default:
	}
}
