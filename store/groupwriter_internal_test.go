package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGroupWriterStartsTheLogOver checks that the write-ahead log is
// started over while the writer never pauses. SQLite starts it over only
// when a write begins with every frame already copied into the database,
// which a background checkpoint alone never achieves under steady writes:
// without the writer catching up after it, the log grows until SQLite's
// automatic checkpoint, which stalls every waiting vote behind its fsyncs.
//
// Each write here is slow (it holds the transaction for a while) and small
// (one row), so the writer is always busy while the log grows slowly, far
// from the automatic checkpoint within the test's time.
func TestGroupWriterStartsTheLogOver(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.write.Exec("CREATE TABLE busy (body TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	w := db.NewGroupWriter(64)
	defer w.Close()

	body := strings.Repeat("x", 3000) // most of a page: each row dirties one
	write := func(ctx context.Context, tx *sql.Tx) error {
		time.Sleep(200 * time.Microsecond)
		_, err := tx.ExecContext(ctx, "INSERT INTO busy (body) VALUES ($1)", body)
		return err
	}
	stop, stopped := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				stopped <- nil
				return
			default:
			}
			if err := w.Do(ctx, write); err != nil {
				stopped <- err
				return
			}
		}
	}()
	defer func() {
		close(stop)
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
	}()

	// Watch the log's length until it drops: it was started over.
	shm := db.Path + "-shm"
	var longest, last uint32
	start := time.Now()
	for time.Since(start) < 3*checkpointEvery+checkpointEvery/2 {
		time.Sleep(5 * time.Millisecond)
		n, err := walFrames(shm)
		if err != nil {
			t.Fatal(err)
		}
		if n < last {
			t.Logf("log started over after %d frames, %s in", last, time.Since(start).Round(time.Millisecond))
			return
		}
		last, longest = n, max(longest, n)
	}
	t.Fatalf("the log was never started over under steady writes; it grew to %d frames", longest)
}

// walFrames reads the number of valid frames in the write-ahead log
// (mxFrame) from the wal-index header at the start of the -shm file, as
// SQLite's file format lays it out: native byte order, offset 16.
func walFrames(shmPath string) (uint32, error) {
	f, err := os.Open(shmPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var hdr [48]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return 0, fmt.Errorf("%s: %w", shmPath, err)
	}
	return binary.NativeEndian.Uint32(hdr[16:20]), nil
}
