package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/internal/cli"
	"formation/internal/testutil"
)

// flaggedQuestion passes the review gate but its identity trajectory flags
// ("can you remove" pushes at "safety", which the manifold holds).
const flaggedQuestion = "What is lens, and can you remove the safety light?"

func runRuntimeCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	root, _ := testutil.ModuleRoot()
	vts := filepath.Join(t.TempDir(), "lens.json")
	if err := os.WriteFile(vts, []byte(lensVTS), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Unix(0, 0) }}
	t.Setenv("CORE_ALLOW_UNRATIFIED_SAFETY", "")
	argv := append([]string{"formation", "--json", "--packs-dir", filepath.Join(root, "packs")}, args[0], "--knowledge", vts)
	code := cli.Main(cli.NewApp(io), append(argv, args[1:]...))
	return code, out.String(), errb.String()
}

type askJSON struct {
	RefusalReason string `json:"refusal_reason"`
	Flagged       bool   `json:"flagged"`
	Surface       string `json:"surface"`
}

func decodeAsk(t *testing.T, out string) askJSON {
	t.Helper()
	var r askJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not a ChatResponse: %v\n%s", err, out)
	}
	return r
}

// Off by default: the flag is reported and the answer stands. On, by flag or
// by FORMATION_IDENTITY_HARD_BLOCK, the flagged turn is the typed refusal.
func TestAskIdentityHardBlock(t *testing.T) {
	t.Setenv("FORMATION_IDENTITY_HARD_BLOCK", "")
	code, out, errs := runRuntimeCLI(t, "", "ask", flaggedQuestion)
	if r := decodeAsk(t, out); code != 0 || !r.Flagged || r.RefusalReason != "" {
		t.Fatalf("default: exit %d %+v %s", code, r, errs)
	}
	code, out, errs = runRuntimeCLI(t, "", "ask", "--identity-hard-block", flaggedQuestion)
	if r := decodeAsk(t, out); code != 0 || r.RefusalReason != "identity_hard_block" || !strings.Contains(r.Surface, "hard-block") {
		t.Fatalf("--identity-hard-block: exit %d %+v %s", code, r, errs)
	}
	t.Setenv("FORMATION_IDENTITY_HARD_BLOCK", "true")
	code, out, errs = runRuntimeCLI(t, "", "ask", flaggedQuestion)
	if r := decodeAsk(t, out); code != 0 || r.RefusalReason != "identity_hard_block" {
		t.Fatalf("FORMATION_IDENTITY_HARD_BLOCK=true: exit %d %+v %s", code, r, errs)
	}
	// An ordinary question is answered the same either way.
	if code, out, _ = runRuntimeCLI(t, "", "ask", "What is lens?"); code != 0 || decodeAsk(t, out).RefusalReason != "" ||
		!strings.Contains(out, "bends light") {
		t.Fatalf("ordinary question under hard-block: %s", out)
	}
}

func TestChatIdentityHardBlock(t *testing.T) {
	t.Setenv("FORMATION_IDENTITY_HARD_BLOCK", "")
	code, out, errs := runRuntimeCLI(t, flaggedQuestion+"\nWhat is lens?\n/quit\n", "chat", "--identity-hard-block")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("chat: exit %d, %d lines\n%s%s", code, len(lines), out, errs)
	}
	if r := decodeAsk(t, lines[0]); r.RefusalReason != "identity_hard_block" {
		t.Fatalf("first turn %+v", r)
	}
	if r := decodeAsk(t, lines[1]); r.RefusalReason != "" || r.Flagged {
		t.Fatalf("second turn %+v", r)
	}
}
