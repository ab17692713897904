package ledger

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"formation/courses"
	"formation/eval"
	"formation/reviewed"
	"formation/reviewers"
	"formation/signing"
	"formation/store"
)

// Sources is where the ledger reads its facts.
type Sources struct {
	Store        store.Store
	CoursesDir   string               // holds domains.yaml and the subject folders
	RegistryPath string               // reviewers.yaml
	Trusted      *signing.TrustedKeys // curator keys; nil verifies no promotion
}

// ErrUnknownDomain is returned when --domain names no domain of domains.yaml.
var ErrUnknownDomain = errors.New("ledger: unknown domain")

// Build gathers the facts of every domain (or only the one named) and
// evaluates them. Evidence selection rule: for each lane and split, the
// lane result the ref lanes/<domain>/<lane>/<split> points at, which eval
// moves to every result it stores; so the selected result is the latest one
// stored, and running a lane again replaces the evidence a claim was signed
// over. Errors are reserved for what stops the ledger as a whole (an
// unreadable domains.yaml, an unknown domain, an unreachable store); what is
// wrong with one domain's evidence becomes that row's reason.
func Build(ctx context.Context, src Sources, only string) (Report, error) {
	doms, err := courses.LoadDomains(ctx, src.CoursesDir)
	if err != nil {
		return Report{}, err
	}
	snap, err := reviewed.Load(ctx, src.Store)
	if err != nil {
		return Report{}, err
	}
	chain, err := reviewed.VerifyFrom(ctx, src.Store, snap)
	if err != nil {
		return Report{}, err
	}
	reg, regStatus := loadRegistry(ctx, src.RegistryPath)
	rep := Report{SchemaVersion: ReportSchemaVersion, StatusOrder: StatusOrder(), Thresholds: CurrentThresholds(),
		Registry: regStatus, StateHead: snap.Head, Integrity: []IntegrityFailure{}, Domains: []Row{}}
	for _, f := range chain {
		rep.Integrity = append(rep.Integrity, IntegrityFailure{Object: f.Object, Reason: f.Reason + ": " + f.Detail})
	}
	for _, d := range doms.Domains {
		if only != "" && d.ID != only {
			continue
		}
		f, err := gatherDomain(ctx, src, snap, d, reg)
		if err != nil {
			return Report{}, err
		}
		f.Registry, f.RegistryError = reg, regStatus.Error
		rep.Integrity = append(rep.Integrity, integrityOf(f)...)
		rep.Domains = append(rep.Domains, Evaluate(f))
	}
	if only != "" && len(rep.Domains) == 0 {
		return Report{}, fmt.Errorf("%w %q: not in %s", ErrUnknownDomain, only, filepath.Join(src.CoursesDir, courses.DomainsFile))
	}
	return rep, nil
}

// loadRegistry loads the registry and degrades any failure to the empty
// registry, recording why: a broken registry grants nothing.
func loadRegistry(ctx context.Context, path string) (*reviewers.Registry, RegistryStatus) {
	st := RegistryStatus{Path: path, ReviewerIDs: []string{}, ClaimDomains: []string{}, ClaimErrors: []ClaimError{}}
	reg, err := reviewers.Load(ctx, path)
	if err != nil {
		st.Error = err.Error()
		return reviewers.Empty(), st
	}
	st.Valid, st.SchemaVersion = true, int64(reg.SchemaVersion())
	for _, r := range reg.Reviewers() {
		st.ReviewerIDs = append(st.ReviewerIDs, r.ID)
	}
	for _, c := range reg.Claims() {
		st.ClaimDomains = append(st.ClaimDomains, c.DomainID)
		if err := reg.VerifyClaim(c); err != nil {
			st.ClaimErrors = append(st.ClaimErrors, ClaimError{Domain: c.DomainID, Error: err.Error()})
		}
	}
	sort.Strings(st.ReviewerIDs)
	sort.Strings(st.ClaimDomains)
	return reg, st
}

// Spec converts a domains.yaml entry.
func Spec(d courses.Domain) DomainSpec {
	s := DomainSpec{ID: d.ID, Subjects: append([]string{}, d.Subjects...)}
	for _, f := range d.OperatorFamilies {
		s.Families = append(s.Families, Family{Name: f.Family, Relations: append([]string{}, f.Relations...)})
	}
	for _, l := range d.EvalLanes {
		s.Lanes = append(s.Lanes, LaneSpec{Lane: l.Lane, Version: l.Version, Splits: append([]string{}, l.Splits...)})
	}
	return s
}

func gatherDomain(ctx context.Context, src Sources, snap reviewed.Snapshot, d courses.Domain, reg *reviewers.Registry) (Facts, error) {
	f := Facts{Domain: Spec(d)}
	p, err := eval.LoadPromotedAt(ctx, src.Store, snap, src.Trusted, d.Subjects)
	if err != nil {
		return Facts{}, err
	}
	for _, c := range p.Courses {
		f.Courses = append(f.Courses, CourseFact{CourseID: c.CourseID, Subject: c.Subject, ReportSHA256: c.ReportSHA256,
			Verified: c.Verified, Reason: c.Reason, IntegrityFailure: c.IntegrityFailure})
	}
	f.Terms, f.Defined = DefinitionCoverage(p.Knowledge, p.Terms)
	for _, id := range p.Verified() {
		ws, err := CourseWalks(id, p.CourseYAML[id], p.Knowledge)
		if err != nil {
			f.Problems = append(f.Problems, err.Error())
			continue
		}
		f.Walks = append(f.Walks, ws...)
	}
	f.IntentShapes, f.Problems = intentsOf(ctx, src.CoursesDir, d.Subjects, f.Problems)
	if f.Results, err = selectResults(ctx, src.Store, d, reg); err != nil {
		return Facts{}, err
	}
	return f, nil
}

