package mining

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"formation/artifact"
	"formation/courses"
)

// Result is a finished mine.
type Result struct {
	Bundle    artifact.OreBundle
	Canonical []byte // the bundle's canonical JSON (what the store keeps)
	Digest    string // source_bundle_sha: SHA-256 of Canonical
	Bytes     int64  // raw bytes read from the sources
}

// Mine reads every source of subj, stores raw bytes and extracted texts
// through w, and returns the OreBundle. If any source is refused it returns
// a *RefusedError naming all of them and no bundle; any other failure (the
// store, the file system, a cancelled context) is returned wrapped.
func Mine(ctx context.Context, subj *courses.Subject, w ObjectWriter, opt Options) (*Result, error) {
	if subj == nil || subj.Dir == "" {
		return nil, errors.New("mining: the subject must be loaded from its folder (courses.Load)")
	}
	sfs, err := openSubjectFS(subj.Dir)
	if err != nil {
		return nil, err
	}
	defer sfs.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := &miner{subj: subj, fs: sfs, w: w, opt: opt}
	mined, refusals, bytesRead, err := m.run(ctx, cancel)
	if err == nil {
		// Only the caller can have cancelled ctx without a worker error, and
		// then items were skipped: never return a bundle that lacks them.
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	refusals = append(refusals, duplicateEntries(mined)...)
	if len(refusals) > 0 {
		sortRefusals(refusals)
		return nil, &RefusedError{SubjectID: subj.SubjectID, Refusals: refusals}
	}
	return bundleOf(subj.SubjectID, mined, bytesRead)
}

// jobKind says how a work item is read.
type jobKind int

const (
	jobDocument  jobKind = iota // a text, Markdown or HTML file (file, folder, snapshot)
	jobTable                    // an Arrow or Parquet table
	jobLLM                      // an LLM generation
	jobProposals                // the accepted teaching proposals of the store
)

// job is one work item: one file, one table or one LLM source.
type job struct {
	kind   jobKind
	src    courses.Source
	path   string // subject-relative file; "" for an LLM source
	format string
}

// mined is one entry with the source it came from (for duplicate reports).
type mined struct {
	entry  artifact.OreEntry
	source string
	path   string
}

// outcome is what a work item (or the lister) reports to the collector.
type outcome struct {
	mined    []mined
	refusals []Refusal
	bytes    int64
	done     bool // a work item finished (the lister's refusals are not items)
	err      error
}

type miner struct {
	subj       *courses.Subject
	fs         *subjectFS
	w          ObjectWriter
	opt        Options
	discovered atomic.Int64
	listed     atomic.Bool
}

// run starts the lister and the workers and collects their outcomes. The
// first hard error cancels everything; refusals are all collected.
func (m *miner) run(ctx context.Context, cancel context.CancelFunc) ([]mined, []Refusal, int64, error) {
	jobs := make(chan job, m.opt.jobs())
	results := make(chan outcome, m.opt.jobs())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		m.list(ctx, jobs, results)
	}()
	for range m.opt.jobs() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain after a failure
				}
				results <- m.work(ctx, j)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	return m.collect(results, cancel)
}

func (m *miner) collect(results <-chan outcome, cancel context.CancelFunc) ([]mined, []Refusal, int64, error) {
	var all []mined
	var refusals []Refusal
	var firstErr error
	var p Progress
	for o := range results {
		if o.err != nil && firstErr == nil {
			firstErr = o.err
			cancel()
		}
		all = append(all, o.mined...)
		refusals = append(refusals, o.refusals...)
		p.Bytes += o.bytes
		p.Refused += int64(len(o.refusals))
		if o.done {
			p.Done++
		}
		if m.opt.Progress != nil {
			p.Discovered, p.Listed = m.discovered.Load(), m.listed.Load()
			m.opt.Progress(p)
		}
	}
	if m.opt.Progress != nil && !p.Listed && firstErr == nil {
		// The last item can finish before the lister has marked the
		// listing done; the results are closed only after it has, so the
		// final count is now the total.
		p.Discovered, p.Listed = m.discovered.Load(), m.listed.Load()
		m.opt.Progress(p)
	}
	return all, refusals, p.Bytes, firstErr
}

