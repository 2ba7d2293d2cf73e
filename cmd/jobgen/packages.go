package main

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/gomod"
	"github.com/jobgen/jobgen/gen/python"
	"github.com/jobgen/jobgen/gen/typescript"
)

// jobgenModule is jobgen's own module, whose TypeScript and Python packages
// carry the one runtime every package jobgen generates imports (decisions
// 0143 and 0144).
const jobgenModule = "github.com/jobgen/jobgen"

// A modulePackages is what a module's jobgen.yaml names its TypeScript and
// Python packages, as jobgen generate in that module names them.
type modulePackages struct {
	ts typescript.Peer // the npm name and the version its package.json declares
	py string          // the Python package's import name
}

// packagesOf reads module m's jobgen.yaml leniently (a newer jobgen's
// config may hold keys this one does not know): its typescript.package and
// typescript.version, and its python.package, else the names its path gives
// (tsPackageName, pyPackageName) and version 0.0.0.
func packagesOf(m *gen.Module) modulePackages {
	var cfg struct {
		TypeScript struct {
			Package string `yaml:"package"`
			Version string `yaml:"version"`
		} `yaml:"typescript"`
		Python struct {
			Package string `yaml:"package"`
		} `yaml:"python"`
	}
	if data, err := fs.ReadFile(m.Files, configName); err == nil {
		_ = yaml.Unmarshal(data, &cfg) // a config it cannot read names nothing
	}
	p := modulePackages{ts: typescript.Peer{Name: cfg.TypeScript.Package, Version: cfg.TypeScript.Version}, py: cfg.Python.Package}
	if p.ts.Name == "" {
		p.ts.Name = tsPackageName(m.Path)
	}
	if p.ts.Version == "" {
		p.ts.Version = "0.0.0"
	}
	if p.py == "" {
		p.py = pyPackageName(m.Path)
	}
	return p
}

// namedPackages are modules with the names their jobgen.yaml gives their
// outputs' packages, so a backend can import another module's package.
type namedPackages struct{ gen.Modules }

// Module implements gen.Modules.
func (n namedPackages) Module(path string) (*gen.Module, error) {
	m, err := n.Modules.Module(path)
	if err != nil {
		return nil, err
	}
	if m.Packages == nil {
		p := packagesOf(m)
		m.Packages = map[string]string{"ts": p.ts.Name, "python": p.py}
	}
	return m, nil
}

// runtimePackages are the packages of jobgen's module as the module at
// dir requires it: the ones whose runtime the TypeScript and Python
// packages written there import. ok is false when dir is in no module or
// in jobgen's own, whose packages carry the runtime themselves.
func runtimePackages(dir string) (p modulePackages, ok bool, err error) {
	modDir, modPath, err := findModule(dir)
	if err != nil || modPath == "" || modPath == jobgenModule {
		return p, false, err
	}
	m, err := gomod.New(modDir).Module(jobgenModule)
	if err != nil {
		return p, false, fmt.Errorf("the generated packages import their runtime from jobgen's, of the %s the module requires: %w", jobgenModule, err)
	}
	return packagesOf(m), true, nil
}

// importedPackages are the TypeScript and Python packages of the other
// modules whose specs the specs import, directly or through specs of their
// own module, each once, in the order first met.
func importedPackages(specs []*gen.Resolved) []modulePackages {
	var out []modulePackages
	seen := map[string]bool{}
	var walk func(r *gen.Resolved)
	walk = func(r *gen.Resolved) {
		for _, im := range r.Spec().Imports {
			switch {
			case im.Imported == nil:
			case im.Foreign():
				if !seen[im.Found.Path] {
					seen[im.Found.Path] = true
					out = append(out, packagesOf(im.Found))
				}
			default:
				walk(im.Imported)
			}
		}
	}
	for _, r := range specs {
		walk(r)
	}
	return out
}

// withImportedPackages gives the TypeScript and Python packages among outs
// the packages of other modules their specs import, which their manifests
// declare.
func withImportedPackages(outs outputs, specs []*gen.Resolved) outputs {
	imported := importedPackages(specs)
	if len(imported) == 0 {
		return outs
	}
	outs = append(outputs(nil), outs...)
	for i, o := range outs {
		switch b := o.Backend.(type) {
		case typescript.Backend:
			for _, p := range imported {
				b.Peers = append(b.Peers, p.ts)
			}
			outs[i].Backend = b
		case python.Backend:
			for _, p := range imported {
				b.Requires = append(b.Requires, p.py)
			}
			outs[i].Backend = b
		}
	}
	return outs
}

// pyPackageName is the import name a module's Python package has when
// jobgen.yaml names none: the last element of its path (a major version
// suffix left out) in lower case, with _vocab, so github.com/jobgen/jobgen
// is jobgen_vocab and example.com/deployer deployer_vocab; without a
// module, python.DefaultPackage.
func pyPackageName(modPath string) string {
	elems := strings.Split(strings.ToLower(modPath), "/")
	if len(elems) > 1 && regexp.MustCompile(`^v[0-9]+$`).MatchString(elems[len(elems)-1]) {
		elems = elems[:len(elems)-1]
	}
	name := regexp.MustCompile(`[^a-z0-9_]+`).ReplaceAllString(elems[len(elems)-1], "_")
	name = strings.TrimLeft(name, "0123456789_")
	if name == "" {
		return python.DefaultPackage
	}
	return name + "_vocab"
}
