package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/jobgen/jobgen/gen"
)

// A breakingPair is a spec and the older one breaking compares it with: old
// is nil for a new spec, new for a deleted one. The names are how positions
// name each: a path, or REF:path for a spec read from git.
type breakingPair struct {
	newName, oldName string
	new, old         *gen.Spec
}

// An oldSpec is an older spec as --against gives it: its name, its text,
// and the tree its imports are read from (nil: the directory of the file
// it names).
type oldSpec struct {
	name  string
	data  []byte
	files fs.FS
	// modules finds the modules its imports name as its revision built
	// them (refModules); nil: today's module graph.
	modules gen.Modules
}

// breakingPairs reads the specs names and the older ones against names,
// and loads them with the specs they import. It reports what fails through
// r and returns false then.
func (sf *specFlags) breakingPairs(r *reporter, against string, names []string) ([]breakingPair, bool) {
	olds, deleted, err := sf.olderSpecs(against, names)
	if err != nil {
		// The older specs could not be read at all: not a finding, since
		// nothing was compared.
		code := exitFailure
		var usage usageError
		if errors.As(err, &usage) {
			code = exitUsage
		}
		r.failf(code, "jobgen breaking: %v", err)
		return nil, false
	}
	// Both sides are compared as models: their sources (upcaster bodies)
	// play no part, and the old spec's may not even be at hand.
	opts := []gen.LoadOption{gen.WithModules(sf.modulesOf(names[0])), gen.WithoutSources()}
	var pairs []breakingPair
	ok := true
	load := func(name string, src *oldSpec) *gen.Spec {
		var res *gen.Resolved
		var err error
		switch {
		case src == nil:
			var data []byte
			if data, err = sf.readSpec(name); err == nil {
				res, err = gen.Load(name, data, opts...)
			}
		case src.files == nil:
			res, err = gen.Load(src.name, src.data, opts...)
		case src.modules != nil:
			res, err = gen.LoadFS(src.files, src.name, src.data, gen.WithModules(src.modules), gen.WithoutSources())
		default:
			res, err = gen.LoadFS(src.files, src.name, src.data, opts...)
		}
		if err != nil {
			r.err(err)
			ok = false
			return nil
		}
		return res.Spec()
	}
	for _, name := range names {
		p := breakingPair{newName: name, new: load(name, nil)}
		if src := olds[name]; src != nil {
			p.oldName, p.old = src.name, load("", src)
		}
		pairs = append(pairs, p)
	}
	for _, src := range deleted {
		pairs = append(pairs, breakingPair{oldName: src.name, old: load("", &src)})
	}
	return pairs, ok
}

// olderSpecs finds the older spec of each of names that against holds, and
// the older specs none of names matches: deleted ones.
func (sf *specFlags) olderSpecs(against string, names []string) (map[string]*oldSpec, []oldSpec, error) {
	if rest, isGit := strings.CutPrefix(against, "git:"); isGit {
		return sf.gitSpecs(rest, names)
	}
	st, err := os.Stat(against)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		if len(names) != 1 {
			return nil, nil, usageError{fmt.Errorf("--against %s is one spec, and the specs are %d; compare them all against a directory or git:REF", against, len(names))}
		}
		data, err := sf.readSpec(against)
		return map[string]*oldSpec{names[0]: {name: against, data: data}}, nil, err
	}
	return sf.dirSpecs(against, names)
}

// dirSpecs finds the older specs in dir: each of names' by its file name.
func (sf *specFlags) dirSpecs(dir string, names []string) (map[string]*oldSpec, []oldSpec, error) {
	olds := map[string]*oldSpec{}
	byBase := map[string]string{}
	for _, name := range names {
		base := filepath.Base(name)
		if other, dup := byBase[base]; dup {
			return nil, nil, usageError{fmt.Errorf("%s and %s have one file name, so %s cannot hold the older spec of each; compare them one at a time with --spec and --against FILE", other, name, dir)}
		}
		byBase[base] = name
		p := filepath.Join(dir, base)
		data, err := sf.readSpec(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // a new spec
		case err != nil:
			return nil, nil, err
		}
		olds[name] = &oldSpec{name: p, data: data}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var deleted []oldSpec
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); e.IsDir() || (ext != ".yaml" && ext != ".yml") || byBase[e.Name()] != "" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := sf.readSpec(p)
		if err != nil {
			return nil, nil, err
		}
		deleted = append(deleted, oldSpec{name: p, data: data})
	}
	return olds, deleted, nil
}

