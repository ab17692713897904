package mining

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// manyDocs writes n small documents of three formats across nested folders.
func manyDocs(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		dir := fmt.Sprintf("corpus/d%02d/e%d", i%17, i%3)
		switch i % 3 {
		case 0:
			files[fmt.Sprintf("%s/f%05d.txt", dir, i)] = fmt.Sprintf("Item %d causes effect %d.\n", i, i+1)
		case 1:
			files[fmt.Sprintf("%s/f%05d.md", dir, i)] = fmt.Sprintf("# Item %d\n\nItem %d is a *thing*.\n", i, i)
		default:
			files[fmt.Sprintf("%s/f%05d.html", dir, i)] = fmt.Sprintf("<p>Item %d produces <b>light</b>.</p>", i)
		}
	}
	return files
}

func TestJobsDoNotChangeTheBundle(t *testing.T) {
	files := manyDocs(300)
	files["single.md"] = mdDoc
	subj := subjectDir(t, src("id", "corpus", "adapter", "folder", "path", "corpus")+src("id", "single", "adapter", "file", "path", "single.md"), files)
	var digests []string
	var canonical [][]byte
	for _, jobs := range []int{1, 8, 1, 3} {
		res, err := Mine(context.Background(), subj, newMemStore(), Options{Jobs: jobs})
		if err != nil {
			t.Fatalf("jobs=%d: %v", jobs, err)
		}
		if len(res.Bundle.Entries) != 301 {
			t.Fatalf("jobs=%d: %d entries", jobs, len(res.Bundle.Entries))
		}
		digests = append(digests, res.Digest)
		canonical = append(canonical, res.Canonical)
	}
	for i := 1; i < len(digests); i++ {
		if digests[i] != digests[0] || string(canonical[i]) != string(canonical[0]) {
			t.Fatalf("bundle differs between runs: %v", digests)
		}
	}
}

func TestProgressReports(t *testing.T) {
	subj := subjectDir(t, src("id", "corpus", "adapter", "folder", "path", "corpus"), manyDocs(40))
	var last Progress
	calls := 0
	_, err := Mine(context.Background(), subj, newMemStore(), Options{Jobs: 4, Progress: func(p Progress) {
		calls++
		if p.Done < last.Done || p.Bytes < last.Bytes {
			t.Errorf("progress went backwards: %+v after %+v", p, last)
		}
		last = p
	}})
	if err != nil {
		t.Fatal(err)
	}
	// One call per item, and one more when the listing finished after the
	// last item did.
	if calls < 40 || calls > 41 || last.Done != 40 || last.Discovered != 40 || !last.Listed || last.Bytes == 0 || last.Refused != 0 {
		t.Errorf("final progress %+v after %d calls", last, calls)
	}
}

func TestCancelledMine(t *testing.T) {
	subj := subjectDir(t, src("id", "corpus", "adapter", "folder", "path", "corpus"), manyDocs(50))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Mine(ctx, subj, newMemStore(), Options{Jobs: 2})
	if res != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled mine returns the context's error and no bundle: %v %v", res, err)
	}
}
