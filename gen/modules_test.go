package gen_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
)

// fakeModules is a module graph: the modules it holds, by path.
type fakeModules map[string]*gen.Module

func (f fakeModules) Module(path string) (*gen.Module, error) {
	if m, ok := f[path]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("%s is not required by example.com/app; add it with go get %s", path, path)
}

// baseModule is a module whose spec another module imports: a spec that
// imports a spec beside it, and one that imports a third module's.
func baseModule() fakeModules {
	return fakeModules{
		"example.com/base": {Path: "example.com/base", Version: "v1.2.0", Dir: "/mod/example.com/base@v1.2.0", Files: fstest.MapFS{
			"spec/base.yaml": {Data: []byte("jobgen: 1\npackage: {name: base, path: example.com/base/generated/base}\nimports: {ids: {spec: ids.yaml}}\nrecords:\n  Who: {fields: {id: ids.BaseID}}\n")},
			"spec/ids.yaml":  {Data: []byte("jobgen: 1\npackage: {name: ids, path: example.com/base/generated/ids}\nids:\n  BaseID: {kind: uuid}\n")},
			"spec/far.yaml":  {Data: []byte("jobgen: 1\npackage: {name: far, path: example.com/base/generated/far}\nimports: {x: {module: example.com/third, spec: x.yaml}}\nrecords:\n  Far: {fields: {x: x.X}}\n")},
		}},
		"example.com/third": {Path: "example.com/third", Dir: "/work/third", Files: fstest.MapFS{
			"x.yaml": {Data: []byte("jobgen: 1\npackage: {name: x, path: example.com/third/x}\nenums:\n  X: {values: {a: {}}}\n")},
		}},
		"example.com/app": {Path: "example.com/app", Dir: "/work/app", Main: true, Files: fstest.MapFS{
			"spec/ids.yaml": {Data: []byte("jobgen: 1\npackage: {name: ids, path: example.com/app/generated/ids}\nids:\n  AppID: {kind: string}\n")},
		}},
	}
}

// appSpec imports the spec of module, at spec, as base, and uses base.name.
func appSpec(module, spec, name string) []byte {
	return fmt.Appendf(nil, `jobgen: 1
package: {name: app, path: example.com/app/generated/app}
imports:
  base: {module: %s, spec: %s}
facts:
  app/did:
    versions:
      v1:
        fields:
          who: base.%s
`, module, spec, name)
}

func TestSpecsImportOtherModulesSpecs(t *testing.T) {
	r, err := gen.LoadFS(fstest.MapFS{}, "spec/app.yaml", appSpec("example.com/base", "spec/base.yaml", "Who"), gen.WithModules(baseModule()))
	if err != nil {
		t.Fatal(err)
	}
	im := r.Spec().Imports[0]
	if im.Found == nil || im.Found.Path != "example.com/base" || !im.Foreign() || im.Path != "example.com/base/generated/base" {
		t.Fatalf("import = %+v", im)
	}
	// The base spec's own import, beside it in the module, is of the module too.
	inner := im.Imported.Spec().Imports[0]
	if inner.Found == nil || inner.Found.Path != "example.com/base" || inner.Imported.Spec().Index().IDs["BaseID"] == nil {
		t.Fatalf("the imported spec's import = %+v", inner)
	}
	// A module's spec may import a third module's: the importing module's
	// graph finds it.
	r, err = gen.LoadFS(fstest.MapFS{}, "spec/app.yaml", appSpec("example.com/base", "spec/far.yaml", "Far"), gen.WithModules(baseModule()))
	if err != nil {
		t.Fatal(err)
	}
	if far := r.Spec().Imports[0].Imported.Spec().Imports[0]; far.Found.Path != "example.com/third" || !far.Foreign() {
		t.Fatalf("the third module's import = %+v", far)
	}
	// A spec importing its own module by its path is not foreign.
	r, err = gen.LoadFS(fstest.MapFS{}, "spec/app.yaml", appSpec("example.com/app", "spec/ids.yaml", "AppID"), gen.WithModules(baseModule()))
	if err != nil {
		t.Fatal(err)
	}
	if im := r.Spec().Imports[0]; im.Foreign() || im.Found == nil || !im.Found.Main {
		t.Fatalf("an import of the module itself = %+v, want one that is not foreign", im)
	}
}

func TestModuleImportErrorsArePositioned(t *testing.T) {
	cases := []struct {
		name    string
		spec    []byte
		modules gen.Modules
		want    string
	}{
		{"no modules", appSpec("example.com/base", "spec/base.yaml", "Who"), nil,
			"spec/app.yaml:4:18: imports.base.module: example.com/base: no Modules to find the module with"},
		{"a module the app does not require", appSpec("example.com/other", "spec/base.yaml", "Who"), baseModule(),
			"spec/app.yaml:4:18: imports.base.module: example.com/other is not required by example.com/app; add it with go get example.com/other"},
		{"a spec the module does not have", appSpec("example.com/base", "spec/bsae.yaml", "Who"), baseModule(),
			"spec/app.yaml:4:42: imports.base.spec: example.com/base v1.2.0 has no spec spec/bsae.yaml; did you mean spec/base.yaml?"},
		{"a name the required version does not declare", appSpec("example.com/base", "spec/base.yaml", "Whom"), baseModule(),
			"spec/app.yaml:10:16: base.Whom: spec/base.yaml of example.com/base v1.2.0, the version the module requires, declares no Whom; did you mean Who?; a later version may (go get example.com/base@latest)"},
		{"a path outside the module", appSpec("example.com/base", "../base.yaml", "Who"), baseModule(),
			"spec/app.yaml:4:42: imports.base.spec: ../base.yaml must be a slash-separated path below the module's root"},
		{"a module path that is a directory", appSpec("./base", "spec/base.yaml", "Who"), baseModule(),
			`spec/app.yaml:4:18: imports.base.module: "./base" is not a Go module path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := gen.LoadFS(fstest.MapFS{}, "spec/app.yaml", c.spec, gen.WithModules(c.modules))
			var list gen.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("err = %v, want an ErrorList", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err =\n%v\nwant it to hold\n%s", err, c.want)
			}
		})
	}
}

func TestImportedModuleSpecErrorsNameTheModulesFile(t *testing.T) {
	mods := baseModule()
	mods["example.com/base"].Files.(fstest.MapFS)["spec/bad.yaml"] = &fstest.MapFile{Data: []byte("jobgen: 1\npackage: {name: bad, path: example.com/base/bad}\nrecords:\n  R: {fields: {x: Nope}}\n")}
	_, err := gen.LoadFS(fstest.MapFS{}, "spec/app.yaml", appSpec("example.com/base", "spec/bad.yaml", "R"), gen.WithModules(mods))
	if err == nil || !strings.Contains(err.Error(), "/mod/example.com/base@v1.2.0/spec/bad.yaml:4:") {
		t.Fatalf("err = %v, want the imported spec's error at its file in the module", err)
	}
}
