package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// This file compares a Tree with the file system: what each root holds,
// whose each file is by its marker, and how it differs from the tree.

// Compare reports how the file system differs from the tree, sorted by
// root and path. It reads only; see the rules at the top of output.go.
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

// A found file is one of jobgen's, met while scanning a root.
type found struct {
	path   string
	target int
	origin string // as the marker writes it; "" for a legacy marker
}

// compareRoot reports the changes under one root: each file the tree puts
// there that is missing, stale or in conflict, then the orphans among
// jobgen's files there, sorted by path.
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
			c.Kind, c.Diff = Missing, UnifiedDiff("/dev/null", shown, nil, f.Content)
		case kind == Conflict:
			c.Kind, c.Note = Conflict, note
		case !bytes.Equal(old, f.Content):
			c.Kind, c.Diff = Stale, UnifiedDiff(shown, shown+" (from spec)", old, f.Content)
		default:
			continue
		}
		changes = append(changes, c)
	}
	if r == nil {
		return changes, nil
	}
	retired, err := t.retiredFiles(r, root, yielded)
	if err != nil {
		return nil, err
	}
	changes = append(changes, retired...)
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
		changes = append(changes, Change{Root: root, Path: m.path, Kind: Orphan, Note: note, Diff: UnifiedDiff(shown, "/dev/null", old, nil)})
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
	if f.spec == "" {
		return existingPackageFile(r, f)
	}
	old, err = r.ReadFile(f.Path)
	if err != nil {
		return nil, "", "", err
	}
	b := t.targets[f.target].Backend
	origin, ok := ReadMarker(b, old)
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
// at most maxPathDepth elements deep whose name ends in a target's suffix
// and whose content starts with its marker. Links are not followed.
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
			case e.IsDir() && depth < maxPathDepth:
				if err := visit(p, depth+1); err != nil {
					return err
				}
				continue
			case !e.Type().IsRegular():
				continue
			}
			for i, tg := range t.targets {
				if tg.Root != root || !tg.Backend.Marker().ends(e.Name()) {
					continue
				}
				head, err := readHead(r, p)
				if err != nil {
					return err
				}
				if origin, ok := ReadMarker(tg.Backend, head); ok {
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

// ReadMarker reports whether content starts with b's marker, and the
// origin it names: "" for the marker of a jobgen that did not name specs
// (Header, or an origin without ./ or ../), whose owner is unknown.
// Line endings converted to CRLF by a checkout still count.
func ReadMarker(b Backend, content []byte) (origin string, ok bool) {
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
