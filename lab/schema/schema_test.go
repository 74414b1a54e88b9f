package schema_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/schema"
)

// sharedSpec is the course's reference copy of the specification's files,
// beside the clone (../shared from the repository's root). A clone alone
// has none: the tests that compare with it skip.
const sharedSpec = "../../../shared/spec/2026-07-28"

// keptExamples is the repository's own copy of the official examples (see
// its README.md), which every clone has.
const keptExamples = "testdata/examples"

// officialExamples is how many example messages the release publishes.
const officialExamples = 129

func validator(t *testing.T) *schema.Validator {
	t.Helper()
	v, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEmbeddedSchemaIsTheOfficialOne(t *testing.T) {
	sum := sha256.Sum256(schema.JSON())
	if got := hex.EncodeToString(sum[:]); got != schema.SHA256 {
		t.Errorf("the embedded schema's sha256 is %s, want %s (see ORIGIN.md)", got, schema.SHA256)
	}
	ref := needShared(t, "schema.json", "the embedded schema is not compared byte for byte with it (its sha256 was checked against ORIGIN.md)")
	shared, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if string(shared) != string(schema.JSON()) {
		t.Errorf("the embedded schema differs from %s", ref)
	}
}

// needShared returns the path of name inside the reference copy beside the
// clone, or skips the test, saying which path is missing and what the test
// would have checked with it. Only a missing path skips: any other error
// reading it fails the test.
func needShared(t *testing.T, name, unchecked string) string {
	t.Helper()
	p := filepath.Join(sharedSpec, name)
	_, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		abs, _ := filepath.Abs(p)
		t.Skipf("skipped: %s (%s) is missing, it sits beside the clone only in the course's checkout; %s", p, abs, unchecked)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every official example meets the definition its folder is named after.
func TestOfficialExamplesPass(t *testing.T) {
	v := validator(t)
	files, _ := filepath.Glob(filepath.Join(keptExamples, "*", "*.json"))
	if len(files) != officialExamples {
		t.Fatalf("found %d examples under %s, want the release's %d", len(files), keptExamples, officialExamples)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := v.CheckFile(filepath.ToSlash(f), data)
		if !r.OK() || !strings.HasPrefix(r.Kind, "example of ") {
			t.Errorf("%s (%s): %v %+v", f, r.Kind, r.Err, r.Lines)
		}
	}
}

// The examples kept in the repository are the reference copy's, file for
// file and byte for byte, when that copy sits beside the clone.
func TestKeptExamplesAreTheOfficialOnes(t *testing.T) {
	ref := needShared(t, "examples", "the examples kept in "+keptExamples+" are not compared with it (same files, same bytes)")
	theirs, _ := filepath.Glob(filepath.Join(ref, "*", "*.json"))
	ours, _ := filepath.Glob(filepath.Join(keptExamples, "*", "*.json"))
	if len(theirs) == 0 {
		t.Fatalf("%s holds no DEFINITION/NAME.json examples", ref)
	}
	rel := func(base string, files []string) map[string]string {
		m := map[string]string{}
		for _, f := range files {
			r, _ := filepath.Rel(base, f)
			m[filepath.ToSlash(r)] = f
		}
		return m
	}
	a, b := rel(ref, theirs), rel(keptExamples, ours)
	for name, f := range a {
		mine, ok := b[name]
		if !ok {
			t.Errorf("%s is in the reference copy but not in %s", name, keptExamples)
			continue
		}
		want, err1 := os.ReadFile(f)
		got, err2 := os.ReadFile(mine)
		if err1 != nil || err2 != nil {
			t.Fatalf("reading %s: %v %v", name, err1, err2)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the reference copy's", name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("%s is kept in %s but the reference copy has no such example", name, keptExamples)
		}
	}
}

func TestMessages(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	tests := []struct {
		msg, def, fails string // fails: a piece of the reason, "" when it passes
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, "DiscoverRequest", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, "DiscoverRequest", "missing property 'params'"},
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, "DiscoverRequest", "missing property '_meta'"},
		{`{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{` + meta + `}}`, "DiscoverRequest", "/id"},
		{`{"jsonrpc":"2.0","id":2,"method":"tickets/get","params":{` + meta + `}}`, "JSONRPCRequest + RequestParams", ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tickets/get"}`, "JSONRPCRequest + RequestParams", "missing property '_meta'"},
		{`{"jsonrpc":"2.0","method":"server/discover","params":{` + meta + `}}`, "JSONRPCNotification", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`, "CancelledNotification", "requestId"},
		{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, "JSONRPCErrorResponse + ParseError", ""},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, "JSONRPCErrorResponse", "/id"},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version"}}`, "UnsupportedProtocolVersionError", "data"},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, "JSONRPCResultResponse", "resultType"},
		{`hello server`, "JSONRPCMessage", "not JSON"},
		{`[1]`, "JSONRPCMessage", "not one"},
	}
	v := validator(t)
	for _, tt := range tests {
		vd := v.NewSession().Check(schema.FromUnknown, []byte(tt.msg))
		if vd.Def != tt.def {
			t.Errorf("%s\nchecked against %q, want %q", tt.msg, vd.Def, tt.def)
		}
		switch {
		case tt.fails == "" && vd.Err != nil:
			t.Errorf("%s\nfails: %v", tt.msg, vd.Err)
		case tt.fails != "" && vd.Err == nil:
			t.Errorf("%s\npasses; want a failure about %s", tt.msg, tt.fails)
		case tt.fails != "" && !strings.Contains(vd.Err.Error(), tt.fails):
			t.Errorf("%s\nfails with %v; want it to mention %s", tt.msg, vd.Err, tt.fails)
		}
	}
}

