// Package scopes is the vocabulary of what a token may do: the scope
// names, their parser, and the check of a route's need against a token's
// grant. It is a leaf (auth keeps a token's Set, httpapi declares each
// route's Need, apps bounds cloud code by an installation's Set), so it
// imports nothing of Tessera's.
//
// A scope is <resource>:<read|write>, or for entries one channel's:
// entries:<read|write>:<channel>. write grants read; entries:read grants
// every channel's entries:read:<channel>. The original service's names
// (read_content, write_channels, …) are accepted as aliases of the scopes
// they cover, and a grant's header names them too, so that clients that
// check those names before they call keep working.
package scopes

import (
	"errors"
	"slices"
	"strings"
)

// Resource is one resource a scope covers.
type Resource uint8

// The resources, in the order the header lists them.
const (
	Pages Resource = iota
	Drafts
	Entries
	Customers
	Uploads
	Themes
	Apps
	Settings
	numResources
)

var resourceNames = [numResources]string{"pages", "drafts", "entries", "customers", "uploads", "themes", "apps", "settings"}

func (r Resource) String() string { return resourceNames[r] }

// bits: read of resource r is bit 2r, write bit 2r+1.
func readBit(r Resource) uint32  { return 1 << (2 * r) }
func writeBit(r Resource) uint32 { return 1 << (2*r + 1) }

const allBits = 1<<(2*numResources) - 1

// MaxLen bounds a scope string (a request's scope parameter, an app's
// install_scopes joined): a grant is short, and the parser's work is
// bounded by it.
const MaxLen = 4096

// MaxChannels bounds how many channel scopes one grant may name.
const MaxChannels = 64

// legacy are the original service's scope names and what each covers.
var legacy = []struct {
	name  string
	bits  uint32
	write bool
}{
	{"read_channels", readBit(Entries), false},
	{"write_channels", writeBit(Entries) | readBit(Entries), true},
	{"read_cloudcode", readBit(Apps), false},
	{"write_cloudcode", writeBit(Apps) | readBit(Apps), true},
	{"read_content", readBit(Pages) | readBit(Drafts) | readBit(Uploads), false},
	{"write_content", writeBit(Pages) | readBit(Pages) | writeBit(Drafts) | readBit(Drafts) | writeBit(Uploads) | readBit(Uploads), true},
	{"read_customers", readBit(Customers), false},
	{"write_customers", writeBit(Customers) | readBit(Customers), true},
	{"read_sites", readBit(Settings), false},
	{"write_sites", writeBit(Settings) | readBit(Settings), true},
	{"read_themes", readBit(Themes), false},
	{"write_themes", writeBit(Themes) | readBit(Themes), true},
}

// Set is a grant: the scopes a token holds. The zero Set holds nothing;
// Full holds everything. A Set is immutable once made, so that tokens
// share it and its header is made once.
type Set struct {
	bits uint32
	// channels holds the channel scopes beyond bits: channel slug to
	// whether it may write. Never consulted for a resource bits grants.
	channels map[string]bool
	full     bool
	header   []string // the X-OAuth-Scopes value, made at parse time
	canon    string   // the canonical form: Parse(canon) is this Set
}

// Full is the grant of user and site tokens: every scope, including what
// no app may be granted (a site's members and tokens).
var Full = func() *Set {
	s := &Set{bits: allBits, full: true}
	s.finish()
	return s
}()

// IsFull reports whether the Set is Full's.
func (s *Set) IsFull() bool { return s != nil && s.full }

// ErrInvalid is a scope string the parser refuses; its message names the
// offending word.
type ErrInvalid struct{ Msg string }

func (e *ErrInvalid) Error() string { return e.Msg }

// Parse reads a scope string: names separated by spaces (RFC 6749 §3.3)
// and/or commas (as the original service's clients write lists). Repeats
// are harmless; an empty string is the empty Set. Channel slugs are
// lowercase letters, digits, - and _.
func Parse(s string) (*Set, error) {
	if len(s) > MaxLen {
		return nil, &ErrInvalid{"The scope is too long."}
	}
	set := &Set{}
	for _, word := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' }) {
		if err := set.add(word); err != nil {
			return nil, err
		}
	}
	set.finish()
	return set, nil
}

