package class

import (
	"fmt"
	"strings"
	"testing"
)

// TestShardFromIndexIsShardK: the 0-based index K-1 of N is shard K/N, the
// same slice of any class.
func TestShardFromIndexIsShardK(t *testing.T) {
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("student-%03d", i))
	}
	for n := 1; n <= 12; n++ {
		for k := 1; k <= n; k++ {
			want, err := ParseShard(fmt.Sprintf("%d/%d", k, n))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ShardFromIndex(fmt.Sprint(k-1), n)
			if err != nil {
				t.Fatalf("index %d of %d: %v", k-1, n, err)
			}
			if got != want {
				t.Fatalf("index %d of %d is %+v, want shard %+v", k-1, n, got, want)
			}
			for _, name := range names {
				if got.Holds(name) != want.Holds(name) {
					t.Fatalf("index %d of %d and shard %s disagree on %s", k-1, n, want, name)
				}
			}
		}
	}
}

func TestShardFromIndexRefuses(t *testing.T) {
	for _, c := range []struct {
		index string
		count int
		want  string
	}{
		{"3", 3, "want a whole number from 0 to 2"},
		{"-1", 3, "want a whole number from 0 to 2"},
		{"", 3, "want a whole number from 0 to 2"},
		{"1.0", 3, "want a whole number from 0 to 2"},
		{"0", 0, "shard count 0: want 1 to 10000"},
		{"0", 10001, "shard count 10001"},
		{"$(JOB_COMPLETION_INDEX)", 3, "Kubernetes replaces $(JOB_COMPLETION_INDEX) only in an Indexed Job's pods"},
		{"${JOB_COMPLETION_INDEX}", 3, "a variable nobody expanded"},
	} {
		_, err := ShardFromIndex(c.index, c.count)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ShardFromIndex(%q, %d): %v; want an error saying %q", c.index, c.count, err, c.want)
		}
	}
}
