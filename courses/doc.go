// Package courses is the subject folder model: the files under
// courses/<subject_id>/ that mine, forge, compose and eval read, and the
// domain table courses/domains.yaml.
//
// A subject folder holds subject.yaml (the SubjectSpec fields, the template
// id, retrieved_at and the source list), the sources themselves,
// allowlist.yaml (owned by forge) and questions/{public,holdout,dev}.jsonl.
// README.md documents every field.
//
// Loading is strict and fails closed: YAML files are read with unknown fields
// refused, duplicate keys, aliases, custom tags and floats refused, and every
// problem found is reported at once in a *ValidationError (each Problem
// carries a stable reason code), so a command can write one audit record per
// problem. This package only checks what a file says; whether a source's
// path really stays inside the subject folder is decided by the miner when it
// opens the file, because only then is the answer reliable.
package courses
