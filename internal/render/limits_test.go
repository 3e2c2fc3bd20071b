package render_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/osteele/liquid"

	"github.com/tessera-cms/tessera/internal/render"
)

func page(code string) map[string]string { return map[string]string{"templates/page": code} }

// Every bound stops a render that would run past it, with a *LimitError
// naming the bound and, where the engine says, the file and line.
func TestRenderBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		files    map[string]string
		limits   render.Limits
		want     string // LimitError.Bound
		wantFile string // LimitError.File:Line, when known
	}{
		{"the finding: 50M iterations", page("\n{% for i in (1..50000000) %}{% endfor %}"), render.Limits{}, render.BoundSteps, "templates/page:2"},
		{"nested loops", page("{% for i in (1..10000) %}{% for j in (1..10000) %}{% endfor %}{% endfor %}"), render.Limits{}, render.BoundSteps, "templates/page:1"},
		{"tablerow", page("{% tablerow i in (1..50000000) %}{% endtablerow %}"), render.Limits{Output: 1 << 30}, render.BoundSteps, ""},
		{"filter calls", page("{% for i in (1..1000) %}{{ i | plus: 1 | minus: 1 | times: 2 }}{% endfor %}"), render.Limits{Steps: 2000}, render.BoundSteps, ""},
		{"long strings cost steps", page("{% assign s = 'x' %}{% for i in (1..14) %}{% assign s = s | append: s %}{% endfor %}{% for i in (1..1000) %}{{ s | size }}{% endfor %}"),
			render.Limits{Steps: 3000}, render.BoundSteps, ""},
		{"includes", map[string]string{"templates/page": "{% for i in (1..1000) %}{% include 'x' %}{% endfor %}", "snippets/x": "x"},
			render.Limits{Steps: 1500}, render.BoundSteps, ""},
		{"output", page("{% for i in (1..1000) %}0123456789{% endfor %}"), render.Limits{Output: 4096}, render.BoundOutput, ""},
		{"output in a layout", map[string]string{"templates/page": "{% for i in (1..300) %}0123456789{% endfor %}",
			"layouts/default": "{{ content_for_layout }}{{ content_for_layout }}"}, render.Limits{Output: 4096}, render.BoundOutput, ""},
		{"append doubling", page("{% assign s = 'xxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}"),
			render.Limits{}, render.BoundOutput, "templates/page:1"},
		{"capture doubling", page("{% capture s %}xxxxxxxx{% endcapture %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}"),
			render.Limits{}, render.BoundOutput, ""},
		{"captures add up", page("{% capture s %}{% for i in (1..100) %}0123456789{% endfor %}{% endcapture %}{% for i in (1..1000) %}{% capture c %}{{ s }}{% endcapture %}{% endfor %}"),
			render.Limits{Output: 4096}, render.BoundMemory, ""},
		{"replace", page("{% assign s = 'aaaaaaaaaaaaaaaa' %}{% for i in (1..6) %}{% assign s = s | replace: 'a', 'aaaaaaaaaaaaaaaa' %}{% endfor %}"),
			render.Limits{}, render.BoundOutput, ""},
		{"split into characters", page("{% assign s = 'xxxxxxxxxxxxxxxx' %}{% for i in (1..20) %}{% assign s = s | append: s %}{% endfor %}{% assign l = s | split: '' %}"),
			render.Limits{}, render.BoundOutput, ""},
		{"a range made a list", page("{{ (1..1000000000) | join: ',' }}"), render.Limits{}, render.BoundOutput, "templates/page:1"},
		// Range.Len is 0, and osteele/liquid's list of it would grow until
		// the process runs out of memory.
		{"a range whose length wraps around", page("{% assign a = -9223372036854775807 | minus: 1 | floor %}{% assign b = 9223372036854775807 %}{{ (a..b) | sort }}"),
			render.Limits{}, render.BoundOutput, ""},
		{"join with a long separator", page("{% assign s = 'xxxxxxxxxxxxxxxx' %}{% for i in (1..12) %}{% assign s = s | append: s %}{% endfor %}{% assign l = s | split: '' %}{{ l | join: s }}"),
			render.Limits{}, render.BoundOutput, ""},
		{"the time bound", page("{% for i in (1..50000000) %}{% endfor %}"), render.Limits{Steps: 1 << 40, Timeout: time.Nanosecond}, render.BoundTime, "templates/page:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &render.Service{Limits: tc.limits}
			_, stats, err := s.RenderFiles(context.Background(), tc.files, "page")
			var le *render.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LimitError", err)
			}
			if le.Bound != tc.want {
				t.Errorf("stopped at %q (%v), want %q", le.Bound, le, tc.want)
			}
			if tc.wantFile != "" && !strings.HasPrefix(le.Error(), tc.wantFile+":") {
				t.Errorf("got %q, want it to start with %s", le.Error(), tc.wantFile)
			}
			if stats.Active != 0 || stats.Stopped[tc.want] != 1 {
				t.Errorf("stats %+v: want no render running and one stopped at %s", stats, tc.want)
			}
			if steps := tc.limits.Steps; le.Bound == render.BoundSteps && steps > 0 && stats.Steps > int64(steps)+1000 {
				t.Errorf("spent %d steps, bound %d", stats.Steps, steps)
			}
		})
	}
}