// A result is checked against the result of the method its request asked.
func TestResultsMatchTheirRequest(t *testing.T) {
	v := validator(t)
	s := v.NewSession()
	s.Check(schema.FromClient, []byte(`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	vd := s.Check(schema.FromServer, []byte(`{"jsonrpc":"2.0","id":"d","result":{"resultType":"complete"}}`))
	if vd.Def != "DiscoverResultResponse" || vd.Err == nil || !strings.Contains(vd.Err.Error(), "supportedVersions") {
		t.Errorf("a discover answer without supportedVersions: %+v", vd)
	}
	if vd := s.Check(schema.FromServer, []byte(`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)); vd.Err == nil {
		t.Error("a request written by the server passes")
	}
}

// After initialize, messages without modern _meta belong to the legacy
// era and are checked as JSON-RPC only.
func TestLegacySession(t *testing.T) {
	v := validator(t)
	s := v.NewSession()
	for _, m := range []struct {
		from schema.Sender
		msg  string
	}{
		{schema.FromClient, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`},
		{schema.FromServer, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`},
		{schema.FromClient, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{schema.FromClient, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{schema.FromServer, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`},
	} {
		if vd := s.Check(m.from, []byte(m.msg)); vd.Err != nil {
			t.Errorf("%s: %v", m.msg, vd.Err)
		}
	}
}

func TestInvalidFilesPassOnlyWhenEveryLineFails(t *testing.T) {
	v := validator(t)
	bad := `{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{}}` + "\n" + `not json` + "\n"
	if r := v.CheckFile("x.invalid.jsonl", []byte(bad)); !r.OK() {
		t.Errorf("every line fails, so the file passes: %+v", r)
	}
	withGood := bad + `{"jsonrpc":"2.0","method":"notifications/x"}` + "\n"
	if r := v.CheckFile("x.invalid.jsonl", []byte(withGood)); r.OK() {
		t.Error("a line that meets the schema in an invalid file must fail the file")
	}
	if r := v.CheckFile("x.jsonl", []byte(bad)); r.OK() {
		t.Error("a wire file with bad lines passes")
	}
	if r := v.CheckFile("x.jsonl", nil); r.OK() || r.Err == nil {
		t.Error("an empty file passes")
	}
}
