package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"formation/artifact"
	"formation/audit"
	"formation/courses"
	"formation/internal/exitcode"
	"formation/mining"
	"formation/smelting"
	"formation/stage"
	"formation/store"
)

// Mine reads the subject's sources into an OreBundle, storing raw bytes and
// extracted texts as objects. A refused source halts the stage with one
// audit record per refused source and no bundle.
func (p *Pipeline) Mine(ctx context.Context, subject string) (stage.Result, error) {
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return stage.Result{}, err
	}
	fingerprint, files, err := p.sourceFingerprint(ctx, s)
	if err != nil {
		return stage.Result{}, err
	}
	llm := p.LLM
	if llm == nil {
		llm = mining.RecordedLLM{}
	}
	spec := mineSpec(subject, MineParams{Subject: Spec(s), SourceFiles: fingerprint,
		Extractor: mining.ExtractorVersion, EnableLLM: p.EnableLLM, LLMProvider: llm.Name()}, MineInputs{})
	spec.Files = files
	return p.Env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		opts := mining.Options{Jobs: p.Jobs, EnableLLM: p.EnableLLM, LLM: llm, Proposals: p.proposals(),
			IsTransient: func(err error) bool { return errors.Is(err, store.ErrUnavailable) || mining.DefaultIsTransient(err) }}
		if p.OnProgress != nil {
			opts.Progress = func(pr mining.Progress) {
				total := int64(0) // unknown until every source is listed: a growing total would move the bar back
				if pr.Listed {
					total = pr.Discovered
				}
				p.progress("mine", "files", pr.Done, total)
			}
		}
		res, err := mining.Mine(ctx, s, p.Env.Store, opts)
		var refused *mining.RefusedError
		if errors.As(err, &refused) {
			return stage.Output{}, refusalHalt(refused)
		}
		if err != nil {
			return stage.Output{}, err
		}
		p.logf("mine %s: %d entries, %d bytes read", subject, len(res.Bundle.Entries), res.Bytes)
		return stage.Output{Bytes: res.Canonical}, nil
	})
}

func refusalHalt(e *mining.RefusedError) *stage.Halt {
	recs := make([]audit.Record, 0, len(e.Refusals))
	for _, r := range e.Refusals {
		recs = append(recs, audit.Record{Kind: audit.KindRejection, ReasonCode: r.Code, Key: r.SourceID + " " + r.Path, Detail: r.Detail})
	}
	return &stage.Halt{Code: exitcode.Rejected, Reason: "sources_refused", Detail: e.Error(), Audit: recs}
}

// sourceFingerprint is the mine stage's SourceFiles parameter: the SHA-256 of the
// subject file and of every file its sources name (path, size and content
// digest, in path order). It reads the files but extracts and stores
// nothing, so an unchanged subject costs one pass of hashing. Anything it
// cannot read plainly (a link, a missing path) is folded in by name: mining
// itself then decides, and refuses. It also returns each file's own line of
// the fingerprint, by path, for --explain to name the file that changed.
func (p *Pipeline) sourceFingerprint(ctx context.Context, s *courses.Subject) (string, map[string]string, error) {
	h := sha256.New()
	files := []string{courses.SubjectFile}
	for _, src := range s.Sources {
		for _, rel := range []string{src.Path, src.Prompt} {
			if rel == "" {
				continue
			}
			found, err := walkFiles(s.Dir, rel)
			if err != nil {
				return "", nil, err
			}
			files = append(files, found...)
		}
	}
	sort.Strings(files)
	each := make(map[string]string, len(files))
	if hasProposals(s) {
		d, err := p.fingerprintProposals(ctx)
		if err != nil {
			return "", nil, err
		}
		each[proposalsIngredient] = d
		fmt.Fprintf(h, "%q %s\n", proposalsIngredient, d)
	}
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		fh := sha256.New()
		if err := hashFile(fh, filepath.Join(s.Dir, rel)); err != nil {
			fmt.Fprint(fh, "unreadable") // mining itself will refuse it, by name
		}
		line := hex.EncodeToString(fh.Sum(nil))
		each[rel] = line
		fmt.Fprintf(h, "%q %s\n", rel, line)
	}
	return hex.EncodeToString(h.Sum(nil)), each, nil
}

// walkFiles lists the regular files at rel (a file, or a folder walked
// without following links); other entries are listed by name only.
func walkFiles(dir, rel string) ([]string, error) {
	root := filepath.Join(dir, filepath.FromSlash(rel))
	info, err := os.Lstat(root)
	if err != nil || !info.IsDir() {
		return []string{filepath.ToSlash(rel)}, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		r, _ := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(r))
		return nil
	})
	return out, err
}

func hashFile(h io.Writer, path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		fmt.Fprintf(h, "mode:%v", info.Mode().Type())
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fh := sha256.New()
	n, err := io.Copy(fh, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%d %x", n, fh.Sum(nil))
	return nil
}

// oreTexts reads the text of every ore entry: its extracted text object, or
// its raw bytes when it needed no extraction.
func (p *Pipeline) oreTexts(ctx context.Context, spec stage.Spec, bundle artifact.OreBundle) (map[string][]byte, error) {
	keys := map[string]bool{}
	for _, e := range bundle.Entries {
		keys[smelting.TextKey(e)] = true
	}
	texts := make(map[string][]byte, len(keys))
	for _, e := range bundle.Entries {
		key := smelting.TextKey(e)
		if _, ok := texts[key]; ok {
			continue
		}
		b, err := stage.LoadBytes(ctx, p.Env, spec, key)
		if err != nil {
			return nil, err
		}
		texts[key] = b
		p.progress(spec.Stage, "texts read", int64(len(texts)), int64(len(keys)))
	}
	return texts, nil
}
