package forge

import (
	"errors"
	"strings"
	"testing"

	"formation/artifact"
)

func TestAllowlistErrorVectors(t *testing.T) {
	type errorCase struct {
		Name         string                   `json:"name"`
		Operation    string                   `json:"operation"`
		Entries      []artifact.AllowedSource `json:"entries"`
		ErrorMessage string                   `json:"error_message"`
	}
	file := readVector[struct {
		Cases []errorCase `json:"cases"`
	}](t, "allowlist_errors.json")
	if len(file.Cases) != 3 {
		t.Fatalf("want 3 cases, got %d", len(file.Cases))
	}
	for _, c := range file.Cases {
		var err error
		switch c.Operation {
		case "construct":
			_, err = NewAllowlist(c.Entries)
		case "add":
			a := Allowlist{}
			for _, e := range c.Entries {
				if a, err = a.Add(e); err != nil {
					break
				}
			}
		default:
			t.Fatalf("%s: unknown operation %q", c.Name, c.Operation)
		}
		if err == nil || err.Error() != c.ErrorMessage {
			t.Errorf("%s: error %v, want %q", c.Name, err, c.ErrorMessage)
		}
		if !errors.Is(err, ErrInvalidTier) {
			t.Errorf("%s: %v does not wrap ErrInvalidTier", c.Name, err)
		}
	}
}

func TestPyRepr(t *testing.T) {
	cases := map[string]string{
		"gold": `'gold'`, "it's": `"it's"`, `a"b'c`: `'a"b\'c'`, "tab\there": `'tab\there'`,
		"bell\x07": `'bell\x07'`, "zero\u200bwidth": `'zero\u200bwidth'`, `back\slash`: `'back\\slash'`,
		"😀": `'😀'`, "": `''`, "bad\xff": `'bad\xff'`, "\U000e0001": `'\U000e0001'`,
	}
	for in, want := range cases {
		if got := pyRepr(in); got != want {
			t.Errorf("pyRepr(%q) = %s, want %s", in, got, want)
		}
	}
}

const (
	shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	shaC = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
	sha1 = "1111111111111111111111111111111111111111111111111111111111111111"
)

