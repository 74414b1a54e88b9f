// Package examples holds the examples of examples/README.md (a Kubernetes
// Indexed Job with its merge Job, a GitHub Actions matrix workflow) and the
// tests that check their structure and run their commands on this machine.
package examples

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcplab/mcplab/grading/sandbox"
)

// The Kubernetes objects, as far as the examples use them. Decoding is
// strict (KnownFields): a misspelt or misplaced key fails the test instead
// of being dropped, as a cluster would drop or refuse it.

type metadata struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type job struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   metadata `yaml:"metadata"`
	Spec       struct {
		CompletionMode   string `yaml:"completionMode"`
		Completions      *int   `yaml:"completions"`
		Parallelism      *int   `yaml:"parallelism"`
		BackoffLimit     *int   `yaml:"backoffLimit"`
		PodFailurePolicy *struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes *struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
				OnPodConditions []struct {
					Type string `yaml:"type"`
				} `yaml:"onPodConditions"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Metadata metadata `yaml:"metadata"`
			Spec     podSpec  `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	RestartPolicy  string      `yaml:"restartPolicy"`
	InitContainers []container `yaml:"initContainers"`
	Containers     []container `yaml:"containers"`
	Volumes        []volume    `yaml:"volumes"`
}

type container struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	RestartPolicy   string   `yaml:"restartPolicy"`
	Command         []string `yaml:"command"`
	Args            []string `yaml:"args"`
	Env             []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	SecurityContext struct {
		Privileged               bool   `yaml:"privileged"`
		RunAsUser                *int64 `yaml:"runAsUser"`
		RunAsGroup               *int64 `yaml:"runAsGroup"`
		AllowPrivilegeEscalation *bool  `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool   `yaml:"readOnlyRootFilesystem"`
	} `yaml:"securityContext"`
	Lifecycle *struct {
		PostStart struct {
			Exec struct {
				Command []string `yaml:"command"`
			} `yaml:"exec"`
		} `yaml:"postStart"`
	} `yaml:"lifecycle"`
	StartupProbe *struct {
		Exec struct {
			Command []string `yaml:"command"`
		} `yaml:"exec"`
		PeriodSeconds    int `yaml:"periodSeconds"`
		FailureThreshold int `yaml:"failureThreshold"`
	} `yaml:"startupProbe"`
	Resources    map[string]map[string]string `yaml:"resources"`
	VolumeMounts []volumeMount                `yaml:"volumeMounts"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly"`
}

type volume struct {
	Name                  string    `yaml:"name"`
	EmptyDir              *struct{} `yaml:"emptyDir"`
	PersistentVolumeClaim *struct {
		ClaimName string `yaml:"claimName"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"persistentVolumeClaim"`
}

type claim struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   metadata `yaml:"metadata"`
	Spec       struct {
		AccessModes []string `yaml:"accessModes"`
		Resources   struct {
			Requests map[string]string `yaml:"requests"`
		} `yaml:"resources"`
	} `yaml:"spec"`
}

// decodeAll reads every document of the YAML file name strictly into a new
// T each.
func decodeAll[T any](t *testing.T, name string) []T {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var out []T
	for {
		var v T
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no document", name)
	}
	return out
}

func decodeOne[T any](t *testing.T, name string) T {
	t.Helper()
	all := decodeAll[T](t, name)
	if len(all) != 1 {
		t.Fatalf("%s holds %d documents, want 1", name, len(all))
	}
	return all[0]
}

// kubeExpand does what the kubelet does to a container's command and args:
// $(NAME) becomes NAME's value when the container's environment has it, and
// stays as it is otherwise; $$ is a literal $.
func kubeExpand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

func TestKubeExpand(t *testing.T) {
	env := map[string]string{"JOB_COMPLETION_INDEX": "2", "A": "x"}
	for in, want := range map[string]string{
		"--out=/results/shard-$(JOB_COMPLETION_INDEX)": "--out=/results/shard-2",
		"$(A)$(A)":  "xx",
		"$(NOPE)":   "$(NOPE)",
		"$$(A)":     "$(A)",
		"a$b":       "a$b",
		"$(A":       "$(A",
		"price: 5$": "price: 5$",
	} {
		if got := kubeExpand(in, env); got != want {
			t.Errorf("kubeExpand(%q) = %q, want %q", in, got, want)
		}
	}
}

