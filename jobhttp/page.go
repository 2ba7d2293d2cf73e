package jobhttp

import "embed"

// staticFiles is the live page: HTML, CSS, the JavaScript of the package's
// modules it imports, and the page's own TypeScript compiled (see
// tools/ts/page.sh). The TypeScript sources and declarations beside them are
// for the compiler, not served. The route table's Page serves them, under
// a strict content security policy (httproute's files answer).
//
//go:embed static/*.html static/*.css static/*.mjs
var staticFiles embed.FS
