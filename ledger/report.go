package ledger

import (
	"formation/eval"
	"formation/ident"
)

// Statuses, lowest first.
const (
	StatusBlocked          = "blocked"
	StatusSeeded           = "seeded"
	StatusGrounded         = "grounded"
	StatusReasoningCapable = "reasoning-capable"
	StatusAuditPassed      = "audit-passed"
)

// StatusOrder lists the statuses from lowest to highest.
func StatusOrder() []string {
	return []string{StatusBlocked, StatusSeeded, StatusGrounded, StatusReasoningCapable, StatusAuditPassed}
}

// DefinitionCoverageMin is the grounded rung's bar.
func DefinitionCoverageMin() eval.Threshold { return eval.Percent(85) }

// Ladder constants.
const (
	WalksPerFamilyMin = 8 // ratified walks per claimed operator family
	IntentShapesMin   = 3 // distinct answer kinds the domain's questions exercise
)

// ReportSchemaVersion is the schema_version of the ledger report.
const ReportSchemaVersion = "1.0.0"

// Report is the ledger: the --json document of `formation ledger`.
type Report struct {
	SchemaVersion string         `json:"schema_version"`
	StatusOrder   []string       `json:"status_order"`
	Thresholds    Thresholds     `json:"thresholds"`
	Registry      RegistryStatus `json:"reviewer_registry"`
	// StateHead is the reviewed state (knowledge/state) the ledger read.
	StateHead ident.Digest `json:"state_head"`
	// Integrity lists every seal, signature or stored object that failed
	// verification, and every broken link of the reviewed-state chain: the
	// rows concerned are demoted and the command exits 77 after printing.
	Integrity []IntegrityFailure `json:"integrity_failures"`
	Domains   []Row              `json:"domains"`
}

// IntegrityFailure is one thing in the store that is not what was signed,
// sealed or recorded.
type IntegrityFailure struct {
	Domain string `json:"domain"` // "" for the reviewed state as a whole
	Object string `json:"object"` // the course, lane result, state or object concerned
	Reason string `json:"reason"`
}

// Thresholds states the ladder's bars.
type Thresholds struct {
	DefinitionCoverage string `json:"definition_coverage"`
	WalksPerFamily     int64  `json:"walks_per_family"`
	IntentShapes       int64  `json:"intent_shapes"`
}

// CurrentThresholds reports the constants above.
func CurrentThresholds() Thresholds {
	return Thresholds{DefinitionCoverage: DefinitionCoverageMin().String(), WalksPerFamily: WalksPerFamilyMin, IntentShapes: IntentShapesMin}
}

// RegistryStatus says whether the reviewer registry loaded and, if not, why.
// ClaimErrors lists claims whose signatures do not verify.
type RegistryStatus struct {
	Path          string       `json:"path"`
	Valid         bool         `json:"valid"`
	Error         string       `json:"error"`
	SchemaVersion int64        `json:"schema_version"` // 0 when invalid
	ReviewerIDs   []string     `json:"reviewer_ids"`
	ClaimDomains  []string     `json:"claim_domains"`
	ClaimErrors   []ClaimError `json:"claim_errors"`
}

// ClaimError is a claim whose signature failed.
type ClaimError struct {
	Domain string `json:"domain"`
	Error  string `json:"error"`
}

// Row is one domain's line of the ledger.
type Row struct {
	Domain                 string           `json:"domain"`
	Status                 string           `json:"status"`
	Subjects               []string         `json:"subjects"`
	Predicates             Predicates       `json:"predicates"`
	SeededReason           string           `json:"seeded_reason"`
	GroundedReason         string           `json:"grounded_reason"`
	ReasoningCapableReason string           `json:"reasoning_capable_reason"`
	AuditPassedReason      string           `json:"audit_passed_reason"`
	PromotedCourses        []CourseFact     `json:"promoted_courses"`
	DefinitionCoverage     Coverage         `json:"definition_coverage"`
	OperatorCoverage       []FamilyCoverage `json:"operator_coverage"`
	IntentShapes           IntentShapes     `json:"intent_shapes"`
	EvalLanes              []LaneCoverage   `json:"eval_lanes"`
	Claim                  *ClaimView       `json:"claim"`
	Evidence               []EvidenceView   `json:"evidence"`
	DerivedDigest          string           `json:"derived_digest"`
	Problems               []string         `json:"problems"` // inputs that failed to load
}

// Predicates are the rungs; each includes the one below it.
type Predicates struct {
	Seeded           bool `json:"seeded"`
	Grounded         bool `json:"grounded"`
	ReasoningCapable bool `json:"reasoning_capable"`
	AuditPassed      bool `json:"audit_passed"`
}

// CourseFact is one promoted course of the domain's subjects and whether its
// report, seal and promotion signature verified.
type CourseFact struct {
	CourseID     string `json:"course_id"`
	Subject      string `json:"subject"`
	ReportSHA256 string `json:"report_sha256"`
	Verified     bool   `json:"verified"`
	Reason       string `json:"reason"`
	// IntegrityFailure: the course failed on a seal, a signature or a stored
	// object, not merely for want of trusted keys.
	IntegrityFailure bool `json:"integrity_failure"`
}

// Coverage is definition coverage: terms of the domain's promoted triples
// that have at least one promoted definition.
type Coverage struct {
	Terms     int64     `json:"terms"`
	Defined   int64     `json:"defined"`
	Rate      eval.Rate `json:"rate"`
	Threshold string    `json:"threshold"`
	Ready     bool      `json:"ready"`
}

// FamilyCoverage counts ratified walks for one claimed operator family.
type FamilyCoverage struct {
	Family    string   `json:"family"`
	Relations []string `json:"relations"`
	Walks     int64    `json:"walks"`
	Required  int64    `json:"required"`
	Ready     bool     `json:"ready"`
}

// IntentShapes lists the distinct answer kinds the domain's questions exercise.
type IntentShapes struct {
	Present  []string `json:"present"`
	Count    int64    `json:"count"`
	Required int64    `json:"required"`
	Ready    bool     `json:"ready"`
}

// LaneCoverage is one declared lane and whether it names all three splits.
type LaneCoverage struct {
	Lane     string   `json:"lane"`
	Version  string   `json:"version"`
	Shape    string   `json:"shape"` // "" when the lane has no registered shape
	Splits   []string `json:"splits"`
	Complete bool     `json:"complete"`
}

// ClaimView is the domain's claim as the registry states it.
type ClaimView struct {
	SignedBy         string   `json:"signed_by"`
	EvidenceLanes    []string `json:"evidence_lanes"`
	EvidenceRevision string   `json:"evidence_revision"`
	ClaimDigest      string   `json:"claim_digest"`
	Signed           bool     `json:"signed"` // carries a signature that verifies
}

// EvidenceView is a selected lane result.
type EvidenceView struct {
	Lane      string `json:"lane"`
	Split     string `json:"split"`
	Object    string `json:"object"`
	Timestamp string `json:"timestamp"`
	Pass      bool   `json:"pass"`
	Reason    string `json:"reason"`
}