// flagArgs splits a lab command line of --name=value flags and positional
// arguments.
func flagArgs(t *testing.T, args []string) (flags map[string]string, positional []string) {
	t.Helper()
	flags = map[string]string{}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		name, value, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !ok {
			t.Fatalf("flag %q: the examples write every flag as --name=value", a)
		}
		if _, dup := flags[name]; dup {
			t.Fatalf("flag --%s given twice", name)
		}
		flags[name] = value
	}
	return flags, positional
}

func containerNamed(t *testing.T, cs []container, name string) container {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return container{}
}

func envOf(c container) map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

// mountOf returns the mount of c that holds path (the longest mount path
// that is path or a folder above it), and path relative to it.
func mountOf(c container, path string) (volumeMount, string, bool) {
	var best volumeMount
	rel, found := "", false
	for _, m := range c.VolumeMounts {
		if r, err := filepath.Rel(m.MountPath, path); err == nil && !strings.HasPrefix(r, "..") && len(m.MountPath) > len(best.MountPath) {
			best, rel, found = m, r, true
		}
	}
	return best, rel, found
}

func intOrNone(p *int) string {
	if p == nil {
		return "(none)"
	}
	return fmt.Sprint(*p)
}

func volumeNamed(spec podSpec, name string) (volume, bool) {
	for _, v := range spec.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return volume{}, false
}

// labImage is the lab image docker/build-local.sh builds.
const labImage = "mcplab/lab:local"

// gradeJob is what the structure test learnt of the Indexed Job, for the
// run that follows it.
type gradeJob struct {
	job     job
	lab     container
	engine  container
	shards  int
	outRel  func(index int) string // --out, relative to the results volume
	out     func(index int) string // --out, in the lab container
	results string                 // the claim the results go to
}

// checkGradeJob checks the Indexed Job's structure and returns what the
// run needs.
func checkGradeJob(t *testing.T, claims map[string]claim) gradeJob {
	t.Helper()
	j := decodeOne[job](t, filepath.Join("kubernetes", "grade-class-job.yaml"))
	n := checkIndexedJob(t, j)
	pod := j.Spec.Template.Spec
	lab := checkLabContainer(t, pod)

	// The args, as the kubelet expands them for each index.
	flags, pos := checkLabArgs(t, lab, n)
	env := envOf(lab)
	if _, ok := env["JOB_COMPLETION_INDEX"]; ok {
		t.Error("the lab container sets JOB_COMPLETION_INDEX itself: the Job controller's would be ignored")
	}
	resultsClaim := checkShardOuts(t, pod, lab, flags["out"], env, n)
	if flags["shard-index"] != "$(JOB_COMPLETION_INDEX)" || !strings.Contains(flags["out"], "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("--out %q does not name the completion index: the shards would share one folder", flags["out"])
	}
	classMount, _, ok := mountOf(lab, pos[0])
	if !ok {
		t.Fatalf("the class folder %s is in no volume of the lab", pos[0])
	}
	if v, _ := volumeNamed(pod, classMount.Name); v.PersistentVolumeClaim == nil {
		t.Errorf("the class is on volume %q, not a persistent volume claim", classMount.Name)
	}
	checkClaimsDeclared(t, pod, claims)
	engine := checkEngine(t, pod, lab, env, flags, pos[0])
	checkFailurePolicy(t, j)

	out := func(i int) string {
		e := envOf(lab)
		e["JOB_COMPLETION_INDEX"] = fmt.Sprint(i)
		return kubeExpand(flags["out"], e)
	}
	return gradeJob{job: j, lab: lab, engine: engine, shards: n, results: resultsClaim, out: out,
		outRel: func(i int) string {
			_, rel, _ := mountOf(lab, out(i))
			return rel
		}}
}

