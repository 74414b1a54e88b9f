package main

import (
	"flag"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/sandbox"
)

// shardNeedsScale is the usage error of a shard graded without a time
// scale, given or reused.
const shardNeedsScale = "-shard needs -time-scale: shards calibrated apart would get different deadlines, and lab merge-grades refuses to merge them"

// classConfig is what lab grade-class is asked to do: its flags and its
// submissions folder as given, and what validate reads from them.
type classConfig struct {
	lesson       int
	out          string
	jobs         int
	sandbox      string
	formats      string
	sweep        int
	cuts         int64
	scale        float64
	lessonDir    string
	root         string
	image        string
	buildTimeout time.Duration
	resumeFrom   string
	shardFlag    string
	shardIndex   string
	shardCount   int

	// Set by validate.
	subsDir    string      // the one argument: the folder of submissions
	formatList []string    // formats, split and checked
	shard      class.Shard // the shard of -shard, or of -shard-index and -shard-count
}

// classFlags defines the flags of lab grade-class on fs, each filling a
// field of the config it returns once fs has parsed the arguments.
func classFlags(fs *flag.FlagSet) *classConfig {
	c := &classConfig{}
	fs.IntVar(&c.lesson, "lesson", 1, "the lesson to grade against")
	fs.StringVar(&c.out, "out", "", "folder to write the results to (required)")
	fs.IntVar(&c.jobs, "jobs", 0, "how many submissions to grade at once (0: 8 per core with the process sandbox, 2 per core with containers)")
	fs.StringVar(&c.sandbox, "sandbox", "process", "where servers run: process or container")
	fs.StringVar(&c.formats, "format", "json,markdown,html", "comma-separated report formats for each student: "+strings.Join(report.Formats(), ", "))
	fs.IntVar(&c.sweep, "sweep", 0, "replay the lesson's messages this many more times, cut at random places")
	fs.Int64Var(&c.cuts, "cuts", 0, "which random cuts the sweep makes: the same number cuts the input the same way again (0: pick one and print it)")
	fs.Float64Var(&c.scale, "time-scale", 0, "multiply every deadline by this (0: calibrate against the lesson's reference)")
	fs.StringVar(&c.lessonDir, "lesson-dir", "", "read the grading scenarios from this lesson folder instead of the built-in ones")
	fs.StringVar(&c.root, "root", "", "container sandbox: mount this folder read-only (it must hold SUBMISSIONS) instead of each submission's own folder, for run scripts that use files beside their folder")
	fs.StringVar(&c.image, "image", sandbox.DefaultImage, "container sandbox: the image servers run in")
	fs.DurationVar(&c.buildTimeout, "build-timeout", 3*time.Minute, "time limit of a submission's build step (before the time scale)")
	fs.StringVar(&c.resumeFrom, "resume-from", "", "reuse the results in this earlier results folder (a run stopped half-way, even killed) whose submission files, lab and time scale match, under the time scale that run used (a different -time-scale reuses none); needs a new -out")
	fs.StringVar(&c.shardFlag, "shard", "", "grade only shard K/N of the class (a stable slice by a hash of each student's folder name; needs -time-scale); join the shards with lab merge-grades")
	fs.StringVar(&c.shardIndex, "shard-index", "", "grade only the shard of this 0-based index (0 to -shard-count minus 1): the same as -shard K/N with K = index+1, for a Kubernetes Indexed Job's $(JOB_COMPLETION_INDEX); needs -shard-count")
	fs.IntVar(&c.shardCount, "shard-count", 0, "with -shard-index: how many shards the class is graded in")
	return c
}

// validate finds the usage errors of the command line that need no file
// (rest is what follows the flags), and reads the submissions folder, the
// formats and the shard into c. Its errors are, in this order: a machine
// that cannot grade a class, no single submissions folder, no -out, a bad
// -format, a negative number or an unknown sandbox, and a bad shard.
func (c *classConfig) validate(rest []string) error {
	if err := classGradingSupported(); err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("name one folder of submissions, for example: lab grade-class --out results submissions")
	}
	c.subsDir = rest[0]
	if c.out == "" {
		return usagef("-out is required: the folder to write the results to")
	}
	if err := c.readFormats(); err != nil {
		return err
	}
	switch {
	case c.jobs < 0:
		return usagef("-jobs must not be negative")
	case c.scale < 0:
		return usagef("-time-scale must not be negative (0 calibrates)")
	case c.sweep < 0:
		return usagef("-sweep must not be negative")
	case c.buildTimeout <= 0:
		return usagef("-build-timeout must be more than 0")
	case c.sandbox != "process" && c.sandbox != "container":
		return usagef("unknown sandbox %q; the sandboxes are process and container", c.sandbox)
	}
	return c.readShard()
}

// readFormats reads -format into formatList: one or more known formats,
// separated by commas.
func (c *classConfig) readFormats() error {
	for _, f := range strings.Split(c.formats, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if err := checkFormat(f); err != nil {
			return err
		}
		c.formatList = append(c.formatList, f)
	}
	if len(c.formatList) == 0 {
		return usagef("-format names no format; give one or more of %s, separated by commas", strings.Join(report.Formats(), ", "))
	}
	return nil
}

// sharded reports whether the command line asks for one shard of the class.
func (c *classConfig) sharded() bool {
	return c.shardFlag != "" || c.shardIndex != ""
}

// readShard reads -shard, or -shard-index and -shard-count, into shard. A
// shard needs a time scale, given or (with -resume-from) the earlier run's.
func (c *classConfig) readShard() error {
	switch {
	case c.shardFlag != "" && (c.shardIndex != "" || c.shardCount != 0):
		return usagef("give either -shard K/N or -shard-index and -shard-count, not both")
	case (c.shardIndex != "") != (c.shardCount != 0):
		return usagef("-shard-index and -shard-count go together: the 0-based index of a shard, and how many shards there are")
	}
	if !c.sharded() {
		return nil
	}
	var err error
	if c.shardFlag != "" {
		c.shard, err = class.ParseShard(c.shardFlag)
	} else {
		c.shard, err = class.ShardFromIndex(c.shardIndex, c.shardCount)
	}
	if err != nil {
		return usageError{err.Error()}
	}
	if c.scale == 0 && c.resumeFrom == "" {
		return usagef(shardNeedsScale)
	}
	return nil
}
