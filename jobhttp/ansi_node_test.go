package jobhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTheSGRReaderInNode runs tools/ts/ansi_test.ts in Node: the page's SGR
// reader (jobhttp/static/ansi.mts, as compiled into ansi.mjs) and its log
// model over a table of chunked output, split and malformed escapes
// included. It needs Node and `make ts-deps`; under CI=true it fails without
// them.
func TestTheSGRReaderInNode(t *testing.T) {
	runNodeScript(t, "ansi_test.ts", 27)
}

// TestTheLogGroupsInNode runs tools/ts/logview_test.ts in Node: the log
// model's groups (GitHub Actions markers and OSC 133 prompt marks, split
// across chunks anywhere), the rule that groups do not nest, which groups
// are collapsed, the rows a collapsed page shows and their line numbers,
// and the row index a search or a link opens a group through. It needs Node
// and `make ts-deps`; under CI=true it fails without them.
func TestTheLogGroupsInNode(t *testing.T) {
	runNodeScript(t, "logview_test.ts", 30)
}

// runNodeScript compiles tools/ts/SCRIPT against the page's committed
// ansi and logview modules and runs it in Node, failing on each "not ok"
// line it prints and when fewer than least cases passed.
func runNodeScript(t *testing.T, script string, least int) {
	t.Helper()
	node, tsc := nodeAndTSC(t)
	root, _ := filepath.Abs("..")
	// The script is compiled beside copies of the page's committed
	// JavaScript and declarations (not its sources, which tsc would
	// prefer), so what runs is what the page serves.
	dir := t.TempDir()
	src, static := filepath.Join(dir, "tools", "ts"), filepath.Join(dir, "jobhttp", "static")
	os.MkdirAll(src, 0o755)
	os.MkdirAll(static, 0o755)
	copyFile(t, filepath.Join(root, "tools/ts", script), filepath.Join(src, script))
	copyFile(t, filepath.Join(root, "tools/ts/node.d.ts"), filepath.Join(src, "node.d.ts"))
	for _, m := range []string{"ansi", "logview"} {
		for _, ext := range []string{".mjs", ".d.mts"} {
			copyFile(t, filepath.Join(root, "jobhttp/static", m+ext), filepath.Join(static, m+ext))
		}
	}
	out := src // the script runs where it was written, beside ../../jobhttp
	conf, _ := json.Marshal(map[string]any{
		"compilerOptions": map[string]any{
			"strict": true, "noUnusedLocals": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true,
			"target": "ES2022", "module": "ES2022", "moduleResolution": "bundler", "lib": []string{"ES2022", "DOM"}, "types": []string{},
			"skipLibCheck": true, "rootDir": src, "outDir": out,
		},
		"files": []string{filepath.Join(src, script), filepath.Join(src, "node.d.ts")},
	})
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), conf, 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`), 0o644)
	if b, err := exec.Command(tsc, "-p", filepath.Join(dir, "tsconfig.json")).CombinedOutput(); err != nil {
		t.Fatalf("tsc %s: %v\n%s", script, err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js := strings.TrimSuffix(script, ".ts") + ".js"
	cmd := exec.CommandContext(ctx, node, filepath.Join(out, js))
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	passed := 0
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.HasPrefix(line, "ok - ") {
			passed++
			continue
		}
		t.Error(line)
	}
	if err != nil || passed < least {
		t.Fatalf("node %s: %v, %d cases passed (want at least %d)", js, err, passed, least)
	}
}

// nodeAndTSC finds node and the pinned tsc, or skips (fails under CI=true).
func nodeAndTSC(t *testing.T) (node, tsc string) {
	t.Helper()
	root, _ := filepath.Abs("..")
	tsc = filepath.Join(root, "tools/ts/node_modules/.bin/tsc")
	node, nodeErr := exec.LookPath("node")
	_, tscErr := os.Stat(tsc)
	if nodeErr != nil || tscErr != nil {
		msg := "the page's TypeScript tests need node and the pinned TypeScript: install Node.js, then run `make ts-deps`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, tsc
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
