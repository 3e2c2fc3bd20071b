// Package oauth makes apps OAuth applications of the sites they belong
// to: installations (an app's grant on a site), the authorization-code
// flow with PKCE (RFC 6749 §4.1, RFC 7636), refresh with rotation, and
// revocation (RFC 7009). Codes, access tokens and refresh tokens are
// random secrets stored only as their SHA-256, like every other token.
//
// An app belongs to the site it was made on (package apps), so it is
// installed there: the client_id is the app's key on that site, and every
// code and token of an installation is bound to that site.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/url"
	"time"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/store"
)

// Lifetimes of what the flow issues, unless the Service says otherwise.
const (
	DefaultCodeTTL   = time.Minute // RFC 6749 §4.1.2: ten minutes at most
	DefaultAccessTTL = time.Hour
)

// Service runs the flow on a store.
type Service struct {
	Store store.Store
	// CodeTTL and AccessTTL: zero means the defaults.
	CodeTTL, AccessTTL time.Duration
}

func (s *Service) codeTTL() time.Duration {
	if s.CodeTTL > 0 {
		return s.CodeTTL
	}
	return DefaultCodeTTL
}

func (s *Service) accessTTL() time.Duration {
	if s.AccessTTL > 0 {
		return s.AccessTTL
	}
	return DefaultAccessTTL
}

// Error is an error of the token and revocation endpoints, in RFC 6749
// §5.2's terms: Code is the protocol's error name (invalid_grant, …).
type Error struct {
	Code, Description string
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func protoErr(code, desc string) *Error { return &Error{Code: code, Description: desc} }

// Request is a validated authorization request: what the consent screen
// shows and what approving it grants.
type Request struct {
	Client      *apps.Client
	Site        *store.Site
	RedirectURI string
	State       string
	Scopes      *scopes.Set
	Challenge   string
}

// AuthorizeParams are the query parameters of GET /oauth/authorize.
type AuthorizeParams struct {
	ClientID, RedirectURI, Scope, State, ResponseType, Challenge, ChallengeMethod string
}

// Check validates an authorization request on site. Two kinds of failure
// (RFC 6749 §4.1.2.1): one that must not redirect (unknown client, a
// redirect URI other than the registered one) is a *cms.Error; one that
// goes back to the client (bad scope, missing PKCE) is an *Error, with
// the Request filled enough to redirect.
func (s *Service) Check(ctx context.Context, site *store.Site, p AuthorizeParams) (*Request, error) {
	req := &Request{Site: site, State: p.State}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		c, err := apps.ClientOf(tx, site.ID, p.ClientID)
		if cms.IsCode(err, cms.ENotFound) || p.ClientID == "" {
			return cms.Errorf(cms.EInvalid, "No app of this site has the client_id %q.", p.ClientID)
		} else if err != nil {
			return err
		}
		req.Client = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	c := req.Client
	if u, err := url.Parse(c.CallbackURL); c.CallbackURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return nil, cms.Errorf(cms.EInvalid, "The app %s has no http(s) callback_url to send the answer to.", c.Key)
	}
	// Exact match (RFC 6749 §3.1.2.3 and its security BCP): no prefix,
	// no pattern, no normalization an attacker could steer.
	if p.RedirectURI != "" && p.RedirectURI != c.CallbackURL {
		return nil, cms.Errorf(cms.EInvalid, "The redirect_uri is not the app's registered callback_url.")
	}
	req.RedirectURI = c.CallbackURL
	if p.ResponseType != "code" {
		return req, protoErr("unsupported_response_type", "response_type must be code.")
	}
	allowed := scopes.Lenient(c.InstallScopes)
	asked := allowed
	if p.Scope != "" {
		var err error
		if asked, err = scopes.Parse(p.Scope); err != nil {
			return req, protoErr("invalid_scope", err.Error())
		}
		if !asked.Within(allowed) {
			return req, protoErr("invalid_scope", "The scope asks for more than the app's install_scopes.")
		}
	}
	if len(asked.Names()) == 0 {
		return req, protoErr("invalid_scope", "The request grants no scope.")
	}
	req.Scopes = asked
	switch {
	case p.Challenge == "" && !c.HasSecret():
		return req, protoErr("invalid_request", "This app has no client secret: send a PKCE code_challenge (S256).")
	case p.Challenge != "" && p.ChallengeMethod != "S256":
		return req, protoErr("invalid_request", "code_challenge_method must be S256.")
	case p.Challenge != "" && !validVerifierChars(p.Challenge, 43, 43):
		return req, protoErr("invalid_request", "code_challenge is the 43-character base64url SHA-256 of the verifier.")
	}
	req.Challenge = p.Challenge
	return req, nil
}

