package gen

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// An entry under imports: is a Go package (alias: import/path), another
// spec (alias: {spec: file.yaml}) or another module's spec (alias: {module:
// example.com/mod, spec: spec/file.yaml}). A spec import makes the other
// spec's declarations usable as alias.Name; the generated code imports the
// package that spec generates. readImports reads each imported spec in full,
// and the validator resolves every alias.Name against it.

// importEntry reads one entry of the imports section.
func (l *loader) importEntry(e entry) *Import {
	what := "imports." + e.key
	im := &Import{Alias: e.key, Pos: l.pos(e.keyNode)}
	val := resolve(e.val)
	if val.Kind == yaml.MappingNode {
		m := l.object(val, what, "spec", "module")
		s, ok := l.need(m, "spec", e.keyNode, what, "the other spec's file, as in {spec: jobs.yaml}")
		if !ok {
			return nil
		}
		if im.Spec, ok = l.str(s.val, what+".spec"); !ok {
			return nil
		}
		im.SpecPos = l.pos(resolve(s.val))
		if im.Spec == "" {
			l.add(s.val, "%s.spec: name the spec file, as in {spec: jobs.yaml}", what)
			return nil
		}
		if mod, ok := m["module"]; ok {
			if im.Module, ok = l.str(mod.val, what+".module"); !ok {
				return nil
			}
			im.ModulePos = l.pos(resolve(mod.val))
			if im.Module == "" || strings.ContainsAny(im.Module, " \t\\") || strings.HasPrefix(im.Module, "/") || strings.HasPrefix(im.Module, ".") {
				l.add(mod.val, "%s.module: %q is not a Go module path; write the path the module's go.mod declares, as in {module: github.com/jobgen/jobgen, spec: spec/jobs.yaml}", what, im.Module)
				return nil
			}
		}
		return im
	}
	if val.Kind != yaml.ScalarNode || val.Tag != "!!str" {
		l.add(val, "%s: expected a Go import path, {spec: file.yaml} or {module: path, spec: file.yaml}, found %s", what, describe(val))
		return nil
	}
	im.Path = val.Value
	return im
}

