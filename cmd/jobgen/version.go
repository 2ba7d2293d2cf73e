package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "Version prints jobgen's module version, the commit it was built from when\nknown, and the Go version that built it.", stderr)
	if code, stop := parse(fs, args, stdout); stop {
		return code
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionText(info, ok))
	return exitOK
}

// versionText describes a build: the module version go install or go get
// -tool recorded (v1.2.0, or a pseudo-version), else the VCS revision a
// build inside the repository stamped, and the Go version.
func versionText(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "jobgen (unknown version: built without module information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var extra []string
	if rev := settings["vcs.revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		extra = append(extra, rev)
	}
	if t := settings["vcs.time"]; t != "" {
		extra = append(extra, t)
	}
	extra = append(extra, info.GoVersion)
	return fmt.Sprintf("jobgen %s (%s)", version, strings.Join(extra, ", "))
}
