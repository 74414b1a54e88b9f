package kinds

import (
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/lessons"
)

// TestForChecksTheManifest checks each kind refuses a manifest without the
// lines it needs, or whose lines name a server or client the lab does not
// have, with the manifest's file and the line, and that an
// unknown subject is refused with the kinds there are: through For, and
// through Player and Program, which ask For.
func TestForChecksTheManifest(t *testing.T) {
	for text, want := range map[string]string{
		"number: 9\ntitle: T\nsubject: server\n":                                       `lesson.txt: the manifest has no "server" line`,
		"number: 9\ntitle: T\nsubject: client\nclient: host\n":                         `lesson.txt: the manifest has no "servers" line`,
		"number: 9\ntitle: T\nsubject: client\nservers: notes\n":                       `lesson.txt: the manifest has no "client" line`,
		"number: 9\ntitle: T\nsubject: client\n":                                       `lesson.txt: the manifest has no "servers" line`,
		"number: 9\ntitle: T\nsubject: robot\nserver: reader\n":                        `lesson 9: subject "robot": the lab knows no lesson of that kind (it knows client, http-server, server)`,
		"number: 9\ntitle: T\nsubject: server\nserver: reader\n":                       "",
		"number: 9\ntitle: T\nsubject: client\nclient: host\nservers: notes tickets\n": "",
		"number: 9\ntitle: T\nsubject: server\nserver: readr\n":                        `lesson.txt: the server: line: no server named "readr"; the servers are: helpdesk, notes, reader, tickets`,
		"number: 9\ntitle: T\nsubject: client\nclient: host\nservers: notes b\n":       `lesson.txt: the servers: line: no server named "b"; the servers are: helpdesk, notes, reader, tickets`,
		"number: 9\ntitle: T\nsubject: client\nclient: hots\nservers: notes\n":         `lesson.txt: the client: line: no reference client named "hots"; the clients are: host`,
	} {
		m, err := lessons.ReadManifest(fstest.MapFS{"lesson.txt": {Data: []byte(text)}}, ".")
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		_, err = For(m)
		if got := errText(err); got != want {
			t.Errorf("%q: error %q, want %q", text, got, want)
		}
		// lab run and lab assignment ask through these, and refuse alike.
		if _, err := Player(m); errText(err) != want {
			t.Errorf("%q: Player's error %v, want %q", text, err, want)
		}
		if _, err := Program(m); errText(err) != want {
			t.Errorf("%q: Program's error %v, want %q", text, err, want)
		}
	}
}

// TestFind checks Find refuses a folder whose manifest its kind refuses,
// as lab grade-class --lesson-dir does before anything else, and finds the
// built-in lessons.
func TestFind(t *testing.T) {
	dir := fstest.MapFS{"lesson.txt": {Data: []byte("number: 9\ntitle: T\nsubject: server\nready: none\n")}}
	if _, err := Find(9, dir); errText(err) != `lesson.txt: the manifest has no "server" line` {
		t.Errorf("Find of a server lesson without a server: %v", err)
	}
	for n, want := range map[int]string{1: "server", 2: "server", 3: "client"} {
		m, err := Find(n, nil)
		if err != nil || m.Number != n {
			t.Fatalf("Find(%d): %+v, %v", n, m, err)
		}
		if p, err := Program(m); err != nil || p != want {
			t.Errorf("Program of lesson %d: %q, %v; want %q", n, p, err, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
