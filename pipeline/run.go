package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/run"
	"formation/run/compile"
	"formation/stage"
	"formation/store"
)

// RuntimeVersion names the runtime's behaviour for the run stage's cache:
// bump it with any change to how turns are answered. 2: the parser reads
// subjects and objects in text.NormalTerm's form.
const RuntimeVersion = "2"

// ReasonUserPathUnreachable is the audit reason of a step that a user typing
// its own utterance does not reach (run.Unreached).
const ReasonUserPathUnreachable = "user_path_unreachable"

// Run compiles the subject's course and drives the plan twice through the
// runtime (run.DrivePlan). A run that halts on closure is stored as
// evidence, audited, and exits 65.
func (p *Pipeline) Run(ctx context.Context, subject string) (stage.Result, error) {
	if err := checkSubject(subject); err != nil {
		return stage.Result{}, err
	}
	courseDigest, err := p.Env.ResolveRef(ctx, subject, "compose")
	if err != nil {
		return stage.Result{}, err
	}
	loaded, err := p.loadPacks(ctx)
	if err != nil {
		return stage.Result{}, err
	}
	return p.runCourse(ctx, subject, courseDigest, loaded)
}

func (p *Pipeline) runCourse(ctx context.Context, subject, courseDigest string, loaded *packs.Loaded) (stage.Result, error) {
	params, err := runParams(loaded)
	if err != nil {
		return stage.Result{}, err
	}
	return p.runFrame(ctx, runSpec(subject, params, RunInputs{Course: courseDigest}), courseDigest, loaded, runtimeDriver())
}

// runParams are the run stage's parameters under the loaded packs.
func runParams(loaded *packs.Loaded) (RunParams, error) {
	safety, err := safetyPackDigest(loaded)
	if err != nil {
		return RunParams{}, err
	}
	return RunParams{Runtime: RuntimeVersion, SafetyPack: safety, Manifold: loaded.Manifold.Hash()}, nil
}

// runFrame is the run stage's frame around a driver of the two passes: the
// runtime itself (run), or the shards that ran the plan's steps before (a
// merge). Both store the same record under the same cache key, so either
// one's record serves the other as a hit.
func (p *Pipeline) runFrame(ctx context.Context, spec stage.Spec, courseDigest string, loaded *packs.Loaded, drive passDriver) (stage.Result, error) {
	var halted error // a miss knows it from the record it wrote
	res, err := p.Env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		ran, err := p.runCore(ctx, spec, courseDigest, loaded, drive)
		if err != nil {
			return stage.Output{}, err
		}
		rec := ran.record
		out := stage.Output{Audit: unreachedRecords(ran.unreached), Write: func(w io.Writer) error {
			return artifact.WriteRunRecord(w, rec, ran.payloads)
		}}
		for i, r := range rec.Runs {
			if r.Halted {
				out.Audit = append(out.Audit, audit.Record{Kind: audit.KindHalt, ReasonCode: "versor_closure",
					Key: fmt.Sprintf("pass %d step %d", i+1, r.HaltStepIndex), Detail: r.HaltReason})
				if halted == nil {
					halted = haltedPass(r)
				}
			}
		}
		return out, nil
	})
	if err != nil {
		return res, err
	}
	if !res.CacheHit {
		return res, halted
	}
	return res, p.haltedRun(res.Bytes)
}

// haltedRun turns a stored run record that halted into exit 65. The record
// is canonical JSON, in which a quote inside a string is always escaped, so
// the bytes `"halted":true` can only be a pass's own flag: a cache hit need
// not decode the whole record to know.
func (p *Pipeline) haltedRun(raw []byte) error {
	if !bytes.Contains(raw, []byte(`"halted":true`)) {
		return nil
	}
	rec, err := artifact.Decode[artifact.RunRecord](raw)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	for _, r := range rec.Runs {
		if r.Halted {
			return haltedPass(r)
		}
	}
	return nil
}

// haltedPass is the exit-65 error of a pass that halted.
func haltedPass(r artifact.RunOutput) error {
	return exitcode.Newf(exitcode.Rejected, "run: hard halt at step %d: %s", r.HaltStepIndex, r.HaltReason)
}

