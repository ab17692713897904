package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/ratify"
	"formation/reviewed"
	"formation/run/compile"
	"formation/stage"
	"formation/store"

	yaml "go.yaml.in/yaml/v3"
)

// Ratify measures the gates on the subject's run record and stores the
// sealed report. Gates that fail exit 3 with the report stored all the same.
func (p *Pipeline) Ratify(ctx context.Context, subject string) (stage.Result, error) {
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return stage.Result{}, err
	}
	issuedAt := s.IssuedAt
	if p.IssuedAt != "" {
		issuedAt = p.IssuedAt
	}
	if issuedAt == "" {
		return stage.Result{}, exitcode.Newf(exitcode.Usage, "ratify %s: no issued_at: pass --issued-at or set it in subject.yaml (the clock is never used)", subject)
	}
	runDigest, err := p.Env.ResolveRef(ctx, subject, "run")
	if err != nil {
		return stage.Result{}, err
	}
	loaded, err := p.loadPacks(ctx)
	if err != nil {
		return stage.Result{}, err
	}
	safety, err := safetyPackDigest(loaded)
	if err != nil {
		return stage.Result{}, err
	}
	params := RatifyParams{Subject: Spec(s), IssuedAt: issuedAt, Runtime: RuntimeVersion, SafetyPack: safety, Manifold: loaded.Manifold.Hash()}
	return p.ratifyRun(ctx, subject, runDigest, params, loaded)
}

func (p *Pipeline) ratifyRun(ctx context.Context, subject, runDigest string, params RatifyParams, loaded *packs.Loaded) (stage.Result, error) {
	snap, err := p.reviewedState(ctx, "ratify", subject)
	if err != nil {
		return stage.Result{}, err
	}
	index, indexDigest, err := p.priorIndex(ctx, snap, subject)
	if err != nil {
		return stage.Result{}, err
	}
	spec := ratifySpec(subject, params, RatifyInputs{RunRecord: runDigest, Index: indexDigest})
	var verdict error // a miss knows it from the report it sealed
	res, err := p.Env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		out, report, err := p.ratifyCore(ctx, spec, runDigest, params.IssuedAt, index, loaded)
		if err == nil && !report.Ratified {
			verdict = gatesFailed(report)
		}
		return out, err
	})
	if err != nil {
		return res, err
	}
	if !res.CacheHit {
		return res, verdict
	}
	return res, p.verdict(res.Bytes)
}

// ratifyCore measures the gates and returns the sealed report and the
// stage's output, which stores it.
//
// The report is stored whole, which the store compresses at zstd's default
// level: most of a report is its trace hashes, hex that the default level
// stores at about half its size (1.54 MB to 800 KB at 10,000 relations),
// while the fastest level, which the store gives streams, keeps it as it is
// (the 10,000-relation store went from 19.5 to 21.8 times its sources, for
// the 30 ms a faster encode saved).
func (p *Pipeline) ratifyCore(ctx context.Context, spec stage.Spec, runDigest, issuedAt string, index artifact.MasteredCoursesIndex,
	loaded *packs.Loaded) (stage.Output, artifact.MasteryReport, error) {
	report, err := p.ratifyRecord(ctx, spec, runDigest, issuedAt, index, loaded)
	if err != nil {
		return stage.Output{}, artifact.MasteryReport{}, err
	}
	body, err := artifact.Encode(report)
	if err != nil {
		return stage.Output{}, artifact.MasteryReport{}, exitcode.With(exitcode.Internal, err)
	}
	out := stage.Output{Bytes: body}
	if !report.Ratified {
		out.Audit = []audit.Record{{Kind: audit.KindHalt, ReasonCode: "gates_failed", Key: report.CourseID,
			Detail: strings.Join(report.FailureReasons, "; ")}}
	}
	p.logf("ratify %s: ratified=%v (report seal %s)", spec.Subject, report.Ratified, report.ReportSHA256[:12])
	return out, report, nil
}

