package deploytest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Image is the final stage of deploy/Dockerfile laid out on this machine:
// the binaries built as its build stage builds them, and every path the
// image's containers see mapped to where it is here. Nothing of it is
// written by hand: change the Dockerfile and the image changes with it.
type Image struct {
	Entrypoint []string
	WorkDir    string      // in the container
	Env        [][2]string // the image's ENV, in the container's terms
	User       string
	mounts     []mount // container path → local path, longest first
}

type mount struct{ container, local string }

// BuildImage reads the Dockerfile under root and lays its final stage out
// in work: each COPY from the build context maps its destination to the
// source in root (or to overlays[destination], a folder the test supplies
// instead, such as a courses folder with generated subjects); each COPY
// from the build stage maps to what that stage's RUN makes here: `go build
// … -o OUT PKGS` is run with the same outputs and packages, `mkdir -p DIR`
// makes DIR.
func BuildImage(ctx context.Context, root, dockerfile, work string, overlays map[string]string) (*Image, error) {
	df, err := ParseDockerfile(dockerfile)
	if err != nil {
		return nil, err
	}
	final := df.Final()
	img := &Image{WorkDir: "/", Env: final.Env()}
	if ep, ok := final.Last("ENTRYPOINT"); ok {
		img.Entrypoint = ep.Args
	}
	if wd, ok := final.Last("WORKDIR"); ok {
		img.WorkDir = wd.Args[0]
	}
	if u, ok := final.Last("USER"); ok {
		img.User = u.Args[0]
	}
	built := map[string]string{} // build stage path → local path
	for _, cp := range final.All("COPY") {
		dst := cp.Args[len(cp.Args)-1]
		for _, src := range cp.Args[:len(cp.Args)-1] {
			local, err := copySource(ctx, df, cp, src, root, work, built)
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", dockerfile, cp.Line, err)
			}
			target := dst
			if strings.HasSuffix(dst, "/") && !strings.HasSuffix(src, "/") {
				target = path.Join(dst, path.Base(src))
			}
			if o, ok := overlays[path.Clean(target)]; ok {
				local = o
			}
			img.mounts = append(img.mounts, mount{container: path.Clean(target), local: local})
		}
	}
	if err := os.MkdirAll(img.Local(img.WorkDir), 0o755); err != nil {
		return nil, err
	}
	img.sortMounts()
	return img, nil
}

// copySource is the local path of one COPY source.
func copySource(ctx context.Context, df *Dockerfile, cp Instruction, src, root, work string, built map[string]string) (string, error) {
	from, ok := cp.Flags["from"]
	if !ok {
		local := filepath.Join(root, filepath.FromSlash(src))
		if _, err := os.Stat(local); err != nil {
			return "", fmt.Errorf("COPY %s: %w", src, err)
		}
		return local, nil
	}
	stage := df.StageNamed(from)
	if stage == nil {
		return "", fmt.Errorf("COPY --from=%s: no such stage", from)
	}
	if len(built) == 0 {
		if err := runBuildStage(ctx, stage, root, work, built); err != nil {
			return "", err
		}
	}
	for p, local := range built {
		if path.Clean(src) == path.Clean(p) {
			return local, nil
		}
	}
	return "", fmt.Errorf("COPY --from=%s %s: the stage makes no such path", from, src)
}

// runBuildStage does here what the build stage's RUN instructions do that
// the final stage copies: go build and mkdir -p.
func runBuildStage(ctx context.Context, stage *Stage, root, work string, built map[string]string) error {
	for _, run := range stage.All("RUN") {
		for _, cmd := range strings.Split(run.Raw, "&&") {
			words := shellWords(cmd)
			for len(words) > 0 && strings.Contains(words[0], "=") {
				words = words[1:] // VAR=value before the command
			}
			switch {
			case len(words) > 2 && words[0] == "go" && words[1] == "build":
				out, pkgs := goBuildOutput(words[2:])
				if out == "" || len(pkgs) == 0 {
					return fmt.Errorf("RUN line %d: go build without -o DIR and packages", run.Line)
				}
				local := filepath.Join(work, "build", filepath.FromSlash(out))
				if err := os.MkdirAll(local, 0o755); err != nil {
					return err
				}
				gb := exec.CommandContext(ctx, "go", append([]string{"build", "-trimpath", "-o", local + string(filepath.Separator)}, pkgs...)...)
				gb.Dir = root
				gb.Env = append(os.Environ(), "CGO_ENABLED=0")
				if msg, err := gb.CombinedOutput(); err != nil {
					return fmt.Errorf("go build: %v\n%s", err, msg)
				}
				built[out] = local
			case len(words) > 2 && words[0] == "mkdir" && words[1] == "-p":
				for _, dir := range words[2:] {
					local := filepath.Join(work, "build", filepath.FromSlash(dir))
					if err := os.MkdirAll(local, 0o755); err != nil {
						return err
					}
					// The folder made, and its parent copied whole with "DIR/".
					built[dir] = local
					built[path.Dir(path.Clean(dir))+"/"] = filepath.Dir(local)
				}
			}
		}
	}
	return nil
}

// goBuildOutput reads -o and the packages from go build's arguments.
func goBuildOutput(args []string) (string, []string) {
	var out string
	var pkgs []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-o" && i+1 < len(args):
			out = args[i+1]
			i++
		case a == "-ldflags" || a == "-tags" || a == "-gcflags":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			pkgs = append(pkgs, a)
		}
	}
	return out, pkgs
}

// shellWords splits a command line into words, honouring quotes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func (img *Image) sortMounts() {
	sort.Slice(img.mounts, func(i, j int) bool { return len(img.mounts[i].container) > len(img.mounts[j].container) })
}

// With returns a copy of the image with more mounts (a pod's volumes); a
// mount at a path the image already maps replaces it.
func (img *Image) With(extra map[string]string) *Image {
	c := *img
	c.mounts = nil
	for _, m := range img.mounts {
		if _, over := extra[m.container]; !over {
			c.mounts = append(c.mounts, m)
		}
	}
	for container, local := range extra {
		c.mounts = append(c.mounts, mount{container: path.Clean(container), local: local})
	}
	c.sortMounts()
	return &c
}

// Local maps a container path to this machine; a path under no mount is
// returned as it is.
func (img *Image) Local(p string) string {
	for _, m := range img.mounts {
		if p == m.container {
			return m.local
		}
		if rest, ok := strings.CutPrefix(p, m.container+"/"); ok {
			return filepath.Join(m.local, filepath.FromSlash(rest))
		}
	}
	return p
}

// LocalValue maps a value that names a container path, plain or as a
// file:// URL.
func (img *Image) LocalValue(v string) string {
	if rest, ok := strings.CutPrefix(v, "file://"); ok && strings.HasPrefix(rest, "/") {
		return "file://" + img.Local(rest)
	}
	if strings.HasPrefix(v, "/") {
		return img.Local(v)
	}
	return v
}

// Mounted reports whether a container path lies under a mount.
func (img *Image) Mounted(p string) bool { return img.Local(p) != p }
