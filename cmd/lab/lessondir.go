package main

import (
	"io/fs"
	"os"

	"github.com/mcplab/mcplab/lessons"
)

// dirFS is the --lesson-dir folder's files, or nil when the flag is not
// given (the built-in lessons). They are read through lessons.Folder: plain
// files within the folder only, each within a size cap, and never a FIFO
// waited on. A folder that cannot be opened at all gives os.DirFS's view,
// whose every read then fails as a missing folder's does, naming the file
// the command looked for.
func dirFS(dir string) fs.FS {
	if dir == "" {
		return nil
	}
	if f, err := lessons.Folder(dir); err == nil {
		return f
	}
	return os.DirFS(dir)
}