// checkIndexedJob checks that j is an Indexed Job with as many completions
// as it runs at once (2 or more), and returns that shard count.
func checkIndexedJob(t *testing.T, j job) int {
	t.Helper()
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Errorf("grade-class-job.yaml is %s %s, want batch/v1 Job", j.APIVersion, j.Kind)
	}
	s := j.Spec
	if s.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed: the completion index picks the shard", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 2 {
		t.Fatalf("completions %s and parallelism %s: want the same shard count, 2 or more", intOrNone(s.Completions), intOrNone(s.Parallelism))
	}
	return *s.Completions
}

// checkLabContainer checks the pod runs once, the lab container alone, from
// the lab image's own entry point as root, and returns that container.
func checkLabContainer(t *testing.T, pod podSpec) container {
	t.Helper()
	if pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q, want Never (a failed shard is a new pod; podFailurePolicy needs it)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Errorf("%d containers, want the lab alone (the engine is a sidecar)", len(pod.Containers))
	}
	lab := containerNamed(t, pod.Containers, "lab")
	if lab.Image != labImage || len(lab.Command) != 0 {
		t.Errorf("the lab container runs %q with command %q; want the lab image %s and its own entry point", lab.Image, lab.Command, labImage)
	}
	if lab.SecurityContext.RunAsUser == nil || *lab.SecurityContext.RunAsUser != 0 {
		t.Errorf("the lab container must run as root (runAsUser: 0): the image's user 65532 is the one student programs run as")
	}
	return lab
}

// checkLabArgs checks the lab runs grade-class as shard $(JOB_COMPLETION_INDEX)
// of n, calibrated, in the container sandbox, on one class folder, and
// returns its flags and positional args.
func checkLabArgs(t *testing.T, lab container, n int) (map[string]string, []string) {
	t.Helper()
	if len(lab.Args) == 0 || lab.Args[0] != "grade-class" {
		t.Fatalf("the lab's args %q do not start with grade-class", lab.Args)
	}
	flags, pos := flagArgs(t, lab.Args[1:])
	if flags["shard-index"] != "$(JOB_COMPLETION_INDEX)" {
		t.Errorf("--shard-index=%q, want $(JOB_COMPLETION_INDEX), the completion index as Kubernetes gives it", flags["shard-index"])
	}
	if flags["shard-count"] != fmt.Sprint(n) {
		t.Errorf("--shard-count=%q, but completions and parallelism are %d", flags["shard-count"], n)
	}
	if _, ok := flags["shard"]; ok {
		t.Error("--shard K/N with --shard-index: the lab refuses both")
	}
	if flags["time-scale"] == "" || flags["time-scale"] == "0" {
		t.Error("no --time-scale: the lab refuses shards without one (calibrated apart, they could not be merged)")
	}
	if flags["sandbox"] != "container" {
		t.Errorf("--sandbox=%q: the lab image has no shell or interpreter for the process sandbox to run students in; want container", flags["sandbox"])
	}
	if len(pos) != 1 {
		t.Fatalf("positional args %q, want the class folder alone", pos)
	}
	return flags, pos
}

// checkShardOuts checks that --out, expanded for each of the n indexes,
// is a folder of its own inside a writable persistent volume claim, and
// returns that claim. env is the lab's environment; it is left with the
// last index in JOB_COMPLETION_INDEX.
func checkShardOuts(t *testing.T, pod podSpec, lab container, outFlag string, env map[string]string, n int) string {
	t.Helper()
	outs := map[string]bool{}
	var resultsClaim string
	for i := range n {
		env["JOB_COMPLETION_INDEX"] = fmt.Sprint(i)
		out := kubeExpand(outFlag, env)
		if strings.Contains(out, "$(") || !filepath.IsAbs(out) {
			t.Fatalf("--out for index %d is %q", i, out)
		}
		if outs[out] {
			t.Fatalf("two indexes write to %s", out)
		}
		outs[out] = true
		m, _, ok := mountOf(lab, out)
		if !ok || m.ReadOnly || m.MountPath == out {
			t.Fatalf("--out %s is not a folder inside a writable volume mount of the lab", out)
		}
		v, _ := volumeNamed(pod, m.Name)
		if v.PersistentVolumeClaim == nil {
			t.Fatalf("--out %s is on volume %q, not a persistent volume claim: the results would go with the pod", out, m.Name)
		}
		resultsClaim = v.PersistentVolumeClaim.ClaimName
	}
	return resultsClaim
}