// ratifyRecord reads the run record and measures the gates on it.
func (p *Pipeline) ratifyRecord(ctx context.Context, spec stage.Spec, runDigest, issuedAt string, index artifact.MasteredCoursesIndex,
	loaded *packs.Loaded) (artifact.MasteryReport, error) {
	raw, err := stage.LoadBytes(ctx, p.Env, spec, runDigest)
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // what was read ahead for a record that is refused
	ahead := p.readAhead(ctx, raw)
	rec, err := ratify.OpenRunRecord(raw)
	if err != nil {
		return artifact.MasteryReport{}, undecodableRecord(runDigest, err)
	}
	report, err := p.measureRecord(ctx, spec, rec, issuedAt, index, loaded, ahead)
	var bad *ratify.DecodeError
	if err != nil && !errors.As(err, &bad) {
		// A whole decode would have refused a record with a fault in its
		// passes before anything else was tried.
		if verr := rec.Validate(); verr != nil {
			err = verr
		}
	}
	var refused *ratify.Error
	switch {
	case errors.As(err, &bad):
		return artifact.MasteryReport{}, undecodableRecord(runDigest, err)
	case errors.As(err, &refused) && refused.Reason == ratify.ReasonNothingToTeach:
		return artifact.MasteryReport{}, &stage.Halt{Code: exitcode.Rejected, Reason: ReasonNothingToTeach, Detail: err.Error()}
	case errors.As(err, &refused):
		return artifact.MasteryReport{}, &stage.Halt{Code: exitcode.Rejected, Reason: "ratify_input_rejected", Detail: err.Error()}
	case err != nil:
		return artifact.MasteryReport{}, err
	}
	return report, nil
}

// undecodableRecord is the halt of a run record that does not decode, as
// stage.Load gives it.
func undecodableRecord(digest string, err error) error {
	return &stage.Halt{Code: exitcode.Rejected, Reason: "undecodable_input", Detail: digest + ": " + err.Error()}
}

// measureRecord measures the gates while the record's passes stream past,
// one step at a time, against the plan the run stage stored: the record is
// never decoded whole.
//
// The passes stream into a gauge of the stored plan while the course and
// its validated set load on another goroutine: neither needs the other,
// and the gauge needs the inputs only to report. Both reads may have
// started before the record was opened (ahead). What the loads and checks
// refuse is reported in the order they are made (course, plan, record,
// earlier courses, inputs, then the passes), as if one followed another.
func (p *Pipeline) measureRecord(ctx context.Context, spec stage.Spec, rec *ratify.RunRecordReader, issuedAt string,
	index artifact.MasteredCoursesIndex, loaded *packs.Loaded, ahead recordReads) (artifact.MasteryReport, error) {
	head := rec.Head()
	course := ahead.courseData(ctx, p, head.CourseObject)
	read := ahead.storedPlan(ctx, p.Env.Store, head.PlanObject)
	var (
		gauge     *ratify.Gauge
		streamErr error
	)
	streamed := read.isRecords(head)
	if streamed {
		gauge = ratify.Measure(read.plan)
		streamErr = rec.Stream(gauge)
	}
	in, err := (<-course).take(ctx, p.Env, spec)
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	plan, err := p.recordedPlan(ctx, spec, head, read, &in)
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	priors, err := p.priorCourses(ctx, index, loaded)
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	if !streamed { // the plan was compiled again
		gauge = ratify.Measure(plan)
	}
	// Taking the course data refused a set that does not project to the
	// course's validated_set_sha, so that is the set's projection: the
	// gauge need not hash it again.
	if err := gauge.CheckProjected(ratify.Input{
		CourseID: in.Course.CourseID, SourceBundleSHA: in.Course.SourceBundleSHA, ValidatedSetSHA: in.Course.ValidatedSetSHA,
		CourseSHA256: in.Course.CourseSHA256, ValidatedSet: in.VTS,
		Index: index, PriorCourses: priors, IssuedAt: issuedAt,
	}, in.Course.ValidatedSetSHA); err != nil {
		return artifact.MasteryReport{}, err
	}
	if !streamed {
		streamErr = rec.Stream(gauge)
	}
	if streamErr != nil {
		return artifact.MasteryReport{}, streamErr
	}
	return gauge.Report()
}

// recordReads are the reads that ratify starts on the digests a run
// record's head names as soon as the record's bytes are in, before the
// record is opened (a scan of all of it, a fortieth of a second at 10,000
// relations with the other CPU idle): its course and validated set, and
// the stored plan. They are guesses (headDigest); a read whose digest the
// opened head does not name is not used, and the read it names is made
// then. Nothing read ahead is audited until it is taken.
type recordReads struct {
	courseDigest, planDigest string
	course                   chan courseDataRead
	plan                     chan planRead
}

// readAhead starts the reads for the digests a run record's bytes seem to
// name.
func (p *Pipeline) readAhead(ctx context.Context, raw []byte) recordReads {
	r := recordReads{courseDigest: headDigest(raw, "course_object"), planDigest: headDigest(raw, "plan_object")}
	if r.courseDigest != "" {
		r.course = p.startCourseData(ctx, r.courseDigest)
	}
	if r.planDigest != "" {
		r.plan = make(chan planRead, 1)
		go func() { r.plan <- readStoredPlan(ctx, p.Env.Store, r.planDigest) }()
	}
	return r
}

