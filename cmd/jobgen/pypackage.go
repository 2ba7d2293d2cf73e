package main

import (
	"fmt"
	"path/filepath"

	"github.com/jobgen/jobgen/gen/python"
)

// pySettings are jobgen.yaml's python: key, what the Python package
// (outputs.python) is besides its modules.
type pySettings struct {
	// Package is the import name of the package the modules go in; unset,
	// pyPackageName of the module the package is written in.
	Package string `yaml:"package"`
}

// pyBackend is the Python backend writing in dir of root (see
// python.Backend), as cfg (nil without a config file) configures it: a
// package of jobgen's module carries the runtime, any other imports it from
// jobgen's package (decision 0144).
func pyBackend(cfg *config, root, dir string) (python.Backend, error) {
	b := python.Backend{Dir: dir}
	if cfg != nil {
		b.Package = cfg.Python.Package
	}
	if b.Package != "" {
		if err := python.CheckPackage(b.Package); err != nil {
			return b, fmt.Errorf("%s: python.package: %w", cfg.file, err)
		}
	}
	where := filepath.Join(root, dir)
	if b.Package == "" {
		_, modPath, err := findModule(where)
		if err != nil {
			return b, err
		}
		b.Package = pyPackageName(modPath)
	}
	rt, ok, err := runtimePackages(where)
	switch {
	case err != nil:
		return b, fmt.Errorf("the Python package: %w", err)
	case ok && rt.py == b.Package:
		return b, fmt.Errorf("the Python package is named %s, as jobgen's, whose runtime it imports; name it in jobgen.yaml (python.package)", b.Package)
	case ok:
		b.Runtime = rt.py
	}
	return b, nil
}
