package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/ringside-eval/ringside"
)

// writeOutput runs write against standard output, or against the file
// path. A file is written beside its final name and renamed into place
// once complete, so a failed export never leaves half a file under the
// name a script will read.
func (m *Main) writeOutput(path string, write func(w io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriterSize(m.Stdout, 64<<10)
		if err := write(bw); err != nil {
			bw.Flush()
			return err
		}
		return bw.Flush()
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return ringside.Errorf(ringside.EINVALID, "-o: %v", err)
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing to remove
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return ringside.Errorf(ringside.EINVALID, "-o: %v", err)
	}
	if err := f.Close(); err != nil {
		return ringside.Errorf(ringside.EINVALID, "-o: %v", err)
	}
	// CreateTemp makes the file private; an export is an ordinary file.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return ringside.Errorf(ringside.EINVALID, "-o: %v", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return ringside.Errorf(ringside.EINVALID, "-o: %v", err)
	}
	return nil
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
