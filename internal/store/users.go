package store

// The people of the API: users, their roles on sites, their access tokens
// and the single-use tokens mailed to them.

import "time"

// Roles a user can hold on a site.
const (
	RoleAdmin  = "admin"
	RoleEditor = "editor"
)

// User is a person who uses the API with a user-scoped token.
type User struct {
	ID        string
	Email     string // unique, stored lower case
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Membership gives a user a role on a site.
type Membership struct {
	SiteID string
	UserID string
	Role   string
}

// Users stores users and their site memberships.
type Users interface {
	// Create stores a new user. EConflict if the email is taken.
	Create(u *User) error
	// Get returns a user by id. ENotFound.
	Get(id string) (*User, error)
	// GetByEmail returns a user by (case-insensitive) email. ENotFound.
	GetByEmail(email string) (*User, error)
	// SetMembership creates or replaces the user's role on a site.
	SetMembership(m Membership) error
	// Membership returns the user's role on a site. ENotFound.
	Membership(siteID, userID string) (*Membership, error)
	// RemoveMembership ends the user's role on a site (the user stays).
	// ENotFound.
	RemoveMembership(siteID, userID string) error
	// ListMembers returns the site's users with their roles, by email.
	ListMembers(siteID string) ([]*Member, error)
	// PasswordHash returns the user's password hash, "" when the user has
	// no password. ENotFound.
	PasswordHash(id string) (string, error)
	// SetPasswordHash replaces the user's password hash ("" removes the
	// password) and sets updated_at. ENotFound.
	SetPasswordHash(id, hash string, updatedAt time.Time) error
	// Count returns the number of users.
	Count() (int, error)
	// Memberships returns the user's roles on sites, by site id.
	Memberships(userID string) ([]*Membership, error)
	// ClaimFirstRun records that the store's first run (the first user,
	// made through the API) happened, by userID at at. It succeeds once
	// per store, even between concurrent callers: EConflict after.
	ClaimFirstRun(userID string, at time.Time) error
}

// Member is a user with a role on a site.
type Member struct {
	User
	Role string
	// HasPassword reports whether the user set a password (an invited
	// user has none until the invitation's link is followed).
	HasPassword bool
}

// Token is an API access token. Only a hash of the secret is stored.
// A user-scoped token has UserID set and SiteID empty; a site-scoped token
// has SiteID set and acts with admin rights on that site only.
type Token struct {
	ID        string
	Hash      string // hex SHA-256 of the secret
	UserID    string
	SiteID    string
	Name      string
	CreatedAt time.Time
	// ExpiresAt is when the token stops working; zero for never.
	ExpiresAt time.Time
	// SignIn marks a token a user's password sign-in issued: a new
	// password ends those, not the tokens an operator made.
	SignIn bool
	// Scopes bound what the token may do (package scopes' canonical
	// form); "" is every scope, as user and site tokens have.
	Scopes string
	// InstallationID is the app installation that issued the token ("" for
	// none); revoking the installation ends it.
	InstallationID string
}

// Tokens stores access tokens.
type Tokens interface {
	// Create stores a new token. EConflict if the hash exists.
	Create(t *Token) error
	// GetByHash returns the token whose secret hashes to hash. ENotFound.
	GetByHash(hash string) (*Token, error)
	// Delete removes a token. ENotFound.
	Delete(id string) error
	// List returns the tokens that reach the site: its site tokens and the
	// user tokens of its members, oldest first. Hashes are left empty.
	List(siteID string) ([]*Token, error)
	// DeleteSignIns removes the user's sign-in tokens and returns their ids.
	DeleteSignIns(userID string) ([]string, error)
	// DeleteExpired removes the tokens that expired at or before now and
	// returns how many.
	DeleteExpired(now time.Time) (int, error)
	// DeleteOtherSignIns removes the user's sign-in tokens but the one
	// with id keep, and returns their ids.
	DeleteOtherSignIns(userID, keep string) ([]string, error)
	// Extend sets the expiry of a token that expires. ENotFound (also for
	// a token that never expires: it is not made to).
	Extend(id string, expiresAt time.Time) error
}

// UserToken is a single-use token mailed to a user (a password reset),
// found by the hash of its value.
type UserToken struct {
	TokenHash string
	Purpose   string // "reset"
	UserID    string
	ExpiresAt time.Time
}

// UserTokens stores the tokens mailed to users.
type UserTokens interface {
	// Create stores a token. ENotFound if the user does not exist.
	Create(t *UserToken) error
	// Consume removes and returns the token with the hash and purpose if
	// it has not expired at now: a token is used once, even by concurrent
	// callers. ENotFound.
	Consume(purpose, tokenHash string, now time.Time) (*UserToken, error)
	// DeleteForUser removes the user's tokens of a purpose.
	DeleteForUser(userID, purpose string) error
}
