package testkit

import (
	"fmt"
	"strings"
)

// TableCells splits a Markdown table row ("| a | b |") into its cells,
// each with its spaces trimmed.
func TableCells(line string) []string {
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// TableRows returns the cells of the rows of the Markdown table in doc
// whose header line is header (compared with the line's spaces trimmed),
// up to the first line that is no table row, its delimiter row left out.
func TableRows(doc, header string) ([][]string, error) {
	var rows [][]string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if !in {
			in = line == header
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		if cells := TableCells(line); !strings.HasPrefix(cells[0], "--") {
			rows = append(rows, cells)
		}
	}
	if !in {
		return nil, fmt.Errorf("no table with the header %q", header)
	}
	return rows, nil
}