func TestAllowlistLastDuplicateWinsAndSorted(t *testing.T) {
	a, err := NewAllowlist([]artifact.AllowedSource{
		{SourceSHA: shaB, Tier: "secondary", Label: "first"},
		{SourceSHA: shaA, Tier: "llm"},
		{SourceSHA: shaB, Tier: "primary", Label: "last"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 2 || a.TierOf(shaB) != "primary" || a.Entries()[0].SourceSHA != shaA {
		t.Fatalf("entries %+v", a.Entries())
	}
	if e, _ := a.Lookup(shaB); e.Label != "last" {
		t.Errorf("label %q, want last", e.Label)
	}
	if a.Contains(shaC) || a.TierOf(shaC) != "" {
		t.Error("unlisted digest reported as listed")
	}
}

func TestAllowlistAddRemoveAreValues(t *testing.T) {
	a, _ := NewAllowlist(nil)
	b, err := a.Add(artifact.AllowedSource{SourceSHA: shaB, Tier: "secondary"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := b.Add(artifact.AllowedSource{SourceSHA: shaA, Tier: "primary", Curated: true})
	if a.Len() != 0 || b.Len() != 1 || c.Len() != 2 {
		t.Fatalf("Add changed its receiver: %d %d %d", a.Len(), b.Len(), c.Len())
	}
	d, err := c.Remove(shaB)
	if err != nil || d.Len() != 1 || c.Len() != 2 || !d.Contains(shaA) {
		t.Fatalf("Remove: %v, %d, %d", err, d.Len(), c.Len())
	}
	if _, err := d.Remove(shaB); !errors.Is(err, ErrNotListed) {
		t.Errorf("removing an absent digest: %v", err)
	}
	e, _ := c.Add(artifact.AllowedSource{SourceSHA: shaA, Tier: "llm"})
	if e.TierOf(shaA) != "llm" || e.Len() != 2 {
		t.Errorf("re-adding replaces: %+v", e.Entries())
	}
}

func TestAllowlistYAMLRoundTrip(t *testing.T) {
	out, err := AllowAdd(nil, artifact.AllowedSource{SourceSHA: shaB, Tier: "secondary", Label: "Wikipedia: Lens"})
	if err != nil {
		t.Fatal(err)
	}
	out, err = AllowAdd(out, artifact.AllowedSource{SourceSHA: sha1, Tier: "primary", Label: "Hecht, Optics", Curated: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `- source_sha: "1111111111111111111111111111111111111111111111111111111111111111"
  tier: primary
  label: Hecht, Optics
  curated: true
- source_sha: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
  tier: secondary
  label: 'Wikipedia: Lens'
`
	if string(out) != want {
		t.Fatalf("allowlist.yaml:\n%s\nwant:\n%s", out, want)
	}
	list, err := AllowList(out)
	if err != nil || len(list) != 2 || !list[0].Curated || list[1].Curated || list[1].Label != "Wikipedia: Lens" {
		t.Fatalf("AllowList: %v %+v", err, list)
	}
	again, _ := LoadAllowlist(out)
	if b, _ := again.Bytes(); string(b) != string(out) {
		t.Errorf("load then save changed the bytes:\n%s", b)
	}
	out, err = AllowRemove(out, sha1)
	if err != nil || strings.Contains(string(out), sha1) {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	out, err = AllowRemove(out, shaB)
	if err != nil || string(out) != "[]\n" {
		t.Fatalf("remove last: %v %q", err, out)
	}
	if _, err := AllowRemove(out, shaB); !errors.Is(err, ErrNotListed) {
		t.Errorf("remove absent: %v", err)
	}
}

func TestAllowlistYAMLEmpty(t *testing.T) {
	for _, in := range []string{"", "[]\n", "# nothing yet\n", "---\n", "null\n"} {
		a, err := LoadAllowlist([]byte(in))
		if err != nil || a.Len() != 0 {
			t.Errorf("LoadAllowlist(%q) = %d entries, %v", in, a.Len(), err)
		}
	}
}

func TestAllowlistYAMLRejects(t *testing.T) {
	ok := "- source_sha: " + shaA + "\n  tier: primary\n"
	cases := map[string]string{
		"duplicate key":       "- source_sha: " + shaA + "\n  tier: primary\n  tier: llm\n",
		"unknown field":       ok + "  weight: 3\n",
		"missing tier":        "- source_sha: " + shaA + "\n",
		"missing sha":         "- tier: primary\n",
		"upper-case digest":   "- source_sha: " + strings.ToUpper(shaA) + "\n  tier: primary\n",
		"short digest":        "- source_sha: abc\n  tier: primary\n",
		"numeric digest":      "- source_sha: 1111111111111111111111111111111111111111111111111111111111111111\n  tier: primary\n",
		"bad tier":            "- source_sha: " + shaA + "\n  tier: gold\n",
		"tier case":           "- source_sha: " + shaA + "\n  tier: Primary\n",
		"curated not bool":    ok + "  curated: yes\n",
		"curated as string":   ok + "  curated: \"true\"\n",
		"label not string":    ok + "  label: [a]\n",
		"mapping at top":      "source_sha: " + shaA + "\ntier: primary\n",
		"scalar entry":        "- " + shaA + "\n",
		"digest listed twice": ok + ok,
		"two documents":       ok + "---\n" + ok,
		"alias":               "- source_sha: &d " + shaA + "\n  tier: primary\n- source_sha: *d\n  tier: llm\n",
		"merge key":           "- <<: {tier: primary}\n  source_sha: " + shaA + "\n",
		"not yaml":            "- [unclosed\n",
	}
	for name, in := range cases {
		_, err := LoadAllowlist([]byte(in))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !errors.Is(err, ErrInvalidAllowlist) && !errors.Is(err, ErrInvalidTier) {
			t.Errorf("%s: untyped error %v", name, err)
		}
	}
	if _, err := AllowAdd(nil, artifact.AllowedSource{SourceSHA: "../x", Tier: "primary"}); !errors.Is(err, ErrInvalidAllowlist) {
		t.Errorf("AllowAdd of a malformed digest: %v", err)
	}
	if _, err := AllowAdd(nil, artifact.AllowedSource{SourceSHA: shaA, Tier: "gold"}); err == nil || err.Error() != "invalid tier 'gold'" {
		t.Errorf("AllowAdd of a bad tier: %v", err)
	}
}
