package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
)

// TestShardIndexGradesShardK runs grade-class with the 0-based
// --shard-index K-1 --shard-count N, the way a Kubernetes Indexed Job
// passes its completion index, and with --shard K/N: the two grade the same
// students to the same grades.csv and record the same shard, so
// merge-grades takes either.
func TestShardIndexGradesShardK(t *testing.T) {
	t.Parallel() // its own lab, class and folders; it waits on deadlines, mostly
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class twice")
	}
	dir, bin, servers := labForClass(t)
	subs := shardClass(t, dir, servers)
	// The shard of index 1 of 3 holds some of the class (shardClass's names
	// are fixed): a test that compared two empty shards would prove little.
	shard := class.Shard{K: 2, N: 3}
	held := 0
	for _, name := range []string{"ann", "ben", "cleo", "dan", "eve", "fay", "gus", "hana", "ivo", "=SUM("} {
		if shard.Holds(name) {
			held++
		}
	}
	if held == 0 {
		t.Fatal("shard 2/3 holds none of the test class; pick another")
	}
	run := func(name string, args ...string) (string, *class.Record) {
		out := filepath.Join(dir, name)
		args = append(append([]string{"grade-class", "--time-scale", "3", "--format", "json", "--out", out}, args...), subs)
		if code, _, errOut := runLab(t, bin, args...); code != 0 {
			t.Fatalf("lab %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		rec, err := class.ReadRecord(out)
		if err != nil {
			t.Fatal(err)
		}
		return out, rec
	}
	byK, recK := run("by-k", "--shard", "2/3")
	byIndex, recIndex := run("by-index", "--shard-index", "1", "--shard-count", "3")
	if recIndex.Shard != recK.Shard || recK.Shard != shard {
		t.Errorf("recorded shards: %+v by index, %+v by K/N; want %+v for both", recIndex.Shard, recK.Shard, shard)
	}
	if len(recIndex.Class.Students) != held || len(recK.Class.Students) != held {
		t.Errorf("students graded: %d by index, %d by K/N; want %d", len(recIndex.Class.Students), len(recK.Class.Students), held)
	}
	a, _ := os.ReadFile(filepath.Join(byK, "grades.csv"))
	b, _ := os.ReadFile(filepath.Join(byIndex, "grades.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("grades.csv by index:\n%s\nwant, as by --shard 2/3:\n%s", b, a)
	}
}
