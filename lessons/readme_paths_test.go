package lessons_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoDirs are the repository's top folders: a code span of README.md
// that starts with one names a path from the repository's root.
var repoDirs = []string{"cmd", "docker", "grading", "internal", "lab", "lessons"}

// codeSpan is one `...` of Markdown.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// TestReadmeNamesWhatExists holds lessons/README.md, the list of what a new
// lesson, kind or transport touches, to the code: every path it names from
// the repository's root exists (a Go identifier after it, as in
// `lab/play.Player`, is declared in that package); every path inside a
// lesson's folder exists in at least one lesson; every `pkg.Name` is
// declared in a package of that name; and the methods it lists for
// grading.Kind and grading.Lesson are exactly those interfaces' methods.
func TestReadmeNamesWhatExists(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	checked := 0
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		span := m[1]
		if problem, ok := spanProblem(root, span); ok {
			checked++
			if problem != "" {
				t.Errorf("lessons/README.md names `%s`: %s", span, problem)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d code spans of lessons/README.md were checked: has the file's form changed?", checked)
	}
	for _, iface := range []string{"Kind", "Lesson"} {
		listed := listedMethods(t, text, "grading."+iface)
		have := interfaceMethods(t, filepath.Join(root, "grading"), iface)
		if !slices.Equal(listed, have) {
			t.Errorf("lessons/README.md lists the methods of grading.%s as %v; the interface has %v", iface, listed, have)
		}
	}
}

// spanProblem says what is wrong with a code span that names a path or a
// Go identifier ("" when it is right), and false when the span is neither
// (an MCP method, a hook, a command line).
func spanProblem(root, span string) (string, bool) {
	if strings.ContainsAny(span, " =:") {
		return "", false
	}
	first, _, hasSlash := strings.Cut(span, "/")
	if hasSlash && slices.Contains(repoDirs, first) {
		path, ident := splitIdent(span)
		if exists(filepath.Join(root, path)) {
			if ident != "" && !declares(filepath.Join(root, path), ident) {
				return "package " + path + " declares no " + ident, true
			}
			return "", true
		}
		if inSomeLesson(root, path) {
			return "", true
		}
		return "no such path in the repository or in any lesson's folder", true
	}
	if strings.HasPrefix(span, "*/") {
		if matches, _ := filepath.Glob(filepath.Join(root, "lessons", span)); len(matches) == 0 {
			return "the pattern matches nothing under lessons/", true
		}
		return "", true
	}
	if hasSlash && (strings.HasSuffix(span, "/") || strings.Contains(span, ".")) && !strings.HasPrefix(span, "/") {
		if !inSomeLesson(root, span) {
			return "no lesson's folder has it", true
		}
		return "", true
	}
	if strings.HasSuffix(span, ".go") {
		if !exists(filepath.Join(root, "lessons", span)) {
			return "lessons/ has no such file", true
		}
		return "", true
	}
	if pkg, ident, ok := strings.Cut(span, "."); ok && regexp.MustCompile(`^[a-z][a-z0-9]*$`).MatchString(pkg) && regexp.MustCompile(`^[A-Z]\w*$`).MatchString(ident) {
		for _, dir := range packageDirs(root, pkg) {
			if declares(dir, ident) {
				return "", true
			}
		}
		return "no package " + pkg + " declares " + ident, true
	}
	return "", false
}

// splitIdent splits "lab/play.Player" into the path and the identifier.
func splitIdent(span string) (path, ident string) {
	dir, last := filepath.Split(span)
	if base, id, ok := strings.Cut(last, "."); ok && id != "" && id[0] >= 'A' && id[0] <= 'Z' {
		return dir + base, id
	}
	return span, ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// inSomeLesson reports whether a lesson folder (lessons/NN-*) has path,
// which may be a glob.
func inSomeLesson(root, path string) bool {
	matches, _ := filepath.Glob(filepath.Join(root, "lessons", "[0-9][0-9]-*", path))
	return len(matches) > 0
}

// packageDirs lists the folders of the repository whose name is pkg and
// hold Go files.
func packageDirs(root, pkg string) []string {
	var dirs []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules" {
			return filepath.SkipDir
		}
		if d.Name() == pkg {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs
}

// declares reports whether the Go package in dir declares name at its top
// level (a func, type, var or const), or as a method.
func declares(dir, name string) bool {
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.Name == name {
						return true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.Name == name {
								return true
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.Name == name {
									return true
								}
							}
						}
					}
				}
			}
		}
	}
	return false
}

// listedMethods finds "implements `NAME` (...)" in text and returns the
// capitalised code spans of the parentheses, sorted.
func listedMethods(t *testing.T, text, name string) []string {
	t.Helper()
	text = strings.Join(strings.Fields(text), " ")
	mark := "implements `" + name + "` ("
	i := strings.Index(text, mark)
	if i < 0 {
		t.Fatalf("lessons/README.md does not say what implements %s: %q is gone", name, mark)
	}
	rest := text[i+len(mark):]
	depth, end := 1, -1
	for j, r := range rest {
		if r == '(' {
			depth++
		} else if r == ')' {
			if depth--; depth == 0 {
				end = j
				break
			}
		}
	}
	if end < 0 {
		t.Fatalf("lessons/README.md: the list of %s's methods is not closed", name)
	}
	var names []string
	for _, m := range codeSpan.FindAllStringSubmatch(rest[:end], -1) {
		if regexp.MustCompile(`^[A-Z]\w*$`).MatchString(m[1]) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// interfaceMethods lists the methods of the interface name declared in the
// package in dir, sorted (embedded interfaces are not followed).
func interfaceMethods(t *testing.T, dir, name string) []string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range g.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || ts.Name.Name != name {
						continue
					}
					it, ok := ts.Type.(*ast.InterfaceType)
					if !ok {
						t.Fatalf("grading.%s is not an interface", name)
					}
					var names []string
					for _, m := range it.Methods.List {
						for _, n := range m.Names {
							names = append(names, n.Name)
						}
					}
					slices.Sort(names)
					return names
				}
			}
		}
	}
	t.Fatalf("the grading package declares no %s", name)
	return nil
}
