package markdown

import (
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestAnotherModulesTypesLinkToTheirGoPackage: the reference links a type
// of another module's spec to its Go package's documentation, since that
// module's reference is not beside this one.
func TestAnotherModulesTypesLinkToTheirGoPackage(t *testing.T) {
	files, err := Emit(gentest.LoadImportingBase(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(files.Content), "[`base.Who`](https://pkg.go.dev/example.com/base/generated/base#Who)"; !strings.Contains(got, want) {
		t.Errorf("the reference lacks %s:\n%s", want, got)
	}
}
