package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadRegular reads the whole of the regular file at path, at most limit
// bytes. Anything else is refused at once with an error that names the
// path and what it is: a named pipe (FIFO) or a device could block a read
// for ever, a folder holds no lines. The file is looked at before it is
// opened (opening some devices acts on them), opened with O_NONBLOCK (so
// a FIFO swapped in meanwhile cannot block the open) and checked again
// once open. The read stops when ctx ends.
func ReadRegular(ctx context.Context, path string, limit int64) ([]byte, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, notRegular(path, before.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	if !os.SameFile(before, info) {
		return nil, fmt.Errorf("%s was replaced while it was opened; run the command again", path)
	}
	if info.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	buf := make([]byte, 0, info.Size()+1)
	chunk := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("reading %s took longer than this command allows a file: %w", path, err)
		} else if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		n, err := f.Read(chunk)
		if int64(len(buf)+n) > limit {
			return nil, tooLarge(path, limit)
		}
		buf = append(buf, chunk[:n]...)
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

func notRegular(path string, m os.FileMode) error {
	return fmt.Errorf("%s is %s, not a regular file: name a file of lines saved on disk", path, KindOf(m))
}

func tooLarge(path string, limit int64) error {
	if limit >= 1<<20 {
		return fmt.Errorf("%s is larger than %d MiB, the most this command reads", path, limit>>20)
	}
	return fmt.Errorf("%s is larger than %d bytes, the most this command reads", path, limit)
}