// courseData is the read of the course digest names and its set: the one
// started ahead, when it is of that digest, or else one started now.
func (r recordReads) courseData(ctx context.Context, p *Pipeline, digest string) <-chan courseDataRead {
	if r.course != nil && r.courseDigest == digest {
		return r.course
	}
	return p.startCourseData(ctx, digest)
}

// storedPlan is the plan object digest names, as read ahead when it was,
// or else read now.
func (r recordReads) storedPlan(ctx context.Context, s store.Store, digest string) planRead {
	if r.plan != nil && r.planDigest == digest {
		return <-r.plan
	}
	return readStoredPlan(ctx, s, digest)
}

// startCourseData reads a course and its set on another goroutine.
func (p *Pipeline) startCourseData(ctx context.Context, digest string) chan courseDataRead {
	c := make(chan courseDataRead, 1)
	go func() { c <- p.readCourseData(ctx, digest) }()
	return c
}

// headDigest is the digest a stored run record's head gives key, found
// without decoding the record, or "" when none is found: canonical JSON
// escapes every quote inside a string and its keys are sorted, so in a
// record the first `"key":"` is the head's own key (only schema_version
// comes after the passes), within the head's first few hundred bytes. It
// is only a guess for reading ahead: the opened record's head says which
// digests are read.
func headDigest(raw []byte, key string) string {
	k := []byte(`"` + key + `":"`)
	head := raw[:min(len(raw), headPeekBytes)]
	i := bytes.Index(head, k)
	if i < 0 {
		return ""
	}
	rest := raw[i+len(k):]
	const n = 64 // hex SHA-256
	if len(rest) <= n || rest[n] != '"' || !store.ValidDigest(string(rest[:n])) {
		return ""
	}
	return string(rest[:n])
}

// headPeekBytes is how far into a run record headDigest looks: a head is
// its course id and five digests, a few hundred bytes.
const headPeekBytes = 4 << 10

// recordedPlan is the plan the run stage compiled and stored for the course
// a run record names, rather than the course compiled again; the plan is
// read step by step into the compact form the gates compare results with.
// The plan must be the record's (its plan_sha256); the gauge's Check
// checks that it is of the course and hashes to its own plan_sha256. A plan
// object that is gone is compiled again from the course, and must then be
// the record's all the same. read is the plan object as read ahead; its
// read counts, and its faults are audited, only now that the course has
// loaded.
func (p *Pipeline) recordedPlan(ctx context.Context, spec stage.Spec, rec ratify.RecordHead, read planRead, in *CourseInputs) (ratify.Plan, error) {
	plan := read.plan
	_, err := stage.Loaded(ctx, p.Env, spec, read.raw, read.err)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if err := p.compileCourse(ctx, spec, in); err != nil {
			return ratify.Plan{}, err
		}
		plan = ratify.PlanOf(in.Plan)
	case err != nil:
		return ratify.Plan{}, err
	case read.planErr != nil:
		return ratify.Plan{}, &stage.Halt{Code: exitcode.Rejected, Reason: "undecodable_input", Detail: rec.PlanObject + ": " + read.planErr.Error()}
	}
	if plan.PlanSHA256 != rec.PlanSHA256 || rec.Passes != 2 {
		return ratify.Plan{}, &stage.Halt{Code: exitcode.Rejected, Reason: "run_record_mismatch",
			Detail: fmt.Sprintf("run record names plan %s with %d passes, its plan object is %s", rec.PlanSHA256, rec.Passes, plan.PlanSHA256)}
	}
	return plan, nil
}

// planRead is a stored plan object as read ahead: the store's answer and,
// when it gave the bytes, their reading.
type planRead struct {
	raw     []byte
	err     error
	plan    ratify.Plan
	planErr error
}

func readStoredPlan(ctx context.Context, s store.Store, digest string) planRead {
	var r planRead
	r.raw, r.err = s.Get(ctx, digest)
	if r.err == nil {
		r.plan, r.planErr = ratify.ReadPlan(r.raw)
	}
	return r
}

// isRecords reports whether the plan read is the one the record was run
// from, as recordedPlan will find: then the passes can be measured against
// it before the course has loaded.
func (r planRead) isRecords(rec ratify.RecordHead) bool {
	return r.err == nil && r.planErr == nil && r.plan.PlanSHA256 == rec.PlanSHA256 && rec.Passes == 2
}

// verdict turns a stored report that did not ratify into exit 3.
func (p *Pipeline) verdict(raw []byte) error {
	// Canonical JSON escapes quotes inside strings, so these bytes can only be
	// the report's own flag; a ratified report need not be decoded again.
	if bytes.Contains(raw, []byte(`"ratified":true`)) {
		return nil
	}
	rep, err := artifact.Decode[artifact.MasteryReport](raw)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	if !rep.Ratified {
		return gatesFailed(rep)
	}
	return nil
}

