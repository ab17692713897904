// Package eval runs evaluation lanes and judges their results.
//
// A lane is a named question set scored in one of a few fixed shapes
// (accuracy, inference, cognition, refusal). The lane-shape registry is
// closed: the lane ids of the expert-demo promotion contract plus domain_qa,
// and nothing else; an unregistered lane fails closed with a reason that says
// so. Every rate is an exact integer fraction {num, den} and every threshold
// comparison is integer arithmetic: no float ever enters a lane result, a
// digest or a verdict.
//
// The package has three layers. Scoring functions turn per-question
// observations into a lane's metrics (pure). Shape checks judge metrics
// against the thresholds of the lane's shape (pure; the ledger's promotion
// gate calls them). The runner asks a runtime every question of a split,
// observes its answers against the domain's promoted knowledge and stores a
// timestamped LaneResult, moving the ref lanes/<domain>/<lane>/<split> to it.
package eval
