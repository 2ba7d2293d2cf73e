package jsonschema

import (
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestAnotherModulesTypesAreReferencedByTheirPackagePath: a type of another
// module's spec is a $ref to that module's schema below this one, at its Go
// package's import path (decision 0090).
func TestAnotherModulesTypesAreReferencedByTheirPackagePath(t *testing.T) {
	files, err := Emit(gentest.LoadImportingBase(t))
	if err != nil {
		t.Fatal(err)
	}
	got := string(files.Content)
	for _, want := range []string{
		`"$ref": "example.com/base/generated/base.schema.json#/$defs/BaseID"`,
		`"$ref": "example.com/base/generated/base.schema.json#/$defs/Who"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the schema lacks %s:\n%s", want, got)
		}
	}
}
