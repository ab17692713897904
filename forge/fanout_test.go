package forge

import (
	"fmt"
	"strings"
	"testing"

	"formation/artifact"
)

// A head given more tails under one relation than a walk answers loses the
// whole pair to quarantine, each relation with a fanout_exceeded finding;
// at the bound, and under another relation or head, nothing changes.
func TestFanoutQuarantinesTheWholePair(t *testing.T) {
	f := newFixture(t)
	var rels []artifact.RelationCandidate
	add := func(head string, n int) {
		for i := range n {
			tail := fmt.Sprintf("spark %d", i)
			rels = append(rels, rc(head, "produces", tail, f.cite(primarySHA, fmt.Sprintf("A %s produces %s.", head, tail))))
		}
	}
	add("lamp", MaxFanout+1)
	add("candle", MaxFanout)
	rels = append(rels, rc("lamp", "causes", "glare", f.cite(primarySHA, "A lamp causes glare.")))
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: rels})

	kept := map[string]int{}
	for _, r := range res.VTS.Relations {
		kept[r.Head+" "+r.Relation]++
	}
	if kept["candle produces"] != MaxFanout || kept["lamp causes"] != 1 || kept["lamp produces"] != 0 {
		t.Fatalf("validated per pair: %v", kept)
	}
	quarantined := 0
	for _, q := range res.VTS.Quarantined {
		if q.RejectionReason != ReasonFanoutExceeded || q.Head != "lamp" || q.Relation != "produces" || q.State != artifact.StateQuarantined {
			t.Fatalf("quarantined %+v", q)
		}
		quarantined++
		fd, ok := findingFor(res, KindRelation, relKey(q.Head, q.Relation, q.Tail), ReasonFanoutExceeded)
		if !ok || !fd.SpanChecked || !strings.Contains(fd.Detail, fmt.Sprintf("%d validated tails", MaxFanout+1)) {
			t.Fatalf("finding for %v: %+v %v", q.Triple(), fd, ok)
		}
	}
	if quarantined != MaxFanout+1 {
		t.Fatalf("%d quarantined, want %d", quarantined, MaxFanout+1)
	}
}