// validVerifierChars: RFC 7636 §4.1's unreserved characters, in a length range.
func validVerifierChars(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// Approve installs the request's app on its site for the admin userID
// (replacing an earlier installation's grant) and returns a code for the
// client to exchange.
func (s *Service) Approve(ctx context.Context, req *Request, userID string) (code string, err error) {
	code, err = newSecret("tsr_code_")
	if err != nil {
		return "", err
	}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		inst, err := install(tx, req.Site.ID, req.Client.ID, req.Scopes, userID)
		if err != nil {
			return err
		}
		return tx.OAuth().CreateCode(&store.OAuthCode{Hash: auth.HashToken(code), SiteID: req.Site.ID, InstallationID: inst.ID,
			RedirectURI: req.RedirectURI, Scopes: req.Scopes.String(), Challenge: req.Challenge, ExpiresAt: tx.Now().Add(s.codeTTL())})
	})
	return code, err
}

func install(tx store.Tx, siteID, appID string, grant *scopes.Set, userID string) (*store.Installation, error) {
	inst := &store.Installation{ID: cms.NewID(tx.Now()), SiteID: siteID, AppID: appID, Scopes: grant.String(), UserID: userID,
		CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
	return inst, tx.OAuth().PutInstallation(inst)
}

// TokenResponse is the token endpoint's answer (RFC 6749 §5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// ClientAuth is how a client authenticated at the token endpoint.
type ClientAuth struct {
	ClientID, Secret string
}

// Exchange trades a code for tokens (RFC 6749 §4.1.3): the client is the
// app the code was issued to, the redirect_uri the one of the request,
// and the client proves itself with the PKCE verifier of the code's
// challenge, or with its secret when the request had none.
func (s *Service) Exchange(ctx context.Context, ca ClientAuth, code, redirectURI, verifier string) (*TokenResponse, error) {
	var out *TokenResponse
	err := s.updateKeepingConsumption(ctx, func(tx store.Tx) (bool, error) {
		c, err := tx.OAuth().ConsumeCode(auth.HashToken(code), tx.Now())
		if cms.IsCode(err, cms.ENotFound) {
			return false, protoErr("invalid_grant", "The code is unknown, used or expired.")
		} else if err != nil {
			return false, err
		}
		return true, func() error {
			inst, client, err := installationClient(tx, c.SiteID, c.InstallationID)
			if err != nil {
				return err
			}
			if err := checkClient(client, ca, c.Challenge == ""); err != nil {
				return err
			}
			if redirectURI != c.RedirectURI {
				return protoErr("invalid_grant", "The redirect_uri is not the one the code was issued for.")
			}
			if c.Challenge != "" && !verifierMatches(verifier, c.Challenge) {
				return protoErr("invalid_grant", "The code_verifier does not match the code_challenge.")
			}
			grant, err := scopes.Parse(c.Scopes)
			if err != nil {
				return err
			}
			out, err = s.issue(tx, inst, grant)
			return err
		}()
	})
	return out, err
}

// updateKeepingConsumption runs fn in a write transaction. Once fn has
// consumed a code or refresh token (consumed true), a protocol error
// after that still commits the consumption, so that a code or refresh
// token is tried once, whatever the outcome; any other error rolls back.
func (s *Service) updateKeepingConsumption(ctx context.Context, fn func(store.Tx) (consumed bool, err error)) error {
	var proto *Error
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		consumed, err := fn(tx)
		if consumed && errors.As(err, &proto) {
			return nil
		}
		proto = nil
		return err
	})
	if err == nil && proto != nil {
		return proto
	}
	return err
}

// Refresh rotates a refresh token (RFC 6749 §6): the old one and its
// access token end, a new pair is issued, within the installation's
// current grant (and scope, when given, narrower still).
func (s *Service) Refresh(ctx context.Context, ca ClientAuth, refresh, scope string) (*TokenResponse, error) {
	var out *TokenResponse
	err := s.updateKeepingConsumption(ctx, func(tx store.Tx) (bool, error) {
		r, err := tx.OAuth().ConsumeRefresh(auth.HashToken(refresh))
		if cms.IsCode(err, cms.ENotFound) {
			return false, protoErr("invalid_grant", "The refresh token is unknown or was used.")
		} else if err != nil {
			return false, err
		}
		return true, func() error {
			inst, client, err := installationClient(tx, r.SiteID, r.InstallationID)
			if err != nil {
				return err
			}
			if err := checkClient(client, ca, false); err != nil {
				return err
			}
			grant, err := scopes.Parse(r.Scopes)
			if err != nil {
				return err
			}
			installed, err := scopes.Parse(inst.Scopes)
			if err != nil {
				return err
			}
			grant = grant.Intersect(installed)
			if scope != "" {
				asked, err := scopes.Parse(scope)
				if err != nil {
					return protoErr("invalid_scope", err.Error())
				}
				if !asked.Within(grant) {
					return protoErr("invalid_scope", "The scope asks for more than the refresh token holds.")
				}
				grant = asked
			}
			// The refresh token's access token ends with it.
			if err := tx.Tokens().Delete(r.AccessID); err != nil && !cms.IsCode(err, cms.ENotFound) {
				return err
			}
			out, err = s.issue(tx, inst, grant)
			return err
		}()
	})
	return out, err
}

