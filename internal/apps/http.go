package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// HTTPOptions are the operator's rules for cloud code's outbound calls.
type HTTPOptions struct {
	// Allow lists the hosts code may call: "api.example.com", or
	// "*.example.com" for its subdomains. Empty: no outbound calls.
	Allow []string
	// Client makes the calls; nil uses a client with a 10 s timeout.
	Client *http.Client
}

// allowed reports whether host may be called.
func (o HTTPOptions) allowed(host string) bool {
	host = strings.ToLower(host)
	return slices.ContainsFunc(o.Allow, func(a string) bool {
		a = strings.ToLower(a)
		if rest, ok := strings.CutPrefix(a, "*."); ok {
			return strings.HasSuffix(host, "."+rest)
		}
		return host == a
	})
}

// maxHTTPBody bounds an outbound answer read by cloud code.
const maxHTTPBody = 1 << 20

// fetch makes one outbound call for cloud code, to an allowed host only:
// {status, headers, text, data (the JSON answer, if it is JSON)}.
func (s *Service) fetch(ctx context.Context, method, target string, opts map[string]any) (any, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("HTTP: %q is not an http(s) URL", target)
	}
	if !s.HTTP.allowed(u.Hostname()) {
		return nil, fmt.Errorf("HTTP: the host %s is not allowed (the operator allows outbound calls with --apps-http-allow)", u.Hostname())
	}
	var body io.Reader
	if b, ok := opts["body"]; ok && b != nil {
		if text, ok := b.(string); ok {
			body = strings.NewReader(text)
		} else {
			raw, err := json.Marshal(b)
			if err != nil {
				return nil, err
			}
			body = strings.NewReader(string(raw))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if headers, ok := opts["headers"].(map[string]any); ok {
		for k, v := range headers {
			req.Header.Set(k, fmt.Sprint(v))
		}
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := s.HTTP.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	// Redirects stay within the allow-list.
	c := *client
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 || !s.HTTP.allowed(r.URL.Hostname()) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("HTTP %s %s: %v", method, u.Host, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxHTTPBody+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxHTTPBody {
		return nil, fmt.Errorf("HTTP %s %s: the answer is over %d KiB", method, u.Host, maxHTTPBody>>10)
	}
	headers := map[string]any{}
	for k := range res.Header {
		headers[strings.ToLower(k)] = res.Header.Get(k)
	}
	out := map[string]any{"status": res.StatusCode, "headers": headers, "text": string(raw)}
	var data any
	if json.Unmarshal(raw, &data) == nil {
		out["data"] = data
	}
	return out, nil
}
