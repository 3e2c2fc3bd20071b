package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/mail"
)

func TestOpenSMTP(t *testing.T) {
	for _, tt := range []struct {
		url, from string
		ok        bool
	}{
		{"smtp://user:pass@mail.example.com:587", "site@example.com", true},
		{"smtps://mail.example.com:465", "site@example.com", true},
		{"smtp://mail.example.com?tls=opportunistic", "site@example.com", true},
		{"smtp://mail.example.com:587", "", false},
		{"http://mail.example.com", "site@example.com", false},
		{"smtp://mail.example.com:port", "site@example.com", false},
		{"smtp://", "site@example.com", false},
	} {
		// Opening only configures a client: nothing is dialled.
		_, err := mail.OpenSMTP(tt.url, tt.from)
		if (err == nil) != tt.ok {
			t.Errorf("OpenSMTP(%q, %q): err %v, want ok %v", tt.url, tt.from, err, tt.ok)
		}
	}
}

func TestLogAndRecorder(t *testing.T) {
	var buf bytes.Buffer
	m := mail.Message{To: "ann@example.com", Subject: "Hi", Text: "token abc"}
	if err := (mail.Log{Logger: slog.New(slog.NewTextHandler(&buf, nil))}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "ann@example.com") || !strings.Contains(out, "token abc") {
		t.Errorf("log transport wrote %q", out)
	}
	var r mail.Recorder
	_ = r.Send(context.Background(), m)
	if sent := r.Sent(); len(sent) != 1 || !reflect.DeepEqual(sent[0], m) {
		t.Errorf("recorder: %+v", sent)
	}
}
