package pipeline_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/packs"
	"formation/pipeline"
	"formation/stage"
	"formation/store"
)

// stageOrder is the pipeline up to ratify, as Autorun runs it.
var stageOrder = []string{"mine", "smelt", "forge", "compose", "run", "ratify"}

func stageByName(p *pipeline.Pipeline, name string) func(context.Context, string) (stage.Result, error) {
	return map[string]func(context.Context, string) (stage.Result, error){
		"mine": p.Mine, "smelt": p.Smelt, "forge": p.Forge, "compose": p.Compose, "run": p.Run, "ratify": p.Ratify}[name]
}

// clockedPipeline is a pipeline over the store at url whose audit records
// carry the real clock, so that two appends of the same records are two
// records (a fixed clock would make the second one collide with the first).
func clockedPipeline(t testing.TB, coursesDir, url string) *pipeline.Pipeline {
	t.Helper()
	s, err := store.Open(context.Background(), url)
	must(t, err)
	root, err := testutil.ModuleRoot()
	must(t, err)
	w := &audit.Writer{Store: s, Now: time.Now, CodeVersion: "test"}
	return &pipeline.Pipeline{Env: stage.NewEnv(s, w), CoursesDir: coursesDir, Packs: packs.Options{Dir: filepath.Join(root, "packs")}}
}

// flipObject changes one byte of a file-store object behind the store's back.
func flipObject(t *testing.T, storeDir, digest string) {
	t.Helper()
	path := filepath.Join(storeDir, "objects", "sha256", digest[:2], digest)
	raw, err := os.ReadFile(path)
	must(t, err)
	raw[len(raw)/2] ^= 0x01
	must(t, os.Chmod(path, 0o644))
	must(t, os.WriteFile(path, raw, 0o644))
}

// onlyCorruptRecord checks that stage name of subject tiny wrote exactly one
// audit record since before, a corrupt_object halt naming digest.
func onlyCorruptRecord(t *testing.T, p *pipeline.Pipeline, name, digest string, before int) {
	t.Helper()
	recs, err := audit.List(context.Background(), p.Env.Store, audit.Filter{Subject: "tiny", Stage: name})
	must(t, err)
	recs = recs[before:]
	if len(recs) != 1 || recs[0].ReasonCode != "corrupt_object" || recs[0].Kind != audit.KindHalt || !strings.Contains(recs[0].Detail, digest[:12]) {
		t.Fatalf("%s: want exactly one corrupt_object record naming %s, got %+v", name, digest[:12], recs)
	}
}

func auditCount(t *testing.T, p *pipeline.Pipeline, name string) int {
	t.Helper()
	recs, err := audit.List(context.Background(), p.Env.Store, audit.Filter{Subject: "tiny", Stage: name})
	must(t, err)
	return len(recs)
}

// Each stage that reads a corrupt input halts with exit 65 and exactly one
// audit record; mine, which reads files, meets its corrupt object when it
// stores a source whose stored copy was damaged.
func TestCorruptInputHaltsEveryStageOnce(t *testing.T) {
	ctx := context.Background()
	for i, name := range stageOrder {
		t.Run(name, func(t *testing.T) {
			courses := tinySubject(t, tinyDoc)
			storeDir := t.TempDir()
			p := clockedPipeline(t, courses, "file://"+storeDir)
			var victim string
			if name == "mine" {
				_, err := p.Mine(ctx, "tiny")
				must(t, err)
				sum := sha256.Sum256([]byte(tinyDoc))
				victim = hex.EncodeToString(sum[:])
				// A changed subject title misses the cache, so mine stores the source again.
				subj := filepath.Join(courses, "tiny", "subject.yaml")
				raw, _ := os.ReadFile(subj)
				must(t, os.WriteFile(subj, []byte(strings.Replace(string(raw), "Tiny optics", "Tiny optics, again", 1)), 0o644))
			} else {
				for _, st := range stageOrder[:i] {
					_, err := stageByName(p, st)(ctx, "tiny")
					must(t, err)
				}
				var err error
				victim, err = p.Env.ResolveRef(ctx, "tiny", stageOrder[i-1])
				must(t, err)
			}
			flipObject(t, storeDir, victim)
			before := auditCount(t, p, name)
			res, err := stageByName(p, name)(ctx, "tiny")
			if exitcode.Of(err, store.ExitCode) != exitcode.Rejected || res.CacheHit {
				t.Fatalf("%s over a corrupt input: exit %d (%v) %+v", name, exitcode.Of(err, store.ExitCode), err, res)
			}
			onlyCorruptRecord(t, p, name, victim, before)
			if _, err := p.Env.ResolveRef(ctx, "tiny", name); name != "mine" && exitcode.Of(err) != exitcode.NotFound {
				t.Fatalf("%s moved its ref over a corrupt input: %v", name, err)
			}
		})
	}
}

