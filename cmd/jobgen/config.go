package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/jobgen/jobgen/gen"
)

// ConfigName is the file jobgen looks for, upward from the working directory
// to the module root, when a command is not told every path by its flags.
const configName = "jobgen.yaml"

// A config is a module's jobgen.yaml: its specs and where their outputs go,
// so "go tool jobgen generate" needs no flags (as buf.gen.yaml and sqlc.yaml
// do for those tools). Paths in it are relative to the file's directory.
// See docs/decisions/0043-config-file.md.
type config struct {
	Version int      `yaml:"version"`
	Specs   []string `yaml:"specs"`
	// Outputs maps the key of an output (outputKinds) to its root.
	Outputs map[string]string `yaml:"outputs"`
	// TypeScript is what the TypeScript package is besides its modules.
	TypeScript tsSettings `yaml:"typescript"`
	// Python is the Python package's settings.
	Python pySettings `yaml:"python"`

	file string // as found, relative to the working directory where it can be
	dir  string // the file's directory, as paths in it are joined to
}

// checkOutputs refuses an outputs: key of the config in data that names no
// output, at the line it is on.
func checkOutputs(name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil // Decode reported it
	}
	top := doc.Content[0].Content
	for i := 0; i+1 < len(top); i += 2 {
		if top[i].Value != "outputs" {
			continue
		}
		keys := top[i+1].Content
		for j := 0; j+1 < len(keys); j += 2 {
			if _, ok := outputKindOf(keys[j].Value); !ok {
				return fmt.Errorf("%s: line %d: outputs: unknown output %s (%s)", name, keys[j].Line, keys[j].Value, strings.Join(outputKeys(), ", "))
			}
		}
	}
	return nil
}

// findConfig looks for jobgen.yaml in start and its parents, stopping at the
// first directory holding go.mod: a config belongs to its module. It returns
// "" when there is none.
func findConfig(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, configName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return "", nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// loadConfig reads and checks a config file.
func loadConfig(name string) (*config, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var c config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			var lines []string
			for _, e := range te.Errors {
				e, _, _ = strings.Cut(e, " in type main.")
				lines = append(lines, name+": "+strings.ReplaceAll(e, "field ", "key "))
			}
			return nil, errors.New(strings.Join(lines, "\n"))
		}
		return nil, fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := checkOutputs(name, data); err != nil {
		return nil, err
	}
	switch {
	case c.Version != 1:
		return nil, fmt.Errorf("%s: version: want 1, the only version of jobgen.yaml there is", name)
	case len(c.Specs) == 0:
		return nil, fmt.Errorf("%s: specs: list the spec files or globs to read, as in specs: [spec/*.yaml]", name)
	}
	c.file = name
	c.dir = filepath.Dir(name)
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, c.dir); err == nil {
			c.dir = rel
			c.file = filepath.Join(rel, configName)
		}
	}
	return &c, nil
}

// path joins a path of the config to its directory.
func (c *config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

// checkPackagePaths refuses a spec whose package.path is not the import
// path of the directory the Go backend writes its package to, when that
// directory is inside a module: the package would build, and every import of
// it (and every spec importing it) would name a package that is elsewhere.
func checkPackagePaths(specs []*gen.Resolved, goRoot string) error {
	var errs gen.ErrorList
	for _, r := range specs {
		p := r.Spec().Package
		if p.Path == "" {
			continue
		}
		dir, err := filepath.Abs(filepath.Join(goRoot, p.Name))
		if err != nil {
			return err
		}
		modDir, modPath, err := findModule(dir)
		if err != nil {
			return err
		}
		if modDir == "" {
			continue // not in a module: nothing to compare with
		}
		rel, err := filepath.Rel(modDir, dir)
		if err != nil {
			return err
		}
		want := modPath
		if rel != "." {
			want += "/" + filepath.ToSlash(rel)
		}
		if want != p.Path {
			errs.Add(p.Pos, "package.path is %s, but the package is written to %s, whose import path is %s; set package.path: %s, or write the package where its path says", p.Path, filepath.Join(goRoot, p.Name), want, want)
		}
	}
	return errs.Err()
}

// findModule finds the go.mod governing dir (which need not exist yet) and
// returns its directory and module path, or "" when there is none.
func findModule(dir string) (modDir, modPath string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		switch {
		case err == nil:
			path := modulePath(data)
			if path == "" {
				return "", "", fmt.Errorf("%s has no module line", filepath.Join(d, "go.mod"))
			}
			return d, path, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", "", err
		}
		if filepath.Dir(d) == d {
			return "", "", nil
		}
	}
}

// modulePath is the module line of a go.mod.
func modulePath(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			rest = strings.TrimSpace(rest)
			if unq, err := strconv.Unquote(rest); err == nil {
				return unq
			}
			return rest
		}
	}
	return ""
}