// The step bound counts: a render stops within its steps, and the default
// bound holds a 50M loop to a millionth of it.
func TestRenderStepsCounted(t *testing.T) {
	s := &render.Service{}
	_, stats, err := s.RenderFiles(context.Background(), page("{% for i in (1..50000000) %}{% endfor %}"), "page")
	if !errors.As(err, new(*render.LimitError)) {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	if stats.Steps != render.DefaultMaxSteps+1 {
		t.Errorf("spent %d steps, want the bound %d and the one that went over", stats.Steps, render.DefaultMaxSteps)
	}
}

// A render whose request goes away stops at its next step, and the
// goroutine running it returns: counted, not timed.
func TestRenderCanceled(t *testing.T) {
	const loop = 50_000_000
	files := page("{% for i in (1..50000000) %}{{ i | plus: 1 | size }}{% endfor %}")
	s := &render.Service{Limits: render.Limits{Steps: 1 << 40, Output: 1 << 30, Timeout: time.Hour}}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.RenderFiles(ctx, files, "page"); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled before: got %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _, err = s.RenderFiles(ctx, files, "page")
	}()
	for s.RenderStats().Active == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	var le *render.LimitError
	if !errors.As(err, &le) || le.Bound != render.BoundCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the render canceled", err)
	}
	stats := s.RenderStats()
	if stats.Active != 0 || stats.Stopped[render.BoundCanceled] != 2 {
		t.Errorf("stats %+v: want none running and two canceled", stats)
	}
	if stats.Steps >= loop {
		t.Errorf("spent %d steps: the render did not stop", stats.Steps)
	}
}

// Templates nest at most Limits.Depth deep, checked before they compile;
// a snippet that includes itself stops at the include depth.
func TestRenderDepth(t *testing.T) {
	s := &render.Service{Limits: render.Limits{Depth: 3}}
	_, _, err := s.RenderFiles(context.Background(), page("\n{% if 1 %}{% if 1 %}{% if 1 %}{% if 1 %}{% endif %}{% endif %}{% endif %}{% endif %}"), "page")
	var te *render.TemplateError
	if !errors.As(err, &te) || te.File != "templates/page" || te.Line != 2 || !strings.Contains(te.Message, "more than 3 levels") {
		t.Errorf("got %v, want templates/page:2 nesting too deep", err)
	}
	s = &render.Service{}
	_, _, err = s.RenderFiles(context.Background(), map[string]string{"templates/page": "{% include 'me' %}", "snippets/me": "{% include 'me' %}"}, "page")
	if err == nil || !strings.Contains(err.Error(), "includes nest deeper than") {
		t.Errorf("got %v, want the include depth", err)
	}
}

// What a bounded render writes is what osteele/liquid writes: loops with
// whitespace control, captures, the filters that are checked before they
// run.
func TestRenderSameAsLiquid(t *testing.T) {
	eng := liquid.NewEngine()
	for _, src := range []string{
		"{% for i in (1..3) %} {{ i }} {% endfor %}",
		"{%- for i in (1..3) -%} {{ i }} {%- endfor -%}|",
		"{% for i in (1..5) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 4 %}{% break %}{% endif %}{{ i }}{{ forloop.index }}{{ forloop.last }}{% endfor %}",
		"{% for i in (1..3) -%}\n  {{ i -}}\n  {%- cycle 'a', 'b' %}\n{% endfor %}",
		"{% for i in (1..0) %}x{% else %}empty{% endfor %}",
		"{% for i in (1..6) limit: 2 offset: 3 reversed %}{{ i }}{% endfor %}",
		"{% tablerow i in (1..5) cols: 2 %}{{ i }}{% endtablerow %}",
		"{% capture x %} a {{ 1 | plus: 2 }} {% endcapture %}[{{ x }}]{% capture y -%} b {%- endcapture %}[{{ y }}]",
		"{% for i in (1..3) %}{% capture c %}{{ c }}{{ i }}{% endcapture %}{% endfor %}{{ c }}",
		"{% if true %}{% capture z %}in{% endcapture %}{% endif %}{{ z }}{% case 1 %}{% when 1 %}{% capture w %}when{% endcapture %}{% endcase %}{{ w }}",
		"{{ 'a,b,,c' | split: ',' | join: '-' }} {{ 'a b  c' | split: ' ' | size }} {{ 'abc' | split: '' | reverse | join }}",
		"{{ 'x' | append: 'y' | prepend: 'w' }} {{ 'aXbX' | replace: 'X', '--' }} {{ 'ab' | replace: '', '.' }} {{ 'aXbX' | replace_first: 'X', '_' }}",
		"{{ '<a href=\"x\">&</a>' | escape }} {{ '&amp; <' | escape_once }} {% capture nl %}a\nb{% endcapture %}{{ nl | newline_to_br }} {{ 'a b&c' | url_encode }}",
		"{{ (1..4) | join: '+' }} {{ (3..1) | size }} {{ (1..3) | concat: (4..5) | join }} {{ (1..3) | json }} {{ 'x' | inspect }}",
		"{{ (1..5) | sort | reverse | first }} {{ (1..5) | last }} {{ nil | default: 'd' }} {{ 'abc' | size }} {{ (1..3) | uniq | size }}",
		"{{ '2026-01-02' | date: '%Y/%m/%d' }} {{ 'Hello World' | truncate: 8 }} {{ 'hello' | capitalize | upcase }}",
	} {
		want, err := eng.ParseAndRenderString(src, nil)
		if err != nil {
			t.Fatalf("liquid: %q: %v", src, err)
		}
		got, _, rerr := (&render.Service{}).RenderFiles(context.Background(), page(src), "page")
		if rerr != nil {
			t.Errorf("%q: %v", src, rerr)
			continue
		}
		if string(got) != want {
			t.Errorf("%q:\ngot  %q\nwant %q", src, got, want)
		}
	}
}