// A cache hit re-hashes its output: with one byte of any stage's cached
// output flipped, rerunning that stage halts with exit 65 and exactly one
// audit record instead of serving it; autorun stops there.
func TestCorruptCachedOutputHaltsEveryStageOnce(t *testing.T) {
	ctx := context.Background()
	storeDir := t.TempDir()
	p := clockedPipeline(t, tinySubject(t, tinyDoc), "file://"+storeDir)
	first, err := p.Autorun(ctx, "tiny")
	must(t, err)
	for i, name := range stageOrder {
		out := first[i].Output
		flipObject(t, storeDir, out)
		before := auditCount(t, p, name)
		res, err := stageByName(p, name)(ctx, "tiny")
		if exitcode.Of(err) != exitcode.Rejected || res.CacheHit {
			t.Fatalf("%s over its corrupt cached output: exit %d (%v) %+v", name, exitcode.Of(err), err, res)
		}
		onlyCorruptRecord(t, p, name, out, before)
		if name == "mine" {
			// Autorun over a damaged OreBundle stops at mine and never reaches ratify.
			done, err := p.Autorun(ctx, "tiny")
			if exitcode.Of(err) != exitcode.Rejected || len(done) != 1 {
				t.Fatalf("autorun over a corrupt OreBundle: exit %d (%v), %d stages", exitcode.Of(err), err, len(done))
			}
		}
		flipObject(t, storeDir, out) // repaired: the next stage's turn
		if res, err := stageByName(p, name)(ctx, "tiny"); err != nil || !res.CacheHit {
			t.Fatalf("%s after repair: %+v %v", name, res, err)
		}
	}
	// Nothing else was audited along the way.
	recs, _ := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny"})
	halts := 0
	for _, r := range recs {
		if r.ReasonCode == "corrupt_object" {
			halts++
		}
	}
	if halts != len(stageOrder)+1 {
		t.Fatalf("%d corrupt_object records for %d halts", halts, len(stageOrder)+1)
	}
	raw, err := p.Env.Store.Get(ctx, first[5].Output)
	must(t, err)
	if rep, err := artifact.Decode[artifact.MasteryReport](raw); err != nil || !rep.Ratified {
		t.Fatalf("report after repairs: %v", err)
	}
}

// Ratify reads the plan object while the course loads: with the course and
// the plan both damaged it halts on the course, as reading them one after
// the other does, and audits nothing of the plan; with the plan alone
// damaged it halts on the plan. Either way, one record.
func TestRatifyHaltsOnTheFirstCorruptInputItReads(t *testing.T) {
	ctx := context.Background()
	for _, damage := range []string{"course and plan", "plan"} {
		t.Run(damage, func(t *testing.T) {
			storeDir := t.TempDir()
			p := clockedPipeline(t, tinySubject(t, tinyDoc), "file://"+storeDir)
			for _, st := range stageOrder[:len(stageOrder)-1] {
				_, err := stageByName(p, st)(ctx, "tiny")
				must(t, err)
			}
			runDigest, err := p.Env.ResolveRef(ctx, "tiny", "run")
			must(t, err)
			raw, err := p.Env.Store.Get(ctx, runDigest)
			must(t, err)
			rec, err := artifact.Decode[artifact.RunRecord](raw)
			must(t, err)
			victim := rec.PlanObject
			flipObject(t, storeDir, rec.PlanObject)
			if damage != "plan" {
				victim = rec.CourseObject
				flipObject(t, storeDir, rec.CourseObject)
			}
			before := auditCount(t, p, "ratify")
			res, err := p.Ratify(ctx, "tiny")
			if exitcode.Of(err, store.ExitCode) != exitcode.Rejected || res.CacheHit {
				t.Fatalf("ratify over a corrupt %s: exit %d (%v)", damage, exitcode.Of(err, store.ExitCode), err)
			}
			onlyCorruptRecord(t, p, "ratify", victim, before)
		})
	}
}

