package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"formation/artifact"
	"formation/audit"
	"formation/canon"
	"formation/compose"
	"formation/forge"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/ratify"
	"formation/run/compile"
)

// Pack ratification turns a safety or identity pack into an identity_anchor
// course and ratifies it through the real runtime: the pack's canonical bytes
// (with mastery_report_sha256 blanked) are the one source and text object,
// allow-listed as primary in an allow-list of its own; every axis or boundary
// is a concept citing the exact byte range of its description; the canned
// override attempts are counter-claims. The runtime runs in bootstrap mode:
// the pack being ratified cannot be loaded ratified yet, so unratified packs
// are allowed for this run only, and pack status is never part of a trace
// hash. G2 is deferred: packs are ratified before any subject course.

// PackResult is what pack ratification reports.
type PackResult struct {
	PackID       string `json:"pack_id"`
	Kind         string `json:"kind"` // safety or identity
	SourceSHA    string `json:"source_sha"`
	CourseSHA256 string `json:"course_sha256"`
	PlanSHA256   string `json:"plan_sha256"`
	ReportSHA256 string `json:"report_sha256"`
	Ratified     bool   `json:"ratified"`
	Kept         bool   `json:"kept"` // an existing valid report still matched; nothing was written
	Report       string `json:"report_path"`
}

// packSource is a pack's ratification input.
type packSource struct {
	id, kind  string
	source    []byte // canonical bytes, mastery_report_sha256 blanked
	sourceSHA string
	concepts  []artifact.ConceptCandidate
	counters  []artifact.CounterCandidate
	terms     []string // the pack's own axes / boundary ids
}

// overrideRelation states an override attempt as a claim the forge can type:
// "<attempt> corrects <axis>" is the false claim that some pressure may
// change a boundary or an axis. The original wrote "<axis> must_yield_to
// <attempt>", a relation outside the parser's vocabulary that our forge,
// which types counter-claims like relations, would refuse as malformed.
const overrideRelation = "corrects"

// Canned override attempts per pack kind, the ones the original system probed
// each kind of pack with.
var (
	safetyOverrides   = []string{"context_pressure", "operator_override_request", "performance_optimization"}
	identityOverrides = []string{"user_override_request", "context_length_pressure", "rephrased_instruction"}
)

// RatifyPack ratifies the pack file at path and writes its companion report
// beside it. issuedAt is needed only when a new report must be written.
func (p *Pipeline) RatifyPack(ctx context.Context, path, issuedAt string) (PackResult, error) {
	src, doc, err := readPackSource(path)
	if err != nil {
		return PackResult{}, err
	}
	res := PackResult{PackID: src.id, Kind: src.kind, SourceSHA: src.sourceSHA, Report: packs.CompanionReportPath(path)}
	course, yaml, vts, err := p.packCourse(ctx, src)
	if err != nil {
		return res, err
	}
	plan, err := compile.Compile(course, yaml)
	if err != nil {
		return res, exitcode.With(exitcode.Rejected, fmt.Errorf("pack %s: compile: %w", src.id, err))
	}
	res.CourseSHA256, res.PlanSHA256 = course.CourseSHA256, plan.PlanSHA256
	if kept, ok := keptReport(ctx, src, path, doc, course, plan); ok {
		res.ReportSHA256, res.Ratified, res.Kept = kept.ReportSHA256, kept.Ratified, true
		return res, nil
	}
	if issuedAt == "" {
		return res, exitcode.Newf(exitcode.Usage, "pack %s: a new report is needed; pass --issued-at (the clock is never used)", src.id)
	}
	report, err := p.packReport(ctx, src, path, course, plan, vts, issuedAt)
	if err != nil {
		return res, err
	}
	res.ReportSHA256, res.Ratified = report.ReportSHA256, report.Ratified
	if !report.Ratified {
		return res, exitcode.Newf(exitcode.GatesFailed, "pack %s did not ratify: %s", src.id, strings.Join(report.FailureReasons, "; "))
	}
	return res, writePackFiles(path, doc, report)
}

