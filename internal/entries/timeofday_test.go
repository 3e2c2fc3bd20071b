package entries_test

import (
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/entries"
)

func TestParseTimeOfDay(t *testing.T) {
	brussels, err := time.LoadLocation("Europe/Brussels")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want string // HH:MM:SS, "" for an error
	}{
		{"09:30", "09:30:00"},
		{"23:59:59", "23:59:59"},
		{"00:00", "00:00:00"},
		{"12:34:56.789", "12:34:56"},
		{"2000-01-01T14:30:00+01:00", "14:30:00"},
		{"2000-01-01T13:30:00Z", "14:30:00"},
		// Summer time (+02:00) shifts a UTC timestamp by two hours, winter by one.
		{"2026-07-01T08:00:00Z", "10:00:00"},
		{"2026-01-15T08:00:00Z", "09:00:00"},
		// The day clocks go forward (2026-03-29 01:00 UTC): before and after.
		{"2026-03-29T00:30:00Z", "01:30:00"},
		{"2026-03-29T01:30:00Z", "03:30:00"},
		{"2026-10-25T00:30:00Z", "02:30:00"},
		{"2026-10-25T01:30:00Z", "02:30:00"},
		{"2026-07-01T08:00:00-05:00", "15:00:00"},
		{"2026-07-01T08:00", "08:00:00"},
		{"2026-07-01T08:00:00", "08:00:00"},
		{"24:00", ""},
		{"9:30", ""},
		{"09:60", ""},
		{"09:30:00.", ""},
		{"noon", ""},
		{"2026-13-01T08:00:00Z", ""},
		{"", ""},
	}
	for _, tt := range tests {
		sec, err := entries.ParseTimeOfDay(tt.in, brussels)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseTimeOfDay(%q): got %d, want an error", tt.in, sec)
			}
			continue
		}
		got := time.Date(2000, 1, 1, 0, 0, sec, 0, time.UTC).Format("15:04:05")
		if err != nil || got != tt.want {
			t.Errorf("ParseTimeOfDay(%q): got %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatTimeOfDay(t *testing.T) {
	brussels, _ := time.LoadLocation("Europe/Brussels")
	ny, _ := time.LoadLocation("America/New_York")
	for _, tt := range []struct {
		sec  int
		loc  *time.Location
		want string
	}{
		{9*3600 + 30*60, brussels, "2000-01-01T09:30:00.000+01:00"},
		{0, time.UTC, "2000-01-01T00:00:00.000Z"},
		{86399, ny, "2000-01-01T23:59:59.000-05:00"},
	} {
		if got := entries.FormatTimeOfDay(tt.sec, tt.loc); got != tt.want {
			t.Errorf("FormatTimeOfDay(%d, %s): got %s, want %s", tt.sec, tt.loc, got, tt.want)
		}
	}
}

// FuzzTimeOfDay checks that parsing never panics, stays within a day, and
// that the read form parses back to the same time.
func FuzzTimeOfDay(f *testing.F) {
	for _, s := range []string{"09:30", "23:59:59.9", "2026-03-29T01:30:00Z", "2000-01-01T10:00:00+01:00", "1:2"} {
		f.Add(s)
	}
	brussels, _ := time.LoadLocation("Europe/Brussels")
	f.Fuzz(func(t *testing.T, s string) {
		sec, err := entries.ParseTimeOfDay(s, brussels)
		if err != nil {
			return
		}
		if sec < 0 || sec >= 86400 {
			t.Fatalf("%q gave %d seconds", s, sec)
		}
		read := entries.FormatTimeOfDay(sec, brussels)
		again, err := entries.ParseTimeOfDay(read, brussels)
		if err != nil || again != sec {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, sec, read, again, err)
		}
	})
}