// RevokeToken ends a token (RFC 7009): an access token with its refresh
// token, or a refresh token with its access token. A token that is
// unknown, or another client's, is answered as revoked (§2.2), and
// nothing is done to another client's.
func (s *Service) RevokeToken(ctx context.Context, ca ClientAuth, token string) error {
	hash := auth.HashToken(token)
	return s.Store.Update(ctx, func(tx store.Tx) error {
		var siteID, instID, accessID string
		r, err := tx.OAuth().ConsumeRefresh(hash)
		switch {
		case err == nil:
			siteID, instID, accessID = r.SiteID, r.InstallationID, r.AccessID
		case cms.IsCode(err, cms.ENotFound):
			tok, err := tx.Tokens().GetByHash(hash)
			if cms.IsCode(err, cms.ENotFound) || err == nil && tok.InstallationID == "" {
				return nil
			} else if err != nil {
				return err
			}
			siteID, instID, accessID = tok.SiteID, tok.InstallationID, tok.ID
		default:
			return err
		}
		_, client, err := installationClient(tx, siteID, instID)
		if err != nil {
			return err
		}
		if err := checkClient(client, ca, false); err != nil {
			return err
		}
		if r == nil {
			if r, err := tx.OAuth().RefreshByAccess(accessID); err == nil {
				if _, err := tx.OAuth().ConsumeRefresh(r.Hash); err != nil {
					return err
				}
			} else if !cms.IsCode(err, cms.ENotFound) {
				return err
			}
		}
		if err := tx.Tokens().Delete(accessID); err != nil && !cms.IsCode(err, cms.ENotFound) {
			return err
		}
		return nil
	})
}

func installationClient(tx store.Tx, siteID, instID string) (*store.Installation, *apps.Client, error) {
	inst, err := tx.OAuth().Installation(siteID, instID)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, nil, protoErr("invalid_grant", "The app's installation was revoked.")
	} else if err != nil {
		return nil, nil, err
	}
	clients, err := apps.ClientsOf(tx, siteID)
	if err != nil {
		return nil, nil, err
	}
	c := clients[inst.AppID]
	if c == nil {
		return nil, nil, protoErr("invalid_grant", "The app is gone.")
	}
	return inst, c, nil
}

// checkClient authenticates the client (RFC 6749 §3.2.1): the client_id
// must be the app's key; its secret, when sent, must be right; and
// needSecret (a code issued without PKCE) requires it.
func checkClient(c *apps.Client, ca ClientAuth, needSecret bool) error {
	if ca.ClientID != c.Key {
		return protoErr("invalid_grant", "The grant was issued to another client.")
	}
	if ca.Secret != "" && !c.CheckSecret(ca.Secret) {
		return protoErr("invalid_client", "The client secret is wrong.")
	}
	if needSecret && ca.Secret == "" {
		return protoErr("invalid_client", "This code was issued without PKCE: authenticate with the client secret.")
	}
	return nil
}

// verifierMatches checks a PKCE verifier against an S256 challenge
// (RFC 7636 §4.6), in constant time.
func verifierMatches(verifier, challenge string) bool {
	if !validVerifierChars(verifier, 43, 128) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// issue makes an access token and a refresh token of the installation.
func (s *Service) issue(tx store.Tx, inst *store.Installation, grant *scopes.Set) (*TokenResponse, error) {
	access, err := newSecret("tsr_")
	if err != nil {
		return nil, err
	}
	refresh, err := newSecret("tsr_refresh_")
	if err != nil {
		return nil, err
	}
	tok := &store.Token{ID: cms.NewID(tx.Now()), Hash: auth.HashToken(access), UserID: inst.UserID, SiteID: inst.SiteID,
		Name: "app installation " + inst.ID, CreatedAt: tx.Now(), ExpiresAt: tx.Now().Add(s.accessTTL()),
		Scopes: grant.String(), InstallationID: inst.ID}
	if err := tx.Tokens().Create(tok); err != nil {
		return nil, err
	}
	if err := tx.OAuth().CreateRefresh(&store.RefreshToken{ID: cms.NewID(tx.Now()), Hash: auth.HashToken(refresh), SiteID: inst.SiteID,
		InstallationID: inst.ID, AccessID: tok.ID, Scopes: grant.String(), CreatedAt: tx.Now()}); err != nil {
		return nil, err
	}
	return &TokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(s.accessTTL() / time.Second),
		RefreshToken: refresh, Scope: grant.String()}, nil
}

func newSecret(prefix string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}
