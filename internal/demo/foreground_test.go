//go:build linux || darwin

package demo_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/jobgen/jobgen/internal/demo"
)

// TestMain turns the test binary into a demo when DEMO_HELPER says so: it
// prints "ready", runs until SIGINT, prints "stopped" and ends as a demo
// ends, through demo.Main ("foreground") or without taking the terminal
// ("plain").
func TestMain(m *testing.M) {
	mode := os.Getenv("DEMO_HELPER")
	if mode == "" {
		os.Exit(m.Run())
	}
	body := func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("stopped")
		return ctx.Err()
	}
	if mode == "foreground" {
		demo.Main("helper", body)
	}
	os.Exit(demo.Code(body()))
}

// TestCtrlCEndsADemoUnderMakeWithStatusZero runs a demo as `make demo` runs
// one, on a pseudo-terminal, and types Ctrl-C: the demo that took the
// foreground stops and make exits 0; the same demo without it leaves make
// to die of the interrupt (which is what the first case is guarding against).
func TestCtrlCEndsADemoUnderMakeWithStatusZero(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no make under CI=true")
		}
		t.Skip("no make: install it to run this test")
	}
	dir := t.TempDir()
	makefile := filepath.Join(dir, "Makefile")
	if err := os.WriteFile(makefile, []byte("demo:\n\t\"$(EXE)\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode     string
		wantZero bool
	}{
		{"foreground", true},
		{"plain", false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command("make", "-s", "-f", makefile, "demo", "EXE="+os.Args[0])
			cmd.Env = append(os.Environ(), "DEMO_HELPER="+tc.mode)
			term, err := pty.Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			defer term.Close()
			lines := make(chan string, 64)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(term)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			var out []string
			read := func(until string) {
				timeout := time.After(20 * time.Second)
				for {
					select {
					case l, ok := <-lines:
						if !ok {
							return
						}
						out = append(out, l)
						if until != "" && strings.Contains(l, until) {
							return
						}
					case <-timeout:
						t.Fatalf("no %q from make within 20 s:\n%s", until, strings.Join(out, "\n"))
					}
				}
			}
			read("ready")
			if _, err := term.Write([]byte{0x03}); err != nil { // Ctrl-C
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-waited:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("make did not end after Ctrl-C:\n%s", strings.Join(out, "\n"))
			}
			read("")
			transcript := strings.Join(out, "\n")
			if !strings.Contains(transcript, "stopped") {
				t.Errorf("the demo did not see the interrupt:\n%s", transcript)
			}
			var exit *exec.ExitError
			if tc.wantZero && werr != nil {
				t.Errorf("make: %v, want status 0 after Ctrl-C:\n%s", werr, transcript)
			}
			if !tc.wantZero && !errors.As(werr, &exit) {
				t.Errorf("make: %v; want it to die of the interrupt when the demo does not take the terminal", werr)
			}
		})
	}
}
