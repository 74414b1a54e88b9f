package grading

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Judge is what a lesson kind says about one of its judges: the work that
// turns a run's traffic into the verdict of a derived check. A catalogue
// entry names its judge on a "judge: NAME key=value ..." line; the kind
// keeps the work itself and asks the catalogue which check each judge
// serves (Served, JudgedBy), so no check id lives in Go.
type Judge struct {
	// Params are the parameters a judge line must give, each once, as
	// key=value; a line with another parameter, or without one of these,
	// is refused.
	Params []string
	// Many lets several checks of one catalogue name the judge, each with
	// its own parameters (the pagination of tools/list and of
	// resources/list); without it, one check of a catalogue at most names
	// the judge, since it would charge every such check with the same
	// faults.
	Many bool
	// Taggable lets scenarios tag expected answers with the judge's check
	// too: the check an expected answer with no other rule belongs to.
	// Other derived checks may not be tagged, so that a wrong answer never
	// fails a check that does not judge answers.
	Taggable bool
	// What says in a few words what the judge judges.
	What string
}

// Judges is a lesson kind's registry of judges by name, as an
// http.ServeMux is of handlers by pattern. Each kind fills its own; the
// zero value is empty and ready to use.
type Judges struct {
	order  []string
	byName map[string]Judge
}

// Handle registers the judge j under name. A name is lower-case letters,
// digits and dashes. Handle panics when the name is malformed or already
// taken, or a parameter name is: that is a mistake in the kind's code, as
// it is for http.ServeMux.Handle, not in a lesson's data.
func (r *Judges) Handle(name string, j Judge) {
	if !judgeWord(name) {
		panic(fmt.Sprintf("grading: judge name %q is not lower-case letters, digits and dashes", name))
	}
	if _, dup := r.byName[name]; dup {
		panic(fmt.Sprintf("grading: judge %q is registered twice", name))
	}
	for i, p := range j.Params {
		if !judgeWord(p) || slices.Contains(j.Params[:i], p) {
			panic(fmt.Sprintf("grading: judge %q: parameter name %q is malformed or given twice", name, p))
		}
	}
	if r.byName == nil {
		r.byName = map[string]Judge{}
	}
	j.Params = slices.Clone(j.Params)
	r.byName[name] = j
	r.order = append(r.order, name)
}

// Lookup returns the judge registered under name.
func (r *Judges) Lookup(name string) (Judge, bool) {
	j, ok := r.byName[name]
	return j, ok
}

// Names lists the registered judges, in the order they were registered.
func (r *Judges) Names() []string {
	return slices.Clone(r.order)
}

// Check refuses a catalogue whose judge lines this registry cannot serve:
// a judge it does not have, a parameter the judge does not take or one it
// needs and is not given, a judge that judges one check named by two, or
// two checks asking one judge for the same thing. The error names the
// check and what the registry knows; the caller adds the catalogue's file.
func (r *Judges) Check(checks []Check) error {
	first := map[string]Check{} // by judge, or judge and parameters for a Many judge
	for _, c := range checks {
		if c.Judge == "" {
			continue
		}
		j, ok := r.byName[c.Judge]
		if !ok {
			return fmt.Errorf("check %s: there is no judge %q (the judges of this kind of lesson: %s)", c.ID, c.Judge, strings.Join(r.order, ", "))
		}
		for _, k := range sortedKeys(c.Params) {
			if !slices.Contains(j.Params, k) {
				return fmt.Errorf("check %s: the judge %s takes no parameter %q (%s)", c.ID, c.Judge, k, takes(j))
			}
		}
		for _, p := range j.Params {
			if _, ok := c.Params[p]; !ok {
				return fmt.Errorf("check %s: the judge %s needs the parameter %s, as \"judge: %s %s=...\" (%s)", c.ID, c.Judge, p, c.Judge, p, takes(j))
			}
		}
		key := c.Judge
		if j.Many {
			key = c.JudgeLine()
		}
		if other, dup := first[key]; dup {
			if j.Many {
				return fmt.Errorf("checks %s and %s both ask for \"judge: %s\": each would be charged with the same faults; give them other parameters, or drop one", other.ID, c.ID, key)
			}
			return fmt.Errorf("checks %s and %s both name the judge %s, which judges one check of a lesson: each would be charged with the same faults; keep it on one of them", other.ID, c.ID, c.Judge)
		}
		first[key] = c
	}
	return nil
}

// Taggable reports whether scenarios may tag expected answers with c: a
// check judged on tagged answers, or one whose judge is Taggable.
func (r *Judges) Taggable(c Check) bool {
	if c.Judge == "" {
		return true
	}
	j, ok := r.byName[c.Judge]
	return ok && j.Taggable
}

// takes says which parameters a judge takes.
func takes(j Judge) string {
	if len(j.Params) == 0 {
		return "it takes none"
	}
	return "it takes " + strings.Join(j.Params, ", ")
}

// Served returns the id of the check of a catalogue that the judge works
// out, or "" when the catalogue has no such check: the lesson then does
// not have it, and a charge to "" is dropped. For a judge that may serve
// several checks, it is the first; see JudgedBy.
func Served(checks []Check, judge string) string {
	for _, c := range checks {
		if c.Judge == judge {
			return c.ID
		}
	}
	return ""
}

// JudgedBy lists the checks of a catalogue that name the judge, in the
// catalogue's order, each with its own parameters.
func JudgedBy(checks []Check, judge string) []Check {
	var out []Check
	for _, c := range checks {
		if c.Judge == judge {
			out = append(out, c)
		}
	}
	return out
}

// JudgeLine is the check's judge with its parameters, as a catalogue
// writes it after "judge:" (parameters in name order); "" for a check
// judged on tagged answers.
func (c Check) JudgeLine() string {
	if c.Judge == "" {
		return ""
	}
	parts := []string{c.Judge}
	for _, k := range sortedKeys(c.Params) {
		parts = append(parts, k+"="+c.Params[k])
	}
	return strings.Join(parts, " ")
}

// parseJudgeLine reads the value of a "judge:" line: a judge's name, then
// key=value parameters separated by spaces.
func parseJudgeLine(val string) (string, map[string]string, error) {
	fields := strings.Fields(val)
	if len(fields) == 0 {
		return "", nil, fmt.Errorf("\"judge:\" names no judge; write \"judge: NAME\", with key=value parameters after the name if the judge takes any")
	}
	name := fields[0]
	if !judgeWord(name) {
		return "", nil, fmt.Errorf("judge name %q is not lower-case letters, digits and dashes", name)
	}
	var params map[string]string
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !judgeWord(k) || v == "" {
			return "", nil, fmt.Errorf("judge %s: parameter %q is not key=value (a key of lower-case letters, digits and dashes, a value with no spaces)", name, f)
		}
		if _, dup := params[k]; dup {
			return "", nil, fmt.Errorf("judge %s: parameter %s is given twice", name, k)
		}
		if params == nil {
			params = map[string]string{}
		}
		params[k] = v
	}
	return name, params, nil
}

// judgeWord reports whether s is a judge's or a parameter's name: lower-case
// letters, digits and dashes, starting with a letter.
func judgeWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
