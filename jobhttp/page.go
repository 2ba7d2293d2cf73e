package jobhttp

import (
	"embed"
	"io/fs"
	"net/http"
)

// staticFiles is the live page: HTML, CSS, the JavaScript of the package's
// modules it imports, and the page's own TypeScript compiled (see
// tools/ts/page.sh). The TypeScript sources and declarations beside them are
// for the compiler, not served.
//
//go:embed static/*.html static/*.css static/*.mjs
var staticFiles embed.FS

// pageHandler serves the embedded page with a strict content security policy:
// only this origin's scripts, styles and connections.
func pageHandler(static fs.FS) http.Handler {
	files := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		files.ServeHTTP(w, r)
	})
}
