package spec_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// consumerTS is a front end of the package: it decodes a follow frame and a
// subagents fact, refuses one of each, and checks that both refusals are the
// one DecodeError class of the package's runtime.
const consumerTS = `import { decodeFollowFrame, type FollowFrame } from "@jobgen/jobgen/jobs";
import { decodeFact } from "@jobgen/jobgen/subagents";
import { DecodeError } from "@jobgen/jobgen/runtime";

const frame: FollowFrame = decodeFollowFrame({ frame: "output", chunks: [], next: 3 });
const refusals: unknown[] = [];
for (const bad of [() => decodeFollowFrame({ frame: "paused" }), () => decodeFact({ type: "subagent/unknown", v: 1, data: {} })]) {
  try {
    bad();
  } catch (e) {
    refusals.push(e);
  }
}
const shared = refusals.length === 2 && refusals.every((e) => e instanceof DecodeError);
console.log(JSON.stringify({ frame: frame.frame, shared }));
`

// TestThePackageInstallsAndImports: a front end runs
// npm install ../path/generated/ts, linked (npm's default for a directory,
// checked under node16 resolution) or copied (--install-links, as a packed
// tarball installs; checked under bundler resolution), type-checks against
// it with every strict flag, and
// Node 20 imports the package's JavaScript as it is, without a build step;
// errors of two vocabularies are one class.
func TestThePackageInstallsAndImports(t *testing.T) {
	node, tsc := requireNode(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm is not installed under CI=true")
		}
		t.Skip("needs npm")
	}
	pkg, _ := filepath.Abs("../generated/ts")
	for _, c := range []struct {
		install    []string
		resolution string
	}{{nil, "node16"}, {[]string{"--install-links"}, "bundler"}} {
		install, resolution := c.install, c.resolution
		t.Run(strings.Join(append(install, resolution), " "), func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("package.json", `{"name": "front-end", "private": true, "type": "module"}`)
			args := append([]string{"install", "--no-audit", "--no-fund", "--offline"}, install...)
			cmd := exec.Command(npm, append(args, pkg)...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("npm install %s: %v\n%s", pkg, err, out)
			}
			module := map[string]string{"node16": "node16", "bundler": "es2022"}[resolution]
			write("tsconfig.json", `{"compilerOptions": {"strict": true, "noUnusedLocals": true, "noUnusedParameters": true,
  "noPropertyAccessFromIndexSignature": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true,
  "verbatimModuleSyntax": true, "skipLibCheck": false, "target": "es2022", "lib": ["es2022"], "types": [],
  "module": "`+module+`", "moduleResolution": "`+resolution+`", "outDir": "out"}, "files": ["main.ts", "console.d.ts"]}`)
			write("console.d.ts", "declare const console: { log(message: string): void };\n")
			write("main.ts", consumerTS)
			build := exec.Command(tsc, "-p", ".", "--listFiles")
			build.Dir = dir
			out, err := build.CombinedOutput()
			if err != nil {
				t.Fatalf("tsc: %v\n%s", err, out)
			}
			for _, f := range strings.Split(string(out), "\n") {
				if strings.Contains(f, "@jobgen/jobgen") || strings.Contains(f, "generated/ts") {
					if !strings.HasSuffix(f, ".d.mts") {
						t.Errorf("tsc read %s: a front end should see only the package's declarations", f)
					}
				}
			}
			run := exec.Command(node, "out/main.js")
			run.Dir = dir
			got, err := run.CombinedOutput()
			if err != nil || strings.TrimSpace(string(got)) != `{"frame":"output","shared":true}` {
				t.Fatalf("node out/main.js: %v\n%s", err, got)
			}
		})
	}
}
