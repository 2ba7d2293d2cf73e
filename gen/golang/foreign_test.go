package golang

import (
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestAnotherModulesTypesComeFromItsPackage: Go code uses another module's
// types from the package its spec generates there, as it does a spec's of
// its own module.
func TestAnotherModulesTypesComeFromItsPackage(t *testing.T) {
	files, err := Emit(gentest.LoadImportingBase(t))
	if err != nil {
		t.Fatal(err)
	}
	var facts string
	for _, f := range files {
		if strings.HasSuffix(f.Path, "facts.gen.go") {
			facts = string(f.Content)
		}
	}
	for _, want := range []string{`"example.com/base/generated/base"`, "ID  base.BaseID", "Who base.Who"} {
		if !strings.Contains(facts, want) {
			t.Errorf("facts.gen.go lacks %s:\n%s", want, facts)
		}
	}
}
