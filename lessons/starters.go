package lessons

import (
	_ "embed"
	"fmt"
	"path"
	"sort"
	"strings"
)

// The starters cannot be embedded from their folders: a Go starter is a
// module of its own (it has a go.mod), and go:embed refuses files of
// another module. starters.txtar is a copy of every lesson's
// starter/LANG/ folders, made by the command below; a test fails when it
// no longer matches the folders.
//
//go:generate go test -run TestStartersArchive -update .
//go:embed starters.txtar
var startersArchive []byte

// StarterLanguages returns the languages a starter may be written in, as
// `lab assignment --lang` names them.
func StarterLanguages() []string { return []string{"go", "python", "javascript"} }

// StarterFile is one file of a starter, named by its path inside the
// starter's folder.
type StarterFile struct {
	Name string
	Data []byte
}

// Starter returns the files of the lesson's starter in lang, sorted by
// name, or an error naming the languages the lesson has starters in.
func (m *Manifest) Starter(lang string) ([]StarterFile, error) {
	files, err := m.starterFiles()
	if err != nil {
		return nil, err
	}
	prefix := path.Join(m.Dir, "starter", lang) + "/"
	var out []StarterFile
	have := map[string]bool{}
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f.Name, path.Join(m.Dir, "starter")+"/"); ok {
			have[strings.SplitN(rest, "/", 2)[0]] = true
		}
		if name, ok := strings.CutPrefix(f.Name, prefix); ok {
			out = append(out, StarterFile{Name: name, Data: f.Data})
		}
	}
	if len(out) == 0 {
		var langs []string
		for l := range have {
			langs = append(langs, l)
		}
		sort.Strings(langs)
		if len(langs) == 0 {
			return nil, fmt.Errorf("lesson %d (%s) has no starter in any language", m.Number, m.Title)
		}
		return nil, fmt.Errorf("lesson %d (%s) has no starter in %q (it has: %s)", m.Number, m.Title, lang, strings.Join(langs, ", "))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