// gatesFailed is the exit-3 error of a report that did not ratify.
func gatesFailed(rep artifact.MasteryReport) error {
	return exitcode.Newf(exitcode.GatesFailed, "ratify: gates failed: %s", strings.Join(rep.FailureReasons, "; "))
}

// priorCourses re-runs every course of ratify's G2 set (the mastered
// courses of other subjects) through the current runtime and reports whether
// it still passes its behavioural gates: G2 is regression of behaviour, not
// byte identity.
func (p *Pipeline) priorCourses(ctx context.Context, index artifact.MasteredCoursesIndex, loaded *packs.Loaded) ([]ratify.PriorCourse, error) {
	priors := []ratify.PriorCourse{}
	for i, e := range index.Entries {
		verdict, err := p.rerun(ctx, e, loaded)
		if err != nil {
			return nil, err
		}
		priors = append(priors, verdict)
		p.progress("ratify", "earlier courses re-run", int64(i+1), int64(len(index.Entries)))
	}
	return priors, nil
}

func (p *Pipeline) rerun(ctx context.Context, e artifact.MasteredCourseEntry, loaded *packs.Loaded) (ratify.PriorCourse, error) {
	v := ratify.PriorCourse{CourseID: e.CourseID, FailedGates: []string{}}
	yamlBytes, err := p.Env.Store.Get(ctx, e.CourseSHA256)
	if err != nil {
		return v, fmt.Errorf("G2: course %s: %w", e.CourseID, err)
	}
	course, err := courseFromYAML(yamlBytes, e)
	if err != nil {
		return v, err
	}
	vtsDigest, found, err := reviewed.FindValidatedSet(ctx, p.Env.Store, e.ValidatedSetSHA)
	if err != nil {
		return v, err
	}
	if !found {
		return v, exitcode.Newf(exitcode.NotFound, "G2: course %s: its validated set %s is not in the store", e.CourseID, e.ValidatedSetSHA)
	}
	raw, err := p.Env.Store.Get(ctx, vtsDigest)
	if err != nil {
		return v, err
	}
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	if err != nil {
		return v, exitcode.With(exitcode.Rejected, err)
	}
	plan, err := compile.Compile(course, yamlBytes)
	if err != nil {
		return v, exitcode.With(exitcode.Rejected, fmt.Errorf("G2: course %s: %w", e.CourseID, err))
	}
	passes, err := p.drivePlan(ctx, plan, vts, loaded)
	if err != nil {
		return v, err
	}
	rep, err := ratify.Ratify(ratify.Input{CourseID: course.CourseID, SourceBundleSHA: course.SourceBundleSHA,
		ValidatedSetSHA: e.ValidatedSetSHA, CourseSHA256: e.CourseSHA256, Plan: plan, ValidatedSet: vts,
		FirstRun: passes[0].Output, SecondRun: passes[1].Output,
		Index:        artifact.MasteredCoursesIndex{Entries: []artifact.MasteredCourseEntry{}, SchemaVersion: artifact.SchemaVersion},
		PriorCourses: []ratify.PriorCourse{}, IssuedAt: e.IssuedAt})
	if err != nil {
		return v, exitcode.With(exitcode.Rejected, fmt.Errorf("G2: course %s: %w", e.CourseID, err))
	}
	v.Passed = rep.Ratified
	for _, g := range rep.Gates {
		if !g.Passed {
			v.FailedGates = append(v.FailedGates, g.Name)
		}
	}
	return v, nil
}

// courseFromYAML rebuilds a promoted course's record from its YAML header;
// compile checks that the header and the record agree.
func courseFromYAML(b []byte, e artifact.MasteredCourseEntry) (artifact.Course, error) {
	var head struct {
		CourseID        string `yaml:"course_id"`
		TemplateID      string `yaml:"template_id"`
		TemplateVersion string `yaml:"template_version"`
		SourceBundleSHA string `yaml:"source_bundle_sha"`
	}
	if err := yaml.Unmarshal(b, &head); err != nil {
		return artifact.Course{}, exitcode.With(exitcode.Rejected, fmt.Errorf("G2: course %s: %w", e.CourseID, err))
	}
	if head.CourseID != e.CourseID {
		return artifact.Course{}, exitcode.Newf(exitcode.Rejected, "G2: index names course %s, its YAML says %s", e.CourseID, head.CourseID)
	}
	return artifact.Course{CourseID: head.CourseID, CourseSHA256: e.CourseSHA256, SourceBundleSHA: head.SourceBundleSHA,
		ValidatedSetSHA: e.ValidatedSetSHA, TemplateID: head.TemplateID, TemplateVersion: head.TemplateVersion,
		SchemaVersion: artifact.SchemaVersion}, nil
}
