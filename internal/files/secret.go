package files

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// SharedSecret returns the secret kept in Redis under key, storing a new
// random one first when there is none, so that processes sharing a Redis
// but given no Options.Secret sign and check private file URLs alike (a
// per-process secret makes a URL signed by one process fail on the others).
// The key has no expiry; a Redis that loses its data gives processes
// started afterwards a new secret, so a deployment whose Redis keeps
// nothing should set the secret itself.
func SharedSecret(ctx context.Context, client redis.UniversalClient, key string) ([]byte, error) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	if err := client.SetNX(ctx, key, hex.EncodeToString(b[:]), 0).Err(); err != nil {
		return nil, fmt.Errorf("files: shared secret: %w", err)
	}
	s, err := client.Get(ctx, key).Result()
	if err != nil {
		return nil, fmt.Errorf("files: shared secret: %w", err)
	}
	return []byte(s), nil
}
