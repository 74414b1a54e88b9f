// Package schema checks MCP messages against the official JSON Schema of
// revision 2026-07-28 (a copy is embedded; ORIGIN.md says where it comes
// from), with github.com/santhosh-tekuri/jsonschema/v6.
//
// The schema has no root type, only definitions, so a Validator picks the
// definition a message must meet: a request by its method (DiscoverRequest
// for server/discover), a notification likewise, an error response by its
// code (UnsupportedProtocolVersionError for -32022), a result by the method
// of the request it answers when that is known (DiscoverResultResponse).
// A request for a method the schema does not define is checked as a
// JSON-RPC request whose params must still carry the _meta every
// 2026-07-28 request needs.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schema-2026-07-28.json
var schemaJSON []byte

// SHA256 is the checksum of the embedded schema file, as ORIGIN.md states it.
const SHA256 = "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203"

// JSON returns the embedded schema document, unchanged.
func JSON() []byte { return bytes.Clone(schemaJSON) }

const schemaURL = "https://modelcontextprotocol.io/schema/2026-07-28/schema.json"

// Validator checks messages and values against the schema's definitions.
// It is safe for concurrent use.
type Validator struct {
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema

	defs       map[string]bool
	requestDef map[string]string // method -> definition of the request
	notifyDef  map[string]string // method -> definition of the notification
	errorDef   map[int]string    // error code -> definition of the error object
	// errorResponseDef: error code -> definition of a whole error response
	// (the MCP errors are defined as responses, the JSON-RPC ones as objects)
	errorResponseDef map[int]string
	responseByReq    map[string]string // request definition -> result response definition
}

var (
	sharedOnce sync.Once
	shared     *Validator
	sharedErr  error
)

// Default returns a Validator of the embedded schema, compiled once.
func Default() (*Validator, error) {
	sharedOnce.Do(func() { shared, sharedErr = New(schemaJSON) })
	return shared, sharedErr
}

// New returns a Validator of a schema document with a top-level $defs.
func New(doc []byte) (*Validator, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("reading the MCP schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, parsed); err != nil {
		return nil, fmt.Errorf("loading the MCP schema: %w", err)
	}
	var raw struct {
		Defs map[string]struct {
			Required   []string `json:"required"`
			Properties struct {
				Method *struct {
					Const string `json:"const"`
				} `json:"method"`
				Code  *codeConst `json:"code"`
				Error *struct {
					AllOf []struct {
						Properties struct {
							Code *codeConst `json:"code"`
						} `json:"properties"`
					} `json:"allOf"`
				} `json:"error"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("reading the MCP schema's definitions: %w", err)
	}
	v := &Validator{
		compiler: c, compiled: map[string]*jsonschema.Schema{}, defs: map[string]bool{},
		requestDef: map[string]string{}, notifyDef: map[string]string{}, errorDef: map[int]string{}, errorResponseDef: map[int]string{}, responseByReq: map[string]string{},
	}
	names := make([]string, 0, len(raw.Defs))
	for name := range raw.Defs {
		names = append(names, name)
	}
	sort.Strings(names) // CancelledNotification before ClientNotification
	for _, name := range names {
		d := raw.Defs[name]
		v.defs[name] = true
		if m := d.Properties.Method; m != nil && m.Const != "" && slices.Contains(d.Required, "jsonrpc") {
			if slices.Contains(d.Required, "id") {
				v.requestDef[m.Const] = name
			} else if _, dup := v.notifyDef[m.Const]; !dup {
				v.notifyDef[m.Const] = name
			}
		}
		if c := d.Properties.Code; c != nil && c.Const != nil && strings.HasSuffix(name, "Error") {
			v.errorDef[*c.Const] = name
		}
		if e := d.Properties.Error; e != nil && strings.HasSuffix(name, "Error") {
			for _, part := range e.AllOf {
				if c := part.Properties.Code; c != nil && c.Const != nil {
					v.errorResponseDef[*c.Const] = name
				}
			}
		}
	}
	for _, name := range v.requestDef {
		if resp := strings.TrimSuffix(name, "Request") + "ResultResponse"; v.defs[resp] {
			v.responseByReq[name] = resp
		}
	}
	return v, nil
}

type codeConst struct {
	Const *int `json:"const"`
}

// HasDef reports whether the schema defines name.
func (v *Validator) HasDef(name string) bool { return v.defs[name] }

// RequestDef returns the definition a request for method must meet, or ""
// when the schema defines no such request.
func (v *Validator) RequestDef(method string) string { return v.requestDef[method] }

func (v *Validator) schema(def string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[def]; ok {
		return s, nil
	}
	if !v.defs[def] {
		return nil, fmt.Errorf("the schema has no definition %q", def)
	}
	s, err := v.compiler.Compile(schemaURL + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling the definition %s: %w", def, err)
	}
	v.compiled[def] = s
	return s, nil
}

// CheckDef checks a JSON value against one definition of the schema. The
// error, when the value does not meet it, is a *Mismatch.
func (v *Validator) CheckDef(def string, value []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return &Mismatch{Def: def, Reasons: []string{"it is not JSON: " + err.Error()}}
	}
	s, err := v.schema(def)
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return fmt.Errorf("checking against %s: %w", def, err)
		}
		return &Mismatch{Def: def, Reasons: reasons(ve)}
	}
	return nil
}

// Mismatch says why a value does not meet a definition of the schema.
type Mismatch struct {
	// Def is the definition checked, such as "DiscoverRequest".
	Def string
	// Reasons are the schema's complaints, most specific first, each with
	// where in the value it applies.
	Reasons []string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("does not meet %s: %s", m.Def, strings.Join(m.Reasons, "; "))
}

var english = message.NewPrinter(language.English)

// reasons flattens a validation error to its leaves: the specific
// complaints, with the place in the message each one is about.
func reasons(ve *jsonschema.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			where := "/" + strings.Join(e.InstanceLocation, "/")
			if where == "/" {
				where = "the message"
			}
			r := fmt.Sprintf("at %s: %s", where, e.ErrorKind.LocalizedString(english))
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	const most = 4
	if len(out) > most {
		out = append(out[:most], fmt.Sprintf("and %d more", len(out)-most))
	}
	return out
}