// intentsOf lists the answer kinds the subjects' questions (all splits)
// expect of a grounded answer.
func intentsOf(ctx context.Context, dir string, subjects, problems []string) ([]string, []string) {
	var kinds []string
	for _, s := range subjects {
		qs, err := courses.LoadQuestions(ctx, filepath.Join(dir, s))
		if err != nil {
			problems = append(problems, fmt.Sprintf("questions of subject '%s' failed to load: %v", s, err))
			continue
		}
		for _, split := range [][]courses.Question{qs.Public, qs.Holdout, qs.Dev} {
			for _, q := range split {
				if eval.Grounded(q.Kind) {
					kinds = append(kinds, eval.AnswerKind(q.Kind))
				}
			}
		}
	}
	return kinds, problems
}

// selectResults reads the latest result of every split of the domain's
// declared lanes and of the lanes its claim cites (when they are valid ids;
// a claim may name anything, and the gate reports it).
func selectResults(ctx context.Context, s store.Store, d courses.Domain, reg *reviewers.Registry) (map[string]map[string]LaneEvidence, error) {
	var lanes []string
	version := map[string]string{}
	for _, l := range d.EvalLanes {
		lanes = append(lanes, l.Lane)
		version[l.Lane] = l.Version
	}
	if c, ok := reg.ClaimFor(d.ID); ok {
		for _, l := range c.EvidenceLanes {
			if courses.ValidSubjectID(l) == nil && !contains(lanes, l) {
				lanes = append(lanes, l)
			}
		}
	}
	out := map[string]map[string]LaneEvidence{}
	for _, lane := range lanes {
		for _, split := range []string{SplitPublic, SplitHoldout, SplitDev} {
			l, err := eval.LoadLatest(ctx, s, d.ID, lane, split)
			if err != nil {
				return nil, err
			}
			if !l.Found {
				continue
			}
			if out[lane] == nil {
				out[lane] = map[string]LaneEvidence{}
			}
			ev := LaneEvidence{Object: l.Object, Timestamp: l.Result.Timestamp, Metrics: l.Result.Metrics, Problem: l.Problem, Corrupt: l.Problem != ""}
			if want, declared := version[lane]; declared && ev.Problem == "" && l.Result.LaneVersion != want {
				// Evidence of an earlier version of the lane measures a different
				// question set or scoring; it does not count for this one.
				ev = LaneEvidence{Object: l.Object, Timestamp: l.Result.Timestamp,
					Problem: fmt.Sprintf("lane result %s is of lane version %q; domains.yaml declares %q", l.Object, l.Result.LaneVersion, want)}
			}
			out[lane][split] = ev
		}
	}
	return out, nil
}

// EvidenceFor computes the digest a claim over lanes at revision must carry,
// from the lane results Build would select now (same rule, same lane-version
// check). It refuses to produce a digest the gate would reject: a lane not
// declared for the domain, an unregistered lane, a missing or unusable
// public or holdout result, or one that fails its shape; nobody should sign
// a claim that cannot pass.
func EvidenceFor(ctx context.Context, src Sources, domain, revision string, lanes []string) (string, error) {
	if len(lanes) == 0 {
		return "", errors.New("ledger: a claim cites at least one lane")
	}
	doms, err := courses.LoadDomains(ctx, src.CoursesDir)
	if err != nil {
		return "", err
	}
	var dom *courses.Domain
	for i := range doms.Domains {
		if doms.Domains[i].ID == domain {
			dom = &doms.Domains[i]
		}
	}
	if dom == nil {
		return "", fmt.Errorf("%w %q", ErrUnknownDomain, domain)
	}
	if stray := unattached(lanes, laneIDs(Spec(*dom).Lanes)); len(stray) > 0 {
		return "", &EvidenceError{Reason: fmt.Sprintf("claim cites lanes not attached to domain '%s': %s", domain, pyList(stray))}
	}
	results, err := selectResults(ctx, src.Store, *dom, reviewers.Empty())
	if err != nil {
		return "", err
	}
	if reason := checkLanes(lanes, results); reason != "" {
		return "", &EvidenceError{Reason: reason}
	}
	metrics := map[string]map[string]eval.Metrics{}
	for lane, splits := range results {
		metrics[lane] = map[string]eval.Metrics{}
		for split, ev := range splits {
			metrics[lane][split] = ev.Metrics
		}
	}
	return EvidenceDigest(domain, revision, lanes, metrics)
}

// EvidenceError is evidence a claim must not be signed over.
type EvidenceError struct{ Reason string }

func (e *EvidenceError) Error() string { return "ledger: evidence not signable: " + e.Reason }

// integrityOf lists a domain's integrity failures: promoted courses whose
// seal, signature or objects did not verify, and lane results whose stored
// object is not intact (a result of an older lane version merely drifted).
func integrityOf(f Facts) []IntegrityFailure {
	var out []IntegrityFailure
	for _, c := range f.Courses {
		if c.IntegrityFailure {
			out = append(out, IntegrityFailure{Domain: f.Domain.ID, Object: "course " + c.CourseID, Reason: c.Reason})
		}
	}
	lanes := make([]string, 0, len(f.Results))
	for lane := range f.Results {
		lanes = append(lanes, lane)
	}
	sort.Strings(lanes)
	for _, lane := range lanes {
		for _, split := range []string{SplitPublic, SplitHoldout, SplitDev} {
			if ev, ok := f.Results[lane][split]; ok && ev.Corrupt {
				out = append(out, IntegrityFailure{Domain: f.Domain.ID, Object: "lane " + lane + "/" + split, Reason: ev.Problem})
			}
		}
	}
	return out
}