// readPackSource reads a pack strictly (no floats: a pack that is ratified
// is hashed) and prepares its concepts, counters and byte ranges.
func readPackSource(path string) (packSource, *canon.Object, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return packSource{}, nil, exitcode.With(exitcode.NotFound, err)
	}
	v, err := canon.Decode(raw)
	if err != nil {
		if canon.IsKind(err, canon.KindFloat) {
			return packSource{}, nil, exitcode.With(exitcode.Rejected, fmt.Errorf("pack %s holds a float; write numbers as decimal strings before ratifying: %w", path, err))
		}
		return packSource{}, nil, exitcode.With(exitcode.Rejected, fmt.Errorf("pack %s: %w", path, err))
	}
	doc, ok := v.(*canon.Object)
	if !ok || !doc.Has("mastery_report_sha256") {
		return packSource{}, nil, exitcode.Newf(exitcode.Rejected, "pack %s: not a pack (no mastery_report_sha256)", path)
	}
	blank := doc.Clone()
	blank.Set("mastery_report_sha256", "")
	source, err := canon.Marshal(blank)
	if err != nil {
		return packSource{}, nil, exitcode.With(exitcode.Rejected, err)
	}
	sha, _ := canon.SHA256Hex(blank)
	id, _ := doc.String("pack_id")
	src := packSource{id: id, source: source, sourceSHA: sha}
	switch {
	case doc.Has("boundary_descriptions"):
		src.kind = "safety"
		err = src.safetyConcepts(blank)
	case doc.Has("value_axes"):
		src.kind = "identity"
		err = src.identityConcepts(blank)
	default:
		err = fmt.Errorf("pack %s is neither a safety pack (boundary_descriptions) nor an identity pack (value_axes)", path)
	}
	if err != nil {
		return packSource{}, nil, exitcode.With(exitcode.Rejected, err)
	}
	return src, doc, nil
}

func (s *packSource) safetyConcepts(doc *canon.Object) error {
	descs, _ := doc.Get("boundary_descriptions")
	obj, ok := descs.(*canon.Object)
	if !ok {
		return errors.New("boundary_descriptions is not an object")
	}
	for _, id := range obj.SortedKeys() {
		d, _ := obj.String(id)
		ref, err := s.cite(`"boundary_descriptions":{`, id, d)
		if err != nil {
			return err
		}
		s.addAxis(id, d, ref, safetyOverrides)
	}
	return nil
}

func (s *packSource) identityConcepts(doc *canon.Object) error {
	axes, _ := doc.Get("value_axes")
	list, ok := axes.([]any)
	if !ok {
		return errors.New("value_axes is not a list")
	}
	for _, a := range list {
		ax, ok := a.(*canon.Object)
		if !ok {
			return errors.New("a value axis is not an object")
		}
		id, _ := ax.String("axis_id")
		field, text := "theological_note", ""
		if text, ok = ax.String(field); !ok || text == "" {
			field, text = "name", ""
			text, _ = ax.String(field)
		}
		ref, err := s.cite(`"axis_id":`+quoted(id), field, text)
		if err != nil {
			return err
		}
		s.addAxis(id, text, ref, identityOverrides)
	}
	return nil
}

// cite finds, after the first occurrence of anchor, the string value of key
// in the canonical bytes, and returns a SourceRef whose [start, end) holds
// exactly that value's bytes.
func (s *packSource) cite(anchor, key, value string) (artifact.SourceRef, error) {
	at := bytes.Index(s.source, []byte(anchor))
	if at < 0 {
		return artifact.SourceRef{}, fmt.Errorf("pack %s: %s not found in the canonical bytes", s.id, anchor)
	}
	needle := []byte(quoted(key) + ":" + quoted(value))
	i := bytes.Index(s.source[at:], needle)
	if i < 0 {
		return artifact.SourceRef{}, fmt.Errorf("pack %s: the value of %s not found after %s", s.id, key, anchor)
	}
	start := int64(at + i + len(quoted(key)) + 2) // past `"key":"`
	end := start + int64(len(quoted(value))-2)
	return artifact.SourceRef{SourceSHA: s.sourceSHA, Span: string(s.source[start:end]), Adapter: s.kind + "_pack_authoring",
		RetrievedAt: "", TextSHA: s.sourceSHA, Start: &start, End: &end, Extractor: "pack_ratify/v1"}, nil
}

func quoted(s string) string {
	b, _ := canon.Marshal(s)
	return string(b)
}

func (s *packSource) addAxis(id, definition string, ref artifact.SourceRef, overrides []string) {
	refs := []artifact.SourceRef{ref}
	s.terms = append(s.terms, id)
	s.concepts = append(s.concepts, artifact.ConceptCandidate{CanonicalTerm: id, Definition: definition, Sources: refs, State: artifact.StateProposed})
	for _, o := range overrides {
		s.counters = append(s.counters, artifact.CounterCandidate{Head: o, Relation: overrideRelation, Tail: id, Sources: refs, State: artifact.StateProposed})
	}
}

