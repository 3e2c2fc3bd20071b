package auth

import (
	"context"
	"crypto/rand"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/store"
)

// A site's admins manage its people: they invite a user by email with a
// role, change a member's role and remove a member. An invited user who
// has no password yet is mailed a link that sets one (the reset
// mechanics, with a token of its own purpose that works longer); a user
// who has one is told where to sign in. A site keeps at least one admin.

const (
	purposeInvite = "invite"
	// InviteTTL is how long an invitation's link works.
	InviteTTL = 7 * 24 * time.Hour
	// maxNameLength bounds a user's display name.
	maxNameLength = 200
)

// Invitation is a member just invited.
type Invitation struct {
	Member *store.Member
	// Created reports that the user is new to the server.
	Created bool
}

// Invite gives the user with email role on the site (creating the user,
// named name or after the email, when new) and mails them: a link that
// sets their password when they have none, else a note of their new role.
// inviter names who invites, for the mail. Errors: cms.EValidationFailed
// (email, role, name), cms.EConflict (a member already), cms.ENotFound
// (site).
func (s *Service) Invite(ctx context.Context, siteID, email, name, role, inviter string) (*Invitation, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	name = strings.TrimSpace(name)
	switch {
	case email == "":
		return nil, cms.FieldError("email", "is required")
	case !validEmail(email):
		return nil, cms.FieldError("email", "is not an email address")
	case role != store.RoleAdmin && role != store.RoleEditor:
		return nil, cms.FieldError("role", "is admin or editor")
	case len(name) > maxNameLength:
		return nil, cms.FieldError("name", "is at most 200 characters")
	}
	token := rand.Text() + rand.Text()
	var out Invitation
	var site *store.Site
	var hasPassword bool
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		var err error
		if site, err = tx.Sites().Get(siteID); err != nil {
			return err
		}
		u, err := tx.Users().GetByEmail(email)
		switch {
		case cms.IsCode(err, cms.ENotFound):
			out.Created = true
		case err != nil:
			return err
		default:
			if _, err := tx.Users().Membership(site.ID, u.ID); err == nil {
				return cms.Errorf(cms.EConflict, "%s is a member of this site already; change their role instead.", email)
			} else if !cms.IsCode(err, cms.ENotFound) {
				return err
			}
		}
		if u, err = grant(tx, site.ID, email, name, role); err != nil {
			return err
		}
		hash, err := tx.Users().PasswordHash(u.ID)
		if err != nil {
			return err
		}
		hasPassword = hash != ""
		out.Member = &store.Member{User: *u, Role: role, HasPassword: hasPassword}
		if hasPassword {
			return nil
		}
		// A newer invitation ends the earlier ones.
		if err := tx.UserTokens().DeleteForUser(u.ID, purposeInvite); err != nil {
			return err
		}
		return tx.UserTokens().Create(&store.UserToken{TokenHash: HashToken(token), Purpose: purposeInvite, UserID: u.ID,
			ExpiresAt: tx.Now().Add(InviteTTL)})
	})
	if err != nil {
		return nil, err
	}
	msg := inviteMessage(s.EditorURL, site.Name, email, role, inviter, token, hasPassword)
	s.mail.AddOrLog(ctx, "an invitation", func(ctx context.Context) {
		if err := s.mailer().Send(ctx, msg); err != nil {
			slog.ErrorContext(ctx, "an invitation's mail failed", slog.Any("err", err))
		}
	})
	return &out, nil
}

// ResendInvitation mails a member who has not set a password yet a new
// invitation link; the earlier links stop working. Errors: cms.ENotFound,
// cms.EConflict (the member has a password: they sign in, or reset it).
func (s *Service) ResendInvitation(ctx context.Context, siteID, userID, inviter string) (*store.Member, error) {
	token := rand.Text() + rand.Text()
	var m *store.Member
	var site *store.Site
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		var err error
		if site, err = tx.Sites().Get(siteID); err != nil {
			return err
		}
		members, err := tx.Users().ListMembers(siteID)
		if err != nil {
			return err
		}
		if m = findMember(members, userID); m == nil {
			return cms.Errorf(cms.ENotFound, "No member %s on this site.", userID)
		}
		if m.HasPassword {
			return cms.Errorf(cms.EConflict, "%s has set a password already: they sign in, or ask for a password reset.", m.Email)
		}
		if err := tx.UserTokens().DeleteForUser(m.ID, purposeInvite); err != nil {
			return err
		}
		return tx.UserTokens().Create(&store.UserToken{TokenHash: HashToken(token), Purpose: purposeInvite, UserID: m.ID,
			ExpiresAt: tx.Now().Add(InviteTTL)})
	})
	if err != nil {
		return nil, err
	}
	msg := inviteMessage(s.EditorURL, site.Name, m.Email, m.Role, inviter, token, false)
	s.mail.AddOrLog(ctx, "an invitation", func(ctx context.Context) {
		if err := s.mailer().Send(ctx, msg); err != nil {
			slog.ErrorContext(ctx, "an invitation's mail failed", slog.Any("err", err))
		}
	})
	return m, nil
}

