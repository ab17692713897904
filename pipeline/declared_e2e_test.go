package pipeline_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/stage"
)

const packageNotes = `# Strings

Package strings defines the Builder type.
A builder is a buffer.
`

// A subject that declares relations teaches claims in them end to end: the
// forge validates a "defines" claim only because the subject declares it,
// the set records the declaration, the run reaches every step through the
// user's words, the course ratifies, and after promotion `formation ask`
// reads the declared relation in a statement and in a question.
func TestDeclaredRelationEndToEnd(t *testing.T) {
	ctx := context.Background()
	l := newLab(t)
	l.subject("pkg", packageNotes)
	subj := filepath.Join(l.courses, "pkg", "subject.yaml")
	raw, err := os.ReadFile(subj)
	must(t, err)
	must(t, os.WriteFile(subj, append(raw, "relations: [provides, defines]\n"...), 0o644))
	for _, st := range []string{"mine", "smelt"} {
		if code, _, errs := l.run(st, "pkg"); code != 0 {
			t.Fatalf("%s: %s", st, errs)
		}
	}
	// The smelter of this generation reads no declared relation; the claim
	// it would cut is added to its bundle, citing the sentence's exact bytes.
	smelted := readRef[artifact.SmeltedBundle](t, l, "pkg", "smelt")
	if len(smelted.Relations) == 0 {
		t.Fatal("no relation smelted from the notes")
	}
	ref := smelted.Relations[0].Sources[0]
	text, err := l.storeHandle.Get(ctx, ref.TextSHA)
	must(t, err)
	sentence := "Package strings defines the Builder type."
	start := int64(strings.Index(string(text), sentence))
	end := start + int64(len(sentence))
	if start < 0 {
		t.Fatalf("sentence not in the text %q", text)
	}
	ref.Span, ref.Start, ref.End = sentence, &start, &end
	smelted.Relations = append(smelted.Relations, artifact.RelationCandidate{Head: "package strings", Relation: "defines",
		Tail: "builder type", Sources: []artifact.SourceRef{ref}, State: artifact.StateProposed})
	body, err := artifact.Encode(smelted)
	must(t, err)
	d, err := l.storeHandle.Put(ctx, body)
	must(t, err)
	p := stage.NewEnv(l.storeHandle, nil)
	must(t, p.MoveRef(ctx, stage.Ref("pkg", "smelt"), d))
	for _, st := range []string{"forge", "compose", "run", "ratify"} {
		if code, _, errs := l.run(st, "pkg"); code != 0 {
			t.Fatalf("%s: exit %d\n%s", st, code, errs)
		}
	}
	vts := readRef[artifact.ValidatedTripleSet](t, l, "pkg", "forge")
	if !slices.Equal(vts.DeclaredRelations, []string{"defines", "provides"}) {
		t.Fatalf("declared_relations %v", vts.DeclaredRelations)
	}
	if !slices.ContainsFunc(vts.Relations, func(r artifact.RelationCandidate) bool { return r.Relation == "defines" }) {
		t.Fatalf("the declared relation did not validate: %+v %+v", vts.Relations, vts.Quarantined)
	}
	report, _, err := l.storeHandle.GetRef(ctx, stage.Ref("pkg", "ratify"))
	must(t, err)
	if code, out, errs := l.run("promote", "--key", l.key, string(report)); code != 0 {
		t.Fatalf("promote: %d %s %s", code, out, errs)
	}
	if got := l.state().Knowledge.DeclaredRelations(); !slices.Equal(got, []string{"defines", "provides"}) {
		t.Fatalf("reviewed declared relations %v", got)
	}
	for q, want := range map[string]string{
		"Package strings defines the Builder type.": "relation_confirmation",
		"What does package strings define?":         "transitive_walk",
	} {
		code, out, errs := l.run("--json", "ask", q)
		var resp struct {
			Kind    string   `json:"kind"`
			Surface string   `json:"surface"`
			Tails   []string `json:"walk_tails"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || resp.Kind != want {
			t.Fatalf("ask %q: %d %s %s", q, code, out, errs)
		}
		if want == "transitive_walk" && !strings.Contains(resp.Surface, "builder type") {
			t.Fatalf("ask %q: %s", q, out)
		}
	}
}

func readRef[T any](t *testing.T, l *lab, subject, stageName string) T {
	t.Helper()
	ctx := context.Background()
	d, _, err := l.storeHandle.GetRef(ctx, stage.Ref(subject, stageName))
	must(t, err)
	raw, err := l.storeHandle.Get(ctx, strings.TrimSpace(string(d)))
	must(t, err)
	v, err := artifact.Decode[T](raw)
	must(t, err)
	return v
}
