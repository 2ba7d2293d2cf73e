package procjob

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcjobBuildsForTheDocumentedPlatforms compiles the package for the
// platforms its doc describes besides this one; `make cross` builds the whole
// module the same way. The Go toolchain that runs the test is the one that compiles.
func TestProcjobBuildsForTheDocumentedPlatforms(t *testing.T) {
	// go test puts its own GOROOT/bin first in the test's PATH, so this is
	// the toolchain running the test (runtime.GOROOT is deprecated).
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command in PATH: %v", err)
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