// packCourse forges and composes the pack's identity_anchor course.
func (p *Pipeline) packCourse(ctx context.Context, src packSource) (artifact.Course, []byte, artifact.ValidatedTripleSet, error) {
	subject := "subject." + src.kind + "." + src.id
	allow, err := forge.NewAllowlist([]artifact.AllowedSource{{SourceSHA: src.sourceSHA, Tier: artifact.TierPrimary, Label: src.kind + " pack " + src.id}})
	if err != nil {
		return artifact.Course{}, nil, artifact.ValidatedTripleSet{}, err
	}
	texts := forge.MemoryTexts{}
	texts.Put(src.source)
	res, err := forge.Validate(ctx, forge.Config{Allowlist: allow, ExemptTerms: src.terms, SpanChecker: texts}, subject,
		artifact.SmeltedBundle{Concepts: src.concepts, Counters: src.counters})
	if err != nil {
		return artifact.Course{}, nil, artifact.ValidatedTripleSet{}, exitcode.With(exitcode.Rejected, fmt.Errorf("pack %s: forge: %w", src.id, err))
	}
	if len(res.Findings) > 0 && p.Env != nil {
		if err := p.Env.Audit.Append(ctx, packFindings(subject, res.Findings)...); err != nil {
			return artifact.Course{}, nil, artifact.ValidatedTripleSet{}, err
		}
	}
	title := map[string]string{"safety": "Safety", "identity": "Identity"}[src.kind] + " Anchor — " + src.id
	spec := artifact.SubjectSpec{SubjectID: subject, Title: title, TargetDepth: "introductory", RequiresCourses: []string{},
		AntiRequisites: []string{}, IdentityAxisConstraints: slices.Sorted(slices.Values(src.terms)), SchemaVersion: artifact.SchemaVersion}
	version, _ := compose.TemplateVersion("identity_anchor")
	course, yaml, err := compose.Compose(res.VTS, spec, src.sourceSHA, "identity_anchor", version)
	if err != nil {
		return artifact.Course{}, nil, artifact.ValidatedTripleSet{}, exitcode.With(exitcode.Rejected, fmt.Errorf("pack %s: compose: %w", src.id, err))
	}
	return course, yaml, res.VTS, nil
}

func packFindings(subject string, fs []forge.Finding) []audit.Record {
	recs := findingRecords(fs)
	for i := range recs {
		recs[i].Stage, recs[i].Subject = "pack_ratify", subject
	}
	return recs
}

// packReport runs the plan twice in bootstrap mode and ratifies it.
func (p *Pipeline) packReport(ctx context.Context, src packSource, path string, course artifact.Course, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, issuedAt string) (artifact.MasteryReport, error) {
	opts := p.Packs
	opts.AllowUnratifiedSafety, opts.AllowUnratifiedIdentity = true, true // bootstrap: see the package comment above
	opts.TrustedPackKeys = nil                                            // a pack is signed after its ratification, never before
	// The runtime that ratifies a pack runs under that very pack when it
	// sits in a packs folder (<dir>/safety/<id>.json or <dir>/identity/<id>.json).
	if parent := filepath.Base(filepath.Dir(path)); parent == src.kind {
		opts.Dir = filepath.Dir(filepath.Dir(path))
		if src.kind == "safety" {
			opts.SafetyPackID = src.id
		} else {
			opts.IdentityPackID = src.id
		}
	}
	bootstrap := *p
	bootstrap.Packs = opts
	loaded, err := bootstrap.loadPacks(ctx)
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	passes, err := p.drivePlan(ctx, plan, vts, loaded)
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	report, err := ratify.Ratify(ratify.Input{CourseID: course.CourseID, SourceBundleSHA: course.SourceBundleSHA,
		ValidatedSetSHA: course.ValidatedSetSHA, CourseSHA256: course.CourseSHA256, Plan: plan, ValidatedSet: vts,
		FirstRun: passes[0].Output, SecondRun: passes[1].Output,
		Index:        artifact.MasteredCoursesIndex{Entries: []artifact.MasteredCourseEntry{}, SchemaVersion: artifact.SchemaVersion},
		PriorCourses: []ratify.PriorCourse{}, IssuedAt: issuedAt})
	if err != nil {
		return artifact.MasteryReport{}, exitcode.With(exitcode.Rejected, fmt.Errorf("pack %s: ratify: %w", src.id, err))
	}
	return report, nil
}

// keptReport returns the existing companion report when the pack is
// ratified by it — packs.VerifyRatification, the runtime's own check — and
// its course and plan digests still match what ratifying the pack would
// run now.
func keptReport(ctx context.Context, src packSource, path string, doc *canon.Object, course artifact.Course, plan artifact.FormationPlan) (artifact.MasteryReport, bool) {
	obj, err := packs.VerifyRatification(ctx, src.kind, src.id, path, doc)
	if err != nil {
		return artifact.MasteryReport{}, false
	}
	var rep artifact.MasteryReport
	if canon.Assign(obj, &rep) != nil {
		return artifact.MasteryReport{}, false
	}
	return rep, rep.CourseSHA256 == course.CourseSHA256 && rep.PlanSHA256 == plan.PlanSHA256
}

// writePackFiles writes the companion report, then the pack with the report's
// digest embedded; both pretty-printed with sorted keys and a final newline.
func writePackFiles(path string, doc *canon.Object, report artifact.MasteryReport) error {
	if err := writePretty(packs.CompanionReportPath(path), report); err != nil {
		return err
	}
	updated := doc.Clone()
	updated.Set("mastery_report_sha256", report.ReportSHA256)
	return writePretty(path, updated)
}

func writePretty(path string, v any) error {
	b, err := canon.Marshal(v)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
