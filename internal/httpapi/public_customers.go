package httpapi

// The public site's customer forms: log in and out, password reset and
// email confirmation, and the session cookie they set. public.go routes
// them; the pages they answer with are the theme's.

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/render"
)

func (p *public) loginPage(w http.ResponseWriter, r *http.Request) {
	c, err := p.customer(w, r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	req := p.request(r, c)
	p.special(w, r, req, http.StatusOK, render.TemplateLogin, "Log in", "")
}

// login checks the login form, sets the session cookie and sends the
// customer back where they came from.
func (p *public) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		p.plain(w, http.StatusBadRequest, "The login form could not be read.")
		return
	}
	site := siteOf(r)
	// The session cookie the browser holds already, if any, lets its
	// customer past a lockout of the account that strangers caused.
	var held string
	if ck, err := r.Cookie(SessionCookie); err == nil {
		held = ck.Value
	}
	token, err := p.s.Customers.StartSession(r.Context(), site, r.PostForm.Get("username"), r.PostForm.Get("password"),
		customers.Attempt{Client: info(r).addr(), Session: held})
	if err != nil {
		req := p.request(r, nil)
		if req.Query == nil {
			req.Query = url.Values{}
		}
		req.Query.Set("return_to", r.PostForm.Get("return_to"))
		var ex *ratelimit.Exceeded
		switch {
		case errors.As(err, &ex):
			w.Header().Set("Retry-After", strconv.Itoa(int(ex.RetryAfter.Seconds()+0.999)))
			p.special(w, r, req, http.StatusTooManyRequests, render.TemplateLogin, cmsMessage(err), "")
		case cms.IsCode(err, cms.EUnauthorized), cms.IsCode(err, cms.EValidationFailed):
			p.special(w, r, req, http.StatusUnauthorized, render.TemplateLogin, "Invalid email or password.", "")
		default:
			p.fail(w, r, err)
		}
		return
	}
	p.setSession(w, r, token, int(p.s.Customers.SessionLifetime().Seconds()))
	http.Redirect(w, r, render.SafeReturn(r.PostForm.Get("return_to")), http.StatusSeeOther)
}

func (p *public) logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(SessionCookie); err == nil && ck.Value != "" {
		if err := p.s.Customers.Logout(r.Context(), siteOf(r), ck.Value); err != nil && !cms.IsCode(err, cms.EUnauthorized) {
			p.fail(w, r, err)
			return
		}
	}
	p.setSession(w, r, "", -1)
	_ = r.ParseForm()
	http.Redirect(w, r, render.SafeReturn(r.PostForm.Get("return_to")), http.StatusSeeOther)
}

// resetPage shows the form that sets a new password with a mailed reset
// token: the mail links here with the token in the fragment.
func (p *public) resetPage(w http.ResponseWriter, r *http.Request) {
	p.special(w, r, p.request(r, nil), http.StatusOK, render.TemplateResetPassword, "Choose a new password", "")
}

// reset sets the password the reset form posts (token, password,
// password_confirmation), then shows the login page.
func (p *public) reset(w http.ResponseWriter, r *http.Request) {
	form, ok := p.form(w, r)
	if !ok {
		return
	}
	body := map[string]string{"token": form.Get("token"), "password": form.Get("password")}
	if _, sent := form["password_confirmation"]; sent {
		body["password_confirmation"] = form.Get("password_confirmation")
	}
	raw, _ := json.Marshal(body)
	err := p.s.Customers.ConfirmReset(r.Context(), siteOf(r), raw)
	p.formDone(w, r, err, render.TemplateResetPassword, form.Get("token"), "Your password is set: log in with it.")
}

// confirmPage shows the form that confirms a customer's email with a
// mailed token. It does not confirm by itself: mail scanners that open
// links must not use the token up.
func (p *public) confirmPage(w http.ResponseWriter, r *http.Request) {
	p.special(w, r, p.request(r, nil), http.StatusOK, render.TemplateConfirm, "Confirm your email", "")
}

// confirm confirms the email the confirmation form's token names, then
// shows the login page.
func (p *public) confirm(w http.ResponseWriter, r *http.Request) {
	form, ok := p.form(w, r)
	if !ok {
		return
	}
	raw, _ := json.Marshal(map[string]string{"token": form.Get("token")})
	_, err := p.s.Customers.Confirm(r.Context(), siteOf(r), raw)
	p.formDone(w, r, err, render.TemplateConfirm, form.Get("token"), "Your email is confirmed: log in.")
}

// form reads a public form post, answering 400 when it cannot.
func (p *public) form(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		p.plain(w, http.StatusBadRequest, "The form could not be read.")
		return nil, false
	}
	return r.PostForm, true
}

// formDone answers a reset or confirmation form: the login page with done
// when err is nil; the form again, with err's message and the posted
// token, when the post was refused.
func (p *public) formDone(w http.ResponseWriter, r *http.Request, err error, template, token, done string) {
	req := p.request(r, nil)
	switch {
	case err == nil:
		p.special(w, r, req, http.StatusOK, render.TemplateLogin, done, "")
	case cms.IsCode(err, cms.EValidationFailed), cms.IsCode(err, cms.EInvalid), cms.IsCode(err, cms.EInvalidJSON):
		req.Token = token
		p.special(w, r, req, statusOf(err), template, cmsMessage(err), "")
	default:
		p.fail(w, r, err)
	}
}

// setSession sets (or, with maxAge < 0, clears) the session cookie: not
// readable by scripts, not sent with cross-site subrequests or posts, and
// Secure when the client came over https (to us or to a trusted proxy) or
// the site's configured URL for this host is https.
func (p *public) setSession(w http.ResponseWriter, r *http.Request, token string, maxAge int) {
	secure := requestScheme(r) == "https" || strings.HasPrefix(p.base(r, siteOf(r)), "https:")
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secure})
}

// maxRouteBody bounds the body a cloud-code route is given.
const maxRouteBody = 1 << 20
