package eval

// Metrics is the measured part of a lane result: what the promotion gate
// checks and what the evidence digest hashes. One struct carries every shape;
// a lane fills only the fields of its own shape and the rest are omitted from
// the canonical form. Counts are integers and rates exact fractions.
type Metrics struct {
	// accuracy_shape (and symbolic_logic_shape): Accuracy, or else
	// Passed/Total when Total > 0.
	Accuracy *Rate  `json:"accuracy,omitempty"`
	Passed   *int64 `json:"passed,omitempty"`
	Total    *int64 `json:"total,omitempty"`

	// inference_shape. AllThreePassRate is the older name of AllPassRate,
	// read only when AllPassRate is absent.
	CaseCount         *int64 `json:"case_count,omitempty"`
	AllPassRate       *Rate  `json:"all_pass_rate,omitempty"`
	AllThreePassRate  *Rate  `json:"all_three_pass_rate,omitempty"`
	ReplayDeterminism *Rate  `json:"replay_determinism,omitempty"`
	OverallPass       *bool  `json:"overall_pass,omitempty"`

	// cognition_shape.
	SurfaceGroundedness *Rate `json:"surface_groundedness,omitempty"`
	TermCaptureRate     *Rate `json:"term_capture_rate,omitempty"`
	IntentAccuracy      *Rate `json:"intent_accuracy,omitempty"`
	VersorClosureRate   *Rate `json:"versor_closure_rate,omitempty"`

	// refusal_shape: counts per probe class.
	ByClass map[string]ClassCounts `json:"by_class,omitempty"`
}

// ClassCounts is one refusal-shape bucket: n probes, how many the runtime
// refused (made no grounded claim) and how many it answered with something
// the knowledge does not hold.
type ClassCounts struct {
	N          int64 `json:"n"`
	Refused    int64 `json:"refused"`
	Fabricated int64 `json:"fabricated"`
}

// IsEmpty reports whether no metric is present: the form a missing lane
// result takes inside the evidence digest.
func (m Metrics) IsEmpty() bool {
	return m.Accuracy == nil && m.Passed == nil && m.Total == nil && m.CaseCount == nil &&
		m.AllPassRate == nil && m.AllThreePassRate == nil && m.ReplayDeterminism == nil &&
		m.OverallPass == nil && m.SurfaceGroundedness == nil && m.TermCaptureRate == nil &&
		m.IntentAccuracy == nil && m.VersorClosureRate == nil && len(m.ByClass) == 0
}

func intp(v int64) *int64 { return &v }
func boolp(v bool) *bool  { return &v }
func ratep(r Rate) *Rate  { return &r }