// checkClaimsDeclared checks every mount names a volume of the pod, and
// every claim is a ReadWriteMany claim of volumes.yaml.
func checkClaimsDeclared(t *testing.T, pod podSpec, claims map[string]claim) {
	t.Helper()
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, m := range c.VolumeMounts {
			v, ok := volumeNamed(pod, m.Name)
			if !ok {
				t.Errorf("container %s mounts %q, which the pod does not declare", c.Name, m.Name)
				continue
			}
			if v.PersistentVolumeClaim != nil {
				if cl, ok := claims[v.PersistentVolumeClaim.ClaimName]; !ok || !slices.Contains(cl.Spec.AccessModes, "ReadWriteMany") {
					t.Errorf("volume %s: claim %q is not a ReadWriteMany claim of volumes.yaml (the shards run on several nodes at once)", v.Name, v.PersistentVolumeClaim.ClaimName)
				}
			}
		}
	}
}

// checkEngine checks the engine: a native sidecar, on the socket
// DOCKER_HOST names, that sees the class and the work folders at the lab's
// paths and holds the image students run in before the lab starts. It
// returns the engine's container.
func checkEngine(t *testing.T, pod podSpec, lab container, env, flags map[string]string, class string) container {
	t.Helper()
	engine := containerNamed(t, pod.InitContainers, "engine")
	if engine.RestartPolicy != "Always" || !engine.SecurityContext.Privileged {
		t.Errorf("the engine sidecar: restartPolicy %q, privileged %v; want Always (a native sidecar, stopped when the lab ends) and privileged (Docker in Docker)",
			engine.RestartPolicy, engine.SecurityContext.Privileged)
	}
	host := env["DOCKER_HOST"]
	sock, ok := strings.CutPrefix(host, "unix://")
	if !ok {
		t.Fatalf("the lab's DOCKER_HOST is %q, want unix:// the sidecar's socket", host)
	}
	if !slices.Contains(engine.Args, "--host="+host) || envOf(engine)["DOCKER_HOST"] != host {
		t.Errorf("the engine does not listen on the lab's DOCKER_HOST %s: args %q", host, engine.Args)
	}
	// Args that start with a flag make the docker image's entry point add
	// listeners of its own: a TCP port, and DOCKER_HOST's socket a second time.
	if len(engine.Args) == 0 || engine.Args[0] != "dockerd" || slices.ContainsFunc(engine.Args, func(a string) bool { return strings.HasPrefix(a, "--host=tcp") }) {
		t.Errorf("the engine's args %q: want dockerd first, and no TCP listener", engine.Args)
	}
	labSock, _, ok1 := mountOf(lab, sock)
	engSock, _, ok2 := mountOf(engine, sock)
	if !ok1 || !ok2 || labSock.Name != engSock.Name {
		t.Errorf("the socket %s is not on a volume both the lab and the engine mount", sock)
	}
	for _, path := range []string{class, "/tmp"} {
		lm, lrel, ok1 := mountOf(lab, path)
		em, erel, ok2 := mountOf(engine, path)
		if !ok1 || !ok2 || lm.Name != em.Name || lm.MountPath != em.MountPath || lrel != erel {
			t.Errorf("%s: the container sandbox mounts it into students' containers by its path, so the engine must mount the lab's volume at the same path", path)
		}
	}
	checkEngineImage(t, engine, flags)
	return engine
}

// checkEngineImage checks the engine holds the image the lab runs students
// in (the lab does not pull), before the lab starts.
func checkEngineImage(t *testing.T, engine container, flags map[string]string) {
	t.Helper()
	image := sandbox.DefaultImage
	if v, ok := flags["image"]; ok {
		image = v
	}
	if p := engine.StartupProbe; p == nil || !slices.Equal(p.Exec.Command, []string{"docker", "image", "inspect", image}) {
		t.Errorf("the engine has no startup probe waiting for %s: the lab would start before it can grade", image)
	}
	if l := engine.Lifecycle; l == nil || len(l.PostStart.Exec.Command) == 0 ||
		!strings.HasSuffix(l.PostStart.Exec.Command[len(l.PostStart.Exec.Command)-1], `docker tag "$RUNNER_IMAGE" `+image) ||
		envOf(engine)["RUNNER_IMAGE"] == "" {
		t.Errorf("the engine's postStart does not pull RUNNER_IMAGE and tag it %s", image)
	}
}

