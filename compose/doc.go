// Package compose is the pure core of the Compose stage: it renders a
// validated triple set through one of five course templates into a course
// body, writes that body as canonical YAML, and names the result by the
// SHA-256 of those bytes.
//
// The YAML form is the original system's canonical YAML, byte for byte,
// with three deliberate differences that only touch strings the original
// wrote in a form a YAML loader reads back differently:
//
//   - every YAML 1.1 boolean spelling (TRUE, YES, No, on, y, N, …) is quoted,
//     not only the lower- and title-case ones the original listed;
//   - a string is written plain only if it matches the plain pattern over the
//     whole string (the original's pattern also admitted a trailing newline)
//     and does not end in ':' (which a loader takes for a mapping key);
//   - inside double quotes every character a YAML reader rejects or folds
//     (C0 and C1 controls, DEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF) is
//     escaped as \xHH or \uHHHH, so the emitted text always loads back.
//
// Strings the original quoted or wrote plain correctly keep their bytes, so
// every conformance vector without a recorded emitter defect is reproduced
// exactly. Two template defects are fixed as well: composed_relation counts
// its two-relation minimum after de-duplication, and identity_anchor merges
// concepts that share a term instead of keeping whichever came last.
//
// Beyond the original, Compose refuses a source_bundle_sha that is not 64
// lowercase hex characters and a subject spec naming another subject than
// the validated set, and the emitter writes a nil value as null (the
// original wrote the string "null"; templates never produce nil).
//
// Render returns the body; Compose renders, emits and fills the Course
// record. The run stage compiles from the YAML bytes, so the round trip
// (emitted YAML loads back to exactly the rendered body) is what makes the
// two views agree; the tests and FuzzEmitYAML hold the emitter to it.
package compose
