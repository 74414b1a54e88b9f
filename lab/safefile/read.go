package safefile

import "io"

// ReadAtMost reads r to its end, but no more than max bytes of it: over
// reports that r held more, and data is then its first max bytes. It is
// how the lab reads a file or a body it did not write, within a bound,
// whatever the reader holds.
func ReadAtMost(r io.Reader, max int64) (data []byte, over bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, max+1))
	if int64(len(data)) > max {
		return data[:max], true, err
	}
	return data, false, err
}
