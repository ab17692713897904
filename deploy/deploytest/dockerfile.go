package deploytest

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// Instruction is one Dockerfile instruction, its continuation lines joined.
type Instruction struct {
	Line  int
	Cmd   string            // upper case: FROM, COPY, RUN, ENV, …
	Flags map[string]string // --from=…, --chown=… (COPY)
	Args  []string          // the words after the flags (JSON form read as such)
	Raw   string            // the text after the command
}

// Stage is one FROM and the instructions under it.
type Stage struct {
	Image string
	Name  string
	Steps []Instruction
}

// Dockerfile is a parsed Dockerfile: its build stages in order.
type Dockerfile struct {
	Stages []Stage
}

// ParseDockerfile reads the instructions of a Dockerfile (comments, blank
// lines and backslash continuations handled; no parser directives).
func ParseDockerfile(file string) (*Dockerfile, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	df := &Dockerfile{}
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		text := strings.TrimSpace(lines[i])
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if strings.HasPrefix(next, "#") {
				continue
			}
			text = strings.TrimSuffix(text, "\\") + " " + next
		}
		ins, err := parseInstruction(start+1, text)
		if err != nil {
			return nil, err
		}
		if ins.Cmd == "FROM" {
			st := Stage{Image: ins.Args[0]}
			if len(ins.Args) == 3 && strings.EqualFold(ins.Args[1], "AS") {
				st.Name = ins.Args[2]
			}
			df.Stages = append(df.Stages, st)
			continue
		}
		if len(df.Stages) == 0 {
			return nil, fmt.Errorf("line %d: %s before FROM", ins.Line, ins.Cmd)
		}
		last := &df.Stages[len(df.Stages)-1]
		last.Steps = append(last.Steps, ins)
	}
	if len(df.Stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM", file)
	}
	return df, nil
}

func parseInstruction(line int, text string) (Instruction, error) {
	cmd, rest, _ := strings.Cut(text, " ")
	ins := Instruction{Line: line, Cmd: strings.ToUpper(cmd), Flags: map[string]string{}, Raw: strings.TrimSpace(rest)}
	words := strings.Fields(ins.Raw)
	for len(words) > 0 && strings.HasPrefix(words[0], "--") {
		k, v, _ := strings.Cut(strings.TrimPrefix(words[0], "--"), "=")
		ins.Flags[k] = v
		words = words[1:]
	}
	body := strings.Join(words, " ")
	if strings.HasPrefix(body, "[") {
		if err := json.Unmarshal([]byte(body), &ins.Args); err != nil {
			return ins, fmt.Errorf("line %d: %s: %w", line, ins.Cmd, err)
		}
	} else {
		ins.Args = words
	}
	if len(ins.Args) == 0 {
		return ins, fmt.Errorf("line %d: %s without arguments", line, ins.Cmd)
	}
	return ins, nil
}

// Final is the last stage: the image that runs.
func (d *Dockerfile) Final() *Stage { return &d.Stages[len(d.Stages)-1] }

// StageNamed returns the build stage of that name.
func (d *Dockerfile) StageNamed(name string) *Stage {
	for i := range d.Stages {
		if d.Stages[i].Name == name {
			return &d.Stages[i]
		}
	}
	return nil
}

// All returns the stage's instructions of one command.
func (s *Stage) All(cmd string) []Instruction {
	var out []Instruction
	for _, in := range s.Steps {
		if in.Cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// Env is the stage's ENV, in order (KEY=VALUE pairs; the old "KEY VALUE"
// form too).
func (s *Stage) Env() [][2]string {
	var out [][2]string
	for _, in := range s.All("ENV") {
		if !strings.Contains(in.Args[0], "=") {
			out = append(out, [2]string{in.Args[0], strings.Join(in.Args[1:], " ")})
			continue
		}
		for _, kv := range in.Args {
			k, v, _ := strings.Cut(kv, "=")
			out = append(out, [2]string{k, strings.Trim(v, `"`)})
		}
	}
	return out
}

// Last returns the last instruction of cmd in the stage (USER, WORKDIR,
// ENTRYPOINT take effect from the last one).
func (s *Stage) Last(cmd string) (Instruction, bool) {
	all := s.All(cmd)
	if len(all) == 0 {
		return Instruction{}, false
	}
	return all[len(all)-1], true
}

// IgnoreRules are the patterns of a .dockerignore file, in order.
type IgnoreRules []ignoreRule

type ignoreRule struct {
	exclude bool // false: a "!" exception
	re      *regexp.Regexp
}

// ParseDockerignore reads a .dockerignore file: one pattern a line,
// comments and blank lines skipped, "!" for an exception, "*", "?" and "**"
// as Docker reads them; a pattern that names a folder covers all beneath.
func ParseDockerignore(file string) (IgnoreRules, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rules IgnoreRules
	for _, line := range strings.Split(string(raw), "\n") {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		r := ignoreRule{exclude: true}
		if strings.HasPrefix(p, "!") {
			r.exclude, p = false, strings.TrimSpace(p[1:])
		}
		p = strings.TrimPrefix(path.Clean("/"+p), "/")
		r.re = regexp.MustCompile("^" + globRegexp(p) + "(/.*)?$")
		rules = append(rules, r)
	}
	return rules, nil
}

func globRegexp(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			b.WriteString(".*")
			i++
			if i+1 < len(p) && p[i+1] == '/' {
				b.WriteString("/?")
				i++
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// Excluded reports whether a path of the build context (slash-separated,
// relative to its root) is left out of it: the last matching rule decides.
func (rs IgnoreRules) Excluded(rel string) bool {
	out := false
	for _, r := range rs {
		if r.re.MatchString(rel) {
			out = r.exclude
		}
	}
	return out
}
