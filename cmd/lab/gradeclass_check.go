package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/lab/textesc"

	"github.com/mcplab/mcplab/grading"
)

// inside reports whether the path p is root or lies under it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// checkClassOut finds, before any grading, the --out folders grade-class
// could not make: one in a folder that does not exist, or whose name is
// taken by something that is not an earlier run's results. class.CreateOut
// checks again, and the rest (who may write to the folders above it), when
// it makes the folder.
func checkClassOut(out string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return usagef("-out %s: %v", out, err)
	}
	parent := filepath.Dir(abs)
	if info, err := os.Stat(parent); err != nil || !info.IsDir() {
		return usagef("-out %s: the folder %s does not exist, so the results could not be written there (nothing was graded); "+
			"make it first, or name a new folder in one that exists", out, parent)
	}
	info, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return usagef("-out %s: %v (nothing was graded)", out, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 || !info.IsDir() {
		return usagef("-out %s already exists and is not a folder the grader made (nothing was graded): name a new folder, or remove it first", out)
	}
	if m, err := os.Lstat(filepath.Join(abs, class.OutMarker)); err != nil || !m.Mode().IsRegular() {
		return usagef("-out %s already exists and was not made by lab grade-class (it has no %s), so the grader will not replace it "+
			"(nothing was graded): name a new folder, or remove it first", out, class.OutMarker)
	}
	return nil
}

// resumeNote says, before the grading, what the earlier results of a
// --resume-from may give: how many may be reused and under which scale, or
// that none may, and why.
func resumeNote(w io.Writer, earlier *class.Earlier, asked float64) {
	switch {
	case earlier.Len() == 0 && earlier.OtherScale > 0:
		fmt.Fprintf(w, "lab grade-class: none of the earlier results in %s is reused: %d were graded with deadlines %s, not the × %g asked for "+
			"(leave out --time-scale to reuse them under their own scale)\n",
			earlier.Dir, earlier.OtherScale, scales(earlier.Scales), asked)
	case earlier.Len() == 0:
		fmt.Fprintf(w, "lab grade-class: none of the earlier results in %s can be reused (%d graded otherwise); every student is graded again\n",
			earlier.Dir, earlier.Skipped)
	default:
		how := "the deadlines it used"
		if asked == 0 {
			how = "its deadlines"
		}
		fmt.Fprintf(w, "lab grade-class: %s in %s may be reused, where the submission's files are unchanged (%d graded otherwise, not reused); %s: × %g\n",
			grading.CountOf(earlier.Len(), "earlier result", "earlier results"), earlier.Dir, earlier.Skipped, how, earlier.TimeScale)
	}
}

func scales(list []float64) string {
	var parts []string
	for _, s := range list {
		parts = append(parts, fmt.Sprintf("× %g", s))
	}
	return strings.Join(parts, " or ")
}

// notReused says, one line per student, why a student of the class was
// graded again rather than given its earlier result.
func notReused(w io.Writer, earlier *class.Earlier, c *class.Class) {
	reused := 0
	for _, s := range c.Students {
		if earlier.Reused(s) {
			reused++
			continue
		}
		fmt.Fprintf(w, "lab grade-class: %s: graded again, not reused: %s\n", textesc.Line(s.Name), earlier.WhyNot(s))
	}
	fmt.Fprintf(w, "lab grade-class: %d of %s reused from %s\n", reused, grading.CountOf(len(c.Students), "result", "results"), earlier.Dir)
}
