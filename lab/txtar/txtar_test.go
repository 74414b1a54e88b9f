package txtar

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	data := "a comment\nof two lines\n-- one --\nx\n\n--  two  --\r\ny\r\n-- --\n--x --\n-- three --\nlast line, no newline"
	got := Parse([]byte(data))
	want := Archive{
		Comment: []byte("a comment\nof two lines\n"),
		Files: []File{
			{Name: "one", Data: []byte("x\n\n"), Line: 3},
			{Name: "two", Data: []byte("y\r\n-- --\n--x --\n"), Line: 6},
			{Name: "three", Data: []byte("last line, no newline"), Line: 10},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got  %+v\n want %+v", got, want)
	}
}

// A file with nothing in it has no data; an archive with no marker is all
// comment.
func TestParseEdges(t *testing.T) {
	if got := Parse([]byte("-- a --\n-- b --\n")); len(got.Comment) != 0 || len(got.Files) != 2 || got.Files[0].Data != nil || got.Files[1].Line != 2 {
		t.Errorf("two empty files: %+v", got)
	}
	if got := Parse([]byte("just words\n")); string(got.Comment) != "just words\n" || got.Files != nil {
		t.Errorf("no marker: %+v", got)
	}
	if got := Parse(nil); got.Comment != nil || got.Files != nil {
		t.Errorf("nothing: %+v", got)
	}
}

// Files refuses a marker with no name, at its line; Parse keeps it as a
// file named "".
func TestFilesNamelessMarker(t *testing.T) {
	data := []byte("-- a --\nx\n--   --\ny\n")
	if _, err := Files(data); err == nil || err.Error() != "line 3: a file marker with no name" {
		t.Errorf("Files: %v, want the error at line 3", err)
	}
	if got := Parse(data).Files; len(got) != 2 || got[1].Name != "" || string(got[1].Data) != "y\n" {
		t.Errorf("Parse keeps the nameless file: %+v", got)
	}
	files, err := Files([]byte("-- a --\nx\n"))
	if err != nil || len(files) != 1 || files[0].Name != "a" {
		t.Errorf("Files of one named file: %+v, %v", files, err)
	}
}
