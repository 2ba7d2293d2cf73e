package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
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
}

type treeFile struct {
	File
	target int
	spec   string // the absolute path of the spec it came from
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

func within(dir, p string) bool {
	return strings.HasPrefix(p, dir+string(filepath.Separator)) || (strings.HasSuffix(dir, string(filepath.Separator)) && strings.HasPrefix(p, dir))
}

// Render runs every spec through every target. It refuses overlapping
// roots, specs a backend cannot express (an ErrorList of positioned
// problems), two specs yielding one file, two targets sharing a directory,
// and files that break the Backend rules.
func Render(targets []Target, specs []*Resolved) (*Tree, error) {
	t := &Tree{targets: targets}
	if err := CheckRoots(t.roots()); err != nil {
		return nil, err
	}
	var errs ErrorList
	for _, r := range specs {
		s, err := r.model()
		if err != nil {
			return nil, err
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
	switch {
	case f.Path != path.Clean(f.Path) || path.IsAbs(f.Path) || strings.HasPrefix(f.Path, "../") || strings.Contains(f.Path, `\`):
		return fmt.Errorf("%s is not a clean path inside the output root", f.Path)
	case strings.Count(f.Path, "/") > 1:
		return fmt.Errorf("%s is more than two elements deep", f.Path)
	case !strings.HasSuffix(f.Path, m.Suffix):
		return fmt.Errorf("%s does not end in %s", f.Path, m.Suffix)
	case !bytes.HasPrefix(f.Content, []byte(mark(b, o, f.Path))):
		return fmt.Errorf("%s does not start with its marker %q", f.Path, mark(b, o, f.Path))
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
		if first, dup := files[key]; dup && first.spec != f.spec && !slices.Contains(pairs, first.spec+"\x00"+f.spec) {
			pairs = append(pairs, first.spec+"\x00"+f.spec)
			problems.Add(t.packagePos(specs, f.spec), "%s and %s both generate %s; give them different package names", t.specFile(specs, first.spec), t.specFile(specs, f.spec), filepath.Join(root, filepath.FromSlash(f.Path)))
		}
		files[key] = claim{f.target, f.spec}
		dir := root + "\x00" + path.Dir(f.Path)
		if first, dup := dirs[dir]; dup && t.targets[first.target].Backend.Name() != t.targets[f.target].Backend.Name() {
			problems.Add(t.packagePos(specs, f.spec), "%s (from %s) and %s (from %s) would both write into %s; rename one package",
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
	return specs[slices.Index(t.specs, abs)].Spec().Package.Pos
}

func (t *Tree) specFile(specs []*Resolved, abs string) string {
	i := slices.Index(t.specs, abs)
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

// Compare reports how the file system differs from the tree, sorted by
// root and path. It reads only; see the rules at the top of this file.
func (t *Tree) Compare() ([]Change, error) {
	var changes []Change
	for _, root := range t.roots() {
		c, err := t.compareRoot(root)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c...)
	}
	return changes, nil
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

// A found file is one of jobgen's, met while scanning a root.
type found struct {
	path   string
	target int
	origin string // as the marker writes it; "" for a legacy marker
}

func (t *Tree) compareRoot(root string) ([]Change, error) {
	r, err := os.OpenRoot(root)
	if errors.Is(err, fs.ErrNotExist) {
		r = nil // nothing written yet: every file is missing
	} else if err != nil {
		return nil, err
	}
	if r != nil {
		defer r.Close()
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var changes []Change
	yielded := map[string]bool{}
	for _, f := range t.files {
		tg := t.targets[f.target]
		if tg.Root != root {
			continue
		}
		yielded[f.Path] = true
		c := Change{Root: root, Path: f.Path}
		shown := path.Join(filepath.ToSlash(root), f.Path)
		old, kind, note, err := t.existing(r, absRoot, f)
		switch {
		case err != nil:
			return nil, err
		case kind == Missing:
			c.Kind, c.Diff = Missing, unifiedDiff("/dev/null", shown, nil, f.Content)
		case kind == Conflict:
			c.Kind, c.Note = Conflict, note
		case !bytes.Equal(old, f.Content):
			c.Kind, c.Diff = Stale, unifiedDiff(shown, shown+" (from spec)", old, f.Content)
		default:
			continue
		}
		changes = append(changes, c)
	}
	if r == nil {
		return changes, nil
	}
	mine, err := t.scan(r, root)
	if err != nil {
		return nil, err
	}
	for _, m := range mine {
		if yielded[m.path] || m.origin == "" {
			continue
		}
		spec := filepath.Join(absRoot, filepath.FromSlash(path.Dir(m.path)), filepath.FromSlash(m.origin))
		var note string
		if i := t.sameSpec(spec); i >= 0 {
			note = "its spec " + m.origin + " no longer generates it"
		} else if _, err := os.Lstat(spec); errors.Is(err, fs.ErrNotExist) {
			note = "its spec " + m.origin + " no longer exists"
		} else {
			continue // another spec's file, not part of this run
		}
		old, err := r.ReadFile(m.path)
		if err != nil {
			return nil, err
		}
		shown := path.Join(filepath.ToSlash(root), m.path)
		changes = append(changes, Change{Root: root, Path: m.path, Kind: Orphan, Note: note, Diff: unifiedDiff(shown, "/dev/null", old, nil)})
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// existing reads what is at f's path under r, and says whether f may replace it.
func (t *Tree) existing(r *os.Root, absRoot string, f treeFile) (old []byte, kind ChangeKind, note string, err error) {
	if r == nil {
		return nil, Missing, "", nil
	}
	info, err := r.Lstat(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, Missing, "", nil
	case err != nil:
		return nil, Conflict, fmt.Sprintf("cannot be reached inside the root (%v)", err), nil
	case !info.Mode().IsRegular():
		return nil, Conflict, "is not a regular file (jobgen writes only regular files and never follows a link)", nil
	}
	old, err = r.ReadFile(f.Path)
	if err != nil {
		return nil, "", "", err
	}
	b := t.targets[f.target].Backend
	origin, ok := readMarker(b, old)
	switch {
	case !ok:
		return nil, Conflict, fmt.Sprintf("was not written by jobgen: it does not start with the %s marker %q; move it away, then run generate again", b.Name(), strings.TrimSpace(fmt.Sprintf(b.Marker().Format, "<spec>"))), nil
	case origin == "":
		return old, Stale, "", nil // a legacy marker: jobgen's, owner unknown
	}
	spec := filepath.Join(absRoot, filepath.FromSlash(path.Dir(f.Path)), filepath.FromSlash(origin))
	if same(spec, f.spec) {
		return old, Stale, "", nil
	}
	if _, err := os.Lstat(spec); err == nil {
		return nil, Conflict, fmt.Sprintf("was generated from %s, another spec; two specs may not generate one file", origin), nil
	}
	return old, Stale, "", nil // its spec is gone, renamed perhaps: this one takes over
}

// sameSpec returns the index of the run's spec at p, or -1.
func (t *Tree) sameSpec(p string) int {
	return slices.IndexFunc(t.specs, func(s string) bool { return same(s, p) })
}

// same reports whether two paths name one file.
func same(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// scan lists jobgen's files of the targets writing under root: the files
// at most two elements deep whose name ends in a target's suffix and whose
// content starts with its marker. Links are not followed.
func (t *Tree) scan(r *os.Root, root string) ([]found, error) {
	var out []found
	var visit func(dir string, depth int) error
	visit = func(dir string, depth int) error {
		d, err := r.Open(dir)
		if err != nil {
			return err
		}
		entries, err := d.ReadDir(-1)
		d.Close()
		if err != nil {
			return err
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			switch {
			case strings.HasPrefix(e.Name(), "."):
				continue
			case e.IsDir() && depth == 1:
				if err := visit(p, 2); err != nil {
					return err
				}
				continue
			case !e.Type().IsRegular():
				continue
			}
			for i, tg := range t.targets {
				if tg.Root != root || !strings.HasSuffix(e.Name(), tg.Backend.Marker().Suffix) {
					continue
				}
				head, err := readHead(r, p)
				if err != nil {
					return err
				}
				if origin, ok := readMarker(tg.Backend, head); ok {
					out = append(out, found{path: p, target: i, origin: origin})
					break
				}
			}
		}
		return nil
	}
	return out, visit(".", 1)
}

// readHead reads the first kilobyte of a file, enough for any marker.
func readHead(r *os.Root, p string) ([]byte, error) {
	f, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

// readMarker reports whether content starts with b's marker, and the
// origin it names: "" for the marker of a jobgen that did not name specs
// (Header, or an origin without ./ or ../), whose owner is unknown.
// Line endings converted to CRLF by a checkout still count.
func readMarker(b Backend, content []byte) (origin string, ok bool) {
	head := content[:min(len(content), 1024)]
	head = bytes.ReplaceAll(head, []byte("\r\n"), []byte("\n"))
	if bytes.HasPrefix(head, []byte(Header+"\n")) && b.Marker().Suffix == ".go" {
		return "", true
	}
	m := b.Marker().pattern().FindSubmatch(head)
	if m == nil {
		return "", false
	}
	origin = string(m[1])
	if !strings.HasPrefix(origin, "./") && !strings.HasPrefix(origin, "../") {
		return "", true
	}
	return origin, true
}

// Write brings the file system in line with the tree: it writes each missing
// or stale file atomically (a temporary file renamed into place), removes
// orphans and the package directories they leave empty, and returns the
// changes it made. When any change is a Conflict it writes nothing and
// returns a *ConflictError.
func (t *Tree) Write() ([]Change, error) {
	changes, err := t.Compare()
	if err != nil {
		return nil, err
	}
	var conflicts []Change
	for _, c := range changes {
		if c.Kind == Conflict {
			conflicts = append(conflicts, c)
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{conflicts}
	}
	content := map[string][]byte{}
	for _, f := range t.files {
		content[t.targets[f.target].Root+"\x00"+f.Path] = f.Content
	}
	for _, root := range t.roots() {
		if err := writeRoot(root, changes, content); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

func writeRoot(root string, changes []Change, content map[string][]byte) error {
	var mine []Change
	for _, c := range changes {
		if c.Root == root {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	var emptied []string
	for _, c := range mine {
		if c.Kind == Orphan {
			if err := r.Remove(c.Path); err != nil {
				return fmt.Errorf("remove orphaned %s: %w", c.Name(), err)
			}
			if d := path.Dir(c.Path); d != "." && !slices.Contains(emptied, d) {
				emptied = append(emptied, d)
			}
			continue
		}
		if err := writeAtomic(r, c.Path, content[root+"\x00"+c.Path]); err != nil {
			return fmt.Errorf("write %s: %w", c.Name(), err)
		}
	}
	for _, d := range emptied {
		r.Remove(d) // fails, as it should, when anything is left in it
	}
	return nil
}

func writeAtomic(r *os.Root, name string, data []byte) error {
	dir := path.Dir(name)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tmp *os.File
	var tmpName string
	for {
		tmpName = path.Join(dir, fmt.Sprintf(".%s.tmp%d", path.Base(name), rand.Uint32()))
		f, err := r.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		tmp = f
		break
	}
	defer r.Remove(tmpName) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return r.Rename(tmpName, name)
}
