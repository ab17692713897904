// Package run is the Run stage. It holds the three parts between a composed
// course and its run record:
//
//   - run/compile turns the course's YAML into a typed plan;
//   - Runner (runner.go) drives a plan's steps through step functions, on
//     as many goroutines as it has step functions, and records what each
//     observed in step order, halting at the first state that breaks versor
//     closure; each recorded step's event is encoded as it is produced and
//     handed on, never held for the whole pass;
//   - DrivePlan (shim.go) is the thin shim over the real chat runtime: it
//     builds the course's knowledge index once and runs the whole plan twice,
//     each step in a fresh runtime session (a pool of runtimes over that one
//     index, Options.Jobs of them), writes the events object as it goes
//     (Options.Events), and takes the user's path too:
//     a seed, an introduction or a counter-claim probe whose own utterance,
//     typed as chat input, does not read as that step is not accepted (a
//     probe: counts as accepted) and is reported (Pass.Unreached).
//
// It never repairs a field state: a step whose committed state breaks closure
// halts the run, and the halt is a result, kept in the record. An input that
// cannot be run at all (a step the runtime cannot take, knowledge that does
// not index, packs the runtime refuses) is a typed *Error with a reason code
// and an exit code. The stage frame around it (cache, audit records, refs)
// is the pipeline's.
package run