// FromList parses a list of scope names (an app's install_scopes).
func FromList(list []string) (*Set, error) {
	for _, w := range list {
		if strings.ContainsAny(w, " ,\t\n") || w == "" {
			return nil, &ErrInvalid{"Invalid scope " + quote(w) + "."}
		}
	}
	return Parse(strings.Join(list, " "))
}

// Lenient reads a list of scope names (an app's install_scopes) keeping
// the ones it knows: an app may name scopes of resources this server does
// not keep, which grant nothing here.
func Lenient(list []string) *Set {
	set := &Set{}
	for _, w := range list {
		if strings.ContainsAny(w, " ,\t\n") {
			continue
		}
		trial := &Set{}
		if trial.add(w) == nil {
			_ = set.add(w)
		}
	}
	set.finish()
	return set
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return `"` + s + `"`
}

func (s *Set) add(word string) error {
	for _, l := range legacy {
		if word == l.name {
			s.bits |= l.bits
			return nil
		}
	}
	res, rest, _ := strings.Cut(word, ":")
	act, channel, hasChannel := strings.Cut(rest, ":")
	r := Resource(0)
	for ; r < numResources; r++ {
		if resourceNames[r] == res {
			break
		}
	}
	if r == numResources || (act != "read" && act != "write") {
		return &ErrInvalid{"Unknown scope " + quote(word) + "."}
	}
	if !hasChannel {
		s.bits |= readBit(r)
		if act == "write" {
			s.bits |= writeBit(r)
		}
		return nil
	}
	if r != Entries {
		return &ErrInvalid{"Only entries scopes name a channel: " + quote(word) + "."}
	}
	if !validSlug(channel) {
		return &ErrInvalid{"Invalid channel in scope " + quote(word) + "."}
	}
	if s.channels == nil {
		s.channels = map[string]bool{}
	}
	if _, ok := s.channels[channel]; !ok && len(s.channels) >= MaxChannels {
		return &ErrInvalid{"Too many channel scopes."}
	}
	s.channels[channel] = s.channels[channel] || act == "write"
	return nil
}

func validSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// finish drops channel scopes the resource bits already cover and makes
// the header and canonical form.
func (s *Set) finish() {
	for ch, w := range s.channels {
		if s.bits&writeBit(Entries) != 0 || (!w && s.bits&readBit(Entries) != 0) {
			delete(s.channels, ch)
		}
	}
	if len(s.channels) == 0 {
		s.channels = nil
	}
	names := s.Names()
	s.canon = strings.Join(names, " ")
	for _, l := range legacy {
		if s.bits&l.bits == l.bits {
			names = append(names, l.name)
		}
	}
	s.header = []string{strings.Join(names, ", ")}
}

// Names returns the Set's scopes in canonical form: per resource, write
// (which implies read) or read; then the channel scopes by channel.
func (s *Set) Names() []string {
	var out []string
	for r := Resource(0); r < numResources; r++ {
		switch {
		case s.bits&writeBit(r) != 0:
			out = append(out, resourceNames[r]+":write")
		case s.bits&readBit(r) != 0:
			out = append(out, resourceNames[r]+":read")
		}
	}
	chs := make([]string, 0, len(s.channels))
	for ch := range s.channels {
		chs = append(chs, ch)
	}
	slices.Sort(chs)
	for _, ch := range chs {
		act := ":read:"
		if s.channels[ch] {
			act = ":write:"
		}
		out = append(out, "entries"+act+ch)
	}
	return out
}

// String is the canonical scope string, space-separated: what is stored
// and what the token endpoint answers as scope.
func (s *Set) String() string {
	if s == nil {
		return ""
	}
	return s.canon
}

// Header is the X-OAuth-Scopes value: the canonical names, then the
// original service's names the Set covers. Shared: callers must not
// change it.
func (s *Set) Header() []string { return s.header }

// Within reports whether every scope of s is also in t (an installation's
// grant bounds what a request may ask for).
func (s *Set) Within(t *Set) bool {
	if t.IsFull() {
		return true
	}
	if s.full || s.bits&^t.bits != 0 {
		return false
	}
	for ch, w := range s.channels {
		if !t.allows(Entries, w, ch) {
			return false
		}
	}
	return true
}

