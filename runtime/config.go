package runtime

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"formation/packs"
	"formation/runtime/admissibility"
	"formation/runtime/algebra"
	"formation/runtime/field"
	"formation/runtime/identity"
	"formation/runtime/knowledge"
	"formation/runtime/parse"
	"formation/runtime/review"
	"formation/runtime/text"
	"formation/runtime/trace"
)

// Limits and defaults.
const (
	// MaxInputBytes bounds one utterance; longer input is refused.
	MaxInputBytes = 4096
	// DefaultRecallTopK is how many vault entries a turn recalls.
	DefaultRecallTopK = 3
	// RecallFloor is the score a recalled entry needs to count as a hit.
	RecallFloor = 0.15
	// DefaultMaxWalkDepth and DefaultMaxWalkNodes bound a transitive walk.
	DefaultMaxWalkDepth = 8
	DefaultMaxWalkNodes = 64
)

// Config is what a Runtime is built from.
type Config struct {
	// Knowledge is the read-only index answers come from. Required.
	Knowledge *knowledge.Knowledge
	// Safety is the loaded safety pack and Manifold the composed identity
	// manifold (packs.Load or packs.Compose). Both required: the runtime does
	// not start without them.
	Safety   *packs.SafetyPack
	Manifold *packs.Manifold
	// SafetyCheck evaluates the boundaries; nil means packs.NewSafetyCheck().
	SafetyCheck *packs.SafetyCheck
	// AllowedSourceSHAs is the allow-list no_fabricated_source checks cited
	// sources against (typically the Forge's allow-list of the subject). Nil
	// means the sources cited anywhere in Knowledge.
	AllowedSourceSHAs []string

	// AdmissibilityMode constrains walk answers (off, threshold or margin).
	AdmissibilityMode admissibility.Mode
	// AdmissibilityThreshold is the threshold-mode bound (default 0).
	AdmissibilityThreshold float64
	// AdmissibilityMargin is the margin-mode δ; 0 means the default 0.4.
	AdmissibilityMargin float64
	// Frame, when non-zero, is the frame versor of the rotor admissibility
	// check applied to every walk step.
	Frame algebra.MV

	// RecallTopK, MaxWalkDepth, MaxWalkNodes: 0 means the default.
	RecallTopK   int
	MaxWalkDepth int
	MaxWalkNodes int

	// IdentityHardBlock turns a turn whose identity check flags its
	// trajectory into the typed refusal identity_hard_block (before it is
	// answered). Off by default: then a flag is reported on the response and
	// the TurnEvent and never erases an answer. The run stage and
	// ratification never set it.
	IdentityHardBlock bool

	// BriefVerdicts leaves the per-boundary results out of a response's
	// SafetyVerdict (packs.CheckManifoldBrief): its outcome, and so every
	// TurnEvent, is the same. For a caller that keeps only the outcome, as
	// the run stage does; ask and chat show the results.
	BriefVerdicts bool

	// Sink receives one TurnEvent per turn; nil emits nowhere.
	Sink trace.EventSink

	// Operator replaces the field's production operator. Tests only: it is
	// how a drifting operator is injected to prove drift halts.
	Operator field.Operator

	// Rotors is the word-rotor memo the runtime's sessions share; nil gives
	// the runtime one of its own. Runtimes over the same knowledge may share
	// one (NewRotorMemo).
	Rotors *field.Rotors
}

// Runtime is the shared, read-only part: knowledge, vocabulary, packs and
// the prepared identity geometry. Safe for concurrent use by many sessions.
type Runtime struct {
	cfg          Config
	grammar      *parse.Grammar
	gate         *review.Gate
	geometry     *identity.Geometry
	check        *packs.SafetyCheck
	allowed      []string
	manifoldHash string
	blades       map[string]algebra.MV // relation → blade for admissibility scoring
	rotors       *field.Rotors         // word rotors remembered across sessions
	// noFrame says the configured frame is null (no rotor check), which
	// every step of every walk asks: the frame never changes.
	noFrame bool
}

// rotorMemoWords bounds the word-rotor memo a runtime shares among its
// sessions: 16,384 words gathered (about 14 MB with the map's own cost);
// the words that recur in every turn are met first. rotorPackedWords more
// are kept packed, about 130 bytes each with the map's cost (68 MB at the
// bound, which only a subject of several hundred thousand terms reaches).
const (
	rotorMemoWords   = 1 << 14
	rotorPackedWords = 1 << 19
)

// NewRotorMemo returns a word-rotor memo for Config.Rotors. A rotor is a
// pure function of its word, so runtimes that share a memo answer as if
// each had its own; the workers of a pass then hold one memo (about 14 MB
// at its bound) instead of one each, which at eight workers was 100 MB of
// a 100,000-relation run's peak.
func NewRotorMemo() *field.Rotors { return field.NewRotors(rotorMemoWords, rotorPackedWords) }

