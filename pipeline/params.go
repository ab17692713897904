package pipeline

import (
	"fmt"

	"formation/artifact"
	"formation/canon"
	"formation/mining"
	"formation/packs"
	"formation/run"
	"formation/smelting"
	"formation/stage"
)

// What each stage's cache key holds. The key (stage.Spec.Ingredients, then
// Key) covers the stage name and version, the code identity, the subject
// id, the canonical JSON of the stage's parameter struct and the digests of
// its input objects. A parameter struct holds everything else the output
// depends on; the subject spec is in it wherever the stage reads the
// subject file. Each stage builds its spec with one function below from a
// parameter struct and an inputs struct, so that the cache-key tests can
// change every field of both, by reflection, and see the key change: a
// field added to either is covered without touching the tests.

// MineParams is what the mine stage's OreBundle depends on besides the
// subject id. Mine reads files, not objects, so it has no inputs: the
// files are SourceFiles, a digest over subject.yaml (the whole subject
// file, sources and limits included) and every file its sources name.
type MineParams struct {
	Subject     artifact.SubjectSpec `json:"subject"`
	SourceFiles string               `json:"source_files"`
	Extractor   string               `json:"extractor"`
	EnableLLM   bool                 `json:"enable_llm"`
	LLMProvider string               `json:"llm_provider"`
}

// MineInputs is empty: mine reads no stored object.
type MineInputs struct{}

func mineSpec(subject string, p MineParams, _ MineInputs) stage.Spec {
	return stage.Spec{Stage: "mine", Version: mining.StageVersion, Subject: subject, Params: p, Inputs: []string{}}
}

// SmeltParams is what the SmeltedBundle depends on besides the subject id
// and the OreBundle (which names the text objects smelt reads by digest):
// the smelter subject.yaml pins (or the default), and the relations the
// subject declares besides the vocabulary's 17 (courses.Subject.Vocabulary),
// sorted. Relations is omitted when none, so such a subject keeps its key.
type SmeltParams struct {
	Extractor string   `json:"extractor"`
	Relations []string `json:"relations,omitempty"`
}

// SmeltInputs are the objects smelt reads.
type SmeltInputs struct {
	OreBundle string
}

func smeltSpec(subject string, p SmeltParams, in SmeltInputs) stage.Spec {
	return stage.Spec{Stage: "smelt", Version: smelting.Version, Subject: subject, Params: p, Inputs: []string{in.OreBundle},
		InputNames: []string{"mine output (OreBundle)"}}
}

// ForgeParams is what the validated set depends on besides the subject id
// and its inputs.
type ForgeParams struct {
	Subject       artifact.SubjectSpec `json:"subject"`
	IdentityTerms []string             `json:"identity_terms"`
	Manifold      string               `json:"manifold"` // packs.Manifold.Hash of the manifold in force
	// Relations are the subject's declared relations, sorted: R1's
	// vocabulary beyond the 17, recorded in the set. Omitted when none.
	Relations []string `json:"relations,omitempty"`
}

// ForgeInputs are the objects forge reads: the smelted bundle, the stored
// allowlist.yaml and the stored list of reviewed triples of other subjects
// that can change this bundle's result (forge.Relevant; "[]" when none).
type ForgeInputs struct {
	Smelted   string
	Allowlist string
	Reviewed  string
}

func forgeSpec(subject string, p ForgeParams, in ForgeInputs) stage.Spec {
	return stage.Spec{Stage: "forge", Version: ForgeVersion, Subject: subject, Params: p,
		Inputs:     []string{in.Smelted, in.Allowlist, in.Reviewed},
		InputNames: []string{"smelt output (SmeltedBundle)", "allowlist.yaml", "reviewed knowledge"}}
}

// ComposeParams is what the course depends on besides the subject id and
// its inputs.
type ComposeParams struct {
	Subject         artifact.SubjectSpec `json:"subject"`
	Template        string               `json:"template"`
	TemplateVersion string               `json:"template_version"`
}

// ComposeInputs are the objects compose reads.
type ComposeInputs struct {
	ValidatedSet string
	OreBundle    string
}

func composeSpec(subject string, p ComposeParams, in ComposeInputs) stage.Spec {
	return stage.Spec{Stage: "compose", Version: ComposeVersion, Subject: subject, Params: p,
		Inputs:     []string{in.ValidatedSet, in.OreBundle},
		InputNames: []string{"forge output (ValidatedTripleSet)", "mine output (OreBundle)"}}
}

// RunParams is what the run record depends on besides the subject id and
// the course. Run does not read the subject file: the course carries what
// it needs of the spec.
type RunParams struct {
	Runtime    string `json:"runtime"`     // RuntimeVersion
	SafetyPack string `json:"safety_pack"` // safetyPackDigest of the safety pack in force
	Manifold   string `json:"manifold"`
}

// RunInputs are the objects run reads (the course names its YAML and
// validated set by digest).
type RunInputs struct {
	Course string
}

func runSpec(subject string, p RunParams, in RunInputs) stage.Spec {
	return stage.Spec{Stage: "run", Version: RunVersion, Subject: subject, Params: p, Inputs: []string{in.Course},
		InputNames: []string{"compose output (course)"}}
}

// RunShardParams is what one shard of a run depends on besides the subject
// id and the course: the run's own parameters and version, and which shard
// of how many it is (which also names its ref).
type RunShardParams struct {
	Run        RunParams `json:"run"`
	RunVersion string    `json:"run_version"`
	Shard      int       `json:"shard"`
	Shards     int       `json:"shards"`
}

// RunShardInputs are the objects a shard reads: the course, as for run.
type RunShardInputs struct {
	Course string
}

func runShardSpec(subject string, p RunShardParams, in RunShardInputs) stage.Spec {
	return stage.Spec{Stage: "run-shard", Version: RunShardVersion, Subject: subject, Params: p, Inputs: []string{in.Course},
		Ref: ShardRef(subject, run.Shard{Index: p.Shard, Count: p.Shards})}
}

// RatifyParams is what the mastery report depends on besides the subject
// id and its inputs. The safety pack and the manifold matter because G2
// re-runs earlier courses through the runtime.
type RatifyParams struct {
	Subject    artifact.SubjectSpec `json:"subject"`
	IssuedAt   string               `json:"issued_at"`
	Runtime    string               `json:"runtime"`
	SafetyPack string               `json:"safety_pack"`
	Manifold   string               `json:"manifold"`
}

// RatifyInputs are the objects ratify reads: the run record and G2's set,
// the stored index of the mastered courses of other subjects (empty before
// any promotion).
type RatifyInputs struct {
	RunRecord string
	Index     string
}

func ratifySpec(subject string, p RatifyParams, in RatifyInputs) stage.Spec {
	return stage.Spec{Stage: "ratify", Version: RatifyVersion, Subject: subject, Params: p,
		Inputs:     []string{in.RunRecord, in.Index},
		InputNames: []string{"run output (RunRecord)", "mastered-courses index"}}
}

// safetyPackDigest names the loaded safety pack by the SHA-256 of its
// canonical JSON (its boundaries and their descriptions, its declared
// report and whether this load ratified it).
func safetyPackDigest(loaded *packs.Loaded) (string, error) {
	d, err := canon.SHA256Hex(loaded.Safety)
	if err != nil {
		return "", fmt.Errorf("safety pack %s: %w", loaded.Safety.PackID, err)
	}
	return d, nil
}

// orAbsent maps the empty digest of an optional object that does not
// exist yet to stage.Absent.
func orAbsent(digest string) string {
	if digest == "" || digest == stage.Absent {
		return stage.Absent
	}
	return digest
}
