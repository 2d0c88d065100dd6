package output

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
)

// Dest is an output destination: stdout, a file, or a gzipped file, behind a buffer.
type Dest struct {
	*bufio.Writer
	gz   *gzip.Writer
	file *os.File // nil for stdout, which is not closed
}

// OpenDest opens name for writing: "-" is stdout; a name ending in ".gz" is gzip-compressed. An
// existing file is truncated.
func OpenDest(name string, stdout io.Writer) (*Dest, error) {
	if name == "-" {
		if stdout == nil {
			stdout = os.Stdout
		}
		return &Dest{Writer: bufio.NewWriterSize(stdout, 64<<10)}, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	d := &Dest{file: f}
	var w io.Writer = f
	if strings.HasSuffix(name, ".gz") {
		d.gz = gzip.NewWriter(f)
		w = d.gz
	}
	d.Writer = bufio.NewWriterSize(w, 64<<10)
	return d, nil
}

// Close flushes everything and closes the file (not stdout).
func (d *Dest) Close() error {
	err := d.Flush()
	if d.gz != nil {
		err = errors.Join(err, d.gz.Close())
	}
	if d.file != nil {
		err = errors.Join(err, d.file.Close())
	}
	return err
}
