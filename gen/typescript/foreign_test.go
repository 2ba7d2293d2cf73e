package typescript

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gentest"
)

// TestAnotherModulesModuleIsImportedFromItsPackage: a spec of another Go
// module is imported from that module's TypeScript package,
// OTHER/<package.name>, in the source, the JavaScript and the declarations
// alike (CONVENTIONS-25 §2, decision 0090).
func TestAnotherModulesModuleIsImportedFromItsPackage(t *testing.T) {
	mods := gentest.BaseModule()
	mods["example.com/base"].Packages = map[string]string{"ts": "@base/vocab"}
	r, err := gen.LoadFS(fstest.MapFS{}, "app.yaml", []byte(gentest.ImportingBase), gen.WithModules(mods))
	if err != nil {
		t.Fatal(err)
	}
	if errs := (Backend{}).Check(r); len(errs) > 0 {
		t.Fatal(errs)
	}
	files, err := Emit(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if got := string(f.Content); !strings.Contains(got, `from "@base/vocab/base";`) || strings.Contains(got, `"./base`) {
			t.Errorf("%s does not import base from @base/vocab/base:\n%s", f.Path, got)
		}
	}
}

func TestAnotherModulesPackageMustHaveAName(t *testing.T) {
	errs := (Backend{}).Check(gentest.LoadImportingBase(t))
	if len(errs) != 1 || !strings.Contains(errs.Error(), "app.yaml:4:18: imports.base.module: the TypeScript package of example.com/base v1.2.0 has no name") {
		t.Fatalf("Check = %v, want the import refused at its module", errs)
	}
}
