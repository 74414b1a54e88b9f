package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mcplab/mcplab/grading/class"
)

const mergeGradesUsage = `merge-grades OUT DIR...

Joins the results folders of a class graded in shards (lab grade-class
--shard K/N, one DIR per shard) into OUT: one grades.csv, summary.md,
class.json and students/ tree, the same as one grade-class run over the
whole class would give. It refuses, with an error and without writing
anything but the new folder, shards of different lessons, lab versions or
time scales, a shard given twice or missing, a shard that was stopped
before it graded everyone, and a student present in two shards. OUT must
not exist (or be an earlier results folder of the lab's). Exit status 0
once merged, 2 when it cannot merge.`

func mergeGradesCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags("merge-grades", mergeGradesUsage, e.stderr)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) < 2 {
		return exitCannot, usagef("name the folder to write and the shards' results folders, for example: lab merge-grades results shard-1 shard-2 shard-3")
	}
	// Every shard is read and checked before the output folder exists, so
	// a refused merge leaves nothing behind.
	m, err := class.Join(rest[1:])
	if err != nil {
		return exitCannot, err
	}
	out, err := class.CreateOut(rest[0])
	if err != nil {
		return exitCannot, err
	}
	defer out.Close()
	if err := m.Write(out); err != nil {
		return exitInternal, err
	}
	c := m.Class
	var summary bytes.Buffer
	if err := c.WriteSummary(&summary); err != nil {
		return exitInternal, err
	}
	if _, err := e.stdout.Write(summary.Bytes()); err != nil {
		return exitInternal, fmt.Errorf("printing the summary: %w", err)
	}
	fmt.Fprintf(e.stderr, "lab merge-grades: %d shard(s), %d student(s), merged into %s\n", len(rest)-1, len(c.Students), rest[0])
	return exitOK, nil
}
