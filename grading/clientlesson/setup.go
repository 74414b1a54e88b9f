package clientlesson

import "github.com/mcplab/mcplab/grading"

// Setup is how a starter client in lang (one of lessons.StarterLanguages;
// JavaScript for any other) is built and started: the grader starts it
// with --config PATH, which run passes on.
func (Kind) Setup(lang string) grading.Setup {
	const (
		start = "# Start the client. The grader adds --config PATH (the servers to use), passed on here.\n"
		note  = "`run` starts your client, the way the grader starts it (the grader adds `--config PATH`)"
	)
	switch lang {
	case "go":
		return grading.Setup{
			Build: grading.GoBuild("client"),
			Run: start + `: "${LAB_WORK:?LAB_WORK must name the folder ./build wrote the client to}"
exec "$LAB_WORK/client" "$@"
`,
			Needs: "Go", Main: "main.go", RunNote: note,
		}
	case "python":
		return grading.Setup{Run: start + "exec python3 \"$(dirname \"$0\")/client.py\" \"$@\"\n", Needs: "Python 3", Main: "client.py", RunNote: note}
	default:
		return grading.Setup{Run: start + "exec node \"$(dirname \"$0\")/client.js\" \"$@\"\n", Needs: "Node", Main: "client.js", RunNote: note}
	}
}