// list enumerates the work items of every source, in subject order. Sources
// that are refused before any reading (an llm source while LLM sources are
// off, a folder that is not one) are reported here.
func (m *miner) list(ctx context.Context, jobs chan<- job, results chan<- outcome) {
	defer m.listed.Store(true)
	send := func(j job) bool {
		m.discovered.Add(1)
		select {
		case jobs <- j:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, src := range m.subj.Sources {
		var refused []Refusal
		switch src.Adapter {
		case courses.AdapterFile, courses.AdapterSnapshot, courses.AdapterTable:
			format, ok := courses.FormatOf(src)
			if !ok {
				refused = append(refused, Refusal{src.ID, src.Path, CodeUnsupported, "cannot tell the format"})
				break
			}
			kind := jobDocument
			if src.Adapter == courses.AdapterTable {
				kind = jobTable
			}
			if !send(job{kind: kind, src: src, path: src.Path, format: format}) {
				return
			}
		case courses.AdapterLLM:
			if !m.opt.EnableLLM {
				refused = append(refused, Refusal{src.ID, "", CodeLLMDisabled, "LLM sources are off; enable them with --enable-llm-source or remove the source"})
				break
			}
			if !send(job{kind: jobLLM, src: src}) {
				return
			}
		case courses.AdapterProposals:
			if !send(job{kind: jobProposals, src: src}) {
				return
			}
		case courses.AdapterFolder:
			var err error
			refused, err = m.listFolder(ctx, src, send)
			if err != nil {
				results <- outcome{err: err}
				return
			}
		default:
			refused = append(refused, Refusal{src.ID, "", CodeUnsupported, fmt.Sprintf("adapter %q", src.Adapter)})
		}
		if len(refused) > 0 {
			results <- outcome{refusals: refused}
		}
	}
}

// listFolder sends one job per file below a folder source and returns the
// refusals met on the way (every one of them, up to the file limit).
func (m *miner) listFolder(ctx context.Context, src courses.Source, send func(job) bool) ([]Refusal, error) {
	var refused []Refusal
	maxFiles := m.subj.LimitsOf(src).MaxFiles
	var n int64
	errStop := errors.New("stop")
	err := m.fs.walkFolder(ctx, src.Path, func(p string, _ int64) error {
		if n++; n > maxFiles {
			refused = append(refused, Refusal{src.ID, src.Path, CodeTooManyFiles, fmt.Sprintf("more than %d files", maxFiles)})
			return errStop
		}
		format, ok := courses.DocumentFormat(p)
		if !ok {
			refused = append(refused, Refusal{src.ID, p, CodeUnsupported, "not a .txt, .md, .markdown, .html or .htm file"})
			return nil
		}
		if !send(job{kind: jobDocument, src: src, path: p, format: format}) {
			return ctx.Err()
		}
		return nil
	}, func(p string, err error) {
		refused = append(refused, refusalOf(src.ID, p, err))
	})
	var r *refusal
	switch {
	case err == nil, errors.Is(err, errStop):
		return refused, nil
	case errors.As(err, &r):
		return append(refused, refusalOf(src.ID, src.Path, err)), nil
	case ctx.Err() != nil:
		return refused, nil // the collector already holds the error that cancelled
	}
	return refused, fmt.Errorf("mining: source %s: list %s: %w", src.ID, src.Path, err)
}

// refusalOf turns a reader's error into a Refusal naming the source; it is
// only called with errors that are refusals.
func refusalOf(sourceID, path string, err error) Refusal {
	var r *refusal
	if errors.As(err, &r) {
		return Refusal{SourceID: sourceID, Path: path, Code: r.code, Detail: r.detail}
	}
	return Refusal{SourceID: sourceID, Path: path, Code: CodeUnreadable, Detail: err.Error()}
}

// work reads one item. A refusal becomes part of the outcome; any other
// error is a hard error of the whole mine.
func (m *miner) work(ctx context.Context, j job) outcome {
	var o outcome
	var err error
	switch j.kind {
	case jobDocument:
		err = m.document(ctx, j, &o)
	case jobTable:
		err = m.table(ctx, j, &o)
	case jobLLM:
		err = m.llm(ctx, j, &o)
	case jobProposals:
		err = m.proposals(ctx, j, &o)
	}
	o.done = true
	var r *refusal
	switch {
	case err == nil:
	case errors.As(err, &r):
		o.mined = nil
		where := j.path
		if where == "" {
			where = j.src.Path
		}
		o.refusals = append(o.refusals, refusalOf(j.src.ID, where, err))
	default:
		o.err = fmt.Errorf("mining: source %s (%s): %w", j.src.ID, j.path, err)
	}
	return o
}

// readFile reads a subject file with retries for transient faults.
func (m *miner) readFile(ctx context.Context, rel string, limit int64) ([]byte, error) {
	var data []byte
	err := m.opt.retry(ctx, func() error {
		var err error
		data, err = m.fs.readFile(ctx, rel, limit)
		return err
	})
	return data, err
}

// put stores data, retrying transient faults, and checks that the store
// named it by the digest we computed.
func (m *miner) put(ctx context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	err := m.opt.retry(ctx, func() error {
		got, size, err := m.w.PutReader(ctx, bytes.NewReader(data))
		if err != nil {
			return err
		}
		if got != want || size != int64(len(data)) {
			return fmt.Errorf("object writer stored %d bytes as %s, expected %d bytes as %s", size, got, len(data), want)
		}
		return nil
	})
	return want, err
}

func (m *miner) entry(j job, sha string, n int64) artifact.OreEntry {
	return artifact.OreEntry{
		SourceSHA:   sha,
		Adapter:     j.src.Adapter,
		RetrievedAt: m.subj.RetrievedAtOf(j.src),
		ByteLength:  n,
		Citation:    j.src.Citation,
	}
}

// document mines one text, Markdown or HTML file (of a file, folder or
// snapshot source).
func (m *miner) document(ctx context.Context, j job, o *outcome) error {
	raw, err := m.readFile(ctx, j.path, m.subj.LimitsOf(j.src).MaxFileBytes)
	if err != nil {
		return err
	}
	o.bytes = int64(len(raw))
	if j.src.Adapter == courses.AdapterSnapshot {
		sum := sha256.Sum256(raw)
		if got := hex.EncodeToString(sum[:]); got != j.src.SHA256 {
			return refuse(CodeSnapshotHash, "%s hashes to %s, the pinned SHA-256 is %s", j.path, got, j.src.SHA256)
		}
	}
	text, err := Extract(j.format, raw)
	if err != nil {
		return err
	}
	sha, err := m.put(ctx, raw)
	if err != nil {
		return err
	}
	e := m.entry(j, sha, int64(len(raw)))
	e.URL = fileURL(j.path)
	if j.src.Adapter == courses.AdapterSnapshot {
		e.URL = j.src.URL
	}
	if j.format != courses.FormatText {
		if e.TextSHA, err = m.put(ctx, text); err != nil {
			return err
		}
	}
	o.mined = append(o.mined, mined{entry: e, source: j.src.ID, path: j.path})
	return nil
}

// table mines a table: the file is one raw object, each row's text its own
// text object and its own entry.
func (m *miner) table(ctx context.Context, j job, o *outcome) error {
	lim := m.subj.LimitsOf(j.src)
	raw, err := m.readFile(ctx, j.path, lim.MaxFileBytes)
	if err != nil {
		return err
	}
	o.bytes = int64(len(raw))
	rows, err := readTable(ctx, raw, tableSpec{format: j.format, textColumn: j.src.TextColumn, idColumn: j.src.IDColumn, maxRows: lim.MaxRows})
	if err != nil {
		return err
	}
	sha, err := m.put(ctx, raw)
	if err != nil {
		return err
	}
	for _, row := range rows {
		e := m.entry(j, sha, int64(len(row.text)))
		e.URL = fileURL(j.path) + "#" + url.QueryEscape(j.src.IDColumn) + "=" + url.QueryEscape(row.id)
		if e.TextSHA, err = m.put(ctx, []byte(row.text)); err != nil {
			return err
		}
		o.mined = append(o.mined, mined{entry: e, source: j.src.ID, path: j.path})
	}
	return nil
}

// llm mines one LLM source: the prompt and the generation are both stored;
// the entry records the model and the prompt's digest.
func (m *miner) llm(ctx context.Context, j job, o *outcome) error {
	limit := m.subj.LimitsOf(j.src).MaxFileBytes
	prompt, err := m.readFile(ctx, j.src.Prompt, limit)
	if err != nil {
		return err
	}
	promptSHA, err := m.put(ctx, prompt)
	if err != nil {
		return err
	}
	req := LLMRequest{SourceID: j.src.ID, Model: j.src.Model, Prompt: prompt, Output: j.src.Path, MaxBytes: limit, ReadFile: m.fs.readFile}
	var gen []byte
	err = m.opt.retry(ctx, func() error {
		var err error
		gen, err = m.opt.llm().Generate(ctx, req)
		return err
	})
	if err != nil {
		return err
	}
	if int64(len(gen)) > limit {
		return refuse(CodeTooLarge, "the generation has %d bytes, the limit is %d", len(gen), limit)
	}
	if _, err := Extract(courses.FormatText, gen); err != nil {
		return err
	}
	o.bytes = int64(len(gen))
	sha, err := m.put(ctx, gen)
	if err != nil {
		return err
	}
	e := m.entry(j, sha, int64(len(gen)))
	e.URL = "llm:" + j.src.ID
	e.Adapter = artifact.AdapterLLMPrefix + j.src.Model
	e.Model, e.PromptSHA = j.src.Model, promptSHA
	o.mined = append(o.mined, mined{entry: e, source: j.src.ID, path: j.src.Path})
	return nil
}

// fileURL names a subject file: "file:" and its subject-relative path with
// each segment escaped, so the URL is the same on every machine.
func fileURL(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "file:" + strings.Join(segs, "/")
}

func compareMined(a, b mined) int {
	return cmp.Or(cmp.Compare(a.entry.URL, b.entry.URL), cmp.Compare(a.source, b.source),
		cmp.Compare(a.entry.SourceSHA, b.entry.SourceSHA), cmp.Compare(a.entry.TextSHA, b.entry.TextSHA))
}

// duplicateEntries refuses a second source that yields an entry another
// source already yields (the same file listed twice, or a folder holding a
// file listed on its own): the bundle must not count one text twice.
func duplicateEntries(all []mined) []Refusal {
	slices.SortFunc(all, compareMined)
	var out []Refusal
	for i := 1; i < len(all); i++ {
		if all[i].entry.URL == all[i-1].entry.URL {
			out = append(out, Refusal{all[i].source, all[i].path, CodeDuplicateEntry,
				fmt.Sprintf("%s is also mined by source %s", all[i].entry.URL, all[i-1].source)})
		}
	}
	return out
}

// bundleOf builds the bundle from entries already sorted by duplicateEntries.
func bundleOf(subjectID string, all []mined, bytesRead int64) (*Result, error) {
	b := artifact.OreBundle{SubjectID: subjectID, Entries: make([]artifact.OreEntry, len(all)), SchemaVersion: artifact.SchemaVersion}
	for i, x := range all {
		b.Entries[i] = x.entry
	}
	data, err := artifact.Encode(b)
	if err != nil {
		return nil, fmt.Errorf("mining: encode bundle: %w", err)
	}
	sum := sha256.Sum256(data)
	return &Result{Bundle: b, Canonical: data, Digest: hex.EncodeToString(sum[:]), Bytes: bytesRead}, nil
}
