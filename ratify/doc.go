// Package ratify is the pure core of the ratify stage: it measures gates G1–G6
// on the two runs of a course's plan and returns the self-sealed
// MasteryReport. It reads nothing and writes nothing; the command around it
// loads the inputs from the store, and the orchestrator (package pipeline)
// supplies the G2 results by re-running every mastered course through the
// current runtime.
//
// The gates follow the original system (its gate names and order, its ratio
// strings, its threshold "1.0") with these corrections:
//
//   - A halted run never ratifies: the halt is an input and fails G1 with the
//     halt reason. G1 also fails when a run does not replay the plan step for
//     step, or records a versor condition outside closure.
//   - A course that teaches nothing is refused, not reported: a plan without
//     steps or a validated set without a concept, relation or counter-claim
//     is a nothing_to_teach *Error.
//   - G2 passes when every previously mastered course, re-run now, still
//     passes its behavioural gates; it reports deferred:no_prior_courses only
//     while the mastered-courses index is empty, and fails naming every
//     regressed course otherwise.
//   - G3–G6 consider both runs: a gate passes only when it passes on each.
//     The measurement is that of the worse run (the first run on a tie), so
//     two identical runs measure exactly as the original's single run did.
//   - No gate passes as a plain n/a. With nothing to measure a gate fails with
//     a code that says what the runs lacked (no probe run: G3; no seed,
//     introduction or walk run: G4; no step: G5), or, when the validated set
//     holds nothing of the kind it measures, passes naming what is absent
//     (G4 "n/a:no_concepts_or_relations", G6 "n/a:no_relations"), as G2 does
//     with deferred:no_prior_courses. Relations that were not walked, or
//     walks of triples outside the validated set, fail G6.
//   - The inputs are cross-checked: the plan names the course and its digest,
//     plan_sha256 is the plan's own digest, and validated_set_sha is the digest
//     of the set given. A mismatch is an *Error, never a report.
//
// The stage never decodes a run record or a plan whole: RunRecordReader and
// ReadPlan read the stored bytes one step at a time (refusing exactly what
// artifact.Decode refuses, with its error), and a Gauge measures the gates
// as the steps go past, keeping per step only the first pass's trace hash,
// the walked relations and, for the plan, each step's type and canonical
// payload bytes. A result that carries its plan step's payload byte for
// byte (as every result the run stage writes does) is taken without
// decoding that payload. Ratify feeds whole runs through the same Gauge.
//
// issued_at is an input (from --issued-at or the subject file), never the
// clock, so equal inputs give byte-identical reports.
package ratify
