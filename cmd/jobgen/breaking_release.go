package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/jobgen/jobgen/gen"
)

// What jobgen breaking compares with when --against names nothing, and how
// it reads the old side's imports at a git revision (decision 0175).

// releaseTag matches a release tag as RELEASING.md makes them, vX.Y.Z.
var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// lastRelease returns what breaking compares with by default: git:TAG for
// the newest release tag of the repository holding spec (highest by
// semantic version), or else the directory baseline beside the specs, with
// a note saying which, for stderr.
func lastRelease(spec string) (against, note string, err error) {
	baseline := filepath.Join(filepath.Dir(spec), "baseline")
	tags, gerr := git(filepath.Dir(spec), "tag", "--list", "v*", "--sort=-v:refname")
	if gerr == nil {
		for _, tag := range strings.Fields(tags) {
			if releaseTag.MatchString(tag) {
				return "git:" + tag, fmt.Sprintf("jobgen breaking: comparing with the last release, %s", tag), nil
			}
		}
	}
	why := "no release tag (vX.Y.Z) in this repository"
	if gerr != nil {
		why = "not in a git repository"
	}
	if st, err := os.Stat(baseline); err != nil || !st.IsDir() {
		return "", "", usageError{fmt.Errorf("%s, and no %s to compare with; name the older specs with --against", why, baseline)}
	}
	return baseline, fmt.Sprintf("jobgen breaking: %s; comparing with %s", why, baseline), nil
}

// A refModules finds the modules whose specs an old spec read at a git
// revision imports as that revision's go.mod resolves them, never through
// today's module graph: the version its require line names, from the module
// cache (its replace to another version honoured), or, replaced by a
// directory inside the repository, that directory as the revision holds it.
// A module the cache lacks is an error saying what to run; nothing is
// downloaded.
type refModules struct {
	top, ref string
	dir      string // the module root's path in the repository at ref, where its go.mod is

	once    sync.Once
	mod     goMod
	modErr  error
	cacheMu sync.Mutex
	cache   map[string]*gen.Module
}

// newRefModules returns the Modules of the module holding rel (a spec's
// path in the repository at top) at revision ref.
func newRefModules(top, ref, rel string) *refModules {
	m := &refModules{top: top, ref: ref, cache: map[string]*gen.Module{}}
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if _, err := git(top, "cat-file", "-e", ref+":"+path.Join(d, "go.mod")); err == nil {
			m.dir = d
			break
		}
		if d == "." || d == "/" {
			m.dir = "."
			break
		}
	}
	return m
}

// Module implements gen.Modules.
func (m *refModules) Module(modPath string) (*gen.Module, error) {
	m.once.Do(func() {
		data, err := git(m.top, "show", m.ref+":"+path.Join(m.dir, "go.mod"))
		if err != nil {
			m.modErr = fmt.Errorf("%s:%s has no go.mod, so the modules its specs import cannot be found as it built them", m.ref, m.dir)
			return
		}
		m.mod = parseGoMod(data)
	})
	if m.modErr != nil {
		return nil, m.modErr
	}
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	if got, ok := m.cache[modPath]; ok {
		return got, nil
	}
	got, err := m.find(modPath)
	if err == nil {
		m.cache[modPath] = got
	}
	return got, err
}

func (m *refModules) find(modPath string) (*gen.Module, error) {
	at := m.ref + ":" + path.Join(m.dir, "go.mod")
	if modPath == m.mod.module {
		return &gen.Module{Path: modPath, Dir: m.ref + ":" + m.dir, Files: gitFS{top: m.top, ref: m.ref, dir: m.dir}, Main: true}, nil
	}
	version, ok := m.mod.require[modPath]
	if !ok {
		return nil, fmt.Errorf("%s is not required by %s; the old spec imports a module its revision did not", modPath, at)
	}
	target, targetVersion := modPath, version
	if r, ok := m.mod.replace[modPath]; ok {
		if r.version == "" {
			dir := path.Clean(path.Join(m.dir, r.path))
			if !fs.ValidPath(dir) {
				return nil, fmt.Errorf("%s replaces %s with %s, outside the repository, which jobgen cannot read at %s", at, modPath, r.path, m.ref)
			}
			return &gen.Module{Path: modPath, Dir: m.ref + ":" + dir, Files: gitFS{top: m.top, ref: m.ref, dir: dir}}, nil
		}
		target, targetVersion = r.path, r.version
	}
	cache, err := goModCache()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, escapeModulePath(target)+"@"+targetVersion)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s %s, which %s requires, is not in the module cache; run go mod download %s@%s (jobgen never downloads a module)", target, targetVersion, at, target, targetVersion)
	}
	return &gen.Module{Path: modPath, Version: targetVersion, Dir: dir, Files: os.DirFS(dir)}, nil
}

// A goMod is what breaking reads of a go.mod: the module's path, the
// version each module is required at, and the replacements.
type goMod struct {
	module  string
	require map[string]string
	replace map[string]replacement
}

// A replacement is a replace directive's right-hand side: a module at a
// version, or a directory (no version).
type replacement struct{ path, version string }

// parseGoMod reads the module, require and replace lines of a go.mod, in
// single lines and blocks.
func parseGoMod(data string) goMod {
	m := goMod{require: map[string]string{}, replace: map[string]replacement{}}
	block := ""
	for _, line := range strings.Split(data, "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case f[0] == ")":
			block = ""
			continue
		case len(f) == 2 && f[1] == "(":
			block = f[0]
			continue
		case block == "":
			m.line(f[0], f[1:])
			continue
		}
		m.line(block, f)
	}
	return m
}

// line takes one directive's fields.
func (m *goMod) line(directive string, f []string) {
	unq := func(s string) string { return strings.Trim(s, `"`) }
	switch directive {
	case "module":
		if len(f) > 0 {
			m.module = unq(f[0])
		}
	case "require":
		if len(f) >= 2 {
			m.require[unq(f[0])] = f[1]
		}
	case "replace":
		i := slices.Index(f, "=>")
		if i < 1 || i+1 >= len(f) {
			return
		}
		r := replacement{path: unq(f[i+1])}
		if i+2 < len(f) {
			r.version = f[i+2]
		}
		m.replace[unq(f[0])] = r
	}
}

// goModCache is the module cache's directory, as the go command has it.
func goModCache() (string, error) {
	if dir := os.Getenv("GOMODCACHE"); dir != "" {
		return dir, nil
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return "", errors.New("cannot find the module cache: go env GOMODCACHE failed")
	}
	return strings.TrimSpace(string(out)), nil
}

// escapeModulePath is a module path as the module cache spells it: each
// upper-case letter as ! and the letter in lower case.
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
