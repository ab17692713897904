package pipeline

import (
	"slices"
	"testing"

	"formation/courses"
	"formation/smelting"
)

// TestExtractorListsAgree: subject.yaml may pin exactly the smelters the
// smelter has, and both name the same default.
func TestExtractorListsAgree(t *testing.T) {
	if !slices.Equal(courses.Extractors(), smelting.Extractors()) {
		t.Fatalf("courses accepts %q, smelting has %q", courses.Extractors(), smelting.Extractors())
	}
	if courses.DefaultExtractor != smelting.DefaultExtractor {
		t.Fatalf("default: courses %q, smelting %q", courses.DefaultExtractor, smelting.DefaultExtractor)
	}
	if p := smeltParams(&courses.Subject{}); p.Extractor != smelting.DefaultExtractor || len(p.Relations) != 0 {
		t.Fatalf("params of an unpinned subject: %+v", p)
	}
	if p := smeltParams(&courses.Subject{Extractor: smelting.PatternV2}); p.Extractor != smelting.PatternV2 {
		t.Fatalf("params of a pinned subject: %+v", p)
	}
}
