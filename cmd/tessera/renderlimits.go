package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/themes"
)

// templateFlags are the bounds on templates (docs/themes.md#limits): how
// deep a pushed or rendered template may nest, and how far one render may
// go.
type templateFlags struct {
	timeout                       time.Duration
	maxOutputMiB, maxSteps, depth int
}

// maxRenderOutputMiB bounds --render-max-output: a render may build four
// times it in all, which must fit an int on a 32-bit build.
const maxRenderOutputMiB = 256

// maxTemplateDepth bounds --template-max-depth: far deeper than any theme,
// far shallower than what overflows a goroutine's stack.
const maxTemplateDepth = 10_000

// addDepthFlag defines --template-max-depth, which theme push shares with
// serve.
func addDepthFlag(fs *flag.FlagSet, depth *int) {
	fs.IntVar(depth, "template-max-depth", envInt("TESSERA_TEMPLATE_MAX_DEPTH", themes.DefaultMaxDepth),
		"how deeply a template may nest blocks (and brackets in one tag); deeper ones are refused before they are parsed [TESSERA_TEMPLATE_MAX_DEPTH]")
}

// checkDepth validates --template-max-depth.
func checkDepth(depth int) error {
	if depth < 1 || depth > maxTemplateDepth {
		return usagef("--template-max-depth %d: want 1 to %d", depth, maxTemplateDepth)
	}
	return nil
}

// addRenderFlags defines serve's template flags.
func addRenderFlags(fs *flag.FlagSet, f *templateFlags) {
	fs.DurationVar(&f.timeout, "render-timeout", envDuration("TESSERA_RENDER_TIMEOUT", render.DefaultTimeout),
		"how long one render of a page or template may take; the public site then shows the theme's 500 page [TESSERA_RENDER_TIMEOUT]")
	fs.IntVar(&f.maxOutputMiB, "render-max-output", envInt("TESSERA_RENDER_MAX_OUTPUT", render.DefaultMaxOutput>>20),
		fmt.Sprintf("MiB one render may write to its page or to any capture, include or filter result; %d times it in all [TESSERA_RENDER_MAX_OUTPUT]", render.MemoryFactor))
	fs.IntVar(&f.maxSteps, "render-max-steps", envInt("TESSERA_RENDER_MAX_STEPS", render.DefaultMaxSteps),
		"loop iterations, includes, tags and filter calls one render may take [TESSERA_RENDER_MAX_STEPS]")
	addDepthFlag(fs, &f.depth)
}

// limits validates the flags and returns them as render.Limits.
func (f templateFlags) limits() (render.Limits, error) {
	switch {
	case f.timeout <= 0:
		return render.Limits{}, usagef("--render-timeout %v: want a positive duration", f.timeout)
	case f.maxOutputMiB < 1 || f.maxOutputMiB > maxRenderOutputMiB:
		return render.Limits{}, usagef("--render-max-output %d: want 1 to %d (MiB)", f.maxOutputMiB, maxRenderOutputMiB)
	case f.maxSteps < 1:
		return render.Limits{}, usagef("--render-max-steps %d: want at least 1", f.maxSteps)
	}
	if err := checkDepth(f.depth); err != nil {
		return render.Limits{}, err
	}
	return render.Limits{Steps: f.maxSteps, Output: f.maxOutputMiB << 20, Timeout: f.timeout, Depth: f.depth}, nil
}