// checkFailurePolicy checks a bad class is final and an evicted pod is
// retried.
func checkFailurePolicy(t *testing.T, j job) {
	t.Helper()
	rules := j.Spec.PodFailurePolicy
	if rules == nil || len(rules.Rules) != 2 || rules.Rules[0].Action != "Ignore" || len(rules.Rules[0].OnPodConditions) != 1 ||
		rules.Rules[0].OnPodConditions[0].Type != "DisruptionTarget" || rules.Rules[1].Action != "FailJob" ||
		rules.Rules[1].OnExitCodes == nil || rules.Rules[1].OnExitCodes.ContainerName != "lab" || !slices.Equal(rules.Rules[1].OnExitCodes.Values, []int{2}) {
		t.Error("podFailurePolicy: want disruptions ignored first, then the lab's exit status 2 failing the Job")
	}
}

// checkMergeJob checks the merge Job against the Indexed Job: the same lab
// image, merge-grades of every shard folder on the same claim, no other.
func checkMergeJob(t *testing.T, g gradeJob) (job, container) {
	t.Helper()
	j := decodeOne[job](t, filepath.Join("kubernetes", "merge-grades-job.yaml"))
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Spec.CompletionMode == "Indexed" {
		t.Errorf("merge-grades-job.yaml is %s %s %s, want a batch/v1 Job, not indexed", j.APIVersion, j.Kind, j.Spec.CompletionMode)
	}
	if j.Spec.Completions == nil || *j.Spec.Completions != 1 || j.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Error("the merge Job: want completions 1, restartPolicy Never")
	}
	pod := j.Spec.Template.Spec
	lab := containerNamed(t, pod.Containers, "lab")
	if lab.Image != g.lab.Image {
		t.Errorf("the merge runs %s, the shards %s: merge-grades refuses shards of another lab version", lab.Image, g.lab.Image)
	}
	if len(lab.Args) < 3 || lab.Args[0] != "merge-grades" {
		t.Fatalf("the merge's args %q, want merge-grades OUT SHARD...", lab.Args)
	}
	rel := func(path string) string {
		m, r, ok := mountOf(lab, path)
		v, _ := volumeNamed(pod, m.Name)
		if !ok || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != g.results {
			t.Fatalf("merge-grades names %s, which is not on the shards' results claim %s", path, g.results)
		}
		return r
	}
	var got, want []string
	for _, a := range lab.Args[2:] {
		got = append(got, rel(a))
	}
	for i := range g.shards {
		want = append(want, g.outRel(i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("merge-grades is given the shards %q, want every shard folder the Indexed Job writes: %q", got, want)
	}
	if out := rel(lab.Args[1]); slices.Contains(want, out) {
		t.Errorf("merge-grades writes into a shard's folder %s", out)
	}
	return j, lab
}

func loadClaims(t *testing.T) map[string]claim {
	t.Helper()
	claims := map[string]claim{}
	for _, c := range decodeAll[claim](t, filepath.Join("kubernetes", "volumes.yaml")) {
		if c.APIVersion != "v1" || c.Kind != "PersistentVolumeClaim" || c.Metadata.Name == "" {
			t.Errorf("volumes.yaml: %s %s %q, want v1 PersistentVolumeClaim with a name", c.APIVersion, c.Kind, c.Metadata.Name)
		}
		claims[c.Metadata.Name] = c
	}
	return claims
}

func TestKubernetesManifests(t *testing.T) {
	g := checkGradeJob(t, loadClaims(t))
	checkMergeJob(t, g)
	// The image the Job names is the one build-local.sh makes.
	script, err := os.ReadFile(filepath.Join("..", "docker", "build-local.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`image=\$\{LAB_IMAGE:-` + regexp.QuoteMeta(labImage) + `\}`).Match(script) {
		t.Errorf("docker/build-local.sh no longer builds %s by default", labImage)
	}
}
