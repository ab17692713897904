package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"formation/artifact"
	"formation/store"
)

// TimestampLayout is how a lane result records when it ran (UTC); it sorts
// chronologically as text.
const TimestampLayout = "20060102T150405Z"

// LaneResult is one run of a lane over one split: the stored, timestamped
// artifact. Metrics is what the promotion gate checks and the evidence
// digest hashes; everything else says where the metrics came from.
type LaneResult struct {
	SchemaVersion string          `json:"schema_version"`
	DomainID      string          `json:"domain_id"`
	Lane          string          `json:"lane"`
	LaneVersion   string          `json:"lane_version"`
	Shape         string          `json:"shape"`
	Split         string          `json:"split"`
	Timestamp     string          `json:"timestamp"`
	ReviewedSHA   string          `json:"reviewed_knowledge_sha256"`
	Courses       []string        `json:"courses"`
	QuestionSets  []QuestionSetID `json:"question_sets"`
	CodeVersion   string          `json:"code_version"`
	Metrics       Metrics         `json:"metrics"`
	Pass          bool            `json:"pass"`
	Reason        string          `json:"reason"`
	Cases         []Case          `json:"cases"`
}

// QuestionSetID names the questions of one subject's split by content.
type QuestionSetID struct {
	Subject   string `json:"subject"`
	Split     string `json:"split"`
	Questions int64  `json:"questions"`
	SHA256    string `json:"sha256"` // of the canonical JSON of the question list
}

// Case is what one question observed. Fields a shape does not use keep
// their zero values.
type Case struct {
	ID            string `json:"id"`
	Subject       string `json:"subject"`
	QuestionKind  string `json:"question_kind"`
	AnswerKind    string `json:"answer_kind"`
	RefusalReason string `json:"refusal_reason"`
	Surface       string `json:"surface"`
	TraceHash     string `json:"trace_hash"`
	Refused       bool   `json:"refused"`
	Fabricated    bool   `json:"fabricated"`
	Grounded      bool   `json:"grounded"`
	IntentCorrect bool   `json:"intent_correct"`
	VersorClosed  bool   `json:"versor_closed"`
	Deterministic bool   `json:"deterministic"`
	TermsExpected int64  `json:"terms_expected"`
	TermsCaptured int64  `json:"terms_captured"`
	Passed        bool   `json:"passed"`
	Note          string `json:"note"` // why the case failed, "" when it passed
}

// Ref is the name of the latest result of a lane's split for a domain.
func Ref(domain, lane, split string) string { return "lanes/" + domain + "/" + lane + "/" + split }

// Save stores a result and moves its ref to it: the stored result becomes
// the latest of its lane and split, the one the ledger selects.
func Save(ctx context.Context, s store.Store, r LaneResult) (string, error) {
	body, err := artifact.Encode(r)
	if err != nil {
		return "", err
	}
	digest, err := s.Put(ctx, body)
	if err != nil {
		return "", fmt.Errorf("eval: store lane result: %w", err)
	}
	if err := store.SetRefValue(ctx, s, Ref(r.DomainID, r.Lane, r.Split), []byte(digest)); err != nil {
		return "", err
	}
	return digest, nil
}

// Latest is the selected result of a lane's split, as the ledger reads it.
// Problem is set when there is a ref but its result cannot be used: the
// object is missing or corrupt, undecodable, or names another domain, lane
// or split. Found is false when the lane has never run.
type Latest struct {
	Found   bool
	Object  string
	Result  LaneResult
	Problem string
}

// LoadLatest reads the result the ref lanes/<domain>/<lane>/<split> points
// at. Only store failures that a retry may cure are errors; everything
// wrong with the result itself is a Problem, so that the ledger can name it.
func LoadLatest(ctx context.Context, s store.Store, domain, lane, split string) (Latest, error) {
	val, _, err := s.GetRef(ctx, Ref(domain, lane, split))
	if errors.Is(err, store.ErrNotFound) {
		return Latest{}, nil
	}
	if err != nil {
		return Latest{}, fmt.Errorf("eval: read %s: %w", Ref(domain, lane, split), err)
	}
	l := Latest{Found: true, Object: strings.TrimSpace(string(val))}
	if !store.ValidDigest(l.Object) {
		l.Problem = fmt.Sprintf("ref %s holds %q, not a digest", Ref(domain, lane, split), l.Object)
		return l, nil
	}
	raw, err := s.Get(ctx, l.Object)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrCorrupt):
		l.Problem = "lane result " + l.Object + ": " + err.Error()
		return l, nil
	case err != nil:
		return Latest{}, fmt.Errorf("eval: read lane result %s: %w", l.Object, err)
	}
	r, err := artifact.Decode[LaneResult](raw)
	if err != nil {
		l.Problem = "lane result " + l.Object + " undecodable: " + err.Error()
		return l, nil
	}
	if r.DomainID != domain || r.Lane != lane || r.Split != split {
		l.Problem = fmt.Sprintf("lane result %s is for domain %q lane %q split %q", l.Object, r.DomainID, r.Lane, r.Split)
		return l, nil
	}
	l.Result = r
	return l, nil
}
