package stdioprobe

import "testing"

// TestSizeOf says byte counts as a reader takes them in.
func TestSizeOf(t *testing.T) {
	for n, want := range map[int64]string{1: "1 byte", 9999: "9999 bytes", 10_000: "10.0 kB", 999_000: "999.0 kB", 5_600_000: "5.6 MB", 56_000_000: "56.0 MB"} {
		if got := sizeOf(n); got != want {
			t.Errorf("sizeOf(%d) = %q, want %q", n, got, want)
		}
	}
}
