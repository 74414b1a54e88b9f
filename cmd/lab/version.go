package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"time"
)

// moduleVersion matches a version `go install MODULE/cmd/lab@VERSION`
// accepts and that is safe in YAML and shell unquoted: a release tag such
// as v1.2.3 or v1.2.3-rc.1, or a pseudo-version naming a commit. Build
// metadata ("+dirty") names no published lab, so it is refused.
var moduleVersion = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+incompatible)?$`)

// pseudoVersion matches a Go pseudo-version: a version made for a commit.
var pseudoVersion = regexp.MustCompile(`[-.]?[0-9]{14}-[0-9a-f]{12}(\+incompatible)?$`)

// hexRevision matches a git commit hash (SHA-1 or SHA-256).
var hexRevision = regexp.MustCompile(`^[0-9a-f]{12,64}$`)

// labBuild is what a lab binary knows of which lab it is.
type labBuild struct {
	// Pin is the version `go install MODULE/cmd/lab@Pin` fetches to get
	// exactly this lab, "" when this build cannot name one.
	Pin string
	// Commit and Time are the commit a checkout build was made from (12
	// hex digits) and its commit time, "" and zero when not known.
	Commit string
	Time   time.Time
	// Why says, when Pin is "", why this lab cannot name itself and what
	// to do instead.
	Why string
	// Shown is what `lab version` prints.
	Shown string
}

// thisBuild describes the running lab from its -ldflags stamp and the
// build information the Go toolchain recorded.
func thisBuild() labBuild {
	bi, _ := debug.ReadBuildInfo()
	b := describeBuild(version, bi)
	if b.Pin != "" || b.Commit != "" || (version != "" && version != "dev") {
		return b
	}
	// go run records no commit: the clone it ran in is the source.
	if exe, err := os.Executable(); err == nil && goRunBinary(exe) {
		if cwd, err := os.Getwd(); err == nil {
			return goRunBuild(context.Background(), execGit, cwd, b)
		}
	}
	return b
}

// describeBuild works out which lab a build is, from the version stamped
// with -ldflags "-X main.version=..." ("dev" when none) and the build
// information (nil when there is none):
//
//   - a stamp that is a module version names the lab;
//   - a lab installed with `go install MODULE/cmd/lab@V` carries V;
//   - a lab built in a clean checkout carries its commit (vcs.revision and
//     vcs.time), named as the pseudo-version v0.0.0-YYYYMMDDHHMMSS-<12 hex>,
//     or the release tag on that very commit;
//   - a build with local changes (vcs.modified=true), or one without any of
//     these (go test, -buildvcs=false), names no published lab.
//
// `go run` records no commit either; thisBuild then reads the commit from
// the clone go run built in (goRunBuild).
//
// A stamp that is not a module version is still what `lab version` shows.
func describeBuild(stamp string, bi *debug.BuildInfo) labBuild {
	b := describeBuildInfo(bi)
	if stamp != "" && stamp != "dev" {
		if moduleVersion.MatchString(stamp) {
			return labBuild{Pin: stamp, Shown: stamp}
		}
		b.Shown = stamp
	}
	return b
}

func describeBuildInfo(bi *debug.BuildInfo) labBuild {
	settings := map[string]string{}
	mainVersion := ""
	if bi != nil {
		mainVersion = bi.Main.Version
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	rev := settings["vcs.revision"]
	if rev == "" {
		if moduleVersion.MatchString(mainVersion) {
			return labBuild{Pin: mainVersion, Shown: mainVersion}
		}
		return labBuild{Shown: "dev", Why: "this lab carries neither a version nor the commit it was built from " +
			"(go test and -buildvcs=false builds record none, and so does go run outside a clone of the lab), so the CI files could not name the lab to install. " +
			"Build the lab in your clone of " + modulePath + " with `go build -o dist/lab ./cmd/lab` (dist/ is ignored by git) and run dist/lab " +
			"(`go env GOFLAGS` must not hold -buildvcs=false), " +
			"or pass --lab-version with a release such as v1.2.3"}
	}
	t, err := time.Parse(time.RFC3339, settings["vcs.time"])
	if !hexRevision.MatchString(rev) || err != nil {
		return labBuild{Shown: "dev", Why: fmt.Sprintf("this lab's build information names commit %q of time %q, "+
			"which do not make a Go version (a hexadecimal commit hash and an RFC 3339 time were expected), "+
			"so the CI files could not name the lab to install: pass --lab-version with a release such as v1.2.3",
			rev, settings["vcs.time"])}
	}
	b := labBuild{Commit: rev[:12], Time: t.UTC()}
	pseudo := "v0.0.0-" + b.Time.Format("20060102150405") + "-" + b.Commit
	if settings["vcs.modified"] == "true" {
		b.Shown = fmt.Sprintf("dev (commit %s of %s, with local changes)", b.Commit, b.Time.Format("2006-01-02 15:04:05 UTC"))
		b.Why = fmt.Sprintf("this lab was built from commit %s (%s) with local changes (git status lists changed or untracked files), "+
			"so no lab that CI can install is the one that runs here, and a pinned grade would not be what you see. "+
			"Commit and push your changes and build the lab again, or, to grade with commit %s as it was published, "+
			"pass --lab-version %s",
			b.Commit, b.Time.Format("2006-01-02 15:04:05 UTC"), b.Commit, pseudo)
		return b
	}
	if moduleVersion.MatchString(mainVersion) && !pseudoVersion.MatchString(mainVersion) {
		// The toolchain found a release tag on this very commit.
		b.Pin = mainVersion
	} else {
		b.Pin = pseudo
	}
	b.Shown = b.Pin
	return b
}

// pinNote says, for the line lab assignment prints, where the pinned lab
// comes from when it is a commit rather than a release.
func (b labBuild) pinNote() string {
	if b.Commit == "" || !strings.HasSuffix(b.Pin, b.Commit) {
		return ""
	}
	return fmt.Sprintf(" (commit %s of %s: CI fetches it from %s, so that commit must be pushed there)",
		b.Commit, b.Time.Format("2006-01-02"), modulePath)
}
