package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/store"
)

// invocation is one run of an app's code as the server sees it: the
// worker.Handler that answers the code's SDK calls, each checked here
// against the invocation's site and app, never against anything the
// worker says, and what the code logged.
type invocation struct {
	svc    *Service
	ctx    context.Context
	site   *store.Site
	app    *loaded
	limits Limits
	// inWrite reports whether the invocation decides on a write (a before
	// callback): it may read, but not write (see runBefore).
	inWrite bool
	// customer reports that the code runs for a logged-in customer (a
	// function called with a session, a route visited by one), whose
	// roles are roles: it reads only the channels they may read.
	customer bool
	roles    []string
	// grant is the app's installation's scopes, once read (allow).
	grant *scopes.Set

	logs      []logLine
	logBytes  int
	mails     int // Mail.send calls
	addressed int // recipients of those
	requests  int // HTTP calls
}

type logLine struct{ level, message string }

var _ worker.Handler = (*invocation)(nil)

// Log keeps a line the code logged, within the invocation's bounds (the
// worker keeps to them too; this holds whatever a worker sends).
func (inv *invocation) Log(level, text string) {
	switch level {
	case "debug", "info", "warn", "error":
	default:
		level = "info"
	}
	if len(inv.logs) > inv.limits.LogLines || inv.logBytes+len(text) > inv.limits.LogBytes+1024 {
		return
	}
	inv.logBytes += len(text)
	inv.logs = append(inv.logs, logLine{level: level, message: text})
}

// Call answers one SDK call of the code.
func (inv *invocation) Call(ctx context.Context, name string, args json.RawMessage) (any, error) {
	v, err := inv.dispatch(ctx, name, args)
	if err != nil {
		// The code sees a message and the API's code: plain data.
		var ce *cms.Error
		if errors.As(err, &ce) {
			return nil, &worker.CallError{Message: err.Error(), Code: cms.Wire(ce.Code)}
		}
		return nil, &worker.CallError{Message: err.Error()}
	}
	return v, nil
}

func (inv *invocation) dispatch(ctx context.Context, name string, args json.RawMessage) (any, error) {
	decode := func(v any) error {
		if err := json.Unmarshal(args, v); err != nil {
			return fmt.Errorf("%s: arguments that are not understood", name)
		}
		return nil
	}
	switch name {
	case worker.CallCode:
		out := make([]worker.File, len(inv.app.files))
		for i, f := range inv.app.files {
			out[i] = worker.File{Name: f.Name, Code: f.Code}
		}
		return out, nil
	case worker.CallQuery, worker.CallGet:
		var q worker.QueryArgs
		if err := decode(&q); err != nil {
			return nil, err
		}
		need, channel := scopes.Read(scopes.Entries), q.Slug
		if q.Customers {
			need, channel = scopes.Read(scopes.Customers), ""
		}
		if err := inv.allow(ctx, need, channel); err != nil {
			return nil, err
		}
		if name == worker.CallGet {
			return inv.get(ctx, q)
		}
		return inv.query(ctx, q)
	case worker.CallObjectSave, worker.CallObjectDestroy:
		var a worker.SaveArgs
		if err := decode(&a); err != nil {
			return nil, err
		}
		if err := inv.writing(name); err != nil {
			return nil, err
		}
		if err := inv.allow(ctx, scopes.Write(scopes.Entries), a.Slug); err != nil {
			return nil, err
		}
		if name == worker.CallObjectDestroy {
			return nil, inv.svc.Entries.DeleteEntry(ctx, inv.site, a.Slug, a.ID)
		}
		opt := entries.WriteOptions{Caller: files.Caller{}}
		var out []byte
		var err error
		if a.ID == "" {
			out, err = inv.svc.Entries.CreateEntry(ctx, inv.site, a.Slug, a.Body, opt)
		} else {
			out, err = inv.svc.Entries.UpdateEntry(ctx, inv.site, a.Slug, a.ID, a.Body, opt)
		}
		return json.RawMessage(out), err
	case worker.CallSignUp:
		if err := inv.writing(name); err != nil {
			return nil, err
		}
		if err := inv.allow(ctx, scopes.Write(scopes.Customers), ""); err != nil {
			return nil, err
		}
		if inv.svc.Customers == nil {
			return nil, errors.New("Service.Customer: customers are not available")
		}
		out, err := inv.svc.Customers.Create(ctx, inv.site, args, files.Caller{})
		return json.RawMessage(out), err
	case worker.CallLogIn:
		var a worker.LogInArgs
		if err := decode(&a); err != nil {
			return nil, err
		}
		if err := inv.writing(name); err != nil {
			return nil, err
		}
		if err := inv.allow(ctx, scopes.Write(scopes.Customers), ""); err != nil {
			return nil, err
		}
		if inv.svc.Customers == nil {
			return nil, errors.New("Service.Customer: customers are not available")
		}
		raw, _ := json.Marshal(map[string]string{"username": a.Username, "password": a.Password})
		out, err := inv.svc.Customers.Login(ctx, inv.site, raw, "cloud-code")
		return json.RawMessage(out), err
	case worker.CallSchedule:
		var a worker.ScheduleArgs
		if err := decode(&a); err != nil {
			return nil, err
		}
		return inv.schedule(ctx, a.Name, a.Params, a.When)
	case worker.CallMail:
		return inv.mail(ctx, args)
	case worker.CallHTTP:
		var a worker.HTTPArgs
		if err := decode(&a); err != nil {
			return nil, err
		}
		if inv.requests >= inv.limits.HTTPCalls {
			return nil, fmt.Errorf("HTTP: at most %d calls per invocation", inv.limits.HTTPCalls)
		}
		inv.requests++
		var opts map[string]any
		_ = json.Unmarshal(a.Options, &opts)
		return inv.svc.fetch(ctx, a.Method, a.URL, orEmpty(opts))
	}
	return nil, fmt.Errorf("no SDK call %q", name)
}