// ErrConfig is wrapped by every configuration error of New.
var ErrConfig = errors.New("runtime: invalid configuration")

// New validates cfg and prepares the shared runtime.
func New(cfg Config) (*Runtime, error) {
	if cfg.Knowledge == nil {
		return nil, fmt.Errorf("%w: no knowledge", ErrConfig)
	}
	if cfg.Safety == nil || cfg.Manifold == nil {
		return nil, &packs.SafetyPackError{Reason: packs.ReasonPackMissing,
			Detail: "runtime: refusing to start without a safety pack and a composed manifold"}
	}
	if err := normalizeConfig(&cfg); err != nil {
		return nil, err
	}
	geo, err := identity.NewGeometry(axesOf(cfg.Manifold), boundariesOf(cfg.Manifold, cfg.Safety))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	rt := &Runtime{
		cfg:          cfg,
		grammar:      parse.NewGrammar(cfg.Knowledge.Vocabulary(), cfg.Knowledge),
		gate:         review.NewGate(cfg.Manifold.AxisIDs()...),
		geometry:     geo,
		check:        cfg.SafetyCheck,
		manifoldHash: cfg.Manifold.Hash(),
		blades:       map[string]algebra.MV{},
		rotors:       cfg.Rotors,
		noFrame:      algebra.Norm(cfg.Frame) < admissibility.NullNorm,
	}
	if rt.rotors == nil {
		rt.rotors = NewRotorMemo()
	}
	if rt.check == nil {
		rt.check = packs.NewSafetyCheck()
	}
	rt.allowed = cfg.AllowedSourceSHAs
	if rt.allowed == nil {
		rt.allowed = cfg.Knowledge.SourceSHAs()
	}
	rt.allowed = append([]string(nil), rt.allowed...)
	sort.Strings(rt.allowed)
	for _, rel := range cfg.Knowledge.Relations() {
		rt.blades[rel] = relationBlade(rel)
	}
	return rt, nil
}

func normalizeConfig(cfg *Config) error {
	if _, err := admissibility.ParseMode(string(cfg.AdmissibilityMode)); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if cfg.AdmissibilityMargin == 0 {
		cfg.AdmissibilityMargin = admissibility.DefaultMargin
	}
	for _, v := range []float64{cfg.AdmissibilityThreshold, cfg.AdmissibilityMargin} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: admissibility bound %v is not finite", ErrConfig, v)
		}
	}
	if !algebra.IsFinite(cfg.Frame) {
		return fmt.Errorf("%w: frame versor is not finite", ErrConfig)
	}
	if cfg.RecallTopK < 0 || cfg.MaxWalkDepth < 0 || cfg.MaxWalkNodes < 0 {
		return fmt.Errorf("%w: negative bound", ErrConfig)
	}
	if cfg.RecallTopK == 0 {
		cfg.RecallTopK = DefaultRecallTopK
	}
	if cfg.MaxWalkDepth == 0 {
		cfg.MaxWalkDepth = DefaultMaxWalkDepth
	}
	if cfg.MaxWalkNodes == 0 {
		cfg.MaxWalkNodes = DefaultMaxWalkNodes
	}
	return nil
}

func axesOf(m *packs.Manifold) []identity.Axis {
	var out []identity.Axis
	for _, a := range m.ValueAxes() {
		out = append(out, identity.Axis{ID: a.AxisID, Name: a.Name, Direction: a.Direction, Note: a.TheologicalNote})
	}
	return out
}

// boundariesOf lists the manifold's boundaries with the descriptions the
// safety pack declares for them (an identity pack's own boundaries have
// none).
func boundariesOf(m *packs.Manifold, safety *packs.SafetyPack) []identity.Boundary {
	var out []identity.Boundary
	for _, id := range m.BoundaryIDs() {
		out = append(out, identity.Boundary{ID: id, Description: safety.BoundaryDescriptions[id]})
	}
	return out
}

// relationBlade is the bivector a relation's candidates are scored against:
// the grade-2 part of the relation's term rotor (its words embedded like a
// prompt). It is fixed by the relation's name alone.
func relationBlade(relation string) algebra.MV {
	return algebra.GradeProject(field.TermRotor(text.Spaced(relation)), 2)
}

// Knowledge is the index the runtime answers from.
func (rt *Runtime) Knowledge() *knowledge.Knowledge { return rt.cfg.Knowledge }

// ManifoldHash is the identity manifold's hash as loaded.
func (rt *Runtime) ManifoldHash() string { return rt.manifoldHash }
