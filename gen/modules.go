package gen

import (
	"errors"
	"io/fs"
)

// A spec may import a spec of another Go module, {module: PATH, spec: FILE},
// as its Go code imports that module's packages: the module is the version
// the importing module's build uses, found by a Modules the caller supplies
// (gen/gomod asks the go command), so this package runs no command and reads
// only the files it is given. See decision 0090.

// Modules finds the Go modules whose specs a spec imports, as the importing
// module's build resolves them: the version its go.mod requires (with its
// replace directives and go.work applied), never by downloading one.
type Modules interface {
	// Module returns the module at path. Its error says, in words a user
	// can act on, why the module cannot be read: not required by the
	// importing module, or not in the module cache.
	Module(path string) (*Module, error)
}

// A Module is a Go module a spec imports specs from.
type Module struct {
	Path string
	// Version is the version the importing module requires; empty for a
	// module replaced by a directory or a workspace module.
	Version string
	// Dir is where the module's files are, for the positions of its specs'
	// errors.
	Dir string
	// Files are the module's files, rooted at Dir.
	Files fs.FS
	// Main reports that the module is the importing module itself.
	Main bool
	// Packages are the names the module's jobgen.yaml gives the packages of
	// outputs that have one, by the output's key ("ts": "@jobgen/jobgen");
	// a backend imports another module's output under this name.
	Packages map[string]string
}

// String names the module as messages do: its path and version, or where
// it is when it has no version.
func (m *Module) String() string {
	switch {
	case m.Version != "":
		return m.Path + " " + m.Version
	case m.Dir != "":
		return m.Path + " (" + m.Dir + ")"
	}
	return m.Path
}

// ErrNoModules is the error of a spec importing another module's spec when
// it is loaded without a Modules.
var ErrNoModules = errors.New("no Modules to find the module with: load the spec with WithModules and a Modules, such as gen/gomod's (jobgen's commands do)")

// A LoadOption says what a load reads beyond the spec's own directory.
type LoadOption func(*loadOptions)

type loadOptions struct {
	modules   Modules
	noSources bool
}

// WithModules finds the modules of the other modules' specs a spec imports
// through m; without it such an import is refused with ErrNoModules.
func WithModules(m Modules) LoadOption {
	return func(o *loadOptions) { o.modules = m }
}

// WithoutSources reads the specs a spec imports but not the Go sources it
// names: enough to compare specs (jobgen breaking, whose older spec's
// sources may be gone), not to generate from one.
func WithoutSources() LoadOption {
	return func(o *loadOptions) { o.noSources = true }
}
