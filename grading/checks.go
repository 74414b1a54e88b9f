package grading

import (
	"fmt"
	"strconv"

	"github.com/mcplab/mcplab/lab/txtar"
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
	sc, err := txtar.Files(data)
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
		fields := c.fields()
		for _, kv := range lessons.KeyValues(f.Data) {
			if !kv.OK {
				return nil, fmt.Errorf("check %s, line %d: want \"key: value\"", f.Name, kv.Line)
			}
			if kv.Key == "derived" {
				return nil, fmt.Errorf("check %s, line %d: \"derived:\" is no longer read: name the judge that works the check out, as \"judge: NAME\" (lessons/README.md lists the judges)", f.Name, kv.Line)
			}
			known, err := fields.Set(kv)
			if err != nil {
				return nil, err
			}
			if !known {
				return nil, fmt.Errorf("check %s, line %d: unknown key %q (want %s)", f.Name, kv.Line, kv.Key, fields.Keys())
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

// fields are the keys of check c's entry, in the order a message lists
// them, each setting its part of c.
func (c *Check) fields() lessons.Fields {
	return lessons.Fields{
		{Key: "title", Text: &c.Title},
		{Key: "points", Parse: func(kv lessons.KeyValue) error {
			p, err := strconv.Atoi(kv.Value)
			if err != nil || p < 0 {
				return fmt.Errorf("check %s: points %q is not a whole number", c.ID, kv.Value)
			}
			c.Points = p
			return nil
		}},
		{Key: "rule", Text: &c.Rule},
		{Key: "fix", Text: &c.Fix},
		{Key: "judge", Parse: func(kv lessons.KeyValue) error {
			if c.Judge != "" {
				return fmt.Errorf("check %s, line %d: a second \"judge:\" line; a check has one judge", c.ID, kv.Line)
			}
			name, params, err := parseJudgeLine(kv.Value)
			if err != nil {
				return fmt.Errorf("check %s, line %d: %w", c.ID, kv.Line, err)
			}
			c.Judge, c.Params = name, params
			return nil
		}},
	}
}
