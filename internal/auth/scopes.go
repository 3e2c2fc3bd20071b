package auth

import "github.com/tessera-cms/tessera/internal/scopes"

// Scopes returns the grant of the principal's token: scopes.Full for user
// and site tokens, the installation's grant for an app's token. Made once
// when the principal is resolved (and cached with it), so a request pays
// nothing for it.
func (p *Principal) Scopes() *scopes.Set {
	if p == nil || p.scopes == nil {
		return scopes.Full
	}
	return p.scopes
}

// grantOf parses a token's stored scopes. A token whose stored scopes no
// longer parse holds none rather than more.
func grantOf(tokenScopes string) *scopes.Set {
	if tokenScopes == "" {
		return scopes.Full
	}
	s, err := scopes.Parse(tokenScopes)
	if err != nil {
		return &scopes.Set{}
	}
	return s
}
