package typescript

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
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
// name, the runtime module unless the package imports another's (Runtime:
// then the runtime's files are retired), and the hand-written modules.
func (b Backend) PackageFiles() ([]gen.PackageFile, error) {
	var files []gen.PackageFile
	add := func(name, opening, content string) {
		p := path.Join(b.Dir, name)
		files = append(files, gen.PackageFile{File: gen.File{Path: p, Content: []byte(opening + content)}, Opening: opening})
	}
	retire := func(name, opening string) {
		files = append(files, gen.PackageFile{File: gen.File{Path: path.Join(b.Dir, name)}, Opening: opening, Retired: true})
	}
	if b.Package != "" {
		manifest, err := b.manifest()
		if err != nil {
			return nil, err
		}
		add("package.json", manifestOpening, manifest)
	}
	for _, f := range RuntimeFiles() {
		if b.Runtime.Name == "" {
			add(f.Path, sourceOpening, string(f.Content))
		} else {
			retire(f.Path, sourceOpening) // a copy written before it imported Runtime's
		}
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
// typesVersions for the older node10), no side effects, so a bundler keeps
// only what is imported, and the packages it imports as peers.
func (b Backend) manifest() (string, error) {
	version := b.Version
	if version == "" {
		version = "0.0.0"
	}
	peers, err := b.peerDependencies()
	if err != nil {
		return "", err
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
		Peers         map[string]string              `json:"peerDependencies,omitempty"`
	}{
		Name:          b.Package,
		Version:       version,
		Description:   "The vocabularies jobgen generates from this module's specs, as TypeScript, JavaScript and declarations; each spec's module is " + b.Package + "/<package name>.",
		Type:          "module",
		Exports:       map[string]conditions{"./*": {Types: "./*.d.mts", Default: "./*.mjs"}},
		TypesVersions: map[string]map[string][]string{"*": {"*": {"./*.d.mts"}}},
		Peers:         peers,
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

// peerDependencies are the package's peers, Runtime's package among them,
// by name, each with the range ^Version; nil when it has none. A peer named
// twice must have one version, and none is the package itself.
func (b Backend) peerDependencies() (map[string]string, error) {
	peers := slices.Clone(b.Peers)
	if b.Runtime.Name != "" {
		peers = append(peers, b.Runtime)
	}
	if len(peers) == 0 {
		return nil, nil
	}
	ranges := map[string]string{}
	for _, p := range peers {
		r := "^" + p.Version
		switch {
		case p.Name == "" || p.Version == "":
			return nil, fmt.Errorf("peer %q: a peer needs a name and a version", p.Name+"@"+p.Version)
		case p.Name == b.Package:
			return nil, fmt.Errorf("peer %s: the package cannot be its own peer", p.Name)
		case ranges[p.Name] != "" && ranges[p.Name] != r:
			return nil, fmt.Errorf("peer %s: versions %s and %s", p.Name, strings.TrimPrefix(ranges[p.Name], "^"), p.Version)
		}
		ranges[p.Name] = r
	}
	return ranges, nil
}
