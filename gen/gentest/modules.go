package gentest

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
)

// Modules is a module graph for tests of specs that import other modules'
// specs: the modules it holds, by path. A module it does not hold is not
// required.
type Modules map[string]*gen.Module

// Module implements gen.Modules.
func (m Modules) Module(path string) (*gen.Module, error) {
	if mod, ok := m[path]; ok {
		return mod, nil
	}
	return nil, fmt.Errorf("%s is not required by the importing module", path)
}

// BaseModule is module example.com/base at v1.2.0, whose spec/base.yaml
// (package base, example.com/base/generated/base) declares the id BaseID,
// the enum Level and the record Who.
func BaseModule() Modules {
	return Modules{"example.com/base": {Path: "example.com/base", Version: "v1.2.0", Dir: "/mod/example.com/base@v1.2.0", Files: fstest.MapFS{
		"spec/base.yaml": {Data: []byte(`jobgen: 1
package: {name: base, path: example.com/base/generated/base}
ids:
  BaseID: {kind: uuid}
enums:
  Level: {values: {low: {}, high: {}}}
records:
  Who: {fields: {id: BaseID, level: Level}}
`)},
	}}}
}

// ImportingBase is a spec, app.yaml, whose fact's fields are of BaseModule's
// types.
const ImportingBase = `jobgen: 1
package: {name: app, path: example.com/app/generated/app}
imports:
  base: {module: example.com/base, spec: spec/base.yaml}
facts:
  app/did:
    versions:
      v1:
        fields:
          id: base.BaseID
          who: base.Who
`

// LoadImportingBase loads ImportingBase with BaseModule.
func LoadImportingBase(t *testing.T) *gen.Resolved {
	t.Helper()
	r, err := gen.LoadFS(fstest.MapFS{}, "app.yaml", []byte(ImportingBase), gen.WithModules(BaseModule()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
