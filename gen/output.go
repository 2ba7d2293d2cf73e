package gen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A Change is one difference between generated files and a tree.
type Change struct {
	Path string     // slash-separated, relative to the output root
	Kind ChangeKind //
	Diff string     // a unified diff from the tree to the generated content
}

// A ChangeKind says how a tree differs from what the spec yields.
type ChangeKind string

// The kinds of change.
const (
	Missing ChangeKind = "missing" // the spec yields a file the tree lacks
	Stale   ChangeKind = "stale"   // the tree's file differs from what the spec yields
	Orphan  ChangeKind = "orphan"  // a generated file in the tree that the spec no longer yields
)

// Compare reports how the tree under root differs from files. Orphans are
// looked for only in the package directories files write to, and only among
// files that start with Header, so hand-written files are never reported.
func Compare(root string, files []File) ([]Change, error) {
	var changes []Change
	for _, f := range files {
		name := filepath.Join(root, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Path: f.Path, Kind: Missing,
				Diff: unifiedDiff("/dev/null", path.Join(filepath.ToSlash(root), f.Path), nil, f.Content)})
		case err != nil:
			return nil, err
		case !bytes.Equal(old, f.Content):
			p := path.Join(filepath.ToSlash(root), f.Path)
			changes = append(changes, Change{Path: f.Path, Kind: Stale, Diff: unifiedDiff(p, p+" (from spec)", old, f.Content)})
		}
	}
	orphans, err := orphans(root, files)
	if err != nil {
		return nil, err
	}
	for _, o := range orphans {
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(o)))
		if err != nil {
			return nil, err
		}
		changes = append(changes, Change{Path: o, Kind: Orphan, Diff: unifiedDiff(path.Join(filepath.ToSlash(root), o), "/dev/null", old, nil)})
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// orphans lists generated files in the package directories of files that
// files does not contain.
func orphans(root string, files []File) ([]string, error) {
	want := map[string]bool{}
	var dirs []string
	for _, f := range files {
		want[f.Path] = true
		if d := path.Dir(f.Path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	var out []string
	for _, d := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			p := path.Join(d, e.Name())
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || want[p] {
				continue
			}
			generated, err := isGenerated(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				return nil, err
			}
			if generated {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// isGenerated reports whether the file starts with Header.
func isGenerated(name string) (bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	return strings.TrimRight(line, "\r\n") == Header, nil
}

// Write brings the tree under root in line with files: it writes each file
// whose content differs, atomically (a temporary file renamed into place),
// and removes orphaned generated files. It returns the changes it made.
func Write(root string, files []File) ([]Change, error) {
	changes, err := Compare(root, files)
	if err != nil {
		return nil, err
	}
	content := map[string][]byte{}
	for _, f := range files {
		content[f.Path] = f.Content
	}
	for _, c := range changes {
		name := filepath.Join(root, filepath.FromSlash(c.Path))
		if c.Kind == Orphan {
			if err := os.Remove(name); err != nil {
				return nil, fmt.Errorf("remove orphaned %s: %w", name, err)
			}
			continue
		}
		if err := writeAtomic(name, content[c.Path]); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

func writeAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