// CourseInputs are a course, its compiled plan and its validated set,
// gathered by digest.
type CourseInputs struct {
	Course       artifact.Course
	CourseObject string
	Plan         artifact.FormationPlan
	VTS          artifact.ValidatedTripleSet

	// index is the set's runtime index, when loadCourseWith built it in
	// place of VTS (compileIndexing); nil when it did not.
	index *setIndex
	// payloads are the plan's payloads as canonical bytes, when
	// loadCourseWith compiled for the run stage; Plan's steps then have no
	// payload maps.
	payloads artifact.PlanPayloads
}

// setIndex is a set's runtime index (run.NewIndex), or the runtime's
// refusal of the set.
type setIndex struct {
	ix  *run.Index
	err error
}

// LoadCourse reads a subject's course by digest and compiles its plan.
func (p *Pipeline) LoadCourse(ctx context.Context, subject, courseDigest string) (CourseInputs, error) {
	return p.loadCourse(ctx, stage.Spec{Stage: "run", Version: RunVersion, Subject: subject, Inputs: []string{courseDigest}}, courseDigest)
}

// loadCourse reads a course and compiles its plan; a course whose set does
// not match its validated_set_sha is refused. The plan is compiled before
// the set is read: the YAML's parse tree is the largest thing the run
// stage ever holds (about 170 MB at 100,000 relations, beside the 73 MB
// YAML), and reading the set at the same time added its 90 MB to that
// peak. A faulty set is still reported before a faulty YAML.
func (p *Pipeline) loadCourse(ctx context.Context, spec stage.Spec, courseDigest string) (CourseInputs, error) {
	return p.loadCourseWith(ctx, spec, courseDigest, false, false)
}

// loadCourseWith is loadCourse that, with encode, compiles the plan for
// the run stage: its payloads are held as canonical bytes in in.payloads,
// and its steps have none (compile.CompileEncoded).
//
// With index, a course whose YAML is small (indexBesideMax) has its set
// read, checked and indexed for the runtime beside the compilation
// (compileIndexing), and in.index holds the index in place of in.VTS.
func (p *Pipeline) loadCourseWith(ctx context.Context, spec stage.Spec, courseDigest string, encode, index bool) (CourseInputs, error) {
	course, err := stage.Load[artifact.Course](ctx, p.Env, spec, courseDigest)
	if err != nil {
		return CourseInputs{}, err
	}
	in := CourseInputs{Course: course, CourseObject: courseDigest}
	yaml, compileErr := stage.LoadBytes(ctx, p.Env, spec, course.CourseSHA256)
	if index && compileErr == nil && len(yaml) <= p.indexBesideMax() {
		return p.compileIndexing(ctx, spec, in, yaml, encode)
	}
	if compileErr == nil {
		compileErr = compileYAML(&in, yaml, encode)
	}
	if in.VTS, err = p.loadSet(ctx, spec, course); err != nil {
		return CourseInputs{}, err
	}
	return in, compileErr
}

// indexBesideMax is the largest course YAML, in bytes, whose set the run
// stage indexes beside the compilation (compileIndexing). Past it the
// set, its index and the compilation, all alive at once, raise the
// stage's peak: at 100,000 relations (a 73 MB YAML) the back half's peak
// RSS went from 607 to 764 MiB. At 10,000 relations (7.3 MB) indexing
// beside the compilation saves a serial tenth of a second with the other
// CPU idle, and the peak stays where it was (about 180 MiB).
const indexBesideMax = 16 << 20

func (p *Pipeline) indexBesideMax() int {
	if p.indexBeside != 0 {
		return p.indexBeside
	}
	return indexBesideMax
}

// compileIndexing compiles the course from yaml (with encode, its payloads
// as bytes: compileYAML) while another goroutine reads, checks and indexes
// the course's set
// (run.NewIndex) for the runtime: building the index was a serial tenth of
// a second at 10,000 relations, after all of that, with the other CPU
// idle. in.VTS stays empty: nothing past the index needs the set.
//
// What is refused is refused as loadCourseWith refuses it: a faulty set
// first, then a faulty YAML, and the set's faults
// are audited after the YAML's, as they were (readSet audits nothing). A
// set the runtime does not index is kept in in.index, for the driver to
// refuse where DrivePlan refused it.
func (p *Pipeline) compileIndexing(ctx context.Context, spec stage.Spec, in CourseInputs, yaml []byte, encode bool) (CourseInputs, error) {
	type indexed struct {
		set   setRead
		index setIndex
	}
	done := make(chan indexed, 1)
	go func() {
		r := p.readSet(ctx, in.Course)
		var ix setIndex
		if r.ok(in.Course) {
			ix.ix, ix.err = run.NewIndex(r.vts.Value())
			r.vts = r.vts.Drop()
		}
		done <- indexed{r, ix}
	}()
	err := compileYAML(&in, yaml, encode)
	got := <-done
	if _, serr := got.set.take(ctx, p.Env, spec, in.Course); serr != nil {
		return CourseInputs{}, serr
	}
	in.index = &got.index
	return in, err
}