// gitSpecs finds the older specs in the git revision rest names, REF or
// REF:path: each of names' at its own path in the repository, or, for one
// spec, the path given.
func (sf *specFlags) gitSpecs(rest string, names []string) (map[string]*oldSpec, []oldSpec, error) {
	ref, given, hasPath := strings.Cut(rest, ":")
	if ref == "" {
		return nil, nil, usageError{fmt.Errorf("git:%s: name a git revision, as in git:main or git:v1.2.0:spec/jobs.yaml", rest)}
	}
	if hasPath && len(names) != 1 {
		return nil, nil, usageError{fmt.Errorf("git:%s is one spec, and the specs are %d; compare them all against git:%s", rest, len(names), ref)}
	}
	top, err := git(filepath.Dir(names[0]), "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil, err
	}
	top = strings.TrimSpace(top)
	olds := map[string]*oldSpec{}
	paths := map[string]bool{}
	var modules *refModules // one go.mod at ref for every spec: the first spec's module
	for _, name := range names {
		rel := given
		if !hasPath || rel == "" {
			if rel, err = repoPath(top, name); err != nil {
				return nil, nil, err
			}
		}
		paths[rel] = true
		if modules == nil {
			modules = newRefModules(top, ref, rel)
		}
		src, err := gitSpec(top, ref, rel)
		if err != nil {
			return nil, nil, err
		}
		if src != nil {
			src.modules = modules
			olds[name] = src
		}
	}
	if hasPath {
		return olds, nil, nil
	}
	deleted, err := sf.gitDeleted(top, ref, paths)
	for i := range deleted {
		deleted[i].modules = modules
	}
	return olds, deleted, err
}

// gitSpec reads the spec at rel in the revision ref of the repository at
// top; nil when the revision has no such file, a new spec.
func gitSpec(top, ref, rel string) (*oldSpec, error) {
	data, err := git(top, "show", ref+":"+rel)
	if err != nil {
		if _, verr := git(top, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); verr == nil {
			return nil, nil // the revision exists and has no such spec
		}
		return nil, err
	}
	return &oldSpec{name: ref + ":" + rel, data: []byte(data), files: gitFS{top: top, ref: ref, dir: path.Dir(rel)}}, nil
}

// gitDeleted reads the specs of revision ref that the spec patterns match
// there but that are not among paths, the specs of today.
func (sf *specFlags) gitDeleted(top, ref string, paths map[string]bool) ([]oldSpec, error) {
	listing, err := git(top, "ls-tree", "-r", "--name-only", ref)
	if err != nil {
		return nil, err
	}
	var patterns []string
	for _, p := range sf.specsOrDefault() {
		if rel, err := repoPath(top, p); err == nil {
			patterns = append(patterns, rel)
		}
	}
	var deleted []oldSpec
	for _, file := range strings.Split(strings.TrimSpace(listing), "\n") {
		if paths[file] || !matchesAny(patterns, file) {
			continue
		}
		src, err := gitSpec(top, ref, file)
		if err != nil {
			return nil, err
		}
		if src != nil {
			deleted = append(deleted, *src)
		}
	}
	return deleted, nil
}

func matchesAny(patterns []string, file string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, file); ok {
			return true
		}
	}
	return false
}

// repoPath is name's slash-separated path in the repository at top.
func repoPath(top, name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside the git repository at %s; give the path as git:REF:path", name, top)
	}
	return filepath.ToSlash(rel), nil
}

// A gitFS is a directory of a git revision, as the specs read from it read
// the specs they import.
type gitFS struct {
	top, ref, dir string
}

func (g gitFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	data, err := git(g.top, "show", g.ref+":"+path.Join(g.dir, name))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &gitFile{name: path.Base(name), Reader: bytes.NewReader([]byte(data))}, nil
}

// A gitFile is a file of a gitFS, read whole.
type gitFile struct {
	name string
	*bytes.Reader
}

func (f *gitFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *gitFile) Close() error               { return nil }
func (f *gitFile) Name() string               { return f.name }
func (f *gitFile) Mode() fs.FileMode          { return 0o444 }
func (f *gitFile) ModTime() time.Time         { return time.Time{} }
func (f *gitFile) IsDir() bool                { return false }
func (f *gitFile) Sys() any                   { return nil }
