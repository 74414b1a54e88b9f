package mcphost_test

import (
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/mcphost"
)

func ExampleLocalName() {
	fmt.Println(mcphost.LocalName("notes", "search"))
	fmt.Println(mcphost.LocalName("tickets", "résumé"))
	fmt.Println(mcphost.LocalName("tickets", "a_tool_whose_name_is_far_too_long_for_the_sixty_four_limit"))
	// Output:
	// mcp__notes__search
	// mcp__tickets__r_sum_
	// mcp__tickets__a_tool_whose_name_is_far_too_long_for_the_s_b561f8
}

func ExampleTruncate() {
	text, cut := mcphost.Truncate(strings.Repeat("x", 24000))
	fmt.Println(len(text), cut)
	fmt.Printf("%q\n", text[8000:])
	// Output:
	// 8052 16000
	// "\n\n[16000 more characters were cut from this result.]"
}

func ExampleParseConfig() {
	_, err := mcphost.ParseConfig([]byte(`{"servers": {"notes": {"command": "lab", "args": ["serve", "notes"]}, "notes": {"url": "http://127.0.0.1:3115/mcp"}}}`))
	fmt.Println(err)
	// Output:
	// the alias "notes" is used twice; each server needs its own alias, since it prefixes the server's tool names
}
