package textesc

import "io"

// Writer returns a writer that passes what it is given through Visible
// before writing it to w, for output a command prints whatever it holds
// (a flag package's messages, an error carrying a file name). Each Write
// is escaped on its own, so a caller should write whole lines; text that
// is already escaped is written unchanged.
func Writer(w io.Writer) io.Writer { return visibleWriter{w} }

type visibleWriter struct{ w io.Writer }

func (v visibleWriter) Write(p []byte) (int, error) {
	s := string(p)
	if e := Visible(s); e != s {
		if _, err := io.WriteString(v.w, e); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return v.w.Write(p)
}
