package pages_test

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/store"
)

func TestPreviewToken(t *testing.T) {
	now := time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)
	site := &store.Site{ID: "6a6c60362e4510dd4a459982", PreviewSecret: []byte("0123456789abcdef0123456789abcdef")}
	other := &store.Site{ID: "6a6c60362e4510dd4a459983", PreviewSecret: []byte("another secret, another site....")}
	const page = "6a6c60362e4510dd4a4599aa"
	tok, err := pages.IssuePreviewToken(site, page, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Valid", func(t *testing.T) {
		got, err := pages.ParsePreviewToken(site, tok, now.Add(23*time.Hour))
		if err != nil || got != page {
			t.Errorf("got %q, %v; want %q", got, err, page)
		}
	})
	reject := func(t *testing.T, s *store.Site, token string, at time.Time) {
		t.Helper()
		if _, err := pages.ParsePreviewToken(s, token, at); !cms.IsCode(err, cms.EUnauthorized) {
			t.Errorf("got %v, want unauthorized", err)
		}
	}
	t.Run("Expired", func(t *testing.T) { reject(t, site, tok, now.Add(24*time.Hour+time.Second)) })
	t.Run("OtherSite", func(t *testing.T) { reject(t, other, tok, now) })
	t.Run("SameSecretOtherSiteID", func(t *testing.T) {
		reject(t, &store.Site{ID: other.ID, PreviewSecret: site.PreviewSecret}, tok, now)
	})
	t.Run("Rotated", func(t *testing.T) {
		reject(t, &store.Site{ID: site.ID, PreviewSecret: []byte("rotated secret rotated secret...")}, tok, now)
	})
	t.Run("Tampered", func(t *testing.T) {
		parts := strings.Split(tok, ".")
		forged, _ := pages.IssuePreviewToken(site, "6a6c60362e4510dd4a4599bb", now)
		reject(t, site, parts[0]+"."+strings.Split(forged, ".")[1]+"."+parts[2], now)
	})
	t.Run("AlgNone", func(t *testing.T) {
		none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"site": site.ID, "sub": page, "iss": "tessera-preview",
			"exp": now.Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
		reject(t, site, none, now)
	})
	t.Run("Garbage", func(t *testing.T) { reject(t, site, "not-a-token", now) })
}
