package gen

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// This file is what every backend shares: turning specs into one tree of
// files (Render), comparing that tree with the file system (Compare, which
// verify prints) and bringing the file system in line with it (Write, which
// generate runs). The rules, for every target alike:
//
//   - A file is jobgen's when it carries its backend's marker; the marker
//     names the spec the file came from (see Origin).
//   - A file at a path jobgen would write that is not jobgen's, or that is a
//     live spec's other than the one yielding it now, is a Conflict: Write
//     refuses and writes nothing.
//   - A file of jobgen's that no spec of the run yields is an Orphan, and is
//     removed, only when its marker names a spec of the run (which no longer
//     yields it) or a spec file that no longer exists (deleted or renamed).
//     Another spec's files are left alone, so specs can share roots and be
//     generated one at a time.
//   - Roots of different targets never nest, and targets sharing a root
//     never write into one directory.
//   - All reads and writes go through an os.Root per output root, so a
//     symbolic link inside a root never leads jobgen outside it.

// A Target is a backend and the directory it writes under.
type Target struct {
	Backend Backend
	Root    string
}

// A Tree is every file a set of specs yields through a set of targets.
type Tree struct {
	targets []Target
	specs   []string // the absolute path of each spec of the run
	files   []treeFile
	retired []treeFile // package files no longer carried (PackageFile.Retired)
}

type treeFile struct {
	File
	target int
	spec   string // the absolute path of the spec it came from; "" for a package file
	// opening is a package file's opening (see PackageFile); "" for a
	// spec's file.
	opening string
}

// A Change is one difference between a Tree and the file system.
type Change struct {
	Root string     // the output root, as the Target gives it
	Path string     // slash-separated, relative to Root
	Kind ChangeKind //
	Diff string     // a unified diff from the file system to the tree
	Note string     // why, for orphans and conflicts
}

// Name is the change's file, as the Target's root names it.
func (c Change) Name() string { return filepath.Join(c.Root, filepath.FromSlash(c.Path)) }

// A ChangeKind says how a file on disk differs from what the specs yield.
type ChangeKind string

// The kinds of change.
const (
	Missing  ChangeKind = "missing"  // a spec yields a file the tree lacks
	Stale    ChangeKind = "stale"    // the file differs from what its spec yields
	Orphan   ChangeKind = "orphan"   // jobgen's file that its spec no longer yields
	Conflict ChangeKind = "conflict" // a file jobgen must not replace sits where a spec yields one
)

// A ConflictError is Write refusing to replace files it did not write.
type ConflictError struct{ Conflicts []Change }

func (e *ConflictError) Error() string {
	var b strings.Builder
	b.WriteString("refusing to write anything:")
	for _, c := range e.Conflicts {
		fmt.Fprintf(&b, "\n\t%s %s", c.Name(), c.Note)
	}
	return b.String()
}

// CheckRoots refuses output roots that overlap: two that name one
// directory, or one inside the other. Render calls it with the distinct
// roots of its targets (so targets given the same root share it); a command
// whose flags each set a root calls it with every flag's root.
func CheckRoots(roots []string) error {
	abs := make([]string, len(roots))
	for i, r := range roots {
		a, err := canonical(r)
		if err != nil {
			return err
		}
		abs[i] = a
	}
	for i := range roots {
		for j := i + 1; j < len(roots); j++ {
			if abs[i] == abs[j] || within(abs[i], abs[j]) || within(abs[j], abs[i]) {
				return fmt.Errorf("output roots %s and %s overlap; give each output a directory of its own, outside the others", roots[i], roots[j])
			}
		}
	}
	return nil
}

// canonical is an absolute path with symbolic links resolved as far as the
// path exists, so two spellings of one directory compare equal.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(dir) == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether p lies inside dir, both canonical.
func within(dir, p string) bool {
	return strings.HasPrefix(p, dir+string(filepath.Separator)) || (strings.HasSuffix(dir, string(filepath.Separator)) && strings.HasPrefix(p, dir))
}

