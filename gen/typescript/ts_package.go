package typescript

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// The runtime module every generated module imports: runtime.ts, written by
// hand, and the JavaScript and declarations the pinned tsc compiles from it
// (TestRuntimeIsCompiled keeps them in step; run it with -update after
// editing runtime.ts).
var (
	//go:embed runtime.ts
	runtimeSource string
	//go:embed runtime.mjs
	runtimeJS string
	//go:embed runtime.d.mts
	runtimeDeclarations string
)

// sourceOpening opens the package's own files written in TypeScript or
// JavaScript, and manifestOpening its package.json, where a "//" member is
// the comment JSON lacks.
const (
	sourceOpening   = "// " + gen.PackageText + "\n"
	manifestOpening = "{\n  \"//\": \"" + gen.PackageText + "\",\n"
)

// runtimeName is the runtime module's name in the package.
const runtimeName = "runtime"

// moduleName is what a hand-written module may be called: a name a spec's
// package could have, and so a name of a file and of a subpath.
var moduleName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// PackageFiles implements gen.Packager: package.json when the package has a
// name, the runtime module, and the hand-written modules.
func (b Backend) PackageFiles() ([]gen.PackageFile, error) {
	var files []gen.PackageFile
	add := func(name, opening, content string) {
		p := path.Join(b.Dir, name)
		files = append(files, gen.PackageFile{File: gen.File{Path: p, Content: []byte(opening + content)}, Opening: opening})
	}
	if b.Package != "" {
		manifest, err := b.manifest()
		if err != nil {
			return nil, err
		}
		add("package.json", manifestOpening, manifest)
	}
	for _, f := range RuntimeFiles() {
		add(f.Path, sourceOpening, string(f.Content))
	}
	seen := map[string]bool{runtimeName: true}
	for _, m := range b.Modules {
		if !moduleName.MatchString(m.Name) || seen[m.Name] {
			return nil, fmt.Errorf("module %q: want a lower-case name of letters, digits and _, not the runtime's nor another module's", m.Name)
		}
		seen[m.Name] = true
		for _, f := range []struct {
			ext     string
			content []byte
		}{{".mjs", m.JS}, {".d.mts", m.Declarations}} {
			name := m.Name + f.ext
			add(name, gen.Mark(b, m.Origin, path.Join(b.Dir, name)), string(f.content))
		}
	}
	return files, nil
}

// RuntimeFiles are the runtime module's three files, without the opening
// of a package file: what a module of a package imports as ./runtime.js
// (or ./runtime.mjs from JavaScript).
func RuntimeFiles() []gen.File {
	return []gen.File{
		{Path: runtimeName + ".ts", Content: []byte(runtimeSource)},
		{Path: runtimeName + ".mjs", Content: []byte(runtimeJS)},
		{Path: runtimeName + ".d.mts", Content: []byte(runtimeDeclarations)},
	}
}

// ownModules are the names of the package's modules that come from no spec.
func (b Backend) ownModules() []string {
	own := []string{runtimeName}
	for _, m := range b.Modules {
		own = append(own, m.Name)
	}
	return own
}

// manifest is package.json after its opening: an ES module package whose
// every module is a subpath, Package/<module>, with its declarations for
// TypeScript (exports for node16, nodenext and bundler resolution,
// typesVersions for the older node10), and no side effects, so a bundler
// keeps only what is imported.
func (b Backend) manifest() (string, error) {
	version := b.Version
	if version == "" {
		version = "0.0.0"
	}
	type conditions struct {
		Types   string `json:"types"`
		Default string `json:"default"`
	}
	m := struct {
		Name          string                         `json:"name"`
		Version       string                         `json:"version"`
		Description   string                         `json:"description"`
		Type          string                         `json:"type"`
		SideEffects   bool                           `json:"sideEffects"`
		Exports       map[string]conditions          `json:"exports"`
		TypesVersions map[string]map[string][]string `json:"typesVersions"`
	}{
		Name:          b.Package,
		Version:       version,
		Description:   "The vocabularies jobgen generates from this module's specs, as TypeScript, JavaScript and declarations; each spec's module is " + b.Package + "/<package name>.",
		Type:          "module",
		Exports:       map[string]conditions{"./*": {Types: "./*.d.mts", Default: "./*.mjs"}},
		TypesVersions: map[string]map[string][]string{"*": {"*": {"./*.d.mts"}}},
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return "", err
	}
	// The opening holds the object's first line and the comment member.
	return strings.TrimPrefix(out.String(), "{\n"), nil
}
