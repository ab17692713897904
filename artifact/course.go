package artifact

// Course is the output of compose. The YAML itself is stored as its own
// object; since objects are addressed by SHA-256, its object digest is
// CourseSHA256. ValidatedSetObject (this design's extension) is the object
// digest of the ValidatedTripleSet the course was composed from, whose
// compose projection is ValidatedSetSHA.
type Course struct {
	CourseID           string `json:"course_id"`
	CourseSHA256       string `json:"course_sha256"`
	SourceBundleSHA    string `json:"source_bundle_sha"`
	ValidatedSetSHA    string `json:"validated_set_sha"`
	TemplateID         string `json:"template_id"`
	TemplateVersion    string `json:"template_version"`
	SchemaVersion      string `json:"schema_version"`
	ValidatedSetObject string `json:"validated_set_object,omitempty"`
}

// Plan step types.
const (
	StepSeedConcept       = "seed_concept"
	StepIntroduceRelation = "introduce_relation"
	StepWalk              = "walk_step"
	StepAdversarialProbe  = "adversarial_probe"
	StepReplayAssertion   = "replay_assertion"
)

// PlanStep is one typed step of a formation plan. Payload is JSON-shaped and
// float-free.
type PlanStep struct {
	StepType string         `json:"step_type"`
	Payload  map[string]any `json:"payload"`
}

// FormationPlan is a compiled course. PlanSHA256 is the digest of
// {course_id, course_sha256, steps}.
type FormationPlan struct {
	CourseID      string     `json:"course_id"`
	CourseSHA256  string     `json:"course_sha256"`
	Steps         []PlanStep `json:"steps"`
	PlanSHA256    string     `json:"plan_sha256"`
	SchemaVersion string     `json:"schema_version"`
}

// PlanDigest computes plan_sha256 as the original does.
//
// Compile computes it over every step of a plan, so it writes the canonical
// bytes straight into the hash, each payload through canon.AppendMarshal,
// instead of encoding the steps by reflection; TestPlanDigestIsCanon holds
// it equal to planDigestByValue's.
func PlanDigest(courseID, courseSHA string, steps []PlanStep) (string, error) {
	sum, err := planDigest(courseID, courseSHA, steps, func(w *projWriter, i int) { w.value(steps[i].Payload) })
	if err != nil {
		// The encoder's own error names where the value sits.
		return planDigestByValue(courseID, courseSHA, steps)
	}
	return sum, nil
}

// PlanDigest is PlanDigest(courseID, courseSHA, steps) for the steps p
// holds, over the payloads' bytes instead of their maps, which steps added
// by AppendStep do not have.
func (p PlanPayloads) PlanDigest(courseID, courseSHA string) (string, error) {
	return planDigest(courseID, courseSHA, p.steps, func(w *projWriter, i int) { w.payload(p, i, p.steps[i].Payload) })
}

// planDigest writes the canonical bytes of the plan of steps into the
// hash, each step's payload by payload.
func planDigest(courseID, courseSHA string, steps []PlanStep, payload func(w *projWriter, i int)) (string, error) {
	w := newProjWriter()
	w.raw(`{"course_id":`)
	w.str(courseID)
	w.raw(`,"course_sha256":`)
	w.str(courseSHA)
	w.raw(`,"steps":[`)
	for i := range steps {
		w.comma(i)
		w.raw(`{"payload":`)
		payload(&w, i)
		w.raw(`,"step_type":`)
		w.str(steps[i].StepType)
		w.raw(`}`)
	}
	w.raw(`]}`)
	return w.digest()
}

// planDigestByValue is PlanDigest through the canonical encoder.
func planDigestByValue(courseID, courseSHA string, steps []PlanStep) (string, error) {
	return Digest(struct {
		CourseID     string     `json:"course_id"`
		CourseSHA256 string     `json:"course_sha256"`
		Steps        []PlanStep `json:"steps"`
	}{courseID, courseSHA, steps})
}

// StepResult is what one run observed for one step.
type StepResult struct {
	StepType            string         `json:"step_type"`
	Payload             map[string]any `json:"payload"`
	TraceHash           string         `json:"trace_hash"`
	VersorConditionRepr string         `json:"versor_condition_repr"`
	Accepted            bool           `json:"accepted"`
	HasProvenance       bool           `json:"has_provenance"`
}

// RunOutput is one pass over a plan.
type RunOutput struct {
	Results       []StepResult `json:"results"`
	Halted        bool         `json:"halted"`
	HaltStepIndex int          `json:"halt_step_index"`
	HaltReason    string       `json:"halt_reason"`
}

// RunRecord is the output of the run stage: the compiled plan (by object
// digest and plan_sha256) and both passes over it. The TurnEvents of every
// step of each pass are a separate object (EventsObject: a canonical JSON
// array per pass, in step order), so that reading the verdicts never means
// reading the full telemetry.
type RunRecord struct {
	CourseID      string      `json:"course_id"`
	CourseObject  string      `json:"course_object"`
	CourseSHA256  string      `json:"course_sha256"`
	PlanObject    string      `json:"plan_object"`
	PlanSHA256    string      `json:"plan_sha256"`
	Runs          []RunOutput `json:"runs"`
	EventsObject  string      `json:"events_object"`
	SchemaVersion string      `json:"schema_version"`
}

// GateMeasurement is one ratification gate's verdict.
type GateMeasurement struct {
	Name        string `json:"name"`
	Passed      bool   `json:"passed"`
	Measurement string `json:"measurement"`
	Threshold   string `json:"threshold"`
}

// MasteryReport is the self-sealed verdict of ratify, with the fields of the
// form in which the original system sealed and stored its reports.
type MasteryReport struct {
	SchemaVersion   string            `json:"schema_version"`
	CourseID        string            `json:"course_id"`
	SourceBundleSHA string            `json:"source_bundle_sha"`
	ValidatedSetSHA string            `json:"validated_set_sha"`
	CourseSHA256    string            `json:"course_sha256"`
	PlanSHA256      string            `json:"plan_sha256"`
	Gates           []GateMeasurement `json:"gates"`
	TraceHashes     []string          `json:"trace_hashes"`
	Ratified        bool              `json:"ratified"`
	IssuedAt        string            `json:"issued_at"`
	FailureReasons  []string          `json:"failure_reasons"`
	ReportSHA256    string            `json:"report_sha256"`
}

// Sealed returns a copy with ReportSHA256 set to the self-seal.
func (r MasteryReport) Sealed() (MasteryReport, error) {
	r.ReportSHA256 = ""
	d, err := Digest(r)
	if err != nil {
		return r, err
	}
	r.ReportSHA256 = d
	return r, nil
}

// MasteredCourseEntry is one row of the mastered-courses index.
type MasteredCourseEntry struct {
	CourseID        string `json:"course_id"`
	ReportSHA256    string `json:"report_sha256"`
	IssuedAt        string `json:"issued_at"`
	CourseSHA256    string `json:"course_sha256"`
	ValidatedSetSHA string `json:"validated_set_sha"`
}

// MasteredCoursesIndex lists promoted courses, sorted by course_id.
type MasteredCoursesIndex struct {
	Entries       []MasteredCourseEntry `json:"entries"`
	SchemaVersion string                `json:"schema_version"`
}
