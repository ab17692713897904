package gcpace

import (
	"runtime"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{live: 64 * mib, headroom: 128 * mib, want: 200},  // goal live + headroom
		{live: 40 * mib, headroom: 128 * mib, want: 320},  // goal 168 MiB
		{live: 128 * mib, headroom: 128 * mib, want: 100}, // where the two goals meet
		{live: 900 * mib, headroom: 128 * mib, want: 100}, // a large heap is paced as by default
		{live: 4 * mib, headroom: 128 * mib, want: 3200},
		// Below 4 MiB the least goal (4 MiB × GOGC/100) is the headroom.
		{live: 3 * mib, headroom: 128 * mib, want: 3200},
		{live: 1, headroom: 128 * mib, want: 3200},
		{live: 1, headroom: 1 * mib, want: 100},
	} {
		if got := percentFor(c.live, c.headroom); got != c.want {
			t.Errorf("percentFor(%d MiB, %d MiB) = %d, want %d", c.live/mib, c.headroom/mib, got, c.want)
		}
		// The goal, as the runtime computes it, is at least the default's,
		// and within the runtime's least goal of live + headroom.
		pct := uint64(percentFor(c.live, c.headroom))
		goal := max(c.live+c.live*pct/100, heapMinimum*pct/100)
		want := max(2*c.live, c.live+c.headroom)
		if goal < 2*c.live || goal+heapMinimum < want || goal > want+heapMinimum {
			t.Errorf("percentFor(%d, %d) = %d: goal %d", c.live, c.headroom, pct, goal)
		}
	}
}

// TestStartPacesAndStopRestores starts a pacer with a headroom far above
// this test's heap: after a collection the pacer must raise GOGC, and stop
// must put back the GOGC in force before.
func TestStartPacesAndStopRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := readPercent()
	stop := Start(1 << 30)
	defer stop()
	raised := false
	for range 200 { // the cleanup runs on its own goroutine after the collection
		runtime.GC()
		if readPercent() > before {
			raised = true
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !raised {
		t.Fatalf("GOGC stayed at %d after collections with a 1 GiB headroom", readPercent())
	}
	stop()
	if got := readPercent(); got != before {
		t.Fatalf("GOGC after stop = %d, want %d", got, before)
	}
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if got := readPercent(); got != before {
		t.Fatalf("GOGC changed to %d after stop", got)
	}
}

// TestExplicitSettingWins: with GOGC or GOMEMLIMIT set, Start leaves the
// collector alone.
func TestExplicitSettingWins(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}[env])
			before := readPercent()
			stop := Start(1 << 30)
			defer stop()
			for range 5 {
				runtime.GC()
				time.Sleep(5 * time.Millisecond)
			}
			if got := readPercent(); got != before {
				t.Fatalf("with %s set, GOGC went from %d to %d", env, before, got)
			}
		})
	}
}
