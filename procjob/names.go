package procjob

import (
	"path/filepath"
	"strings"
)

func baseName(program string) string { return filepath.Base(program) }

// commandLine renders a command for a label, quoting arguments that need it.
func commandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}
