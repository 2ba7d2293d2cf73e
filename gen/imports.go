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

// An entry under imports: is a Go package (alias: import/path) or another
// spec (alias: {spec: file.yaml}). A spec import makes the other spec's
// declarations usable as alias.Name; the generated code imports the package
// that spec generates. readImports reads each imported spec in full, and the
// validator resolves every alias.Name against it.

// importEntry reads one entry of the imports section.
func (l *loader) importEntry(e entry) *Import {
	what := "imports." + e.key
	im := &Import{Alias: e.key, Pos: l.pos(e.keyNode)}
	val := resolve(e.val)
	if val.Kind == yaml.MappingNode {
		m := l.object(val, what, "spec")
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
		return im
	}
	if val.Kind != yaml.ScalarNode || val.Tag != "!!str" {
		l.add(val, "%s: expected a Go import path or {spec: file.yaml}, found %s", what, describe(val))
		return nil
	}
	im.Path = val.Value
	return im
}

// readImports reads and validates every spec s imports, from dir, the
// directory of s. chain is the import chain that led to s, ending with s;
// a spec already on it is an import cycle.
func readImports(s *Spec, dir fs.FS, chain []string) ErrorList {
	var errs ErrorList
	for _, im := range s.Imports {
		if im.Spec == "" {
			continue
		}
		what := "imports." + im.Alias + ".spec"
		rel := path.Clean(im.Spec)
		if !fs.ValidPath(rel) || strings.Contains(im.Spec, `\`) {
			errs.Add(im.SpecPos, "%s: %s must be a slash-separated path below the spec's directory (no .., no leading /)", what, im.Spec)
			continue
		}
		full := path.Join(path.Dir(chain[len(chain)-1]), rel)
		if i := slices.Index(chain, full); i >= 0 {
			errs.Add(im.SpecPos, "%s: import cycle %s", what, strings.Join(append(slices.Clone(chain[i:]), full), " → "))
			continue
		}
		data, err := fs.ReadFile(dir, rel)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				errs.Add(im.SpecPos, "%s: no spec %s%s", what, rel, didYouMean(rel, specFiles(dir, path.Dir(rel))))
			} else {
				errs.Add(im.SpecPos, "%s: %v", what, err)
			}
			continue
		}
		sub, err := fs.Sub(dir, path.Dir(rel))
		if err != nil {
			errs.Add(im.SpecPos, "%s: %v", what, err)
			continue
		}
		file := filepath.Join(filepath.Dir(s.File), filepath.FromSlash(rel))
		imported, err := loadChain(sub, file, data, append(slices.Clone(chain), full))
		if err != nil {
			var list ErrorList
			if errors.As(err, &list) {
				errs = append(errs, list...)
			}
			errs.Add(im.SpecPos, "%s: %s is not a valid spec; see its own errors", what, rel)
			continue
		}
		if imported.Spec().Package.Path == "" {
			errs.Add(im.SpecPos, "%s: %s has no package.path, so generated code cannot import its package", what, rel)
			continue
		}
		im.Imported, im.Path = imported, imported.Spec().Package.Path
	}
	return errs
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
		case !ok:
			v.add(t.Pos, "%s: %s declares no %s%s", name, im.Spec, t.Name, didYouMean(t.Name, typeNames(decls[im])))
		case d.Kind == DeclMachine:
			v.add(t.Pos, "%s is a machine, not a type; use its states enum", name)
		default:
			t.decl, t.imp, t.Pkg = d.Kind, im, im.Path
		}
	})
}
