package serverlesson

import "github.com/mcplab/mcplab/grading"

// Setup is how a starter server in lang (one of lessons.StarterLanguages;
// JavaScript for any other) is built and started, on stdio.
func (Kind) Setup(lang string) grading.Setup {
	const note = "`run` starts your server on stdio, the way the grader starts it"
	switch lang {
	case "go":
		return grading.Setup{
			Build: grading.GoBuild("server"),
			Run: `# Start the server ./build compiled, on stdio.
: "${LAB_WORK:?LAB_WORK must name the folder ./build wrote the server to}"
exec "$LAB_WORK/server"
`,
			Needs: "Go", Main: "main.go", RunNote: note,
		}
	case "python":
		return grading.Setup{Run: "# Start the server on stdio.\nexec python3 \"$(dirname \"$0\")/server.py\"\n", Needs: "Python 3", Main: "server.py", RunNote: note}
	default:
		return grading.Setup{Run: "# Start the server on stdio.\nexec node \"$(dirname \"$0\")/server.js\"\n", Needs: "Node", Main: "server.js", RunNote: note}
	}
}
