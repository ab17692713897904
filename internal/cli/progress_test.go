//go:build linux

package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"formation/internal/cli"
)

// openPTY opens a pseudo-terminal: the master to read what was drawn and
// the terminal side to give the command as its stderr.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// drawn runs formation with stderr on a terminal and returns what the
// terminal received.
func drawn(t *testing.T, args ...string) string {
	t.Helper()
	master, tty := openPTY(t)
	var buf bytes.Buffer
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	var out bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: tty, Now: time.Now}
	if code := cli.Main(cli.NewApp(io), append([]string{"formation"}, args...)); code != 0 {
		t.Fatalf("formation %v: exit %d", args, code)
	}
	time.Sleep(100 * time.Millisecond) // let the terminal drain
	tty.Close()
	master.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return buf.String()
}

var barCount = regexp.MustCompile(`(mine: files|smelt: texts read|smelt: texts smelted|forge: candidates|run: steps)[^(\r\n]*\((\d+)/(\d+|-)`)

// On a terminal every long stage draws a bar counting its real units, and
// no count ever goes back; with --json, -q or CI=true nothing is drawn, and
// nothing is when stderr is not a terminal.
func TestProgressBarsOnATerminalOnly(t *testing.T) {
	workspace(t)
	screen := drawn(t, "autorun", "optics")
	last := map[string]int{}
	for _, m := range barCount.FindAllStringSubmatch(screen, -1) {
		n, _ := strconv.Atoi(m[2])
		if n < last[m[1]] {
			t.Fatalf("%s went back from %d to %d", m[1], last[m[1]], n)
		}
		last[m[1]] = n
	}
	for _, bar := range []string{"mine: files", "run: steps"} {
		if last[bar] == 0 {
			t.Errorf("no %s bar drawn:\n%q", bar, screen)
		}
	}
	if m := runSteps.FindStringSubmatch(screen); last["run: steps"] != 0 && (m == nil || !strings.Contains(screen, "/"+strconv.Itoa(2*atoi(m[1]))+")")) {
		t.Errorf("run steps counted against another total than the plan's steps of both passes: %q", screen)
	}
	t.Logf("terminal:\n%q", screen)
	// Each case on a fresh store, so that every stage runs.
	for i, quiet := range [][]string{{"--json"}, {"-q"}} {
		if s := drawn(t, append([]string{"autorun", "optics", "--store", fmt.Sprint("q", i)}, quiet...)...); barCount.MatchString(s) {
			t.Errorf("a bar under %v: %q", quiet, s)
		}
	}
	t.Setenv("CI", "true")
	if s := drawn(t, "autorun", "optics", "--store", "ci"); barCount.MatchString(s) {
		t.Errorf("a bar under CI=true: %q", s)
	}
	t.Setenv("CI", "")
	var piped bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &piped, Now: time.Now}
	if cli.Main(cli.NewApp(io), []string{"formation", "autorun", "optics", "--store", "piped"}) != 0 || barCount.MatchString(piped.String()) {
		t.Errorf("a bar on a pipe: %q", piped.String())
	}
}

// chat shows its "> " prompt when stdin is a terminal (and, piped, it does
// not: TestChatLongLineAndPrompt).
func TestChatPromptsOnATerminal(t *testing.T) {
	workspace(t)
	master, tty := openPTY(t)
	if _, err := master.WriteString("/quit\n"); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: tty, Stdout: &out, Stderr: &errb, Now: time.Now}
	if code := cli.Main(cli.NewApp(io), []string{"formation", "chat"}); code != 0 || !strings.HasSuffix(errb.String(), "> ") {
		t.Fatalf("chat on a terminal: exit %d, stderr %q", code, errb.String())
	}
}

// runSteps finds the run stage's step count in its log line.
var runSteps = regexp.MustCompile(`run optics: (\d+) steps`)

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
