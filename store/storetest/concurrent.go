package storetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"formation/store"
)

// Environment of a helper process (the test binary re-executed).
const (
	envHelper = "FORMATION_STORETEST_HELPER"
	envURL    = "FORMATION_STORETEST_URL"
	envRef    = "FORMATION_STORETEST_REF"
	envCount  = "FORMATION_STORETEST_COUNT"
)

const (
	goroutineWorkers = 8
	processWorkers   = 2
	casTimeout       = 60 * time.Second
)

// HelperMain runs the helper role when the test binary was started as one of
// the suite's worker processes, and exits; otherwise it returns at once. Call
// it first thing in TestMain.
func HelperMain() {
	if os.Getenv(envHelper) != "cas" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), casTimeout)
	defer cancel()
	n, err := strconv.Atoi(os.Getenv(envCount))
	if err != nil {
		fmt.Fprintln(os.Stderr, "storetest helper: bad count:", err)
		os.Exit(2)
	}
	st, err := store.Open(ctx, os.Getenv(envURL))
	if err != nil {
		fmt.Fprintln(os.Stderr, "storetest helper:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	if err := awaitRef(ctx, st, os.Getenv(envRef)); err != nil {
		fmt.Fprintln(os.Stderr, "storetest helper:", err)
		os.Exit(1)
	}
	res, err := increment(ctx, st, os.Getenv(envRef), n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storetest helper:", err)
		os.Exit(1)
	}
	fmt.Printf("successes=%d conflicts=%d\n", res.successes, res.conflicts)
	os.Exit(0)
}

// awaitRef waits until the parent creates the counter: the start signal.
func awaitRef(ctx context.Context, st store.Store, ref string) error {
	for {
		_, _, err := st.GetRef(ctx, ref)
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

type casResult struct{ successes, conflicts int }

// increment adds one to the decimal counter in ref n times, re-reading and
// retrying whenever it loses a compare-and-swap race.
func increment(ctx context.Context, st store.Store, ref string, n int) (casResult, error) {
	var res casResult
	for res.successes < n {
		val, ver, err := st.GetRef(ctx, ref)
		if err != nil {
			return res, err
		}
		cur, err := strconv.Atoi(string(val))
		if err != nil {
			return res, fmt.Errorf("counter %q: %w", val, err)
		}
		_, err = st.SetRef(ctx, ref, ver, []byte(strconv.Itoa(cur+1)))
		switch {
		case err == nil:
			res.successes++
		case errors.Is(err, store.ErrPrecondition):
			res.conflicts++
		default:
			return res, err
		}
	}
	return res, nil
}

// testConcurrentCAS races 8 goroutines and 2 processes on one counter: the
// final value must equal the number of successful increments. All workers
// are started first and released together by the counter's creation.
func (s *suite) testConcurrentCAS(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	const ref = "cache/storetest/counter"
	var (
		mu    sync.Mutex
		total casResult
		errs  []error
		wg    sync.WaitGroup
	)
	add := func(r casResult, err error) {
		mu.Lock()
		defer mu.Unlock()
		total.successes += r.successes
		total.conflicts += r.conflicts
		if err != nil {
			errs = append(errs, err)
		}
	}
	start := make(chan struct{})
	for range processWorkers {
		h, err := startHelper(st.String(), ref, s.increments)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { add(h.wait()) })
	}
	for range goroutineWorkers {
		wg.Go(func() {
			<-start
			add(increment(ctx, st, ref, s.increments))
		})
	}
	if _, err := st.SetRef(ctx, ref, "", []byte("0")); err != nil {
		t.Fatal(err)
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	val, _, err := st.GetRef(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	want := (goroutineWorkers + processWorkers) * s.increments
	if string(val) != strconv.Itoa(total.successes) || total.successes != want {
		t.Fatalf("counter = %s, successful increments = %d, want both %d", val, total.successes, want)
	}
	t.Logf("%d increments by %d goroutines and %d processes, %d lost races retried",
		total.successes, goroutineWorkers, processWorkers, total.conflicts)
}

// helper is a running worker process.
type helper struct {
	cmd    *exec.Cmd
	out    *bufio.Scanner
	stderr *strings.Builder
}

// startHelper re-executes the test binary as an incrementing worker and
// returns once it has opened the store.
func startHelper(url, ref string, n int) (*helper, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"=cas", envURL+"="+url, envRef+"="+ref, envCount+"="+strconv.Itoa(n))
	h := &helper{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = h.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h.out = bufio.NewScanner(stdout)
	if !h.out.Scan() || h.out.Text() != "ready" {
		_, err := h.wait()
		return nil, fmt.Errorf("helper did not get ready: %w", err)
	}
	return h, nil
}

// wait collects the worker's tally.
func (h *helper) wait() (casResult, error) {
	var lines []string
	for h.out.Scan() {
		lines = append(lines, h.out.Text())
	}
	if err := h.cmd.Wait(); err != nil {
		return casResult{}, fmt.Errorf("helper process: %w: %s", err, h.stderr.String())
	}
	var r casResult
	last := strings.Join(lines, "\n")
	if _, err := fmt.Sscanf(last, "successes=%d conflicts=%d", &r.successes, &r.conflicts); err != nil {
		return casResult{}, fmt.Errorf("helper output %q: %w", last, err)
	}
	return r, nil
}
