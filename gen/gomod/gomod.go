// Package gomod finds the Go modules whose specs a spec imports
// ({module: PATH, spec: FILE}) as the go command builds the importing
// module: the version its go.mod requires, with its replace directives and
// the go.work around it applied, read from the module cache or the
// directory a replacement names. It asks the go command (go list -m) with
// the network off (GOPROXY=off, -mod=readonly), so a load never downloads a
// module or edits go.mod; a module the cache lacks is an error saying what
// to run. See decision 0090.
package gomod

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/jobgen/jobgen/gen"
)

// A Resolver is a gen.Modules that asks the go command, in the importing
// module's directory, where each module is. It remembers each answer; it is
// safe for concurrent use.
type Resolver struct {
	dir   string
	goCmd string

	mu    sync.Mutex
	found map[string]answer
}

type answer struct {
	mod *gen.Module
	err error
}

// New returns the Resolver of the module holding dir (any directory of it).
// It runs the go command found on PATH.
func New(dir string) *Resolver {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &Resolver{dir: dir, goCmd: "go", found: map[string]answer{}}
}

// listed is what go list -m -json prints of a module.
type listed struct {
	Path    string
	Version string
	Dir     string
	Main    bool
	Replace *struct {
		Path    string
		Version string
		Dir     string
	}
	Error *struct{ Err string }
}

// Module implements gen.Modules.
func (r *Resolver) Module(path string) (*gen.Module, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.found[path]; ok {
		return a.mod, a.err
	}
	mod, err := r.list(path)
	r.found[path] = answer{mod, err}
	return mod, err
}

// list asks the go command where the module at path is.
func (r *Resolver) list(path string) (*gen.Module, error) {
	out, err := r.goList(path)
	if err != nil {
		return nil, err
	}
	var m listed
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go list -m -json %s printed what jobgen cannot read: %v", path, err)
	}
	if m.Error != nil {
		return nil, fmt.Errorf("%s: %s", path, m.Error.Err)
	}
	version := m.Version
	if m.Replace != nil && m.Replace.Version == "" {
		version = "" // replaced by a directory: its files are whatever is there
	} else if m.Replace != nil {
		version = m.Replace.Version
	}
	if m.Dir == "" {
		return nil, fmt.Errorf("%s %s is required but not in the module cache; run go mod download %s (jobgen never downloads a module)", path, version, path)
	}
	return &gen.Module{Path: m.Path, Version: version, Dir: m.Dir, Files: os.DirFS(m.Dir), Main: m.Path == r.own()}, nil
}

// own is the path of the module holding r's directory, from its go.mod:
// in a workspace every module is a main module to the go command, and only
// this one is the importing module.
func (r *Resolver) own() string {
	for d := r.dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			return modfile(data)
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// modfile is the module path a go.mod declares.
func modfile(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		rest = strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(rest); err == nil {
			return unq
		}
		return rest
	}
	return ""
}

// goList runs go list -m -json path in r's directory without the network,
// and turns the go command's refusals into errors saying what to do.
func (r *Resolver) goList(path string) ([]byte, error) {
	cmd := exec.Command(r.goCmd, "list", "-m", "-json", path)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOSUMDB=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return nil, fmt.Errorf("cannot run the go command to find module %s: %v", path, err)
	}
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), "go: "))
	switch {
	case strings.Contains(msg, "not a known dependency"):
		return nil, fmt.Errorf("%s is not required by the module in %s; require it (go get %s, or a replace directive or go work use for a local copy)", path, r.dir, path)
	case strings.Contains(msg, "go.mod file not found") || strings.Contains(msg, "not using modules"):
		return nil, fmt.Errorf("%s is in no Go module, so it cannot import module %s's spec; run go mod init there first", r.dir, path)
	case strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "missing go.sum entry"):
		return nil, fmt.Errorf("the module graph of %s is not all in the module cache (%s); run go mod download %s, then try again (jobgen never downloads a module)", r.dir, firstLine(msg), path)
	}
	return nil, fmt.Errorf("go list -m %s: %s", path, firstLine(msg))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
