package reviewed

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"formation/ident"
	"formation/internal/exitcode"
	"formation/store"
)

// Finding is one thing wrong with the reviewed state.
type Finding struct {
	Object string `json:"object"` // the state, object or ref concerned
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// VerifyChain checks the reviewed state: the head and its objects load
// (Load), then VerifyFrom walks the chain. It returns the head snapshot
// (empty when the head itself cannot be read) and one finding per problem;
// the error is for a store that cannot be read at all.
func VerifyChain(ctx context.Context, s store.Store) (Snapshot, []Finding, error) {
	snap, err := Load(ctx, s)
	if err != nil {
		f, ok := findingOf(StateRef, err)
		if !ok {
			return Snapshot{}, nil, err
		}
		return Snapshot{}, []Finding{f}, nil
	}
	findings, err := VerifyFrom(ctx, s, snap)
	return snap, findings, err
}

// VerifyFrom walks the chain from a loaded head back to seq 0: every state
// is stored intact, well formed, numbered one less than the state after it,
// and names only objects the store holds. A legacy store (state 0 not yet
// written) and an empty one have no chain to walk.
func VerifyFrom(ctx context.Context, s store.Store, snap Snapshot) ([]Finding, error) {
	if snap.Empty() || snap.Legacy {
		return nil, nil
	}
	var findings []Finding
	digest, seq := snap.Head, snap.State.Seq
	for digest != "" {
		st, err := ReadState(ctx, s, digest)
		if err != nil {
			f, ok := findingOf(digest.String(), err)
			if !ok {
				return findings, err
			}
			return append(findings, f), nil
		}
		if st.Seq != seq {
			return append(findings, Finding{Object: digest.String(), Reason: ReasonBrokenChain,
				Detail: fmt.Sprintf("state has seq %d where the chain expects %d", st.Seq, seq)}), nil
		}
		missing, err := missingObjects(ctx, s, st)
		if err != nil {
			return findings, err
		}
		for _, m := range missing {
			findings = append(findings, Finding{Object: m, Reason: ReasonDanglingState,
				Detail: fmt.Sprintf("state %s (seq %d) names an object the store does not hold", digest, st.Seq)})
		}
		digest, seq = st.Previous, seq-1
	}
	return findings, nil
}

// missingObjects lists the objects a state names that the store lacks.
func missingObjects(ctx context.Context, s store.Store, st State) ([]string, error) {
	names := []string{st.Knowledge.String(), st.Index.String()}
	for _, env := range st.Promotions {
		names = append(names, env.String())
	}
	slices.Sort(names)
	var missing []string
	for _, d := range slices.Compact(names) {
		ok, err := s.Has(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("reviewed: %w", err)
		}
		if !ok {
			missing = append(missing, d)
		}
	}
	return missing, nil
}

// findingOf turns a refusal of this package into a finding.
func findingOf(object string, err error) (Finding, bool) {
	var e *Error
	if !errors.As(err, &e) {
		return Finding{}, false
	}
	return Finding{Object: object, Reason: e.Reason, Detail: e.Detail}, true
}

// CheckHead compares the head with the digest an operator pinned (nothing to
// compare when expect is ""). A different head means the reviewed state
// moved since the pin, or was rolled back: exit 77.
func CheckHead(snap Snapshot, expect string) error {
	if expect == "" {
		return nil
	}
	want, err := ident.ParseDigest(expect)
	if err != nil {
		return refuse(exitcode.Usage, ReasonHeadMismatch, "expected head: %v", err)
	}
	if snap.Head != want {
		head := snap.Head.String()
		if head == "" {
			head = "(no reviewed state)"
		}
		return refuse(exitcode.SealInvalid, ReasonHeadMismatch,
			"%s is %s, not the pinned %s: the reviewed state changed since the pin, or was rolled back", StateRef, head, expect)
	}
	return nil
}