// writing refuses a call that writes from a before callback.
func (inv *invocation) writing(name string) error {
	if !inv.inWrite {
		return nil
	}
	what := map[string]string{worker.CallObjectSave: "Service.Object.save", worker.CallObjectDestroy: "Service.Object.destroy",
		worker.CallSignUp: "Service.Customer.signUp", worker.CallLogIn: "Service.Customer.logIn"}[name]
	return fmt.Errorf("%s cannot write in a before callback (change request.object instead, or use an after callback)", what)
}

// query answers Service.Query's find, first, count and findAll pages.
func (inv *invocation) query(ctx context.Context, q worker.QueryArgs) (*worker.QueryResult, error) {
	eq := entryQuery(q)
	lo := store.ListOptions{Limit: clamp(q.Limit, 1, 1000), Offset: max(q.Offset, 0)}
	var bodies [][]byte
	var total int
	var err error
	if q.Customers {
		if inv.svc.Customers == nil {
			return nil, errors.New("Service.Query(Service.Customer): customers are not available")
		}
		for _, c := range eq.Where {
			if c.Op != "" {
				return nil, fmt.Errorf("Service.Query(Service.Customer): only equalTo filters customers (%s)", c.Key)
			}
		}
		bodies, total, err = inv.svc.Customers.List(ctx, inv.site, customers.Query{Search: eq.Search, Where: eq.Where, Sort: eq.Sort}, lo)
	} else {
		if err := inv.mayRead(ctx, q.Slug); err != nil {
			return nil, err
		}
		bodies, total, err = inv.svc.Entries.List(ctx, inv.site, q.Slug, eq, entries.ReadOptions{}, lo)
	}
	if err != nil {
		return nil, err
	}
	out := &worker.QueryResult{Items: make([]json.RawMessage, 0, len(bodies)), Total: total}
	for _, b := range bodies {
		item, err := only(b, q.Only)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// get answers Service.Query(…).get(id); ENotFound rejects it.
func (inv *invocation) get(ctx context.Context, q worker.QueryArgs) (json.RawMessage, error) {
	var body []byte
	var err error
	if q.Customers {
		if inv.svc.Customers == nil {
			return nil, errors.New("Service.Query(Service.Customer): customers are not available")
		}
		body, err = inv.svc.Customers.Get(ctx, inv.site, q.ID)
	} else {
		if err := inv.mayRead(ctx, q.Slug); err != nil {
			return nil, err
		}
		body, err = inv.svc.Entries.Entry(ctx, inv.site, q.Slug, q.ID, entries.ReadOptions{})
	}
	if err != nil {
		return nil, err
	}
	return only(body, q.Only)
}

// mayRead refuses code run for a customer the entries of a channel that
// requires a role the customer does not hold.
func (inv *invocation) mayRead(ctx context.Context, channel string) error {
	if !inv.customer {
		return nil
	}
	roles, err := inv.svc.Entries.ChannelRoles(ctx, inv.site, channel)
	if err != nil || cms.HasRole(inv.roles, roles) {
		return err
	}
	return cms.Errorf(cms.EForbidden, "The channel %s is for customers with the role %s.", channel, strings.Join(roles, " or "))
}

func entryQuery(q worker.QueryArgs) entries.Query {
	var eq entries.Query
	eq.Search = q.Search
	for _, c := range q.Where {
		eq.Where = append(eq.Where, entries.Cond{Key: c.Key, Op: c.Op, Value: c.Value, Values: c.Values})
	}
	for _, k := range q.Sort {
		eq.Sort = append(eq.Sort, entries.SortKey{Key: k.Key, Desc: k.Desc})
	}
	return eq
}

// only keeps the keys of keep (and id) of a record's read shape, when
// there are any.
func only(body []byte, keep []string) (json.RawMessage, error) {
	if len(keep) == 0 {
		return body, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for k, v := range m {
		if k == "id" {
			out[k] = v
		}
	}
	for _, k := range keep {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return json.Marshal(out)
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

// schedule queues a run of the invocation's app's job name with params at
// the time when gives; it returns the jid.
func (inv *invocation) schedule(ctx context.Context, name string, params, when map[string]any) (any, error) {
	if inv.inWrite {
		return nil, errors.New("Service.Cloud.schedule cannot run in a before callback; use an after callback")
	}
	if !inv.app.doc.Registry.hasJob(name) {
		return nil, fmt.Errorf("Service.Cloud.schedule: no job %q is defined", name)
	}
	raw, err := json.Marshal(orEmpty(params))
	if err != nil {
		return nil, err
	}
	var jid string
	err = inv.svc.Store.Update(ctx, func(tx store.Tx) error {
		t, err := parseTiming(when, tx.Now())
		if err != nil {
			return err
		}
		if t.every != "" {
			return errors.New("Service.Cloud.schedule: a recurring schedule is declared when the code loads, not in a handler")
		}
		jid, err = inv.svc.Queue.enqueue(tx, inv.site.ID, inv.app.rec.ID, name, raw, t.next)
		return err
	})
	if err != nil {
		return nil, err
	}
	inv.svc.wakeWorker()
	return jid, nil
}

// mail answers Mail.send, within the invocation's bounds on sends and
// recipients.
func (inv *invocation) mail(ctx context.Context, args json.RawMessage) (any, error) {
	var in struct {
		To      any    `json:"to"`
		Cc      any    `json:"cc"`
		Subject string `json:"subject"`
		HTML    string `json:"html"`
		Text    string `json:"text"`
		// Template names a notification template to render the message
		// from, with Data bound, in Locale (the default locale when
		// none); subject, html and text, when sent, replace its own.
		Template string         `json:"template"`
		Data     map[string]any `json:"data"`
		Locale   string         `json:"locale"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("Mail.send: %v", err)
	}
	to, cc := addresses(in.To), addresses(in.Cc)
	if in.Template != "" {
		if inv.svc.Templates == nil {
			return nil, errors.New("Mail.send: notification templates are not available")
		}
		msg, err := inv.svc.Templates.Mail(ctx, inv.site, in.Template, in.Locale, in.Data)
		if cms.IsCode(err, cms.ENotFound) {
			return nil, fmt.Errorf("Mail.send: the site has no notification %q", in.Template)
		} else if err != nil {
			return nil, fmt.Errorf("Mail.send: the notification %s: %v", in.Template, err)
		}
		if in.Subject == "" {
			in.Subject = msg.Subject
		}
		if in.Text == "" {
			in.Text = msg.Text
		}
		if in.HTML == "" {
			in.HTML = msg.HTML
		}
	}
	if len(to) == 0 || in.Subject == "" || (in.HTML == "" && in.Text == "") {
		return nil, errors.New("Mail.send needs to, and a template or subject and html or text")
	}
	if inv.mails >= inv.limits.Mails {
		return nil, fmt.Errorf("Mail.send: at most %d messages per invocation", inv.limits.Mails)
	}
	if inv.addressed+len(to)+len(cc) > inv.limits.MailRecipients {
		return nil, fmt.Errorf("Mail.send: at most %d recipients per invocation", inv.limits.MailRecipients)
	}
	inv.mails++
	inv.addressed += len(to) + len(cc)
	mailer := inv.svc.Mailer
	if mailer == nil {
		mailer = mail.Log{}
	}
	for _, addr := range to {
		if err := mailer.Send(ctx, mail.Message{To: addr, Cc: cc, Subject: in.Subject, Text: in.Text, HTML: in.HTML}); err != nil {
			return nil, err
		}
		cc = nil // copied once
	}
	return true, nil
}

// addresses reads a recipient list: one address or an array of them.
func addresses(v any) []string {
	switch v := v.(type) {
	case string:
		if v != "" {
			return []string{v}
		}
	case []any:
		var out []string
		for _, a := range v {
			if s, ok := a.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// customerRoles reads the roles of a run's customer, as the HTTP front
// hands it over ([]string) or as it comes back from JSON ([]any).
func customerRoles(c map[string]any) []string {
	switch v := c["roles"].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
