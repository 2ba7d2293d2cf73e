package registry

import (
	"fmt"
	"maps"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
)

// checkLabels says what is wrong with a start's labels, "" when nothing: at
// most jobs.DefaultMaxLabels of them, each key non-empty, each key and
// value at most jobs.DefaultMaxLabelBytes bytes of valid UTF-8 without
// control characters (the bounds spec/jobs.yaml declares), so that a label
// shows on one line of the console and filters as typed (decision 0210).
func checkLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	if len(labels) > jobs.DefaultMaxLabels {
		return fmt.Sprintf("%d labels, more than %d", len(labels), jobs.DefaultMaxLabels)
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		v := labels[k]
		switch {
		case k == "":
			return "a label with an empty key"
		case len(k) > jobs.DefaultMaxLabelBytes || len(v) > jobs.DefaultMaxLabelBytes:
			return fmt.Sprintf("label %.16q: key or value longer than %d bytes", k, jobs.DefaultMaxLabelBytes)
		case !printable(k) || !printable(v):
			return fmt.Sprintf("label %.16q: not printable UTF-8", k)
		}
	}
	return ""
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// cloneLabels copies a start's labels, so that the caller's map, which it
// may change, is not the job's; an empty map is none.
func cloneLabels(labels map[string]string) map[string]string {
	if len(labels) == 0 {
		return nil
	}
	return maps.Clone(labels)
}
