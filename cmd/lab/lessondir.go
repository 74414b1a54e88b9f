package main

import (
	"io/fs"
	"os"
)

// dirFS is the --lesson-dir folder's files, or nil when the flag is not
// given (the built-in lessons).
func dirFS(dir string) fs.FS {
	if dir == "" {
		return nil
	}
	return os.DirFS(dir)
}