// Render runs every spec through every target, and adds the package files
// of each target whose backend is a Packager. It refuses overlapping roots,
// specs a backend cannot express (an ErrorList of positioned problems), two
// specs yielding one file, a spec yielding a package file, two targets
// sharing a directory, and files that break the Backend rules.
func Render(targets []Target, specs []*Resolved) (*Tree, error) {
	t := &Tree{targets: targets}
	if err := CheckRoots(t.roots()); err != nil {
		return nil, err
	}
	var errs ErrorList
	for _, r := range specs {
		s := r.Spec()
		if s == nil {
			return nil, ErrNotResolved
		}
		abs, err := filepath.Abs(s.File)
		if err != nil {
			return nil, err
		}
		t.specs = append(t.specs, abs)
		for i, tg := range targets {
			if problems := tg.Backend.Check(r); len(problems) > 0 {
				errs = append(errs, problems...)
				continue
			}
			o, err := NewOrigin(tg.Root, s.File)
			if err != nil {
				return nil, err
			}
			files, err := tg.Backend.Files(r, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", s.File, tg.Backend.Name(), err)
			}
			for _, f := range files {
				if err := checkFile(tg.Backend, o, f); err != nil {
					return nil, fmt.Errorf("%s: %s backend: %w", s.File, tg.Backend.Name(), err)
				}
				t.files = append(t.files, treeFile{File: f, target: i, spec: abs})
			}
		}
	}
	errs.RemoveMultiples()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(specs) > 0 {
		if err := t.packageFiles(); err != nil {
			return nil, err
		}
	}
	if err := t.checkClaims(specs); err != nil {
		return nil, err
	}
	slices.SortStableFunc(t.files, func(a, b treeFile) int {
		if c := strings.Compare(t.targets[a.target].Root, t.targets[b.target].Root); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return t, nil
}

// checkFile enforces the Backend rules a file can be checked against.
func checkFile(b Backend, o Origin, f File) error {
	m := b.Marker()
	if err := checkPath(f.Path); err != nil {
		return err
	}
	switch {
	case !m.ends(f.Path):
		return fmt.Errorf("%s does not end in %s", f.Path, strings.Join(append([]string{m.Suffix}, m.Also...), " or "))
	case !bytes.HasPrefix(f.Content, []byte(Mark(b, o, f.Path))):
		return fmt.Errorf("%s does not start with its marker %q", f.Path, Mark(b, o, f.Path))
	}
	return nil
}

// maxPathDepth is how many elements a generated file's path may have: a
// package directory in the directory of a target beside the Go packages,
// as in python/jobgen_vocab/jobs.py.
const maxPathDepth = 3

// checkPath enforces the rules of every generated file's path, a spec's or
// a package's: clean, slash-separated, inside the output root and at most
// maxPathDepth elements deep.
func checkPath(p string) error {
	switch {
	case p != path.Clean(p) || path.IsAbs(p) || strings.HasPrefix(p, "../") || strings.Contains(p, `\`):
		return fmt.Errorf("%s is not a clean path inside the output root", p)
	case strings.Count(p, "/") > maxPathDepth-1:
		return fmt.Errorf("%s is more than %d elements deep", p, maxPathDepth)
	}
	return nil
}

// checkClaims refuses two specs yielding one file, and two targets of one
// root writing into one directory.
func (t *Tree) checkClaims(specs []*Resolved) error {
	type claim struct {
		target int
		spec   string
	}
	files := map[string]claim{}
	dirs := map[string]claim{}
	var problems ErrorList
	var pairs []string
	for _, f := range t.files {
		root := t.targets[f.target].Root
		key := root + "\x00" + f.Path
		if first, dup := files[key]; dup && f.spec != "" && first.spec != f.spec && !slices.Contains(pairs, first.spec+"\x00"+f.spec) {
			pairs = append(pairs, first.spec+"\x00"+f.spec)
			problems.Add(t.packagePos(specs, f.spec), "%s and %s both generate %s; give them different package names", t.specFile(specs, first.spec), t.specFile(specs, f.spec), filepath.Join(root, filepath.FromSlash(f.Path)))
		}
		if first, dup := files[key]; dup && f.spec == "" && first.spec != "" {
			problems.Add(t.packagePos(specs, first.spec), "%s generates %s, a file of the %s package itself; rename its package", t.specFile(specs, first.spec), filepath.Join(root, filepath.FromSlash(f.Path)), t.targets[f.target].Backend.Name())
			continue
		}
		files[key] = claim{f.target, f.spec}
		dir := root + "\x00" + path.Dir(f.Path)
		if first, dup := dirs[dir]; dup && t.targets[first.target].Backend.Name() != t.targets[f.target].Backend.Name() {
			at := f.spec
			if at == "" {
				at = first.spec // a package file's directory is reported at the spec that claimed it
			}
			problems.Add(t.packagePos(specs, at), "%s (from %s) and %s (from %s) would both write into %s; rename one package",
				t.targets[first.target].Backend.Name(), t.specFile(specs, first.spec), t.targets[f.target].Backend.Name(), t.specFile(specs, f.spec),
				filepath.Join(root, filepath.FromSlash(path.Dir(f.Path))))
		} else if !dup {
			dirs[dir] = claim{f.target, f.spec}
		}
	}
	problems.RemoveMultiples()
	return problems.Err()
}

// packagePos is where the spec at abs names its package, where a clash of
// two specs' outputs is reported.
func (t *Tree) packagePos(specs []*Resolved, abs string) Pos {
	i := slices.Index(t.specs, abs)
	if i < 0 {
		return Pos{} // a package file's: no spec names it
	}
	return specs[i].Spec().Package.Pos
}

// specFile is the spec at abs as the run names it.
func (t *Tree) specFile(specs []*Resolved, abs string) string {
	i := slices.Index(t.specs, abs)
	if i < 0 {
		return "its package"
	}
	return specs[i].Spec().File
}

// Files returns the tree's files of target i.
func (t *Tree) Files(i int) []File {
	var out []File
	for _, f := range t.files {
		if f.target == i {
			out = append(out, f.File)
		}
	}
	return out
}

// roots are the distinct roots of the tree's targets, in order.
func (t *Tree) roots() []string {
	var out []string
	for _, tg := range t.targets {
		if !slices.Contains(out, tg.Root) {
			out = append(out, tg.Root)
		}
	}
	return out
}

// A File is one generated file: its path, slash-separated and relative to the
// output root, and its content.
type File struct {
	Path    string
	Content []byte
}

// Header is the first line of a generated Go file that comes from no spec,
// and of every Go file jobgen wrote before markers named their spec. It
// follows Go's convention for generated code, so tools and reviewers skip
// the file. A Go file generated from a spec opens with golang.Backend's marker
// instead, which also names the spec.
const Header = "// Code generated by jobgen. DO NOT EDIT."
