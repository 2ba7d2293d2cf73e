package main

import (
	"fmt"

	"github.com/jobgen/jobgen/gen/python"
)

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
	if b.Package == "" {
		return b, nil
	}
	if err := python.CheckPackage(b.Package); err != nil {
		return b, fmt.Errorf("%s: python.package: %w", cfg.file, err)
	}
	return b, nil
}
