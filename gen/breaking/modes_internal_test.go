package breaking

import (
	"testing"

	"github.com/jobgen/jobgen/gen"
)

// Every rule that can be reported says the mode it breaks, so no finding
// prints Mode(0) and none falls out of every --mode.
func TestEveryRuleBreaksAMode(t *testing.T) {
	for _, r := range gen.Rules() {
		if r.ID == gen.RuleAllowanceUnused {
			continue // of no category: always reported
		}
		m, ok := ruleModes[r.ID]
		if !ok || (m != Backward && m != Forward && m != Full) {
			t.Errorf("rule %s has no mode in ruleModes (%v)", r.ID, m)
		}
	}
}
