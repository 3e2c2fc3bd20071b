package pages

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// PreviewTTL is how long a preview token is valid.
const PreviewTTL = 24 * time.Hour

// previewIssuer names the tokens this server signs.
const previewIssuer = "tessera-preview"

// previewClaims bind a token to one site and one page (not to a draft, so
// the same link keeps working across save, publish and discard).
type previewClaims struct {
	Site string `json:"site"`
	jwt.RegisteredClaims
}

// errBadPreview is the answer to any token that does not grant a preview:
// expired, forged, for another site or page, or signed with a rotated secret.
var errBadPreview = &cms.Error{Code: cms.EUnauthorized, Message: "Invalid or expired preview token."}

// IssuePreviewToken returns an HS256 JWT for previewing page pageID of site,
// valid PreviewTTL from now and signed with the site's preview secret.
func IssuePreviewToken(site *store.Site, pageID string, now time.Time) (string, error) {
	if len(site.PreviewSecret) == 0 {
		return "", errors.New("pages: site has no preview secret")
	}
	claims := previewClaims{
		Site: site.ID,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    previewIssuer,
			Subject:   pageID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(PreviewTTL)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(site.PreviewSecret)
}

// ParsePreviewToken checks a preview token against site at time now and
// returns the id of the page it grants. Anything else (a bad signature, an
// algorithm other than HS256, an expired token, another site) is a 401.
func ParsePreviewToken(site *store.Site, token string, now time.Time) (pageID string, err error) {
	var claims previewClaims
	_, err = jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return site.PreviewSecret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(previewIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if err != nil || claims.Site != site.ID || !cms.IsID(claims.Subject) || len(site.PreviewSecret) == 0 {
		return "", errBadPreview
	}
	return claims.Subject, nil
}