// compileCourse reads the course's YAML and compiles its plan into in. The
// YAML is not kept: the plan holds copies of what it needs, so the source
// can be collected while the plan is built (at 100,000 relations it is 73
// MB beside a parse tree of about 170 MB, the run stage's peak).
func (p *Pipeline) compileCourse(ctx context.Context, spec stage.Spec, in *CourseInputs) error {
	yaml, err := stage.LoadBytes(ctx, p.Env, spec, in.Course.CourseSHA256)
	if err != nil {
		return err
	}
	return compileYAML(in, yaml, false)
}

// compileYAML compiles the course's plan from its YAML into in, with
// encode its payloads as bytes into in.payloads (compile.CompileEncoded).
func compileYAML(in *CourseInputs, yaml []byte, encode bool) error {
	var plan artifact.FormationPlan
	var err error
	if encode {
		plan, in.payloads, err = compile.CompileEncoded(in.Course, yaml)
	} else {
		plan, err = compile.Compile(in.Course, yaml)
	}
	if err != nil {
		return &stage.Halt{Code: exitcode.Rejected, Reason: "compile_failed", Detail: err.Error()}
	}
	in.Plan = plan
	return nil
}

// courseDataRead is a course and its validated set as read ahead of need
// (readCourseData), their faults not yet reported.
type courseDataRead struct {
	digest string
	course stage.Ahead[artifact.Course]
	set    setRead
}

// readCourseData reads a course and its validated set, not its YAML nor
// its plan, without refusing anything: it audits nothing and may run on
// another goroutine. take then refuses a faulty course, then a set that
// does not project to the course's validated_set_sha, with their audit.
func (p *Pipeline) readCourseData(ctx context.Context, courseDigest string) courseDataRead {
	r := courseDataRead{digest: courseDigest, course: stage.LoadAhead[artifact.Course](ctx, p.Env.Store, courseDigest)}
	if r.course.OK() {
		r.set = p.readSet(ctx, r.course.Value())
	}
	return r
}

func (r courseDataRead) take(ctx context.Context, e *stage.Env, spec stage.Spec) (CourseInputs, error) {
	course, err := r.course.Take(ctx, e, spec)
	if err != nil {
		return CourseInputs{}, err
	}
	vts, err := r.set.take(ctx, e, spec, course)
	if err != nil {
		return CourseInputs{}, err
	}
	return CourseInputs{Course: course, CourseObject: r.digest, VTS: vts}, nil
}

// loadSet reads a course's validated set and refuses one that does not
// project to the course's validated_set_sha.
func (p *Pipeline) loadSet(ctx context.Context, spec stage.Spec, course artifact.Course) (artifact.ValidatedTripleSet, error) {
	return p.readSet(ctx, course).take(ctx, p.Env, spec, course)
}

// setRead is a course's validated set as read, decoded and hashed ahead of
// need (readSet), its faults not yet reported.
type setRead struct {
	vts stage.Ahead[artifact.ValidatedTripleSet]
	sha string
	err error // the projection's
}

// readSet is loadSet without its refusals: it audits nothing and may run
// on another goroutine; take then refuses what loadSet refuses, in its
// order and with its audit.
func (p *Pipeline) readSet(ctx context.Context, course artifact.Course) setRead {
	r := setRead{vts: stage.LoadAhead[artifact.ValidatedTripleSet](ctx, p.Env.Store, course.ValidatedSetObject)}
	if r.vts.OK() {
		r.sha, r.err = artifact.ValidatedSetSHA(r.vts.Value())
	}
	return r
}

