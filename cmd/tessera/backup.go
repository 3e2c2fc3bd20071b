package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

// cmdBackup handles "tessera backup DEST": a consistent copy of a running
// server's SQLite database and the file blobs of its data directory.
func cmdBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	fs := newFlags("backup", &c)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("usage: tessera backup DEST [--data DIR]")
	}
	if c.database != "" {
		return fmt.Errorf("backup copies the SQLite store; back PostgreSQL up with pg_dump (see the README)")
	}
	if os.Getenv("TESSERA_BLOB_URL") != "" {
		return fmt.Errorf("backup copies file blobs of the data directory; TESSERA_BLOB_URL names other storage, which its own tools back up")
	}
	dest := pos[0]
	if err := os.MkdirAll(dest, 0o750); err != nil {
		return err
	}
	if entries, _ := os.ReadDir(dest); len(entries) > 0 {
		return fmt.Errorf("%s is not empty", dest)
	}
	// The database first, then the blobs: blob keys are never reused and a
	// blob is written before the record that names it commits, so every
	// blob the snapshot names is there to copy (blobs of later writes are
	// copied too, unused).
	prog := newProgress(stderr)
	defer prog.done()
	prog.update("Copying the database…")
	if err := sqlite.Backup(ctx, filepath.Join(c.data, "tessera.db"), filepath.Join(dest, "tessera.db")); err != nil {
		return err
	}
	n, err := copyTree(filepath.Join(c.data, "files"), filepath.Join(dest, "files"), prog)
	if err != nil {
		return err
	}
	return printResult(stdout, c.json, map[string]any{"dest": dest, "files": n},
		fmt.Sprintf("Backed up the database and %d files to %s.\n", n, dest))
}

// cmdRestore handles "tessera restore SRC --data DIR": a backup into an
// empty data directory.
func cmdRestore(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	fs := newFlags("restore", &c)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("usage: tessera restore SRC --data DIR")
	}
	src := pos[0]
	if _, err := os.Stat(filepath.Join(src, "tessera.db")); err != nil {
		return fmt.Errorf("%s holds no backup: %w", src, err)
	}
	if entries, _ := os.ReadDir(c.data); len(entries) > 0 {
		return fmt.Errorf("the data directory %s is not empty; restore into an empty one", c.data)
	}
	if _, err := copyTree(src, c.data, newProgress(io.Discard)); err != nil {
		return err
	}
	st, err := c.openStore(ctx) // checks the copy opens, and migrates it
	if err != nil {
		return err
	}
	st.Close()
	return printResult(stdout, c.json, map[string]any{"data": c.data}, fmt.Sprintf("Restored %s into %s.\n", src, c.data))
}

// copyTree copies the regular files under src (missing: nothing) to dst
// and returns how many it copied.
func copyTree(src, dst string, prog *progress) (int, error) {
	n := 0
	var bytes int64
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == src {
			return filepath.SkipDir
		} else if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o750)
		}
		// The blob store writes a blob as a temporary file and renames it;
		// such a file, or one gone since the walk listed it, is no blob of
		// the snapshot's.
		if !d.Type().IsRegular() || strings.HasSuffix(path, ".tmp") {
			return nil
		}
		if err := copyFile(path, target); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		n++
		if info, err := d.Info(); err == nil {
			bytes += info.Size()
		}
		prog.update("Copying files: %d (%s)", n, mib(bytes))
		return nil
	})
	return n, err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err // fs.ErrNotExist when src is gone
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// cmdVersion handles "tessera version": the module version and the commit
// the binary was built from.
func cmdVersion(stdout io.Writer) error {
	_, err := fmt.Fprintln(stdout, versionString())
	return err
}

// versionString is "tessera <version> (commit <hash>[+modified])".
func versionString() string {
	version, commit, modified := "(devel)", "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += "+modified"
	}
	return fmt.Sprintf("tessera %s (commit %s)", version, commit)
}
