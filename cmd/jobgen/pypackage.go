package main

import "github.com/jobgen/jobgen/gen/python"

// pySettings are jobgen.yaml's python: key, what the Python package
// (outputs.python) is besides its modules.
type pySettings struct {
	// Package is the import name of the package the modules go in; unset,
	// python.DefaultPackage.
	Package string `yaml:"package"`
}

// pyBackend is the Python backend writing in dir of its root (see
// python.Backend), as cfg (nil without a config file) configures it.
func pyBackend(cfg *config, dir string) (python.Backend, error) {
	b := python.Backend{Dir: dir}
	if cfg == nil {
		return b, nil
	}
	b.Package = cfg.Python.Package
	return b, nil
}
