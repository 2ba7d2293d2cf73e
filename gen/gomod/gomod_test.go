package gomod_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/gen/gomod"
)

// write writes files under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is not on PATH; gomod asks it where modules are")
	}
}

// The module cache holds github.com/google/uuid v1.6.0: this module requires it.
const uuidSum = "github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\ngithub.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n"

func TestResolverFindsModulesAsTheBuildDoes(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	write(t, root, map[string]string{
		"app/go.mod":          "module example.com/app\n\ngo 1.25\n\nrequire (\n\texample.com/base v0.0.0\n\tgithub.com/google/uuid v1.6.0\n)\n\nreplace example.com/base => ../base\n",
		"app/go.sum":          uuidSum,
		"app/spec/app.yaml":   "jobgen: 1\n",
		"base/go.mod":         "module example.com/base\n\ngo 1.25\n",
		"base/spec/base.yaml": "jobgen: 1\n",
	})
	r := gomod.New(filepath.Join(root, "app", "spec")) // any directory of the module
	base, err := r.Module("example.com/base")
	if err != nil {
		t.Fatal(err)
	}
	if base.Dir != filepath.Join(root, "base") || base.Version != "" || base.Main || !strings.Contains(base.String(), "(") {
		t.Errorf("the replaced module = %+v (%s)", base, base)
	}
	if _, err := fs.Stat(base.Files, "spec/base.yaml"); err != nil {
		t.Errorf("its files: %v", err)
	}
	cached, err := r.Module("github.com/google/uuid")
	if err != nil {
		t.Fatal(err)
	}
	if cached.Version != "v1.6.0" || !strings.Contains(cached.Dir, "uuid@v1.6.0") || cached.String() != "github.com/google/uuid v1.6.0" {
		t.Errorf("the module from the cache = %+v", cached)
	}
	self, err := r.Module("example.com/app")
	if err != nil || !self.Main {
		t.Errorf("the module itself = %+v, %v; want it Main", self, err)
	}
}

func TestResolverHonoursTheWorkspace(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	write(t, root, map[string]string{
		"go.work":     "go 1.25\n\nuse (\n\t./app\n\t./base\n)\n",
		"app/go.mod":  "module example.com/app\n\ngo 1.25\n",
		"base/go.mod": "module example.com/base\n\ngo 1.25\n",
	})
	t.Setenv("GOWORK", "")
	base, err := gomod.New(filepath.Join(root, "app")).Module("example.com/base")
	if err != nil {
		t.Fatal(err)
	}
	if base.Dir != filepath.Join(root, "base") || base.Main {
		t.Errorf("the workspace's other module = %+v; want it found, and not the importing module", base)
	}
}

func TestResolverSaysWhatToRun(t *testing.T) {
	needGo(t)
	root := t.TempDir()
	write(t, root, map[string]string{
		"app/go.mod":   "module example.com/app\n\ngo 1.25\n\nrequire github.com/google/uuid v1.6.0\n",
		"app/go.sum":   uuidSum,
		"old/go.mod":   "module example.com/old\n\ngo 1.25\n\nrequire github.com/google/uuid v1.1.0\n",
		"loose/a.yaml": "jobgen: 1\n",
	})
	cases := []struct {
		dir, module, want string
	}{
		{"app", "example.com/other", "example.com/other is not required by the module in"},
		{"old", "github.com/google/uuid", "not all in the module cache"},
		{"loose", "example.com/other", "is in no Go module"},
	}
	for _, c := range cases {
		_, err := gomod.New(filepath.Join(root, c.dir)).Module(c.module)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s in %s: err = %v, want it to say %q", c.module, c.dir, err, c.want)
		}
	}
}
