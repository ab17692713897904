package artifact_test

import (
	"testing"

	"formation/artifact"
)

func TestOreEntryLLMFieldsAreOptional(t *testing.T) {
	plain := artifact.OreEntry{SourceSHA: "a", URL: "u", Adapter: "file", RetrievedAt: "t", ByteLength: 1}
	b, err := artifact.Encode(plain)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"adapter":"file","byte_length":1,"citation":"","retrieved_at":"t","source_sha":"a","url":"u"}`; string(b) != want {
		t.Errorf("an entry without LLM provenance keeps the original's fields only:\n got %s\nwant %s", b, want)
	}
	llm := plain
	llm.Adapter, llm.Model, llm.PromptSHA = artifact.AdapterLLMPrefix+"m1", "m1", "p"
	b, _ = artifact.Encode(llm)
	if want := `{"adapter":"llm_ideation/m1","byte_length":1,"citation":"","model":"m1","prompt_sha":"p","retrieved_at":"t","source_sha":"a","url":"u"}`; string(b) != want {
		t.Errorf("LLM entry:\n got %s\nwant %s", b, want)
	}
	if !artifact.IsLLMAdapter(llm.Adapter) || !artifact.IsLLMAdapter("llm_ideation") || artifact.IsLLMAdapter("file") || artifact.IsLLMAdapter("llm_ideationx") {
		t.Error("IsLLMAdapter")
	}
}
