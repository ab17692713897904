package pipeline_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/pipeline"
	"formation/store"
)

// twinSubjects are two subjects with identical sources: everything up to the
// smelted bundle is the same bytes for both, so only the subject id in the
// cache key keeps their forge (and later) entries apart.
var twinSubjects = []string{"tiny", "tiny-twin"}

// twinRounds is how many rounds the concurrency tests run. Ten rounds take
// about 5 s on the file store and 10 s on S3 on a 2-core machine, well
// within `make test`.
const twinRounds = 10

// writeTwins lays out (or rewrites) both subjects with the round's document,
// which differs every round so that every round misses the cache at every
// stage and races for real.
func writeTwins(t *testing.T, courses string, round int) string {
	t.Helper()
	doc := tinyDoc + fmt.Sprintf("\nThese notes were revised in round %d.\n", round)
	sum := sha256.Sum256([]byte(doc))
	for _, id := range twinSubjects {
		dir := filepath.Join(courses, id)
		must(t, os.MkdirAll(filepath.Join(dir, "sources"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "sources", "light.md"), []byte(doc), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "subject.yaml"), []byte(`subject_id: `+id+`
title: Tiny optics
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: "2026-05-16T00:00:00Z"
issued_at: "2026-05-16T00:00:00Z"
sources:
  - id: light
    adapter: file
    path: sources/light.md
`), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "allowlist.yaml"), []byte(fmt.Sprintf("- source_sha: %q\n  tier: primary\n  label: light notes\n", hex.EncodeToString(sum[:]))), 0o644))
	}
	return hex.EncodeToString(sum[:])
}

// concurrentTwins runs rounds of 4 concurrent autoruns, 2 per twin subject,
// each through its own pipeline and store handle (as separate processes
// would), all on the one store at url. Every autorun must succeed, and
// after each round each subject's refs must point at its own outputs of
// that round.
func concurrentTwins(t *testing.T, url string) {
	ctx := context.Background()
	courses := t.TempDir()
	start := time.Now()
	for round := range twinRounds {
		source := writeTwins(t, courses, round)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for g := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := clockedPipeline(t, courses, url)
				_, errs[g] = p.Autorun(ctx, twinSubjects[g%2])
			}()
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Fatalf("round %d: autorun %d of %s: exit %d: %v", round, g, twinSubjects[g%2], exitcode.Of(err, store.ExitCode), err)
			}
		}
		p := clockedPipeline(t, courses, url)
		for _, id := range twinSubjects {
			checkOwnOutputs(t, p, id, source)
		}
	}
	t.Logf("%d rounds of 4 concurrent autoruns on %s: %v", twinRounds, strings.SplitN(url, ":", 2)[0], time.Since(start).Round(time.Millisecond))
}

// checkOwnOutputs follows a subject's refs and checks that every output is
// the subject's own and made from the round's source.
func checkOwnOutputs(t *testing.T, p *pipeline.Pipeline, subject, source string) {
	t.Helper()
	ore := refArtifact[artifact.OreBundle](t, p, subject, "mine")
	if ore.SubjectID != subject || len(ore.Entries) != 1 || ore.Entries[0].SourceSHA != source {
		t.Fatalf("%s: mine ref points at bundle of %q from %v", subject, ore.SubjectID, ore.Entries)
	}
	if vts := refArtifact[artifact.ValidatedTripleSet](t, p, subject, "forge"); vts.SubjectID != subject {
		t.Fatalf("%s: forge ref points at the validated set of %q", subject, vts.SubjectID)
	}
	ownCourse := "course." + subject + "."
	course := refArtifact[artifact.Course](t, p, subject, "compose")
	if !strings.HasPrefix(course.CourseID, ownCourse) || course.SourceBundleSHA == "" {
		t.Fatalf("%s: compose ref points at course %q", subject, course.CourseID)
	}
	if rec := refArtifact[artifact.RunRecord](t, p, subject, "run"); !strings.HasPrefix(rec.CourseID, ownCourse) {
		t.Fatalf("%s: run ref points at a run of course %q", subject, rec.CourseID)
	}
	rep := refArtifact[artifact.MasteryReport](t, p, subject, "ratify")
	if !strings.HasPrefix(rep.CourseID, ownCourse) || !rep.Ratified || rep.CourseSHA256 != course.CourseSHA256 {
		t.Fatalf("%s: ratify ref points at a report of course %q (ratified %v)", subject, rep.CourseID, rep.Ratified)
	}
}

func refArtifact[T any](t *testing.T, p *pipeline.Pipeline, subject, stageName string) T {
	t.Helper()
	ctx := context.Background()
	d, err := p.Env.ResolveRef(ctx, subject, stageName)
	must(t, err)
	raw, err := p.Env.Store.Get(ctx, d)
	must(t, err)
	v, err := artifact.Decode[T](raw)
	must(t, err)
	return v
}

func TestConcurrentTwinSubjectsOnFileStore(t *testing.T) {
	concurrentTwins(t, "file://"+t.TempDir())
}

func TestConcurrentTwinSubjectsOnS3(t *testing.T) {
	srv := testutil.StartS3(t)
	srv.SetEnv(t)
	concurrentTwins(t, "s3://"+srv.Bucket+"/soak")
}