// readImports reads and validates every spec s imports, from dir, the
// directory of s, or from the module an import names. chain is how the load
// reached s; a spec already on it is an import cycle.
func readImports(s *Spec, dir fs.FS, chain importChain) ErrorList {
	var errs ErrorList
	for _, im := range s.Imports {
		if im.Spec == "" {
			continue
		}
		what := "imports." + im.Alias + ".spec"
		rel := path.Clean(im.Spec)
		if !fs.ValidPath(rel) || strings.Contains(im.Spec, `\`) {
			below := "the spec's directory"
			if im.Module != "" {
				below = "the module's root"
			}
			errs.Add(im.SpecPos, "%s: %s must be a slash-separated path below %s (no .., no leading /)", what, im.Spec, below)
			continue
		}
		src, ok := findImport(s, im, dir, rel, chain, &errs)
		if !ok {
			continue
		}
		if i := slices.Index(chain.specs, src.full); i >= 0 {
			errs.Add(im.SpecPos, "%s: import cycle %s", what, strings.Join(append(slices.Clone(chain.specs[i:]), src.full), " → "))
			continue
		}
		readImport(im, src, rel, chain, &errs)
	}
	return errs
}

// An importSource is where an imported spec is read from.
type importSource struct {
	files  fs.FS   // the tree the spec's path is relative to
	file   string  // the spec as positions name it
	full   string  // the spec as the import chain names it
	module *Module // the module it is in, nil for the first spec's tree
	where  string  // the tree as messages name it: "", or "github.com/x/y v1.2.0"
}

// findImport finds the tree im's spec is in: dir, for a spec beside s, or
// the module im names, found through chain's Modules.
func findImport(s *Spec, im *Import, dir fs.FS, rel string, chain importChain, errs *ErrorList) (importSource, bool) {
	if im.Module == "" {
		full := path.Join(path.Dir(chain.specs[len(chain.specs)-1]), rel)
		return importSource{files: dir, file: filepath.Join(filepath.Dir(s.File), filepath.FromSlash(rel)), full: full, module: chain.module}, true
	}
	what := "imports." + im.Alias + ".module"
	if chain.modules == nil {
		errs.Add(im.ModulePos, "%s: %s: %v", what, im.Module, ErrNoModules)
		return importSource{}, false
	}
	mod, err := chain.modules.Module(im.Module)
	if err != nil {
		errs.Add(im.ModulePos, "%s: %v", what, err)
		return importSource{}, false
	}
	return importSource{files: mod.Files, file: filepath.Join(mod.Dir, filepath.FromSlash(rel)), full: mod.Path + "/" + rel, module: mod, where: mod.String()}, true
}

// readImport reads and validates the spec im imports, at rel in src.
func readImport(im *Import, src importSource, rel string, chain importChain, errs *ErrorList) {
	what := "imports." + im.Alias + ".spec"
	data, err := fs.ReadFile(src.files, rel)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist) && src.where != "":
			errs.Add(im.SpecPos, "%s: %s has no spec %s%s", what, src.where, rel, didYouMean(rel, specFiles(src.files, path.Dir(rel))))
		case errors.Is(err, fs.ErrNotExist):
			errs.Add(im.SpecPos, "%s: no spec %s%s", what, rel, didYouMean(rel, specFiles(src.files, path.Dir(rel))))
		default:
			errs.Add(im.SpecPos, "%s: %v", what, err)
		}
		return
	}
	sub, err := fs.Sub(src.files, path.Dir(rel))
	if err != nil {
		errs.Add(im.SpecPos, "%s: %v", what, err)
		return
	}
	next := importChain{specs: append(slices.Clone(chain.specs), src.full), module: src.module, modules: chain.modules, noSources: chain.noSources}
	imported, err := loadChain(sub, src.file, data, next)
	if err != nil {
		var list ErrorList
		if errors.As(err, &list) {
			*errs = append(*errs, list...)
		}
		errs.Add(im.SpecPos, "%s: %s is not a valid spec; see its own errors", what, rel)
		return
	}
	if imported.Spec().Package.Path == "" {
		errs.Add(im.SpecPos, "%s: %s has no package.path, so generated code cannot import its package", what, rel)
		return
	}
	im.Imported, im.Path, im.Found = imported, imported.Spec().Package.Path, src.module
}

// specFiles lists the YAML files in dir's directory d, as suggestions.
func specFiles(dir fs.FS, d string) []string {
	entries, _ := fs.ReadDir(dir, d)
	var out []string
	for _, e := range entries {
		if ext := path.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			out = append(out, path.Join(d, e.Name()))
		}
	}
	return out
}

// importedTypes resolves every alias.Name whose alias is a spec import
// against the declarations of that spec. Imports that were not read (no
// file system, or a problem already reported) are left unresolved.
func (v *validator) importedTypes() {
	specs := map[string]*Import{}
	decls := map[*Import]map[string]Decl{}
	for _, im := range v.spec.Imports {
		if im.Imported != nil {
			specs[im.Alias] = im
			decls[im] = im.Imported.Spec().Index().Decls
		}
	}
	if len(specs) == 0 {
		return
	}
	v.eachType(func(t *Type) {
		im := specs[t.Alias]
		if t.Kind != TypeQualified || im == nil {
			return
		}
		d, ok := decls[im][t.Name]
		name := t.Alias + "." + t.Name
		switch {
		case !ok && im.Foreign() && im.Found.Version != "":
			v.add(t.Pos, "%s: %s of %s, the version the module requires, declares no %s%s; a later version may (go get %s@latest)", name, im.Spec, im.Found, t.Name, didYouMean(t.Name, typeNames(decls[im])), im.Found.Path)
		case !ok && im.Foreign():
			v.add(t.Pos, "%s: %s of %s, the copy the build uses, declares no %s%s", name, im.Spec, im.Found, t.Name, didYouMean(t.Name, typeNames(decls[im])))
		case !ok:
			v.add(t.Pos, "%s: %s declares no %s%s", name, im.Spec, t.Name, didYouMean(t.Name, typeNames(decls[im])))
		case d.Kind == DeclMachine:
			v.add(t.Pos, "%s is a machine, not a type; use its states enum", name)
		default:
			t.decl, t.imp, t.Pkg = d.Kind, im, im.Path
		}
	})
}
