package stage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"formation/internal/exitcode"
	"formation/stage"
)

// TestLoadAheadIsLoad: an artifact read ahead and then taken gives what
// Load gives, the same value or the same error with the same audit (one
// record for a corrupt or an undecodable object), and nothing is audited
// before it is taken.
func TestLoadAheadIsLoad(t *testing.T) {
	ctx := context.Background()
	want := map[string]string{"good": "[]", "corrupt": "[corrupt_object]", "undecodable": "[undecodable_input]", "missing": "[]"}
	for _, kind := range []string{"good", "corrupt", "undecodable", "missing"} {
		var results [2]string
		for i, ahead := range []bool{false, true} {
			env, dir := newEnv(t)
			body := []byte(`{"k":"v"}`)
			if kind == "undecodable" {
				body = []byte(`not json`)
			}
			d, err := env.Store.Put(ctx, body)
			if err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "corrupt":
				flip(t, dir, d)
			case "missing":
				d = "0000000000000000000000000000000000000000000000000000000000000000"
			}
			spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics", Inputs: []string{d}}
			var v map[string]any
			if ahead {
				a := stage.LoadAhead[map[string]any](ctx, env.Store, d)
				if n := len(auditOf(t, env, "optics", "forge")); n != 0 {
					t.Fatalf("%s: %d audit records before the read was taken", kind, n)
				}
				if a.OK() != (kind == "good") || (a.Value()["k"] == "v") != (kind == "good") {
					t.Fatalf("%s: OK %v, value %v", kind, a.OK(), a.Value())
				}
				v, err = a.Take(ctx, env, spec)
			} else {
				v, err = stage.Load[map[string]any](ctx, env, spec, d)
			}
			recs := auditOf(t, env, "optics", "forge")
			reasons := []string{}
			for _, r := range recs {
				reasons = append(reasons, r.ReasonCode)
			}
			if got := fmt.Sprint(reasons); got != want[kind] {
				t.Fatalf("%s (ahead %v): audit %s, want %s", kind, ahead, got, want[kind])
			}
			results[i] = strings.ReplaceAll(fmt.Sprintf("%v, exit %d, %v, audit %v", v, exitcode.Of(err), err, reasons), dir, "STORE")
		}
		if results[0] != results[1] {
			t.Fatalf("%s: Load gave %s; LoadAhead and Take %s", kind, results[0], results[1])
		}
	}
}

// A dropped read gives the zero value, or its error as before.
func TestLoadAheadDrop(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	d, err := env.Store.Put(ctx, []byte(`{"k":"v"}`))
	if err != nil {
		t.Fatal(err)
	}
	spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics", Inputs: []string{d}}
	a := stage.LoadAhead[map[string]any](ctx, env.Store, d).Drop()
	if v, err := a.Take(ctx, env, spec); v != nil || err != nil || !a.OK() {
		t.Fatalf("dropped: %v, %v", v, err)
	}
	missing := "0000000000000000000000000000000000000000000000000000000000000000"
	a = stage.LoadAhead[map[string]any](ctx, env.Store, missing).Drop()
	if _, err := a.Take(ctx, env, spec); exitcode.Of(err) == 0 {
		t.Fatalf("a dropped missing object: %v", err)
	}
}

// A fetched read, waited for, is the read LoadAhead makes, and Stop keeps
// it; a fetch stopped unwaited audits nothing, and Stop may be called
// again.
func TestFetch(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	good, err := env.Store.Put(ctx, []byte(`{"k":"v"}`))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := env.Store.Put(ctx, []byte(`{"k":"w"}`))
	if err != nil {
		t.Fatal(err)
	}
	flip(t, dir, bad)
	spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics", Inputs: []string{good}}

	f := stage.Fetch[map[string]any](ctx, env.Store, good)
	a := f.Wait()
	f.Stop()
	if v, err := f.Wait().Take(ctx, env, spec); err != nil || v["k"] != "v" || !a.OK() {
		t.Fatalf("fetched: %v, %v", v, err)
	}

	f = stage.Fetch[map[string]any](ctx, env.Store, bad)
	f.Stop()
	f.Stop()
	if n := len(auditOf(t, env, "optics", "forge")); n != 0 {
		t.Fatalf("a stopped fetch of a corrupt object audited %d records", n)
	}
	if _, err := f.Wait().Take(ctx, env, spec); exitcode.Of(err) == 0 {
		t.Fatalf("a stopped fetch taken anyway: %v", err)
	}
}
