package model_test

import (
	"fmt"

	"github.com/mcplab/mcplab/lab/model"
)

func ExampleLines() {
	recorded := model.Answer{
		Text:     "Answers may come back in any order,\nso the id pairs each answer with its request.",
		Recorded: true,
		Reason:   "cannot reach http://ai:4000: no such host",
	}
	for _, line := range model.Lines(recorded) {
		fmt.Println(line)
	}
	for _, line := range model.Lines(model.Answer{Text: "The id tells the client which request was answered."}) {
		fmt.Println(line)
	}
	// Output:
	// Recorded sample: no model answered (cannot reach http://ai:4000: no such host).
	// model: Answers may come back in any order, so the id pairs each answer with its request.
	// model: The id tells the client which request was answered.
}
