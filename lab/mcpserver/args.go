package mcpserver

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// StringArgs reads a tools/call's arguments as the required string
// arguments names and returns their values, in the order of names. It
// reports false when the arguments are not a JSON object, or when one of
// names is missing, null or not a string; the caller answers with the tool
// error that says what the tool needs.
//
// The arguments are read as encoding/json reads them into a struct with one
// *string field per name (which is what the lesson servers' tools did each
// on their own): a member whose name differs from one of names only in case
// counts as that argument, a later member of the same name wins, and other
// members are ignored. names must differ from one another other than in
// case.
func StringArgs(arguments json.RawMessage, names ...string) ([]string, bool) {
	fields := make([]reflect.StructField, len(names))
	for i, name := range names {
		fields[i] = reflect.StructField{
			Name: "A" + strconv.Itoa(i),
			Type: reflect.TypeFor[*string](),
			Tag:  reflect.StructTag(`json:` + strconv.Quote(name)),
		}
	}
	v := reflect.New(reflect.StructOf(fields))
	if json.Unmarshal(arguments, v.Interface()) != nil {
		return nil, false
	}
	values := make([]string, len(names))
	for i := range names {
		p := v.Elem().Field(i).Interface().(*string)
		if p == nil {
			return nil, false
		}
		values[i] = *p
	}
	return values, true
}
