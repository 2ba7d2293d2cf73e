package procjob

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestProcjobBuildsForTheDocumentedPlatforms compiles the package for the
// platforms its doc describes besides this one; `make cross` builds the whole
// module the same way. The Go toolchain that runs the test is the one that compiles.
func TestProcjobBuildsForTheDocumentedPlatforms(t *testing.T) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Fatalf("no go command beside this toolchain at %s: %v", gobin, err)
	}
	for _, target := range []struct{ goos, goarch string }{
		{"darwin", "arm64"}, {"freebsd", "amd64"}, {"windows", "amd64"},
	} {
		t.Run(target.goos, func(t *testing.T) {
			cmd := exec.Command(gobin, "build", "-o", os.DevNull, ".")
			cmd.Env = append(os.Environ(), "GOOS="+target.goos, "GOARCH="+target.goarch)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s GOARCH=%s go build: %v\n%s", target.goos, target.goarch, err, out)
			}
		})
	}
}
