package files

import (
	"context"
	"errors"
	"io"
)

// ListKeys returns every key in s's bucket, for tests that check nothing
// was left behind.
func ListKeys(ctx context.Context, s *Store) ([]string, error) {
	var keys []string
	it := s.bucket.List(nil)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return keys, err
		}
		keys = append(keys, obj.Key)
	}
}

// ETagOf is etagOf, for tests of the backends the fake S3 does not mimic
// (S3's multipart ETags are not md5s; the fake's are).
var ETagOf = etagOf
