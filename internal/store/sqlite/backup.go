package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
)

// Backup writes a consistent copy of the database at path to dest (which
// must not exist) while other processes keep using it: VACUUM INTO reads
// one snapshot (WAL lets writers go on meanwhile) and writes a compact,
// self-contained database file. Copying the file itself would not be
// safe: a live WAL database is two files changing under the copy.
func Backup(ctx context.Context, path, dest string) error {
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("sqlite: backup: %s exists", dest)
	}
	// Not query_only: SQLite counts VACUUM INTO as a write, though it
	// leaves the source unchanged.
	db, err := sql.Open("sqlite", dsn(path, "_txlock=deferred"))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("sqlite: backup %s: %w", path, err)
	}
	return nil
}
