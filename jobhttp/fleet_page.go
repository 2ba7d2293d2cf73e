package jobhttp

import (
	"bytes"
	"fmt"
	"io/fs"
	"time"
)

// fleetPage is the page a fleet serves: the same files as one host's,
// except that index.html's body says data-view="fleet", so the page knows
// it is a fleet view from the document it loaded, and a single host's page
// never asks api/fleet to find out.
func fleetPage(static fs.FS) (fs.FS, error) {
	index, err := fs.ReadFile(static, "index.html")
	if err != nil {
		return nil, fmt.Errorf("jobhttp: embedded page: %w", err)
	}
	marked := bytes.Replace(index, []byte("<body>"), []byte(`<body data-view="fleet">`), 1)
	if bytes.Equal(marked, index) {
		return nil, fmt.Errorf("jobhttp: embedded page: index.html has no <body> to mark as a fleet view")
	}
	return overlayFS{FS: static, name: "index.html", data: marked}, nil
}

// An overlayFS is an FS with one file's contents replaced.
type overlayFS struct {
	fs.FS
	name string
	data []byte
}

func (o overlayFS) Open(name string) (fs.File, error) {
	if name != o.name {
		return o.FS.Open(name)
	}
	return &memFile{Reader: bytes.NewReader(o.data), info: memInfo{name: name, size: int64(len(o.data))}}, nil
}

// A memFile is an overlay's file: readable and seekable, as
// http.ServeFileFS needs.
type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