// The run stage reads its course's validated set while it encodes the
// compiled plan's payloads, or (a small course) while it compiles the
// plan: a corrupt set still halts it with exit 65 and exactly one audit
// record naming the set. When the course's YAML is corrupt as well, the
// set's fault is the one returned, as before, and each corrupt object is
// audited once, the YAML first.
func TestRunOverCorruptSetHaltsOnce(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		yamlToo bool
		beside  int
	}{{false, -1}, {true, -1}, {false, 0}, {true, 0}} {
		yamlToo := c.yamlToo
		courses := tinySubject(t, tinyDoc)
		storeDir := t.TempDir()
		p := clockedPipeline(t, courses, "file://"+storeDir)
		pipeline.SetIndexBeside(p, c.beside)
		for _, st := range stageOrder[:4] {
			_, err := stageByName(p, st)(ctx, "tiny")
			must(t, err)
		}
		courseDigest, err := p.Env.ResolveRef(ctx, "tiny", "compose")
		must(t, err)
		raw, err := p.Env.Store.Get(ctx, courseDigest)
		must(t, err)
		course, err := artifact.Decode[artifact.Course](raw)
		must(t, err)
		flipObject(t, storeDir, course.ValidatedSetObject)
		if yamlToo {
			flipObject(t, storeDir, course.CourseSHA256)
		}
		before := auditCount(t, p, "run")
		res, err := p.Run(ctx, "tiny")
		if exitcode.Of(err, store.ExitCode) != exitcode.Rejected || res.CacheHit {
			t.Fatalf("run over a corrupt set (YAML corrupt too: %v): exit %d (%v)", yamlToo, exitcode.Of(err, store.ExitCode), err)
		}
		if !strings.Contains(err.Error(), course.ValidatedSetObject) {
			t.Fatalf("run over a corrupt set (YAML corrupt too: %v) returned %v, not the set's fault", yamlToo, err)
		}
		if !yamlToo {
			onlyCorruptRecord(t, p, "run", course.ValidatedSetObject, before)
			continue
		}
		recs, err := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny", Stage: "run"})
		must(t, err)
		recs = recs[before:]
		if len(recs) != 2 || !strings.Contains(recs[0].Detail, course.CourseSHA256) ||
			!strings.Contains(recs[1].Detail, course.ValidatedSetObject) {
			t.Fatalf("want one corrupt_object record for the YAML, then one for the set, got %+v", recs)
		}
	}
}

// Forge reads its bundle ahead while it prepares; a cache hit, which never
// reads its inputs, lets that read go: with the bundle corrupt, the hit is
// served and nothing is audited.
func TestForgeHitLetsItsReadAheadGo(t *testing.T) {
	ctx := context.Background()
	courses := tinySubject(t, tinyDoc)
	storeDir := t.TempDir()
	p := clockedPipeline(t, courses, "file://"+storeDir)
	for _, st := range stageOrder[:3] {
		_, err := stageByName(p, st)(ctx, "tiny")
		must(t, err)
	}
	bundle, err := p.Env.ResolveRef(ctx, "tiny", "smelt")
	must(t, err)
	flipObject(t, storeDir, bundle)
	before := auditCount(t, p, "forge")
	res, err := p.Forge(ctx, "tiny")
	if err != nil || !res.CacheHit {
		t.Fatalf("forge over a corrupt bundle it need not read: %v, hit %v", err, res.CacheHit)
	}
	if n := auditCount(t, p, "forge"); n != before {
		t.Fatalf("the hit audited %d records", n-before)
	}
}
