package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"slices"
)

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

// writeRoot makes the changes under one root: it removes the orphans and
// the directories they leave empty, and writes the rest from content,
// keyed by root and path.
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

// writeAtomic writes data to name under r through a temporary file beside
// it, renamed into place, so a reader never sees a half-written file.
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
