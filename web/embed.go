// Package web holds the web UI's templates and static files (styles,
// scripts, the vendored graph library), embedded in the binary; the
// handlers that serve them at /ui/ are in package handlers (ui*.go), where
// they call the HTTP API's own functions.
package web

import (
	"embed"
	"io/fs"
)

//go:embed templates/*.html
var templates embed.FS

//go:embed static
var static embed.FS

// Templates are the UI's html/template files, one per screen, and
// layout.html, which every screen fills.
func Templates() fs.FS { return templates }

// Static are the files served under /ui/static/.
func Static() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the folder is embedded above
	}
	return sub
}