// inviteMessage is the mail of an invitation.
func inviteMessage(editorURL, siteName, email, role, inviter, token string, hasPassword bool) mail.Message {
	by := "You were"
	if inviter != "" {
		by = inviter + " added you"
	}
	if hasPassword {
		return mail.Message{To: email, Subject: "You can now edit " + siteName,
			Text: by + " as " + role + " of the site " + siteName + " on Tessera.\n\n" +
				"Sign in with your password at\n" + editorURL + "\n"}
	}
	if inviter != "" {
		by = inviter + " invited you"
	} else {
		by = "You are invited"
	}
	return mail.Message{To: email, Subject: "You are invited to edit " + siteName,
		Text: by + " to edit the site " + siteName + " on Tessera, as " + role + ".\n\n" +
			"To choose your password and sign in, open\n" + editorURL + ResetPath + url.QueryEscape(token) + "&invite=1\n\n" +
			"The link works once, for seven days. If you do not know why you got this mail, ignore it."}
}

func validEmail(email string) bool {
	a, err := netmail.ParseAddress(email)
	return err == nil && a.Address == email
}

// SetRole changes a member's role on the site. Errors:
// cms.EValidationFailed (role), cms.ENotFound (no such member),
// cms.EConflict (the site's last admin would become an editor).
func (s *Service) SetRole(ctx context.Context, siteID, userID, role string) (*store.Member, error) {
	if role != store.RoleAdmin && role != store.RoleEditor {
		return nil, cms.FieldError("role", "is admin or editor")
	}
	var out *store.Member
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		members, err := tx.Users().ListMembers(siteID)
		if err != nil {
			return err
		}
		m := findMember(members, userID)
		if m == nil {
			return cms.Errorf(cms.ENotFound, "No member %s on this site.", userID)
		}
		if m.Role == store.RoleAdmin && role != store.RoleAdmin && admins(members) == 1 {
			return cms.Errorf(cms.EConflict, "%s is the site's only admin; make another member admin first.", m.Email)
		}
		if err := tx.Users().SetMembership(store.Membership{SiteID: siteID, UserID: m.ID, Role: role}); err != nil {
			return err
		}
		m.Role, out = role, m
		return nil
	})
	return out, err
}

// RemoveMember ends a member's role on the site: their tokens and
// sessions no longer reach it (the user stays, with their roles on other
// sites). An invitation not yet followed ends with the user's last role.
// Errors: cms.ENotFound, cms.EConflict (the site's last admin).
func (s *Service) RemoveMember(ctx context.Context, siteID, userID string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		members, err := tx.Users().ListMembers(siteID)
		if err != nil {
			return err
		}
		m := findMember(members, userID)
		if m == nil {
			return cms.Errorf(cms.ENotFound, "No member %s on this site.", userID)
		}
		if m.Role == store.RoleAdmin && admins(members) == 1 {
			return cms.Errorf(cms.EConflict, "%s is the site's only admin; make another member admin first.", m.Email)
		}
		if err := tx.Users().RemoveMembership(siteID, m.ID); err != nil {
			return err
		}
		rest, err := tx.Users().Memberships(m.ID)
		if err != nil || len(rest) > 0 {
			return err
		}
		return tx.UserTokens().DeleteForUser(m.ID, purposeInvite)
	})
}

// findMember returns the member whose id or email is ref, or nil.
func findMember(members []*store.Member, ref string) *store.Member {
	for _, m := range members {
		if m.ID == ref || strings.EqualFold(m.Email, ref) {
			return m
		}
	}
	return nil
}

func admins(members []*store.Member) int {
	n := 0
	for _, m := range members {
		if m.Role == store.RoleAdmin {
			n++
		}
	}
	return n
}
