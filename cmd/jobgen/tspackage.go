package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/typescript"
)

// tsSettings are jobgen.yaml's typescript: key, what the TypeScript package
// (outputs.ts) is besides its modules. See decision 0097.
type tsSettings struct {
	// Package is the package's npm name; unset, it is tsPackageName of the
	// module the package is written in.
	Package string `yaml:"package"`
	// Version is the package's version; unset, 0.0.0.
	Version string `yaml:"version"`
	// Modules are hand-written modules the package carries: each is the
	// path of a compiled JavaScript module (NAME.mjs) with its declarations
	// beside it (NAME.d.mts), exported as <package>/NAME.
	Modules []string `yaml:"modules"`
}

// tsBackend is the TypeScript backend writing under root, in dir (see
// typescript.Backend), as cfg (nil without a config file) configures it.
func tsBackend(cfg *config, root, dir string) (typescript.Backend, error) {
	b := typescript.Backend{Dir: dir}
	var set tsSettings
	if cfg != nil {
		set = cfg.TypeScript
	}
	b.Package, b.Version = set.Package, set.Version
	switch {
	case b.Package == "":
		_, modPath, err := findModule(filepath.Join(root, dir))
		if err != nil {
			return b, err
		}
		b.Package = tsPackageName(modPath)
	case !npmName.MatchString(b.Package):
		return b, fmt.Errorf("%s: typescript.package %q is not an npm package name (lower case, as @scope/name or name)", cfg.file, b.Package)
	}
	rt, ok, err := runtimePackages(filepath.Join(root, dir))
	switch {
	case err != nil:
		return b, fmt.Errorf("the TypeScript package: %w", err)
	case ok && rt.ts.Name == b.Package:
		return b, fmt.Errorf("the TypeScript package is named %s, as jobgen's, whose runtime it imports; name it in jobgen.yaml (typescript.package)", b.Package)
	case ok:
		b.Runtime = rt.ts
	}
	for _, m := range set.Modules {
		mod, err := tsModule(cfg.path(m), root)
		if err != nil {
			return b, fmt.Errorf("%s: typescript.modules: %w", cfg.file, err)
		}
		b.Modules = append(b.Modules, mod)
	}
	return b, nil
}

// tsModule reads a hand-written module, NAME.mjs and NAME.d.mts, for a
// package under root.
func tsModule(file, root string) (typescript.Module, error) {
	name, ok := strings.CutSuffix(filepath.Base(file), ".mjs")
	if !ok {
		return typescript.Module{}, fmt.Errorf("%s: name the module's compiled JavaScript, NAME.mjs", file)
	}
	js, err := os.ReadFile(file)
	if err != nil {
		return typescript.Module{}, fmt.Errorf("%w (compile the module first)", err)
	}
	decl, err := os.ReadFile(strings.TrimSuffix(file, ".mjs") + ".d.mts")
	if err != nil {
		return typescript.Module{}, fmt.Errorf("%w (compile the module with its declarations)", err)
	}
	o, err := gen.NewOrigin(root, file)
	if err != nil {
		return typescript.Module{}, err
	}
	return typescript.Module{Name: name, Origin: o, JS: js, Declarations: decl}, nil
}

// npmName is what npm accepts as a package name.
var npmName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// tsPackageName is the npm name a module's TypeScript package has when
// jobgen.yaml names none: @owner/name for a module path host/owner/.../name
// (a major version suffix left out), so github.com/jobgen/jobgen is
// @jobgen/jobgen; the path itself for a one-element path; "" for none.
func tsPackageName(modPath string) string {
	elems := strings.Split(strings.ToLower(modPath), "/")
	if len(elems) > 2 && regexp.MustCompile(`^v[0-9]+$`).MatchString(elems[len(elems)-1]) {
		elems = elems[:len(elems)-1]
	}
	if len(elems) > 0 && strings.Contains(elems[0], ".") {
		elems = elems[1:] // the host
	}
	clean := func(s string) string {
		s = regexp.MustCompile(`[^a-z0-9._~-]+`).ReplaceAllString(s, "-")
		return strings.TrimLeft(s, "._~-")
	}
	switch {
	case len(elems) == 0 || clean(elems[len(elems)-1]) == "":
		return ""
	case len(elems) == 1 || clean(elems[0]) == "":
		return clean(elems[len(elems)-1])
	}
	return "@" + clean(elems[0]) + "/" + clean(elems[len(elems)-1])
}
