package grading

import (
	"fmt"
	"strconv"

	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lessons"
)

// Check is one entry of a lesson's check catalogue (its grading/checks.txtar).
type Check struct {
	ID     string
	Title  string
	Points int
	// Rule names the rule a failure breaks; Fix says how to mend it.
	Rule, Fix string
	// Judge names the judge that works a derived check out from the
	// traffic of every scenario, rather than from tagged expected answers,
	// with Params its parameters (see Judges); "" for a tagged check.
	Judge  string
	Params map[string]string
}

// ParseChecks reads a check catalogue: a txtar archive with one file per
// check, named by its id, holding "title:", "points:", "rule:", "fix:" and,
// for a derived check, "judge: NAME key=value ..." lines. It reads the
// judge lines only: whether a lesson kind has the judges they name is
// Judges.Check's to say.
func ParseChecks(data []byte) ([]Check, error) {
	sc, err := scenario.ParseArchive(data)
	if err != nil {
		return nil, err
	}
	var out []Check
	seen := map[string]bool{}
	for _, f := range sc {
		if seen[f.Name] {
			return nil, fmt.Errorf("check %s is listed twice", f.Name)
		}
		seen[f.Name] = true
		c := Check{ID: f.Name}
		for _, kv := range lessons.KeyValues(f.Data) {
			i, key, val := kv.Line-1, kv.Key, kv.Value
			if !kv.OK {
				return nil, fmt.Errorf("check %s, line %d: want \"key: value\"", f.Name, i+1)
			}
			switch key {
			case "title":
				c.Title = val
			case "points":
				p, err := strconv.Atoi(val)
				if err != nil || p < 0 {
					return nil, fmt.Errorf("check %s: points %q is not a whole number", f.Name, val)
				}
				c.Points = p
			case "rule":
				c.Rule = val
			case "fix":
				c.Fix = val
			case "derived":
				return nil, fmt.Errorf("check %s, line %d: \"derived:\" is no longer read: name the judge that works the check out, as \"judge: NAME\" (lessons/README.md lists the judges)", f.Name, i+1)
			case "judge":
				if c.Judge != "" {
					return nil, fmt.Errorf("check %s, line %d: a second \"judge:\" line; a check has one judge", f.Name, i+1)
				}
				name, params, err := parseJudgeLine(val)
				if err != nil {
					return nil, fmt.Errorf("check %s, line %d: %w", f.Name, i+1, err)
				}
				c.Judge, c.Params = name, params
			default:
				return nil, fmt.Errorf("check %s, line %d: unknown key %q (want title, points, rule, fix, judge)", f.Name, i+1, key)
			}
		}
		if c.Title == "" {
			return nil, fmt.Errorf("check %s has no title", f.Name)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the check catalogue is empty")
	}
	return out, nil
}