// ok reports whether take will give the set: it is the course's.
func (r setRead) ok(course artifact.Course) bool {
	return r.vts.OK() && r.err == nil && r.sha == course.ValidatedSetSHA
}

func (r setRead) take(ctx context.Context, e *stage.Env, spec stage.Spec, course artifact.Course) (artifact.ValidatedTripleSet, error) {
	vts, err := r.vts.Take(ctx, e, spec)
	if err != nil {
		return artifact.ValidatedTripleSet{}, err
	}
	if !r.ok(course) {
		return artifact.ValidatedTripleSet{}, &stage.Halt{Code: exitcode.Rejected, Reason: "validated_set_mismatch",
			Detail: fmt.Sprintf("course names validated set %s, its object projects to %s", course.ValidatedSetSHA, r.sha)}
	}
	return vts, nil
}

// unreachedRecords audits the steps a user's own words do not reach, once
// each (both passes read the same utterances alike).
func unreachedRecords(us []run.Unreached) []audit.Record {
	out := make([]audit.Record, 0, len(us))
	for _, u := range us {
		out = append(out, audit.Record{Kind: audit.KindRejection, ReasonCode: ReasonUserPathUnreachable,
			Key:    fmt.Sprintf("step %d %s", u.Index, u.StepType),
			Detail: fmt.Sprintf("a user typing %q is read as %s, not as this step", u.Utterance, u.Reading)})
	}
	return out
}

// ranCourse is what runCore produced: the record, the canonical bytes of the
// plan's payloads (which the record repeats), and the steps the first pass
// found unreachable by a user.
type ranCourse struct {
	record    artifact.RunRecord
	payloads  artifact.PlanPayloads
	unreached []run.Unreached
}

// runCore drives the course and returns the record and the steps the first
// pass found unreachable by a user.
func (p *Pipeline) runCore(ctx context.Context, spec stage.Spec, courseDigest string, loaded *packs.Loaded, drive passDriver) (ranCourse, error) {
	in, err := p.loadCourseWith(ctx, spec, courseDigest, true, drive.indexed)
	if err != nil {
		return ranCourse{}, err
	}
	// The plan is held once, as its payloads' bytes: the maps of a large
	// plan took as much memory again.
	payloads := in.payloads
	// The plan is stored while the first steps run (and, for a course too
	// large to index beside the compilation, while the runtime's knowledge
	// is built): nothing in the passes waits for it, and at 10,000
	// relations writing it was a serial twentieth of a second. Both only
	// read the plan. A failed write stops the passes.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type storedPlan struct {
		digest string
		err    error
	}
	planDone := make(chan storedPlan, 1)
	plan := in.Plan
	go func() {
		d, err := stage.PutStream(ctx, p.Env.Store, func(w io.Writer) error {
			return artifact.WritePlan(w, plan, payloads)
		})
		if err != nil {
			cancel(err)
		}
		planDone <- storedPlan{d, err}
	}()
	rec := artifact.RunRecord{CourseID: in.Course.CourseID, CourseObject: courseDigest, CourseSHA256: in.Course.CourseSHA256,
		PlanSHA256: in.Plan.PlanSHA256, SchemaVersion: artifact.SchemaVersion}
	done, total := int64(0), int64(2*len(in.Plan.Steps))
	opts := run.Options{Jobs: p.jobs(), Payloads: &payloads, OnStep: func() {
		done++
		p.progress("run", "steps", done, total)
	}}
	// Each step's event goes to the store as it is recorded: the events of
	// a run are never held whole.
	var passes [2]run.Pass
	// The validated set, when the driver is handed one, goes to it and is
	// not held here: once the runtime's knowledge is built from it, nothing
	// needs its decoded form (100,000 relations: about 50 MB less through
	// the passes).
	toDrive := in
	in.VTS = artifact.ValidatedTripleSet{}
	rec.EventsObject, err = stage.PutStream(ctx, p.Env.Store, func(w io.Writer) error {
		opts.Events = w
		handed := toDrive
		toDrive = CourseInputs{}
		var err error
		passes, err = drive.drive(ctx, handed, loaded, opts)
		return err
	})
	stored := <-planDone
	if stored.err != nil {
		return ranCourse{}, stored.err
	}
	if err != nil {
		return ranCourse{}, err
	}
	rec.PlanObject = stored.digest
	for _, ps := range passes {
		rec.Runs = append(rec.Runs, ps.Output)
	}
	p.logf("run %s: %d steps, pass 1 %s, pass 2 %s", spec.Subject, len(in.Plan.Steps), passSummary(passes[0].Output), passSummary(passes[1].Output))
	if n := len(passes[0].Unreached); n > 0 {
		p.logf("run %s: %d step(s) not reached by a user typing their own words (audited as %s)", spec.Subject, n, ReasonUserPathUnreachable)
	}
	return ranCourse{record: rec, payloads: payloads, unreached: passes[0].Unreached}, nil
}