// Intersect returns the scopes both s and t hold.
func (s *Set) Intersect(t *Set) *Set {
	if t.IsFull() {
		return s
	}
	if s.IsFull() {
		return t
	}
	out := &Set{bits: s.bits & t.bits}
	for _, pair := range [2][2]*Set{{s, t}, {t, s}} {
		for ch, w := range pair[0].channels {
			switch {
			case pair[1].allows(Entries, w, ch):
			case w && pair[1].allows(Entries, false, ch):
				w = false
			default:
				continue
			}
			if out.channels == nil {
				out.channels = map[string]bool{}
			}
			out.channels[ch] = out.channels[ch] || w
		}
	}
	out.finish()
	return out
}

// allows reports whether the Set lets a request read (or write) resource
// r; for Entries, channel is the channel the request names ("" for none:
// then only entries:<act> itself will do).
func (s *Set) allows(r Resource, write bool, channel string) bool {
	if s == nil {
		return false
	}
	bit := readBit(r)
	if write {
		bit = writeBit(r)
	}
	if s.bits&bit != 0 {
		return true
	}
	if r != Entries || channel == "" {
		return false
	}
	w, ok := s.channels[channel]
	return ok && (w || !write)
}

// Need is what a route of the API requires of a token's scopes. The zero
// Need is "not declared", which the route table refuses.
type Need struct {
	kind     needKind
	resource Resource
	write    bool
	accepted []string // the X-Accepted-OAuth-Scopes value, made once
}

type needKind uint8

const (
	undeclared needKind = iota
	needNothing
	needScope
	needFull
)

// None is the Need of routes any valid token may call (who am I, sign-in
// and sessions).
var None = Need{kind: needNothing, accepted: []string{""}}

// FullOnly is the Need of routes no app may be granted: a site's members
// and tokens, from which a scoped token could make itself an unscoped one.
var FullOnly = Need{kind: needFull, accepted: []string{""}}

// Read and Write are the Needs of reading and writing a resource. For
// Entries, a route whose path names a channel is also satisfied by that
// channel's scope (Allows' channel).
func Read(r Resource) Need {
	return Need{kind: needScope, resource: r, accepted: []string{resourceNames[r] + ":read"}}
}

// Write is Read's counterpart for writes.
func Write(r Resource) Need {
	return Need{kind: needScope, resource: r, write: true, accepted: []string{resourceNames[r] + ":write"}}
}

// Declared reports whether the Need was declared (is not the zero Need).
func (n Need) Declared() bool { return n.kind != undeclared }

// Resource returns the resource of a Read or Write Need and whether it
// has one.
func (n Need) Resource() (Resource, bool) { return n.resource, n.kind == needScope }

// Allows reports whether a token holding s may call a route needing n;
// channel is the channel the request's path names, or "".
func (n Need) Allows(s *Set, channel string) bool {
	switch n.kind {
	case needNothing:
		return true
	case needFull:
		return s.IsFull()
	case needScope:
		return s.IsFull() || s.allows(n.resource, n.write, channel)
	}
	return false
}

// Accepted is the X-Accepted-OAuth-Scopes value: the scope the route
// needs, then for a channel the channel's own. Without a channel it is
// made once and shared.
func (n Need) Accepted(channel string) []string {
	if channel == "" || n.kind != needScope || n.resource != Entries {
		return n.accepted
	}
	return []string{n.accepted[0] + ", " + n.accepted[0] + ":" + channel}
}

// Missing names the scope a refused request lacked, for the error message.
func (n Need) Missing(channel string) string {
	switch n.kind {
	case needFull:
		return "a user or site token (no app token may do this)"
	case needScope:
		s := n.accepted[0]
		if channel != "" && n.resource == Entries {
			s += " or " + s + ":" + channel
		}
		return s
	}
	return ""
}

// Validate checks a scope string without keeping it.
func Validate(s string) error {
	_, err := Parse(s)
	return err
}

// IsInvalid reports whether err is the parser's refusal.
func IsInvalid(err error) bool {
	var e *ErrInvalid
	return errors.As(err, &e)
}
