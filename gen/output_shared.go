package gen

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// This file holds the rules of shared files: the files a backend writes
// once for all the specs it renders into a root, such as the runtime module
// every generated Python module imports and the package's py.typed and
// pyproject.toml. Every spec yields them alike, so no spec owns one: its
// marker names the backend instead of a spec (SharedMark), Render keeps one
// copy of what several specs yield, Compare and Write treat it as any file
// of jobgen's whose owner is unknown (replaced when stale, never an orphan),
// and its name need not end in the backend's Suffix (py.typed cannot).

// maxPathDepth is how many elements a generated file's path may have: a
// package directory inside the directory of one target beside the Go
// packages, as in python/jobgen_vocab/jobs.py.
const maxPathDepth = 3

// SharedMark is the opening of a shared file of backend b: its marker, with
// the backend in place of a spec. ReadMarker reads it as jobgen's, with no
// origin, since no spec owns the file.
func SharedMark(b Backend) string {
	return fmt.Sprintf(b.Marker().Format, "its "+b.Name()+" backend")
}

// checkShared enforces the Backend rules for a shared file: a clean path at
// most maxPathDepth elements deep, opening with SharedMark.
func checkShared(b Backend, f File) error {
	switch {
	case f.Path != path.Clean(f.Path) || path.IsAbs(f.Path) || strings.HasPrefix(f.Path, "../") || strings.Contains(f.Path, `\`):
		return fmt.Errorf("%s is not a clean path inside the output root", f.Path)
	case strings.Count(f.Path, "/") > maxPathDepth-1:
		return fmt.Errorf("%s is more than %d elements deep", f.Path, maxPathDepth)
	case !bytes.HasPrefix(f.Content, []byte(SharedMark(b))):
		return fmt.Errorf("shared file %s does not start with its marker %q", f.Path, SharedMark(b))
	}
	return nil
}

// keepOneShared drops the copies of a shared file that later specs yield
// into the same root, keeping the first, and refuses copies that differ, or
// a shared file at the path of a file that is not shared: either is a bug
// in the backend, not in a spec.
func (t *Tree) keepOneShared() error {
	type first struct {
		shared  bool
		content []byte
	}
	seen := map[string]first{}
	kept := t.files[:0]
	for _, f := range t.files {
		key := t.targets[f.target].Root + "\x00" + f.Path
		prev, dup := seen[key]
		switch {
		case !dup:
			seen[key] = first{f.Shared, f.Content}
		case prev.shared != f.Shared:
			return fmt.Errorf("%s backend: %s is shared for one spec and not for another", t.targets[f.target].Backend.Name(), f.Path)
		case f.Shared && !bytes.Equal(prev.content, f.Content):
			return fmt.Errorf("%s backend: the specs yield different copies of the shared file %s", t.targets[f.target].Backend.Name(), f.Path)
		case f.Shared:
			continue
		}
		kept = append(kept, f)
	}
	t.files = kept
	return nil
}
