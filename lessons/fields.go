package lessons

import (
	"fmt"
	"strings"
)

// A Field is one key a "key: value" text may hold (a manifest's, an entry
// of a check catalogue's) and what its value does: Text, when set, takes
// the value as it is; else Parse reads it, with its line for the message.
type Field struct {
	Key   string
	Text  *string
	Parse func(kv KeyValue) error
}

// Fields are the keys of one kind of "key: value" text, in the order its
// messages list them.
type Fields []Field

// Set hands kv's value to the field its key names. known is false when no
// field names it; err is the field's Parse's error, as Parse gave it (the
// caller says where it is).
func (fs Fields) Set(kv KeyValue) (known bool, err error) {
	for _, f := range fs {
		switch {
		case f.Key != kv.Key:
			continue
		case f.Text != nil:
			*f.Text = kv.Value
			return true, nil
		default:
			return true, f.Parse(kv)
		}
	}
	return false, nil
}

// Keys lists the fields' keys, "number, title, subject", for the message
// that refuses a key none of them is.
func (fs Fields) Keys() string {
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.Key
	}
	return strings.Join(keys, ", ")
}

// MissingLine is the error of a manifest without the key line its lesson
// needs, such as "the manifest has no \"number\" line".
func MissingLine(key string) error {
	return fmt.Errorf("the manifest has no %q line", key)
}
