package reviewed

import (
	"slices"
	"strings"

	"formation/artifact"
	"formation/internal/exitcode"
)

// EmptyIndex is the mastered-courses index before the first promotion.
func EmptyIndex() artifact.MasteredCoursesIndex {
	return artifact.MasteredCoursesIndex{Entries: []artifact.MasteredCourseEntry{}, SchemaVersion: artifact.SchemaVersion}
}

// IndexEntry finds a course in the index.
func IndexEntry(idx artifact.MasteredCoursesIndex, courseID string) (artifact.MasteredCourseEntry, bool) {
	i := slices.IndexFunc(idx.Entries, func(e artifact.MasteredCourseEntry) bool { return e.CourseID == courseID })
	if i < 0 {
		return artifact.MasteredCourseEntry{}, false
	}
	return idx.Entries[i], true
}

// AddEntry records a promotion in the index: a new course, or the
// replacement of exactly the report it supersedes. The same report again is
// no change (changed == false).
func AddEntry(idx artifact.MasteredCoursesIndex, e artifact.MasteredCourseEntry, replaces string) (next artifact.MasteredCoursesIndex, changed bool, err error) {
	old, found := IndexEntry(idx, e.CourseID)
	switch {
	case found && old.ReportSHA256 == e.ReportSHA256:
		return idx, false, nil
	case found && old.ReportSHA256 != replaces:
		return idx, false, refuse(exitcode.Unavailable, ReasonConcurrentChange,
			"course %s is now promoted under report %s (this promotion expected %q); retry", e.CourseID, old.ReportSHA256, replaces)
	case !found && replaces != "":
		return idx, false, refuse(exitcode.Unavailable, ReasonConcurrentChange,
			"course %s left the index while this promotion superseded %s; retry", e.CourseID, replaces)
	}
	next = EmptyIndex()
	for _, x := range idx.Entries {
		if x.CourseID != e.CourseID {
			next.Entries = append(next.Entries, x)
		}
	}
	next.Entries = append(next.Entries, e)
	slices.SortFunc(next.Entries, func(a, b artifact.MasteredCourseEntry) int { return strings.Compare(a.CourseID, b.CourseID) })
	return next, true, nil
}
