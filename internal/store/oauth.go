package store

import "time"

// Installation is an app installed on a site: the grant its tokens act
// within. One per site and app; installing again replaces the grant.
type Installation struct {
	ID     string
	SiteID string
	AppID  string
	// Scopes is the canonical scope string (package scopes).
	Scopes string
	// UserID is the admin who installed it ("" for an operator's).
	UserID    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// OAuthCode is an authorization code of the authorization-code flow,
// found by the hash of its value, used once.
type OAuthCode struct {
	Hash           string
	SiteID         string
	InstallationID string
	RedirectURI    string
	Scopes         string
	// Challenge is the PKCE S256 code challenge ("" when the client
	// authenticates with its secret instead).
	Challenge string
	ExpiresAt time.Time
}

// RefreshToken is an installation's refresh token, found by its hash;
// using it replaces it (rotation). AccessID is the access token it was
// issued with, which a refresh or revocation ends.
type RefreshToken struct {
	ID             string
	Hash           string
	SiteID         string
	InstallationID string
	AccessID       string
	Scopes         string
	CreatedAt      time.Time
}

// OAuth stores installations, authorization codes and refresh tokens,
// scoped to a site (codes and refresh tokens are found by hash, and carry
// their site).
type OAuth interface {
	// PutInstallation creates the installation of i's app on i's site, or
	// replaces the grant of the existing one (whose id and created_at are
	// written back into i).
	PutInstallation(i *Installation) error
	// Installation returns one installation by id. ENotFound.
	Installation(siteID, id string) (*Installation, error)
	// InstallationOf returns the installation of an app. ENotFound.
	InstallationOf(siteID, appID string) (*Installation, error)
	// Installations returns the site's installations, oldest first.
	Installations(siteID string) ([]*Installation, error)
	// DeleteInstallation removes an installation with its codes and
	// refresh tokens, and returns the ids of the access tokens it issued,
	// which it deletes too. ENotFound.
	DeleteInstallation(siteID, id string) ([]string, error)

	// CreateCode stores an authorization code.
	CreateCode(c *OAuthCode) error
	// ConsumeCode takes the code: deleted whatever it finds, returned
	// only while unexpired. ENotFound.
	ConsumeCode(hash string, now time.Time) (*OAuthCode, error)

	// CreateRefresh stores a refresh token.
	CreateRefresh(r *RefreshToken) error
	// ConsumeRefresh takes a refresh token (deletes and returns it). ENotFound.
	ConsumeRefresh(hash string) (*RefreshToken, error)
	// RefreshByAccess returns the refresh token issued with an access
	// token. ENotFound.
	RefreshByAccess(accessID string) (*RefreshToken, error)
}
