package starter_test

// This file holds the lesson's README to the starters' tables: the
// exercises it gives are the starters' parts, in their order, and the score
// it names after each is the one the starters' scores table gives (which
// starters_test.go checks against the grader).

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// exerciseHeading is one exercise's heading in the lesson's README, and
// exerciseScore the line that ends it.
var (
	exerciseHeading = regexp.MustCompile(`(?m)^### Exercise (\d+): (.+)$`)
	exerciseScore   = regexp.MustCompile(`(?m)^Score after this exercise: \*\*(\d+/\d+)\*\*$`)
	shippedScore    = regexp.MustCompile(`the self-test gives it\s+\*\*(\d+/\d+)\*\*`)
)

// TestLessonExercisesMatchTheStarters reads ../README.md: one exercise a
// part, numbered 1 to 5 in the parts' order, each followed by the score
// after it, and the score as shipped before them, all as the starters'
// scores table says.
func TestLessonExercisesMatchTheStarters(t *testing.T) {
	want := readREADME(t)
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, exercises, ok := strings.Cut(doc, "\n## Exercises\n")
	if !ok {
		t.Fatal(`the lesson's README has no "## Exercises" section`)
	}
	if next := strings.Index(exercises, "\n## "); next >= 0 {
		exercises = exercises[:next]
	}
	if m := shippedScore.FindStringSubmatch(exercises); m == nil {
		t.Errorf(`the Exercises section does not say "the self-test gives it **N/14**" for the starter as shipped`)
	} else if m[1] != want.scores[0] {
		t.Errorf("the Exercises section gives %s as shipped, the starters' table %s", m[1], want.scores[0])
	}
	heads := exerciseHeading.FindAllStringSubmatchIndex(exercises, -1)
	if len(heads) != len(partNames) {
		t.Fatalf("the Exercises section has %d exercises, the starters %d parts", len(heads), len(partNames))
	}
	for i, h := range heads {
		number, title := exercises[h[2]:h[3]], exercises[h[4]:h[5]]
		if number != fmt.Sprint(i+1) {
			t.Errorf("exercise %d is numbered %s", i+1, number)
		}
		if got := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(title, "the "), "The "), " ", "-"); got != partNames[i] {
			t.Errorf("exercise %d is %q, the starters' part %d is %s", i+1, title, i+1, partNames[i])
		}
		end := len(exercises)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		m := exerciseScore.FindStringSubmatch(exercises[h[1]:end])
		switch {
		case m == nil:
			t.Errorf(`exercise %d has no line "Score after this exercise: **N/14**"`, i+1)
		case m[1] != want.scores[i+1]:
			t.Errorf("exercise %d gives %s, the starters' scores table %s after part %d", i+1, m[1], want.scores[i+1], i+1)
		}
	}
}