func passSummary(o artifact.RunOutput) string {
	if o.Halted {
		return fmt.Sprintf("halted at step %d (%s)", o.HaltStepIndex, o.HaltReason)
	}
	accepted := 0
	for _, r := range o.Results {
		if r.Accepted {
			accepted++
		}
	}
	return fmt.Sprintf("%d/%d accepted", accepted, len(o.Results))
}

// passDriver produces the two passes over a loaded course's plan with
// opts' jobs, its events written to opts.Events and opts.OnStep (may be nil)
// called after each step.
type passDriver struct {
	drive func(ctx context.Context, in CourseInputs, loaded *packs.Loaded, opts run.Options) ([2]run.Pass, error)
	// indexed drivers run the plan over the set's runtime index, which
	// runCore then builds beside the plan's compilation when the course is
	// small enough (compileIndexing): drive finds it in in.index, and
	// in.VTS empty, or else the set in in.VTS.
	indexed bool
}

// runtimeDriver is the run stage's own driver: the plan through the
// runtime, over the index runCore built.
func runtimeDriver() passDriver {
	return passDriver{indexed: true, drive: driveRuntime}
}

// driveRuntime drives the plan over in.index, or over in.VTS when the set
// was not indexed beside the compilation; a set the runtime refused to
// index is refused here, where DrivePlan refuses it.
func driveRuntime(ctx context.Context, in CourseInputs, loaded *packs.Loaded, opts run.Options) ([2]run.Pass, error) {
	var (
		passes [2]run.Pass
		err    error
	)
	switch {
	case in.index == nil:
		passes, err = run.DrivePlan(ctx, in.Plan, in.VTS, loaded, opts)
	case in.index.err != nil:
		err = in.index.err
	default:
		passes, err = run.DriveIndexed(ctx, in.Plan, in.index.ix, loaded, opts)
	}
	return passes, haltOf(err)
}

// drivePlan drives a plan through the runtime (run.DrivePlan), its events
// discarded, for a caller inside a stage frame that needs only the verdicts
// (ratify's G2, pack ratification): a run refusal becomes a stage.Halt, so
// the frame audits it under the run's reason code.
func (p *Pipeline) drivePlan(ctx context.Context, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, loaded *packs.Loaded) ([2]run.Pass, error) {
	passes, err := run.DrivePlan(ctx, plan, vts, loaded, run.Options{Jobs: p.jobs()})
	return passes, haltOf(err)
}

// jobs is how many steps of a pass run at once: Jobs, or else every CPU
// the process may use.
func (p *Pipeline) jobs() int {
	if p.Jobs > 0 {
		return p.Jobs
	}
	return goruntime.GOMAXPROCS(0)
}

// haltOf maps a run refusal anywhere in err's chain to a stage.Halt with the
// same reason code and exit code. The error keeps err's own text, which
// names the step that was refused.
func haltOf(err error) error {
	var re *run.Error
	if !errors.As(err, &re) {
		return err
	}
	return &runHalt{halt: &stage.Halt{Code: re.Code, Reason: re.Reason, Detail: re.Detail()}, err: err}
}

// runHalt is a run refusal seen by the stage frame: errors.As finds the Halt
// first, the message is the run's.
type runHalt struct {
	halt *stage.Halt
	err  error
}

func (h *runHalt) Error() string   { return h.err.Error() }
func (h *runHalt) Unwrap() []error { return []error{h.halt, h.err} }

// checkSubject refuses a subject id that cannot name refs (exit 2), for the
// stages that do not read the subject folder.
func checkSubject(subject string) error {
	if err := store.ValidSubjectID(subject); err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	return nil
}
