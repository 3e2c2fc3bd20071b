package apps

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"

	"github.com/tessera-cms/tessera/internal/store"
)

// Client is an app as an OAuth client: what the authorization-code flow
// (package oauth) needs of it.
type Client struct {
	ID, Key, Name, Domain, URL, CallbackURL string
	Internal                                bool
	InstallScopes                           []string
	secretHash                              string
}

// ClientOf returns the site's app with the key as a client. ENotFound.
func ClientOf(tx store.Tx, siteID, key string) (*Client, error) {
	rec, err := tx.Apps().Get(siteID, key)
	if err != nil {
		return nil, err
	}
	return clientOf(rec)
}

// ClientsOf returns the site's apps as clients, by id.
func ClientsOf(tx store.Tx, siteID string) (map[string]*Client, error) {
	recs, _, err := tx.Apps().List(siteID, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Client, len(recs))
	for _, rec := range recs {
		if c, err := clientOf(rec); err == nil {
			out[rec.ID] = c
		}
	}
	return out, nil
}

func clientOf(rec *store.App) (*Client, error) {
	a, err := decodeDoc(rec)
	if err != nil {
		return nil, err
	}
	return &Client{ID: rec.ID, Key: rec.Key, Name: a.Name, Domain: a.Domain, URL: a.URL, CallbackURL: a.CallbackURL,
		Internal: a.Internal, InstallScopes: a.InstallScopes, secretHash: a.SecretHash}, nil
}

// HasSecret reports whether the app has a client secret.
func (c *Client) HasSecret() bool { return c.secretHash != "" }

// CheckSecret reports whether secret is the app's client secret.
func (c *Client) CheckSecret(secret string) bool {
	if c.secretHash == "" || secret == "" {
		return false
	}
	sum := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(c.secretHash)) == 1
}

// RotateSecret makes the app a new client secret, returned once and
// stored as its hash; the previous one stops working. ENotFound.
func (s *Service) RotateSecret(ctx context.Context, site *store.Site, key string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	secret := "tsr_app_" + base64.RawURLEncoding.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(secret))
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		rec, a, err := load(tx, site, key)
		if err != nil {
			return err
		}
		a.SecretHash = hex.EncodeToString(sum[:])
		prev := rec.UpdatedAt
		rec.Doc, rec.UpdatedAt = mustJSON(a), tx.Now()
		return tx.Apps().Update(rec, prev)
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}
