package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mcplab/mcplab/grading/class"

	"github.com/mcplab/mcplab/grading"
)

// mergeGradesUsage is the synopsis of lab merge-grades; help/merge-grades.txt says the rest.
const mergeGradesUsage = "merge-grades OUT DIR..."

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
	fmt.Fprintf(e.stderr, "lab merge-grades: %s, %s, merged into %s\n", grading.CountOf(len(rest)-1, "shard", "shards"), grading.CountOf(len(c.Students), "student", "students"), rest[0])
	return exitOK, nil
}
