package testkit

import (
	"testing"
)

func TestReadOddInputs(t *testing.T) {
	rows := ReadOddInputs(t, "../../lessons/01-reading-messages/odd-inputs.md")
	for i, r := range rows {
		if r.N != i+1 {
			t.Errorf("row %d is numbered %d; want the rows numbered from 1 in order", i+1, r.N)
		}
		if r.Answer == "" {
			t.Errorf("row %d has no answer", r.N)
		}
	}
}
